"""Proofs kept between questions on one briefing: completions found and unsatisfiable cores.

A completion proves each of its terrains possible where it lies, in every state it agrees with (the revealed
cells and Hill numbers). A core, a set of the SAT session's assumptions under which no completion holds any
of some (cell, terrain) pairs, proves those pairs impossible in every state whose assumptions include it.
Both stay true whatever else is asked, so an answer read from them is the exact answer: keeping them changes
what a question costs, never what it says. ``Solver.possible(..., proofs=...)`` reads and extends them; the
deducer bot keeps one ``Proofs`` per briefing for all its games, so later games on a map ask the SAT solver
little that earlier games did not prove already.

Both are indexed by bitsets (Python integers, one bit per completion or core): the completions that agree
with a state are the AND of one set per revealed cell; the cores within a state's assumptions are those
outside the OR of the sets of the assumptions it lacks.
"""

from __future__ import annotations

from constraints.catalogue import Chapter
from constraints.rules import hill_number
from mapgen.model import Map
from mapgen.terrain import Terrain

#: completions kept (past this the oldest is replaced) and cores kept (past this no more are learnt)
WITNESS_CAP = 4096
CORE_CAP = 20_000


class Proofs:
    """Completions and cores of one SAT session, for ``Solver.possible``."""

    def __init__(self, chapter: Chapter, cap: int = WITNESS_CAP, core_cap: int = CORE_CAP):
        self.chapter = chapter
        self.cap = cap
        self.core_cap = core_cap
        self._rows: list[tuple[Terrain, ...]] = []  # the completions, by bit
        self._added = 0
        self._all = 0  # bits of the rows in use
        # per cell, id(terrain) -> rows with that terrain there (ids: an Enum's hash is a Python call)
        self._at: list[dict[int, int]] = [{} for _ in range(chapter.board.size)]
        self._hill: dict[tuple[int, int], int] = {}  # (Hill cell, its number) -> rows
        self._cores = 0
        self._core_all = 0
        self._has: dict[int, int] = {}  # assumption -> cores that need it
        self._refutes: dict[int, int] = {}  # (cell, terrain) literal -> cores that rule it out
        # ``sort``'s pairs with each terrain's id, and the pairs they were made from (a session's ``x``)
        self._ids: list[list[tuple[Terrain, int, int]]] | None = None
        self._ids_of = None

    @property
    def completions(self) -> int:
        return len(self._rows)

    @property
    def cores(self) -> int:
        return self._cores

    # -- completions ---------------------------------------------------------------------------
    def add(self, w: tuple[Terrain, ...]) -> None:
        """Keep a completion of the briefing (every rule holds in it)."""
        row = self._added % self.cap
        self._added += 1
        bit = 1 << row
        if row < len(self._rows):  # full: the oldest row goes
            self._drop(row, bit)
            self._rows[row] = w
        else:
            self._rows.append(w)
        self._all |= bit
        for at, t in zip(self._at, w):
            at[id(t)] = at.get(id(t), 0) | bit
        counted = self.chapter.counted
        if counted is not None:
            board = self.chapter.board
            for i, t in enumerate(w):
                if t is Terrain.HILL:
                    key = (i, hill_number(board, w, i, counted))
                    self._hill[key] = self._hill.get(key, 0) | bit

    def _drop(self, row: int, bit: int) -> None:
        old = self._rows[row]
        keep = ~bit
        for at, t in zip(self._at, old):
            at[id(t)] &= keep
        for key in self._hill:
            self._hill[key] &= keep
        self._all &= keep

    def agreeing(self, state: Map) -> int:
        """The rows (a bitset) of the stored completions that are completions of ``state``."""
        rows = self._all
        for at, t in zip(self._at, state.cells):
            if t is not None:
                rows &= at.get(id(t), 0)
                if not rows:
                    return 0
        for i, n in state.hills.items():
            rows &= self._hill.get((i, n), 0)
        return rows

    def sort(
        self, state: Map, cells: list[int], pairs, givens: frozenset[int]
    ) -> tuple[dict[int, set[Terrain]], list[tuple]]:
        """({cell: terrains a stored completion of ``state`` holds there}, the (cell, terrain, literal) pairs
        neither a stored completion shows nor a stored core within ``givens`` (the state's assumptions) rules
        out), for ``cells`` and ``pairs[cell]``: {terrain: literal}, in that order. One pass over the pairs
        (each terrain's id made once per session)."""
        rows = self.agreeing(state)
        cores = self.within(givens)
        refuted = self._refutes.get
        ids = self._ids
        if ids is None or self._ids_of is not pairs:
            ids = self._ids = [[(t, v, id(t)) for t, v in c.items()] for c in pairs]
            self._ids_of = pairs
        at_ = self._at
        seen: dict[int, set[Terrain]] = {}
        rest = []
        for i in cells:
            shown = seen[i] = set()
            at = at_[i] if rows else {}
            for t, v, k in ids[i]:
                if rows & at.get(k, 0):
                    shown.add(t)
                elif not (refuted(v, 0) & cores):
                    rest.append((i, t, v))
        return seen, rest

    # -- cores ---------------------------------------------------------------------------------
    def within(self, givens: frozenset[int]) -> int:
        """The cores (a bitset) made only of assumptions in ``givens``."""
        if not self._cores:
            return 0
        lacking = 0
        for lit, cores in self._has.items():
            if lit not in givens:
                lacking |= cores
        return self._core_all & ~lacking

    def refutes(self, cores: int, lit: int) -> bool:
        """Whether one of ``cores`` rules out the (cell, terrain) pair of ``lit``."""
        return bool(self._refutes.get(lit, 0) & cores)

    def learn(self, lits: list[int], core: frozenset[int]) -> None:
        """``core`` (assumptions) admits no completion holding any of ``lits``: keep it for them."""
        if self._cores >= self.core_cap:
            return
        bit = 1 << self._cores
        self._cores += 1
        self._core_all |= bit
        for a in core:
            self._has[a] = self._has.get(a, 0) | bit
        for v in lits:
            self._refutes[v] = self._refutes.get(v, 0) | bit
