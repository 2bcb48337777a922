"""``mapgen validate``: check complete map files against every rule of their chapter."""

from __future__ import annotations

import json
from dataclasses import replace

import click

from mapgen.cli.errors import BAD_INPUT, BROKEN
from mapgen.cli.options import json_option, map_path, rules_option, unknown_map_name
from mapgen.validate import FileReport, validate_file


def _report(spec: str, rules) -> FileReport:
    path = map_path(spec)
    problem = unknown_map_name(spec, path)  # a misspelt shipped name: as every other command says it
    if problem:
        return FileReport(spec, error=problem)
    return replace(validate_file(path, rules), file=spec)


@click.command()
@click.argument("files", nargs=-1, required=True)
@json_option
@rules_option
def validate(files, as_json, rules):
    """Check complete map files (or shipped maps by name) against every rule of their chapter.

    Every file is checked, even after an unreadable one: exit 0 when every map is valid, 1 when
    any breaks a rule, 2 when any file cannot be read.

    \b
    Example:
        mapgen validate fauna-1 flora-2
        mapgen generate -c fauna --seed 7 --out my-maps
        mapgen validate --json my-maps/fauna-7.toml
    """

    reports = [_report(f, rules) for f in files]
    for r in reports:
        if r.error:
            click.echo(f"error: {r.file}: {r.error}", err=True)
    if as_json:
        click.echo(json.dumps([r.to_json() for r in reports], indent=2, ensure_ascii=False))
    else:
        for r in reports:
            if r.error:
                click.echo(f"{r.file}: unreadable")
            elif r.valid:
                click.echo(f"{r.file}: valid")
            else:
                n = len(r.violations)
                click.echo(f"{r.file}: {n} violation{'s' if n != 1 else ''}")
                for v in r.violations:
                    click.echo(f"  {v}")
    if any(r.error for r in reports):
        raise click.exceptions.Exit(BAD_INPUT)
    if any(not r.valid for r in reports):
        raise click.exceptions.Exit(BROKEN)
