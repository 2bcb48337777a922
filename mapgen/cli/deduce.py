"""``mapgen deduce``: how a complete map deduces (a minimal reveal set, its rules, the reveal profile, the grade)."""

from __future__ import annotations

import json
import sys
import time

import click

from mapgen.cli.errors import BadInput, about, found_then_out_of_time
from mapgen.cli.options import (
    OutName,
    checked_map,
    force_option,
    force_unused,
    house_words,
    json_option,
    map_argument,
    map_out_file,
    reject,
    rules_file,
    rules_for,
    rules_option,
    seed_option,
    time_limit_option,
)
from mapgen.mapfile import dumps_map


@click.command()
@map_argument()
@click.option(
    "--puzzle",
    "puzzle_out",
    metavar="FILE",
    type=OutName("file"),
    default=None,
    help="Write the minimal reveal set as a partial map file (.toml): a pencil-and-paper puzzle. "
    "With --puzzle -, the map file goes to stdout and the report to stderr.",
)
@force_option("the --puzzle file")
@click.option("--no-profile", is_flag=True, help="Skip the reveal profile (the slowest part).")
@seed_option(0, help="Order in which the reveal set is thinned.", short=False)
@time_limit_option(300.0, minimum=1, help="Seconds in all.")
@rules_option
@json_option
def deduce(map_in, puzzle_out, force, no_profile, seed, time_limit, rules, as_json):
    """Report how a complete map deduces: a minimal reveal set, the rules it relies on, the reveal
    profile of a logical explorer playing from the start (a count at every step, the reason of every
    forced step) and the map's deduction grade: Gentle, Moderate, Tricky or Fiendish.

    With --puzzle, MAP may also be a partial map (a hand-made puzzle) that leaves exactly one map: the
    report is on that map, and the reveal set is a minimal subset of the puzzle's givens (a revealed Hill
    is written with its number). A partial map with no completion, or more than one, exits 1.

    With --rules FILE everything is deduced under that house-rule chapter file's rules (exit 2 for a map of
    another chapter, 1 for one that breaks them); the grade's tier still places the score among maps of the
    shipped chapter (the only calibration there is), and says so.

    \b
    Example:
        mapgen deduce fauna-1 --puzzle fauna-1-puzzle.toml
        mapgen deduce training-2 --no-profile --json
        mapgen deduce training-1 --no-profile --puzzle -
        mapgen deduce fauna-1-puzzle.toml --no-profile --puzzle trimmed.toml
    """
    from mapgen.deduce import deduce_report, puzzle_of, sole_completion  # deferred: ortools, when the command runs
    from mapgen.deduce_text import deduce_text  # deferred: the command's library, only when it runs
    from mapgen.output import write_text  # deferred: the command's library, only when it runs

    m, map_file = map_in.map, map_in.source
    chapter = rules_for(map_in, rules)  # exit 2: a map of another chapter than the --rules file's
    house = chapter if rules is not None else None
    trim = puzzle_out is not None and not m.complete  # a hand-made puzzle: its givens trimmed to a minimal set
    if not trim:
        try:
            checked_map(map_in, complete=True, valid=True, command="mapgen deduce", chapter=house)
        except BadInput as e:
            if m.complete:
                raise
            # a hand-made puzzle given without --puzzle: the option that takes one, and the command that counts
            raise BadInput(
                map_file, f"{e.problem} (a hand-made puzzle: --puzzle FILE, or mapgen solve to count its completions)"
            ) from None
    to_stdout = puzzle_out == "-"  # the puzzle alone on stdout (as repair prints its map), the report on stderr
    if to_stdout and as_json:
        reject("--puzzle", "- (stdout) cannot go with --json, which prints its report there: name a .toml file")
    if not to_stdout:
        map_out_file(puzzle_out, force=force)  # before the work: a missing folder fails now, not after the solving
    force_unused(force, (puzzle_out,), "--puzzle")
    givens = None
    if trim:
        givens = [i for i, t in enumerate(m.cells) if t is not None]
        started = time.monotonic()
        # a puzzle made under house rules, trimmed without them: no completion, or several, says which rules
        with about(map_file, time_limit, house_words(m, house)[2]):
            m = sole_completion(m, time_limit=time_limit, chapter=house)
        time_limit = max(1.0, time_limit - (time.monotonic() - started))

    bar = None
    if not as_json and not no_profile and sys.stderr.isatty():  # a progress bar on a terminal only
        from rich.console import Console  # deferred: rich, only for a progress bar
        from rich.progress import Progress  # deferred: rich, only for a progress bar

        bar = Progress(transient=True, console=Console(stderr=True))
        task = bar.add_task("reveal profile", total=m.board.size)
    with about(map_file, time_limit):
        if bar is None:
            report = deduce_report(
                m,
                seed=seed,
                time_limit=time_limit,
                profile=not no_profile,
                within=givens,
                chapter=house,
                partial=True,  # the reveal set found, a later time-out keeps it (the puzzle written, exit 3)
            )
        else:
            with bar:
                report = deduce_report(
                    m,
                    seed=seed,
                    time_limit=time_limit,
                    profile=not no_profile,
                    progress=lambda k, n: bar.update(task, completed=k),
                    within=givens,
                    chapter=house,
                    partial=True,
                )
    if house is not None:
        report["rules"] = rules_file()  # the house-rule file it was deduced under
    if givens is not None:
        report["givens"] = len(givens)  # the puzzle's revealed cells, trimmed to the reveal set
    if puzzle_out:
        puzzle = puzzle_of(m, report["reveal_set"])
        _say_seed_number(m, map_file if to_stdout else puzzle_out)
        if to_stdout:
            click.echo(deduce_text(m, report, map_file), err=True)
            click.echo(dumps_map(puzzle), nl=False)
            out_of_time(report, map_file, time_limit, "printed the puzzle and what was found")
            return
        write_text(puzzle_out, dumps_map(puzzle), force=force)
        report["puzzle"] = puzzle_out
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(deduce_text(m, report, map_file))
    out_of_time(report, map_file, time_limit, f"wrote {puzzle_out} and printed what was found" if puzzle_out else None)


def _say_seed_number(m, puzzle_out: str) -> None:
    """A generated map is numbered by its seed: its puzzle keeps the number (a maker's label, printed on the sheet),
    which makes the answer again with ``mapgen generate``; said, so that the maker renumbers it."""
    from mapgen.deduce_text import seed_number_note  # deferred: the command's library, only when it runs

    note = seed_number_note(m)
    if note is not None:
        click.echo(f"note: {puzzle_out}: {note}", err=True)


def out_of_time(report: dict, map_file: str, time_limit: float, found: str | None) -> None:
    """A report whose later parts (the rules relied on, the reveal profile, the grade) ran out of time after the
    reveal set was found (printed above, the puzzle written): exit 3, saying what is missing."""
    if "missing" in report:
        extra = {} if found is None else {"found": found}
        raise found_then_out_of_time(map_file, report["timed_out"], time_limit, report["missing"], **extra)
