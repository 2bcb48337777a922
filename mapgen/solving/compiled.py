"""A briefing compiled once to a d-DNNF circuit, then every question is a pass over the circuit.

A briefing's maps are one fixed space and every reveal is a condition on it (the knowledge-compilation
line of d4, c2d and SDDs; feature-model analysis does exactly this with d4 and ddnnife). The CNF of a
state (``constraints.cnf``: one variable per unrevealed cell and terrain, auxiliaries defined both ways
from them) is compiled by the d4 compiler (PyPI ``d4solver``, CRIL) in a child process bounded in time
and memory; its decision-DNNF is kept as numpy arrays, grouped by height, so that

- the exact count under any further reveals is one upward pass (assumed literals zero the edges that
  contradict them);
- the count of every (cell, terrain) at once is one downward pass of partial derivatives (Darwiche's
  differential approach), which gives exact odds, forced cells and possible terrains together;
- exactly uniform random completions are drawn top-down, each OR edge with probability its count over
  the node's (integer arithmetic, seeded).

Counts are Python integers. Passes run in float64 when the circuit's unconditioned counts (an upper bound
on every conditioned one and on every partial derivative) stay below 2^53, where float64 holds every
integer exactly; in int64 below 2^62; else over Python integers (object arrays): exact in every mode.
``ddnnife`` (the d-DNNF reasoner of SoftVarE) answers one count or core per pass; the tests cross-check
this module against it, against Ganak and against brute force.

A circuit compiled from a *base* state (the empty board, or the state as revealed when the empty board
is too hard) answers every later state of the same briefing: its revealed cells must include the base's
and its Hill numbers must equal the base's (a Hill's number is a count, not a literal to condition on).

Circuits live in an on-disk cache (``CircuitCache``: the user cache folder, size-capped, least recently
used evicted) keyed by a hash of the chapter's rules, the briefing, the base and ``ENCODER_VERSION``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import multiprocessing
import os
import random
import re
import stat
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from constraints.catalogue import Chapter
from constraints.cnf import FALSE, TRUE, Cnf, cnf_for_state, compile_settings, d4_solver
from constraints.rules import HillNumbers, hill_line
from mapgen.errors import TimeLimitError, UnmetError
from mapgen.mapfile import dumps_map, parse_map
from mapgen.model import Briefing, Map
from mapgen.solving.nodes import AND, FALSE_NODE, OR, TRUE_NODE
from mapgen.terrain import Terrain
from mapgen.workers import ForkedChild, start_worker, wait_child

#: Bump when constraints/cnf.py's encoding or the compile's settings change: a cached circuit of another
#: version is never used.
ENCODER_VERSION = "cnf-2"  # cnf-2: compiled with D4_HEURISTIC (another circuit of the same maps: other seeded draws)
#: The compile's default limits: wall-clock seconds and bytes of address space for the child.
DEFAULT_COMPILE_SECONDS = 60.0
#: d4's branching for every compile (``compile_settings``): classic branching scored by MOM. Against VSADS
#: (d4's default scoring, used here before), one run each on an idle machine: fauna-1's empty board 21.5
#: against 46.1 s (2.9M against 5.6M nodes, 368 against 618 MB); fauna-3 with 3 revealed cells 7.1 against
#: 10.0 CPU s; maldonado-1 with 12 revealed 17.0 against 28.4 s; flora-1 with 24 revealed 8.7 against 18.3 s;
#: vameter-1 with 20 revealed 16.4 against 21.2 s; the small states as fast. VSIDS took 32.8 s on fauna's
#: empty board, DLCS 60.4 s and JW-TS 49.0 s. No scoring made Flora or Vameter with 12 revealed, or
#: Maldonado with 8, compile within 60 s.
D4_HEURISTIC = "mom"
DEFAULT_COMPILE_MEMORY = 4 << 30
#: The on-disk cache's default size cap in bytes.
DEFAULT_CACHE_BYTES = 2 << 30
#: Number modes of the passes: exact integers in float64 (counts below 2^53), int64 (below 2^62), Python ints.
FLOAT, INT, BIG = 0, 1, 2
_DTYPES = {FLOAT: np.float64, INT: np.int64, BIG: object}

#: The compiled passes (``mapgen.solving.kernels``) for a circuit of at least this many edges, from its second
#: query with reveals of its own on: they walk only what the reveals leave reachable (fauna's empty board, 4.8M
#: edges, four more cells: 23 ms against numpy's 500 ms), but loading numba costs a process about 0.6 s
#: once, which a single question to a circuit (one ``mapgen solve``) never wins back. Same answers.
KERNEL_EDGES = 200_000
KERNEL_FROM_QUERY = 2
#: Until a walk has loaded numba in the process, a circuit below ``KERNEL_FIRST_EDGES`` keeps to numpy's passes
#: until they have passed over this many of its edges (a count passes over each edge once, the odds about 4
#: times, a draw twice): about what loading numba costs (its import and the loops' first calls, 0.6-0.8 s,
#: against 58 ns an edge counted by numpy), so a command that asks a large circuit a few questions never pays
#: more than about twice the cheaper of the two (ski rental). ``mapgen deduce`` on 5 of the 32 shipped Fauna,
#: Flora, Vameter and Maldonado maps asks such a circuit 3-5 questions (vameter-1: 414k edges): 0.4-0.8 CPU s
#: less each, the same answers.
KERNEL_RENT_EDGES = 10_000_000
#: numba's load is paid in this process (a walk has run) or worth paying at once (a web app worker, which lives as
#: long as the server, sets it): circuits then walk from their ``KERNEL_FROM_QUERY``-th question, without the rent
KERNELS_PAID = False
#: From this many edges the walk answers the first question too, unless numpy's passes have made their
#: one-time edge sort already: with it to make, numpy's first pass costs more than loading numba (fauna's
#: empty board: 1.9 s against about 1 s); without, less (0.55 s).
KERNEL_FIRST_EDGES = 2_000_000


class CompileTimeout(TimeLimitError, TimeoutError):
    """The compile did not finish within its time limit."""


class CompileError(UnmetError, RuntimeError):
    """The compiler failed (out of memory, crashed, or gave a circuit that does not count the CNF)."""


class CompileSpent(CompileError):
    """The compile used its CPU budget before it finished (the same on a busy machine as on an idle one)."""


# --------------------------------------------------------------------------------------------------
# the circuit


@dataclass
class CircuitStats:
    nodes: int
    edges: int
    seconds: float
    count: int
    nvars: int

    def to_json(self) -> dict:
        return {"nodes": self.nodes, "edges": self.edges, "seconds": round(self.seconds, 3), "count": self.count}


class Dnnf:
    """A decision-DNNF as d4 writes it, prepared for passes: nodes by height, edges grouped by parent.

    Arrays: ``kind`` per node (AND, OR, TRUE_NODE, FALSE_NODE); edges sorted by (parent height, parent
    kind, parent) with ``child`` and their literals (``lit_edge``, ``lit``); per height a slice of
    edges and the parents' segment starts for ``reduceat``. Node 0 is the root.
    """

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.a = arrays
        self.kind = arrays["kind"]
        self.child = arrays["child"]
        self.parent = arrays["parent"]
        self.lit = arrays["lit"]
        self.lit_edge = arrays["lit_edge"]
        self.levels = arrays["levels"]  # rows: (edge_from, edge_mid, edge_to, seg_from, seg_mid, seg_to)
        self.seg_start = arrays["seg_start"]  # per parent segment, its first edge
        self.seg_node = arrays["seg_node"]  # per parent segment, its node
        self.nvars = int(arrays["nvars"][0])
        self.mode = int(arrays["mode"][0])
        self.n = len(self.kind)
        # per node, its edge range (for sampling): edges are contiguous per parent
        self._ranges: tuple[np.ndarray, np.ndarray] | None = None
        self._lit_start: np.ndarray | None = None
        self._prepared = False
        self._queries = 0  # with assumptions: when to switch to the compiled passes
        self._rent = 0  # edges numpy's passes went over for those queries (``KERNEL_RENT_EDGES``)
        self._walk: tuple[np.ndarray, int] | None = None  # per node its segment (-1: none), the widest
        self._local = threading.local()  # the walk's scratch arrays, per thread (``_scratch``)
        self._bounds: bool | None = None  # whether the walk may follow every index (``_in_bounds``)

    def _prepare(self) -> None:
        """What the downward pass reads besides the arrays (made once, in memory only): each parent
        segment's size, the positive literals, and per height the edges sorted by child (to add the
        derivatives of a child's parents in one reduceat)."""
        if self._prepared:
            return
        e = len(self.parent)
        self.seg_size = np.diff(np.r_[self.seg_start, e]).astype(np.int64)
        pos = self.lit > 0
        self.pos_lit, self.pos_edge = self.lit[pos], self.lit_edge[pos]
        perm = np.empty(e, dtype=np.int64)
        first = np.zeros(e, dtype=bool)
        for e0, _e1, e2, *_ in self.levels:
            local = np.argsort(self.child[e0:e2], kind="stable")
            perm[e0:e2] = e0 + local
            c = self.child[e0:e2][local]
            first[e0:e2] = np.r_[True, c[1:] != c[:-1]]
        self.sc_perm, self.sc_first = perm, first
        self._prepared = True

    # -- building ----------------------------------------------------------------------------------
    @classmethod
    def from_d4(cls, text: str | bytes, nvars: int) -> Dnnf:
        """Parse d4's NNF text: ``o|a|t|f ID 0`` node lines, ``PARENT CHILD LIT... 0`` edge lines.

        Vectorised and lean (fauna's empty board is 373 MB of text, 8.6M edges and 36.5M literals): each
        line's first byte says whether it is a node and of which kind; the letters become digits in one
        ``translate`` and numpy reads every number at once (int32: ids and literals fit); the zeros that end
        lines split them (0 is never a node id nor a literal)."""
        raw = text.encode("ascii") if isinstance(text, str) else text
        if not raw.endswith(b"\n"):
            raw += b"\n"
        b = np.frombuffer(raw, dtype=np.uint8)
        line_end = np.flatnonzero(b == 10)
        first_byte = b[np.r_[0, line_end[:-1] + 1]]
        del b, line_end
        tok = np.fromstring(raw.translate(_LETTERS_TO_DIGITS), dtype=np.int32, sep=" ")
        del raw
        if not len(tok) or tok[-1] != 0:
            raise CompileError("the compiler gave an unreadable circuit")
        ends = np.flatnonzero(tok == 0)
        if len(ends) != len(first_byte):
            raise CompileError("the compiler gave an unreadable circuit")
        starts = np.r_[0, ends[:-1] + 1]
        line_kind = _LINE_KIND[first_byte]
        del first_byte
        if np.any(line_kind == _BAD_LINE):
            raise CompileError("the compiler gave an unreadable circuit")
        is_node = line_kind >= 0
        nstart = starts[is_node]
        ids = tok[nstart + 1].astype(np.int64)
        if not len(ids):
            raise CompileError("the compiler gave an empty circuit")
        root = 1 if np.any(ids == 1) else int(ids.min())
        order = np.r_[ids[ids == root], ids[ids != root]]
        index = np.full(int(ids.max()) + 1, -1, dtype=np.int32)  # node and edge numbers fit: int32 arrays
        index[order] = np.arange(len(order), dtype=np.int32)
        kind = np.empty(len(order), dtype=np.int8)
        kind[index[ids]] = line_kind[is_node]
        del ids, order, nstart, line_kind
        estart, eend = starts[~is_node], ends[~is_node]
        del starts, ends, is_node
        if len(estart) and (int(tok[estart].max()) >= len(index) or int(tok[estart + 1].max()) >= len(index)):
            raise CompileError("the circuit names a node it does not define")
        par = index[tok[estart]]
        chi = index[tok[estart + 1]]
        if np.any(par < 0) or np.any(chi < 0):
            raise CompileError("the circuit names a node it does not define")
        del index
        nlits = eend - estart - 2
        # the literals: every token from a line's third up to its ending zero (+1 and -1 marks, summed)
        mark = np.zeros(len(tok) + 1, dtype=np.int8)
        mark[estart + 2] += 1
        mark[eend] -= 1
        lit = tok[np.cumsum(mark[:-1], dtype=np.int8) > 0]
        del mark, tok
        box = [kind, par, chi, lit, None, nlits]  # handed over: _build frees each array once it has moved it
        del kind, par, chi, lit, nlits
        return cls._build(box, nvars)

    @classmethod
    def build(cls, kind, par, chi, lit, lit_edge, nvars: int, *, per_edge: np.ndarray | None = None) -> Dnnf:
        """The circuit of nodes ``kind`` and edges ``par -> chi`` with literals ``lit`` on edges ``lit_edge``
        (or, with ``per_edge``, grouped by edge in edge order: ``per_edge[e]`` of them on edge e)."""
        box = [kind, par, chi, lit, lit_edge, per_edge]
        del kind, par, chi, lit, lit_edge, per_edge
        return cls._build(box, nvars)

    @classmethod
    def _build(cls, box: list, nvars: int) -> Dnnf:
        """``build`` of the arrays in ``box`` (kind, par, chi, lit, lit_edge, per_edge), which it empties: each
        array given is freed once its sorted copy is made (fauna's empty board peaked at 2.3 GB before)."""
        kind, par, chi, lit, lit_edge, per_edge = box
        box.clear()
        n = len(kind)
        height = _heights(n, par, chi)
        # edges sorted by (height of parent, kind of parent (AND first), parent), ties in their given order:
        # one stable sort of a combined key (what a lexsort of the three gives, in a third of the time)
        order = np.argsort((height[par] * 4 + kind[par]) * max(n, 1) + par, kind="stable")
        inv = np.empty_like(order)
        inv[order] = np.arange(len(order))
        par, chi = par[order], chi[order]
        lit, lit_edge = _regroup(lit, lit_edge, per_edge, order, inv)
        del inv, order, per_edge
        # parent segments
        if len(par):
            starts = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
        else:
            starts = np.zeros(0, dtype=np.int64)
        seg_node = par[starts] if len(par) else np.zeros(0, dtype=np.int64)
        levels = []
        hp = height[par] if len(par) else np.zeros(0, dtype=np.int64)
        kp = kind[par] if len(par) else np.zeros(0, dtype=np.int8)
        top_height = int(height.max(initial=0))
        del height
        for h in range(1, top_height + 1):
            e0, e2 = np.searchsorted(hp, h, "left"), np.searchsorted(hp, h, "right")
            if e0 == e2:
                continue
            e1 = e0 + int(np.searchsorted(kp[e0:e2], OR, "left"))
            s0, s1, s2 = (int(np.searchsorted(starts, e)) for e in (e0, e1, e2))
            levels.append((e0, e1, e2, s0, s1, s2))
        del hp, kp
        arrays = _arrays(kind, par, chi, lit, lit_edge, levels, starts, seg_node, np.array([nvars]), np.array([FLOAT]))
        d = cls(arrays)
        free = d._values(np.ones(len(par), dtype=bool), dtype=np.float64)
        top = float(free.max(initial=1.0))
        # a margin of 2^4 for sums of derivatives before they settle
        d.mode = FLOAT if top < 2.0**49 else INT if top < 2.0**58 else BIG
        arrays["mode"] = np.array([d.mode])
        return d

    def condition(self, assumptions: Iterable[int], *, at_most: float = 1.0) -> Dnnf | None:
        """The circuit of the models that hold ``assumptions``: the edges they leave alive into nodes that
        still have models, and the nodes reached through them from the root (early reveals leave a small
        part: on fauna's empty board 40% after one reveal, 12% after two, 1% after four). None when no
        model holds them, or when more than ``at_most`` of the edges would be kept (not worth a copy).

        No sort: kept edges keep their order (by parent height, kind, parent), nodes their order (the
        root stays node 0), so the heights, levels and segments carry over, renumbered."""
        alive = self.alive(assumptions)
        val = self._values(alive)
        if val[0] == 0:
            return None
        keep = alive & (val[self.child] > 0)
        reach = np.zeros(self.n, dtype=bool)
        reach[0] = True
        for e0, _e1, e2, *_ in self.levels[::-1]:  # parents before children
            sel = keep[e0:e2] & reach[self.parent[e0:e2]]
            reach[self.child[e0:e2][sel]] = True
        keep &= reach[self.parent]
        if keep.sum() > at_most * len(keep):
            return None
        node = np.cumsum(reach) - 1  # old node -> new node (where reached)
        edge = np.cumsum(keep)  # edges kept up to and including each old edge
        before = np.r_[0, edge]  # kept edges before each old edge position
        par, chi = node[self.parent[keep]], node[self.child[keep]]
        lit_keep = keep[self.lit_edge]
        lit, lit_edge = self.lit[lit_keep], edge[self.lit_edge[lit_keep]] - 1
        starts = np.flatnonzero(np.r_[True, par[1:] != par[:-1]]) if len(par) else np.zeros(0, dtype=np.int64)
        levels = []
        for e0, e1, e2, *_ in self.levels:
            n0, n1, n2 = int(before[e0]), int(before[e1]), int(before[e2])
            if n0 == n2:
                continue
            s0, s1, s2 = (int(np.searchsorted(starts, e)) for e in (n0, n1, n2))
            levels.append((n0, n1, n2, s0, s1, s2))
        seg_node = par[starts] if len(par) else np.zeros(0, dtype=np.int64)
        # its counts are no larger: the same number mode
        nvars, mode = self.a["nvars"], self.a["mode"]
        return Dnnf(_arrays(self.kind[reach], par, chi, lit, lit_edge, levels, starts, seg_node, nvars, mode))

    # -- storage -----------------------------------------------------------------------------------
    def write(self, stream) -> None:
        """The arrays as an ``.npz`` into ``stream`` (which need not be seekable: a zip member being written)."""
        np.savez(stream, **self.a)  # type: ignore[arg-type]  # numpy's stub types the first keyword only

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.a.values())

    # -- passes ------------------------------------------------------------------------------------
    def alive(self, assumptions: Iterable[int]) -> np.ndarray:
        """Per edge: whether none of its literals contradicts an assumption."""
        alive = np.ones(len(self.parent), dtype=bool)
        dead = np.fromiter((-a for a in assumptions), dtype=np.int64)
        if len(dead) and len(self.lit):
            table = np.zeros(2 * self.nvars + 1, dtype=bool)
            table[dead + self.nvars] = True
            alive[self.lit_edge[table[self.lit + self.nvars]]] = False
        return alive

    def _values(self, alive: np.ndarray, dtype=None) -> np.ndarray:
        """Every node's model count under the edges ``alive`` (the upward pass)."""
        dtype = dtype or _DTYPES[self.mode]
        val = np.zeros(self.n, dtype=dtype)
        val[(self.kind == TRUE_NODE) | (self.kind == AND)] = 1  # an AND without edges is true
        w = _weights(alive, dtype)
        for e0, e1, e2, s0, s1, s2 in self.levels:
            ev = val[self.child[e0:e2]] * w[e0:e2]
            if e1 > e0:
                val[self.seg_node[s0:s1]] = np.multiply.reduceat(ev[: e1 - e0], self.seg_start[s0:s1] - e0)
            if e2 > e1:
                val[self.seg_node[s1:s2]] = np.add.reduceat(ev[e1 - e0 :], self.seg_start[s1:s2] - e1)
        return val

    def count(self, assumptions: Iterable[int] = ()) -> int:
        assumptions = list(assumptions)
        if self._walking(assumptions):
            return int(self._walk_up(assumptions)[0][0])
        return int(self._values(self.alive(assumptions))[0])

    @property
    def lit_start(self) -> np.ndarray:
        """Per edge, where its literals begin in ``lit`` (they are grouped by edge, in edge order); one more
        entry at the end."""
        if self._lit_start is None:
            e = len(self.parent)
            self._lit_start = np.zeros(e + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.lit_edge, minlength=e), out=self._lit_start[1:])
        return self._lit_start

    # -- the compiled passes (``mapgen.solving.kernels``) -------------------------------------------
    def _walking(self, assumptions: list[int], passes: int = 1) -> bool:
        """Whether this query goes to the compiled passes (``KERNEL_EDGES``, ``KERNEL_FROM_QUERY``,
        ``KERNEL_RENT_EDGES``); ``passes``: how many times numpy's passes would go over each edge."""
        if not assumptions or self.mode == BIG or len(self.parent) < KERNEL_EDGES:
            return False  # no reveals of its own: every edge is reachable, numpy's level passes are faster
        self._queries += 1
        first = len(self.parent) >= KERNEL_FIRST_EDGES and not self._prepared
        paid = KERNELS_PAID or self._rent >= KERNEL_RENT_EDGES
        if not (first or (self._queries >= KERNEL_FROM_QUERY and paid)):
            self._rent += passes * len(self.parent)
            return False
        return self._in_bounds()

    def _in_bounds(self) -> bool:
        """Every index the walk follows points inside its array (checked once: compiled loops do not check,
        and numpy's passes raise where the walk would read or write out of bounds)."""
        if self._bounds is None:
            e, n = len(self.parent), self.n
            s = self.seg_start
            self._bounds = bool(
                (not e or (0 <= self.child.min() and self.child.max() < n))
                and (not len(self.lit) or np.abs(self.lit).max() <= self.nvars)
                and (not len(self.lit_edge) or (0 <= self.lit_edge.min() and self.lit_edge.max() < e))
                and (not len(s) or (s[0] >= 0 and s[-1] < e and bool(np.all(s[1:] > s[:-1]))))
                and (not len(self.seg_node) or (0 <= self.seg_node.min() and self.seg_node.max() < n))
                and len(self.seg_node) == len(s)
                and bool(np.all(self.lit_edge[1:] >= self.lit_edge[:-1]))
            )
        return self._bounds

    def _walk_up(self, assumptions: list[int]):
        """The depth-first upward pass: per node its count (visited nodes only), the post-order, its length,
        the dead-literal table."""
        from mapgen.solving import kernels  # deferred: numba, only for a large circuit asked again

        if self._walk is None:
            seg_of = np.full(self.n, -1, dtype=np.int64)
            seg_of[self.seg_node] = np.arange(len(self.seg_node))
            self._walk = (seg_of, int(np.diff(np.r_[self.seg_start, len(self.parent)]).max(initial=1)))
        seg_of, lit_start = self._walk[0], self.lit_start
        dead = np.zeros(2 * self.nvars + 1, dtype=np.bool_)
        dead[np.asarray([-a for a in assumptions], dtype=np.int64) + self.nvars] = True
        global KERNELS_PAID
        KERNELS_PAID = True
        val, order, seen, stack_v, stack_e, _der = self._scratch()
        k = kernels.up(
            self.kind, self.child, self.seg_start, seg_of, self.lit, lit_start, dead, self.nvars, val, order, seen,
            stack_v, stack_e,
        )  # fmt: skip
        return val, order, k, dead

    def _scratch(self) -> tuple[np.ndarray, ...]:
        """The walk's arrays (``kernels.up``), made once per thread and number type: val, order, seen, the two
        stacks, der. Zeroing arrays the size of the circuit for every walk cost more than the walk (14 of 15 ms
        on fauna's empty board after four reveals, 42k of 2.9M nodes visited)."""
        dtype = _DTYPES[self.mode]
        kept = self._local.__dict__.setdefault("scratch", {})
        if dtype not in kept:
            depth = len(self.levels) + 2  # every step goes one height down at least
            kept[dtype] = (
                np.zeros(self.n, dtype=dtype),
                np.empty(self.n, dtype=np.int64),
                np.zeros(self.n, dtype=np.int8),
                np.empty(depth, dtype=np.int64),
                np.empty(depth, dtype=np.int64),
                np.zeros(self.n, dtype=dtype),
            )
        return kept[dtype]

    def _walk_counts(self, assumptions: list[int]) -> tuple[int, dict[int, int]]:
        from mapgen.solving import kernels  # deferred: numba, only for a large circuit asked again

        val, order, k, dead = self._walk_up(assumptions)
        total = int(val[0])
        if total == 0:
            return 0, {}
        assert self._walk is not None
        seg_of, width = self._walk
        sums = np.zeros(self.nvars + 1, dtype=val.dtype)
        before = np.empty(width, dtype=val.dtype)
        kernels.down(
            self.kind, self.child, self.seg_start, seg_of, self.lit, self.lit_start, dead, self.nvars, val, order,
            k, sums, before, self._scratch()[5],
        )  # fmt: skip
        return total, {int(v): int(sums[v]) for v in np.flatnonzero(sums)}

    def literal_counts(self, assumptions: Iterable[int] = ()) -> tuple[int, dict[int, int]]:
        """The count and, for every positive literal on some edge, the number of models where it holds:
        the upward pass, then one downward pass of partial derivatives (``der[v]``: models of the root
        per model of ``v``), each edge's models are its parent's derivative times its own value."""
        assumptions = list(assumptions)
        if self._walking(assumptions, 4):
            return self._walk_counts(assumptions)
        alive = self.alive(assumptions)
        val = self._values(alive)
        total = int(val[0])
        if total == 0:
            return 0, {}
        dtype = val.dtype
        w = _weights(alive, dtype)
        ev = val[self.child] * w
        der = np.zeros(self.n, dtype=dtype)
        der[0] = 1
        self._prepare()
        edge_m = np.zeros(len(self.parent), dtype=dtype)  # models through each edge
        contrib = np.zeros(len(self.parent), dtype=dtype)  # derivative each edge hands its child
        for e0, e1, e2, s0, s1, s2 in self.levels[::-1]:
            if e1 > e0:  # AND parents: d child += d parent * product of the other edges
                seg = self.seg_start[s0:s1] - e0
                sizes = self.seg_size[s0:s1]
                x = ev[e0:e1]
                zero = x == 0
                zeros = np.repeat(np.add.reduceat(zero.astype(np.int64), seg), sizes)
                safe = np.where(zero, 1, x).astype(dtype)
                prod_nz = np.repeat(np.multiply.reduceat(safe, seg), sizes)
                if self.mode == FLOAT:
                    others = prod_nz / safe
                elif self.mode == INT:
                    others = prod_nz // safe
                else:
                    others = np.array([a // b for a, b in zip(prod_nz.tolist(), safe.tolist())], dtype=object)
                others = np.where(zeros == 0, others, np.where((zeros == 1) & zero, prod_nz, 0)).astype(dtype)
                contrib[e0:e1] = np.repeat(der[self.seg_node[s0:s1]], sizes) * others * w[e0:e1]
            if e2 > e1:  # OR parents: d child += d parent
                contrib[e1:e2] = np.repeat(der[self.seg_node[s1:s2]], self.seg_size[s1:s2]) * w[e1:e2]
            # every child of this height's parents gets its parents' share in one sum
            perm = self.sc_perm[e0:e2]
            starts = np.flatnonzero(self.sc_first[e0:e2])
            kids = self.child[perm[starts]]
            der[kids] += np.add.reduceat(contrib[perm], starts)
            edge_m[e0:e2] = contrib[e0:e2] * val[self.child[e0:e2]]
        out: dict[int, int] = {}
        if len(self.lit):
            lits, m = self.pos_lit, edge_m[self.pos_edge]
            if self.mode == FLOAT:
                sums = np.bincount(lits, weights=m, minlength=self.nvars + 1)
            else:
                sums = np.zeros(self.nvars + 1, dtype=dtype)
                np.add.at(sums, lits, m)
            nz = np.flatnonzero(sums)
            out = {int(v): int(sums[v]) for v in nz}
        return total, out

    def samples(self, assumptions: Iterable[int], n: int, seed: int) -> list[set[int]]:
        """``n`` models drawn exactly uniformly (each as its set of true literals on the path)."""
        assumptions = list(assumptions)
        walking = self._walking(assumptions, 2)
        if walking:  # counts of the nodes the reveals leave reachable; an edge's life read from its literals
            val, _order, _k, dead = self._walk_up(assumptions)
            alive = None
        else:
            alive = self.alive(assumptions)
            val = self._values(alive)
        if int(val[0]) == 0:
            return []
        if self._ranges is None:
            first = np.full(self.n, -1, dtype=np.int64)
            last = np.full(self.n, -1, dtype=np.int64)
            ends = np.r_[self.seg_start[1:], len(self.parent)]
            first[self.seg_node] = self.seg_start
            last[self.seg_node] = ends
            self._ranges = (first, last)
        first, last = self._ranges
        lit_first, lit_last = self.lit_start[:-1], self.lit_start[1:]
        child, lit = self.child, self.lit
        if walking:  # a few nodes on each path of a large circuit: no list of them all
            assert self._walk is not None
            kind, vals, nvars = self.kind, val, self.nvars

            def edge_ok(e: int) -> bool:
                return not dead[lit[lit_first[e] : lit_last[e]] + nvars].any()

            ok = edge_ok
        else:
            assert alive is not None
            kind, vals, ok = self.kind.tolist(), val.tolist(), alive.tolist().__getitem__
        rng = random.Random(seed)
        out = []
        for _ in range(n):
            model: set[int] = set()
            todo = [0]
            while todo:
                v = todo.pop()
                a, b = int(first[v]), int(last[v])
                if a < 0:
                    continue
                chosen: Iterable[int]
                if kind[v] == AND:
                    chosen = range(a, b)
                else:
                    r = rng.randrange(int(vals[v]))  # a float in FLOAT mode, exact below 2^49
                    chosen = []
                    for e in range(a, b):
                        if not ok(e):
                            continue
                        r -= vals[int(child[e])]
                        if r < 0:
                            chosen = [e]
                            break
                for e in chosen:
                    model.update(lit[lit_first[e] : lit_last[e]].tolist())
                    todo.append(int(child[e]))
            out.append(model)
        return out


#: d4's node letters as nonzero digits, so numpy reads node lines too (a line's first byte tells its kind)
_LETTERS_TO_DIGITS = bytes.maketrans(b"aotf", b"5555")
_BAD_LINE = -2
#: per first byte of a line: the node kind of a node line, -1 for an edge line (a digit or a minus), else bad
_LINE_KIND = np.full(256, _BAD_LINE, dtype=np.int8)
_LINE_KIND[np.frombuffer(b"0123456789-", dtype=np.uint8)] = -1
for _letter, _kind in zip(b"aotf", (AND, OR, TRUE_NODE, FALSE_NODE), strict=True):
    _LINE_KIND[_letter] = _kind


def _regroup(lit: np.ndarray, lit_edge: np.ndarray | None, per_edge: np.ndarray | None, order, inv):
    """The literals moved with their edges (edge ``order[k]`` becomes edge k), each edge's in their order
    (what a stable sort of ``inv[lit_edge]`` gives). ``per_edge``, when given, says the literals come grouped
    by edge in edge order (``lit_edge`` then need not be made): they move without a sort, chunk by chunk."""
    e = len(order)
    if per_edge is None:
        assert lit_edge is not None
        if len(lit) and np.any(lit_edge[1:] < lit_edge[:-1]):  # not grouped by edge: sort
            new = inv[lit_edge]
            lo = np.argsort(new, kind="stable")
            return lit[lo], new[lo]
        per_edge = np.bincount(lit_edge, minlength=e)
    if not len(lit):
        return lit.astype(np.int64), np.zeros(0, dtype=np.int64)
    old_start = np.r_[0, np.cumsum(per_edge)[:-1]]
    moved = per_edge[order]
    new_start = np.r_[0, np.cumsum(moved)[:-1]]  # by new edge
    shift = (new_start[inv] - old_start).astype(np.int64)  # by old edge: where its literals go, less where they were
    out = np.empty(len(lit), dtype=lit.dtype)
    step = 1 << 22
    for a in range(0, e, max(1, e * step // len(lit))):  # chunks of old edges, about ``step`` literals each
        b = min(e, a + max(1, e * step // len(lit)))
        la, lb = int(old_start[a]), int(old_start[b - 1] + per_edge[b - 1])
        out[np.repeat(shift[a:b], per_edge[a:b]) + np.arange(la, lb)] = lit[la:lb]
    return out, np.repeat(np.arange(e, dtype=np.int32 if e < 2**31 else np.int64), moved)


def _weights(alive: np.ndarray, dtype) -> np.ndarray:
    """Edge weights 1 (alive) or 0, in the pass's number type."""
    if dtype is object:
        return np.where(alive, 1, 0).astype(object)
    return alive.astype(dtype)


def _heights(n: int, par: np.ndarray, chi: np.ndarray) -> np.ndarray:
    """Each node's height (leaves 0), wave by wave: a node is ready once all its children are."""
    height = np.zeros(n, dtype=np.int64)
    if not len(par):
        return height
    left = np.bincount(par, minlength=n)  # children not yet done
    by_child = np.argsort(chi, kind="stable")
    cstart = np.searchsorted(chi[by_child], np.arange(n + 1))
    wave = np.flatnonzero(left == 0)
    h = 0
    while len(wave):
        height[wave] = h
        a, b = cstart[wave], cstart[wave + 1]
        sizes = b - a
        total = int(sizes.sum())
        if not total:
            break
        pos = np.repeat(a - np.r_[0, np.cumsum(sizes)[:-1]], sizes) + np.arange(total)
        touched, dec = np.unique(par[by_child[pos]], return_counts=True)  # the wave's size, not n
        left[touched] -= dec
        wave = touched[left[touched] == 0]
        h += 1
    return height


# --------------------------------------------------------------------------------------------------
# compiling


def _compile_child(conn, cnf: Cnf, out: str, memory: int | None) -> None:
    import resource  # deferred: only the compile's child process sets its limits

    start_worker()  # Ctrl-C is the parent's to handle; the parent's end (killed, interrupted) ends this child

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # d4 prints its statistics on stdout
    os.dup2(devnull, 2)
    try:
        if memory:
            # the address space a fork inherits (libraries, the parent's thread stacks) counts against
            # RLIMIT_AS: the cap is what is mapped now plus what the compiler may add
            limit = _mapped_bytes() + memory
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        # 64 MB cache pages rather than d4's 4 GiB first one (the memory limit stays meaningful)
        solver = d4_solver(cnf, compile_settings(cnf, D4_HEURISTIC))
        t = time.perf_counter()
        res = solver.compile()
        seconds = time.perf_counter() - t
        text = res.getNNFString()
        with open(out, "w", encoding="ascii") as f:
            f.write(text)
        del text  # 0.4 GB on fauna's empty board, freed before the count below runs beside the parent's reading
        conn.send(("ok", (seconds, int(res.getNbNodes()), int(res.getNbEdges()))))
        # d4's own count (2 s there), sent once the parent is reading the circuit: the two run at once
        conn.send(("count", str(res.count([]))))
    except MemoryError:
        conn.send(("error", "out of memory"))
    except Exception as e:  # noqa: BLE001 - any failure goes to the parent as a message
        conn.send(("error", f"{type(e).__name__}: {e}"))
    finally:
        conn.close()


def _mapped_bytes() -> int:
    """This process's virtual size (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def compile_cnf(
    cnf: Cnf,
    *,
    time_limit: float = DEFAULT_COMPILE_SECONDS,
    memory_limit: int | None = DEFAULT_COMPILE_MEMORY,
    progress: Callable[[float], None] | None = None,
    cpu_limit: float | None = None,
) -> tuple[Dnnf, CircuitStats]:
    """Compile ``cnf`` with d4 in a child process killed after ``time_limit`` seconds (CompileTimeout) or,
    when given, once it has used ``cpu_limit`` CPU seconds (CompileSpent: a budget whose end does not depend
    on the load); the child's address space is capped at ``memory_limit`` bytes (CompileError when it runs out).

    The circuit's count must equal d4's own (no variable left free): otherwise CompileError."""
    t0 = time.monotonic()
    if cnf.broken or not cnf.clauses:  # decided without the compiler (d4 fails on an empty formula)
        leaf = FALSE_NODE if cnf.broken else TRUE_NODE
        if not cnf.broken and cnf.nvars:
            raise CompileError("a formula without clauses over free variables")
        none = np.zeros(0, dtype=np.int64)
        d = Dnnf.build(np.array([leaf], dtype=np.int8), none, none, none, none, cnf.nvars)
        return d, CircuitStats(1, 0, 0.0, 0 if cnf.broken else 1, cnf.nvars)
    forks = "fork" in multiprocessing.get_all_start_methods()
    if not forks and multiprocessing.current_process().daemon:  # a spawned child of a daemonic worker: refused
        raise CompileError("the compiler cannot run inside a daemonic worker process")
    fd, out = tempfile.mkstemp(prefix="mapgen-circuit-", suffix=".nnf")
    os.close(fd)
    parent, child = multiprocessing.Pipe(duplex=False)
    work = (child, cnf, out, memory_limit)
    proc: Any
    if forks:  # a fork of its own: allowed in a daemonic worker too (playtest's pool, the web app's jobs)
        proc = ForkedChild(_compile_child, work)
    else:
        proc = multiprocessing.get_context("spawn").Process(target=_compile_child, args=work, daemon=True)
    deadline = t0 + max(0.0, time_limit)

    def message(expected: str):
        """The child's next message (``expected``: its kind), within the time and CPU limits."""
        offset = time.monotonic() - t0
        shown = None if progress is None else (lambda waited: progress(offset + waited))
        got = wait_child(parent, proc.pid, deadline, cpu_limit, shown)
        if got == "wall":
            raise CompileTimeout(f"the compile did not finish within {time_limit:g} s")
        if got == "cpu":
            raise CompileSpent(f"the compile did not finish within {cpu_limit:g} CPU s")
        try:
            status, value = parent.recv()
        except EOFError:
            raise CompileError(f"the compiler died (exit code {proc.exitcode})") from None
        if status != expected:
            raise CompileError(f"the compiler failed: {value}")
        return value

    try:
        proc.start()
        child.close()
        _seconds, nodes, edges = message("ok")
        # held in a list that hands over its only reference: from_d4 drops the text once it has read it
        text = [Path(out).read_bytes()]
        Path(out).unlink(missing_ok=True)
        d = Dnnf.from_d4(text.pop(), cnf.nvars)  # while the child counts (fauna's empty board: 2 of these 10 s)
        total = d.count()
        count = message("count")
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5.0)
        parent.close()
        Path(out).unlink(missing_ok=True)
    if total != int(count):
        raise CompileError(f"the circuit counts {total}, the compiler {count} (a variable left free)")
    return d, CircuitStats(nodes, edges, time.monotonic() - t0, total, cnf.nvars)


# --------------------------------------------------------------------------------------------------
# a circuit with its meaning: which variable is which (cell, terrain)


def _canonical(value):
    """A value as plain JSON-able data, sets sorted (their repr's order depends on the hash seed)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__, *(_canonical(getattr(value, f.name)) for f in dataclasses.fields(value))]
    if isinstance(value, Terrain):
        return value.code
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return sorted(([_canonical(k), _canonical(v)] for k, v in value.items()), key=repr)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def chapter_fingerprint(chapter: Chapter) -> str:
    """A hash of what a chapter's maps are: board, terrains, counted terrain and every rule instance (made
    once per chapter object: a Chapter is frozen)."""
    hit = _FINGERPRINTS.get(id(chapter))
    if hit is not None and hit[0] is chapter:
        return hit[1]
    data = [chapter.board.height, chapter.board.width, chapter.terrains, chapter.counted, chapter.rules]
    text = json.dumps(_canonical(data))
    found = hashlib.sha256(text.encode()).hexdigest()[:16]
    if len(_FINGERPRINTS) > 256:
        _FINGERPRINTS.clear()
    _FINGERPRINTS[id(chapter)] = (chapter, found)  # the chapter kept: its id stays its own
    return found


_FINGERPRINTS: dict[int, tuple[Chapter, str]] = {}


def briefing_key(briefing: Briefing) -> tuple:
    """The briefing fields that change which maps fit (not its number or name)."""
    pattern = briefing.fort_pattern.text() if briefing.fort_pattern is not None else None
    return (briefing.peak, briefing.start, pattern, briefing.greek_fire)


def base_of(state: Map) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[int, int], ...]]:
    """A state's revealed cells and Hill numbers, as sorted tuples."""
    cells = tuple((i, t.code) for i, t in enumerate(state.cells) if t is not None)
    return cells, tuple(sorted(state.hills.items()))


def circuit_key(chapter: Chapter, state: Map) -> str:
    text = json.dumps(
        [ENCODER_VERSION, chapter_fingerprint(chapter), briefing_key(state.briefing), base_of(state)], default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def briefing_folder(chapter: Chapter, briefing: Briefing) -> str:
    text = json.dumps([ENCODER_VERSION, chapter_fingerprint(chapter), briefing_key(briefing)], default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def extends(state: Map, base: Map) -> bool:
    """Whether ``state`` reveals more of ``base``: the same briefing (what of it changes the maps), the base's
    cells revealed alike and its Hill numbers shown alike. Hill numbers the base lacks are summed over by the
    circuit (``Circuit.patterns``), within ``HILL_PATTERNS``."""
    if briefing_key(state.briefing) != briefing_key(base.briefing) or state.board != base.board:
        return False
    if any(state.hills.get(i) != n for i, n in base.hills.items()):
        return False
    return all(t is None or state.cells[i] is t for i, t in enumerate(base.cells))


#: The most placements of the counted terrain a circuit sums over for Hill numbers its base lacks
#: (``Circuit.patterns``): one pass each. Past it the state is compiled with its Hills instead.
HILL_PATTERNS = 256
#: Up to this many placements are summed as listed; more are first thinned by one pass that finds the
#: cells of the Hills' lines where the counted terrain can stand at all.
HILL_PATTERNS_UNPRUNED = 8


def _placements(lines: list[tuple[list[int], int]], cap: int) -> list[list[int]] | None:
    """Every way to pick, for each line (its literals, how many must hold), exactly that many true literals,
    the lines' shared literals picked alike: each as the list of the literals assumed (true or negated).
    None when there are more than ``cap``."""
    owners: dict[int, list[int]] = {}
    for k, (lits, _need) in enumerate(lines):
        for v in lits:
            owners.setdefault(v, []).append(k)
    order = sorted(owners)
    need = [n for _lits, n in lines]
    left = [len(lits) for lits, _n in lines]
    if any(n < 0 or n > m for n, m in zip(need, left)):
        return []
    out: list[list[int]] = []
    chosen: list[int] = []

    def place(k: int) -> bool:  # False once past the cap
        if k == len(order):
            out.append(list(chosen))
            return len(out) <= cap
        v = order[k]
        ks = owners[v]
        for k2 in ks:
            left[k2] -= 1
        ok = True
        if all(need[k2] > 0 for k2 in ks):  # the literal holds: one fewer needed on each of its lines
            for k2 in ks:
                need[k2] -= 1
            chosen.append(v)
            ok = place(k + 1)
            chosen.pop()
            for k2 in ks:
                need[k2] += 1
        if ok and all(left[k2] >= need[k2] for k2 in ks):  # it does not: enough literals are left
            chosen.append(-v)
            ok = place(k + 1)
            chosen.pop()
        for k2 in ks:
            left[k2] += 1
        return ok

    return out if place(0) else None


#: how many declined conditionings a circuit remembers (then it forgets them all and starts again)
DECLINED_KEPT = 256


def _pick(weights: list[int], r: int) -> int:
    """The index whose share of ``sum(weights)`` holds ``r`` (0 <= r < the sum)."""
    for k, w in enumerate(weights):
        if r < w:
            return k
        r -= w
    raise ValueError("r is not below the weights' sum")


class Circuit:
    """A compiled base state of one briefing: exact answers for every state that extends it."""

    def __init__(self, chapter: Chapter, base: Map, dnnf: Dnnf, stats: CircuitStats, x: list[dict[Terrain, int]]):
        self.chapter, self.base, self.dnnf, self.stats, self.x = chapter, base, dnnf, stats, x
        self.key = circuit_key(chapter, base)
        self._memo: dict[tuple[tuple[int, ...], ...], tuple[int, dict[int, dict[Terrain, int]]]] = {}
        #: the base state's count and per-literal counts: kept in the cache file, so a loaded circuit answers
        #: its own state at once (numpy's first pass over fauna's empty board takes 1.9 s)
        self._base_counts: tuple[int, dict[int, int]] | None = None
        #: conditionings that gave None (no completion, or more than ``at_most`` kept): not tried again
        self._declined: set[tuple] = set()
        #: ``patterns`` answers, by the state's literals and new Hills' lines (one pass thins the larger ones)
        self._patterns: dict[tuple, list[list[int]] | None] = {}
        self._placement_counts: dict[tuple, list[int]] = {}  # per placements, their counts (``sample``)

    @classmethod
    def compile(
        cls,
        chapter: Chapter,
        state: Map,
        *,
        time_limit: float = DEFAULT_COMPILE_SECONDS,
        memory_limit: int | None = DEFAULT_COMPILE_MEMORY,
        progress: Callable[[float], None] | None = None,
        cpu_limit: float | None = None,
    ) -> Circuit:
        base = state.with_cells(state.cells)
        cnf = cnf_for_state(base, chapter)
        dnnf, stats = compile_cnf(
            cnf, time_limit=time_limit, memory_limit=memory_limit, progress=progress, cpu_limit=cpu_limit
        )
        return cls(chapter, base, dnnf, stats, cnf.x)

    def applies(self, state: Map) -> bool:
        """Whether the circuit answers ``state``: it extends the base (``extends``), and any Hill numbers the
        base lacks leave at most ``HILL_PATTERNS`` placements to sum over (``patterns``)."""
        return extends(state, self.base) and self.patterns(state) is not None

    def assumptions(self, state: Map) -> list[int] | None:
        """The literals that condition the circuit on ``state``'s revealed cells (not on Hill numbers the
        base lacks: ``patterns``), or None when a revealed cell is impossible outright (not a variable of
        its cell)."""
        out = []
        for i, t in enumerate(state.cells):
            if t is None or self.base.cells[i] is not None:
                continue
            v = self.x[i].get(t, FALSE)
            if v is FALSE:
                return None
            if isinstance(v, int) and v is not TRUE:
                out.append(v)
        return sorted(out)

    def _hill_lines(self, state: Map) -> list[tuple[list[int], int]] | None:
        """Per Hill number ``state`` shows and the base does not (with the chapter's Hill rule, C9): the
        literals of the counted terrain on the unrevealed cells of the Hill's row and column, and how many
        of them must hold; None when the revealed cells already make a number impossible."""
        lines = []
        for rule in self.chapter.rules:
            if not isinstance(rule, HillNumbers):
                continue
            for i, number in sorted(state.hills.items()):
                if i in self.base.hills or state.cells[i] is not rule.hill:
                    continue
                need, lits = number, []
                for j in hill_line(state.board, i):
                    t = state.cells[j]
                    v = (t is rule.counted) if t is not None else self.x[j].get(rule.counted, FALSE)
                    if v is TRUE:
                        need -= 1
                    elif v is not FALSE:
                        lits.append(v)
                if not 0 <= need <= len(lits):
                    return None
                lines.append((lits, need))
        return lines

    def patterns(self, state: Map) -> list[list[int]] | None:
        """Literal lists whose models, together and each once, are the completions of ``state``.

        One list, the revealed cells' (``assumptions``), when the base shows every Hill number the state
        shows. A Hill number the base lacks is no literal of the circuit: the completions are then summed over
        the placements of the counted terrain on the unrevealed cells of the new Hills' rows and columns that
        give each Hill its number (a placement: those cells' literals assumed true or negated; placements
        differ on some cell, so no completion is counted twice). Cells where the counted terrain stands in
        no completion of the revealed cells are left out first when there are many. [] when no completion
        fits; None when more than ``HILL_PATTERNS`` placements are left (then compile the state)."""
        lits = self.assumptions(state)
        if lits is None:
            return []
        lines = self._hill_lines(state)
        if lines is None:
            return []
        if not lines:
            return [lits]
        key = (tuple(lits), tuple((tuple(ls), n) for ls, n in lines))
        if key in self._patterns:
            return self._patterns[key]
        found = _placements(lines, HILL_PATTERNS_UNPRUNED)
        if found is None:
            total, per_lit = self._counts(lits)
            thinned = [([v for v in ls if per_lit.get(v, 0)], n) for ls, n in lines]
            found = _placements(thinned, HILL_PATTERNS) if total else []
        out = None if found is None else [sorted([*lits, *p]) for p in found]
        if len(self._patterns) > 256:
            self._patterns.clear()
        self._patterns[key] = out
        return out

    def _patterns_of(self, state: Map) -> list[list[int]]:
        pats = self.patterns(state)
        if pats is None:
            raise CompileError("the state's Hill numbers leave too many placements for this circuit: compile it")
        return pats

    def condition(self, state: Map, *, at_most: float = 1.0) -> Circuit | None:
        """The circuit of ``state`` (which must extend the base): this one conditioned on its reveals and
        pruned (``Dnnf.condition``), with ``state`` as its base (without the Hill numbers this base lacks:
        they stay sums over placements); None when no completion fits, or when it would keep more than
        ``at_most`` of the edges."""
        lits = self.assumptions(state)
        if lits is None:
            return None
        key = (at_most, *lits)
        if key in self._declined:  # its pass (0.3 CPU s on fauna's empty board) is not made again
            return None
        t0 = time.monotonic()
        d = self.dnnf.condition(lits, at_most=at_most)
        if d is None:
            if len(self._declined) >= DECLINED_KEPT:
                self._declined.clear()
            self._declined.add(key)
            return None
        base = state.with_cells(state.cells, hills={i: n for i, n in state.hills.items() if i in self.base.hills})
        stats = CircuitStats(d.n, len(d.parent), time.monotonic() - t0, d.count(), self.stats.nvars)
        return Circuit(self.chapter, base, d, stats, self.x)

    def count(self, state: Map) -> int:
        return sum(self.dnnf.count(p) for p in self._patterns_of(state))

    def tallies(self, state: Map) -> tuple[int, dict[int, dict[Terrain, int]]]:
        """The count and, per unrevealed cell of ``state``, the completions holding each terrain (only
        terrains with at least one)."""
        pats = self._patterns_of(state)
        if not pats:
            return 0, {}
        key = tuple(map(tuple, pats))
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        total, per_lit = self._counts(pats[0])
        if len(pats) > 1:  # the placements' counts add up (no completion is in two of them)
            per_lit = dict(per_lit)
            for p in pats[1:]:
                part_total, part = self._counts(p)
                total += part_total
                for v, n in part.items():
                    per_lit[v] = per_lit.get(v, 0) + n
        out: dict[int, dict[Terrain, int]] = {}
        if total:
            for i in state.unrevealed():
                d = {}
                for t, v in self.x[i].items():
                    n = total if v is TRUE else per_lit.get(v, 0) if isinstance(v, int) and v is not FALSE else 0
                    if n:
                        d[t] = n
                out[i] = d
        if len(self._memo) > 256:
            self._memo.clear()
        self._memo[key] = (total, out)
        return total, out

    def _counts(self, lits: list[int]) -> tuple[int, dict[int, int]]:
        """``Dnnf.literal_counts``, the base state's (no literals) kept."""
        if lits:
            return self.dnnf.literal_counts(lits)
        if self._base_counts is None:
            self._base_counts = self.dnnf.literal_counts([])
        return self._base_counts

    def sample(self, state: Map, n: int, seed: int = 0) -> list[tuple[Terrain, ...]]:
        """``n`` completions drawn exactly uniformly at random (seeded), with repetition. Over several
        placements (``patterns``): each draw picks one in proportion to its exact count, then a model of it."""
        pats = self._patterns_of(state)
        if not pats:
            return []
        if len(pats) == 1:
            models = self.dnnf.samples(pats[0], n, seed)
        else:
            key = tuple(map(tuple, pats))
            weights = self._placement_counts.get(key)
            if weights is None:  # one pass per placement, kept: a bot draws one world at a time
                weights = [self.dnnf.count(p) for p in pats]
                if len(self._placement_counts) > 256:
                    self._placement_counts.clear()
                self._placement_counts[key] = weights
            rng = random.Random(seed)
            which = [_pick(weights, rng.randrange(sum(weights))) for _ in range(n)] if any(weights) else []
            drawn = {
                k: iter(self.dnnf.samples(pats[k], which.count(k), rng.randrange(1 << 30))) for k in sorted(set(which))
            }
            models = [next(drawn[k]) for k in which]
        out = []
        for model in models:
            w = []
            for i, t in enumerate(state.cells):
                if t is not None:
                    w.append(t)
                    continue
                got = [u for u, v in self.x[i].items() if v is TRUE or (v is not FALSE and v in model)]
                if len(got) != 1:
                    raise CompileError(f"a sampled model gives cell {i} {len(got)} terrains")
                w.append(got[0])
            out.append(tuple(w))
        return out

    # -- storage -----------------------------------------------------------------------------------
    def write(self, f) -> None:
        """The cache file into the seekable binary file ``f``: ``meta.json``, then ``circuit.npz`` streamed
        into its stored (uncompressed) member, array by array: no copy of the arrays is made in memory (on
        fauna's empty board three copies of its 830 MB of int64 arrays were)."""
        meta = {
            "version": ENCODER_VERSION,
            "chapter": chapter_fingerprint(self.chapter),
            "key": self.key,
            "stats": {**self.stats.to_json(), "count": str(self.stats.count), "nvars": self.stats.nvars},
            "base": dumps_map(self.base),
            "x": [
                {t.code: (v if isinstance(v, int) and not isinstance(v, bool) else bool(v)) for t, v in d.items()}
                for d in self.x
            ],
        }
        total, per_lit = self._counts([])
        meta["base_counts"] = {"total": str(total), "lits": {str(v): str(c) for v, c in per_lit.items()}}
        with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
            z.writestr("meta.json", json.dumps(meta))
            with z.open("circuit.npz", "w", force_zip64=True) as member:
                self.dnnf.write(member)

    @classmethod
    def from_file(cls, path: str | os.PathLike, chapter: Chapter) -> Circuit:
        """A cached circuit; CompileError when the file is unreadable, truncated or of another version."""
        try:
            with zipfile.ZipFile(path) as z:
                meta = json.loads(z.read("meta.json"))
                if meta.get("version") != ENCODER_VERSION or meta.get("chapter") != chapter_fingerprint(chapter):
                    raise CompileError("a circuit of another encoder or chapter")
                info = z.getinfo("circuit.npz")
            dnnf = Dnnf(_mapped_arrays(Path(path), info))
            base = parse_map(meta["base"])
            x: list[dict[Terrain, int]] = [
                {Terrain.from_code(c): (TRUE if v is True else FALSE if v is False else int(v)) for c, v in d.items()}
                for d in meta["x"]
            ]
            s = meta["stats"]
            stats = CircuitStats(
                int(s["nodes"]), int(s["edges"]), float(s["seconds"]), int(s["count"]), int(s["nvars"])
            )
            kept = meta.get("base_counts")
            base_counts = None
            if kept is not None:
                base_counts = (int(kept["total"]), {int(v): int(c) for v, c in kept["lits"].items()})
                if base_counts[0] != stats.count or any(c < 0 for c in base_counts[1].values()):
                    raise CompileError("a circuit file whose base counts do not match its count")
        except CompileError:
            raise
        except Exception as e:  # noqa: BLE001 - any damage to a cache file means: compile again
            raise CompileError(f"an unreadable circuit file ({type(e).__name__})") from None
        c = cls(chapter, base, dnnf, stats, x)
        if c.key != meta.get("key") or len(x) != base.board.size:
            raise CompileError("a circuit file whose contents do not match its key")
        c._base_counts = base_counts
        return c


def _arrays(kind, par, chi, lit, lit_edge, levels, starts, seg_node, nvars, mode) -> dict[str, np.ndarray]:
    """A circuit's arrays by name, as stored (``levels`` rows: edge_from, edge_mid, edge_to, seg_from,
    seg_mid, seg_to)."""
    return {
        "kind": kind,
        "parent": par,
        "child": chi,
        "lit": lit,
        "lit_edge": lit_edge,
        "levels": np.array(levels, dtype=np.int64).reshape(-1, 6),
        "seg_start": starts.astype(np.int64),
        "seg_node": seg_node.astype(np.int64),
        "nvars": nvars.astype(np.int64),
        "mode": mode,
    }


def _member_data(f, info: zipfile.ZipInfo) -> int:
    """Where a stored (uncompressed) zip member's bytes begin: after its local header."""
    f.seek(info.header_offset)
    head = f.read(30)
    if len(head) != 30 or head[:4] != b"PK\x03\x04" or info.compress_type != zipfile.ZIP_STORED:
        raise CompileError("a circuit file whose arrays are not stored plainly")
    names, extra = int.from_bytes(head[26:28], "little"), int.from_bytes(head[28:30], "little")
    return info.header_offset + 30 + names + extra


class _Window(io.RawIOBase):
    """Bytes ``[start, start + size)`` of a memory map as a read-only seekable file (for zipfile)."""

    def __init__(self, mm: np.ndarray, start: int, size: int):
        self.mm, self.start, self.size, self.pos = mm, start, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = max(0, offset if whence == 0 else self.pos + offset if whence == 1 else self.size + offset)
        return self.pos

    def tell(self) -> int:
        return self.pos

    def readinto(self, b) -> int:
        n = max(0, min(len(b), self.size - self.pos))
        a = self.start + self.pos
        b[:n] = self.mm[a : a + n].tobytes()
        self.pos += n
        return n


def _mapped_arrays(path: Path, info: zipfile.ZipInfo) -> dict[str, np.ndarray]:
    """A cached circuit's arrays as read-only views of the file mapped in memory: no copy, and the server's
    worker processes share one copy through the page cache (fauna's empty board is 463 MB). The member's
    CRC-32 is checked first, as reading it would (a damaged file is never an answer)."""
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    with open(path, "rb") as f:
        start = _member_data(f, info)
    if start + info.file_size > len(mm):
        raise CompileError("a truncated circuit file")
    if zlib.crc32(mm[start : start + info.file_size].data) != info.CRC:
        raise CompileError("a damaged circuit file (CRC)")
    arrays = {}
    window = _Window(mm, start, info.file_size)
    with zipfile.ZipFile(window) as npz:
        for member in npz.infolist():
            a = _member_data(window, member)
            window.seek(a)
            version = np.lib.format.read_magic(window)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(window)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(window)
            else:
                raise CompileError(f"a circuit file with arrays of format {version}")
            if dtype.hasobject or fortran:
                raise CompileError("a circuit file with arrays of another kind")
            arrays[member.filename.removesuffix(".npy")] = np.ndarray(
                shape, dtype=dtype, buffer=mm, offset=start + window.tell()
            )
    return arrays


# --------------------------------------------------------------------------------------------------
# the cache


def default_cache_dir() -> Path:
    """``$MAPGEN_CACHE_DIR``, else the user cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``)/mapgen/circuits."""
    env = os.environ.get("MAPGEN_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mapgen" / "circuits"


class CircuitCache:
    """Circuits on disk, one folder per briefing (``briefing_folder``), one file per base state, capped
    at ``max_bytes`` with the least recently used evicted. A damaged file is deleted and reported as
    missing (the caller compiles again): never a wrong answer."""

    def __init__(self, folder: str | os.PathLike | None = None, *, max_bytes: int = DEFAULT_CACHE_BYTES):
        self.folder = Path(folder) if folder is not None else default_cache_dir()
        self.max_bytes = max_bytes
        self._bases: dict[Path, tuple[tuple[int, int], Map | None]] = {}  # file -> (mtime, size), its base
        self.not_stored: str | None = None  # why the last ``store`` wrote nothing
        self.found: Path | None = None  # the file of the circuit the last ``load`` gave
        self.damaged: list[tuple[Path, str]] = []  # the damaged files the last ``load`` met (dropped), and why

    def _base(self, p: Path) -> Map | None:
        """The base state a cache file names in its ``meta.json`` (kept while the file is unchanged), None when
        unreadable: so ``load`` opens only circuits the state extends (loading one checks its whole file)."""
        try:
            st = p.stat()
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        hit = self._bases.get(p)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        try:
            with zipfile.ZipFile(p) as z:
                base: Map | None = parse_map(json.loads(z.read("meta.json"))["base"])
        except Exception:  # noqa: BLE001 - a damaged file: Circuit.from_file reports it, and it is deleted
            base = None
        if len(self._bases) > 4096:
            self._bases.clear()
        self._bases[p] = (stamp, base)
        return base

    def _dir(self, chapter: Chapter, briefing: Briefing) -> Path:
        return self.folder / briefing_folder(chapter, briefing)

    def candidates(self, chapter: Chapter, state: Map) -> list[Path]:
        """The cached circuit files of the state's briefing, largest base first (smallest circuit): only
        names ``store`` gives a finished file (``N-KEY.circuit``), never a writer's temporary file
        (``.tmp-….circuit``, renamed when complete) nor anything else in the folder."""
        try:
            files = [(n, p) for p in self._dir(chapter, state.briefing).iterdir() if (n := _revealed_of(p)) is not None]
        except OSError:
            return []
        return [p for _n, p in sorted(files, key=lambda np: (-np[0], np[1].name))]

    def load(self, chapter: Chapter, state: Map, *, exact: bool = False) -> Circuit | None:
        """The cached circuit with the largest base that ``state`` extends, or None; with ``exact``, only one
        whose base has as many cells revealed (``state``'s own: no other file is opened)."""
        revealed = {i for i, t in enumerate(state.cells) if t is not None}
        self.found, self.damaged = None, []
        for p in self.candidates(chapter, state):
            n = _revealed_of(p)
            if n is None or n > len(revealed) or (exact and n != len(revealed)):
                continue
            base = self._base(p)
            if base is not None and not extends(state, base):
                continue  # another game's state of the same briefing
            try:
                c = Circuit.from_file(p, chapter)
            except CompileError as e:
                self.damaged.append((p, str(e)))
                try:
                    p.unlink(missing_ok=True)
                except OSError:  # a read-only cache folder (or not a file): left there, never read as an answer
                    pass
                continue
            except OSError:
                continue
            if c.applies(state):
                _touch(p)
                self.found = p
                return c
        return None

    def store(self, circuit: Circuit) -> Path | None:
        """Write a circuit atomically (never over another writer's half file); None if it cannot be written,
        and then ``not_stored`` says why (too large for the cap, or the system's error: a full disk)."""
        self.not_stored = None
        d = self._dir(circuit.chapter, circuit.base.briefing)
        revealed = sum(t is not None for t in circuit.base.cells)
        path = d / f"{revealed}-{circuit.key}.circuit"
        if circuit.dnnf.nbytes > self.max_bytes:  # its arrays alone: the file is a few kB more
            self.not_stored = "too large for the cache"
            return None
        try:
            d.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".circuit")
            try:
                with os.fdopen(fd, "wb") as f:
                    circuit.write(f)
                    size = f.tell()
                if size > self.max_bytes:
                    Path(tmp).unlink()
                    self.not_stored = "too large for the cache"
                    return None
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as e:
            self.not_stored = f"not cached: {e.strerror or type(e).__name__} ({self.folder})"
            return None
        self.evict()
        return path

    def evict(self) -> None:
        """Delete the least recently used circuits until the cache fits its cap, and the temporary files of writers
        that died mid-write (an hour old: a live writer renames its file within the compile's time limit)."""
        self._sweep_temporaries()
        stats = [(st.st_mtime, st.st_size, p) for p, st in self._files()]
        total = sum(s for _t, s, _p in stats)
        for _t, size, p in sorted(stats):
            if total <= self.max_bytes:
                break
            try:
                p.unlink(missing_ok=True)
            except OSError:  # not ours to delete: left, and not counted as freed
                continue
            total -= size

    def size(self) -> int:
        return sum(st.st_size for _p, st in self._files())

    def _sweep_temporaries(self) -> None:
        """Delete ``.tmp-*.circuit`` files older than ``TEMPORARY_AGE`` seconds: a writer killed mid-write leaves one (up to
        about 200 MB for a Fauna briefing), never read and not counted in the cap."""
        try:
            paths = list(self.folder.glob("*/.tmp-*.circuit"))
        except OSError:
            return
        now = time.time()
        for p in paths:
            try:
                if now - p.stat().st_mtime > TEMPORARY_AGE:
                    p.unlink(missing_ok=True)
            except OSError:  # gone meanwhile, or not ours to delete
                continue

    def _files(self) -> list[tuple[Path, os.stat_result]]:
        """Every finished circuit file of every briefing with its stat (a file gone meanwhile, or anything but a
        regular file, left out)."""
        found = []
        try:
            paths = list(self.folder.glob("*/*.circuit"))
        except OSError:
            return []
        for p in paths:
            if _revealed_of(p) is None:
                continue
            try:
                st = p.stat()
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                found.append((p, st))
        return found


#: Seconds after which a cache's temporary file is a dead writer's (``CircuitCache._sweep_temporaries``).
TEMPORARY_AGE = 3600.0

#: A finished cache file's name: the base's revealed cells, then its key (``CircuitCache.store``).
_CIRCUIT_NAME = re.compile(r"([0-9]+)-[0-9a-f]+\.circuit")


def _revealed_of(p: Path) -> int | None:
    """The revealed cells of a finished cache file's base, from its name; None for any other name."""
    m = _CIRCUIT_NAME.fullmatch(p.name)
    return int(m.group(1)) if m else None


def _touch(p: Path) -> None:
    try:
        os.utime(p)
    except OSError:
        pass


__all__ = [
    "DEFAULT_CACHE_BYTES",
    "DEFAULT_COMPILE_MEMORY",
    "DEFAULT_COMPILE_SECONDS",
    "ENCODER_VERSION",
    "Circuit",
    "CircuitCache",
    "CircuitStats",
    "CompileError",
    "CompileSpent",
    "CompileTimeout",
    "Dnnf",
    "compile_cnf",
    "default_cache_dir",
    "extends",
]
