"""The ``clairvoyant`` bot: the heuristic with the hidden map in view, an upper bound, not a fair player.

It is given the map when it is made (``make_bot("clairvoyant", rng, map=m)``); it reads nothing
hidden from its observation.
"""

from __future__ import annotations

import random

from mapgen.engine import actions as A
from mapgen.engine.bots.common import NT
from mapgen.engine.bots.heuristic import HeuristicBot
from mapgen.model import Map
from mapgen.terrain import TERRAINS

_last_tidx: list = [None, ()]  # (Map, each cell's Terrain.index) of the last clairvoyant bot made


class ClairvoyantBot(HeuristicBot):
    """The heuristic with the hidden map in view: an upper bound on what deduction could give."""

    name = "clairvoyant"

    def __init__(self, rng: random.Random, map: Map):
        """``map``: the game's map, handed over explicitly (the observation never holds unseen terrain)."""
        super().__init__(rng)
        self.map = map
        last = _last_tidx
        if last[0] is not map:  # a search makes a bot per rollout, on the same map: made once per map in a row
            last[0], last[1] = map, tuple(t.index if t is not None else -1 for t in map.cells)  # complete map
        self._tidx = last[1]

    def _weights(self, obs, cell: int) -> list[float]:
        w = [0.0] * NT
        w[self._tidx[cell]] = 1.0
        return w

    def _expected_values(self, obs, cells, values: list[float]) -> list[float]:
        # _dot of the one-hot weights: sum([1.0 * value]) is 0 + value, which is value but for -0.0 (0.0): the
        # same in every comparison and sum the callers make
        return list(map(values.__getitem__, map(self._tidx.__getitem__, cells)))

    def _guess(self, obs, legal, cell, need):
        # the heuristic's, on the one-hot weights: the likeliest terrain is the cell's, at 1.0
        k = self._tidx[cell]
        if A.GUESS + k in legal:
            return A.GUESS + k  # Compass: a right guess saves an hour
        if A.GUESS + 20 + k in legal and self.terrain_value(obs, need, TERRAINS[k], False) < 0.3:
            return A.GUESS + 20 + k  # Tracking Guide: skip a likely unwanted terrain
        return None
