"""Count estimates (issue 40, item 3): sequential Monte Carlo against exact counts, in one run.

- **Coverage**: on states whose exact count a compiled circuit gives (Training at 0 to 8 revealed, Fauna at 3 to
  12, Flora, Vameter and Maldonado at 16 to 28), the SMC estimate with the work ``mapgen solve`` gives it at the
  default time limit (10 s): exact count, estimate, 95% interval, whether the interval holds the exact count,
  CPU seconds; then the share of states covered [goal: >= 90%]. A state where a run's particles all
  died has no interval (``solve`` then falls back to ApproxMC or proven bounds): counted as not covered.
- **Early states** (0, 3, 5, 8 revealed, one map per chapter): whether an estimate with an interval comes, and
  its CPU seconds [within the default 10 s, beside the rest of a solve].
- **Early Fauna against exact counts** (``--early-fauna``): no circuit of the state comes in time there, but the
  count splits exactly on the Forts' placements (every set of three the rules allow, ``fort_split_count``: each
  set's state compiled and counted; the split gives fauna-1@5's circuit count exactly). The counts so found are
  recorded in ``SPLIT_COUNTS`` (``--recount`` finds them again: minutes, fauna-2's empty board about 5 CPU
  minutes); each state's interval at solve's work over ``--seeds`` seeds, and the share that hold.

States: shipped maps with cells revealed in a game-like order (column 7 from the top, then column 6, ...: the
odds benchmark's). Run: ``python -m bench.bench_count_estimate`` (``--quick`` for a smaller set).
"""

from __future__ import annotations

import argparse
import math
import time

from bench.bench_odds import revealed
from mapgen.solving import sampler as S
from mapgen.solving import smc
from mapgen.solving.solve import SMC_SHARE, Solver, SolveTimeout

#: (maps, reveal counts) per chapter whose exact counts the circuits give
COVERAGE = {
    "training": (("training-1", "training-2"), (0, 2, 4, 6, 8)),
    "fauna": (("fauna-1", "fauna-2"), (3, 5, 8, 12)),
    "flora": (("flora-1", "flora-2"), (16, 24, 28)),
    "vameter": (("vameter-1", "vameter-2"), (20, 24, 28)),
    "maldonado": (("maldonado-1", "maldonado-2"), (16, 20, 24)),
}
EARLY = (0, 3, 5, 8)
#: Exact counts of early Fauna states by ``fort_split_count`` (recorded 2026-12-05; ``--recount`` checks them).
SPLIT_COUNTS = {
    ("fauna-1", 0): 11_887_738_830,
    ("fauna-2", 0): 55_208_764_258,
    ("fauna-1", 3): 228_382_570,
    ("fauna-2", 3): 296_047_559,
    ("fauna-3", 3): 622_585_136,
    ("fauna-3", 5): 78_137_056,
}
#: The work a default solve (10 s, a 15% margin, no probabilities asked) gives the estimate.
SOLVE_SECONDS = SMC_SHARE * 8.5


def one(name: str, k: int, budget: smc.SmcBudget, seed: int = 1):
    state = revealed(name, k)
    solver = Solver.for_chapter(state.chapter)
    possible = solver.possible(state, 60)
    prog = S.compile_program(solver.chapter, state, possible)
    t = time.process_time()
    got = smc.estimate(prog, budget=budget, seed=seed, check=solver._smc_check(state, prog))  # as solve runs it
    return state, solver, got, time.process_time() - t


def fmt(n: int | None) -> str:
    return "-" if n is None else (f"{n:,}" if n < 10_000_000 else f"{n:.3g}")


def coverage(quick: bool, exact_seconds: float, budget: smc.SmcBudget) -> None:
    print(
        f"coverage: SMC ({budget.runs} runs x {budget.particles} particles, solve's work at 10 s) against exact "
        "counts (goal: the 95% interval holds the exact count on >= 90% of states)"
    )
    print(f"{'state':<16} {'exact':>12} {'estimate':>12} {'low':>12} {'high':>12} {'in':>4} {'died':>4} {'cpu s':>6}")
    hits = total = 0
    for names, ks in COVERAGE.values():
        for name in names[:1] if quick else names:
            for k in ks[::2] if quick else ks:
                state = revealed(name, k)
                solver = Solver.for_chapter(state.chapter)
                try:
                    exact = solver.count(state, time_limit=exact_seconds)
                except SolveTimeout:
                    exact = None
                if exact is None or not exact.exact:
                    print(f"{name}@{k:<10} no exact count within {exact_seconds:g} s: skipped")
                    continue
                _, _, got, cpu = one(name, k, budget)
                total += 1
                ok = got is not None and got.contains(exact.count)
                hits += ok
                died = "-" if got is None else sum(not math.isfinite(x) for x in got.log_estimates)
                print(
                    f"{name + '@' + str(k):<16} {fmt(exact.count):>12} {fmt(got and got.value):>12} "
                    f"{fmt(got and got.low):>12} {fmt(got and got.high):>12} {'yes' if ok else 'NO':>4} "
                    f"{died:>4} {cpu:>6.1f}",
                    flush=True,
                )
    if total:
        share = hits / total
        print(
            f"covered: {hits} of {total} states ({share:.0%}; goal 90%: {'met' if share >= 0.9 else 'NOT met'})",
            flush=True,
        )


