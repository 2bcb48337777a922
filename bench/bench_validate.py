"""Validation speed: check_map on 1,000 maps in one process, and `mapgen validate FILE` in a fresh process.

Goals of issue 2: at most 0.5 ms per map (median) validating in one process; at most 0.2 s for
`mapgen validate FILE` in a fresh process (so the validate path must not import ortools).
The maps are the valid examples of tests/data/valid, cycled to 1,000. Fresh processes run the
installed console script with bytecode caching allowed (as after `pip install`), after one warm-up
run; the same figure without a bytecode cache (PYTHONDONTWRITEBYTECODE=1) is shown for reference.
Run: ``python -m bench validate`` or ``python -m bench.bench_validate [--maps N] [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from constraints.catalogue import check_map
from mapgen.mapfile import parse_map

ROOT = Path(__file__).resolve().parent.parent
VALID = ROOT / "tests" / "data" / "valid"
CHECK_GOAL_MS = 0.5
PROCESS_GOAL_S = 0.2


def in_process(n_maps: int) -> dict[str, float]:
    """Median milliseconds per map for check_map alone and for parse_map + check_map."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(VALID.glob("*.toml"))]
    texts = [texts[i % len(texts)] for i in range(n_maps)]
    maps = [parse_map(t, "bench") for t in texts]  # read from text once
    for m in maps[: len(set(texts))]:  # warm the chapter caches
        assert check_map(m) == [], "bench maps must be valid"
    clock = time.perf_counter
    check, both = [], []
    for m in maps:
        t0 = clock()
        check_map(m)
        check.append(clock() - t0)
    for t in texts:
        t0 = clock()
        check_map(parse_map(t, "bench"))
        both.append(clock() - t0)
    return {
        "check": statistics.median(check) * 1000,
        "check_total": sum(check) * 1000,
        "parse_check": statistics.median(both) * 1000,
    }


def command() -> list[str]:
    """The installed `mapgen` console script beside this Python, else an equivalent `python -c`."""
    script = Path(sys.executable).parent / "mapgen"
    if script.exists():
        return [str(script)]
    found = shutil.which("mapgen")
    return [found] if found else [sys.executable, "-c", "import cli; cli.main()"]


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_runs(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, float, float]:
    """Median wall seconds, median CPU seconds (user + system) and least CPU seconds of ``runs`` fresh processes.

    On a busy machine wall time includes waiting for a CPU; the least CPU time is close to the wall
    time the same run takes on an idle machine.
    """
    wall, cpu = [], []
    for _ in range(runs):
        c0, t0 = child_cpu(), time.perf_counter()
        done = subprocess.run(argv, check=False, capture_output=True, cwd=ROOT, env=env)
        wall.append(time.perf_counter() - t0)
        cpu.append(child_cpu() - c0)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return statistics.median(wall), statistics.median(cpu), min(cpu)


def fresh_process(runs: int) -> dict[str, tuple[float, float]]:
    """(wall, CPU) medians of `mapgen validate FILE` in new processes, and of a bare interpreter start."""
    file = str(VALID / "fauna-201.toml")
    argv = [*command(), "validate", file]
    cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    uncached = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    timed_runs(argv, 1, cached)  # warm-up: writes the bytecode cache, as an install would
    return {
        "validate": timed_runs(argv, runs, cached),
        "validate_uncached": timed_runs(argv, runs, uncached),
        "python": timed_runs([sys.executable, "-c", "pass"], runs, cached),
        "python_nosite": timed_runs([sys.executable, "-S", "-c", "pass"], runs, cached),
    }


def verdict(value: float, goal: float) -> str:
    return "ok" if value <= goal else "MISSED"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", type=int, default=1000, help="maps validated in one process (default 1000)")
    parser.add_argument("--runs", type=int, default=10, help="fresh processes per figure (default 10)")
    args = parser.parse_args(argv)

    ip = in_process(args.maps)
    fp = fresh_process(args.runs)

    def process_row(name: str, key: str, goal: str = "", mark: str = "(reference)"):
        wall, cpu, least = fp[key]
        return (name, f"{wall:.3f} s", f"{cpu:.3f} s", f"{least:.3f} s", goal, mark)

    rows = [
        (
            "check_map per map, in one process",
            f"{ip['check']:.3f} ms",
            "",
            "",
            f"<= {CHECK_GOAL_MS} ms",
            verdict(ip["check"], CHECK_GOAL_MS),
        ),
        (
            "parse_map + check_map per map",
            f"{ip['parse_check']:.3f} ms",
            "",
            "",
            f"<= {CHECK_GOAL_MS} ms",
            verdict(ip["parse_check"], CHECK_GOAL_MS),
        ),
        (f"all {args.maps} check_map calls", f"{ip['check_total']:.1f} ms", "", "", "", ""),
        process_row(
            "mapgen validate FILE, fresh process",
            "validate",
            f"<= {PROCESS_GOAL_S} s",
            verdict(fp["validate"][0], PROCESS_GOAL_S),
        ),
        process_row("  same, no bytecode cache", "validate_uncached"),
        process_row("  python -c pass, for comparison", "python"),
        process_row("  python -S -c pass (no site-packages hooks)", "python_nosite"),
    ]
    print(f"validation: {args.maps} maps from tests/data/valid; medians; fresh processes: {args.runs} runs each")
    print(f"  command: {' '.join(command())} validate tests/data/valid/fauna-201.toml")
    print(
        f"  load average now: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; wall times grow with load, and the"
        " least CPU time of a fresh process is close to its wall time on an idle machine"
    )
    width = max(len(r[0]) for r in rows)
    print(f"  {'measure':<{width}}  {'median':>10}  {'CPU':>8}  {'least CPU':>9}  {'goal':<10}")
    for name, value, cpu_time, least, goal, mark in rows:
        print(f"  {name:<{width}}  {value:>10}  {cpu_time:>8}  {least:>9}  {goal:<10}  {mark}".rstrip())


if __name__ == "__main__":
    main()
