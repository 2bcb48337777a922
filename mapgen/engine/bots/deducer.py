"""The ``deducer`` bot: the heuristic, with each reachable cell's possible terrains from exact deduction.

The one Solver on the chapter's rules (``mapgen/engine/deduce.py``, asked through ``solver_for(chapter).possible``)
on the observation's ``known_map()``, within a solver budget per game. The answers are exact: read from the
proofs every game on the briefing keeps (completions and cores), else solved; narrowed weights live in the
heuristic's weight cache, dropped for a cell whose answer changes.

Where its time goes (fourteenth session, 2026-12-06; py-spy, fauna-7, 200 games in one process): ``possible`` 36%
of the games' CPU time, its SAT calls 23 of those points (their work is counted against the deterministic budget: a
cheaper way to the same answers would spend another budget, and so play otherwise); the compiled weights and cell
values 12% (numba's dispatch 0.5 us of a 5.0 us ``kernels.weights`` call: its entry point called directly would save
0.3%); the rest the engine's and the heuristic's steps (``oracle``'s notes time them). No change that keeps the
games was found worth 2%.

Compiling those steps with mypyc (nineteenth session, 2026-12-07: game, main_step, explore, observation, play,
challenges, effects, actions and the heuristic's modules, every game the same) made them slower: 0.95x the deducer's
games per CPU second pooled over the 8 Fauna maps, 0.84x the heuristic's, 0.92x the scout's, 0.86x the oracle's
(alternating runs, one machine). ``state`` and ``obs`` are untyped on purpose (a State, an Observation, an InfoState
or a rules view go through the same functions), and on such values mypyc's generic attribute calls lose to Python
3.11's specialising interpreter; typed native classes run a micro-benchmark of the same reads 29x faster, but
``State.clone``'s ``__dict__`` copy, ``observe``'s ``object.__new__`` and the duck typing would have to go first.
"""

from __future__ import annotations

import random

from mapgen.engine.bots.common import NT
from mapgen.engine.bots.heuristic import HeuristicBot
from mapgen.engine.deduce import solver_for


class DeducerBot(HeuristicBot):
    """The heuristic, with each reachable cell's possible terrains from exact deduction.

    A cell that can hold only one terrain in every completion of the seen cells is known exactly;
    otherwise the heuristic's local weights are kept for the terrains still possible and zeroed for
    the others. The solver gets ``budget`` seconds per game; after that the last answers are kept.
    """

    name = "deducer"

    def __init__(self, rng: random.Random, solver=None):
        super().__init__(rng)
        self.solver = solver
        self.solver_calls = 0
        self.spent = 0.0  # deterministic solver time used in this game (SAT propagations)
        self._asked: tuple[int, int] | None = None  # (id of the game, cells seen) at the last question
        # the last best_cell's game (its id), seen cells (a copy) and explores (a copy)
        self._key_gid: int | None = None
        self._key_seen = b""
        self._key_explores: list[int] = []
        self._possible: dict[int, frozenset] = {}

    #: Ask the solver once this many cells are seen: before that nearly every terrain is possible
    #: everywhere (the heuristic's local rules say as much) and the questions are the slowest.
    min_seen_share = 0.37  # 18 of 49 cells (9 of Training's 25)

    #: Ask again after this many newly seen cells, or when most reachable cells have no answer yet.
    #: An older answer stays sound: a cell's possible terrains only shrink as cells are revealed.
    refresh = 2
    #: Solver time per game (deterministic seconds: SAT propagations, so reproducible); then the bot plays on
    #: its last answers and the local rules. (Not ``budget``: the search bots built on it count worlds in that.)
    solver_budget = 0.3

    def best_cell(self, obs, explores: list[int], need) -> int:
        seen = obs.seen
        gid = id(obs.game)
        # the last call's key (the game, the seen cells, the explores) compared in place: no key tuple, no copies
        if gid != self._key_gid or seen != self._key_seen or explores != self._key_explores:
            new_seen = gid != self._key_gid or seen != self._key_seen
            self._key_gid, self._key_explores = gid, list(explores)
            if new_seen:
                self._key_seen = bytes(seen)
            self._ask(obs, explores, new_seen)
        return super().best_cell(obs, explores, need)

    def _ask(self, obs, explores: list[int], new_seen: bool) -> None:
        """The answers for this turn's explores: the last ones still unrevealed, and the solver's when it is time."""
        n_seen = sum(obs.seen)
        gid = id(obs.game)
        if self._asked is None or self._asked[0] != gid:
            self._possible, self._asked = {}, (gid, -99)
        possible = self._possible
        if new_seen:  # the cells seen since are dropped (nothing else changes while ``seen`` does not)
            terrain = obs.terrain
            possible = {c: ts for c, ts in possible.items() if terrain[c] < 0}
        unanswered = sum(1 for c in explores if c not in possible)
        asked = self._asked[1]
        again = n_seen - asked >= self.refresh or (2 * unanswered > len(explores) and n_seen > asked)
        if n_seen >= self.min_seen_share * len(obs.seen) and again:
            if self.solver is None:
                self.solver = solver_for(obs.game.reference)  # the rules the game's bots reason with (--rules)
            limit = min(self.solver.time_limit, self.solver_budget - self.spent)
            # a cell known to hold one terrain keeps it: the completions of a state with more cells seen are
            # some of those of the state it was answered on (seen cells are never hidden again), so the exact
            # answer stays that terrain (half the cells asked about on fauna-7): the solver is asked about the others
            ask = [c for c in explores if len(possible.get(c, ())) != 1]
            fresh = {}
            if limit > 0.01 and ask:
                before = self.solver.spent
                fresh = self.solver.possible(obs.known_map(), ask, time_limit=limit)
                self.spent += self.solver.spent - before
                self.solver_calls += 1
            if fresh:
                if possible is self._possible:
                    possible = dict(possible)
                cache = self._weight_cache  # the heuristic's weights: those of a cell with a new answer go
                for c, ts in fresh.items():
                    if possible.get(c) != ts:
                        cache.pop(c, None)
                possible.update(fresh)
            self._asked = (gid, n_seen)  # after a timeout too: ask again later
        self._possible = possible

    def _possible_for(self, obs) -> dict[int, frozenset]:
        return self._possible

    def _local_weights(self, obs, cell: int, known: list[int]) -> list[float]:
        """The heuristic's weights of the cell (cached with it), narrowed to the terrains it can still hold; a
        cell that can hold one terrain only is that terrain, without the heuristic's reading (about a third
        of the cells asked about on Fauna)."""
        possible = self._possible_for(obs).get(cell) if known[cell] < 0 else None
        if possible and len(possible) == 1:
            w = [0.0] * NT
            w[next(iter(possible)).index] = 1.0
            return w
        base = super()._local_weights(obs, cell, known)
        return self._narrow(obs, base, possible) if possible else base

    def _narrow(self, obs, base: list[float], possible: frozenset) -> list[float]:
        """The local odds kept for the possible terrains only (two or more)."""
        w = [0.0] * NT
        geo = self._geo(obs.game)
        for t in possible:
            k = t.index
            w[k] = base[k] or 0.01 * (geo.prior[k] or 1.0)
        total = sum(w)
        return [v / total for v in w]
