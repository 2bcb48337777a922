"""The ``random`` bot: a uniform legal action."""

from __future__ import annotations

import random


class RandomBot:
    """A uniform legal action."""

    name = "random"
    decides_on = "legal"  # play_game hands it the legal actions only (mapgen.engine.observation.legal_only)

    def __init__(self, rng: random.Random):
        self.rng = rng

    def step(self, obs) -> int:
        la = obs.legal_actions()
        return la[self.rng.randrange(len(la))]
