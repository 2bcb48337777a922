"""Deduction for every state, with reasons (issue 10 goals in brackets), medians with ratios beside the goals:
forced cells and possible terrains of an empty board per chapter [<= 300 ms]; `solve` (the CLI's report)
of empty boards and 10-given states within its default time limit [<= 10 s, and an answer, exit 0];
one explanation at 20 givens [<= 100 ms]; every forced cell of a 20-given state explained [<= 2 s];
`mapgen deduce` (minimal reveal set, ablation, profile with counts, grade) per 7x7 map [<= 5 s];
estimates against exact counts on small states [bounds hold in every case].
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import maps
from bench.bench_solve import states  # the same revealed states as the solve benchmark
from constraints.catalogue import chapter_names, get_chapter
from constraints.cnf import count_completions_cnf
from mapgen.deduce import deduce_report
from mapgen.report import solve_report
from mapgen.solving.explain import explain_cell, explain_forced
from mapgen.solving.solve import Solver


def row(label: str, times: list[float], goal: float | None, unit: str = "ms") -> None:
    scale = 1000 if unit == "ms" else 1
    med, top = statistics.median(times) * scale, max(times) * scale
    ratio = f"   median/goal {med / (goal * scale):.2f}" if goal else ""
    goal_text = f"goal <= {goal * scale:g} {unit}" if goal else ""
    print(
        f"{label:<44} median {med:>8.1f} {unit}   max {top:>8.1f} {unit}   n={len(times):<3} {goal_text}{ratio}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--per-map", type=int, default=1)
    ap.add_argument("--maps", type=int, default=2, help="shipped maps per chapter for `mapgen deduce`")
    ap.add_argument("--empty-maps", type=int, default=4, help="shipped maps per chapter for the empty board")
    args = ap.parse_args(argv or [])
    print(__doc__.splitlines()[0])

    # 1. an empty board: forced cells and possible terrains, fresh solver (its session built once);
    # the goal holds per chapter, so the worst chapter is shown against it too
    times, worst = [], {}
    for chapter in chapter_names():
        for name in maps.names(chapter)[: args.empty_maps]:
            m = maps.load(name)
            empty = m.hide(range(m.board.size))
            solver = Solver(get_chapter(chapter))
            solver.slot(empty.briefing)
            t = time.perf_counter()
            possible = solver.possible(empty, 30)
            forced = {i for i, ts in possible.items() if len(ts) == 1}
            times.append(time.perf_counter() - t)
            if times[-1] > worst.get(chapter, (0.0, ""))[0]:
                worst[chapter] = (times[-1], name)
            print(f"  {name:<14} {times[-1] * 1000:7.1f} ms, forced {sorted(m.board.name(i) for i in forced)}")
    row("forced + possible, empty board", times, 0.3)
    chapter = max(worst, key=lambda c: worst[c][0])
    top, name = worst[chapter]
    print(
        f"{'  worst chapter: ' + chapter + ' (' + name + ')':<44} {top * 1000:8.1f} ms   goal <= 300 ms   "
        f"worst/goal {top / 0.3:.2f}",
        flush=True,
    )

    # 2. solve within its time limit (default 10 s) on the earliest states
    early = [maps.load(f"{c}-1").hide(range(49)) for c in chapter_names() if c != "training"] + states(10, 1, 2)[::3]
    times, answered = [], 0
    for st in early:
        t = time.perf_counter()
        report = solve_report(st, time_limit=10.0)
        times.append(time.perf_counter() - t)
        answered += report["count"] >= 1
    row("solve, empty boards and 10-given states", times, 10.0, "s")
    print(f"  answered (exit 0) {answered}/{len(early)}")

    # 3. explanations at 20 givens (warm solver, as the CLI and the profile use it)
    s20 = states(20, args.per_map, 1)
    one, every, cells = [], [], 0
    for st in s20:
        solver = Solver.for_chapter(st.chapter)
        forced = solver.forced(st, 30)
        if not forced:
            continue
        i, t_ = next(iter(sorted(forced.items())))
        t = time.perf_counter()
        explain_cell(solver, st, i, t_, 30)
        one.append(time.perf_counter() - t)
        t = time.perf_counter()
        found = explain_forced(solver, st, 60, forced=forced)
        every.append(time.perf_counter() - t)
        cells += len(found)
    row("one explanation at 20 givens", one, 0.1)
    row("every forced cell explained, 20 givens", every, 2.0, "s")
    print(f"  {cells} forced cells explained in {len(every)} states")

    # 4. mapgen deduce per 7x7 map
    times = []
    for chapter in [c for c in chapter_names() if c != "training"]:
        for k in range(1, args.maps + 1):
            m = maps.load(f"{chapter}-{k}")
            t = time.perf_counter()
            r = deduce_report(m)
            times.append(time.perf_counter() - t)
            print(f"  {chapter}-{k:<3} {times[-1]:6.2f} s  grade {r['grade']['tier']}")
    row("mapgen deduce (7x7 map)", times, 5.0, "s")

    # 5. estimates against exact counts (the exact counter switched off for the estimate)
    rng = random.Random(5)
    held, tried = 0, 0
    for name in maps.names():
        m = maps.load(name)
        for hidden in (12, 16):
            st = m.hide(rng.sample(range(m.board.size), min(hidden, m.board.size - 5)))
            solver = Solver(get_chapter(m.chapter))
            solver.model_count = lambda *a, **k: None
            result = solver.count(st, limit=2, time_limit=30)
            if result.exact:
                continue
            exact = count_completions_cnf(st, time_limit=120)
            e = result.estimate
            tried += 1
            held += e["low"] <= exact <= e["high"] and e["proven_low"] <= exact <= e["proven_high"]
    print(f"{'estimates whose bounds hold':<44} {held}/{tried}   goal: every case")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
