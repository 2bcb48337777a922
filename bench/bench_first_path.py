"""Does the first-Path rule avoid Skulls on maps in general? (issue 41; ``mapgen/engine/bots/first_path.py``)

The planner takes its first Path among the start Paths least likely to be a Skull by the sampler's odds of the board
before the first reveal (``first_path.safest_starts``); the scout goes without. On fauna-1..4 the rule moved the
planner's win rate, but those are four maps. Here, on Fauna maps generated from ``--first-seed`` on, for
each map and sampler seed:

- **blind**: the chance that the deducer's blind first Path is a Skull (it takes B7 to F7 in the shares
  ``BLIND_SHARES``, measured over 100 games on each shipped Fauna map, never a corner);
- **rule**: the same among the rule's safest start Paths (the blind shares renormalised over them; a corner the rule
  keeps alone counts at the mean share);
- **signal**: the sampler's mean Skull odds at the start Paths of B7-F7 that are Skulls and at those that are not.

A rule with skill has a lower Skull-start rate than blind on average over maps and seeds, and higher odds at the
Skulls than elsewhere. ``python -m bench.bench_first_path --maps 60 --sampler-seeds 0,1,2,3`` (about 3 CPU s a map
and seed).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from mapgen.engine.bots import first_path
from mapgen.engine.deduce import solver_for
from mapgen.engine.observation import observe
from mapgen.engine.playtest import Settings, make_game
from mapgen.generate import Generator
from mapgen.solving.sampler import Budget
from mapgen.terrain import Terrain

#: the deducer's blind first Path, by row of the start column (B7 to F7): its shares over 100 games a map (the same on
#: every shipped Fauna map: the choice reads the briefing's Peak and the local rules only)
BLIND_SHARES = {1: 0.19, 2: 0.18, 3: 0.24, 4: 0.17, 5: 0.22}


def start_observation(m):
    """The first player's observation before the first reveal (chance steps drawn with a fixed seed)."""
    state = make_game(m, Settings(bot="deducer"), 0).new_initial_state()
    rng = random.Random(0)
    while state.is_chance_node():
        pile = state._chance_pile()
        state.apply_action(1000 + pile[rng.randrange(len(pile))])
    return observe(state)


def skull_start(cells: list[int], skull: dict[int, bool], width: int) -> float:
    """The chance that a first Path taken among ``cells`` by the blind shares is a Skull."""
    mean = statistics.fmean(BLIND_SHARES.values())
    inner = [c for c in cells if c // width in BLIND_SHARES] or cells
    weights = [BLIND_SHARES.get(c // width, mean) for c in inner]
    return sum(w * skull[c] for w, c in zip(weights, inner)) / sum(weights)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maps", type=int, default=60, help="Fauna maps generated (default 60)")
    ap.add_argument("--first-seed", type=int, default=100, help="the first map's generator seed (default 100)")
    ap.add_argument("--sampler-seeds", default="0,1", help="sampler seeds of the start odds (default 0,1)")
    args = ap.parse_args()
    seeds = [int(s) for s in args.sampler_seeds.split(",")]
    blind, rule = [], {s: [] for s in seeds}
    at_skulls, elsewhere = {s: [] for s in seeds}, {s: [] for s in seeds}
    start = time.process_time()
    generator = Generator("fauna")
    for k in range(args.maps):
        m = generator.generate(args.first_seed + k).map
        w = m.board.width
        column = [r * w + w - 1 for r in range(m.board.height)]
        skull = {c: m.cells[c] is Terrain.SKULL for c in column}
        blind.append(skull_start(column, skull, w))
        obs = start_observation(m)
        solver = solver_for(obs.game.reference).solver
        state = obs.known_map()
        possible = solver.possible(state, first_path.POSSIBLE_SECONDS)
        for s in seeds:
            odds = solver.sampled_odds(
                state, seconds=0.0, seed=s, possible=possible, work=Budget(*first_path.START_ODDS_WORK)
            )
            p = {c: odds.shares.get(c, {}).get(Terrain.SKULL, 0.0) for c in column}
            least = min(p.values())
            safe = [c for c in column if p[c] <= least + first_path.SKULL_MARGIN]
            rule[s].append(skull_start(safe, skull, w))
            for c in column:
                if c // w in BLIND_SHARES:
                    (at_skulls if skull[c] else elsewhere)[s].append(p[c])
        print(
            f"fauna map seed {args.first_seed + k}: start column {''.join('S' if skull[c] else '.' for c in column)}"
            f"  blind {blind[-1]:.2f}  rule " + " ".join(f"{rule[s][-1]:.2f}" for s in seeds),
            flush=True,
        )
    cpu = time.process_time() - start
    print(f"\n{args.maps} maps, {cpu:.0f} CPU s: a Skull first Path, blind {statistics.fmean(blind):.3f}")
    for s in seeds:
        print(
            f"  sampler seed {s}: rule {statistics.fmean(rule[s]):.3f}; mean Skull odds at B7-F7 Skulls "
            f"{statistics.fmean(at_skulls[s]):.3f} ({len(at_skulls[s])}), at the others "
            f"{statistics.fmean(elsewhere[s]):.3f} ({len(elsewhere[s])})"
        )
    mean_rule = statistics.fmean(statistics.fmean(r) for r in rule.values())
    verdict = "fewer Skull starts" if mean_rule < statistics.fmean(blind) - 0.01 else "no fewer Skull starts"
    print(f"rule over the sampler seeds {mean_rule:.3f} against blind {statistics.fmean(blind):.3f}: {verdict}")


if __name__ == "__main__":
    main()
