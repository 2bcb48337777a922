"""Win rates per chapter of the heuristic and clairvoyant bots on the shipped maps, and the share of sealed games.

Issue 12's figures: the engine follows the rulebooks, so these rates are the ones to quote. A sealed game
(no Path can be explored by anyone for a whole round: the rulebooks do not say what happens then) is
counted apart from the losses. Variants (``flora-minotaurs``, ``relaunch``, ``toll-no-water``) are run as
extra rows with ``--variants``.
Run: ``python -m bench.bench_fidelity`` (``--games N`` per map, ``--bots``, ``--chapters``, ``--variants``, ``--json``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from mapgen.engine.playtest import Settings, run_playtest, summarise
from mapgen.mapfile import read_map

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = ("training", "fauna", "flora", "vameter", "maldonado")
#: outcomes of games that ended because the trail was sealed (before issue 12 they were counted as losses)
SEALED = ("sealed", "blocked", "monster_toll", "map_explored")


def row(chapter: str, bot: str, games: int, seed: int, variants: tuple[str, ...] = ()) -> dict:
    """``games`` games on each shipped map of the chapter, summed."""
    import maps

    n = wins = sealed = 0
    losses: dict[str, int] = {}
    sealed_by: dict[str, int] = {}
    cpu = 0.0
    for path in [Path(maps.path(name)) for name in maps.names(chapter)]:  # flat files or the library's folders
        m = read_map(path)
        s = Settings(bot=bot, seed=seed, **({"variants": variants} if variants else {}))
        t0 = time.process_time()
        records = run_playtest(m, s, games, jobs=1)
        cpu += time.process_time() - t0
        rep = summarise(records, m, s, str(path))
        n += rep["games"]
        wins += rep["wins"]
        sealed += rep.get("sealed", 0)
        for k, v in rep.get("sealed_by", {}).items():
            sealed_by[k] = sealed_by.get(k, 0) + v
        for k, v in rep["losses"].items():
            if k in SEALED:
                sealed += v
            else:
                losses[k] = losses.get(k, 0) + v
    return {
        "chapter": chapter + "".join(f" +{v}" for v in variants),
        "bot": bot,
        "games": n,
        "win_rate": round(wins / n, 4) if n else 0.0,
        "sealed_rate": round(sealed / n, 4) if n else 0.0,
        "sealed_by": {k: round(v / n, 4) for k, v in sealed_by.items()} if n else {},
        "losses": losses,
        "games_per_cpu_second": round(n / cpu, 1) if cpu else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--games", type=int, default=30, help="games per bot and map (default 30: 240 per chapter of 8 shipped maps)"
    )
    ap.add_argument("--bots", default="heuristic,clairvoyant")
    ap.add_argument("--chapters", default=",".join(CHAPTERS))
    ap.add_argument("--variants", default="", help="extra rows: CHAPTER:VARIANT,... (e.g. flora:flora-minotaurs)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    jobs = [(c, ()) for c in args.chapters.split(",") if c]
    jobs += [(c, (v,)) for c, v in (x.split(":") for x in args.variants.split(",") if x)]
    rows = []
    if not args.json:
        print(f"{'chapter':<28} {'bot':<12} {'games':>5} {'win rate':>9} {'sealed':>7} {'games/cpu-s':>12}  losses")
    for chapter, variants in jobs:
        for bot in args.bots.split(","):
            r = row(chapter, bot, args.games, args.seed, variants)
            rows.append(r)
            if not args.json:
                lost = ", ".join(f"{k} {v}" for k, v in sorted(r["losses"].items()))
                why = ", ".join(f"{k} {100 * v:.1f}%" for k, v in r["sealed_by"].items())
                print(
                    f"{r['chapter']:<28} {bot:<12} {r['games']:>5} {100 * r['win_rate']:>8.1f}% "
                    f"{100 * r['sealed_rate']:>6.1f}% {r['games_per_cpu_second'] or 0:>12.1f}  {lost}"
                    + (f"; sealed: {why}" if why else ""),
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
