"""The heuristic's local reasoning, taken from the chapter's rule instances (``constraints/``).

The heuristic guesses an unseen cell's terrain from prior frequencies nudged by what the Reference
Board's rules say about the seen cells around it. Those rules are the chapter's rule instances
(``constraints.catalogue.get_chapter(name).rules``, or the house-rule chapter a game is built with), so a
house rule changes the bot's play. Each rule kind reads like this (``w[t]``: the weight of terrain t):

- ``not_on_edge`` (C6): on the edge, ``w[t] = 0``; ``ring`` (L1): off its ring, ``w[t] = 0``;
- ``line_count`` (C4): with ``count`` of t seen in the cell's row or column, ``w[t] = 0``, else x1.5;
- ``neighbours`` with ``at_least`` (C1, C2, C3, C5, C8, ...): a seen subject in the cell's neighbourhood
  that still lacks its targets makes a target likelier (x ``1 + 6 / its unseen neighbours``); a
  one-way rule's seen target next to the cell makes the subject a little likelier (x1.5); a subject
  whose neighbourhood can no longer hold enough targets is ruled out;
- ``neighbours`` with ``at_most`` (V2: Fezron Camps and Skulls apart): a cell next to too many seen
  targets cannot be the subject, and a cell next to a seen subject that has its fill cannot be a target;
- ``connected`` (C6): each seen t orthogonally beside the cell, x2;
- ``column_pair`` (F1): a column with a seen ``first`` and no seen ``second``: ``second`` x3;
- ``distinct_neighbours`` (C7): a terrain already seen around a neighbouring Skull cannot be the cell's;
- ``count`` with ``at_most`` (L2, L3, F2): with that many seen, ``w[t] = 0``;
- ``pattern`` (F2): the mini map's placements that fit the seen cells (none: 0; each seen match x2 + 1);
- ``hill_numbers`` (C9): a seen Hill in the cell's row or column whose count is already found rules the
  counted terrain out, else x2.

Kinds with nothing to say locally (``terrain_set``, ``briefing_cell``) read nothing. ``READINGS`` (the end of
this module) holds one reading per rule kind; a rule of a kind it lacks is an error, never silently skipped.

Speed: the bot weighs a few cells per turn, so ``LocalRules`` writes ``apply`` out once per rule set
(``_source``: the rules as straight-line code, in the fixed order above, which keeps each weight's
factors in the same order as a loop over the rules would) and compiles it (``_specialise``; the code is
shared by every game with the same rules). A cell's neighbours are read once per neighbourhood as a tuple
and counted in C. ``LineCounts`` holds what is per seen-cell list (row, column and map counts, each seen
subject's pull on its neighbours) and is extended from the previous list's, not recounted; ``stale``
tells the bot which cached weights a newly seen cell can change.
"""

from __future__ import annotations

from itertools import compress
from operator import itemgetter
from types import CodeType

from mapgen.terrain import TERRAINS

NT = len(TERRAINS)
_CODE: dict[str, CodeType] = {}  # the source of a rule set's ``apply`` -> its compiled code (shared by games)


def tuple_getter(cells: tuple):
    """``known -> (known[j] for j in cells)`` as a tuple, in C (``itemgetter``; it gives a bare item for one cell)."""
    if len(cells) > 1:
        return itemgetter(*cells)
    if cells:
        j = cells[0]
        return lambda known: (known[j],)
    return lambda known: ()


