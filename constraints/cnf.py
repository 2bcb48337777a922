"""A state as CNF, counted exactly by Ganak (pyganak) with projection onto the terrain variables.

One Boolean per (unrevealed cell, chapter terrain), exactly one true per cell; revealed cells are
constants folded away while the clauses are built. Every rule kind of ``constraints/rules.py`` has
an encoding here (``encode_rule``, dispatch on the class); cardinalities use direct clauses when
they are few and a sequential counter otherwise (pysat's totalizer on request). Auxiliary variables
(reachability layers for a connected terrain, pattern matches, counters) are defined both ways from
the terrain variables (pysat's totalizer one way only) and projected away: Ganak counts the distinct assignments of the terrain
variables only, so the count is the number of completions.

Ganak has no time limit of its own, so ``count_completions_cnf`` runs it in a child process and
kills it at the limit (raising ``CountTimeout``). Most of Ganak's time on 7x7 states goes to its
tree decomposition (a fixed 900 FlowCutter rounds that pyganak cannot change): about 1 to 3 CPU
seconds once some 80 or more terrain variables survive its preprocessing (see bench/bench_count.py).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import multiprocessing
import os
import time
from dataclasses import dataclass, field
from functools import singledispatch

from pysat.card import CardEnc, EncType

from constraints.catalogue import Chapter, chapter_for
from constraints.rules import (
    BriefingCell,
    ColumnPair,
    Connected,
    Count,
    DistinctNeighbours,
    HillNumbers,
    LineCount,
    Neighbours,
    NotOnEdge,
    PatternMatch,
    Ring,
    Rule,
    TerrainSet,
    hill_line,
    pattern_placements,
)
from mapgen.model import Map
from mapgen.terrain import Terrain
from mapgen.workers import start_worker, wait_child

#: Constant literals. A literal is a nonzero int (DIMACS) or one of these.
TRUE = True
FALSE = False
#: A literal's type: a DIMACS variable (negated: minus it), or TRUE/FALSE (bools, which are ints too).
Lit = int
#: Up to this many clauses, a cardinality constraint is written out directly (no auxiliary variables).
DIRECT_CARD_LIMIT = 120
#: The same limit for the "compile" style: a direct at-most-k over a whole row or column is a clique
#: of the primal graph (rows and columns together a rook's graph, wide for d4's tree decomposition);
#: a sequential counter chains the literals instead.
COMPILE_DIRECT_CARD_LIMIT = 6
#: How large cardinalities are encoded: "counter" (one sequential counter per constraint, cut at the
#: bound) or "pysat" (pysat's CardEnc totalizer per bound). The counter is faster for Ganak here.
CARD_ENCODING = "counter"
#: The default time limit of a count, in seconds (None: no limit, counted in this process).
DEFAULT_TIME_LIMIT = 60.0


class CountTimeout(TimeoutError):
    """The exact count did not finish within its time limit."""


class CountError(RuntimeError):
    """The counter failed (crashed or returned nothing)."""


class CountSpent(CountError):
    """The counter used its CPU budget before it finished (the same on a busy machine as on an idle one)."""


def _neg(lit):
    if lit is TRUE:
        return FALSE
    if lit is FALSE:
        return TRUE
    return -lit


@dataclass
class Cnf:
    """A state's CNF: clauses over numbered variables, the projection set, and readable variable names.

    ``x[i][t]`` is the literal "cell i holds terrain t" (an int, or TRUE/FALSE once decided).
    ``broken`` names the rules already broken by constants (then the formula has no model).
    """

    state: Map
    chapter: Chapter
    x: list[dict[Terrain, int]] = field(default_factory=list)  # a variable, or TRUE/FALSE (bools) when fixed
    clauses: list[list[int]] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    sampling: list[int] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    nvars: int = 0
    #: "count" (the encodings Ganak counts fastest) or "compile" (those the d4 compiler handles; same models).
    style: str = "count"
    _defined: dict = field(default_factory=dict, repr=False)

    def new_var(self, name: str) -> int:
        self.nvars += 1
        self.names[self.nvars] = name
        return self.nvars

    def lit(self, i: int, t: Terrain):
        """Cell i holds terrain t: a variable, or TRUE/FALSE when decided."""
        return self.x[i].get(t, FALSE)

    def add(self, clause, rule: Rule | None = None) -> None:
        """Add a clause of literals, folding constants; an empty clause marks the formula broken."""
        out = []
        for lit in clause:
            if lit is TRUE:
                return
            if lit is FALSE:
                continue
            out.append(lit)
        if not out:
            self.broken.append(rule.id if rule else "cells")
            return
        self.clauses.append(sorted(set(out), key=abs))

    def fix(self, i: int, t: Terrain, value: bool, rule: Rule) -> None:
        """Decide "cell i holds t" (used by one-cell rules): a unit clause, or a broken rule."""
        self.add([self.lit(i, t) if value else _neg(self.lit(i, t))], rule)

    def define(self, name: str, terms, rule: Rule | None = None):
        """A literal equal to the disjunction of conjunctions ``terms`` (each a list of literals).

        Constants fold away: the result is TRUE, FALSE, an existing literal, or a new variable defined
        both ways (so it is a function of the others and counts project it away for free). The same
        definition asked twice gives the same variable."""
        out = set()
        for term in terms:
            if any(lit is FALSE for lit in term):
                continue
            t = frozenset(lit for lit in term if lit is not TRUE)
            if not t:
                return TRUE
            if any(-lit in t for lit in t):
                continue
            out.add(t)
        # a term that contains another is redundant (absorption)
        terms = [t for t in out if not any(o < t for o in out)]
        if not terms:
            return FALSE
        if len(terms) == 1 and len(next(iter(terms))) == 1:
            return next(iter(terms[0]))
        key = frozenset(terms)
        if key in self._defined:
            return self._defined[key]
        v = self.new_var(name)
        for t in terms:
            self.add([v, *(-lit for lit in t)], rule)
        for pick in itertools.product(*(sorted(t, key=abs) for t in terms)):
            if not any(-lit in pick for lit in pick):
                self.add([-v, *pick], rule)
        self._defined[key] = v
        return v

    # --- cardinality -------------------------------------------------------------------------

    def bounds(self, lits, lo: int, hi: int | None, rule: Rule, cond=TRUE) -> None:
        """Between ``lo`` and ``hi`` (None: no upper bound) of ``lits`` are true, when ``cond`` holds.

        Small cases are written out directly (no auxiliary variables). Otherwise one sequential
        counter serves both bounds (``CARD_ENCODING == "counter"``, the default) or pysat's totalizer
        encodes each bound (``"pysat"``)."""
        lits, lo, hi = self._fold(lits, lo, hi)
        n = len(lits)
        if hi is not None and hi >= n:
            hi = None
        if lo > n or (hi is not None and hi < max(lo, 0)):
            self.add([_neg(cond)], rule)
            return
        need_lo = lo >= 1 and not self._direct_at_least(lits, lo, rule, cond)
        # the upper bound left to an encoding (None: none, or written out directly)
        upper = hi if hi is not None and not self._direct_at_most(lits, hi, rule, cond) else None
        if not (need_lo or upper is not None):
            return
        if CARD_ENCODING == "pysat":
            if need_lo:
                self._card(CardEnc.atleast, lits, lo, rule, cond)
            if upper is not None:
                self._card(CardEnc.atmost, lits, upper, rule, cond)
            return
        top = upper + 1 if upper is not None else lo
        counts = self._counter(lits, top, rule)
        if need_lo:
            self.add([_neg(cond), counts[lo - 1]], rule)
        if upper is not None:
            self.add([_neg(cond), _neg(counts[upper])], rule)

    def at_most(self, lits, k: int, rule: Rule, cond=TRUE) -> None:
        """At most k of ``lits`` are true, when ``cond`` holds."""
        self.bounds(lits, 0, k, rule, cond)

    def at_least(self, lits, k: int, rule: Rule, cond=TRUE) -> None:
        """At least k of ``lits`` are true, when ``cond`` holds."""
        self.bounds(lits, k, None, rule, cond)

    def exactly(self, lits, k: int, rule: Rule, cond=TRUE) -> None:
        self.bounds(lits, k, k, rule, cond)

    def _fold(self, lits, lo: int, hi: int | None):
        """Drop FALSE literals; each TRUE one lowers both bounds."""
        lits = list(lits)
        done = sum(lit is TRUE for lit in lits)
        rest = [lit for lit in lits if lit is not TRUE and lit is not FALSE]
        return rest, lo - done, None if hi is None else hi - done

    def _direct_limit(self) -> int:
        return DIRECT_CARD_LIMIT if self.style == "count" else COMPILE_DIRECT_CARD_LIMIT

    def _direct_at_least(self, lits, k: int, rule: Rule, cond) -> bool:
        """Write "at least k" as plain clauses (every n-k+1 of the literals hold a true one) when few."""
        if k == 1 or math.comb(len(lits), k - 1) <= self._direct_limit():
            for group in itertools.combinations(lits, len(lits) - k + 1):
                self.add([_neg(cond), *group], rule)
            return True
        return False

    def _direct_at_most(self, lits, k: int, rule: Rule, cond) -> bool:
        """Write "at most k" as plain clauses (every k+1 of the literals hold a false one) when few."""
        if k == 0 or math.comb(len(lits), k + 1) <= self._direct_limit():
            for group in itertools.combinations(lits, k + 1):
                self.add([_neg(cond), *(-lit for lit in group)], rule)
            return True
        return False

    def _counter(self, lits, k: int, rule: Rule) -> list[Lit]:
        """A sequential counter cut at k (Sinz): the returned ``counts[j]`` says "at least j+1 of ``lits``
        are true". O(n·k) auxiliaries, each defined both ways (a function of the terrain variables),
        chained in the literals' order (board order), which keeps the formula narrow for Ganak. pysat's
        ``atleast`` negates into an at-most of n-k, quadratic for "at least 3 of 49 cells"."""
        prev: list[Lit] = [FALSE] * k
        for n, x in enumerate(lits):
            cur = []
            for j in range(min(k, n + 1)):
                below = TRUE if j == 0 else prev[j - 1]
                s = self.new_var(f"count_{rule.id}_{n}_{j + 1}")
                # s <-> prev[j] or (x and below)
                self.add([-s, prev[j], x], rule)
                self.add([-s, prev[j], below], rule)
                self.add([s, _neg(prev[j])], rule)
                self.add([s, -x, _neg(below)], rule)
                cur.append(s)
            prev = cur + prev[len(cur) :]
        return prev

    def _card(self, encode, lits, k: int, rule: Rule, cond) -> None:
        enc = encode(lits=lits, bound=k, top_id=self.nvars, encoding=EncType.totalizer)
        for v in range(self.nvars + 1, enc.nv + 1):
            self.names[v] = f"card_{rule.id}_{v}"
        self.nvars = max(self.nvars, enc.nv)
        for clause in enc.clauses:
            self.add([_neg(cond), *clause], rule)

    def dimacs(self) -> str:
        """The formula in DIMACS with its projection set (``c p show ... 0``), for other counters."""
        lines = [f"p cnf {self.nvars} {len(self.clauses)}"]
        lines.append("c p show " + " ".join(map(str, self.sampling)) + " 0")
        lines.extend(" ".join(map(str, c)) + " 0" for c in self.clauses)
        return "\n".join(lines) + "\n"


# --- one encoding per rule kind ----------------------------------------------------------------


@singledispatch
def encode_rule(rule: Rule, cnf: Cnf) -> None:
    """Add ``rule``'s clauses to ``cnf`` (dispatch on the rule kind)."""
    raise NotImplementedError(f"no CNF encoding for rule kind {type(rule).__name__}")


