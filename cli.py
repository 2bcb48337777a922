"""The ``mapgen`` command line: a thin click layer over the mapgen and constraints libraries."""

from __future__ import annotations

import json
import sys

import click

from mapgen import __version__


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines instead of a report.")(f)


def chapter_file_option(f):
    return click.option("--rules", "rules_file", type=click.Path(dir_okay=False),
                        help="A house-rule chapter file (TOML, same shape as constraints/chapters/*.toml).")(f)


def _load_rules(rules_file):
    if rules_file is None:
        return None
    from constraints.catalogue import ChapterError, load_chapter

    try:
        return load_chapter(rules_file)
    except ChapterError as e:
        raise click.ClickException(str(e)) from None


class MapgenGroup(click.Group):
    """Lists commands in the order they were added, not alphabetically."""

    def list_commands(self, ctx):
        return list(self.commands)


@click.group(cls=MapgenGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mapgen")
def main():
    """Generate, validate, solve and playtest Corps of Discovery maps."""


@main.command()
@click.argument("files", nargs=-1, required=True)
@json_option
@chapter_file_option
def validate(files, as_json, rules_file):
    """Check complete map files against every rule of their chapter.

    Exit 0 when every map is valid, 1 when any breaks a rule, 2 when any file cannot be read.

    \b
    Example:
        mapgen validate maps/fauna-1.toml my-map.toml
        mapgen validate --json *.toml
    """
    from mapgen.validate import validate_file

    chapter = _load_rules(rules_file)
    reports = [validate_file(f, chapter) for f in files]
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
        sys.exit(2)
    if any(not r.valid for r in reports):
        sys.exit(1)


@main.command()
@click.argument("chapter", required=False)
@json_option
@chapter_file_option
def chapters(chapter, as_json, rules_file):
    """Show the chapters, their terrains and their rules: the Reference Board as text.

    \b
    Example:
        mapgen chapters
        mapgen chapters fauna
    """
    from constraints.catalogue import ChapterError, get_chapter
    from mapgen.model import CHAPTER_NAMES
    from mapgen.reference import chapter_json, chapter_text

    custom = _load_rules(rules_file)
    try:
        chosen = [custom] if custom else [get_chapter(chapter)] if chapter else [get_chapter(n) for n in CHAPTER_NAMES]
    except ChapterError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps([chapter_json(c) for c in chosen], indent=2, ensure_ascii=False))
    else:
        click.echo("\n\n".join(chapter_text(c, full=bool(chapter or custom)) for c in chosen))


from mapgen.render.commands import render  # noqa: E402
main.add_command(render)

from engine.commands import playtest  # noqa: E402
main.add_command(playtest)


if __name__ == "__main__":
    main()
