"""The ``scout`` bot: a fast fair player that plans on worlds from a pool of sampler draws.

It never reads the hidden map: it sees its observation and, at the few decisions it searches, its
information state (``decides_on = "infostate_when"``: ``play_game`` hands it the ``InfoState`` when
``wants_infostate(obs)`` says so, else the observation, so the referee's tracking of what it saw is
paid only up to its last searched decision).

**The pool.** Once per process and start state (``pool_for``: the start is the same for every game on
a map), completions of the start state are drawn by the block heat-bath sampler
(``mapgen.solving.sampler.run_chains``), its ``POOL_CHAINS`` chains started from a SAT solver's diverse
completions in a private session (``Solver.sample``) and run ``POOL_BURN`` + ``POOL_SWEEPS`` sweeps:
seeded, budgeted in work, never the clock, so every process makes the same pool. A game keeps the
draws that agree with every cell and Hill number it has seen (``_follow``), as the web's pool of
draws does (``mapgen/web/draws.py``): if the pool is uniform over the start's completions, the
agreeing draws are uniform over the current state's. No solver call per decision.

**Weights.** An unseen cell's terrain weights are the agreeing draws' shares of it, smoothed by
``PRIOR`` pseudo-draws of the heuristic's local weights; with no agreeing draw left (after about three
reveals on Fauna: each reveal keeps a few tenths of the draws), the heuristic's own weights.

**Search.** At its first ``SEARCHES`` explore decisions with a choice (the first Paths), it weighs
the heuristic's cell and the ``ALTERNATIVES`` cells it values next as the planner does
(``mapgen/engine/bots/planner.py``), on ``budget`` agreeing draws instead of a solver's: each made a
world by replaying the game so far onto it (``infostate.world_on``; a world that contradicts what the
player saw is dropped), every candidate played to the end once per world by the clairvoyant bot of
that world (``oracle.rollout_search``: common seeds, ties to the heuristic's choice). Every other
decision is the heuristic's.

``budget``: worlds per searched decision (``DEFAULT_BUDGET``); the search costs ``budget`` times the
candidates rollouts per searched decision. Seeded by its RNG and ``POOL_SEED``: same seed, same games.

Measured (issue 41, ``python -m bench engine --bots scout``): about 10 games per CPU-second on Fauna,
the pool counted in; its win rate is the heuristic's within the intervals, not the planner's. Why:
the planner's strength needs rollouts at every explore (about 120 full games a game at budget 2), and
the pool's draws run out after a few reveals (the chains' draws are correlated, and refilling them
by chains from the agreeing draws cost 30-80 ms a game, more than the speed goal allows).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import numpy as np

from mapgen.engine import actions as A
from mapgen.engine.bots.common import between, share_geometry
from mapgen.engine.bots.heuristic import HeuristicBot
from mapgen.engine.bots.oracle import ALTERNATIVES, rollout_search, turn_key
from mapgen.engine.steps import Step
from mapgen.terrain import TERRAINS, Terrain

if TYPE_CHECKING:
    from mapgen.solving.solve import Solver

DEFAULT_BUDGET = 2
#: explore decisions searched per game (the first ones with a choice)
SEARCHES = 2
#: the pool: chains, burn-in and recorded sweeps per chain, the SAT budget for the chains' starts, the seed
POOL_CHAINS, POOL_BURN, POOL_SWEEPS = 16, 4, 8
POOL_SAT_BUDGET = 2.0  # deterministic seconds (SAT propagations)
POOL_SEED = 0
#: pseudo-draws of the heuristic's local weights mixed into the pool's shares
PRIOR = 1.0
#: pools kept per process
POOLS_KEPT = 32


class Pool:
    """Completions of one start state: ``rows`` int8 [draws, cells] of terrain numbers (into ``index``:
    terrain number -> ``Terrain.index``), ``hills`` int8 [draws, cells] (each Hill's number, -1 elsewhere)."""

    __slots__ = ("back", "hills", "index", "rows", "terrains")

    def __init__(self, rows: np.ndarray, hills: np.ndarray, index: np.ndarray):
        self.rows = rows
        self.hills = hills
        self.index = index
        self.back = {int(k): n for n, k in enumerate(index)}  # Terrain.index -> terrain number
        self.terrains = tuple(TERRAINS[int(k)] for k in index)

    def completion(self, j: int) -> tuple[Terrain, ...]:
        """Draw ``j`` as a terrain per cell."""
        terrains = self.terrains
        return tuple(terrains[k] for k in self.rows[j].tolist())


_POOLS: dict = {}


def _hill_numbers(rows: np.ndarray, terrains, board, counted) -> np.ndarray:
    """Each draw's Hill numbers (the count of ``counted`` in the Hill's row and column), -1 off the Hills."""
    out = np.full(rows.shape, -1, dtype=np.int8)
    if counted is None or not len(rows):
        return out
    ix = {t: k for k, t in enumerate(terrains)}
    hill, cnt = ix.get(Terrain.HILL), ix.get(counted)
    if hill is None:
        return out
    is_counted = (rows == cnt).astype(np.int16) if cnt is not None else np.zeros(rows.shape, np.int16)
    for i in range(rows.shape[1]):
        r, c = board.rc(i)
        line = [j for j in (*board.rows[r], *board.cols[c]) if j != i]
        n = is_counted[:, line].sum(axis=1)
        at = rows[:, i] == hill
        out[at, i] = n[at]
    return out


def _draws(chapter, known, starts, sweeps: int, burn: int, seed: int):
    """Chains from ``starts`` (completions of ``known``): the draws int8 [n, cells] and the program's terrains."""
    from mapgen.solving import sampler  # deferred: numba's kernels

    prog = sampler.compile_program(chapter, known)
    xs = [sampler.encode(prog, w) for w in starts]
    draws, _ = sampler.run_chains(prog, xs, sweeps=sweeps, burn=burn, seed=seed, threads=1)
    return draws.reshape(-1, draws.shape[-1]), prog.terrains


def _pool(chapter, rows: np.ndarray, terrains, board) -> Pool:
    index = np.asarray([t.index for t in terrains], dtype=np.int64)
    return Pool(rows, _hill_numbers(rows, terrains, board, chapter.counted), index)


def pool_for(solver, known) -> Pool | None:
    """The pool of ``known`` (a start state) under ``solver``'s rules: made once per process, then shared."""
    from mapgen.solving.sampler import SamplerError
    from mapgen.solving.solve import NoCompletion, SolveTimeout

    key = (id(solver), known.briefing, tuple(known.unrevealed()), tuple(sorted(known.hills.items())))
    if key in _POOLS:
        return _POOLS[key]
    if len(_POOLS) >= POOLS_KEPT:
        _POOLS.clear()
    pool = None
    try:
        starts = solver.sample(
            known, POOL_CHAINS, POOL_SAT_BUDGET, seed=POOL_SEED, session=solver.session(known.briefing)
        )
        if starts:
            starts = [starts[c % len(starts)] for c in range(POOL_CHAINS)]
            rows, terrains = _draws(solver.chapter, known, starts, POOL_SWEEPS, POOL_BURN, POOL_SEED)
            pool = _pool(solver.chapter, rows, terrains, known.board)
    except (SolveTimeout, NoCompletion, SamplerError):
        pool = None
    _POOLS[key] = pool
    return pool


class ScoutBot(HeuristicBot):
    """The heuristic on the pool's odds, its first Paths searched on pooled worlds (see the module docstring)."""

    name = "scout"
    decides_on = "infostate_when"  # play_game hands it the InfoState when wants_infostate(obs), else obs

    def __init__(self, rng: random.Random, budget: int | None = None):
        super().__init__(rng)
        self.budget = budget or DEFAULT_BUDGET
        self.search_rng = random.Random(rng.randrange(1 << 30))
        self.aim: tuple | None = None  # (turn key, cell) chosen by the search
        self.pool: Pool | None = None  # the shared pool of this game's start state
        self.agree: np.ndarray | None = None  # indices of the draws agreeing with what is seen
        self._followed: tuple = (b"", -1)  # (seen, Hills seen) the agreeing draws were filtered for
        self._solver: Solver | None = None  # the rules the game's bots reason with
        self.searches = 0
        self.rollouts = 0
        self.departures = 0
        self.worlds_rejected = 0

    # ----- the pool -----
    def _follow(self, obs) -> bool:
        """Keep only the draws that agree with what is seen; whether the agreeing draws changed."""
        seen = obs.seen
        hills = obs.hills
        if self._followed[0] == seen and self._followed[1] == len(hills):
            return False
        if self.pool is None:
            if self.agree is not None:
                return False  # no pool for this game
            from mapgen.engine.deduce import solver_for  # deferred: the solver, on first use

            self._solver = solver_for(obs.game.reference).solver  # the rules the game's bots reason with
            self.pool = pool_for(self._solver, obs.known_map())
            if self.pool is None:
                self.agree = np.zeros(0, dtype=np.int64)
                return False
            self.agree = np.arange(len(self.pool.rows))
            self._followed = (bytes(len(seen)), 0)
        pool = self.pool
        agree = self.agree
        assert agree is not None
        before, _ = self._followed
        terrain = obs.terrain
        back = pool.back
        for c in range(len(seen)):
            if seen[c] and not before[c]:
                k = back.get(terrain[c])
                if k is None:
                    agree = agree[:0]
                    break
                agree = agree[pool.rows[agree, c] == k]
        for h, n in hills.items():  # every Hill again: a handful of comparisons
            agree = agree[pool.hills[agree, h] == n]
        changed = len(agree) > 0 or len(self.agree) > 0
        self.agree = agree
        self._followed = (bytes(seen), len(hills))
        return changed

    def _known(self, obs) -> list[int]:
        known = super()._known(obs)
        if self._follow(obs):
            self._weight_cache.clear()  # every unseen cell's shares changed
        return known

    def _local_weights(self, obs, cell: int, known: list[int]) -> list[float]:
        base = super()._local_weights(obs, cell, known)
        agree = self.agree
        if known[cell] >= 0 or agree is None or not len(agree) or self.pool is None:
            return base
        pool = self.pool
        counts = np.bincount(pool.rows[agree, cell], minlength=len(pool.index))
        n = len(agree)
        w = [PRIOR * b for b in base]
        for k, c in enumerate(counts.tolist()):
            if c:
                w[int(pool.index[k])] += c
        total = n + PRIOR
        return [v / total for v in w]

    # ----- the search -----
    def wants_infostate(self, obs) -> bool:
        """Whether this decision is searched (then ``play_game`` hands over the information state)."""
        if self.searches >= SEARCHES or obs.step is None or obs.step[0] != Step.MAIN or len(obs.legal) < 2:
            return False
        aim = self.aim
        if aim is not None and aim[0] == turn_key(obs) and aim[1] in obs.legal:
            return False
        return len(between(obs.legal, A.EXPLORE, A.DISCARD)) >= 2

    def best_cell(self, obs, explores: list[int], need) -> int:
        aim = self.aim
        if aim is not None and aim[0] == turn_key(obs) and aim[1] in explores:
            return aim[1]
        return super().best_cell(obs, explores, need)

    def step(self, x) -> int:
        info = x if hasattr(x, "obs") else None
        obs = info.obs if info is not None else x
        if info is None or len(obs.legal) == 1:
            return super().step(obs)
        first = super().step(obs)
        cells = self._cells(obs, first)
        if not cells:
            return first
        cell = self._search(info, obs, cells)
        self.aim = (turn_key(obs), cell)
        return super().step(obs)

    def _cells(self, obs, first: int) -> list[int]:
        """The heuristic's cell and the ``ALTERNATIVES`` it values next, when it is about to explore."""
        explores = between(obs.legal, A.EXPLORE, A.DISCARD)
        if len(explores) < 2:
            return []
        need = self.needs(obs)
        chosen = HeuristicBot.best_cell(self, obs, explores, need)
        if first != chosen and first not in (A.LEWIS, A.COLLINS) and not A.GUESS <= first < A.LEWIS:
            return []  # a free action first: search when it explores
        lewis = obs.lewis_on or (obs.game.characters[obs.current] == "Lewis" and "Lewis" not in obs.exhausted)
        values = self._cell_values(obs, need, explores, self.value_vector(obs, need, lewis))
        ranked = sorted(zip(values, explores), key=lambda vc: (-vc[0], vc[1]))
        return [chosen] + [c for _, c in ranked if c != chosen][:ALTERNATIVES]

    def _search(self, info, obs, cells: list[int]) -> int:
        from mapgen.engine.infostate import world_on, world_view  # deferred: the searched decisions only
        from mapgen.engine.observation import table

        self.searches += 1
        self._follow(obs)
        pool, agree = self.pool, self.agree
        if pool is None or agree is None or not len(agree) or self._solver is None:
            return cells[0]
        rng = self.search_rng
        order = agree.tolist()
        rng.shuffle(order)
        worlds: list = []
        for j in order:
            if len(worlds) >= self.budget:
                break
            w = world_on(info, pool.completion(j), self._solver.chapter, rng)
            if w is None:
                self.worlds_rejected += 1
                continue
            share_geometry(table(w.state.game), obs.game)  # the rollouts' bots: no per-world tables
            worlds.append(world_view(w))
        if not worlds:
            return cells[0]
        seeds = [rng.randrange(1 << 30) for _ in worlds]
        best, played = rollout_search(worlds, seeds, obs.player, cells, turn_key(obs))
        self.rollouts += played
        if best != cells[0]:
            self.departures += 1
        return best


__all__ = ["Pool", "ScoutBot", "pool_for"]
