"""Bots: each is handed its own seeded RNG and implements ``step(state) -> action``.

- ``random``: a uniform legal action.
- ``heuristic``: plays on what is revealed. It values Resources by what today's Challenges, the End
  of Day, the Water supply and the revealed Kill Minotaur cards need, guesses each reachable cell's
  terrain from the Reference Board rules applied to the revealed cells, and explores where the
  expected value is highest; it builds Fire and Shelter when a Challenge asks or the backpack is full.
- ``deducer``: the heuristic, with each reachable cell's possible terrains from exact deduction
  (CP-SAT on the chapter's rules, ``mapgen/engine/deduce.py``), within a solver budget per game.
- ``clairvoyant``: the heuristic reading the hidden map: an upper bound, not a fair player.

Only ``clairvoyant`` reads ``state.game.cells`` for unexplored cells; the others use ``state.known``.
"""

from __future__ import annotations

import random
import weakref
from bisect import bisect_left
from itertools import compress

from mapgen.engine import actions as A
from mapgen.engine.cards import FOOD, MUD, NRES, ROCK, SKULL, WATER, WOOD
from mapgen.engine.game import BACKPACK_SLOTS
from mapgen.terrain import TERRAINS, Terrain

T = Terrain
NT = len(TERRAINS)
_RANGE_NT = range(NT)
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
_RES_OF_CODE = {t.value: r for t, r in RES_OF.items()}


def _changed_bytes(old: bytes, new: bytearray) -> list[int]:
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


def _between(la: list[int], lo: int, hi: int) -> list[int]:
    """The actions lo <= a < hi of a sorted legal-action list, by bisection instead of a scan."""
    return la[bisect_left(la, lo) : bisect_left(la, hi)]


_GEOMETRY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # one per Game, shared by its bots


