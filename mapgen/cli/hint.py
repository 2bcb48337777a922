"""``mapgen hint``: the single easiest deduction on a partial map, with its reason (a hint button)."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, NoReturn

import click

from mapgen.cli.errors import BROKEN, TIMEOUT, about, exit_code, found_then_out_of_time, printed
from mapgen.cli.options import (
    cache_note,
    house_words,
    json_option,
    kernels_ready,
    map_argument,
    reject,
    reveal_option,
    revealed_input,
    rules_for,
    rules_option,
    time_limit_option,
)

if TYPE_CHECKING:
    from mapgen.solving.sat import NoCompletion


@click.command()
@map_argument()
@reveal_option
@click.option(
    "--target",
    default=None,
    metavar="CODE",
    help="When nothing is forced, rank the Paths by their odds of this terrain (default: the chapter's counted terrain).",
)
@click.option(
    "--steps",
    is_flag=True,
    help="A solution path: take the easiest deduction, reveal that cell, repeat until the map is done or a guess "
    "is needed (the --time-limit covers the whole path).",
)
@time_limit_option(10.0)
@rules_option
@json_option
def hint(map_in, reveal, target, steps, time_limit, rules, as_json):
    """The single easiest deduction on a partial map, with its reason in words, like a hint button.

    The easiest is the forced cell whose explanation needs the fewest rules, then the fewest
    revealed cells. When no cell is forced it says so and names the unexplored Paths a player may
    explore next with the best odds of the target terrain. Exit codes as for `mapgen solve`. With
    --rules FILE the deductions follow that house-rule chapter file instead of the map's chapter.

    \b
    Example:
        mapgen hint fauna-1 --reveal A7,B7,C7
        mapgen hint fauna-1 --reveal A7=Wa,B7=Ti
        mapgen deduce fauna-1 --puzzle puzzle.toml --no-profile
        mapgen hint puzzle.toml --target Sk --json
        mapgen hint puzzle.toml --steps --time-limit 60
    """
    from mapgen.solving.explain import MUST_GUESS, hint_text  # deferred: pysat, only when the command runs
    from mapgen.solving.explain import hint as find_hint  # deferred: pysat, only when the command runs
    from mapgen.solving.solve import NoCompletion, Solver  # deferred: ortools, only when the command runs

    chapter = rules_for(map_in, rules)  # exit 2: a map of another chapter than the --rules file's
    map_in = revealed_input(map_in, reveal, chapter)
    state, file = map_in.map, map_in.source
    terrain = chapter.counted
    if target is not None:
        try:
            terrain = chapter.terrain(target)
        except ValueError as e:
            reject("--target", str(e))
    kernels_ready()
    note = house_words(state, rules)[2]  # a map made under house rules, asked without them: say which
    if steps:
        solution_path(state, file, terrain, time_limit, as_json, chapter, note)
        return
    try:
        with about(file, time_limit, note):
            result = find_hint(Solver.for_chapter(chapter), state, terrain, time_limit=time_limit)
    except NoCompletion as e:
        no_completion_json(e, file, note, as_json)
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(hint_text(state, result, file))
        if terrain is None and not result["forced"] and result["message"].endswith(MUST_GUESS):
            # a chapter with no counted terrain (Training): say how to get the odds, as solve --target does
            click.echo(
                f"  (the {state.chapter} chapter counts no terrain: name one with --target CODE for the Paths' odds)"
            )
    cache_note(file)
    odds_out_of_time(result, file, time_limit)


def no_completion_json(e: NoCompletion, file: str, note: str, as_json: bool, steps: bool = False) -> NoReturn:
    """A state no map completes (exit 1): with --json the conflict as ``solve --json`` and the web's /api/hint name
    it, ``{"forced": false, "message", "conflict"}`` (--steps: as the path's ``end``), then the one line on stderr;
    without, the error as every command raises it."""
    if not as_json:
        raise e
    end = {"forced": False, "message": str(e), "conflict": e.to_json()}
    click.echo(json.dumps({"steps": [], "end": end} if steps else end, indent=2))
    click.echo(f"error: {file}: {e}{note}", err=True)
    raise click.exceptions.Exit(BROKEN) from None


#: What the stderr line calls an item of a hint's ``missing`` (its JSON's keys), where the key is no word of its own.
MISSING_WORDS = {"may_hold": "which Paths may hold the target", "must_hold": "which must"}


def odds_out_of_time(result: dict, file: str, time_limit: float) -> None:
    """A hint whose Paths' odds ran out of time, or whose forced cells found no explanation within the limit's work
    (printed above, with what was found; its JSON's ``missing`` names it, as the web's /api/hint does): exit 3,
    saying what is missing, in words (``MISSING_WORDS``)."""
    missing = result.get("missing", [])
    if missing:
        reason = result.get("timed_out") or "cells are forced but no explanation was found within the time limit"
        raise found_then_out_of_time(file, reason, time_limit, [MISSING_WORDS.get(m, m) for m in missing])


def solution_path(state, file, terrain, time_limit, as_json, chapter, note=""):
    """``--steps``: the easiest deduction, revealed, again and again (a puzzle's worked solution). Ends where nothing
    is left, a guess is needed (exit 0: the last hint says which), or the time limit runs out (exit 3, the steps
    found printed)."""
    from mapgen.solving.explain import hint as find_hint  # deferred: pysat, only when the command runs
    from mapgen.solving.explain import hint_text  # deferred: pysat, only when the command runs
    from mapgen.solving.solve import NoCompletion, Solver  # deferred: ortools, only when the command runs

    deadline = time.monotonic() + time_limit  # the wall clock ends the whole path here (exit 3)
    solver = Solver.for_chapter(chapter)
    found: list[dict] = []
    deduced: dict[int, int] = {}  # the cells the steps deduced, each with its step: hidden on the player's map
    stopped: Exception | None = None  # the time-out that ended a path with steps found: they are printed first
    with about(file, time_limit, note):
        while True:
            # every step's search has the limit's work (counted: the same on any load), never what the wall clock
            # left of it, so the steps found are the same on a busy machine as on an idle one
            try:
                result = find_hint(
                    solver, state, terrain, time_limit=time_limit, deadline=deadline, deduced=dict(deduced)
                )
            except Exception as error:
                if not found and isinstance(error, NoCompletion):  # no map completes the puzzle: exit 1
                    no_completion_json(error, file, note, as_json, steps=True)
                if not found or exit_code(error) != TIMEOUT:
                    raise
                stopped, result = (
                    error,
                    {"forced": False, "message": "the time limit ran out here (raise --time-limit)"},
                )
                break
            if not result["forced"]:
                break
            e = result["explanation"]
            found.append(e)
            cell = state.board.index(e["cell"])
            deduced[cell] = len(found)
            state = state.with_cells(  # a Hill's number, where every completion gives it one, known from then on
                (chapter.terrain(e["terrain"]) if i == cell else t for i, t in enumerate(state.cells)),
                hills={**state.hills, cell: e["number"]} if "number" in e else None,
            )
    # cells are forced, but no explanation came in time ("forced_cells" alone is no sign: a guess beside the Peak has it)
    timed_out = "explanation" in result.get("missing", ())
    if as_json:
        click.echo(json.dumps({"steps": found, "end": result}, indent=2))
    else:
        click.echo(f"{file}: {len(found)} step{'' if len(found) == 1 else 's'}, each the easiest deduction")
        for n, e in enumerate(found, 1):
            click.echo(f"{n:>4}. {e['text']}")
        click.echo(hint_text(state, result, "then"))
    if stopped is not None:
        with about(file, time_limit):
            raise printed(stopped)  # the steps found are printed above: --json's document
    odds_out_of_time(result, file, time_limit)
    if timed_out:
        raise click.exceptions.Exit(TIMEOUT)
