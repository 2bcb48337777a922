"""The ``ismcts`` bot: OpenSpiel's Information Set MCTS on worlds resampled from what the player knows.

At each decision with a choice, ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` runs ``budget``
simulations. Each starts from a world drawn from the player's information state
(``mapgen.engine.infostate``: a completion of the revealed cells, hidden cards redrawn, the game so far
replayed onto it), grows the tree over information states, and values a new node by one rollout of
the ``heuristic`` bot (every player) to the end of the game. The heuristic also gives the prior: its
own choice gets 0.6, and at a main step the search weighs only its choice and the ``ALTERNATIVES``
cells it values next (a budget of a few dozen simulations cannot weigh thirty actions); children are
expanded in the prior's order and chosen by PUCT. The heuristic's choice is played unless another
action, visited at least a quarter of the budget, beats its mean return by ``MARGIN`` (``choose``). The bot is handed an ``InfoState`` (``decides_on = "infostate"``), never the state: the worlds
are its only view of what it cannot see. Worlds are kept between decisions (each is carried forward
by replaying the new actions, and dropped when it contradicts them), ``WORLDS`` of them at a time.

Needs the optional extra ``open-spiel`` (``pip install ".[openspiel]"``). Seeded by its RNG: same
seed, same play.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import numpy as np

from mapgen.engine import actions as A
from mapgen.engine.bots.common import between
from mapgen.engine.bots.heuristic import HeuristicBot
from mapgen.engine.infostate import carry
from mapgen.engine.observation import observe
from mapgen.engine.play import play_game
from mapgen.engine.steps import Step

if TYPE_CHECKING:
    from mapgen.engine.openspiel import CorpsGame

DEFAULT_BUDGET = 16
WORLDS = 8  # worlds kept per decision (the simulations share them)
UCT_C = 1.0  # PUCT's constant; returns are 0 for a loss and 1 to 2 for a win
ALTERNATIVES = 3  # cells weighed besides the heuristic's choice at a main step
PRIOR_BEST = 0.6  # the heuristic's choice's share of the prior (the rest shared by the alternatives)
SMALL = 4  # decisions with at most this many legal actions weigh them all
MARGIN = 1.0  # standard errors by which another action's mean return must beat the heuristic's choice
EVIDENCE = 0.25  # ... with at least this share of the simulations


def candidates(obs, bot: HeuristicBot) -> list[tuple[int, float]]:
    """The actions the search weighs, with their prior: the heuristic's choice (first, with the larger share of the prior) and,
    at the main step, the ``ALTERNATIVES`` cells it values most after it; every legal action of a
    small decision (``SMALL`` or fewer). The heuristic's choice comes first, with ``PRIOR_BEST``."""
    la = obs.legal
    best = bot.step(obs)
    if len(la) <= SMALL:
        others = [a for a in la if a != best]
    else:
        others = []
        explores = between(la, A.EXPLORE, A.DISCARD) if obs.step[0] == Step.MAIN else []
        if explores:
            need = bot.needs(obs)
            lewis = obs.lewis_on or (obs.game.characters[obs.current] == "Lewis" and "Lewis" not in obs.exhausted)
            values = bot._cell_values(obs, need, explores, bot.value_vector(obs, need, lewis))
            ranked = sorted(zip(values, explores), key=lambda vc: (-vc[0], vc[1]))
            others = [c for _, c in ranked if c != best][:ALTERNATIVES]
    if not others:
        return [(best, 1.0)]
    share = (1 - PRIOR_BEST) / len(others)
    return [(best, PRIOR_BEST)] + [(a, share) for a in others]


class _HeuristicEvaluator:
    """OpenSpiel's evaluator interface: ``evaluate`` plays the heuristic to the end, ``prior`` gives the
    candidates (``candidates``): the search expands only those."""

    def __init__(self, rng: random.Random, traitor: bool):
        self.rng = rng
        self.traitor = traitor

    def evaluate(self, state):
        from mapgen.engine.openspiel import (  # deferred: mapgen.engine.openspiel imports pyspiel, an optional extra
            engine_returns,
        )

        s = state.inner.clone()
        seed = self.rng.randrange(1 << 30)
        bots = [HeuristicBot(random.Random(seed + p)) for p in range(s.game.n)]
        play_game(s, bots, random.Random(seed))
        return np.array(engine_returns(s, self.traitor))

    def prior(self, state):
        s = state.inner
        bot = HeuristicBot(random.Random(self.rng.randrange(1 << 30)))
        return candidates(observe(s, s.current_player()), bot)


