"""``mapgen solve``: deduce a partial map (forced cells, their reasons, completions, probabilities, targets)."""

from __future__ import annotations

import json

import click

from mapgen.cli.errors import BROKEN, about, found_then_out_of_time
from mapgen.cli.options import (
    NearChoice,
    OutName,
    cache_note,
    force_option,
    force_unused,
    house_words,
    json_option,
    kernels_ready,
    map_argument,
    map_out_file,
    reject,
    reveal_option,
    revealed_input,
    rules_for,
    rules_option,
    time_limit_option,
)


@click.command()
@map_argument()
@reveal_option
@click.option(
    "--limit",
    type=click.IntRange(1),
    default=2_000,
    show_default=True,
    # (the default and the 2,000 are the solver's ENUMERATION_CAP: a test holds them the same)
    help="Enumerate at most N completions (and at most 2,000 whatever N) before the exact counter or an estimate "
    "answers.",
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
    "--method",
    type=NearChoice(["auto", "sample", "unigen"]),
    default="auto",
    show_default=True,
    help="How --probabilities are had: auto (exact where in time, else the sampler, each share with its error), "
    "sample (the sampler even where exact odds exist, to check it), unigen (UniGen's almost-uniform samples). "
    "sample and unigen imply --probabilities.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=0,
    show_default=True,
    help="The sampler's seed: the same seed and --time-limit give the same odds on any machine.",
)
@click.option(
    "--explain", is_flag=True, help="Why each forced cell is forced: a minimal set of rules and revealed cells."
)
@click.option(
    "--out",
    "-o",
    "out_path",
    metavar="FILE",
    type=OutName("file"),
    default=None,
    help="Write the completion to FILE (.toml), a complete map, when there is exactly one; else exit 1 and "
    "write nothing. With -o -, the map goes to stdout and the report to stderr.",
)
@force_option("the --out file")
@time_limit_option(10.0, help="Seconds for the whole answer: forced cells first, then reasons, then the count.")
@rules_option
@json_option
def solve(
    map_in, reveal, limit, probabilities, target, method, seed, explain, out_path, force, time_limit, rules, as_json
):
    """Deduce a partial map: forced cells, their reasons, completions, probabilities and targets.

    Forced cells and possible terrains are exact and come first; a forced Hill shows its number where every
    completion gives it the same one (Hi1*, "hill_numbers"), proven within a share of the time limit in counted
    work, never guessed. The count is exact when the exact
    counter finishes in time, otherwise a labelled estimate with its bounds ("exact": false and
    "estimate"). Probabilities are exact where a compiled circuit or a counter answers in time, else
    estimated by the sampler, each with its error ("probabilities_error": one standard error) and the
    chains' agreement ("sampler": R-hat). Exit 0 with at least one completion, 1 with none (naming rules
    and cells that conflict), 2 for an unreadable file, 3 when the time limit runs out: before the forced
    cells are known (nothing printed), or later (what was found is printed, and what is missing).
    With --out FILE the one completion is written as a map file (Hill numbers filled in); a map with
    more completions than one, or none, exits 1 and writes nothing (-o -: the map on stdout, the report
    on stderr). With --rules FILE the map is solved under that house-rule chapter file instead of its
    chapter's rules (exit 2 for a map of another chapter).

    \b
    Example:
        mapgen solve fauna-1 --reveal A7,B7,C7 --probabilities
        mapgen solve flora-2 --reveal none --probabilities --json
        mapgen deduce fauna-1 --puzzle puzzle.toml --no-profile
        mapgen solve puzzle.toml --explain --time-limit 30
        mapgen solve puzzle.toml --probabilities --target Ft --json
        mapgen solve puzzle.toml -o solution.toml
    """
    from mapgen.output import write_text  # deferred: the command's library, only when it runs
    from mapgen.report import forced_completion, solve_report, solve_text  # deferred: ortools, when the command runs
    from mapgen.solving.solve import NoCompletion, Solver  # deferred: ortools, only when the command runs
    from mapgen.solving.unigen import ODDS_AUTO, ODDS_SAMPLER, ODDS_UNIGEN  # deferred: beside the solver, when run

    chapter = rules_for(map_in, rules)  # exit 2: a map of another chapter than the --rules file's
    map_in = revealed_input(map_in, reveal, chapter)
    state, file = map_in.map, map_in.source
    note = house_words(state, rules)[2]  # a map made under house rules, solved without them: say which
    probabilities = probabilities or method != "auto"  # a method named asks for the odds it makes
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
    # -o -: the completion alone on stdout (as deduce --puzzle - and repair -o - print theirs), the report on stderr
    to_stdout = out_path == "-"
    if to_stdout and as_json:
        reject("--out", "- (stdout) cannot go with --json, which prints its report there: name a .toml file")
    if not to_stdout:
        map_out_file(out_path, force=force)  # before the work: a missing folder or a kept file fails now
    force_unused(force, (out_path,), "--out")
    kernels_ready()
    try:
        with about(file, time_limit, note):
            report = solve_report(
                state,
                limit=limit,
                probabilities=probabilities,
                target=terrain,
                time_limit=time_limit,
                explain=explain,
                method={"auto": ODDS_AUTO, "sample": ODDS_SAMPLER, "unigen": ODDS_UNIGEN}[method],
                seed=seed,
                solver=Solver.for_chapter(chapter),  # a house chapter's own solver (its caches by content)
            )
    except NoCompletion as e:
        if not as_json:
            raise
        click.echo(json.dumps(e.report_json()))
        click.echo(f"error: {file}: {e}{note}", err=True)
        raise click.exceptions.Exit(BROKEN) from None
    several = key = None
    if out_path is not None:
        done = forced_completion(state, report, chapter)
        if done is None:
            n = report.get("count")
            several = f"{n:,} completions" if isinstance(n, int) and report.get("exact") else "several completions"
        else:
            from mapgen.mapfile import dumps_map  # deferred: the command's library, only when it runs

            if to_stdout:
                key = dumps_map(done)
            else:
                write_text(out_path, dumps_map(done), force=force)
                report["out"] = out_path
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(solve_text(state, report, file), err=to_stdout)
        if "out" in report:
            click.echo(f"the completion written to {out_path}")
        elif key is not None:
            click.echo(key, nl=False)
    cache_note(file)
    if several is not None:
        lost = "no map printed" if to_stdout else f"nothing written to {out_path}"
        click.echo(f"error: {file}: {several}, not one: {lost}", err=True)
        raise click.exceptions.Exit(BROKEN)
    if "timed_out" in report:  # what was found is printed above; the rest ran out of time
        raise found_then_out_of_time(file, report["timed_out"], time_limit, report["missing"])
