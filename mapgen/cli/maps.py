"""``mapgen maps``: the shipped maps, by chapter, with their deduction grade and play difficulty."""

from __future__ import annotations

import json

import click

import maps
from constraints.catalogue import get_chapter
from mapgen.cli.options import chapter_names, chapter_option, json_option


def _percent(share) -> str:
    return "?" if share is None else f"{100 * share:.0f}%"


def _play_words(play: dict | None) -> str:
    """``play: scout wins 49%, oracle 95%``: the best fair bot's win rate and the oracle's, as recorded."""
    if play is None:  # a map file without a [grade] table (or one that did not play the oracle)
        return "play not graded"
    return (
        f"play: {play['fair_bot']} wins {_percent(play['fair_win_rate'])}, oracle {_percent(play['oracle_win_rate'])}"
    )


@click.command("maps")
@chapter_option("--chapter", "-c", default=None, help="Only this chapter's maps.")
@json_option
def maps_(chapter_name, as_json):
    """List the shipped maps by chapter: each map's name, deduction grade and play difficulty.

    One line per map, chapters in the game's order and maps easiest first: the name to give any command
    (mapgen render fauna-1 -o fauna-1.png), the deduction grade (Gentle, Moderate, Tricky or Fiendish:
    how hard the map is to read, see mapgen deduce) and the play difficulty, the best fair bot's win rate
    and the oracle's (a search with the map in view: the upper bound). The figures are those the map's
    [grade] table records (maps/README.md has them all; mapgen grade NAME plays the map again). With
    --json, a list of objects: {"name", "chapter", "number", "title", "grade", "play": {"fair_bot",
    "fair_win_rate", "oracle_win_rate", "gap"}}.

    \b
    Example:
        mapgen maps
        mapgen maps --chapter fauna --json
    """
    chapters = [chapter_name] if chapter_name else chapter_names()
    found = [(ch, [maps.info(n) for n in maps.names(ch)]) for ch in chapters]
    if as_json:
        click.echo(json.dumps([i for _, infos in found for i in infos], indent=2, ensure_ascii=False))
        return
    width = max((len(i["name"]) for _, infos in found for i in infos), default=0)
    grade_width = max((len(i["grade"] or "–") for _, infos in found for i in infos), default=0)
    blocks = []
    for ch, infos in found:
        if not infos and chapter_name is None:
            continue
        lines = [f"{get_chapter(ch).title} ({ch}: {len(infos)} map{'' if len(infos) == 1 else 's'})"]
        for i in infos:
            title = f' "{i["title"]}"' if i["title"] else ""
            grade = i["grade"] or "–"
            lines.append(f"  {i['name']:<{width}}  {grade:<{grade_width}}  {_play_words(i['play'])}{title}")
        blocks.append("\n".join(lines))
    click.echo("\n\n".join(blocks))
