"""Shared by the bots: terrain priors, per-game geometry tables, and small helpers on sorted actions."""

from __future__ import annotations

import weakref
from bisect import bisect_left

from mapgen.engine.bots.local_rules import LocalRules, tuple_getter
from mapgen.engine.bots.policy import policy_for
from mapgen.engine.cards import FOOD, MUD, ROCK, SKULL, WATER, WOOD
from mapgen.terrain import TERRAINS, Terrain

T = Terrain
NT = len(TERRAINS)
RANGE_NT = range(NT)
I_FOOD, I_WOOD, I_WATER, I_MUD, I_ROCK, I_SKULL, I_TIPI, I_FIELD, I_HILL, I_VINE, I_FORT = (
    t.index for t in (T.FOOD, T.WOOD, T.WATER, T.MUD, T.ROCK, T.SKULL, T.TIPI, T.FIELD, T.HILL, T.VINE, T.FORT)
)
#: Rough terrain frequencies (per cell) of shipped maps, the heuristic's prior before any deduction.
PRIORS = {
    "fauna": {
        T.WATER: 7.5,
        T.WOOD: 7,
        T.ROCK: 6,
        T.VINE: 5,
        T.HILL: 4.5,
        T.SKULL: 4,
        T.FOOD: 3.5,
        T.TIPI: 3.5,
        T.FORT: 3,
        T.MUD: 3,
        T.FIELD: 2,
    },
    "training": {T.WATER: 9.5, T.FOOD: 6.5, T.WOOD: 5, T.ROCK: 3, T.MUD: 1},
}
RES_OF = {T.FOOD: FOOD, T.WOOD: WOOD, T.MUD: MUD, T.ROCK: ROCK, T.SKULL: SKULL, T.VINE: 5, T.WATER: WATER}


def changed_bytes(old: bytes, new: bytearray) -> list[int]:
    """Positions where two equally long byte strings differ, in order, found with integer XOR.

    One or two cells are newly seen per explore: this avoids comparing all 49 bytes in Python.
    """
    diff = int.from_bytes(old, "little") ^ int.from_bytes(new, "little")
    out = []
    while diff:
        x = ((diff & -diff).bit_length() - 1) >> 3  # the lowest differing byte
        out.append(x)
        diff &= ~(0xFF << (x << 3))
    return out


def between(la: list[int], lo: int, hi: int) -> list[int]:
    """The actions lo <= a < hi of a sorted legal-action list, by bisection instead of a scan."""
    return la[bisect_left(la, lo) : bisect_left(la, hi)]


# one per game's Table, shared by its bots; a Geometry holds no reference to its Table, so that the entry goes with
# the game (a value that referred to its key would keep both for the life of the process)
_GEOMETRY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# the Geometries by the public facts they read (``_shared_key``): every game of a map makes the same one, so its
# games share it; at most ``_SHARED_MAX`` kept (a campaign's worker grades thousands of maps)
_SHARED: dict = {}
_SHARED_MAX = 64


def _shared_key(table) -> tuple:
    """What a ``Geometry`` reads of a game's ``Table``: the board, the briefing, the Reference Board's rules, the
    chapter's kind, name, terrains, Resources and bot policy, the Challenge and Kill cards (no terrain, no Hills,
    no deal: the same in every game of a map)."""
    ch = table.chapter
    return (
        table.board,
        table.briefing,
        table.reference,
        type(ch),
        ch.name,
        frozenset(ch.terrains),
        tuple(ch.resources),
        ch.policy,
        tuple(table.challenges),
        tuple(table.kills),
    )


def geometry(table) -> Geometry:
    """The ``Geometry`` of a game, from its public ``Table``: made once per map (``_shared_key``), shared by its games."""
    geo = _GEOMETRY.get(table)
    if geo is None:
        key = _shared_key(table)
        geo = _SHARED.get(key)
        if geo is None:
            if len(_SHARED) >= _SHARED_MAX:
                _SHARED.clear()
            geo = _SHARED[key] = Geometry(table)
        _GEOMETRY[table] = geo
    return geo


