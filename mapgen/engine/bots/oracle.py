"""The ``oracle`` bot: a search with the map in view, the playtests' upper bound.

It is handed the state itself (``decides_on = "state"``: ``play_game`` gives it the ``State``, which
holds the map and the cards dealt, never a deck's order: a draw is uniform over the cards left when it
is made). At each decision that matters it runs a rollout search (Bertsekas's rollout algorithm, a
one-step Monte Carlo lookahead): every candidate action is tried on ``budget`` clones of the state,
each played to the end by the ``clairvoyant`` bot (the heuristic with the map in view), the chance
outcomes of each rollout drawn from the oracle's own seeded RNG; the candidate with the best mean
return is played. Rollout k of every candidate draws from the same seed (common random numbers), so
candidates are compared on the same luck as far as their games run alike.

The candidates are those of ``ismcts.candidates`` with the clairvoyant bot: its own choice first and,
when it is about to explore, the ``ALTERNATIVES`` cells it values next (a candidate cell is played as
the clairvoyant's whole turn aimed at that cell: Lewis, Collins, a guess, then the explore); every
legal action of a small decision (``SMALL`` or fewer). Ties go to the clairvoyant's choice, so the
search only departs from it on evidence.

What it knows: the map, the cards dealt (the Challenge Row, a Maldonado hand, face-down setup cards:
whatever the state holds). What it does not: every card still to come, which is drawn at random in its
rollouts as in the game. Seeded by its RNG: same seed, same play. ``budget`` rollouts per candidate
(``DEFAULT_BUDGET``).
"""

from __future__ import annotations

import random

from mapgen.engine import actions as A
from mapgen.engine.bots.clairvoyant import ClairvoyantBot
from mapgen.engine.bots.common import between
from mapgen.engine.observation import observe
from mapgen.engine.play import play_game
from mapgen.engine.steps import Step
from mapgen.model import Map

DEFAULT_BUDGET = 4
ALTERNATIVES = 3  # cells weighed besides the clairvoyant's choice when it explores
SMALL = 4  # decisions with at most this many legal actions weigh them all
MAX_ROLLOUT_STEPS = 20000


class AimedClairvoyant(ClairvoyantBot):
    """The clairvoyant bot, whose explore this turn may be fixed to one cell (``aim``)."""

    def __init__(self, rng: random.Random, map: Map):
        super().__init__(rng, map)
        self.aim: tuple | None = None  # (turn key, cell): explore that cell on that turn

    def best_cell(self, obs, explores: list[int], need) -> int:
        aim = self.aim
        if aim is not None and aim[0] == turn_key(obs) and aim[1] in explores:
            return aim[1]
        return super().best_cell(obs, explores, need)


def turn_key(obs) -> tuple:
    """One explore of one turn: it changes when a cell is explored (a right Tracking Guide guess explores again)."""
    return (obs.turn, obs.current, obs.n_explored, obs.banned)


