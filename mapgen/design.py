"""Plain-Python checks of the design defaults (RULES.md §5): P1 reachable, P2 balanced."""

from __future__ import annotations

from constraints.rules import Violation, cell_list, plural
from mapgen.model import Map
from mapgen.profile import Profile
from mapgen.terrain import Terrain


def reachable_cells(m: Map, blocker: Terrain = Terrain.ROCK) -> set[int]:
    """Cells an expedition can reveal from the start when it may not continue from ``blocker`` cells."""
    b = m.board
    orth = b.hood("orthogonal")
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


def check_design(m: Map, profile: Profile) -> list[Violation]:
    """Violations of the profile's design settings on a complete map (ids P1 and P2)."""
    out: list[Violation] = []
    b = m.board
    if profile.reachable:
        sealed = sorted(set(range(b.size)) - reachable_cells(m))
        if sealed:
            out.append(
                Violation(
                    "P1",
                    "Reachable",
                    tuple(b.name(i) for i in sealed),
                    f"{cell_list(b, sealed)} cannot be reached from the start without passing a Rock",
                )
            )
    for t, (lo, hi) in profile.counts.items():
        found = m.cells_of(t)
        n = len(found)
        if (lo is not None and n < lo) or (hi is not None and n > hi):
            want = f"{lo if lo is not None else 0} to {hi if hi is not None else 'any number'}"
            out.append(
                Violation(
                    "P2",
                    "Balanced",
                    tuple(b.name(i) for i in found),
                    f"the map has {plural(t, n)}, the profile asks for {want}",
                )
            )
    if m.briefing.greek_fire is not None and m.cells[m.briefing.greek_fire] is Terrain.ROCK:
        out.append(Violation("P2", "Balanced", (b.name(m.briefing.greek_fire),), "the Greek Fire lies on a Rock"))
    return out
