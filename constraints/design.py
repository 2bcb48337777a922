"""Rule kinds of the design profiles (RULES.md §5): how generated maps are made, not rules of the game.

``Reachable`` (P1) and ``NotAt`` (the Greek Fire's P3), with ``rules.Count`` (P2), are what a profile
appends to a chapter's rules (``mapgen.profile.Profile.rules``). They share the rule interface
(``check``, CP-SAT's ``post``), but a player's deduction never assumes them, so only the generator's
CP-SAT model compiles them, chapter files cannot list them, and `mapgen validate` never imports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from constraints.rules import Rule, cell_list
from mapgen.terrain import Terrain

if TYPE_CHECKING:
    from mapgen.model import Map


@dataclass(frozen=True)
class Reachable(Rule):
    """Every cell can be reached from the start through cells that are not ``blocker``: exploring may
    not continue from a Rock, so a Rock cell is revealed but never passed (RULES.md §5, P1).

    The start is the briefing's start cell, or all of column 7. ``start = "edge"`` (the default) says the
    start lies on the board's edge; with the edge free of ``blocker`` (rule C6), every edge start reaches
    what column 7 reaches, so CP-SAT compiles the rule once, before any briefing. ``start = "briefing"``
    is for a start inside the board: the rule then waits for the briefing's start cell.
    """

    blocker: Terrain = Terrain.ROCK
    start: str = "edge"
    kind: ClassVar[str] = "reachable"

    @property
    def reads_briefing(self) -> bool:  # type: ignore[override]
        return self.start == "briefing"

    def check(self, view):
        b = view.board
        sealed = sorted(set(range(b.size)) - reachable_cells(view.map, self.blocker))
        if not sealed:
            return []
        return [
            self.violation(
                view,
                sealed,
                f"{cell_list(b, sealed)} cannot be reached from the start without passing a {self.blocker.label}",
            )
        ]


def reachable_cells(m: Map, blocker: Terrain = Terrain.ROCK) -> set[int]:
    """Cells an expedition can reveal from the start when it may not continue from ``blocker`` cells."""
    orth = m.board.hood("orthogonal")
    seen, stack = set(), []
    for i in m.start_cells():
        seen.add(i)
        if m.cells[i] is not blocker:
            stack.append(i)
    while stack:
        i = stack.pop()
        for j in orth[i]:
            if j not in seen:
                seen.add(j)
                if m.cells[j] is not blocker:
                    stack.append(j)
    return seen


@dataclass(frozen=True)
class NotAt(Rule):
    """The briefing's ``field`` cell (the Greek Fire), when the briefing names one, does not hold ``terrain``."""

    field: str = "greek_fire"
    terrain: Terrain = Terrain.ROCK
    kind: ClassVar[str] = "not_at"
    reads_briefing: ClassVar[bool] = True

    def check(self, view):
        i = getattr(view.map.briefing, self.field)
        if i is None or view.cells[i] is not self.terrain:
            return []
        what = {"greek_fire": "the Greek Fire"}.get(self.field, f"the {self.field} cell")
        return [self.violation(view, [i], f"{what} {view.board.name(i)} lies on a {self.terrain.label}")]


#: The design kinds by name.
DESIGN_KINDS: dict[str, type[Rule]] = {k.kind: k for k in (Reachable, NotAt)}