class _Geometry:
    """Per-game tables the heuristic reads many times: neighbours, lines, priors, Fort pattern placements."""

    def __init__(self, g):
        self.game = g
        b = g.board
        self.tidx = tuple(t.index for t in g.cells)
        prior = PRIORS.get(g.chapter.name) or g.chapter.priors or PRIORS["fauna"]
        self.prior = [0.0] * NT
        for t, v in prior.items():
            if t in g.chapter.terrains:
                self.prior[t.index] = v
        n = b.size
        self.orth = b.hood("orthogonal")
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
        # (index, terrain) of the chapter's terrains in Terrain order: value_vector skips the Enum membership tests
        # row and column of each cell as slices of the row-major ``explored`` bytes: counting a line's
        # unexplored cells is one C-level bytearray.count instead of a Python generator per cell
        w = b.width
        self.row_slice = [slice((i // w) * w, (i // w + 1) * w) for i in range(n)]
        self.col_slice = [slice(i % w, n, w) for i in range(n)]
        self.chapter_terrains = tuple((k, t) for k, t in enumerate(TERRAINS) if t in g.chapter.terrains)
        pattern = g.map.briefing.fort_pattern
        self.fort_rots: list = [None] * n
        if pattern is not None and T.FORT in g.chapter.terrains:
            rotations = pattern.rotations()
            for i in range(n):
                r, c = divmod(i, b.width)
                rots = []
                for rot in rotations:
                    cells = [(b.at(r + dr, c + dc), t) for dr, dc, t in rot]
                    if any(j is None for j, _ in cells):
                        continue
                    rots.append([(j, t.index) for j, t in cells if t is not None and t is not T.FORT])
                self.fort_rots[i] = rots
        self.hills = [(h, num, frozenset(self.line[h])) for h, num in g.hills.items()]
        # affects[x]: the cells whose local weights read cell x (to keep the others cached).
        # A cell reads its row and column only through _LineSummary, which looks at Wood (row and column),
        # Rock and Vine (column) only; its other reads (itself, king, orth-of-orth, Fort placements, Hill
        # lines) are ``near``. So a newly seen cell that is not Wood/Rock/Vine changes the weights of its
        # near_affects only, a Rock or Vine those and its column's cells (col_affects), a Wood all affects.
        near = []
        for c in range(n):
            r = set(self.king[c]) | {c}
            for j in self.orth[c]:
                r |= set(self.orth[j])
            for rot in self.fort_rots[c] or ():
                r |= {j for j, _ in rot}
            for h, _, line in self.hills:
                if c in line:
                    r |= line | {h}
            near.append(r)
        reads = [near[c] | set(self.line[c]) for c in range(n)]
        self.affects = [tuple(c for c in range(n) if x in reads[c]) for x in range(n)]
        self.near_affects = [tuple(c for c in range(n) if x in near[c]) for x in range(n)]
        self.col_affects = [
            tuple(c for c in range(n) if x in near[c] or self.col_no[c] == self.col_no[x]) for x in range(n)
        ]


class _LineSummary:
    """For one list of seen terrains: the rows and columns holding a Wood, the columns holding a Rock or a Vine."""

    __slots__ = ("known", "rock_col", "vine_col", "wood_col", "wood_row")

    def __init__(self, known: list[int], geo: _Geometry, base: _LineSummary | None = None, cells=None):
        """Made from all of ``known``, or from ``base`` (an older summary) and the newly seen ``cells``."""
        self.known = known
        if base is None:
            height, width = geo.row_no[-1] + 1, geo.col_no[-1] + 1
            self.wood_row = [False] * height
            self.wood_col = [False] * width
            self.rock_col = [False] * width
            self.vine_col = [False] * width
            cells = range(len(known))
        else:  # flags only turn on as cells are seen: copy the old ones and add the new cells
            self.wood_row = list(base.wood_row)
            self.wood_col = list(base.wood_col)
            self.rock_col = list(base.rock_col)
            self.vine_col = list(base.vine_col)
        for i in cells:
            t = known[i]
            if t == I_WOOD:
                self.wood_row[geo.row_no[i]] = self.wood_col[geo.col_no[i]] = True
            elif t == I_ROCK:
                self.rock_col[geo.col_no[i]] = True
            elif t == I_VINE:
                self.vine_col[geo.col_no[i]] = True


class RandomBot:
    """A uniform legal action."""

    name = "random"

    def __init__(self, rng: random.Random):
        self.rng = rng

    def step(self, state) -> int:
        la = state.legal_actions()
        return la[self.rng.randrange(len(la))]


class HeuristicBot:
    """Plays on revealed information only (see the module docstring)."""

    name = "heuristic"

    def __init__(self, rng: random.Random):
        self.rng = rng
        self._geometry: _Geometry | None = None
        self._known_gid = None  # id of the game and copy of ``seen`` that _known_list was made for
        self._known_seen = b""
        self._known_list: list[int] = []
        self._weight_cache: dict[int, list[float]] = {}
        self._plan = None
        self._lines: _LineSummary | None = None

    # ----- what the team needs -----
    def needs(self, state) -> list[float]:
        """Units of each Resource the team wants to hold now (a soft target)."""
        g = state.game
        geo = self._geo(g)
        need = [0.0] * NRES
        for entry in state.row:
            c = entry[0]
            if c < 0:
                continue
            card = g.challenges[c]
            stored = entry[2]
            if stored:
                for r, k in enumerate(card.requires):
                    k -= stored.count(r)
                    if k > 0:
                        need[r] += k
            else:  # the common case: nothing stored by York, so only the card's non-zero requirements
                for r, k in geo.challenge_needs[c]:
                    need[r] += k
            if card.fire and state.fires == 0:
                need[WOOD] += 2
        need[FOOD] += 1 + (1 if state.day >= 1 and len(state.ch_pile) > 3 else 0)
        need[WATER] = max(need[WATER], 0) + 4
        d = state.data
        face = d.get("kill_face")
        if face:
            # min() with a key returns the only card without calling the key: skip the gap then
            best = face[0] if len(face) == 1 else min(face, key=lambda k: self._kill_gap(state, k))
            for r, k in geo.kill_needs[best]:  # adding the zero requirements would change nothing
                need[r] += k
        if g.chapter.bot_policy is not None:  # a chapter's own needs (Flora's Giant Plant, ...)
            g.chapter.bot_policy.needs(self, state, need)
        return need

    def _kill_gap(self, state, k) -> int:
        pack = state.pack
        gap = 0
        for r, n in enumerate(state.game.kills[k].requires):
            if n > pack[r]:
                gap += n - pack[r]
        return gap

    def unit_value(self, state, need, r: int, have: int | None = None) -> float:
        """Value of holding one more unit of Resource r given ``have`` units already."""
        have = state.pack[r] if have is None else have
        if r == WATER:
            return 3.0 if have <= 2 else 1.5 if have <= 4 else 0.6 if have <= 7 else 0.05
        if have < need[r]:
            base = 2.5 if r == FOOD and have == 0 else 1.5
            return base
        if state.slots() >= BACKPACK_SLOTS - 1:
            return 0.02
        return 0.15 if r in (WOOD, ROCK, MUD, SKULL) else 0.1

    def keep_value(self, state, need, r: int) -> float:
        """What discarding one unit of r would cost."""
        return self.unit_value(state, need, r, state.pack[r] - 1)

    def cheapest(self, state, need, candidates) -> int:
        return min(candidates, key=lambda r: (self.keep_value(state, need, r), -r))

    # ----- beliefs about terrain -----
    def belief(self, state, cell: int) -> dict[Terrain, float]:
        """Guess the terrain of an unexplored cell: {terrain: probability} (for people and tests)."""
        w = self._weights(state, cell)
        return {TERRAINS[k]: p for k, p in enumerate(w) if p > 0}

    def _geo(self, g) -> _Geometry:
        geo = self._geometry
        if geo is None or geo.game is not g:
            geo = _GEOMETRY.get(g)
            if geo is None:
                geo = _GEOMETRY[g] = _Geometry(g)
            self._geometry = geo
        return geo

    def _known(self, state) -> list[int]:
        """Terrain index of every seen cell, -1 for the others; cached until something new is seen."""
        seen = state.seen
        gid = id(state.game)
        # the hit path compares the bytearray with the saved copy in C (no key tuple, no bytes() copy)
        if gid == self._known_gid and seen == self._known_seen:
            return self._known_list
        geo = self._geo(state.game)
        tidx = geo.tidx
        cache = self._weight_cache
        if self._known_gid == gid and cache:
            # only the cells whose weights read a newly seen cell are computed again; the known list is
            # updated where ``seen`` changed (a new list: _LineSummary tells lists apart by identity)
            previous = self._known_list
            known = list(previous)
            old = self._known_seen
            affects, near_affects, col_affects = geo.affects, geo.near_affects, geo.col_affects
            changed = _changed_bytes(old, seen)
            for x in changed:
                before = known[x]
                t = known[x] = tidx[x] if seen[x] else -1
                if before >= 0 or t == I_WOOD:  # a cell hidden again (rare) or a Wood: its whole row and column
                    drop = affects[x]
                elif t == I_ROCK or t == I_VINE:  # Rock and Vine flags are per column
                    drop = col_affects[x]
                else:  # no line flag changes: only the cells that read x directly
                    drop = near_affects[x]
                for c in drop:
                    cache.pop(c, None)
            lines = self._lines
            if lines is not None and lines.known is previous and all(known[x] >= 0 for x in changed):
                self._lines = _LineSummary(known, geo, lines, changed)  # extend the summary, no full scan
        else:
            known = [tidx[i] if seen[i] else -1 for i in range(len(seen))]
            self._weight_cache = {}
        self._known_list = known
        self._known_gid = gid
        self._known_seen = bytes(seen)
        return known

    def _weights(self, state, cell: int) -> list[float]:
        return self._weight_entry(state, cell)[0]

    def _weight_entry(self, state, cell: int) -> tuple[list[float], tuple[int, ...]]:
        """The cell's cached weights and the indices of their non-zero terms (for _expected_values)."""
        if id(state.game) != self._known_gid or state.seen != self._known_seen:
            self._known(state)  # something new was seen: drop the weights that read it
        entry = self._weight_cache.get(cell)
        if entry is None:
            entry = self._new_entry(state, cell)
        return entry

    def _new_entry(self, state, cell: int) -> tuple[list[float], tuple[int, ...]]:
        w = self._local_weights(state, cell, self._known_list)
        entry = self._weight_cache[cell] = (w, tuple(compress(_RANGE_NT, w)))  # indices of the non-zero weights
        return entry

    def _expected_values(self, state, cells, values: list[float]) -> list[float]:
        """Expected value of finding each cell's terrain: sum of weight * value over the possible terrains.

        Sums the same products in the same order as ``_dot``, but only over the cached non-zero
        terms (typically 4-9 of the 20 terrains); the seen cells are checked once for all cells.
        """
        if id(state.game) != self._known_gid or state.seen != self._known_seen:
            self._known(state)  # something new was seen: drop the weights that read it
        cache = self._weight_cache
        out = []
        for cell in cells:
            entry = cache.get(cell)
            if entry is None:
                entry = self._new_entry(state, cell)
            w, nonzero = entry
            out.append(sum([w[k] * values[k] for k in nonzero]))
        return out

    def _local_weights(self, state, cell: int, known: list[int]) -> list[float]:
        """Prior frequencies nudged by the Reference Board rules around the revealed cells."""
        geo = self._geo(state.game)
        if known[cell] >= 0:
            w = [0.0] * NT
            w[known[cell]] = 1.0
            return w
        w = list(geo.prior)
        if geo.edge[cell]:
            w[I_ROCK] = 0.0
        lines = self._lines
        if lines is None or lines.known is not known:
            lines = self._line_summary(known, geo)
        row, col = geo.row_no[cell], geo.col_no[cell]
        if lines.wood_row[row] or lines.wood_col[col]:  # a seen Wood in the cell's row or column
            w[I_WOOD] = 0.0
        else:
            w[I_WOOD] *= 1.5
        for j, around in geo.orth2[cell]:
            tj = known[j]
            if tj < 0:
                continue
            if tj == I_WATER:
                if w[I_WOOD]:
                    open_n = 0
                    for k in around:
                        tk = known[k]
                        if tk == I_WOOD:
                            break
                        if tk < 0:
                            open_n += 1
                    else:
                        w[I_WOOD] *= 1 + 6.0 / (open_n or 1)
            elif tj == I_WOOD:
                open_n = 0
                for k in around:
                    tk = known[k]
                    if tk == I_WATER:
                        break
                    if tk < 0:
                        open_n += 1
                else:
                    w[I_WATER] *= 1 + 6.0 / (open_n or 1)
            elif tj == I_ROCK and w[I_ROCK]:
                w[I_ROCK] *= 2.0
                w[I_MUD] *= 1.5
        if w[I_TIPI]:
            for j in geo.diag[cell]:
                tj = known[j]
                if tj == I_TIPI:
                    w[I_FOOD] *= 3.0
                elif tj == I_FOOD:
                    w[I_TIPI] *= 2.0
            for j in geo.king[cell]:
                if known[j] == I_TIPI:
                    w[I_SKULL] *= 2.0
                    break
        if w[I_VINE] and lines.rock_col[col] and not lines.vine_col[col]:
            w[I_VINE] *= 3.0
        if w[I_FORT]:
            w[I_FORT] *= self._fort_factor(state, cell, known, geo)
        total = sum(w)
        if total <= 0:
            w = [0.0] * NT
            w[I_WATER] = 1.0
            return w
        inv = 1.0 / total
        return [v * inv for v in w]

    def _line_summary(self, known: list[int], geo) -> _LineSummary:
        """Which rows and columns hold a seen Wood, Rock or Vine; made once per ``known`` list.

        Saves scanning a cell's 13 line cells in every ``_local_weights`` call.
        """
        summary = self._lines
        if summary is None or summary.known is not known:
            summary = self._lines = _LineSummary(known, geo)
        return summary

    def _fort_factor(self, state, cell: int, known: list[int], geo) -> float:
        rots = geo.fort_rots[cell]
        if rots is None:
            return 1.0
        best = -1
        for rot in rots:
            hits = 0
            for j, t in rot:
                k = known[j]
                if k < 0:
                    continue
                if k != t:
                    hits = -1
                    break
                hits += 1
            if hits > best:  # noqa: PLR1730 -- a comparison, not a max() call per placement
                best = hits
        if best < 0:
            return 0.0
        factor = 1.0 + 2.0 * best
        for h, n, line in geo.hills:
            if known[h] < 0 or cell not in line:
                continue
            found = sum(1 for i in line if known[i] == I_FORT)
            if found >= n:
                return 0.0
            factor *= 2.0
        return factor

    # ----- choosing where to explore -----
    def terrain_value(self, state, need, t: Terrain, lewis: bool) -> float:
        out = [0.0]
        self._terrain_values(state, need, ((0, t),), lewis, out)
        return out[0]

    def _terrain_values(self, state, need, terrains, lewis: bool, out: list[float]) -> None:
        """``out[k] = terrain_value(t)`` for each (k, t) of ``terrains``.

        What every terrain reads (the Kill cards' data, the Monsters, the chapter policy) is looked up
        once per decision rather than once per terrain; each value is the same sum in the same order.
        """
        d = state.data
        pack = state.pack
        unit_value = self.unit_value
        policy = state.game.chapter.bot_policy
        for k, t in terrains:
            v = 0.0
            r = _RES_OF_CODE.get(t._value_)  # keyed by the code string: no Python-level Enum __hash__
            if r is not None:
                v += unit_value(state, need, r)
                if lewis:
                    v += unit_value(state, need, r, pack[r] + 1)
            if t is T.HILL:
                v += 1.2  # no time passes, and another turn
            elif t is T.FORT:
                missing = 3 - d.get("kills", 0) - len(d.get("kill_face", ()))
                v += 4.0 if missing > 0 and d.get("kill_pile") else 0.2
            elif t is T.SKULL:
                if "kills" in d:
                    ready = bool(d["kill_face"]) and not state.monsters
                    v += 1.0 if ready else -0.4
                else:
                    v -= 0.4
            elif t is T.TIPI:
                v += 0.6
            elif t is T.FIELD:
                v += 1.5 if state.shelter < 0 and self._wants_shelter(state) else 0.1
            elif t is T.ROCK:
                v -= 0.2
            if policy is not None:
                v += policy.terrain_value(self, state, need, t)
            out[k] = v

    def _wants_shelter(self, state) -> bool:
        # reads the row directly (state.challenge(k) is None exactly for Injured, card -1)
        challenges = state.game.challenges
        for entry in state.row:
            if entry[0] >= 0 and challenges[entry[0]].shelter:
                return True
        return False

    def value_vector(self, state, need, lewis: bool) -> list[float]:
        """The value of finding each terrain now (index = Terrain.index)."""
        values = [0.0] * NT
        self._terrain_values(state, need, self._geo(state.game).chapter_terrains, lewis, values)
        return values

    def cell_value(self, state, need, cell: int, lewis: bool, values: list[float] | None = None) -> float:
        if values is None:
            values = self.value_vector(state, need, lewis)
        return self._cell_values(state, need, (cell,), values)[0]

    def _cell_values(self, state, need, cells, values: list[float]) -> list[float]:
        """``cell_value`` of each cell; what is the same for every cell is looked up once."""
        g = state.game
        chapter = g.chapter
        geo = self._geo(g)
        ex = state.explored
        taxes = state.monster_taxes(cells) if state.monsters or chapter.custom_tax else None  # 0 without Monsters
        column_bonus = chapter.destiny and not state.chased
        row_bonus = state.threats and "kills" in state.data
        policy = chapter.bot_policy
        out = []
        for k, (cell, v) in enumerate(zip(cells, self._expected_values(state, cells, values))):
            if taxes is not None and taxes[k]:
                v -= 0.6 * taxes[k]
            if column_bonus and ex[geo.col_slice[cell]].count(0) == 1:
                v += 0.8
            if row_bonus and ex[geo.row_slice[cell]].count(0) == 1:
                v += 0.3
            for j in g.orth[cell]:
                if not ex[j]:
                    v += 0.05
            if policy is not None:  # a chapter's own pull towards a cell (Flora's Greek Fire)
                v += policy.cell_value(self, state, need, cell)
            out.append(v)
        return out

    def best_cell(self, state, explores: list[int], need) -> int:
        """The cell to explore this turn; planned once and kept while Lewis and guesses are used."""
        key = (id(state.game), state.turn, state.n_explored, state.banned, len(explores))
        if self._plan is not None and self._plan[0] == key and self._plan[1] in explores:
            return self._plan[1]
        lewis = state.lewis_on or (state.game.characters[state.current] == "Lewis" and "Lewis" not in state.exhausted)
        best, best_v = explores[0], -1e9
        values = self.value_vector(state, need, lewis)
        rand = self.rng.random
        for a, v in zip(explores, self._cell_values(state, need, explores, values)):
            v += rand() * 1e-3  # a tie-break: one draw per cell, in cell order
            if v > best_v:
                best, best_v = a, v
        self._plan = (key, best)
        return best

    # ----- the decision -----
    def step(self, state) -> int:
        la = state.legal_actions()
        if len(la) == 1:
            return la[0]
        kind = state.agenda[-1][0]
        if kind == "resolve":
            return A.PASS if A.PASS in la else A.FAIL
        if kind == "backtrack":
            return A.ACTIVATE
        need = self.needs(state)
        policy = state.game.chapter.bot_policy
        if kind == "chapter" and policy is not None:
            return policy.step(self, state, la, need)
        if kind == "main" and policy is not None:
            a = policy.main(self, state, la, need)
            if a is not None:
                return a
        fn = getattr(self, "_step_" + kind, None)
        if fn is None:
            return la[0]
        return fn(state, la, need)

    def _step_main(self, state, la, need) -> int:
        legal = set(la)
        kills = _between(la, A.KILL, A.GUESS)
        if kills:
            return kills[0]
        if A.CURE_INJURED in legal and state.pack[MUD] > need[MUD] - 0:
            return A.CURE_INJURED
        a = self._use_destiny(state, la, need)
        if a is not None:
            return a
        a = self._build(state, legal, need)
        if a is not None:
            return a
        if A.JAR_TAKE in legal and self._day_ending(state):
            return A.JAR_TAKE
        explores = _between(la, A.EXPLORE, A.DISCARD)
        if explores:
            cell = self.best_cell(state, explores, need)
            if A.LEWIS in legal:
                return A.LEWIS
            if A.COLLINS in legal and state.monster_tax(cell):
                return A.COLLINS
            guess = self._guess(state, legal, cell, need)
            if guess is not None:
                return guess
            return cell
        if A.SATCHEL in legal and state.last_gain >= 0 and state.pack[state.last_gain] > need[state.last_gain]:
            return A.SATCHEL
        jar = _between(la, A.JAR_STORE, A.JAR_TAKE)
        if jar and not self._day_ending(state):
            r = self.cheapest(state, need, [a - A.JAR_STORE for a in jar])
            if state.pack[r] > need[r]:
                return A.JAR_STORE + r
        if A.MORTAR in legal:
            a = self._mortar(state, need)
            if a is not None:
                return a
        if A.END_TURN in legal:
            return A.END_TURN
        return la[0]

    def _day_ending(self, state) -> bool:
        return len(state.row) == 1

    def _guess(self, state, legal, cell, need):
        w = self._weights(state, cell)
        p = max(w)
        t = TERRAINS[w.index(p)]
        if A.GUESS + t.index in legal and p >= 0.5:
            return A.GUESS + t.index  # Compass: a right guess saves an hour
        if A.GUESS + 20 + t.index in legal and p >= 0.6 and self.terrain_value(state, need, t, False) < 0.3:
            return A.GUESS + 20 + t.index  # Tracking Guide: skip a likely unwanted terrain
        return None

    def _use_destiny(self, state, la, need):
        g = state.game
        for a in _between(la, A.USE_DESTINY, A.KILL):
            card = g.destiny[state.de_held[a - A.USE_DESTINY]]
            good = False
            for e in card.effects:
                if e.verb == "gain" and isinstance(e.target, int):
                    good |= state.pack[e.target] < need[e.target]
                elif e.verb == "gain" and e.target == "any":
                    good |= any(state.pack[r] < need[r] for r in g.chapter.resources)
                elif e.verb == "gain" and e.target == "fire":
                    good |= state.fires == 0 and any(c and c.fire for c in map(state.challenge, range(3)))
                elif e.verb == "remove":
                    good |= (
                        bool(state.row)
                        and state.challenge(0) is not None
                        and not state.can_pass()
                        and state.row[0][1] >= state.challenge(0).time - 1
                    )
                elif e.verb == "refresh":
                    good |= len(state.exhausted) >= 2
                elif e.verb == "reveal":
                    good = True
            if good:
                return a
        return None

    def _build(self, state, legal, need):
        pack = state.pack
        challenges = state.game.challenges
        fire_needed = any(challenges[e[0]].fire for e in state.row if e[0] >= 0)
        if fire_needed and state.fires == 0:
            for k in (2, 3, 0, 1):
                if A.FIRE + k in legal:
                    return A.FIRE + k
        slots = state.slots()  # nothing below changes the pack: counted once
        if state.shelter < 0:
            shelter_card = self._wants_shelter(state)
            if shelter_card or slots >= 4:
                for k, (x, y) in enumerate(A.SHELTER_PAIRS):
                    if A.SHELTER + k in legal and (shelter_card or (pack[x] > need[x] and pack[y] > need[y])):
                        return A.SHELTER + k
        if slots >= BACKPACK_SLOTS - 1 and state.fires < 2:
            if A.FIRE in legal and pack[WOOD] - 2 >= need[WOOD]:
                return A.FIRE
            if A.FIRE + 1 in legal and pack[ROCK] - 2 >= need[ROCK]:
                return A.FIRE + 1
        return None

    def _mortar(self, state, need):
        g = state.game
        short = [r for r in g.chapter.resources if state.pack[r] < need[r] and r != WATER]
        spare = 0
        for r in range(NRES):  # a loop rather than sum() over a generator of max() calls (same integer)
            if r != WATER and state.pack[r] > int(need[r]):
                spare += state.pack[r] - int(need[r])
        if short and spare >= 2:
            return A.MORTAR
        return None

    def _step_pay(self, state, la, need) -> int:
        return A.DISCARD + self.cheapest(state, need, [a - A.DISCARD for a in la])

    _step_limits = _step_pay

    def _step_gain(self, state, la, need) -> int:
        return max(la, key=lambda a: (self.unit_value(state, need, a - A.GAIN), -a))

    def _step_trade(self, state, la, need) -> int:
        best, best_v = A.SKIP, 0.2
        for a in la:
            if a == A.SKIP:
                continue
            give, take = divmod(a - A.TRADE, 10)
            v = self.unit_value(state, need, take) - self.keep_value(state, need, give)
            if v > best_v:
                best, best_v = a, v
        return best

    def _step_backtrack(self, state, la, need) -> int:
        return A.ACTIVATE

    def _step_destiny_pick(self, state, la, need) -> int:
        g = state.game
        best, best_v = la[-1], 0.3
        for a in la:
            k = a - A.DESTINY_PICK
            if k == 2:
                continue
            card = g.destiny[state.de_face[k]]
            v = 0.0
            for e in card.effects:
                if e.verb == "gain" and isinstance(e.target, int):
                    v += e.n * self.unit_value(state, need, e.target)
                elif e.verb == "gain" and e.target == "any":
                    v += 1.5
                elif e.verb == "reveal":
                    v += 3.0
                elif e.verb == "remove":
                    v += 1.0
                else:
                    v += 0.5
            if v > best_v:
                best, best_v = a, v
        return best

    def _step_resolve(self, state, la, need) -> int:
        return A.PASS if A.PASS in la else A.FAIL

    def _step_fatigue(self, state, la, need) -> int:
        discards = [a - A.DISCARD for a in la if a != A.FATIGUE_WATER]
        r = self.cheapest(state, need, discards) if discards else None
        if r is not None and (self.keep_value(state, need, r) < 0.5 or state.pack[WATER] <= 3):
            return A.DISCARD + r
        return A.FATIGUE_WATER

    def _step_threat_discard(self, state, la, need) -> int:
        g = state.game
        for a in la:
            if a == A.SKIP:
                continue
            if g.threats[state.threats[a - A.THREAT_DISCARD]].kind in ("injured", "chased"):
                return a
        return A.SKIP


def _dot(w: list[float], values: list[float]) -> float:
    """Expected value of a terrain guess: sum of weight * value over the terrains with a weight."""
    return sum([p * x for p, x in zip(w, values) if p])


class ClairvoyantBot(HeuristicBot):
    """The heuristic with the hidden map in view: an upper bound on what deduction could give."""

    name = "clairvoyant"

    def _weights(self, state, cell: int) -> list[float]:
        w = [0.0] * NT
        w[self._geo(state.game).tidx[cell]] = 1.0
        return w

    def _expected_values(self, state, cells, values: list[float]) -> list[float]:
        # _dot of the one-hot weights: sum([1.0 * value]), and 1.0 * value is value exactly
        tidx = self._geo(state.game).tidx
        return [sum([values[tidx[cell]]]) for cell in cells]


class DeducerBot(HeuristicBot):
    """The heuristic, with each reachable cell's possible terrains from exact deduction.

    A cell that can hold only one terrain in every completion of the seen cells is known exactly;
    otherwise the heuristic's local weights are kept for the terrains still possible and zeroed for
    the others. The solver gets ``budget`` seconds per game; after that the last answers are kept.
    """

    name = "deducer"

    def __init__(self, rng: random.Random, solver=None):
        super().__init__(rng)
        self.solver = solver
        self.solver_calls = 0
        self.spent = 0.0  # CP-SAT deterministic time used in this game
        self._session = None  # this game's copy of the model and its witnesses
        self._asked = None
        self._key = None
        self._possible: dict[int, frozenset] = {}

    #: Ask the solver once this many cells are seen: before that nearly every terrain is possible
    #: everywhere (the heuristic's local rules say as much) and the questions are the slowest.
    min_seen_share = 0.37  # 18 of 49 cells (9 of Training's 25)

    #: Ask again after this many newly seen cells, or when most reachable cells have no answer yet.
    #: An older answer stays sound: a cell's possible terrains only shrink as cells are revealed.
    refresh = 2
    #: Solver time per game (CP-SAT deterministic seconds, so reproducible); then the bot plays on
    #: its last answers and the local rules.
    budget = 0.3

    def best_cell(self, state, explores: list[int], need) -> int:
        n_seen = sum(state.seen)
        key = (id(state.game), bytes(state.seen), tuple(explores))
        if key != self._key:
            self._key = key
            if self._asked is None or self._asked[0] != id(state.game):
                self._possible, self._asked = {}, (id(state.game), -99)
            possible = {c: ts for c, ts in self._possible.items() if state.known(c) is None}
            unanswered = sum(1 for c in explores if c not in possible)
            again = n_seen - self._asked[1] >= self.refresh or (
                2 * unanswered > len(explores) and n_seen > self._asked[1]
            )
            if n_seen >= self.min_seen_share * len(state.seen) and again:
                if self.solver is None:
                    from mapgen.engine.deduce import solver_for

                    self.solver = solver_for(state.game.chapter.name)
                limit = min(self.solver.time_limit, self.budget - self.spent)
                fresh = {}
                if limit > 0.01:
                    known = state.known_map()
                    if self._session is None:
                        self._session = self.solver.session(known)
                    before = self.solver.spent
                    fresh = self.solver.possible(known, explores, time_limit=limit, session=self._session)
                    self.spent += self.solver.spent - before
                    self.solver_calls += 1
                possible.update(fresh)
                self._asked = (id(state.game), n_seen)  # after a timeout too: ask again later
            self._possible = possible
        return super().best_cell(state, explores, need)

    def _expected_values(self, state, cells, values: list[float]) -> list[float]:
        return [_dot(self._weights(state, cell), values) for cell in cells]

    def _possible_for(self, state) -> dict[int, frozenset]:
        return self._possible

    def _weights(self, state, cell: int) -> list[float]:
        t = state.known(cell)
        if t is not None:
            w = [0.0] * NT
            w[t.index] = 1.0
            return w
        possible = self._possible_for(state).get(cell)
        base = super()._weights(state, cell)
        if not possible:
            return base
        w = [0.0] * NT
        if len(possible) == 1:
            w[next(iter(possible)).index] = 1.0
            return w
        geo = self._geo(state.game)
        for t in possible:
            k = t.index
            w[k] = base[k] or 0.01 * (geo.prior[k] or 1.0)
        total = sum(w)
        return [v / total for v in w]


BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "deducer": DeducerBot, "clairvoyant": ClairvoyantBot}


def make_bot(name: str, rng: random.Random):
    try:
        return BOTS[name](rng)
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (expected one of {', '.join(BOTS)})") from None
