"""Bots: random (placeholder until the real ones are written)."""

from __future__ import annotations

import random


class RandomBot:
    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def step(self, state) -> int:
        la = state.legal_actions()
        return la[self.rng.randrange(len(la))]