class LocalRules:
    """A chapter's rule instances compiled for one board and briefing: ``apply(w, cell, known, ...)``."""

    def __init__(self, rules, board, briefing, terrains):
        self.board = board
        n = board.size
        self.rules = tuple(rules)
        present = {t.index for t in terrains}
        self.rowcol = [divmod(i, board.width) for i in range(n)]
        # per cell: terrains ruled out by position (edge, ring): lists while the rules are read, then tuples
        self.zero: list = [[] for _ in range(n)]
        self.line_counts: list[tuple[int, int]] = []
        self.need: list[tuple[int, int, tuple, int, bool]] = []  # (subject, target, hood table, at_least, one way)
        self.apart: list[tuple[int, int, tuple, int]] = []  # (subject, target, hood table, at_most)
        self.connected: list[int] = []
        self.column_pairs: list[tuple[int, int]] = []
        self.distinct: list[tuple[int, tuple]] = []
        self.caps: list[tuple[int, int]] = []  # (terrain, at_most) over the whole map
        self.patterns: list[tuple[int, list]] = []  # (terrain, per cell: placements as [(cell, terrain)])
        self.counted: list[int] = []  # terrains Hills count
        pairs = set()
        for r in self.rules:
            if r.kind == "neighbours":
                pairs.add((r.subject.index, r.target.index, r.hood))
        for r in self.rules:
            try:
                read = READINGS[r.kind]
            except KeyError:
                raise ValueError(f"the heuristic has no local reading of rule kind {r.kind!r} (rule {r.id})") from None
            read(self, r, board, present, pairs, briefing)
        self.zero = [tuple(z) for z in self.zero]
        # the neighbour rules grouped by neighbourhood, so that a cell's neighbours are looked at once per
        # neighbourhood: (table, rules as (subject, target, at_least, one way), apart rules as (subject,
        # target, at_most), {seen subject: [(target, at_least)]} for the target side)
        hoods: dict[int, tuple] = {}
        for s_, t_, table, least, one_way in self.need:
            group = hoods.setdefault(id(table), (table, [], [], {}))
            group[1].append((s_, t_, least, one_way))
            group[3].setdefault(s_, []).append((t_, least))
        for s_, t_, table, most in self.apart:
            group = hoods.setdefault(id(table), (table, [], [], {}))
            group[2].append((s_, t_, most))
            group[3].setdefault(s_, []).append((t_, -most - 1))  # negative: an at_most rule (see apply)
        # by subject: a list indexed by terrain (and -1, unseen: the last item, None)
        self.hoods = tuple(
            (t, tuple(r), tuple(a), [tuple(by[k]) if k in by else None for k in range(NT + 1)])
            for t, r, a, by in hoods.values()
        )
        # terrains whose seen cells are counted per row, per column or over the map (LineCounts)
        lines = {t for t, _ in self.line_counts} | set(self.counted)  # (a Hill counts its row and column)
        self.row_terrains = tuple(sorted(lines))
        self.col_terrains = tuple(sorted(lines | {x for p in self.column_pairs for x in p}))
        self.map_terrains = tuple(sorted({t for t, _ in self.caps}))
        self.present = present
        self.orth = board.hood("orthogonal")
        self._read_tables(board)
        # per cell x: the places in LineCounts.pulls of the subjects whose pull reads x (x's and those of
        # the cells whose neighbourhood holds x), cleared when x is newly seen
        reset: list[set[int]] = [set() for _ in range(n)]
        for g, (table, _, _, _) in enumerate(self.hoods):
            for j in range(n):
                reset[j].add(g * n + j)
                for x in table[j]:
                    reset[x].add(g * n + j)
        self.pull_reset = [tuple(sorted(r)) for r in reset]
        #: ``apply(w, cell, known, counts, hills)``: nudge the prior weights ``w`` of an unseen cell by the
        #: rules around the seen cells (``known``: each cell's terrain index, -1 unseen; ``counts``: the
        #: ``LineCounts`` of ``known``; ``hills``: (cell, number, its row and column as a set) of each seen
        #: Hill with a number). Written out for this rule set and compiled (``_specialise``, ``_source``).
        self.apply = self._specialise()

    @staticmethod
    def _placements(board, pattern, terrain) -> list:
        """Per cell: the pattern's rotations placed with their origin there, all on the board; [] if none fits."""
        out = []
        rotations = pattern.rotations()
        for i in range(board.size):
            r, c = board.rc(i)
            rots = []
            for rot in rotations:
                cells = [(board.at(r + dr, c + dc), t) for dr, dc, t in rot]
                if any(j is None for j, _ in cells):
                    continue
                rots.append([(j, t.index) for j, t in cells if t is not None and t is not terrain])
            out.append(rots)
        return out

    # ----- what a cell's weights read (for the heuristic's cache) -----
    def _read_tables(self, board) -> None:
        """``readers``: per cell x, the cells whose weights read x's terrain directly (x itself included);
        ``relays``: per neighbourhood, the subjects whose seen cells read their own neighbours for their
        neighbours' weights (a neighbour rule's pull, a distinct-neighbours Skull) and, per cell x, the cells
        whose neighbourhood holds x. What ``stale`` reads."""
        n = board.size
        direct: list[set[int]] = [{x} for x in range(n)]
        subjects: dict[int, set[int]] = {}  # id(table) -> the terrains whose seen cells relay
        tables: dict[int, tuple] = {}
        for table, _, _, by_subject in self.hoods:
            tables[id(table)] = table
            subjects.setdefault(id(table), set()).update(s for s in range(NT) if by_subject[s] is not None)
        for t, table in self.distinct:
            tables[id(table)] = table
            subjects.setdefault(id(table), set()).add(t)
        if self.connected:
            tables.setdefault(id(self.orth), self.orth)
        for table in tables.values():
            for c in range(n):
                for x in table[c]:
                    direct[x].add(c)
        for _, per_cell in self.patterns:
            for c in range(n):
                for rot in per_cell[c]:
                    for x, _ in rot:
                        direct[x].add(c)
        self.readers = [frozenset(r) for r in direct]
        relays = []
        for key, subj in subjects.items():
            table = tables[key]
            holders: list[list[int]] = [[] for _ in range(n)]  # per cell x: the cells c with x in table[c]
            for c in range(n):
                for x in table[c]:
                    holders[x].append(c)
            relays.append(
                (frozenset(subj), tuple(tuple(h) for h in holders), [tuple_getter(tuple(h)) for h in holders])
            )
        self.relays = tuple(relays)
        w = board.width
        self.row_cells = [frozenset(range(r * w, (r + 1) * w)) for r in range(board.height)]
        self.col_cells = [frozenset(range(c, n, w)) for c in range(w)]

    def stale(
        self, changed: list[int], known: list[int], old: LineCounts, new: LineCounts
    ) -> tuple[set[int], list[tuple[int, frozenset[int]]]] | None:
        """The cells whose weights may differ between two seen-cell lists, ``old.known`` and ``new.known``
        (``known``), which differ by the newly seen cells ``changed``: (cells, [(terrain, cells), ...]), the
        second part the cells whose weights may differ only if they allow that terrain; None: any cell's
        may (a cell hidden again). Seen Hills are the bot's to follow (``hills`` in ``apply``), and so are
        the map counts that reach their cap (``capped``).

        A cell's weights read its neighbourhoods' cells (``readers``), the neighbourhoods of the seen
        subjects among them (``relays``), and the row and column counts only through thresholds
        (``line_count``: n reached; ``column_pair``: one seen). A threshold changes one terrain's factor only
        (``line_count``: its terrain; ``column_pair``: the second), and ``apply`` reads no weight to set
        another, so a cell whose weight for that terrain is 0 keeps its weights.
        """
        out: set[int] = set()
        lines: list[tuple[int, frozenset[int]]] = []
        readers, relays = self.readers, self.relays
        for x in changed:
            if known[x] < 0:
                return None
            out |= readers[x]
            for subjects, holders, terrains in relays:
                if not subjects.isdisjoint(terrains[x](known)):  # (mostly no seen subject around x)
                    for j in holders[x]:
                        if known[j] in subjects:
                            out.update(holders[j])
        if self.line_counts or self.column_pairs:
            w = self.board.width
            for t, n in self.line_counts:
                old_row, new_row, old_col, new_col = old.row[t], new.row[t], old.col[t], new.col[t]
                for x in changed:
                    if known[x] == t:
                        r, c = divmod(x, w)
                        if old_row[r] < n <= new_row[r]:
                            lines.append((t, self.row_cells[r]))
                        if old_col[c] < n <= new_col[c]:
                            lines.append((t, self.col_cells[c]))
            for pair in self.column_pairs:
                for t in pair:
                    for x in changed:
                        if known[x] == t and not old.col[t][x % w]:
                            lines.append((pair[1], self.col_cells[x % w]))
        return out, lines

    def capped(self, old: LineCounts, new: LineCounts) -> list[int]:
        """The terrains whose map count reached its cap (``count`` with ``at_most``) between ``old`` and ``new``.

        The cap only sets the terrain's weight to 0 (``apply`` multiplies a zero weight by finite factors
        only, and no other weight reads it), so the weights of a cell that could not be that terrain stay.
        """
        return [t for t, most in self.caps if old.total[t] < most <= new.total[t]]

    # ----- the weights -----
    def _specialise(self):
        """This rule set's ``apply``: its source (``_source``) compiled once per rule set, bound to this board."""
        source, names = self._source()
        code = _CODE.get(source)
        if code is None:
            code = _CODE[source] = compile(source, "<local rules: apply>", "exec")
        namespace = dict(names)
        exec(code, namespace)  # noqa: S102 -- our own generated source (``_source``), not input
        self.source = source
        return namespace["apply"]

    def _source(self) -> tuple[str, dict]:
        """The source of ``apply`` for these rules, and the board's tables it reads (its globals).

        The rule kinds are read in a fixed order (positions, line counts, the neighbour rules by
        neighbourhood, connected, column pairs, distinct neighbours, map counts, patterns, Hills), so each
        terrain's weight gets the same factors in the same order whatever the chapter; a neighbourhood's
        terrains are read once per call as a tuple (``tuple_getter``) and counted in C (``tuple.count``).
        The source names no board: one compiled code serves every game with the same rule set. It holds
        only integers from the rules (terrain indices and counts, made ``int`` in ``__init__``).
        """
        names: dict = {
            "ZERO": self.zero,
            "ROWCOL": self.rowcol,
            "PULL": self._pull,
            "PATTERN": self._pattern_factor,
            "compress": compress,
        }
        tables: dict[int, int] = {}  # id(hood table) -> its number k: H{k} the table, K{k} per cell its getter
        fetched: set[int] = set()
        out = ["def apply(w, cell, known, counts, hills):", "    for t in ZERO[cell]:", "        w[t] = 0.0"]

        def table_no(table) -> int:
            k = tables.get(id(table))
            if k is None:
                k = tables[id(table)] = len(tables)
                names[f"H{k}"] = table
                names[f"K{k}"] = [tuple_getter(cells) for cells in table]
            return k

        def fetch(table) -> str:  # the terrains of the cell's neighbours in ``table``: variable k{k}
            k = table_no(table)
            if k not in fetched:
                fetched.add(k)
                out.append(f"    k{k} = K{k}[cell](known)")
            return f"k{k}"

        if self.line_counts or self.column_pairs:
            out.append("    row, col = ROWCOL[cell]")
        if self.line_counts:
            out.append("    rows, cols = counts.row, counts.col")
        for t, n in self.line_counts:
            out += [
                f"    if rows[{t}][row] >= {n} or cols[{t}][col] >= {n}:",
                f"        w[{t}] = 0.0",
                "    else:",
                f"        w[{t}] *= 1.5",
            ]
        if self.hoods:
            out.append("    pulls = counts.pulls")
        for g, (table, rules, apart, by_subject) in enumerate(self.hoods):
            ks = fetch(table)
            k = table_no(table)
            names[f"BY{g}"] = by_subject
            names[f"AT{g}"] = g * self.board.size  # where the neighbourhood's pulls start in LineCounts.pulls
            names[f"S{g}"] = subjects = frozenset(s for s in range(NT) if by_subject[s] is not None)
            names[f"IS{g}"] = subjects.__contains__
            out += ["    open_n = " + ks + ".count(-1)", f"    if open_n != len({ks}):"]
            # the cell as a subject: enough room left for its targets? (each rule only zeroes its subject
            # or multiplies it by 1.5, so their order within a neighbourhood does not matter)
            for s_, t, least, one_way in rules:
                if one_way and least == 1:  # (a one-way rule's seen target makes the subject likelier)
                    out += [
                        f"        if w[{s_}]:",
                        f"            if {t} in {ks}:",
                        f"                w[{s_}] *= 1.5",
                        "            elif not open_n:",
                        f"                w[{s_}] = 0.0",
                    ]
                elif one_way:
                    out += [
                        f"        if w[{s_}]:",
                        f"            found = {ks}.count({t})",
                        f"            if found + open_n < {least}:",
                        f"                w[{s_}] = 0.0",
                        "            elif found:",
                        f"                w[{s_}] *= 1.5",
                    ]
                elif least == 1:
                    out += [f"        if not open_n and w[{s_}] and {t} not in {ks}:", f"            w[{s_}] = 0.0"]
                else:
                    out += [
                        f"        if open_n < {least} and w[{s_}] and {ks}.count({t}) + open_n < {least}:",
                        f"            w[{s_}] = 0.0",
                    ]
            for s_, t, most in apart:
                test = f"{t} in {ks}" if most == 0 else f"{ks}.count({t}) > {most}"
                out += [f"        if w[{s_}] and {test}:", f"            w[{s_}] = 0.0"]
            out += [  # the cell as a target of each seen subject beside it, in neighbourhood order
                f"        if not S{g}.isdisjoint({ks}):",
                f"            for j in compress(H{k}[cell], map(IS{g}, {ks})):",
                f"                pull = pulls[AT{g} + j]",
                "                if pull is None:",
                f"                    pull = pulls[AT{g} + j] = PULL(K{k}[j](known), BY{g}[known[j]])",
                "                for t, factor in pull:",
                "                    w[t] *= factor",
            ]
        if self.connected:
            ks = fetch(self.orth)
        for t in self.connected:
            out += [f"    if w[{t}]:", f"        for _ in range({ks}.count({t})):", f"            w[{t}] *= 2.0"]
        if self.column_pairs:
            out.append("    cols = counts.col")
        for first, second in self.column_pairs:
            out += [
                f"    if w[{second}] and cols[{first}][col] and not cols[{second}][col]:",
                f"        w[{second}] *= 3.0",
            ]
        for t, table in self.distinct:
            ks = fetch(table)
            k = table_no(table)
            out += [
                f"    if {t} in {ks}:",
                f"        for j, tj in zip(H{k}[cell], {ks}):",
                f"            if tj == {t}:",
                f"                for ti in K{k}[j](known):",
                "                    if ti >= 0:  # (the cell itself is unseen)",
                "                        w[ti] = 0.0",
            ]
        if self.caps:
            out.append("    total = counts.total")
        for t, most in self.caps:
            out += [f"    if w[{t}] and total[{t}] >= {most}:", f"        w[{t}] = 0.0"]
        for p, (t, per_cell) in enumerate(self.patterns):
            names[f"PLACED{p}"] = per_cell
            out += [f"    if w[{t}]:", f"        w[{t}] *= PATTERN(PLACED{p}[cell], known)"]
        if self.counted:
            out.append("    if hills:")
        for t in self.counted:  # a Hill's line: its row and column (counted in LineCounts), less the Hill
            out += [
                f"        if w[{t}]:",
                f"            rows, cols = counts.row[{t}], counts.col[{t}]",
                "            for h, n, line in hills:",
                "                if cell in line:",
                "                    r, c = ROWCOL[h]",
                f"                    if rows[r] + cols[c] - (known[h] == {t}) >= n:",
                f"                        w[{t}] = 0.0",
                "                        break",
                f"                    w[{t}] *= 2.0",
            ]
        return "\n".join(out) + "\n", names

    @staticmethod
    def _pull(around: tuple, rs) -> tuple:
        """What a seen subject does to its unseen neighbours: ((target, factor), ...) by its rules ``rs``;
        ``around``: the terrains of its neighbours (-1 unseen)."""
        out = []
        for t, least in rs:
            found = around.count(t)
            if least < 0:  # an at_most rule: a subject with its fill of targets takes no more
                if found >= -least - 1:
                    out.append((t, 0.0))
            elif found < least:
                out.append((t, 1 + 6.0 / (around.count(-1) or 1)))
        return tuple(out)

    @staticmethod
    def _pattern_factor(rots, known) -> float:
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
        return 0.0 if best < 0 else 1.0 + 2.0 * best


