"""The ``ismcts`` bot: OpenSpiel's Information Set MCTS on worlds resampled from what the player knows.

At each decision with a choice, ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` runs ``budget``
simulations. Each starts from a world drawn from the player's information state
(``mapgen.engine.infostate``: a completion of the revealed cells, hidden cards redrawn, the game so far
replayed onto it), grows the tree over information states, and values a new node by one rollout of
the ``heuristic`` bot (every player) to the end of the game; the heuristic's own choice gets half the
prior. The bot is handed an ``InfoState`` (``decides_on = "infostate"``), never the state: the worlds
are its only view of what it cannot see. Worlds are kept between decisions (each is carried forward
by replaying the new actions, and dropped when it contradicts them), ``WORLDS`` of them at a time.

Needs the optional extra ``open-spiel`` (``pip install ".[openspiel]"``). Seeded by its RNG: same
seed, same play.
"""

from __future__ import annotations

import random

from mapgen.engine.bots.heuristic import HeuristicBot

DEFAULT_BUDGET = 16
WORLDS = 8  # worlds kept per decision (the simulations share them)
UCT_C = 0.5  # returns are 0 for a loss and 1 to 2 for a win


class _HeuristicEvaluator:
    """OpenSpiel's evaluator interface: ``evaluate`` plays the heuristic to the end, ``prior`` favours its choice."""

    def __init__(self, rng: random.Random, traitor: bool):
        self.rng = rng
        self.traitor = traitor

    def evaluate(self, state):
        import numpy as np

        from mapgen.engine.play import play_game
        from mapgen.openspiel import engine_returns

        s = state.inner.clone()
        seed = self.rng.randrange(1 << 30)
        bots = [HeuristicBot(random.Random(seed + p)) for p in range(s.game.n)]
        play_game(s, bots, random.Random(seed))
        return np.array(engine_returns(s, self.traitor))

    def prior(self, state):
        from mapgen.engine.observation import observe

        s = state.inner
        if s.is_chance_node():
            return [(a - 1000, p) for a, p in s.chance_outcomes()]
        legal = s.legal_actions()
        best = HeuristicBot(random.Random(self.rng.randrange(1 << 30))).step(observe(s, s.current_player()))
        share = 0.5 / len(legal)
        return [(a, share + (0.5 if a == best else 0.0)) for a in legal]


class IsmctsBot:
    """Information Set MCTS over resampled worlds, the heuristic as rollout and prior (see the module docstring)."""

    name = "ismcts"
    decides_on = "infostate"  # play_game hands it information_state(state, player)

    def __init__(self, rng: random.Random, budget: int | None = None):
        self.rng = rng
        self.budget = budget or DEFAULT_BUDGET
        self.worlds: list = []
        self.resampled = 0  # fresh worlds drawn
        self.carried = 0  # worlds carried forward from an earlier decision
        self.fallbacks = 0  # decisions taken by the heuristic (no consistent world found)
        self._game = None
        self._table = None
        self._fallback = HeuristicBot(rng)

    def _worlds(self, info) -> list:
        from mapgen.engine.infostate import ResampleError, extend, resample

        kept = []
        for w in self.worlds:
            if (
                w.state.game.n == info.table.n
                and len(w.state.history) <= len(info.history)
                and extend(w, info, self.rng)
            ):
                kept.append(w)
        self.carried += len(kept)
        tries = 0
        while len(kept) < WORLDS and tries < 2 * WORLDS:
            tries += 1
            try:
                kept.append(resample(info, self.rng, tries=20, time_limit=5.0))
                self.resampled += 1
            except ResampleError:
                break
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
        import numpy as np
        from open_spiel.python.algorithms import ismcts

        from mapgen.openspiel import CorpsGame, CorpsState

        if self._game is None:
            g = worlds[0].state.game
            mode = getattr(g.chapter, "mode", "coop")
            self._game = CorpsGame({"players": g.n, "mode": mode}, engine=g)
        game = self._game
        traitor = game.traitor
        pick = random.Random(self.rng.randrange(1 << 30))

        def resampler(state, player):
            return CorpsState(game, worlds[pick.randrange(len(worlds))].clone())

        search = ismcts.ISMCTSBot(
            game,
            _HeuristicEvaluator(random.Random(self.rng.randrange(1 << 30)), traitor),
            UCT_C,
            self.budget,
            random_state=np.random.RandomState(self.rng.randrange(1 << 30)),
            child_selection_policy=ismcts.ChildSelectionPolicy.PUCT,
        )
        search.set_resampler(resampler)
        root = CorpsState(game, worlds[0].clone())
        policy = search.get_policy(root)
        best = max(p for _, p in policy)
        choices = sorted(a for a, p in policy if p == best)
        return int(choices[0] if len(choices) == 1 else choices[self.rng.randrange(len(choices))])
