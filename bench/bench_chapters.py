"""Games per second and the four bots' win rates for Flora, Vameter and Maldonado (co-operative and Hidden Traitor).

Issue 6's closing note: per chapter, games per CPU second and win rates of random, heuristic,
clairvoyant and deducer, and in Hidden Traitor mode how often the Traitor wins and is caught.
Maps: the shipped maps of each chapter (``maps/CHAPTER-*.toml``) when there are any, else the
chapter's test maps (``tests/data/engine6_CHAPTER_*.toml``). The deducer asks the solver every
turn, so it plays fewer games (``--deducer-games``) on the first map only.
Run: ``python -m bench.bench_chapters`` (``--games N`` per bot and map, ``--bots``, ``--json``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from mapgen.engine.playtest import Settings, run_playtest, summarise
from mapgen.mapfile import read_map

ROOT = Path(__file__).resolve().parent.parent
#: (label, chapter, players, mode)
CONFIGS = (
    ("flora", "flora", 1, None),
    ("vameter", "vameter", 1, None),
    ("maldonado coop", "maldonado", 1, None),
    ("maldonado coop 2p", "maldonado", 2, None),
    ("maldonado traitor 2p", "maldonado", 2, "traitor"),
    ("maldonado traitor 3p", "maldonado", 3, "traitor"),
    ("maldonado traitor 4p", "maldonado", 4, "traitor"),
)


def chapter_maps(chapter: str) -> list[Path]:
    import maps

    shipped = [maps.path(n) for n in maps.names(chapter)]  # flat files or the graded library's folder
    return shipped or sorted((ROOT / "tests" / "data").glob(f"engine6_{chapter}_*.toml"))


def bench(label: str, chapter: str, players: int, mode: str | None, bot: str, games: int, maps, seed: int) -> dict:
    """Play ``games`` games on each map; one row of totals."""
    n = wins = traitor_wins = caught = 0
    cpu = 0.0
    scores = 0.0
    losses: dict[str, int] = {}
    for path in maps:
        m = read_map(path)
        s = Settings(bot=bot, players=players, seed=seed, mode=mode)
        t0 = time.process_time()
        records = run_playtest(m, s, games, jobs=1)
        cpu += time.process_time() - t0
        rep = summarise(records, m, s, str(path))
        n += rep["games"]
        wins += rep["wins"]
        scores += rep["mean_score"] * rep["games"]
        for k, v in rep["losses"].items():
            losses[k] = losses.get(k, 0) + v
        traitor_wins += rep.get("traitor_wins", 0)
        caught += rep.get("traitor_caught", 0)
    row = {
        "config": label,
        "bot": bot,
        "maps": len(maps),
        "games": n,
        "win_rate": round(wins / n, 4) if n else 0.0,
        "mean_score": round(scores / n, 2) if n else 0.0,
        "losses": losses,
        "games_per_cpu_second": round(n / cpu, 2) if cpu else None,
    }
    if mode == "traitor":
        row["traitor_win_rate"] = round(traitor_wins / n, 4) if n else 0.0
        row["traitor_caught_rate"] = round(caught / n, 4) if n else 0.0
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60, help="games per bot and map (default 60)")
    ap.add_argument("--deducer-games", type=int, default=4, help="games for the slow deducer (first map; default 4)")
    ap.add_argument("--bots", default="random,heuristic,clairvoyant,deducer")
    ap.add_argument("--configs", default="", help="comma-separated labels to run (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    wanted = {c.strip() for c in args.configs.split(",") if c.strip()}
    rows = []
    if not args.json:
        print(
            f"{'config':<22} {'bot':<12} {'games':>5} {'win rate':>9} {'score':>6} {'games/cpu-s':>12}  traitor wins/caught"
        )
    for label, chapter, players, mode in CONFIGS:
        if wanted and label not in wanted:
            continue
        maps = chapter_maps(chapter)
        for bot in args.bots.split(","):
            deducer = bot == "deducer"
            row = bench(
                label,
                chapter,
                players,
                mode,
                bot,
                args.deducer_games if deducer else args.games,
                maps[:1] if deducer else maps,
                args.seed,
            )
            rows.append(row)
            if not args.json:
                extra = (
                    f"  {100 * row['traitor_win_rate']:.0f}% / {100 * row['traitor_caught_rate']:.0f}%"
                    if mode == "traitor"
                    else ""
                )
                print(
                    f"{label:<22} {bot:<12} {row['games']:>5} {100 * row['win_rate']:>8.1f}% {row['mean_score']:>6.1f} "
                    f"{row['games_per_cpu_second'] or 0:>12.1f}{extra}",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
