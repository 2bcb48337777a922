"""Render times of ``mapgen.render``: one map per chapter in SVG, PNG (150 dpi) and PDF, and the printable sheet.

The maps are tests/data/render_*.toml (one per chapter, plus a partial map with forced cells). Each
figure is drawn and written ``--repeat`` times; the median is reported. Goal of issue 7: a map renders
in under 2 s of CPU time in every format, so ``mapgen render`` feels immediate.
Run: ``python -m bench.bench_render`` (``--repeat 1`` for a quick look).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from mapgen.mapfile import read_map
from mapgen.render import render_map, render_sheet

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
GOAL_SECONDS = 2.0


def _time(call, repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (CPU time is what counts on a shared, busy machine)."""
    wall, cpu = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    started = time.perf_counter()
    import matplotlib.figure  # noqa: F401  (the one-off import, reported apart)

    print(f"import matplotlib: {time.perf_counter() - started:.2f} s (once per process)")
    render_map(read_map(DATA / "render_training.toml"), Path(tempfile.gettempdir()) / "warm.png")  # font cache
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'map':<22}{'svg':>12}{'png':>12}{'pdf':>12}{'sheet':>12}   (median of {args.repeat}: CPU s / wall s)")
        for path in sorted(DATA.glob("render_*.toml")):
            m, out = read_map(path), Path(tmp) / path.stem
            row = [
                _time(lambda m=m, out=out, fmt=fmt: render_map(m, out.with_suffix(f".{fmt}")), args.repeat)
                for fmt in ("svg", "png", "pdf")
            ]
            sheet = _time(lambda m=m, out=out: render_sheet(m, out.with_name(f"{out.name}-sheet.pdf")), args.repeat)
            worst = max(worst, *(cpu for _, cpu in row))
            print(f"{path.stem:<22}" + "".join(f"{cpu:6.2f}/{wall:<5.2f}" for wall, cpu in [*row, sheet]))
    verdict = "meets" if worst <= GOAL_SECONDS else "misses"
    print(f"slowest single-map render: {worst:.2f} CPU s ({verdict} the {GOAL_SECONDS:.0f} s goal)")


if __name__ == "__main__":
    main()