@encode_rule.register
def _(rule: TerrainSet, cnf: Cnf) -> None:
    for i, lits in enumerate(cnf.x):
        for t in lits:
            if t not in rule.terrains:
                cnf.fix(i, t, False, rule)


@encode_rule.register
def _(rule: NotOnEdge, cnf: Cnf) -> None:
    board = cnf.state.board
    for i in range(board.size):
        if board.is_edge(i):
            cnf.fix(i, rule.terrain, False, rule)


@encode_rule.register
def _(rule: Ring, cnf: Cnf) -> None:
    board = cnf.state.board
    for i in range(board.size):
        if board.edge_distance(i) != rule.depth:
            cnf.fix(i, rule.terrain, False, rule)


@encode_rule.register
def _(rule: BriefingCell, cnf: Cnf) -> None:
    i = rule.cell(cnf.state)
    if i is None:
        cnf.broken.append(rule.id)
    else:
        cnf.fix(i, rule.terrain, True, rule)


@encode_rule.register
def _(rule: Neighbours, cnf: Cnf) -> None:
    table = cnf.state.board.hood(rule.hood)
    for i in range(cnf.state.board.size):
        s = cnf.lit(i, rule.subject)
        if s is FALSE:
            continue
        around = [cnf.lit(j, rule.target) for j in table[i]]
        cnf.bounds(around, rule.at_least, rule.at_most, rule, cond=s)


