"""The ``mapgen render`` command: a thin click layer over ``mapgen.render``."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

EXIT_BAD_INPUT = 2
SOLVE_TIME = 30.0  # seconds, --forced and --probabilities
PROFILE_TIME = 300.0  # seconds, --profile on a map (a solver call per reveal)


def _fail(message: str, code: int = EXIT_BAD_INPUT):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _read_map(spec: str):
    """A map from a path, or from a shipped map's name when the maps package can resolve it."""
    from mapgen.mapfile import MapFileError, read_map

    path = Path(spec)
    if not path.exists():
        try:
            from maps import resolve  # shipped maps by name, once they exist
        except ImportError:
            resolve = None
        if resolve is not None:
            try:
                path = Path(resolve(spec))
            except (LookupError, ValueError, OSError):
                path = Path(spec)
    try:
        return read_map(path)
    except MapFileError as e:
        _fail(str(e))


def _named(m, spec: str):
    """The map to draw: one with neither number nor name in its briefing is titled by its file (``fauna-1``)."""
    from dataclasses import replace

    if m.briefing.number is not None or m.briefing.name:
        return m
    return replace(m, briefing=replace(m.briefing, name=Path(spec).stem))


def _read_profile(path: str):
    """A reveal profile from a JSON file: its steps, ``reveal_profile``'s object, or ``mapgen deduce --json``."""
    from mapgen.render.plots import profile_steps

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        _fail(f"{path}: no such file")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        _fail(f"{path}: not a JSON reveal profile ({e})")
    try:
        profile_steps(data)
    except ValueError as e:
        _fail(f"{path}: {e}")
    return data


def _solver(chapter: str):
    try:
        from mapgen.solve import Solver
    except ImportError:
        _fail("--forced and --probabilities need the solver (mapgen.solve), which this install lacks", 1)
    return Solver.for_chapter(chapter)


def _solving(call, time_limit: float):
    """Run a solver call; no completion or no time left becomes a one-line error (exit 1)."""
    from mapgen.solve import NoCompletion, SolveTimeout

    try:
        return call()
    except NoCompletion as e:
        _fail(str(e), 1)
    except SolveTimeout:
        _fail(f"the solver ran out of time ({time_limit:g} s); try a larger --time-limit", 1)


def _forced(m, time_limit: float) -> dict:
    solver = _solver(m.chapter)
    return _solving(lambda: solver.forced(m, time_limit=time_limit), time_limit)


def _heat(m, terrain, time_limit: float) -> tuple[dict, bool]:
    solver = _solver(m.chapter)
    chances, exact = _solving(lambda: solver.probabilities(m, time_limit=time_limit), time_limit)
    return {i: float(chances.get(i, {}).get(terrain, 0.0)) for i in m.unrevealed()}, exact


def _profile(m, time_limit: float) -> dict:
    try:
        from mapgen.deduce import reveal_profile
    except ImportError:
        _fail("--profile on a map file needs mapgen.deduce, which this install lacks; pass a JSON profile", 1)
    if not m.complete:
        _fail("--profile plays a complete map from its start; this map has unexplored cells")
    return _solving(lambda: reveal_profile(m, time_limit=time_limit), time_limit)


@click.command()
@click.argument("map_file", metavar="MAP")
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    help="The picture to write; its suffix picks the format: .svg, .png or .pdf.",
)
@click.option("--forced", is_flag=True, help="Mark unexplored cells that hold one terrain in every completion.")
@click.option(
    "--probabilities",
    "code",
    metavar="CODE",
    help="Shade each unexplored cell by the chance it holds this terrain (a code like Ft).",
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
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds the solver may spend: default 30 for --forced/--probabilities, 300 for --profile.",
)
@click.option(
    "--dpi",
    type=click.IntRange(min=50, max=600),
    default=150,
    show_default=True,
    help="Pixels per inch of a PNG (a map is about 13 inches wide).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines instead of a report.")
def render(map_file, out, forced, code, profile, sheet, paper, time_limit, dpi, as_json):
    """Draw a map, a partial map or its reveal profile as SVG, PNG or PDF.

    The board shows coordinates, every terrain as a colour, a symbol and its name (readable in
    greyscale), Hill numbers, the Peak, the start and Greek Fire, beside the Mission Briefing.
    Unexplored cells are drawn as Path tokens.

    \b
    Example:
        mapgen render maps/fauna-1.toml -o fauna-1.png
        mapgen render state.toml -o state.svg --forced --probabilities Ft
        mapgen render maps/fauna-1.toml -o fauna-1.pdf --sheet --paper letter
        mapgen render maps/fauna-1.toml -o profile.png --profile
    """
    from mapgen.render import RenderError, plot_profile, render_map, render_sheet
    from mapgen.render.output import output_format
    from mapgen.render.plots import profile_steps
    from mapgen.terrain import parse_terrain

    try:
        fmt = output_format(out)
    except RenderError as e:
        _fail(str(e))
    folder = Path(out).parent
    if not folder.is_dir():
        _fail(f"{out}: folder {folder} does not exist")
    if profile and (forced or code or sheet):
        _fail("--profile draws a chart; it cannot be combined with --forced, --probabilities or --sheet")
    if sheet and fmt != "pdf":
        _fail(f"{out}: a printable sheet is a PDF; name the file .pdf")
    started = time.perf_counter()
    extra: dict = {}
    try:
        if profile:
            if map_file.lower().endswith(".json"):
                data = _read_profile(map_file)
            else:
                data = _profile(_read_map(map_file), time_limit or PROFILE_TIME)
            title = f"Reveal profile of {Path(map_file).stem}: what is still open after each reveal"
            result = plot_profile(data, out, title=title, dpi=dpi)
            extra["steps"] = len(profile_steps(data)[0])
        else:
            m = _read_map(map_file)
            terrain = None
            if code is not None:
                try:
                    terrain = parse_terrain(code)
                except ValueError as e:
                    _fail(f"--probabilities: {e}")
                if m.complete:
                    _fail(f"{map_file}: the map is complete; --probabilities shades unexplored cells only")
            time_limit = time_limit or SOLVE_TIME
            forced_cells = _forced(m, time_limit) if forced else None
            heat, exact = _heat(m, terrain, time_limit) if terrain is not None else (None, True)
            label = terrain.label if terrain is not None else ""
            options = {"forced": forced_cells, "heat": heat, "heat_label": label, "heat_exact": exact}
            shown = _named(m, map_file)
            if sheet:
                result = render_sheet(shown, out, paper=paper.lower(), **options)
            else:
                result = render_map(shown, out, dpi=dpi, **options)
            if heat is not None:
                extra["probabilities"] = {
                    "terrain": terrain.code,
                    "exact": exact,
                    "cells": {m.board.name(i): round(p, 6) for i, p in sorted(heat.items())},
                }
            if forced_cells is not None:
                extra["forced"] = {m.board.name(i): t.code for i, t in sorted(forced_cells.items())}
    except RenderError as e:
        _fail(str(e), 1)
    seconds = time.perf_counter() - started
    if as_json:
        click.echo(json.dumps({**result.to_json(), "seconds": round(seconds, 3), **extra}, indent=2))
        return
    size = f", {result.width_px}x{result.height_px} px" if result.width_px else ""
    pages = f", {result.pages} pages" if result.pages > 1 else ""
    click.echo(f"wrote {result.path} ({result.format.upper()}{size}{pages}) in {seconds:.1f} s")
