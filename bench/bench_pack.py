"""Time to make a map folder with ``mapgen pack``: 8 Fauna maps spread over the deduction grades, per map.

Runs ``mapgen pack -c fauna --count 8 --grade-spread --seed S -o folder.pdf --out DIR`` (every candidate's
deduction graded and 200 heuristic games played, the issue's defaults) in this process, then reports the
whole run, the search (candidates tried, per kept map) and the PDF alone, in wall-clock and CPU seconds.
Run: ``python -m bench.bench_pack`` (``--count 2 --chapter training`` for a quick look, ``--jobs 2``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the campaign's worker processes)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", default="fauna")
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()

    from click.testing import CliRunner

    from cli import main as mapgen
    from mapgen.render.folder import FolderMap, Layout, write_folder
    from mapgen.web.links import helper_url

    with tempfile.TemporaryDirectory() as tmp:
        out, maps = Path(tmp) / "folder.pdf", Path(tmp) / "maps"
        command = [
            "pack",
            "-c",
            args.chapter,
            "--count",
            str(args.count),
            "--grade-spread",
            "--seed",
            str(args.seed),
            "--games",
            str(args.games),
            "--jobs",
            str(args.jobs),
            "-o",
            str(out),
            "--out",
            str(maps),
            "--json",
        ]
        print("mapgen " + " ".join(command[:-5]) + " -o folder.pdf --out DIR")
        wall, cpu = time.perf_counter(), _cpu()
        r = CliRunner().invoke(mapgen, command)
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        if r.exit_code != 0:
            raise SystemExit(f"error: mapgen pack failed ({r.exit_code}): {r.stderr.strip()}")
        report = json.loads(r.stdout)
        print(
            f"whole command: {wall:.1f} s wall, {cpu:.1f} s CPU (this process and its finished workers); "
            f"{wall / args.count:.1f} s wall per map"
        )
        listed = ", ".join(f"{m['number']} {m['tier']}" for m in report["maps"])
        print(f"maps: {listed}; {report['pages']} pages")
        search = report["search"]
        print(f"search: {search['summary']}")

        # the PDF alone, from the maps just made
        from mapgen.mapfile import read_map

        made = [read_map(maps / f"{args.chapter}-{k}.toml") for k in range(1, args.count + 1)]
        folder = [FolderMap(m.briefing.number, m, helper_url(m)) for m in made]
        w, c = time.perf_counter(), time.process_time()
        write_folder(folder, Path(tmp) / "again.pdf", Layout(), title=args.chapter, note="bench", force=True)
        print(f"PDF alone: {time.perf_counter() - w:.2f} s wall, {time.process_time() - c:.2f} s CPU")


if __name__ == "__main__":
    main()
