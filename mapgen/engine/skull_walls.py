"""Skull walls: the start Paths a Monster drawn on one Skull can wall in (``mapgen grade``'s flag, issue 22).

Apart from ``walls`` (which explains a sealed game and is read by the main step) because it builds a
``Game``: the game imports the main step, so the main step's helpers cannot import the game.
"""

from __future__ import annotations

from dataclasses import dataclass

from mapgen.engine.game import Game
from mapgen.engine.walls import WALL_POCKET
from mapgen.terrain import Terrain


@dataclass(frozen=True)
class SkullWall:
    """A start Path that a Monster on one Skull walls in: the Paths of the pocket, Skull last."""

    start: str
    skull: str
    pocket: tuple[str, ...]

    def words(self) -> str:
        if self.start == self.skull:
            return f"{self.start} is a Skull: a Monster drawn there walls the first Path in"
        return f"from {self.start}, a Monster on the Skull at {self.skull} walls in {', '.join(self.pocket)}"


def skull_walls(m, pocket: int = WALL_POCKET) -> list[SkullWall]:
    """Per start Path of the map's chapter, the smallest pocket one Skull's Monster walls it in (at most
    ``pocket`` Paths); none for a chapter whose Threat deck holds no Monster."""
    game = Game(m)
    if not any(t.monster for t in game.threats):
        return []
    b = m.board
    cells = m.cells
    orth = game.orth
    skulls = [i for i, t in enumerate(cells) if t is Terrain.SKULL]

    def reach(start: int, monster: int) -> set[int]:
        seen = {start}
        todo = [start]
        while todo:
            i = todo.pop()
            if cells[i] is Terrain.ROCK:
                continue
            for j in orth[i]:
                if j not in seen and j != monster:
                    seen.add(j)
                    todo.append(j)
        return seen

    out = []
    for s in game.start_cells:
        if cells[s] is Terrain.ROCK:
            continue
        free = reach(s, -1)
        best: tuple[int, ...] | None = None
        best_skull = -1
        for k in skulls:
            if k == s:
                walled: tuple[int, ...] = (s,)
            else:
                region = reach(s, k)
                if not any(k in orth[i] and cells[i] is not Terrain.ROCK for i in region):
                    continue  # the trail cannot explore the Skull
                if len(region) + 1 >= len(free):
                    continue  # nothing lies beyond the Skull
                walled = (*sorted(region), k)
            if len(walled) <= pocket and (best is None or len(walled) < len(best)):
                best, best_skull = walled, k
        if best is not None:
            out.append(SkullWall(b.name(s), b.name(best_skull), tuple(b.name(c) for c in best)))
    return out
