"""``mapgen render``: draw a map, a partial map or its reveal profile as SVG, PNG or PDF."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import click

from constraints.catalogue import check_map
from mapgen.cli.errors import BadInput, about, found_then_out_of_time
from mapgen.cli.options import (
    FiniteRange,
    OutName,
    force_option,
    house_words,
    json_option,
    kernels_ready,
    load_map,
    out_file,
    reject,
    reveal_option,
    revealed_input,
    rules_file,
    rules_for,
    rules_option,
    typed,
)
from mapgen.inputs import STDIN, Unreadable, parse_json, read_json, read_stdin, read_text

SOLVE_TIME = 30.0  # seconds, --forced and --probabilities
PROFILE_TIME = 300.0  # seconds, --profile on a map (a solver call per reveal)


def _named(m, spec: str):
    """The map to draw: one with neither number nor name in its briefing is titled by its file (``fauna-1``)."""
    if m.briefing.number is not None or m.briefing.name or spec == STDIN:  # a map piped in has no file name
        return m
    return replace(m, briefing=replace(m.briefing, name=Path(spec).stem))


def _no_completion(m, chapter, map_file: str, time_limit: float, house: str):
    """The conflict (``NoCompletion``) of a partial map no map completes, else None: the solver's first SAT call
    (what ``--forced`` asks first), then, only when there is none, the rules and cells that conflict. A
    hand-made puzzle is drawn all the same, as a complete map that breaks rules is, with a note; a check that
    ran out of time says nothing (it is no answer)."""
    from mapgen.solving.solve import Solver  # deferred: ortools, only for a partial map

    with about(map_file, time_limit, house):
        return Solver.for_chapter(chapter).partial_conflict(m, time_limit)


def _starts_as_json(path: str) -> bool:
    """A file (named other than .json: ``deduce --json > t2.txt``) whose text starts as JSON does, as no map file
    does; False when it cannot be read (load_map then says why)."""
    try:
        text = read_stdin() if path == STDIN else read_text(path, "file")
        return text.lstrip(" \t\r\n").startswith(("{", "["))
    except Unreadable:
        return False


def _read_profile(path: str):
    """A reveal profile from a JSON file: its steps, ``reveal_profile``'s object, or ``mapgen deduce --json``."""
    from mapgen.render.plots import profile_steps  # deferred: the command's library, only when it runs

    try:
        what = "JSON reveal profile"
        data = parse_json(read_stdin(what), what) if path == STDIN else read_json(path, what)
    except Unreadable as e:
        raise BadInput(path, str(e)) from None
    try:
        profile_steps(data)
    except ValueError as e:
        raise BadInput(path, str(e)) from None
    return data