def _search_class():
    """OpenSpiel's ISMCTSBot, expanding only the prior's actions, most likely first (progressive in
    the prior's order instead of OpenSpiel's random order over every legal action)."""
    from open_spiel.python.algorithms import ismcts  # deferred: open_spiel, an optional extra, only for the ismcts bot

    class PriorOrderISMCTS(ismcts.ISMCTSBot):
        def check_expand(self, node, legal_actions):
            for action, _ in sorted(node.prior_map.items(), key=lambda ap: -ap[1]):  # stable: the heuristic's first
                if action not in node.child_info:
                    return action
            return -1  # pyspiel.INVALID_ACTION: every candidate is expanded

    return PriorOrderISMCTS


def require_openspiel() -> None:
    """ImportError with the way to install it when OpenSpiel (PyPI ``open-spiel``) is missing."""
    try:
        import pyspiel  # noqa: F401  # deferred: open_spiel, an optional extra: this checks it is installed
    except ImportError:
        raise ImportError(
            'the ismcts bot needs OpenSpiel: pip install ".[openspiel]" in the mapgen folder (PyPI open-spiel)'
        ) from None


class IsmctsBot:
    """Information Set MCTS over resampled worlds, the heuristic as rollout and prior (see the module docstring)."""

    name = "ismcts"
    decides_on = "infostate"  # play_game hands it information_state(state, player)

    def __init__(self, rng: random.Random, budget: int | None = None):
        require_openspiel()
        self.rng = rng
        self.budget = budget or DEFAULT_BUDGET
        self.worlds: list = []
        self.resampled = 0  # fresh worlds drawn
        self.carried = 0  # worlds carried forward from an earlier decision
        self.fallbacks = 0  # decisions taken by the heuristic (no consistent world found)
        self._game: CorpsGame | None = None  # the OpenSpiel game of the worlds (made on the first search)
        self._table: object | None = None  # the table of the game being played
        self._fallback = HeuristicBot(rng)

    def _worlds(self, info) -> list:
        kept, fresh = carry(self.worlds, info, self.rng, WORLDS)
        self.carried += len(kept) - fresh
        self.resampled += fresh
        self.worlds = kept
        return kept

    def step(self, info) -> int:
        legal = info.obs.legal
        if len(legal) == 1:
            return legal[0]
        if self._table is not info.table:
            self._table, self._game, self.worlds = info.table, None, []
        worlds = self._worlds(info)
        if not worlds:
            self.fallbacks += 1
            return self._fallback.step(info.obs)
        from open_spiel.python.algorithms import (  # deferred: open_spiel, an optional extra, only for the ismcts bot
            ismcts,
        )

        from mapgen.engine.openspiel import (  # deferred: mapgen.engine.openspiel imports pyspiel, an optional extra
            CorpsGame,
            CorpsState,
        )

        if self._game is None:
            g = worlds[0].state.game
            mode = getattr(g.chapter, "mode", "coop")
            self._game = CorpsGame({"players": g.n, "mode": mode}, engine=g)
        game = self._game
        traitor = game.traitor
        pick = random.Random(self.rng.randrange(1 << 30))

        def resampler(state, player):
            return CorpsState(game, worlds[pick.randrange(len(worlds))].clone())

        search = _search_class()(
            game,
            _HeuristicEvaluator(random.Random(self.rng.randrange(1 << 30)), traitor),
            UCT_C,
            self.budget,
            random_state=np.random.RandomState(self.rng.randrange(1 << 30)),
            child_selection_policy=ismcts.ChildSelectionPolicy.PUCT,
        )
        search.set_resampler(resampler)
        root = CorpsState(game, worlds[0].clone())
        search.get_policy(root)
        return int(choose(search._root_node, self.budget))


def choose(node, budget: int) -> int:
    """The action to play after a search: the prior's first action (the heuristic's choice) unless
    another was visited at least ``EVIDENCE`` of the budget and its mean return beats it by ``MARGIN``
    (a single rollout is a win or a loss: deviating on one is deviating on noise)."""
    first = next(iter(node.prior_map))  # the heuristic's choice (``candidates`` puts it first)
    info = node.child_info
    if first not in info or info[first].visits == 0:
        return max(info, key=lambda a: (info[a].visits, -a))
    h = info[first]
    best, best_gain = first, 0.0
    for a, c in sorted(info.items()):
        if a == first or c.visits < max(2, EVIDENCE * budget):
            continue
        # a win returns 1 to 2, a loss 0: a standard deviation of about 0.7 per rollout
        gain = c.value() - h.value() - MARGIN * 0.7 * (1 / c.visits + 1 / h.visits) ** 0.5
        if gain > best_gain:
            best, best_gain = a, gain
    return best
