"""Solve reports: the JSON contract of ``mapgen solve`` and its readable form."""

from __future__ import annotations

from mapgen.model import Map
from mapgen.solve import Solver
from mapgen.terrain import Terrain


def solve_report(
    state: Map,
    *,
    limit: int = 100_000,
    probabilities: bool = False,
    target: Terrain | None = None,
    time_limit: float = 60.0,
    solver: Solver | None = None,
) -> dict:
    """``{"count", "exact", "unique", "forced"}`` plus ``probabilities`` and ``target`` when asked.

    Raises ``mapgen.solve.NoCompletion`` when the state has no completion.
    """
    solver = solver or Solver.for_chapter(state.chapter)
    b = state.board
    result = solver.count(state, limit=limit, time_limit=time_limit)
    if result.tallies is not None:
        forced = {i: next(iter(d)) for i, d in result.tallies.items() if len(d) == 1}
    else:
        forced = solver.forced(state, time_limit=time_limit)
    report: dict = {
        "count": result.count,
        "exact": result.exact,
        "unique": result.exact and result.count == 1,
        "forced": {b.name(i): t.code for i, t in sorted(forced.items())},
    }
    if probabilities:
        shares, exact = solver.probabilities(state, limit=limit, time_limit=time_limit)
        report["probabilities"] = {b.name(i): {t.code: p for t, p in d.items()} for i, d in sorted(shares.items())}
        report["probabilities_exact"] = exact
    if target is not None:
        report["target"] = solver.target(state, target, time_limit=time_limit)
    return report


def solve_text(state: Map, report: dict, source: str) -> str:
    """A person's view: the count, the grid with forced cells marked, the target and probabilities."""
    b = state.board
    n = report["count"]
    count = f"{n} completion{'s' if n != 1 else ''}" if report["exact"] else f"at least {n} completions"
    lines = [f"{source}: {count}" + (" (unique)" if report["unique"] else "")]
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
        f"forced: {len(forced)} of {hidden} unrevealed cells (marked *)"
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
    if "probabilities" in report:
        exact = "exact" if report.get("probabilities_exact") else "estimated"
        lines.append(f"probabilities ({exact}):")
        for cell, d in report["probabilities"].items():
            if len(d) > 1:
                lines.append(f"  {cell}: " + ", ".join(f"{t} {p:.0%}" for t, p in d.items()))
    return "\n".join(lines)
