"""The ``random`` bot: a uniform legal action."""

from __future__ import annotations

import random


class RandomBot:
    """A uniform legal action."""

    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def step(self, obs) -> int:
        la = obs.legal_actions()
        return la[self.rng.randrange(len(la))]