def share_geometry(table, like) -> None:
    """Give ``table`` the ``Geometry`` of ``like``: a world drawn for a search is a game on another map with the
    same board, briefing, chapter and cards, and a Geometry reads none of the map (no terrain, no Hills)."""
    if table not in _GEOMETRY:
        _GEOMETRY[table] = geometry(like)


class Geometry:
    """Per-game tables the heuristic reads many times: neighbours, lines, priors, the chapter's rules compiled."""

    def __init__(self, g):
        """``g``: the game's public Table (observation.Table): no terrain, no Hill positions."""
        b = g.board
        self.policy = policy_for(g.chapter)  # the chapter's bot policy, or None
        policy_priors = self.policy.priors if self.policy is not None else None
        prior = PRIORS.get(g.chapter.name) or policy_priors or PRIORS["fauna"]
        self.prior = [0.0] * NT
        for t, v in prior.items():
            if t in g.chapter.terrains:
                self.prior[t.index] = v
        n = b.size
        self.orth = b.hood("orthogonal")
        self.orth_of = [tuple_getter(o) for o in self.orth]  # per cell: ``ex -> its orthogonal neighbours' ex``
        self.diag = b.hood("diagonal")
        self.king = b.hood("king")
        self.orth2 = [tuple((j, self.orth[j]) for j in self.orth[i]) for i in range(b.size)]
        self.edge = [b.is_edge(i) for i in range(n)]
        self.col = [b.cols[i % b.width] for i in range(n)]
        self.row_no = [i // b.width for i in range(n)]
        self.col_no = [i % b.width for i in range(n)]
        self.line = [tuple(sorted(set(b.rows[i // b.width]) | set(b.cols[i % b.width]))) for i in range(n)]
        # each Challenge and Kill card's non-zero requirements as (resource, units): needs() skips the zeros
        self.challenge_needs = [tuple((r, k) for r, k in enumerate(c.requires) if k > 0) for c in g.challenges]
        self.kill_needs = [tuple((r, k) for r, k in enumerate(c.requires) if k) for c in g.kills]
        # the chapter's Resources but Water: ``pack -> their units`` (the Mortar's "anything short?")
        self.dry_resources = tuple_getter(tuple(r for r in g.chapter.resources if r != WATER))
        # (index, terrain) of the chapter's terrains in Terrain order: value_vector skips the Enum membership tests
        # row and column of each cell as slices of the row-major ``explored`` bytes: counting a line's
        # unexplored cells is one C-level bytearray.count instead of a Python generator per cell
        w = b.width
        self.row_slice = [slice((i // w) * w, (i // w + 1) * w) for i in range(n)]
        self.col_slice = [slice(i % w, n, w) for i in range(n)]
        self.chapter_terrains = tuple((k, t) for k, t in enumerate(TERRAINS) if t in g.chapter.terrains)
        self.local_arrays: tuple | None = None  # the heuristic's prior and kernel_tables(local) (made on first use)
        self.value_kinds: tuple | None = None  # the heuristic's _terrain_kinds of chapter_terrains (made on first use)
        # the heuristic's compiled cell values: the orthogonal neighbours (start per cell, cells) and each cell's row
        # and column as a mask per cell, as arrays (``kernels.cell_values``; made on first use)
        self.cell_arrays: tuple | None = None
        # the chapter's rule instances (or the house-rule chapter the game was built with) as local reasoning
        self.local = LocalRules(g.reference.rules, b, g.briefing, g.chapter.terrains)
        self.hill_line = [frozenset(self.line[h]) for h in range(n)]  # a seen Hill's row and column


def dot(w: list[float], values: list[float]) -> float:
    """Expected value of a terrain guess: sum of weight * value over the terrains with a weight."""
    return sum([p * x for p, x in zip(w, values) if p])
