"""Solve reports: the JSON contract of ``mapgen solve`` and its readable form."""

from __future__ import annotations

import contextlib
import time

from constraints.catalogue import Chapter
from mapgen.model import Map
from mapgen.solving.explain import HILL_SHARE, explain_forced, reasons_budget
from mapgen.solving.sat import Budget, check_time_limit
from mapgen.solving.solve import COMPILE_SHARE, CountResult, HillAnswer, Solver, SolveTimeout
from mapgen.solving.unigen import (
    NO_ODDS,
    NO_UNIGEN,
    ODDS_AUTO,
    ODDS_EXACT,
    ODDS_NONE,
    ODDS_SAMPLER,
    ODDS_UNIGEN,
    SAMPLE_SECONDS,
    share_words,
)
from mapgen.terrain import Terrain, big_count, listed, quantity

#: Shares of a solve's time limit: the exact answers (possible terrains, forced cells) may use it all
#: but rarely need much; explanations get this share in deterministic seconds, then the count and the
#: probabilities their shares (each split in CPU seconds, ``Solver.count``). Shares of the time limit,
#: never of what is left, so that what a solve answers is the same under any load: running out of the time
#: limit itself is a SolveTimeout (exit 3).
EXPLAIN_SHARE = 0.15
PROBABILITY_SHARE = 0.25
#: With probabilities asked, the share of the wall clock left that the count may take (the rest is the odds'),
#: and the share of the time limit its counters' CPU shares are of (``Solver.count``): measured on flora-1 with 8
#: revealed, the counters at 0.75 of 10 s took 7.3 s of wall clock (Ganak in its process, then the sequential
#: Monte Carlo) and the sampler's 60 sweeps 5.8 CPU s, 13 s in all: the default solve ran out of time. 0.6 since the
#: sampler's chains run beside the count (``Solver.chains_ahead``): measured at the defaults, idle machine, the count
#: then takes 2.0-2.4 s and the odds 1.9-2.8 s on the empty and 8-revealed boards of flora-1, vameter-1, fauna-1 and
#: maldonado-1 at 8 revealed, but the empty maldonado-1 board's count 3.4-4.3 s, at or past half the 8.4 s left (a
#: count cut there, exit 3, in 1 of 4 runs in a row at 0.5); at 0.6 each part of every one of them fits a machine
#: about 1.5 times slower (the count of the empty maldonado-1 board 1.48, the whole of the empty flora-1 board 1.61).
COUNT_WALL = 0.6
COUNT_SHARE_WITH_ODDS = 0.45


