"""``mapgen chapters``: the chapters, their terrains and rules (the Reference Board as text)."""

from __future__ import annotations

import json

import click

from mapgen.cli.options import chapter_names, json_option, rules_option


@click.command()
@click.argument("chapter", required=False)
@json_option
@rules_option
def chapters(chapter, as_json, rules):
    """Show the chapters, their terrains and their rules: the Reference Board as text.

    With --rules, show that house-rule chapter file instead.

    \b
    Example:
        mapgen chapters
        mapgen chapters fauna --json
    """
    from constraints.catalogue import get_chapter
    from mapgen.reference import chapter_json, chapter_text

    if rules is not None:
        chosen = [rules]
    elif chapter:
        chosen = [get_chapter(chapter.strip().lower())]  # ChapterError (exit 2) names the chapters there are
    else:
        chosen = [get_chapter(n) for n in chapter_names()]
    if as_json:
        click.echo(json.dumps([chapter_json(c) for c in chosen], indent=2, ensure_ascii=False))
    else:
        click.echo("\n\n".join(chapter_text(c) for c in chosen))
