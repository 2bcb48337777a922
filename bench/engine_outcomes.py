"""The engine's games pinned: a speed-up must play the same games, seed for seed.

Plays a fixed set of seeded playtests (bot, map, games; one process, in order) and records every game's
outcome, score, days, turns and a digest of its actions, then either writes them (``--record FILE``) or
compares them with a recording (``--check FILE``: exits 1 and names the first differing games). Record
before a change meant to be pure speed, check after it. Not a ``bench_*`` module: ``python -m bench`` does
not run it; run ``python -m bench.engine_outcomes --check bench/engine_outcomes.json`` (``--only deducer,oracle``
for some bots, ``--maps fauna-4`` for some maps, ``--games N`` to scale every case). ``engine_outcomes.json``
was recorded on main at 28b9c95 (issue 41's speed work) and again with the heuristic's five new rules (issue 41's
blunders: every bot's games changed; its CPU seconds are that run's, under load): a change meant to alter play
records it again in the same commit and says why. A whole check takes 3-4 CPU minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

import maps
from mapgen.engine.playtest import Settings, run_playtest

#: (bot, map, games, settings beyond bot and seed)
CASES = [
    *[(bot, f"fauna-{k}", 40, {}) for bot in ("heuristic", "clairvoyant", "deducer") for k in range(1, 9)],
    *[("scout", f"fauna-{k}", 20, {}) for k in range(1, 9)],
    *[("oracle", f"fauna-{k}", 20, {}) for k in range(1, 9)],
    *[(bot, "maldonado-1", 40, {}) for bot in ("heuristic", "clairvoyant", "deducer")],
    ("scout", "maldonado-1", 20, {}),
    ("oracle", "maldonado-1", 20, {}),
    *[(bot, m, 40, {}) for bot in ("heuristic", "deducer") for m in ("training-1", "flora-1", "vameter-1")],
    *[("oracle", m, 10, {}) for m in ("flora-1", "vameter-1")],
    ("heuristic", "fauna-2", 20, {"players": 2}),
    ("heuristic", "maldonado-2", 20, {"players": 3, "mode": "traitor"}),
    ("oracle", "fauna-3", 6, {"budget": 2}),
]


def run_case(bot: str, name: str, games: int, extra: dict, seed: int) -> dict:
    m = maps.load(name)
    s = Settings(bot=bot, seed=seed, **extra)
    start = time.process_time()
    records = run_playtest(m, s, games, keep_actions=True)
    cpu = time.process_time() - start
    return {
        "games": [
            [r.outcome, r.score, r.days, r.turns, hashlib.sha256(repr(r.actions).encode()).hexdigest()[:16]]
            for r in records
        ],
        "cpu": round(cpu, 2),
    }


def key(bot: str, name: str, extra: dict) -> str:
    return " ".join([bot, name, *(f"{k}={v}" for k, v in sorted(extra.items()))])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--record", metavar="FILE")
    group.add_argument("--check", metavar="FILE")
    ap.add_argument("--only", default="", help="bots to play (comma-separated; default every case)")
    ap.add_argument("--maps", default="", help="maps to play (comma-separated; default every case)")
    ap.add_argument("--games", type=float, default=1.0, help="scale every case's games (default 1)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    bots = set(filter(None, args.only.split(",")))
    names = set(filter(None, args.maps.split(",")))
    recorded = {}
    if args.check:
        with open(args.check) as f:
            recorded = json.load(f)
    out, bad = {}, 0
    for bot, name, games, extra in CASES:
        if (bots and bot not in bots) or (names and name not in names):
            continue
        n = max(1, round(games * args.games))
        k = key(bot, name, extra)
        got = run_case(bot, name, n, extra, args.seed)
        out[k] = got
        line = f"{k:<42} {n:>3} games {got['cpu']:>7.2f} CPU s {n / max(got['cpu'], 1e-9):>8.1f} games/CPU s"
        if args.check:
            want = recorded.get(k)
            if want is None:
                line += "  (not recorded)"
            else:
                m = min(len(want["games"]), n)
                diff = [i for i in range(m) if want["games"][i] != got["games"][i]]
                if diff:
                    bad += 1
                    line += f"  DIFFERENT: games {diff[:10]}"
                else:
                    line += f"  same ({want['cpu'] * m / len(want['games']):.2f} CPU s recorded)"
        print(line, flush=True)
    if args.record:
        with open(args.record, "w") as f:
            json.dump(out, f, indent=0)
    if args.check:
        print("every game the same" if not bad else f"{bad} cases DIFFER")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
