"""``mapgen solve``: deduce a partial map (forced cells, their reasons, completions, probabilities, targets)."""

from __future__ import annotations

import json

import click

from constraints.catalogue import get_chapter
from mapgen.cli.errors import BROKEN, about
from mapgen.cli.options import json_option, map_argument, reject, time_limit_option


@click.command()
@map_argument()
@click.option(
    "--limit",
    type=click.IntRange(1),
    default=100_000,
    show_default=True,
    help="Stop enumerating at N completions when no exact counter finishes.",
)
@click.option("--probabilities", is_flag=True, help="The share of completions with each terrain, per unrevealed cell.")
@click.option(
    "--target",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[CODE]",
    help="Can the cells of this terrain be deduced yet? (default: the chapter's counted terrain)",
)
@click.option(
    "--explain", is_flag=True, help="Why each forced cell is forced: a minimal set of rules and revealed cells."
)
@time_limit_option(10.0, help="Seconds for the whole answer: forced cells first, then reasons, then the count.")
@json_option
def solve(map_in, limit, probabilities, target, explain, time_limit, as_json):
    """Deduce a partial map: forced cells, their reasons, completions, probabilities and targets.

    Forced cells and possible terrains are exact and come first. The count is exact when the exact
    counter finishes in time, otherwise a labelled estimate with its bounds ("exact": false and
    "estimate"). Exit 0 with at least one completion, 1 with none (naming rules and cells that
    conflict), 2 for an unreadable file, 3 when the time limit runs out before the forced cells
    are known.

    \b
    Example:
        mapgen solve training-1
        mapgen solve my-state.toml --explain
        mapgen solve my-state.toml --probabilities --target Ft --json
    """
    from mapgen.report import solve_report, solve_text  # deferred: ortools, only when the command runs
    from mapgen.solving.solve import NoCompletion  # deferred: ortools, only when the command runs

    state, file = map_in.map, map_in.source
    chapter = get_chapter(state.chapter)
    terrain = None
    if target is not None:
        if target == "":
            if chapter.counted is None:
                reject("--target", f"the {chapter.name} chapter has no counted terrain; name one: --target CODE")
            terrain = chapter.counted
        else:
            try:
                terrain = chapter.terrain(target)
            except ValueError as e:
                reject("--target", str(e))
    try:
        with about(file, time_limit):
            report = solve_report(
                state, limit=limit, probabilities=probabilities, target=terrain, time_limit=time_limit, explain=explain
            )
    except NoCompletion as e:
        if not as_json:
            raise
        click.echo(
            json.dumps(
                {
                    "count": 0,
                    "exact": True,
                    "unique": False,
                    "forced": {},
                    "conflict": {"rules": list(e.rules), "cells": list(e.cells), "message": str(e)},
                }
            )
        )
        click.echo(f"error: {file}: {e}", err=True)
        raise click.exceptions.Exit(BROKEN) from None
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(solve_text(state, report, file))
