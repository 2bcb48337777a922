"""Generation benchmark: per chapter, one warm map's median time, a 100-map batch's rate, diversity.

Goals (issue 3): at most 25 ms per 7x7 map (median, warm process, reused model) and at least
30 maps/s. Wall and CPU (process) time are both shown: CPU time is steadier on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import time

from constraints.catalogue import chapter_names
from mapgen.generate import Generator


def measure(chapter: str, batch: int) -> dict:
    gen = Generator(chapter)
    t = time.perf_counter()
    gen.base_model()
    build = time.perf_counter() - t
    gen.generate(10_000)  # warm
    walls, cpus, maps = [], [], []
    t0, c0 = time.perf_counter(), time.process_time()
    for seed in range(batch):
        w, c = time.perf_counter(), time.process_time()
        maps.append(gen.generate(seed).map.cells)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    total_wall, total_cpu = time.perf_counter() - t0, time.process_time() - c0
    pairs = [(a, b) for k, a in enumerate(maps) for b in maps[k + 1 :]]
    hamming = statistics.mean(sum(x != y for x, y in zip(a, b)) for a, b in pairs)
    return {
        "chapter": chapter,
        "build_ms": build * 1000,
        "median_ms": statistics.median(walls) * 1000,
        "median_cpu_ms": statistics.median(cpus) * 1000,
        "maps_per_s": batch / total_wall,
        "maps_per_cpu_s": batch / total_cpu,
        "hamming": hamming,
        "cells": len(maps[0]),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--chapters", nargs="*", default=list(chapter_names()))
    args = ap.parse_args(argv or [])
    print(f"generate: {args.batch}-map batches, one worker (deterministic); goal <= 25 ms/map, >= 30 maps/s")
    print(
        f"{'chapter':<10} {'build ms':>8} {'median ms':>9} {'cpu ms':>7} {'maps/s':>7} {'cpu maps/s':>10} {'hamming':>12}"
    )
    for ch in args.chapters:
        r = measure(ch, args.batch)
        print(
            f"{ch:<10} {r['build_ms']:>8.1f} {r['median_ms']:>9.1f} {r['median_cpu_ms']:>7.1f} {r['maps_per_s']:>7.1f} "
            f"{r['maps_per_cpu_s']:>10.1f} {r['hamming']:>6.1f}/{r['cells']}",
            flush=True,
        )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