def solve_report(
    state: Map,
    *,
    limit: int = 100_000,
    probabilities: bool = False,
    target: Terrain | None = None,
    time_limit: float = 10.0,
    solver: Solver | None = None,
    explain: bool = False,
    method: str = ODDS_AUTO,
    seed: int = 0,
) -> dict:
    """``{"count", "exact", "unique", "forced"}`` (plus ``estimate`` when the count is not exact),
    ``explanations``, ``probabilities`` and ``target`` when asked, all within ``time_limit`` seconds.

    The exact answers come first and may use the whole budget; the rest is split so the count never
    starves them: explanations, then the count (exact, else a labelled estimate: never a failure),
    then probabilities. Raises ``mapgen.solving.solve.NoCompletion`` when the state has no completion and
    ``mapgen.solving.solve.SolveTimeout`` when the exact answers themselves do not finish in time.

    When the wall clock runs out after the exact answers (the count, the odds), or the explanations' share of the
    limit's work before every forced cell is explained, the report keeps what was found and says what is missing:
    ``"timed_out"`` (the message) and ``"missing"`` (``explanations``, ``count``, ``probabilities``),
    with ``"count": null``; the command then prints it and exits 3. ``method`` chooses the odds' route
    (``Solver.odds_answer``: exact where in time, else the sampler; or the sampler forced) and ``seed`` the
    sampler's seed.
    """
    check_time_limit(time_limit, "solve_report")
    solver = solver or Solver.for_chapter(state.chapter)
    b = state.board
    # a margin for what follows the last solver call (stopping the counter's child process, printing)
    budget = solver.budget(max(0.1, time_limit - min(1.5, 0.15 * time_limit)))
    try:
        possible = solver.possible(state, budget)
    except SolveTimeout:
        raise SolveTimeout("the time limit ran out before the forced cells were known") from None
    forced = {i: next(iter(ts)) for i, ts in possible.items() if len(ts) == 1}
    report: dict = {"forced": {b.name(i): t.code for i, t in sorted(forced.items())}}
    missing: list[str] = []
    try:  # the hidden forced Hills' numbers, where every completion gives the same (a share of the work: any load)
        hills = solver.hill_numbers(state, reasons_budget(budget, HILL_SHARE), forced=forced, possible=possible)
    except SolveTimeout as e:  # the wall clock ran out: no number shown, and the report says so (exit 3)
        hills = HillAnswer({}, unsettled=tuple(i for i, t in forced.items() if t is Terrain.HILL))
        missing.append("hill_numbers")
        report["timed_out"] = str(e)
    unique = all(i in forced for i in state.unrevealed())  # one map (it has a completion)
    report.update(hill_fields(state, hills, forced, unique))
    if explain:
        found = explain_forced(solver, state, reasons_budget(budget, EXPLAIN_SHARE), forced=forced)
        report["explanations"] = [e.to_json(b) for e in found]
        unexplained = sorted(set(forced) - {e.cell for e in found})
        if unexplained:  # their share of the limit's work ran out (the same on any load): a time limit, exit 3
            report["unexplained"] = [b.name(i) for i in unexplained]
            missing.append("explanations")
    if target is not None:
        report["target"] = solver.target(state, target, possible=possible)
    count_budget = budget.part(COUNT_SHARE_WITH_ODDS) if probabilities else budget
    if probabilities:  # the count may take at most half the wall clock left: the rest is kept for the odds
        count_budget = Budget.until(
            count_budget.seconds,
            min(budget.deadline, time.monotonic() + COUNT_WALL * budget.left()),
            budget.deterministic,
        )
    aside = None
    if probabilities and method == ODDS_AUTO:  # the whole question's compile share, beside the estimates
        aside = solver.compile_aside(state, COMPILE_SHARE * budget.seconds, budget.deadline)
    # the sampler's chains start beside the count estimate, from its runs, where no compile takes the other core
    ahead = (
        solver.chains_ahead(state, SAMPLE_SECONDS * time_limit, seed=seed, deadline=budget.deadline)
        if probabilities and method in (ODDS_AUTO, ODDS_SAMPLER) and aside is None
        else contextlib.nullcontext()
    )
    with ahead:
        result = None
        try:
            result = solver.count(
                state, limit=limit, time_limit=count_budget, possible=possible, seed=seed,
                wait_aside=not (probabilities and method == ODDS_AUTO),  # the odds wait for it, after the sampler
            )  # fmt: skip
        except SolveTimeout as e:
            missing.append("count")
            report["timed_out"] = str(e)
        report = {**_count_fields(result), **report}
        if probabilities:
            if result is None and method == ODDS_AUTO:
                method = ODDS_SAMPLER  # no count in time: no exact odds either, so straight to the sampler
            try:
                got = solver.odds_answer(
                    state,
                    limit=limit,
                    time_limit=budget.part(PROBABILITY_SHARE),
                    counted=result,
                    possible=possible,
                    method=method,
                    seed=seed,
                    sample_seconds=SAMPLE_SECONDS * time_limit,
                )
            except SolveTimeout as e:  # the odds ran out: the possible terrains (exact, found first) are kept
                return {
                    **report,
                    "possible": possible_json(state, possible),
                    "timed_out": str(e),
                    "missing": [*missing, "probabilities"],
                }
            exact = got.method == ODDS_EXACT
            if exact and (result is None or not result.exact):  # the odds' circuit (compiled aside) counts exactly too
                tallied = solver.exact_tallies(state, 0.0)
                if tallied is not None:
                    result = CountResult(tallied[0], True, "d-dnnf", tallied[1])
                    report = {**_count_fields(result), **{k: v for k, v in report.items() if k not in COUNT_KEYS}}
                    report.pop("timed_out", None)
                    missing = [m for m in missing if m != "count"]
            names = {i: b.name(i) for i in got.shares}
            report["probabilities"] = {
                names[i]: {t.code: p for t, p in d.items()} for i, d in sorted(got.shares.items())
            }
            report["probabilities_exact"] = exact
            # exact, sampler, unigen (almost uniform), none (known cells only)
            report["probabilities_method"] = got.method
            if got.method == ODDS_NONE and any(len(ts) > 1 for ts in possible.values()):
                # odds asked and none had (UniGen out of its budget): missing, as a count that ran out is (exit 3)
                missing.append("probabilities")
                report.setdefault("timed_out", NO_UNIGEN if method == ODDS_UNIGEN else NO_ODDS)
                report["possible"] = possible_json(state, possible)  # what is exact stays: every cell's terrains
            if got.errors is not None:  # the standard error of each share (the sampler's batch means)
                report["probabilities_error"] = {
                    names[i]: {t.code: e for t, e in d.items()} for i, d in sorted(got.errors.items())
                }
            if got.sampled is not None:
                report["sampler"] = got.sampled.summary()
            if exact and result is not None and result.tallies is not None:
                # exact rationals: each probability is this many completions over "count"
                report["probability_counts"] = {
                    b.name(i): {t.code: n for t, n in sorted(d.items(), key=lambda kv: (-kv[1], kv[0].index))}
                    for i, d in sorted(result.tallies.items())
                }
    if missing:
        report["missing"] = missing
        if "timed_out" not in report:  # the explanations' share alone ran out
            report["timed_out"] = f"no explanation within the time limit for {', '.join(report['unexplained'])}"
    return report


