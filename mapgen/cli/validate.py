"""``mapgen validate``: check complete map files against every rule of their chapter."""

from __future__ import annotations

import json
from dataclasses import replace

import click

from mapgen.cli.errors import BAD_INPUT, BROKEN
from mapgen.cli.options import json_option, map_path, rules_file, rules_option, told_map_problem, unknown_map_name
from mapgen.inputs import STDIN, Unreadable, read_stdin
from mapgen.validate import FileReport, validate_file


def _report(spec: str, rules) -> FileReport:
    r = _read_report(spec, rules)
    return replace(r, error=told_map_problem(r.error)) if r.error else r  # as every other command tells it


def _read_report(spec: str, rules) -> FileReport:
    if spec == STDIN:  # a map piped in: mapgen generate ... | mapgen validate -
        try:
            return validate_file(spec, rules, text=read_stdin("map file"))
        except Unreadable as e:
            return FileReport(spec, error=str(e))
    path = map_path(spec)
    problem = unknown_map_name(spec, path)  # a misspelt shipped name: as every other command says it
    if problem:
        return FileReport(spec, error=problem)
    return replace(validate_file(path, rules), file=spec)


def _made_under_note(r: FileReport, rules) -> str | None:
    """For a map that breaks a rule: the house rules it says it was made under, when it was not checked against
    those very rules (no --rules, or a --rules file of another fingerprint), else None."""
    made = r.made_under
    if made is None:
        return None
    name, fingerprint = made["rules"], made["fingerprint"]
    shown = f" (fingerprint {fingerprint})" if fingerprint else ""
    if rules is None:
        return f"  note: made under the house rules of {name}{shown}: check it with mapgen validate --rules {name}"
    from mapgen.solving.compiled import chapter_fingerprint  # deferred: numpy's module, only for such a map

    given = chapter_fingerprint(rules)
    if given == fingerprint:
        return None
    return f"  note: made under the house rules of {name}{shown}, not those of {rules_file()} (fingerprint {given})"


@click.command()
@click.argument("files", nargs=-1, required=True)
@json_option
@rules_option
def validate(files, as_json, rules):
    """Check complete map files (or shipped maps by name) against every rule of their chapter.

    Every file is checked, even after an unreadable one: exit 0 when every map is valid, 1 when
    any breaks a rule, 2 when any file cannot be read or is a partial map (mapgen solve deduces one).

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
            if r.error:  # a partial map was read: stderr says why it was not validated
                click.echo(f"{r.file}: {'partial map: not validated' if r.partial else 'unreadable'}")
            elif r.valid:
                click.echo(f"{r.file}: valid")
            else:
                n = len(r.violations)
                click.echo(f"{r.file}: {n} violation{'s' if n != 1 else ''}")
                for v in r.violations:
                    click.echo(f"  {v}")
                note = _made_under_note(r, rules)
                if note:
                    click.echo(note)
    if any(r.error for r in reports):
        raise click.exceptions.Exit(BAD_INPUT)
    if any(not r.valid for r in reports):
        raise click.exceptions.Exit(BROKEN)