class LineCounts:
    """For one ``known`` list: seen cells of the counted terrains per row, per column and over the map, and
    (filled as asked) what each seen subject of a neighbour rule does to the cells around it."""

    __slots__ = ("col", "known", "pulls", "row", "total")

    def __init__(self, known: list[int], rules: LocalRules, base: LineCounts | None = None, cells=None):
        """Counted over all of ``known``, or from ``base`` (the counts of an older list) and ``cells``, the
        cells seen since (none hidden again: counts only grow)."""
        b = rules.board
        self.known = known
        # per neighbourhood of the neighbour rules and cell: what the seen subject there does to its
        # neighbours (LocalRules._pull), None until asked
        if base is None:
            self.pulls = [None] * (b.size * len(rules.hoods))  # (neighbourhood g, cell j) at g * size + j
            self.row = {t: [0] * b.height for t in rules.row_terrains}
            self.col = {t: [0] * b.width for t in rules.col_terrains}
            self.total = dict.fromkeys(rules.map_terrains, 0)
            cells = range(len(known))
            rows, cols, total = self.row, self.col, self.total
            w = b.width
            for i in cells:
                t = known[i]
                if t < 0:
                    continue
                if t in rows:
                    rows[t][i // w] += 1
                if t in cols:
                    cols[t][i % w] += 1
                if t in total:
                    total[t] += 1
        else:  # the base's lists are shared until a count changes (copied on write)
            rows, cols, total = self.row, self.col, self.total = base.row.copy(), base.col.copy(), base.total.copy()
            pulls = self.pulls = base.pulls.copy()  # the pulls that read no newly seen cell stand
            reset = rules.pull_reset
            w = b.width
            for i in cells:
                for k in reset[i]:
                    pulls[k] = None
                t = known[i]
                if t in rows:
                    counts = rows[t] = rows[t].copy()
                    counts[i // w] += 1
                if t in cols:
                    counts = cols[t] = cols[t].copy()
                    counts[i % w] += 1
                if t in total:
                    total[t] += 1


# -- the local reading of each rule kind (one entry per kind of constraints.rules.KINDS; tests check it) ------


def _read_nothing(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    """``terrain_set`` (the bot guesses only the chapter's terrains anyway), ``briefing_cell`` (the Peak and the
    start are seen from the first turn): nothing to say about an unseen cell."""


def _read_not_on_edge(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    for i in range(board.size):
        if board.is_edge(i):
            lr.zero[i].append(r.terrain.index)


def _read_ring(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    for i in range(board.size):
        if board.edge_distance(i) != r.depth:
            lr.zero[i].append(r.terrain.index)


def _read_line_count(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    lr.line_counts.append((r.terrain.index, int(r.count)))


def _read_neighbours(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    if r.subject.index not in present:  # no subject on the map: nothing to say
        return
    s, t, table = r.subject.index, r.target.index, board.hood(r.hood)
    if r.at_least > 0:
        lr.need.append((s, t, table, int(r.at_least), (t, s, r.hood) not in pairs))
        for i in range(board.size):  # too few neighbours on the board to hold the targets
            if len(table[i]) < r.at_least:
                lr.zero[i].append(s)
    if r.at_most is not None:
        lr.apart.append((s, t, table, int(r.at_most)))


def _read_connected(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    lr.connected.append(r.terrain.index)


def _read_column_pair(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    lr.column_pairs.append((r.first.index, r.second.index))


def _read_distinct_neighbours(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    lr.distinct.append((r.terrain.index, board.hood(r.hood)))


def _read_count(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    if r.at_most is not None:
        lr.caps.append((r.terrain.index, int(r.at_most)))


def _read_pattern(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    pattern = getattr(briefing, r.field, None)
    if pattern is not None:
        lr.patterns.append((r.terrain.index, lr._placements(board, pattern, r.terrain)))


def _read_hill_numbers(lr: LocalRules, r, board, present, pairs, briefing) -> None:
    lr.counted.append(r.counted.index)


#: rule kind -> how the heuristic reads an instance (what it appends to the LocalRules' tables)
READINGS = {
    "terrain_set": _read_nothing,
    "briefing_cell": _read_nothing,
    "not_on_edge": _read_not_on_edge,
    "ring": _read_ring,
    "line_count": _read_line_count,
    "neighbours": _read_neighbours,
    "connected": _read_connected,
    "column_pair": _read_column_pair,
    "distinct_neighbours": _read_distinct_neighbours,
    "count": _read_count,
    "pattern": _read_pattern,
    "hill_numbers": _read_hill_numbers,
}


def kernel_tables(lr: LocalRules) -> tuple:
    """The rule set's tables as arrays for ``kernels.weights`` (its arguments after ``known``, up to ``counted``):
    made once per ``LocalRules``."""
    import numpy as np  # deferred: only where the compiled weights are used

    board = lr.board
    n = board.size
    tables: list[tuple] = []
    index: dict[int, int] = {}

    def table_no(table) -> int:
        k = index.get(id(table))
        if k is None:
            k = index[id(table)] = len(tables)
            tables.append(table)
        return k

    need, apart = [], []
    by_start = []
    by_t: list[int] = []
    by_least: list[int] = []
    for table, rules, aparts, by_subject in lr.hoods:
        g = table_no(table)
        need += [(g, s, t, least, int(one_way)) for s, t, least, one_way in rules]
        apart += [(g, s, t, most) for s, t, most in aparts]
        starts = []
        for k in range(NT):
            starts.append(len(by_t))
            for t, least in by_subject[k] or ():
                by_t.append(t)
                by_least.append(least)
        starts.append(len(by_t))
        by_start.append(starts)
    orth_g = table_no(lr.orth) if lr.connected else 0
    distinct = [(t, table_no(table)) for t, table in lr.distinct]
    while len(by_start) < len(tables):  # tables of no neighbour rule: no subjects
        by_start.append([len(by_t)] * (NT + 1))
    hstart = np.zeros((max(len(tables), 1), n + 1), dtype=np.int64)
    hcells: list[int] = []
    for g, table in enumerate(tables):
        for c in range(n):
            hstart[g, c] = len(hcells)
            hcells += table[c]
        hstart[g, n] = len(hcells)
    if not by_start:
        by_start.append([0] * (NT + 1))
    zero = np.zeros((n, NT), dtype=np.uint8)
    for c, ts in enumerate(lr.zero):
        for t in ts:
            zero[c, t] = 1
    pstart, rstart, rcell, rterr = [], [0], [], []
    for _, per_cell in lr.patterns:
        starts = []
        for c in range(n):
            starts.append(len(rstart) - 1)
            for rot in per_cell[c]:
                for j, t in rot:
                    rcell.append(j)
                    rterr.append(t)
                rstart.append(len(rcell))
        starts.append(len(rstart) - 1)
        pstart.append(starts)

    def ints(rows, width=None):
        a = np.array(rows, dtype=np.int64)
        return a.reshape(-1, width) if width else a

    return (
        board.width,
        board.height,
        zero,
        ints(lr.line_counts, 2),
        hstart,
        ints(hcells),
        ints(need, 5),
        ints(apart, 4),
        ints(by_start, NT + 1),
        ints(by_t),
        ints(by_least),
        orth_g,
        ints(lr.connected),
        ints(lr.column_pairs, 2),
        ints(distinct, 2),
        ints(lr.caps, 2),
        ints([t for t, _ in lr.patterns]),
        ints(pstart, n + 1) if pstart else np.zeros((0, n + 1), dtype=np.int64),
        ints(rstart),
        ints(rcell),
        ints(rterr),
        ints(lr.counted),
    )
