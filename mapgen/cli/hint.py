"""``mapgen hint``: the single easiest deduction on a partial map, with its reason (a hint button)."""

from __future__ import annotations

import json

import click

from constraints.catalogue import get_chapter
from mapgen.cli.errors import about
from mapgen.cli.options import (
    json_option,
    kernels_ready,
    map_argument,
    reject,
    reveal_option,
    revealed_input,
    time_limit_option,
)


@click.command()
@map_argument()
@reveal_option
@click.option(
    "--target",
    default=None,
    metavar="CODE",
    help="When nothing is forced, rank the Paths by their odds of this terrain (default: the chapter's counted terrain).",
)
@time_limit_option(10.0)
@json_option
def hint(map_in, reveal, target, time_limit, as_json):
    """The single easiest deduction on a partial map, with its reason in words, like a hint button.

    The easiest is the forced cell whose explanation needs the fewest rules, then the fewest
    revealed cells. When no cell is forced it says so and names the unexplored Paths a player may
    explore next with the best odds of the target terrain. Exit codes as for `mapgen solve`.

    \b
    Example:
        mapgen hint fauna-1 --reveal A7,B7,C7
        mapgen hint fauna-1 --reveal A7=Wa,B7=Ti
        mapgen deduce fauna-1 --puzzle puzzle.toml --no-profile
        mapgen hint puzzle.toml --target Sk --json
    """
    from mapgen.solving.explain import hint as find_hint  # deferred: pysat, only when the command runs
    from mapgen.solving.explain import hint_text  # deferred: pysat, only when the command runs
    from mapgen.solving.solve import Solver  # deferred: ortools, only when the command runs

    map_in = revealed_input(map_in, reveal)
    state, file = map_in.map, map_in.source
    chapter = get_chapter(state.chapter)
    terrain = chapter.counted
    if target is not None:
        try:
            terrain = chapter.terrain(target)
        except ValueError as e:
            reject("--target", str(e))
    kernels_ready()
    with about(file, time_limit):
        result = find_hint(Solver.for_chapter(state.chapter), state, terrain, time_limit=time_limit)
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(hint_text(state, result, file))
        if terrain is None and not result["forced"] and result["message"] == "no cell is forced: you must guess":
            # a chapter with no counted terrain (Training): say how to get the odds, as solve --target does
            click.echo(
                f"  (the {state.chapter} chapter counts no terrain: name one with --target CODE for the Paths' odds)"
            )