@encode_rule.register
def _(rule: LineCount, cnf: Cnf) -> None:
    board = cnf.state.board
    for line in (*board.rows, *board.cols):
        cnf.exactly([cnf.lit(i, rule.terrain) for i in line], rule.count, rule)


@encode_rule.register
def _(rule: Count, cnf: Cnf) -> None:
    lits = [cnf.lit(i, rule.terrain) for i in range(cnf.state.board.size)]
    cnf.bounds(lits, rule.at_least, rule.at_most, rule)


@encode_rule.register
def _(rule: HillNumbers, cnf: Cnf) -> None:
    state, board = cnf.state, cnf.state.board
    for i, number in state.hills.items():
        if state.cells[i] is not rule.hill:
            continue
        line = [cnf.lit(j, rule.counted) for j in hill_line(board, i)]
        cnf.exactly(line, number, rule)


@encode_rule.register
def _(rule: ColumnPair, cnf: Cnf) -> None:
    for col in cnf.state.board.cols:
        seconds = [cnf.lit(i, rule.second) for i in col]
        for i in col:
            cnf.add([_neg(cnf.lit(i, rule.first)), *seconds], rule)


@encode_rule.register
def _(rule: DistinctNeighbours, cnf: Cnf) -> None:
    table = cnf.state.board.hood(rule.hood)
    for i in range(cnf.state.board.size):
        s = cnf.lit(i, rule.terrain)
        if s is FALSE:
            continue
        for j, k in itertools.combinations(table[i], 2):
            for t in cnf.chapter.terrains:
                cnf.add([_neg(s), _neg(cnf.lit(j, t)), _neg(cnf.lit(k, t))], rule)


