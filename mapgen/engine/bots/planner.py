"""The ``planner`` bot: a fair player that plans each explore on worlds drawn from what it knows.

It decides on its information state (``decides_on = "infostate"``: never the state). Every decision
but the choice of a Path is the deducer's (``deducer``: the heuristic with the exact possible terrains of the cells
it may explore). When it is about to explore and has a choice, it weighs the deducer's cell and the
``ALTERNATIVES`` cells it values next, as the oracle does
(``mapgen/engine/bots/oracle.py``), but on ``budget`` worlds the player cannot tell from the real
game instead of the real one (determinized search, "perfect-information Monte Carlo"): each world is
a completion of the seen cells drawn by ``Solver.sample`` (``mapgen.solving.solve``: a private
session per game, a deterministic budget, so the same seed plays the same game on a busy machine)
with the game so far replayed onto it (``mapgen.engine.infostate.extend``: hidden cards redrawn, kept
only when it shows the player what they saw), and each candidate is played
to the end once per world by the clairvoyant bot on that world's map, chance drawn at random (common
seeds for every candidate). The candidate with the best total return is played; ties go to the
deducer's choice. Worlds are carried from one decision to the next while they agree with what is
seen and topped up with fresh ones. Its first Path is weighed only among the start Paths least likely to be a
Skull (``first_path``): paired, 100 games a map of fauna-1..4 at budget 2, game seed 7 50.5% -> 59.2% (fauna-1 48 ->
67, fauna-2 46 -> 56, fauna-3 72 -> 69, fauna-4 36 -> 45), game seed 11 49.0% -> 58.8%, both with the odds of
sampler seed 0 (the one the bot uses); the odds of so early a board move with the sampler's seed, and with seeds 1,
2 and 3 game seed 7 gave 55.0%, 55.0% and 52.0% (mean over seeds 0 to 3 55.3%, against 50.5%). The scout, whose
search starts late, gained nothing from the rule over sampler seeds and goes without it (``scout``). On the
deducer rather than the heuristic (``oracle.AimedDeducer``, eighth session of 2026-12-05), the same games, budget 2,
with the rule: game seed 7 59.2% -> 65.5%, seed 11 58.8% -> 63.2%, at the same 2.0 games per CPU-second.

``budget``: worlds per explore decision (``DEFAULT_BUDGET``); the search costs ``budget`` times the
candidates rollouts per explore. Without a world (none consistent was found) it plays the deducer's
choice and counts it in ``fallbacks``. Seeded by its RNG: same seed, same play.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from mapgen.engine.bots.oracle import AimedDeducer, rollout_search, turn_key
from mapgen.engine.deduce import solver_for
from mapgen.engine.infostate import carried, world_on, world_view
from mapgen.engine.steps import Step
from mapgen.solving.solve import NoCompletion, Solver

if TYPE_CHECKING:
    from mapgen.solving.solve import _Slot  # what Solver.session returns

DEFAULT_BUDGET = 2
SAMPLE_BUDGET = 0.5  # deterministic seconds (SAT propagations) for one decision's fresh worlds


class PlannerBot(AimedDeducer):
    """The deducer, whose explores are chosen by rollouts on worlds drawn from what it knows."""

    name = "planner"
    decides_on = "infostate"  # play_game hands it information_state(state, player)
    first_path_by_odds = True  # its first Path off the likeliest Skulls (``first_path``)

    def __init__(self, rng: random.Random, budget: int | None = None):
        super().__init__(rng)
        self.budget = budget or DEFAULT_BUDGET
        self.search_rng = random.Random(rng.randrange(1 << 30))
        self.worlds: list = []
        self._table: object | None = None  # the table of the game being played
        self._solver: Solver | None = None  # its rules' solver, and this game's private session of it
        self._session: _Slot | None = None
        self.searches = 0
        self.rollouts = 0
        self.departures = 0
        self.fallbacks = 0
        self.resampled = 0

    def step(self, info) -> int:
        obs = info.obs
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        if obs.step[0] != Step.MAIN:
            return super().step(obs)
        aim = self.aim
        if aim is not None and aim[0] == turn_key(obs) and aim[1] in legal:
            return super().step(obs)
        return self._searched_step(info, obs)

    def _search(self, info, obs, cells: list[int]) -> int:
        worlds = self._worlds(info)
        if not worlds:
            self.fallbacks += 1
            return cells[0]
        self.searches += 1
        rng = self.search_rng
        pairs = [world_view(w) for w in worlds]
        seeds = [rng.randrange(1 << 30) for _ in pairs]
        best, played = rollout_search(pairs, seeds, obs.player, cells, turn_key(obs))
        self.rollouts += played
        if best != cells[0]:
            self.departures += 1
        return best

    def _worlds(self, info) -> list:
        """``budget`` worlds at this decision: the earlier ones carried forward by the actions since
        (dropped when they contradict what the player saw), topped up with fresh ones: completions
        of the seen cells from ``Solver.sample`` (a private session per game, a deterministic budget),
        the game so far replayed onto each (``infostate.extend``: hidden cards redrawn, kept only when
        every observation matches)."""
        rng = self.search_rng
        if self._table is not info.table:
            self._table, self.worlds = info.table, []
            self._solver = solver_for(info.table.reference).solver  # the rules the game's bots reason with
            self._session = self._solver.session(info.known.briefing)
        solver = self._solver
        assert solver is not None  # made with the table
        kept = carried(self.worlds, info, rng)
        want = self.budget - len(kept)
        if want > 0:
            try:
                drawn = solver.sample(
                    info.known, want, SAMPLE_BUDGET, seed=rng.randrange(1 << 30), session=self._session
                )
            except NoCompletion:  # (SolveTimeout: the wall clock's safety net passed, never fewer worlds in silence)
                drawn = []
            for cells in drawn:
                world = world_on(info, cells, solver.chapter, rng)
                if world is not None:
                    kept.append(world)
                    self.resampled += 1
        self.worlds = kept
        return kept