COUNT_KEYS = ("count", "exact", "method", "unique", "estimate")


def hill_fields(state: Map, hills: HillAnswer, forced: dict[int, Terrain], unique: bool = False) -> dict:
    """A report's Hill numbers (``Solver.hill_numbers``), as ``solve --json``, ``render --forced --json`` and the
    web's /api/table give them: ``"hill_numbers"`` the hidden forced Hills whose number every completion gives alike
    (``{"A5": 1}``; in a unique state every hidden Hill), present when a hidden Hill is forced or the state is
    ``unique`` (as before, ``{}`` in a chapter without Hills); ``"hill_numbers_unsettled"`` the forced Hills whose
    number the counted work did not settle in time (not shown, never guessed), only when there are some."""
    b = state.board
    out: dict = {}
    if unique or any(t is Terrain.HILL for t in forced.values()):
        out["hill_numbers"] = {b.name(i): n for i, n in sorted(hills.numbers.items())}
    if hills.unsettled:
        out["hill_numbers_unsettled"] = [b.name(i) for i in sorted(hills.unsettled)]
    return out


def possible_json(state: Map, possible: dict[int, frozenset[Terrain]]) -> dict[str, list[str]]:
    """Every unrevealed cell's possible terrains (exact), by name, codes in the chapter's order: ``"possible"`` in a
    report whose odds did not come (issue 40, item 5: the exact answers are always printed, never dropped with the
    odds)."""
    b = state.board
    return {b.name(i): [t.code for t in sorted(possible[i], key=lambda t: t.index)] for i in state.unrevealed()}


def forced_completion(state: Map, report: dict, chapter: Chapter | None = None) -> Map | None:
    """The one completion of ``state`` as a map (every Hill numbered) when ``solve_report``'s forced cells fill
    every unrevealed cell, else None. Forced cells are exact (they come before any count), so this holds even
    when the count ran out of time; with at least one completion (solve_report raised no NoCompletion) a state
    whose every hidden cell is forced has exactly one. ``chapter``: the rules it was solved under (a house-rule
    chapter), else the map's own."""
    from constraints.catalogue import check_map, with_hill_numbers  # deferred: only when a completion is asked for

    b = state.board
    forced = {b.index(name): Terrain.from_code(code) for name, code in report["forced"].items()}
    if any(i not in forced for i in state.unrevealed()):
        return None
    cells = [forced.get(i, t) for i, t in enumerate(state.cells)]
    done = with_hill_numbers(state.with_cells(cells, hills={}), chapter).without_grade()
    problems = check_map(done, chapter)
    if problems:  # the solver and the checks disagree: a bug, never a map to hand out
        raise AssertionError("the completion fails its checks: " + "; ".join(map(str, problems)))
    return done


def _count_fields(result: CountResult | None) -> dict:
    """A report's count keys: ``count``, ``exact``, ``method``, ``unique`` (and ``estimate``), or a null count."""
    if result is None:
        return {"count": None, "exact": False, "unique": False}
    return {
        "count": result.count,
        "exact": result.exact,
        "method": result.method,
        "unique": result.exact and result.count == 1,
        **({"estimate": result.estimate} if result.estimate is not None else {}),
    }