@encode_rule.register
def _(rule: PatternMatch, cnf: Cnf) -> None:
    board = cnf.state.board
    pattern = getattr(cnf.state.briefing, rule.field)
    if pattern is None:
        cnf.broken.append(rule.id)
        return
    for i in range(board.size):
        f = cnf.lit(i, rule.terrain)
        if f is FALSE:
            continue
        matches: list[Lit] = []
        for r, rot in enumerate(pattern.rotations()):
            placed = pattern_placements(board, i, rot)
            if placed is None:
                continue
            need = [cnf.lit(j, t) for j, t in placed if t is not None]
            if any(lit is FALSE for lit in need):
                continue
            need = [lit for lit in need if lit is not TRUE]
            if not need:
                matches.append(TRUE)
                continue
            m = cnf.new_var(f"match_{board.name(i)}_rot{r}")
            for lit in need:
                cnf.add([-m, lit], rule)
            cnf.add([m, *(-lit for lit in need)], rule)
            matches.append(m)
        cnf.add([_neg(f), *matches], rule)


@encode_rule.register
def _(rule: Connected, cnf: Cnf) -> None:
    if cnf.style == "compile":
        _connected_frontier(rule, cnf)
    else:
        _connected_layers(rule, cnf)


def _connected_frontier(rule: Connected, cnf: Cnf) -> None:
    """Connectivity swept row by row (the frontier method of path and polyomino enumeration).

    Cells are taken in board order inside the bounding box of the terrain's possible cells; the
    frontier is the last ``width`` cells taken. For the frontier cells a, b, ``conn[a, b]`` says a
    and b are joined through the terrain among the cells taken so far, and ``rt[a]`` says a is joined
    to the root (a sure cell of the terrain, or else the first cell holding it). Adding a cell v joins
    what its up and left neighbours join; when a cell leaves the frontier while holding the terrain,
    it must be joined to the root or to a cell still in the frontier (otherwise its group is closed
    off without the root). Each auxiliary depends on the previous frontier only, so the formula is a
    narrow chain, which the d4 compiler decomposes (the reachability layers tie every cell to every
    layer). Every auxiliary is defined both ways from the terrain variables."""
    board, terrain = cnf.state.board, rule.terrain
    cand = [i for i in range(board.size) if cnf.lit(i, terrain) is not FALSE]
    if len(cand) <= 1:
        return
    rows = [board.rc(i)[0] for i in cand]
    cols = [board.rc(i)[1] for i in cand]
    r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
    width = c1 - c0 + 1
    # the cells' bounding box in reading order (inside the board: ``at`` is never None)
    order = [v for r in range(r0, r1 + 1) for c in range(c0, c1 + 1) if (v := board.at(r, c)) is not None]
    root_cell = _sure_cell(cnf, terrain, cand)
    roots: dict[int, Lit]
    if root_cell is not None:
        roots = {v: (TRUE if v == root_cell else FALSE) for v in cand}
    else:
        roots = _first_cell_roots(cnf, terrain, cand)
    x = {v: cnf.lit(v, terrain) for v in order}
    pos = {v: p for p, v in enumerate(order)}
    conn: dict[tuple[int, int], object] = {}  # keys (a, b) with a before b in order; (a, a) is x[a]
    rt: dict[int, object] = {}
    front: list[int] = []

    def c(a, b):
        if a == b:
            return x[a]
        return conn[(a, b) if pos[a] < pos[b] else (b, a)]

    for p, v in enumerate(order):
        name = board.name(v)
        near = [
            u for u in (order[p - width] if p >= width else None, order[p - 1] if p % width else None) if u is not None
        ]
        join = {a: cnf.define(f"join_{board.name(a)}_{name}", [[c(a, u)] for u in near], rule) for a in front}
        new = {}
        for i, a in enumerate(front):
            for b in front[i + 1 :]:
                new[(a, b)] = cnf.define(
                    f"conn_{board.name(a)}_{board.name(b)}_{name}", [[c(a, b)], [x[v], join[a], join[b]]], rule
                )
            new[(a, v)] = cnf.define(f"conn_{board.name(a)}_{name}", [[x[v], join[a]]], rule)
        rt_v = cnf.define(f"rootward_{name}", [[roots.get(v, FALSE)], *([x[v], rt[u]] for u in near)], rule)
        new_rt = {
            a: cnf.define(f"rootward_{board.name(a)}_{name}", [[rt[a]], [new[(a, v)], rt_v]], rule) for a in front
        }
        new_rt[v] = rt_v
        conn.update(new)
        if p >= width:
            u = front.pop(0)
            # u leaves the frontier: its group must hold the root or go on through the frontier.
            cnf.add([_neg(x[u]), new_rt[u], *(new[(u, b)] for b in [*front, v])], rule)
        front.append(v)
        rt = {a: new_rt[a] for a in front}
    for a in front:
        cnf.add([_neg(x[a]), rt[a]], rule)


