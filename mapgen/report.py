"""Solve reports: the JSON contract of ``mapgen solve`` and its readable form."""

from __future__ import annotations

from mapgen.model import Map
from mapgen.solving.explain import explain_forced, reasons_budget
from mapgen.solving.solve import Solver, SolveTimeout
from mapgen.solving.unigen import NO_ODDS, ODDS_EXACT, ODDS_NONE
from mapgen.terrain import Terrain, percent, quantity

#: Shares of a solve's time limit: the exact answers (possible terrains, forced cells) may use it all
#: but rarely need much; explanations get this share in deterministic seconds, then the count and the
#: probabilities their shares (each split in CPU seconds, ``Solver.count``). Shares of the time limit,
#: never of what is left, so that what a solve answers is the same under any load: running out of the time
#: limit itself is a SolveTimeout (exit 3).
EXPLAIN_SHARE = 0.15
PROBABILITY_SHARE = 0.25


def solve_report(
    state: Map,
    *,
    limit: int = 100_000,
    probabilities: bool = False,
    target: Terrain | None = None,
    time_limit: float = 10.0,
    solver: Solver | None = None,
    explain: bool = False,
) -> dict:
    """``{"count", "exact", "unique", "forced"}`` (plus ``estimate`` when the count is not exact),
    ``explanations``, ``probabilities`` and ``target`` when asked, all within ``time_limit`` seconds.

    The exact answers come first and may use the whole budget; the rest is split so the count never
    starves them: explanations, then the count (exact, else a labelled estimate: never a failure),
    then probabilities. Raises ``mapgen.solving.solve.NoCompletion`` when the state has no completion and
    ``mapgen.solving.solve.SolveTimeout`` when the exact answers themselves do not finish in time.
    """
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
    if explain:
        found = explain_forced(solver, state, reasons_budget(budget, EXPLAIN_SHARE), forced=forced)
        report["explanations"] = [e.to_json(b) for e in found]
        missing = sorted(set(forced) - {e.cell for e in found})
        if missing:
            report["unexplained"] = [b.name(i) for i in missing]
    if target is not None:
        report["target"] = solver.target(state, target, possible=possible)
    count_budget = budget.part(1 - PROBABILITY_SHARE) if probabilities else budget
    result = solver.count(state, limit=limit, time_limit=count_budget, possible=possible)
    report = {
        "count": result.count,
        "exact": result.exact,
        "method": result.method,
        "unique": result.exact and result.count == 1,
        **({"estimate": result.estimate} if result.estimate is not None else {}),
        **report,
    }
    if probabilities:
        shares, method = solver.odds(
            state, limit=limit, time_limit=budget.part(PROBABILITY_SHARE), counted=result, possible=possible
        )
        exact = method == ODDS_EXACT
        report["probabilities"] = {b.name(i): {t.code: p for t, p in d.items()} for i, d in sorted(shares.items())}
        report["probabilities_exact"] = exact
        report["probabilities_method"] = method  # exact, unigen (almost uniform) or none (only known cells)
        if exact and result.tallies is not None:
            # exact rationals: each probability is this many completions over "count"
            report["probability_counts"] = {
                b.name(i): {t.code: n for t, n in sorted(d.items(), key=lambda kv: (-kv[1], kv[0].index))}
                for i, d in sorted(result.tallies.items())
            }
    return report


def count_words(report: dict) -> str:
    """``8 completions``, or an estimate in words with its bounds and how sure they are."""
    n = report["count"]
    if report["exact"]:
        return f"{n:,} completion{'s' if n != 1 else ''}"
    e = report["estimate"]
    proven = f"proven: at least {e['proven_low']:,}" if "proven_low" in e else f"proven: at least {e['low']:,}"
    if e["method"] == "approxmc":
        return (
            f"about {e['value']:,} completions (estimate: ApproxMC, between {e['low']:,} and {e['high']:,} with "
            f"probability {e['confidence']:.0%}; {proven}, at most {e['proven_high']:.3g})"
        )
    return f"at least {e['low']:,} completions (the exact count ran out of time; at most {e['high']:.3g})"


def solve_text(state: Map, report: dict, source: str) -> str:
    """A person's view: the count, the grid with forced cells marked, the target and probabilities."""
    b = state.board
    lines = [f"{source}: {count_words(report)}" + (" (unique)" if report["unique"] else "")]
    forced = report["forced"]
    lines.append("   " + " ".join(f"{c:<4}" for c in b.col_numbers).rstrip())
    for r, letter in enumerate(b.row_letters):
        cells = []
        for i in b.rows[r]:
            t, name = state.cells[i], b.name(i)
            if t is not None:
                cells.append(t.code + (str(state.hills[i]) if i in state.hills else ""))
            elif name in forced:
                cells.append(forced[name] + "*")
            else:
                cells.append("..")
        lines.append(f"{letter}  " + " ".join(f"{c:<4}" for c in cells).rstrip())
    hidden = len(state.unrevealed())
    lines.append(
        f"forced: {len(forced)} of {quantity(hidden, 'unrevealed cell')} (marked *)"
        + (": " + ", ".join(f"{c} {t}" for c, t in forced.items()) if forced else "")
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
        lines.append("why:" if report["explanations"] else "why: no cell is forced")
        for e in report["explanations"]:
            lines.append(f"  {e['text']}")
        if report.get("unexplained"):
            lines.append(f"  (no explanation in time for {', '.join(report['unexplained'])}: raise --time-limit)")
    if "probabilities" in report:
        method = report["probabilities_method"]
        if method == ODDS_NONE:
            lines.append(f"probabilities: none in time ({NO_ODDS}): raise --time-limit, or reveal more cells")
            return "\n".join(lines)
        how = "exact" if method == ODDS_EXACT else "estimated from almost-uniform samples (UniGen)"
        lines.append(f"probabilities ({how}):")
        for cell, d in report["probabilities"].items():
            if len(d) > 1:
                lines.append(f"  {cell}: " + ", ".join(f"{t} {percent(p)}" for t, p in d.items()))
    return "\n".join(lines)
