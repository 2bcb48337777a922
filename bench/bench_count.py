"""Exact completion counts: Ganak on the CNF (20 and 10 givens) and python-constraint (40 givens).

States are made by revealing a fixed-seed random set of cells of the valid example maps
(tests/data/valid). Goals of issue 4: an exact count of any state with at least 20 givens in at
most 0.5 s, with at least 10 givens in at most 10 s. Run: ``python -m bench.bench_count``
(one state per map and section, 30 s per count; ``--full`` for three per map, ``--time-limit`` per count).
Wall and CPU seconds are both shown: on a shared machine the CPU figure is the one to compare.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time
from pathlib import Path

from constraints.cnf import CountTimeout, cnf_for_state, count_cnf
from constraints.csp import CspTimeout, count_completions_csp
from mapgen.mapfile import read_map
from mapgen.model import Map

VALID = Path(__file__).resolve().parent.parent / "tests" / "data" / "valid"


def revealed_states(givens: int, per_map: int, seed: int = 0) -> list[tuple[str, Map]]:
    """For every 7x7 valid example map, ``per_map`` states that reveal ``givens`` random cells."""
    rng = random.Random(seed)
    out = []
    for path in sorted(VALID.glob("*.toml")):
        m = read_map(path)
        if m.board.size < 49:
            continue
        for k in range(per_map):
            shown = set(rng.sample(range(m.board.size), givens))
            out.append((f"{path.stem}#{k}", m.hide(i for i in range(m.board.size) if i not in shown)))
    return out


def _cpu() -> float:
    """CPU seconds used so far by this process and its finished children (the counts run in a child)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def time_cnf(states, time_limit: float) -> list[tuple[str, int | None, float, float]]:
    """(name, count or None on timeout, wall seconds, CPU seconds) per state."""
    rows = []
    for name, state in states:
        start, cpu = time.perf_counter(), _cpu()
        try:
            n = count_cnf(cnf_for_state(state), time_limit)
        except CountTimeout:
            n = None
        rows.append((name, n, time.perf_counter() - start, _cpu() - cpu))
    return rows


def time_csp(states, time_limit: float) -> list[tuple[str, int | None, float, float]]:
    rows = []
    for name, state in states:
        start, cpu = time.perf_counter(), _cpu()
        try:
            n = count_completions_csp(state, time_limit=time_limit)
        except CspTimeout:
            n = None
        rows.append((name, n, time.perf_counter() - start, _cpu() - cpu))
    return rows


def report(title: str, rows, goal: float | None) -> None:
    """One line per state (wall and CPU time: the machine may be shared), then medians and the goal."""
    walls, cpus = [r[2] for r in rows], [r[3] for r in rows]
    print(f"\n{title}")
    for name, n, wall, cpu in rows:
        count = "timeout" if n is None else f"{n:.3e}" if n >= 1e6 else str(n)
        flag = "" if goal is None or wall <= goal else "  (over goal)"
        print(f"  {name:<18} {count:>12}  wall {wall:7.3f} s  cpu {cpu:7.3f} s{flag}")
    text = f"  median wall {statistics.median(walls):.3f} s, cpu {statistics.median(cpus):.3f} s; max wall {max(walls):.3f} s"
    if goal is not None:
        within = sum(w <= goal for w in walls), sum(c <= goal for c in cpus)
        text += f"; goal {goal:g} s: {within[0]}/{len(rows)} within by wall, {within[1]}/{len(rows)} by cpu"
    print(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="three states per map instead of one")
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per count (default 30)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    per_map = 3 if args.full else 1
    report("CNF + Ganak, 20 givens", time_cnf(revealed_states(20, per_map, args.seed), args.time_limit), 0.5)
    report("CNF + Ganak, 10 givens", time_cnf(revealed_states(10, per_map, args.seed), args.time_limit), 10.0)
    report("python-constraint, 40 givens", time_csp(revealed_states(40, per_map, args.seed), args.time_limit), None)


if __name__ == "__main__":
    main()