def _connected_layers(rule: Connected, cnf: Cnf) -> None:
    """Layered reachability from a root cell of the terrain: reach[v][k] says v is joined to the root
    by a path of at most k steps through the terrain; every cell of the terrain must be reached."""
    board, terrain = cnf.state.board, rule.terrain
    cand = [i for i in range(board.size) if cnf.lit(i, terrain) is not FALSE]
    if len(cand) <= 1:
        return
    orth = board.hood("orthogonal")
    inside = set(cand)
    root_cell = _sure_cell(cnf, terrain, cand)
    level: dict[int, Lit]
    if root_cell is not None:
        level = {v: (TRUE if v == root_cell else FALSE) for v in cand}
    else:
        level = _first_cell_roots(cnf, terrain, cand)
    # reach in k steps is impossible before the grid distance from the root cell (when known).
    dist = _grid_distances(root_cell, cand, orth) if root_cell is not None else {v: 0 for v in cand}
    for k in range(1, len(cand)):
        nxt: dict[int, Lit] = {}
        for v in cand:
            if dist.get(v, len(cand)) > k:
                nxt[v] = FALSE
                continue
            before = [level[v], *(level[u] for u in orth[v] if u in inside)]
            if any(b is TRUE for b in before) and cnf.lit(v, terrain) is TRUE:
                nxt[v] = TRUE
                continue
            before = [b for b in before if b is not FALSE]
            x = cnf.lit(v, terrain)
            if not before:
                nxt[v] = FALSE
                continue
            r = cnf.new_var(f"reach_{board.name(v)}_{k}")
            # r <-> x and (any of before)
            cnf.add([-r, x], rule)
            cnf.add([-r, *before], rule)
            for b in before:
                cnf.add([r, _neg(x), _neg(b)], rule)
            nxt[v] = r
        level = nxt
    for v in cand:
        cnf.add([_neg(cnf.lit(v, terrain)), level[v]], rule)


