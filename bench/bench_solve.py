"""Solve benchmark, side by side in one process (issue 4 goals in brackets):
uniqueness at 20 givens [<= 20 ms median], forced cells at 20 givens [<= 100 ms], exact count at
>= 20 givens [<= 0.5 s] and >= 10 givens [<= 10 s], minimal reveal set [<= 0.5 s per map], and the
CP-SAT count against the python-constraint model on 40-given states [>= 50x faster].
States are the shipped maps with a seeded random set of cells revealed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import maps
from constraints.csp import count_completions_csp
from mapgen.deduce import minimal_reveal_set
from mapgen.model import Map
from mapgen.solving.solve import Solver, SolveTimeout


def states(givens: int, per_map: int, seed: int, chapters=None) -> list[Map]:
    rng = random.Random(seed)
    out = []
    for name in maps.names():
        m = maps.load(name)
        if m.board.size < 49 or (chapters and m.chapter not in chapters):
            continue
        for _ in range(per_map):
            shown = set(rng.sample(range(m.board.size), givens))
            out.append(m.hide(i for i in range(m.board.size) if i not in shown))
    return out


def timed(fn, items) -> list[float]:
    out = []
    for x in items:
        t = time.perf_counter()
        fn(x)
        out.append(time.perf_counter() - t)
    return out


def row(label: str, times: list[float], goal: str) -> None:
    print(
        f"{label:<34} median {statistics.median(times) * 1000:>8.1f} ms   max {max(times) * 1000:>8.1f} ms   "
        f"n={len(times):<3} goal {goal}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--per-map", type=int, default=2)
    ap.add_argument("--skip-10", action="store_true", help="skip the 10-given exact counts (slowest)")
    args = ap.parse_args(argv or [])
    print(__doc__.splitlines()[0])
    s20 = states(20, args.per_map, 1)
    for st in s20:  # build each briefing's model once (a warm process), as the deducer bot and CLI do
        Solver.for_chapter(st.chapter).slot(st.briefing)
    row("unique? at 20 givens", timed(lambda st: Solver.for_chapter(st.chapter).is_unique(st), s20), "<= 20 ms")
    fresh = {}  # forced without witnesses from the question before: a cold solver per chapter, warm model

    def forced(st):
        s = fresh.setdefault(st.chapter, Solver(Solver.for_chapter(st.chapter).chapter))
        s.slot(st.briefing).witnesses.clear()
        s.forced(st)

    for st in s20:
        fresh.setdefault(st.chapter, Solver(Solver.for_chapter(st.chapter).chapter)).slot(st.briefing)
    row("forced cells at 20 givens", timed(forced, s20), "<= 100 ms")
    row(
        "exact count at 20 givens",
        timed(lambda st: Solver.for_chapter(st.chapter).count(st, time_limit=60), s20),
        "<= 500 ms",
    )
    if not args.skip_10:
        s10 = states(10, 1, 2)
        times = []
        for st in s10:
            t = time.perf_counter()
            try:
                r = Solver.for_chapter(st.chapter).count(st, time_limit=60)
                assert r.exact
            except SolveTimeout:
                pass
            times.append(time.perf_counter() - t)
        row("exact count at 10 givens", times, "<= 10 s")
    full = [maps.load(n) for n in maps.names() if not n.startswith("training")]
    row("minimal reveal set (7x7 maps)", timed(lambda m: minimal_reveal_set(m), full), "<= 500 ms")
    s40 = states(40, 1, 3)
    cp = timed(lambda st: Solver.for_chapter(st.chapter).count(st), s40)
    pc = timed(lambda st: count_completions_csp(st, time_limit=120), s40)
    ratios = [b / a for a, b in zip(cp, pc)]
    row("count at 40 givens, CP-SAT", cp, "")
    row("count at 40 givens, python-constraint", pc, "")
    print(
        f"{'CP-SAT speed-up over python-constraint':<34} median {statistics.median(ratios):>8.1f}x   "
        f"min {min(ratios):.1f}x   goal >= 50x"
    )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