def early(quick: bool, budget: smc.SmcBudget) -> None:
    print(f"\nearly states: SMC ({budget.runs} runs x {budget.particles} particles): an estimate with an interval")
    print(f"{'state':<16} {'estimate':>12} {'low':>12} {'high':>12} {'died':>5} {'cpu s':>6}")
    for names, _ in list(COVERAGE.values())[1:]:
        for k in EARLY[::2] if quick else EARLY:
            _, _, got, cpu = one(names[0], k, budget)
            if got is None:
                print(f"{names[0] + '@' + str(k):<16} {'no interval (a run whose particles all died)':>44} {cpu:>6.1f}")
                continue
            died = sum(not math.isfinite(x) for x in got.log_estimates)
            print(
                f"{names[0] + '@' + str(k):<16} {fmt(got.value):>12} {fmt(got.low):>12} {fmt(got.high):>12} "
                f"{died:>5} {cpu:>6.1f}",
                flush=True,
            )


def fort_split_count(state, seconds: float = 120.0) -> int:
    """The exact count of a Fauna state as the sum, over every set of three Forts the rules allow with it (each
    candidate set checked by a SAT session with every rule in force), of the count of the state with those
    Forts revealed (a compiled circuit, or whatever exact count ``Solver.count`` finds within ``seconds``)."""
    import itertools

    from mapgen.solving.sat import Budget as SatBudget
    from mapgen.terrain import Terrain

    solver = Solver.for_chapter(state.chapter)
    fort = Terrain.FORT
    possible = solver.possible(state, 60)
    cand = [i for i in state.unrevealed() if fort in possible[i]]
    known = sum(t is fort for t in state.cells)
    sat = solver.session(state.briefing, ruled=True).sat
    base = sat.givens(state)
    assert base is not None, "the state has no completion"
    lits = {i: sat.lit(i, fort) for i in cand}
    total = 0
    for chosen in itertools.combinations(cand, 3 - known):
        assumed = list(base) + [lits[i] if i in chosen else -lits[i] for i in cand]
        if not sat.solve(assumed, SatBudget.until(60, time.monotonic() + 120, deterministic=True), lazy=True):
            continue
        sub = state.with_cells(fort if i in chosen else t for i, t in enumerate(state.cells))
        got = solver.count(sub, time_limit=seconds)
        assert got.exact, f"no exact count for the Forts at {[state.board.name(i) for i in chosen]}"
        total += got.count
    return total


def early_fauna(budget: smc.SmcBudget, seeds: int, recount: bool) -> None:
    print(f"\nearly Fauna against exact counts (Fort split): SMC ({budget.runs} runs x {budget.particles} particles)")
    print(f"{'state':<12} {'exact':>12}  intervals over {seeds} seeds (low/exact .. high/exact; - a run died)")
    held = total = 0
    for (name, k), exact in SPLIT_COUNTS.items():
        if recount:
            again = fort_split_count(revealed(name, k))
            assert again == exact, f"{name}@{k}: the split counts {again:,}, recorded {exact:,}"
        cells = []
        for seed in range(seeds):
            _, _, got, cpu = one(name, k, budget, seed=seed)
            if got is None:
                cells.append("-")
                continue
            total += 1
            ok = got.contains(exact)
            held += ok
            cells.append(f"{'in' if ok else 'OUT'} {got.low / exact:.2g}..{got.high / exact:.2g} ({cpu:.1f} s)")
        print(f"{name + '@' + str(k):<12} {exact:>12.4g}  " + ", ".join(cells), flush=True)
    if total:
        print(f"held: {held} of {total} intervals ({held / total:.0%}; a 95% interval should hold about 95%)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one map and fewer reveal counts per chapter")
    ap.add_argument("--exact-seconds", type=float, default=120.0, help="time limit of each exact count")
    ap.add_argument("--particles", type=int, default=0, help="particles per run (default: solve's at 10 s)")
    ap.add_argument("--runs", type=int, default=smc.RUNS, help="independent runs")
    ap.add_argument("--early-fauna", action="store_true", help="only early Fauna states against their split counts")
    ap.add_argument("--seeds", type=int, default=6, help="seeds per state for --early-fauna (default 6)")
    ap.add_argument("--recount", action="store_true", help="with --early-fauna: find the exact counts again (minutes)")
    args = ap.parse_args()
    budget = smc.SmcBudget.for_seconds(SOLVE_SECONDS)
    if args.particles:
        budget = smc.SmcBudget(args.particles, args.runs, smc.STEP)
    if args.early_fauna:
        early_fauna(budget, args.seeds, args.recount)
        return
    coverage(args.quick, args.exact_seconds, budget)
    early(args.quick, budget)


if __name__ == "__main__":
    main()