def count_words(report: dict) -> str:
    """``8 completions``, or an estimate in words with its interval and how sure it is. An exact count is
    printed in full; an estimate's figures for people (``big_count``: ``1.69 × 10²²``, never ``1.69e+22``). The
    completions found so far are said as such, never as "at least N" beside the estimate: they rise as cells are
    revealed while the estimate falls, and a player read them as the count going up."""
    n = report["count"]
    if report["exact"]:
        return f"{n:,} completion{'s' if n != 1 else ''}"
    e = report["estimate"]
    found = f"{big_count(e.get('proven_low', e['low']))} found so far"
    if e["method"] == "smc":
        cut = (
            f", {e['runs']} of {e['runs_planned']} runs: cut by the time limit" if e["runs"] < e["runs_planned"] else ""
        )
        return (
            f"about {big_count(e['value'])} completions ({e['confidence']:.0%}: {big_count(e['low'])} to "
            f"{big_count(e['high'])}, estimated by sequential Monte Carlo{cut}; {found})"
        )
    if e["method"] == "approxmc":
        return (
            f"about {big_count(e['value'])} completions (estimate: ApproxMC, between {big_count(e['low'])} and "
            f"{big_count(e['high'])} with probability {e['confidence']:.0%}; {found}; proven: at most "
            f"{big_count(e['proven_high'])})"
        )
    return (
        f"between {big_count(e['low'])} and {big_count(e['high'])} completions (proven bounds only: neither the exact "
        "count nor an estimate came in time)"
    )


def solve_text(state: Map, report: dict, source: str) -> str:
    """A person's view: the count, the grid with forced cells marked, the target and probabilities."""
    b = state.board
    if report["count"] is None:
        lines = [f"{source}: the count ran out of time"]
    else:
        lines = [f"{source}: {count_words(report)}" + (" (unique)" if report["unique"] else "")]
    forced = report["forced"]
    # a hidden forced Hill's number where every completion gives it the same one (the legend says so)
    numbers = report.get("hill_numbers", {})
    grid = []
    for r in range(len(b.row_letters)):
        cells = []
        for i in b.rows[r]:
            t, name = state.cells[i], b.name(i)
            if t is not None:
                cells.append(t.code + (str(state.hills[i]) if i in state.hills else ""))
            elif name in forced:
                cells.append(forced[name] + str(numbers.get(name, "")) + "*")
            else:
                cells.append("..")
        grid.append(cells)
    w = max(4, *(len(c) for row in grid for c in row))  # a two-digit Hill number forced (Hi12*) widens the columns
    lines.append("   " + " ".join(f"{c:<{w}}" for c in b.col_numbers).rstrip())
    for letter, cells in zip(b.row_letters, grid, strict=True):
        lines.append(f"{letter}  " + " ".join(f"{c:<{w}}" for c in cells).rstrip())
    hidden = len(state.unrevealed())
    marked = hill_legend(report, one_map=len(forced) == hidden)
    if not hidden:  # a complete map (a shipped one by name): no count of nothing, no marks that mark nothing
        lines.append("forced: none: every cell is revealed, nothing left to deduce")
    else:
        lines.append(
            f"forced: {len(forced)} of {quantity(hidden, 'unrevealed cell')} ({marked})"
            + (": " + ", ".join(f"{c} {t}{numbers.get(c, '')}" for c, t in forced.items()) if forced else "")
        )
    if "target" in report:
        tg = report["target"]
        label = Terrain.from_code(tg["terrain"]).label
        if tg["deduced"]:
            lines.append(f"target {label}: deduced, at {', '.join(tg['cells']) or 'no cell'}")
        else:
            lines.append(
                f"target {label}: not deduced yet; known at {', '.join(tg['known']) or 'no cell'}, "
                f"still open at {', '.join(tg['undecided'])}"
            )
    if "explanations" in report:
        # no explanation and none missing: no cell is forced (cells left unexplained are forced: said below)
        lines.append("why:" if report["explanations"] or report.get("unexplained") else "why: no cell is forced")
        for e in report["explanations"]:
            lines.append(f"  {e['text']}")
        if report.get("unexplained"):
            lines.append(f"  ({', '.join(report['unexplained'])}: no explanation in time)")
    if "probabilities" in report:
        method = report["probabilities_method"]
        if method == ODDS_NONE:
            why = NO_UNIGEN if report.get("timed_out") == NO_UNIGEN else NO_ODDS
            lines.append(f"probabilities: none in time ({why}): raise --time-limit, or reveal more cells")
            lines += _possible_lines(report)
            return "\n".join(lines)
        errors = report.get("probabilities_error", {})
        if method == ODDS_EXACT:
            how = "exact"
        elif method == ODDS_SAMPLER:
            how = sampler_words(report["sampler"])
        else:
            how = "estimated from almost-uniform samples (UniGen)"
        lines.append(f"probabilities ({how}):")
        for cell, d in report["probabilities"].items():
            if len(d) > 1:
                err = errors.get(cell, {})
                lines.append(
                    f"  {cell}: "
                    + ", ".join(share_words(t, p, err.get(t)) for t, p in sorted(d.items(), key=lambda kv: -kv[1]))
                )
    elif "possible" in report:  # the odds ran out of time: what is exact of them stays
        lines += _possible_lines(report)
    if "timed_out" in report:
        lines.append(f"not in time: {', '.join(report['missing'])} ({report['timed_out']}): raise --time-limit")
    return "\n".join(lines)