def _sure_cell(cnf: Cnf, terrain: Terrain, cand: list[int]) -> int | None:
    """A cell that holds ``terrain`` in every completion: a revealed one, or a briefing cell (the Peak)."""
    for i in cand:
        if cnf.lit(i, terrain) is TRUE:
            return i
    for rule in cnf.chapter.rules:
        if isinstance(rule, BriefingCell) and rule.terrain is terrain:
            cell = rule.cell(cnf.state)
            if cell is not None and cell in cand:
                return cell
    return None


def _grid_distances(root: int, cand: list[int], orth) -> dict[int, int]:
    inside, dist, todo = set(cand), {root: 0}, [root]
    for v in todo:
        for u in orth[v]:
            if u in inside and u not in dist:
                dist[u] = dist[v] + 1
                todo.append(u)
    return dist


def _first_cell_roots(cnf: Cnf, terrain: Terrain, cand: list[int]) -> dict[int, Lit]:
    """With no sure cell, the root is the first cell (in cell order) holding the terrain."""
    roots: dict[int, Lit] = {}
    seen: Lit = FALSE  # some earlier candidate holds the terrain
    board = cnf.state.board
    for v in cand:
        x = cnf.lit(v, terrain)
        root = cnf.new_var(f"root_{board.name(v)}")
        cnf.add([-root, x])
        if seen is not FALSE:
            cnf.add([-root, -seen])
        cnf.add([root, _neg(x), seen])
        roots[v] = root
        after = cnf.new_var(f"seen_{board.name(v)}")  # after <-> seen or x
        cnf.add([-after, x, seen])
        cnf.add([after, _neg(x)])
        if seen is not FALSE:
            cnf.add([after, -seen])
        seen = after
    return roots


# --- building and counting ---------------------------------------------------------------------


STYLES = ("count", "compile")


def cnf_for_state(state: Map, chapter: Chapter | None = None, *, style: str = "count") -> Cnf:
    """The CNF of a state: terrain variables, exactly one per unrevealed cell, every rule of the chapter.

    ``style="count"`` gives the encodings Ganak counts fastest; ``style="compile"`` those the d4
    knowledge compiler handles (same models on the terrain variables, every auxiliary defined)."""
    if style not in STYLES:
        raise ValueError(f"unknown CNF style {style!r} (known: {', '.join(STYLES)})")
    chapter = chapter or chapter_for(state)
    cnf = Cnf(state, chapter, style=style)
    board = state.board
    for i, t in enumerate(state.cells):
        if t is None:
            lits = {u: cnf.new_var(f"cell_{board.name(i)}_{u.code}") for u in chapter.terrains}
            cnf.sampling.extend(lits.values())
            cnf.x.append(lits)
        else:
            cnf.x.append({t: TRUE})
    for lits in cnf.x:
        vs = [v for v in lits.values() if v is not TRUE]
        if vs:
            cnf.add(vs)
            for a, b in itertools.combinations(vs, 2):
                cnf.add([-a, -b])
    # One-cell rules first so the others fold their constants.
    ordered = sorted(chapter.rules, key=lambda r: not r.one_cell)  # one-cell rules first (the kind's trait)
    for rule in ordered:
        encode_rule(rule, cnf)
    return cnf


def _count_here(clauses, nvars: int, sampling: list[int]) -> int:
    from pyganak import Counter  # deferred: loaded only where a count runs (often a worker process)

    counter = Counter()
    if nvars:
        counter.new_vars(nvars)
    counter.add_clauses(clauses)
    counter.set_sampling_set(sampling)
    return counter.count()