@click.command()
@click.argument("map_file", metavar="MAP")
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    metavar="FILE",
    type=OutName("file"),
    help="The picture to write; its suffix picks the format: .svg, .png or .pdf.",
)
@force_option("the output file")
@reveal_option
@click.option(
    "--forced",
    is_flag=True,
    help="Mark unexplored cells that hold one terrain in every completion (a Hill with its number where every "
    "completion gives it the same one).",
)
@click.option(
    "--probabilities",
    "code",
    metavar="CODE",
    is_flag=False,
    flag_value="",  # alone (as solve's flag): the chapter's counted terrain
    help="Shade each unexplored cell by the chance it holds this terrain (a code like Sk; alone: the chapter's "
    "counted terrain, Ft in Fauna).",
)
@click.option(
    "--profile",
    is_flag=True,
    help="Draw the reveal profile of `mapgen deduce` (MAP may be a map or that command's JSON).",
)
@click.option("--sheet", is_flag=True, help="A printable two-page PDF: the board to play on, then key and rules.")
@click.option(
    "--paper",
    type=click.Choice(["a4", "letter"], case_sensitive=False),
    default="a4",
    show_default=True,
    help="Paper size of --sheet.",
)
@click.option(
    "--time-limit",
    type=FiniteRange(0.1, 86_400),
    default=None,
    help="Seconds the solver may spend: default 30 for --forced/--probabilities, 300 for --profile. "
    "When it runs out: exit 3.",
)
@click.option(
    "--dpi",
    type=click.IntRange(min=50, max=600),
    default=150,
    show_default=True,
    help="Pixels per inch of a PNG (a map is about 13 inches wide).",
)
@click.option(
    "--layout",
    type=click.Choice(["wide", "tall"], case_sensitive=False),
    default="wide",
    show_default=True,
    help="wide: the briefing beside the board; tall: under it, with larger words, for a phone "
    "(with --dpi 50 a 7x7 map is about 680 px wide).",
)
@rules_option
@json_option
def render(map_file, out, force, reveal, forced, code, profile, sheet, paper, time_limit, dpi, layout, rules, as_json):
    """Draw a map, a partial map or its reveal profile as SVG, PNG or PDF.

    MAP is a map file or the name of a shipped map. The board shows coordinates, every terrain
    as a colour, a symbol and its name (readable in greyscale), Hill numbers, the Peak, the
    start and Greek Fire, beside the Mission Briefing. Unexplored cells are drawn as Path tokens.
    An existing output file is kept unless --force.

    With --rules FILE the map is drawn under that house-rule chapter file's rules (exit 2 for a map of another
    chapter): --forced, --probabilities and --profile are solved under them, a complete map's broken rules are
    judged by them, and a --sheet lists them.

    \b
    Example:
        mapgen render fauna-1 -o fauna-1.png
        mapgen deduce fauna-1 --puzzle puzzle.toml --no-profile
        mapgen render puzzle.toml -o puzzle.svg --forced --probabilities Ft
        mapgen render fauna-1 --reveal A7,B7,C7 -o odds.png --probabilities Sk
        mapgen render fauna-1 -o phone.png --layout tall --dpi 50
        mapgen render fauna-1 -o fauna-1.pdf --sheet --paper letter
        mapgen render fauna-1 -o profile.png --profile
    """
    from mapgen.render import (  # deferred: the command's library, only when it runs
        heat_options,
        odds_not_in_time,
        plot_profile,
        render_map,
        render_sheet,
    )
    from mapgen.render.output import (  # deferred: the command's library, only when it runs
        glyph_note,
        missing_glyphs,
        output_format,
    )
    from mapgen.render.plots import profile_steps  # deferred: the command's library, only when it runs

    fmt = output_format(out)  # RenderError (exit 2): a format we cannot write
    out_file(out, force=force)
    shades = code is not None  # --probabilities alone is "" (the counted terrain): asked all the same
    if profile and (forced or shades or sheet or reveal is not None):
        raise BadInput(
            None, "--profile draws a chart; it cannot be combined with --reveal, --forced, --probabilities or --sheet"
        )
    if sheet and fmt != "pdf":
        raise BadInput(out, "a printable sheet is a PDF; name the file .pdf")
    if not sheet and typed("paper"):  # it was dropped without a word
        reject("--paper", "is the paper of a printable sheet: add --sheet (a map alone is drawn to its own size)")
    if (sheet or profile) and typed("layout"):  # it was dropped without a word
        reject("--layout", "arranges a picture of a map; --sheet and --profile have layouts of their own")
    if fmt != "png" and typed("dpi"):  # it was dropped without a word: an SVG or a PDF has no pixels
        article = "an" if fmt == "svg" else "a"
        reject(
            "--dpi",
            f"sets a PNG's pixels per inch; {out} is {article} {fmt.upper()}, drawn to scale: name the file .png",
        )
    if time_limit is not None and not (forced or shades or profile):
        reject("--time-limit", "limits the solver of --forced, --probabilities and --profile; none is asked")
    started = time.perf_counter()
    extra: dict = {}
    if profile:
        if map_file.lower().endswith(".json") or _starts_as_json(map_file):
            if rules is not None:  # it would be drawn as deduced, under whatever rules it was, without a word
                reject("--rules", f"{map_file} is a reveal profile, deduced already; give a map to deduce under them")
            data = _read_profile(map_file)
        else:
            map_in = load_map(map_file, complete=True, command="--profile")
            chapter = rules_for(map_in, rules) if rules is not None else None  # exit 2: another chapter's map
            from mapgen.deduce import reveal_profile  # deferred: ortools, only when the command runs

            time_limit = time_limit or PROFILE_TIME
            with about(map_file, time_limit):
                data = reveal_profile(map_in.map, time_limit=time_limit, chapter=chapter)
        of = "" if map_file == STDIN else f" of {Path(map_file).stem}"  # a map or report piped in: no name
        title = f"Reveal profile{of}: what is still open after each reveal"
        result = plot_profile(data, out, title=title, dpi=dpi, force=force)
        extra["steps"] = len(profile_steps(data)[0])
    else:
        map_in = load_map(map_file)
        chapter = rules_for(map_in, rules)  # the --rules house chapter (exit 2: another chapter's map), else the map's
        m = revealed_input(map_in, reveal, chapter).map
        # a map made under house rules, drawn without them (or under others): its solving and its sheet's rules say so
        house = house_words(m, rules)[2]
        terrain = None
        if code == "":
            if chapter.counted is None:
                reject(
                    "--probabilities",
                    f"the {chapter.name} chapter has no counted terrain; name one: --probabilities CODE",
                )
            terrain = chapter.counted
        elif code is not None:
            try:
                terrain = chapter.terrain(code)
            except ValueError as e:
                reject("--probabilities", str(e))
        if terrain is not None and m.complete:
            raise BadInput(
                map_file, "the map is complete; --probabilities shades unexplored cells only (hide some: --reveal)"
            )
        if forced and m.complete:  # as --probabilities: it drew the map with nothing marked, without a word
            raise BadInput(map_file, "the map is complete; --forced marks unexplored cells only (hide some: --reveal)")
        time_limit = time_limit or SOLVE_TIME
        forced_cells, got, hills = None, None, None
        if forced or terrain is not None:
            from mapgen.solving.explain import HILL_SHARE  # deferred: pysat, only when the command runs
            from mapgen.solving.solve import Solver  # deferred: ortools, only when the command runs

            solver = Solver.for_chapter(chapter)  # a house chapter's own solver (its caches by content)
            if terrain is not None:
                kernels_ready()
            with about(map_file, time_limit, house):
                if forced:
                    forced_cells = solver.forced(m, time_limit=time_limit)
                    # a forced Hill's number where every completion gives the same one (counted work: any load)
                    hills = solver.hill_numbers(m, HILL_SHARE * time_limit, forced=forced_cells)
                if terrain is not None:
                    got = solver.heat_answer(m, terrain, time_limit=time_limit)
        elif not m.complete:  # a puzzle drawn for print: one SAT call says whether any map completes it
            conflict = _no_completion(m, chapter, map_file, time_limit, house)
            if conflict is not None:
                extra["conflict"] = conflict.to_json()
                extra["note"] = f"{map_file}: no map completes this partial map: {conflict}{house}"
        label = terrain.label if terrain is not None else ""
        options = {"forced": forced_cells, **heat_options(got, label)}
        if hills is not None and hills.numbers:
            options["hill_numbers"] = hills.numbers
        broken = []
        if m.complete and reveal is None:  # a hand-made map drawn for print: say it breaks rules, draw it anyway
            broken = check_map(m, rules)
            if broken:
                ids = ", ".join(dict.fromkeys(v.rule for v in broken))
                n = len(broken)
                under, see, hint = house_words(m, rules)
                extra["note"] = (
                    f"{map_file}: the map breaks rules {ids}{under} ({n} violation{'s' if n != 1 else ''}; "
                    f"mapgen validate{see} {map_file} lists them){hint}"
                )
        if house and (sheet or forced or terrain is not None) and "note" not in extra:
            # a sheet lists the rules, --forced and --probabilities solve under them: not the ones it was made under
            under = f"the house rules of {rules_file()}" if rules is not None else f"the shipped {chapter.name} rules"
            extra["note"] = f"{map_file}: drawn under {under}{house}"
        shown = _named(m, map_file)
        if rules is not None:  # its terrains and, on a sheet, the rules listed: the house chapter's
            options["chapter"] = rules
        with missing_glyphs() as missing:  # CJK in a name: DejaVu has no glyph; matplotlib warns once a character
            if sheet:
                result = render_sheet(shown, out, paper=paper.lower(), force=force, violations=broken, **options)
            else:
                result = render_map(
                    shown, out, dpi=dpi, force=force, violations=broken, layout=layout.lower(), **options
                )
        if missing:
            glyphs = glyph_note(out, "picture", missing, "drawn as boxes")
            extra["note"] = f"{extra['note']}; {glyphs}" if "note" in extra else glyphs
        if got is not None:
            name = m.board.name
            extra["probabilities"] = {
                "terrain": terrain.code,
                "exact": options["heat_exact"],
                # exact, sampler (estimates), unigen (almost-uniform samples) or none (null where it may be)
                "method": got.method,
                "cells": {name(i): None if p is None else round(p, 6) for i, p in sorted(got.heat.items())},
                # the sampler's 95% upper bound where its share is 0 but the cell may hold the terrain ("≤31%")
                "bounds": {name(i): round(p, 6) for i, p in sorted(got.bounds.items())},
                # the sampler's estimates: each one's 95% half-width (the "±14" drawn under "~12%") and whether its
                # chains agreed (null where no sampler answered)
                "errors": {name(i): round(e, 6) for i, e in sorted(got.errors.items())},
                "converged": got.converged,
            }
        if forced_cells is not None and hills is not None:
            from mapgen.report import hill_fields, hills_late  # deferred: with the solver

            extra["forced"] = {m.board.name(i): t.code for i, t in sorted(forced_cells.items())}
            extra.update(hill_fields(m, hills, forced_cells))
            late = hills_late(m, hills) and f"{hills_late(m, hills)}: raise --time-limit"
            if late:  # said, never guessed: the picture shows those Hills without a number
                extra["note"] = f"{extra['note']}; {late}" if "note" in extra else f"{map_file}: {late}"
    seconds = time.perf_counter() - started
    if "note" in extra:
        click.echo(f"note: {extra.pop('note')}", err=True)
    if as_json:
        click.echo(json.dumps({**result.to_json(), "seconds": round(seconds, 3), **extra}, indent=2))
    else:
        size = f", {result.width_px}x{result.height_px} px" if result.width_px else ""
        pages = f", {result.pages} pages" if result.pages > 1 else ""
        click.echo(f"wrote {result.path} ({result.format.upper()}{size}{pages}) in {seconds:.1f} s")
    late = None if profile else odds_not_in_time(got, label)
    if late is not None:
        # no route answered in time: the picture is drawn with "?" where the terrain may be; say so, as solve does
        raise found_then_out_of_time(
            map_file, late, time_limit, ["probabilities"], found='drew what was found ("?" where it may be)'
        )