class OracleBot:
    """Rollout search on the true state (see the module docstring): an upper bound, not a fair player."""

    name = "oracle"
    decides_on = "state"  # play_game hands it the State

    def __init__(self, rng: random.Random, map: Map, budget: int | None = None):
        self.rng = rng
        self.map = map
        self.budget = budget or DEFAULT_BUDGET
        self.base = AimedClairvoyant(random.Random(rng.randrange(1 << 30)), map)
        self.searches = 0  # decisions searched
        self.rollouts = 0  # games played to the end inside the search
        self.departures = 0  # searched decisions where another action than the clairvoyant's was played

    def step(self, state) -> int:
        obs = observe(state, state.current_player())
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        assert obs.step is not None  # asked at a decision
        base = self.base
        aim = base.aim
        if obs.step[0] == Step.MAIN and aim is not None and aim[0] == turn_key(obs) and aim[1] in legal:
            return base.step(obs)  # this turn's explore is chosen: play the turn aimed at it
        first = base.step(obs)
        cells = self._cells(obs, first)
        if cells:
            cell = self._search(state, obs, cells, aimed=True)
            base.aim = (turn_key(obs), cell)
            return base.step(obs)
        if len(legal) <= SMALL:
            others = [a for a in legal if a != first]
            return self._search(state, obs, [first, *others], aimed=False)
        return first

    def _cells(self, obs, first: int) -> list[int]:
        """At a main step where the clairvoyant bot is about to explore: its cell first, then the cells
        it values next (``ALTERNATIVES``); [] when it is not exploring now or has no other cell."""
        if obs.step[0] != Step.MAIN:
            return []
        explores = between(obs.legal, A.EXPLORE, A.DISCARD)
        if len(explores) < 2:
            return []
        base = self.base
        need = base.needs(obs)
        chosen = base.best_cell(obs, explores, need)
        if first != chosen and first not in (A.LEWIS, A.COLLINS) and not A.GUESS <= first < A.LEWIS:
            return []  # a free action first (a Fire, a Destiny card, ...): search when it explores
        lewis = obs.lewis_on or (obs.game.characters[obs.current] == "Lewis" and "Lewis" not in obs.exhausted)
        values = base._cell_values(obs, need, explores, base.value_vector(obs, need, lewis))
        ranked = sorted(zip(values, explores), key=lambda vc: (-vc[0], vc[1]))
        return [chosen] + [c for _, c in ranked if c != chosen][:ALTERNATIVES]

    def _search(self, state, obs, candidates: list[int], aimed: bool) -> int:
        """The candidate with the best mean return over ``budget`` rollouts each (``rollout_search``)."""
        self.searches += 1
        seeds = [self.rng.randrange(1 << 30) for _ in range(self.budget)]
        key = turn_key(obs) if aimed else None
        worlds = [(state, self.map)] * len(seeds)
        best, played = rollout_search(worlds, seeds, obs.player, candidates, key)
        self.rollouts += played
        if best != candidates[0]:
            self.departures += 1
        return best


def rollout_search(worlds: list, seeds: list[int], player: int, candidates: list[int], key) -> tuple[int, int]:
    """The candidate with the best total return over the rollouts, ties to the first; and how many rollouts were played.

    Rollout k plays every candidate from ``worlds[k]`` (a (state, map) pair: the true state for the
    oracle, a world drawn from what the player knows for the planner) with chance drawn from
    Random(seeds[k]): common random numbers. ``key`` (a ``turn_key``): the candidates are cells, each
    played as the clairvoyant's whole turn aimed at it; None: they are actions, applied first.
    Rollouts go in rounds (one per candidate); after half of them, a search where every candidate
    lost every rollout, or won every one, stops (the decision is lost or won whatever it is; the
    scores so far break the tie)."""
    totals = [0.0] * len(candidates)
    wins = [0] * len(candidates)
    played = 0
    n = len(seeds)
    for r, ((state, m), seed) in enumerate(zip(worlds, seeds), 1):
        for k, a in enumerate(candidates):
            v = rollout(state, m, player, a, key, seed)
            played += 1
            totals[k] += v
            wins[k] += v > 0
        if 2 * r >= n and r < n and (max(wins) == 0 or min(wins) == r):
            break
    best = 0
    for k in range(1, len(candidates)):
        if totals[k] > totals[best] + 1e-9:
            best = k
    return candidates[best], played


def rollout(state, m: Map, player: int, action: int, key, seed: int) -> float:
    """One game to the end from ``state`` after ``action`` (with ``key``: the turn aimed at that cell),
    the clairvoyant bot on map ``m`` for every player, chance drawn from Random(seed). A win is worth 1
    plus a thousandth of its score (wins first, then better wins), a loss 0; in Hidden Traitor mode the
    Traitor (of this world) is worth 1 when the Traitor wins."""
    s = state.clone()
    bots = [AimedClairvoyant(random.Random(seed + q), m) for q in range(s.game.n)]
    if key is not None:
        bots[player].aim = (key, action)
    else:
        s.apply_action(action)
    play_game(s, bots, random.Random(seed), max_steps=MAX_ROLLOUT_STEPS)
    chapter = s.game.chapter
    if getattr(chapter, "mode", "coop") == "traitor" and chapter.traitor(s) == player:
        return 1.0 if s.outcome == "traitor" else 0.0  # Hidden Traitor mode: the Traitor's own side
    return (1.0 + s.score / 1000) if s.outcome == "win" else 0.0