def hills_late(state: Map, hills: HillAnswer) -> str:
    """The forced Hills whose number the counted work did not settle, in words ("" for none): a picture's note."""
    if not hills.unsettled:
        return ""
    cells = listed([state.board.name(i) for i in sorted(hills.unsettled)])
    one = len(hills.unsettled) == 1
    return (
        f"the number{'' if one else 's'} of the forced Hill{'' if one else 's'} at {cells} "
        f"{'was' if one else 'were'} not settled in time (drawn without {'it' if one else 'them'})"
    )


def hill_legend(report: dict, one_map: bool) -> str:
    """What the marks on forced cells mean, Hill numbers included (``solve``'s text): ``marked *``, and where a
    Hill is forced, when its number is shown (the same in every completion) and which were not settled in time
    (``one_map``: every hidden cell forced, the state's one completion)."""
    if one_map and report.get("hill_numbers"):
        return "marked *; Hills numbered as in the one completion"
    if Terrain.HILL.code not in report["forced"].values():
        return "marked *"
    unsettled = report.get("hill_numbers_unsettled", [])
    late = (
        f"; {listed(unsettled)}: {'its' if len(unsettled) == 1 else 'their'} number not settled in time"
        if unsettled
        else ""
    )
    return f"marked *; a forced Hill shows its number where every completion gives it the same one{late}"


def _possible_lines(report: dict) -> list[str]:
    """The possible terrains of the cells not forced (``possible_json``), where the odds did not come."""
    open_cells = {c: ts for c, ts in report.get("possible", {}).items() if len(ts) > 1}
    if not open_cells:
        return []
    return [
        "possible terrains (exact; their odds did not come in time):",
        *(f"  {c}: {', '.join(ts)}" for c, ts in open_cells.items()),
    ]


def sampler_words(summary: dict) -> str:
    """How the sampler's odds were had, in words: its work, the chains' agreement, what ± means."""
    value = "infinite" if summary["rhat"] is None else f"{summary['rhat']:.2f}"  # None: a pair never moved in a chain
    if summary.get("rhat_method") == "nested":  # the chains come in groups, one SMC run's starts each
        rhat = f"nested R-hat {value} over {summary['superchains']} groups of chains"
    else:
        rhat = f"R-hat {value}"
    if summary["converged"]:
        agree = f"the chains agree, {rhat}"
    elif summary["rhat"] is None:  # a pair some chains never change while others differ: islands, not slowness
        agree = (
            f"NOT converged: some chains never leave what they started on, {rhat} (islands the chains' "
            "moves cannot cross: more time rarely helps, each reveal does)"
        )
    else:
        agree = f"NOT converged: the chains disagree, {rhat}; raise --time-limit"
    return (
        f"estimated by the sampler from {summary['samples']:,} draws of {summary['chains']} chains, "
        f"about {summary['effective_samples']:,.0f} effective; {agree}; ± is a 95% interval (the range it holds, "
        '"(0–19%)", where it reaches past 0% or 100%), "up to" a 95% bound on a terrain the cell can hold that no '
        "chain met"
    )