def _approx_here(clauses, nvars: int, sampling: list[int], epsilon: float, delta: float, seed: int) -> int:
    from pyapproxmc import Counter  # deferred: loaded only where an estimate runs (often a worker process)

    counter = Counter(seed=seed, epsilon=epsilon, delta=delta)
    counter.add_clauses(clauses)
    cells, hashes = counter.count(sampling)
    return cells * 2**hashes


def _child(conn, work, args) -> None:
    start_worker()  # Ctrl-C is the parent's to handle; the parent's end (killed, interrupted) ends this child
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # Ganak prints progress lines on stdout
    try:
        conn.send(("ok", work(*args)))
    except Exception as e:  # noqa: BLE001 - any failure goes to the parent as a message
        conn.send(("error", f"{type(e).__name__}: {e}"))
    finally:
        conn.close()


def _in_child(work, args, time_limit: float, what: str, cpu_limit: float | None = None):
    """Run ``work(*args)`` in a child process killed after ``time_limit`` seconds (CountTimeout) or, when
    given, once it has used ``cpu_limit`` CPU seconds (CountSpent)."""
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork") if "fork" in methods else multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, work, args), daemon=True)
    proc.start()
    child.close()
    assert proc.pid is not None  # started
    try:
        got = wait_child(parent, proc.pid, time.monotonic() + max(0.0, time_limit), cpu_limit)
        if got == "wall":
            raise CountTimeout(f"the {what} did not finish within {time_limit:g} s")
        if got == "cpu":
            raise CountSpent(f"the {what} did not finish within {cpu_limit:g} CPU s")
        try:
            status, value = parent.recv()
        except EOFError:
            raise CountError(f"the {what} died (exit code {proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5.0)
        parent.close()
    if status != "ok":
        raise CountError(f"the {what} failed: {value}")
    return value


def count_cnf(cnf: Cnf, time_limit: float | None = DEFAULT_TIME_LIMIT, *, cpu_limit: float | None = None) -> int:
    """Count the projected models of ``cnf`` with Ganak; raises CountTimeout past ``time_limit`` seconds,
    CountSpent past ``cpu_limit`` CPU seconds."""
    if cnf.broken:
        return 0
    if time_limit is None:
        return _count_here(cnf.clauses, cnf.nvars, cnf.sampling)
    return _in_child(_count_here, (cnf.clauses, cnf.nvars, cnf.sampling), time_limit, "exact count", cpu_limit)


def approx_count_cnf(
    cnf: Cnf,
    time_limit: float,
    *,
    epsilon: float = 0.8,
    delta: float = 0.2,
    seed: int = 1,
    cpu_limit: float | None = None,
) -> int:
    """ApproxMC's (epsilon, delta) estimate of the projected model count of ``cnf``.

    The guarantee (probabilistic, over ApproxMC's random hashes): with probability at least
    1 - delta the true count lies within [estimate / (1 + epsilon), estimate * (1 + epsilon)].
    Small counts come back exact. Runs in a child process killed after ``time_limit`` seconds
    (CountTimeout) or ``cpu_limit`` CPU seconds (CountSpent).
    """
    if cnf.broken:
        return 0
    if not cnf.sampling:
        return 1
    args = (cnf.clauses, cnf.nvars, cnf.sampling, epsilon, delta, seed)
    return _in_child(_approx_here, args, time_limit, "approximate count", cpu_limit)


def count_completions_cnf(
    state: Map,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    *,
    chapter: Chapter | None = None,
    cpu_limit: float | None = None,
) -> int:
    """The exact number of completions of ``state`` (RULES.md §6), counted by Ganak.

    The count runs in a child process that is killed after ``time_limit`` seconds (CountTimeout);
    ``time_limit=None`` counts in this process with no limit. ``chapter`` overrides the state's own
    chapter (a house-rule chapter on the same board).
    """
    return count_cnf(cnf_for_state(state, chapter), time_limit, cpu_limit=cpu_limit)


# --- knowledge compilation (d4) ----------------------------------------------------------------

#: d4's cache pages (its defaults are a 4 GB first page, too large for a capped child process).
D4_CACHE_PAGE = 64 << 20


#: d4 branching choices for ``compile_settings``: no one of them is best on every state (fauna-1
#: with 3 revealed cells compiles in 3.5 CPU s with "classic" and not in 30 s with "given"; flora-1
#: with only the Wood lines and the Rock group the other way round), so run two as a portfolio.
#: "mom" (classic branching scored by MOM) is what ``mapgen compile`` uses: see compiled.D4_HEURISTIC.
HEURISTICS = ("given", "classic", "mom", "tree-decomposition")


def compile_settings(cnf: Cnf, heuristic: str = "given") -> dict:
    """d4 settings for ``cnf`` (measured in bench/bench_compile.py), as plain data for ``d4_solver``.

    ``options`` overrides d4's defaults (``py_d4.dump_options_to_dict`` shape, merged key by key):
    64 MB cache pages always, and the branching ``heuristic``: "given" is d4's hybrid branching
    led by a given partial order, here the order the variables were made in (terrain variables
    cell by cell in board order, then each rule's auxiliaries in board order: ``order`` is a
    priority per variable 1..nvars, higher first), which keeps d4 sweeping the board; "classic" is
    d4's VSADS scoring alone; "mom" the same branching scored by MOM (most occurrences in the shortest
    clauses); "tree-decomposition" d4's default (hybrid, led by a tree decomposition)."""
    if heuristic not in HEURISTICS:
        raise ValueError(f"unknown d4 heuristic {heuristic!r} (known: {', '.join(HEURISTICS)})")
    n = cnf.nvars
    options: dict = {
        "cache": {"bucket": {"sizeFirstPage": str(D4_CACHE_PAGE), "sizeAdditionalPage": str(D4_CACHE_PAGE)}}
    }
    if heuristic in ("classic", "mom"):
        options["branching"] = {"branchingHeuristicType": "classic"}
        if heuristic == "mom":
            options["branching"]["scoringMethodType"] = "mom"
        return {"options": options, "order": None}
    if heuristic == "tree-decomposition":
        return {"options": options, "order": None}
    options["branching"] = {"partialOrder": {"partialOrderMethod": "given"}}
    return {"options": options, "order": [float(n - v) for v in range(1, n + 1)]}


def case_split(cnf: Cnf, cell: int) -> list[tuple[Terrain, Cnf]]:
    """One CNF per terrain the unrevealed ``cell`` may hold, each with that terrain as a unit clause.

    The parts' models are disjoint and together are ``cnf``'s models, so their circuits joined under
    one decision on the cell make a d-DNNF of ``cnf`` (counts add up). Compiling the parts in
    parallel child processes is how a state that d4 does not compile in one piece can still compile:
    flora-1 with 24 revealed cells does not finish in 25 s in one piece, and split on its next cell
    (D4, 13 parts) all parts finish in 14 CPU seconds together (bench/bench_compile.py figures)."""
    parts = []
    for t, lit in cnf.x[cell].items():
        if lit is TRUE or lit is FALSE:
            continue
        part = dataclasses.replace(cnf, clauses=[*cnf.clauses, [lit]], broken=list(cnf.broken))
        parts.append((t, part))
    return parts


def _merge(base: dict, over: dict) -> dict:
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value
    return base


def d4_solver(cnf: Cnf, settings: dict | None = None):
    """A ``py_d4.Solver`` for ``cnf`` with ``settings`` (default ``compile_settings(cnf)``).

    d4 has no time limit: call ``.compile()`` in a child process that can be killed. d4 ignores
    option values it does not know (it keeps its default silently), so the values here were
    checked against ``py_d4.dump_options_to_dict`` after loading."""
    import py_d4  # deferred: the compiler is loaded only where a compile runs (a child process)

    settings = compile_settings(cnf) if settings is None else settings
    options = _merge(py_d4.dump_options_to_dict(py_d4.OptionDpllStyleMethod()), settings.get("options", {}))
    config = py_d4.load_options_from_dict(options)
    order = settings.get("order")
    if order is not None:
        branching = config.optionBranchingHeuristic
        partial = branching.optionPartialOrderHeuristic
        partial.givenOrder = list(order)
        branching.optionPartialOrderHeuristic = partial
        config.optionBranchingHeuristic = branching
    return py_d4.Solver([list(c) for c in cnf.clauses], cnf.nvars, config)
