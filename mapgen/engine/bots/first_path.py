"""A game's first Path off the likeliest Skulls: the planner's rule (``AimedDeducer.first_path_by_odds``).

The first Path is the one decision every game of a map shares, and the heuristic takes it blind. Where the
chapter's Threat deck holds a Monster, a start Path that is a Skull walls the game in at once when a Monster is
drawn there; so a bot with ``first_path_by_odds`` weighs only the start Paths whose chance of a Skull is within
``SKULL_MARGIN`` of the least one's (``safest_starts``), the chances being the sampler's odds of the board as the
players see it before the first reveal (``start_skull_odds``: ``Solver.sampled_odds``, as ``solve`` and ``hint``
give them, at ``START_ODDS_WORK``). It reads the observation only (the board as seen), never the hidden map.
"""

from __future__ import annotations

import time

from mapgen.terrain import Terrain

#: the first Path: the start Paths weighed are those whose chance of a Skull is at most the least one's plus this
SKULL_MARGIN = 0.05
#: the sampler's work for the start odds (``sampler.Budget``): chains, sweeps kept, burn-in sweeps, particles of each
#: SMC run that starts two chains. A quarter of ``solve``'s default work (2.3-2.9 CPU s on Fauna maps against 6-11).
#: The odds so early move with the sampler's seed (they cannot cross Fauna's Fort sets), so the rule was measured
#: over seeds: the planner (budget 2, game seed 7, 100 games a map of fauna-1..4, paired) won 50.5% without it and
#: 59.2%, 55.0%, 55.0% and 52.0% with the odds of sampler seeds 0 to 3 (mean 55.3%); the scout gained nothing over
#: seeds (game seed 7: 46.2% without, a mean of 44.7% over sampler seeds 0 to 4, 38.5% to 52.0%) and goes without it.
#: Over many maps the rule avoids no Skull (2026-12-06; 60 Fauna maps generated at seeds 100-159, the start Path the
#: deducer's blind choice would take, B7 to F7 by its measured shares, against the rule's safest Paths by the same
#: shares): a Skull start 14.3% blind, 10.6%, 15.6%, 13.7% and 18.1% with the odds of sampler seeds 0 to 3 (mean
#: 14.5%). The odds carry little: a start Path that is a Skull got 0.18 and 0.17 on average (seeds 0 and 1, 44 of
#: them among B7-F7), one that is not 0.16 and 0.15 (256). So the planner's gain on fauna-1..4 is those four maps'
#: luck with its seeds, not a skill a new map would see (``python -m bench.bench_first_path --sampler-seeds 0,1,2,3``)
START_ODDS_WORK = (4, 20, 10, 50)
#: the time limit of the exact possible terrains the odds start from (about half a second on an idle machine)
POSSIBLE_SECONDS = 30.0
# (the rules' solver itself, not its id, which another solver could reuse once it is freed; the board as seen)
# -> {cell: chance of a Skull}, per process
_START_ODDS: dict = {}


def start_skull_odds(obs) -> dict[int, float]:
    """Each cell's chance of a Skull on the board as the players see it (``obs.known_map()``: before the first
    reveal, the same in every game of a map), from the sampler (``Solver.sampled_odds``, seed 0, a budget counted in
    work); empty where the sampler finds no completion to start from or cannot read a rule. Kept per board and
    process."""
    from mapgen.engine.deduce import solver_for  # deferred: the solver and the sampler, at a game's first Path

    solver = solver_for(obs.game.reference).solver
    state = obs.known_map()
    key = (solver, state.chapter, state.briefing, tuple(obs.terrain), tuple(sorted(obs.hills.items())))
    got = _START_ODDS.get(key)
    if got is None:
        from mapgen.solving.sampler import Budget, SamplerError  # deferred: numba's kernels
        from mapgen.solving.solve import NoCompletion, SolveTimeout  # deferred: ortools

        budget = solver.budget(POSSIBLE_SECONDS)
        possible = None
        try:
            possible = solver.possible(state, budget)
            odds = solver.sampled_odds(state, seconds=0.0, seed=0, possible=possible, work=Budget(*START_ODDS_WORK))
        except SolveTimeout:
            # the possible terrains' deterministic budget spent: no odds, the heuristic's blind choice; a wall clock's
            # safety net passing (the possible terrains', or the chain starts' top-up) is no answer: it ends the game
            if possible is not None or time.monotonic() >= budget.deadline:
                raise
            odds = None
        except (SamplerError, NoCompletion):
            # a house-rule chapter with a rule the sampler cannot read: no odds, the heuristic's blind choice
            odds = None
        # every unrevealed cell has its shares (a Skull no chain met there, or one it cannot hold: 0)
        got = {} if odds is None else {i: d.get(Terrain.SKULL, 0.0) for i, d in odds.shares.items()}
        if len(_START_ODDS) >= 256:  # a campaign's worker grades many maps: keep the memory bounded
            _START_ODDS.clear()
        _START_ODDS[key] = got
    return got


def safest_starts(obs, explores: list[int]) -> list[int]:
    """``explores`` (a game's first Path's candidates) narrowed to those whose chance of a Skull is at most the
    least one's plus ``SKULL_MARGIN``, where the chapter's Threat deck holds a Monster; else ``explores``."""
    if obs.n_explored or len(explores) < 2 or not any(card.monster for card in obs.game.threats):
        return explores
    skull = start_skull_odds(obs)
    if not skull:
        return explores
    least = min(skull.get(c, 0.0) for c in explores)
    return [c for c in explores if skull.get(c, 0.0) <= least + SKULL_MARGIN]


__all__ = ["SKULL_MARGIN", "START_ODDS_WORK", "safest_starts", "start_skull_odds"]
