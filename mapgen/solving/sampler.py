"""Completions drawn from any state by a Markov chain with exact block updates, and odds with error bars.

Where no compiled circuit answers a state (early Flora, Vameter and Maldonado states), the odds come from
samples. The chain's state is one completion. A step picks a *block* (a window of 2x2, 2x4 or 4x2 cells, a band
of two adjacent rows or columns, or the whole board) and redraws its unrevealed cells **exactly uniformly** among
the assignments that keep every rule with the rest of the map fixed (a heat-bath update); a larger block redraws
only its cells holding a random set S of terrains, to terrains of S (the cells holding S are the same before
and after, so that is a heat-bath update too). A depth-first enumeration of the block's assignments, compiled
with numba, checks each rule as soon as every cell it reads is set and keeps one of the completions it meets by
reservoir sampling (the k-th met replaces the kept one with chance 1/k). A heat-bath update leaves the uniform
distribution over completions unchanged, so every chain tends to it. A *sweep* makes every move once, in a
random order (``_blocks``).

Several chains start from different completions (a SAT solver's, under random preferences); their samples
after a burn-in give each (cell, terrain) its share, a standard error (batch means, or the chains' spread where
that is larger: ``odds_of``), and a split R-hat
(Gelman et al., *Bayesian Data Analysis*, 3rd ed., 11.4) that says whether the chains agree. Everything is
seeded and budgeted in sweeps, never in seconds: the same seed and budget give the same answer on any machine.

**Fauna's Forts do not move** (measured, bench_odds' Fauna states at 0 to 12 revealed): each chain keeps the Forts
of its start and moves everything else (about 120 distinct completions in 120 recorded sweeps), so the Fort odds are
those of the starts; SAT starts are biased (fauna-2@5: 64 of them put 41% on the Forts {C5, D2, D3}, which the exact
odds give 0.7%, and 41% on {D2, D5, F3}, which they give 84%), hence the starts drawn near-uniformly by sequential
Monte Carlo (``Solver.chain_starts``, ``smc.draws``: SAT-checked runs, two starts each) wherever its runs survive. The placements are islands:
redrawing a whole 5x5 box of that state exactly, the rest fixed, finds 1 to 46 completions, all with the same Forts
(D3 holds a Fort or else a Wood, so freeing it moves the Woods of its row and column too). Tried and dropped, each
measured: relaxing F2's pattern in the relaxed enumeration (one Fort matching in no rotation allowed, weighing like
a count out of bounds; or up to 3 pattern cells missing, each weighing so): no more Fort moves, 2-3x the CPU (the
relaxed maps outnumber the completions so much that the burn-in drives the weight to 1e-3..1e-5); the same on the
unnarrowed domains (without ``Solver.possible``), where at a fixed weight of 0.003 a Fort moved between the exact
modes but only 8% of sweeps ended inside the rules (the default budget would take about 160 CPU s, at 14 ms a
sweep), and with the weight tuned the chains stuck outside in local minima of the weight until the restart (513 CPU
s for 8 chains). Swap moves, rectangle moves for Woods, relaxing one Wood per line and more chains were tried
before. Measured since (2026-12-05, seeds 1 and 2, against the compiled odds): more chains of fewer sweeps, the same
sweeps in all (32 x 30, 64 x 15 against 8 x 120), two starts from each of more SMC runs: fauna-2@5 max error
0.16-0.47 -> 0.08-0.15, but fauna-1@3 and @5 stay at 0.41-0.55 at 2-3x the CPU (the SMC starts' own Fort odds are
off there, not just few); with the starts taken from the same 4 runs, 8 a run, the CPU is about the same and that
is the default now (``CHAINS``); each chain weighed
by its SMC run's count estimate (consistent in the number of runs at any number of particles): 4 runs, no better
(fauna-1@3 max 0.61-0.67 -> 0.71-0.84), 32 runs of 50 particles better on fauna-2@5 (0.16-0.20 -> 0.09-0.12) and
not on fauna-1 (0.55-0.66 -> 0.62-0.82: most runs die or one dominates). Stratifying on the Fort sets (every set
the rules allow, SAT-enumerated in under a second: 51 at fauna-1@3, 167 at fauna-2@3, 748 at fauna-4@3, 2,830 at
fauna-7@5) needs each set's count: SMC per set at 0.3 CPU s each missed by up to half (fauna-1@3: the Fort odds off
by up to 0.16), and compiling each set is exact but slower than compiling the state (fauna-1@3: 8 s against 2). In
Flora the same holds of Sacagawea and the Woods (flora-1@0: 39 of the 40 pairs of worst R-hat are hers or Woods';
pair moves always holding a Wood or her, half of them, changed nothing).

The same enumeration, run over every unrevealed cell at once with a cap on its work, counts a state with
few completions exactly (``count_small``).
"""

from __future__ import annotations

import math
import random
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from constraints.catalogue import Chapter
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
    TerrainSet,
    pattern_placements,
)
from mapgen.model import Map
from mapgen.solving.kernels import njit  # numba's njit, cached on disk where a folder for it can be written
from mapgen.solving.unigen import ODDS_SAMPLER, UNSEEN_PER_RUN, Z95, converged, rhat_json, t95, unseen_bound
from mapgen.terrain import Terrain

#: Default budget of one ``sample_odds`` call (10 s of the sampler's work): chains, sweeps kept per chain, burn-in
#: sweeps, batches per chain; the chains start from ``RUNS`` SMC runs, ``CHAINS / RUNS`` from each
#: (``Solver.chain_starts``). Many short chains, not a few long ones: the chains cannot cross the islands of Fauna's
#: Forts or Maldonado's clusters, so an island's odds are the share of the starts that fall on it, and a run's
#: final particles give many starts for no more SMC. Measured against the compiled odds, seeds 1 and 2, 8 of the
#: odds bench's states (fauna-1@5, @8, @12, fauna-2@5, @8, maldonado-1@16, maldonado-2@20, vameter-1@20), at 10 s
#: of work: 32 chains of 30 sweeps (8 a run) against 8 of 120 (2 a run), the same sweeps in all: mean error lower
#: on all 8 (averaged over the seeds: fauna-2@5 0.047 -> 0.026, maldonado-2@20 0.045 -> 0.024, vameter-1@20
#: 0.021 -> 0.014, fauna-1@12 0.026 -> 0.016, fauna-1@5 0.071 -> 0.066), from the same CPU to 40% more in two
#: side-by-side runs (the chains make 30-40% more sweeps than recorded where counts are relaxed: about one sweep in
#: four ends outside the rules by design, and short chains tune that weight less), the bars covering as often (91%
#: either way); 16 of 60 in between, 64 of 15 and 48 of 20 no better. At
#: ``solve``'s default (4 s of work), 3 seeds: 12 of 30 against 8 of 48, mean error 0.0417 -> 0.0410 over the 8
#: (better on 6), a fifth less CPU. Split R-hat over halves of 15 draws is noisier, 1.07-1.12 on Training's early
#: states at 10 s (1.02-1.05 with 8 of 120), 1.08-1.21 at 4 s (1.03-1.19 with 8 of 48), for the same accuracy
#: (training-1@0 mean error 0.012 -> 0.010, training-2@0 0.011 -> 0.015): hence the check is nested R-hat over
#: the runs' groups of chains (``_nested_rhat``: 1.01-1.03 there).
CHAINS, SWEEPS, BURN_IN, BATCHES = 32, 30, 10, 10
#: Particles of each SAT-checked SMC run that draws chain starts (``Solver.chain_starts``), at 10 s of the sampler's
#: work on an empty board (100 at ``solve``'s default 4 s: the count estimate's runs there, reread; more with cells
#: revealed: ``MID_PARTICLES``), and the runs. Measured at
#: ``solve``'s default budget, 3 seeds on 8 of the odds bench's states (fauna-1@5, @8, fauna-2@5, maldonado-1@16,
#: @20, maldonado-2@16, @20, vameter-1@20): mean error 0.070 -> 0.047 and max 0.40 -> 0.32 (averages over states)
#: against unchecked runs of 80 particles, one start each, with SAT starts where they died; better on 6 of the 8
#: (fauna-2@5 0.146 -> 0.029, maldonado-2@20 0.058 -> 0.029), about the same on fauna-1@5 and maldonado-1@16
#: (0.059 -> 0.063, 0.054 -> 0.058).
START_PARTICLES, RUNS = 250, 4
#: Particles of a run at 10 s of work for a state with at least ``MID_SHARE`` of its cells revealed (fewer in
#: proportion down to ``START_PARTICLES`` on an empty board), and from which share of the time limit's work on
#: (``BASE_SCALE``: ``solve``'s default, whose runs are the count estimate's, reread) they grow. The chains cannot
#: cross the islands, so an island weighs the share of the starts on it, and more particles weigh it better; a
#: particle of an empty board costs 5-8 ms with its SAT checks, one of a mid-game state far less. Measured (ninth
#: session of 2026-12-05) at 10 s of work on the 25 accuracy states of ``python -m bench.bench_odds``, seeds 1 and
#: 2: 250 particles everywhere, mean |error| 0.0292 and 0.0282, max 0.581 and 0.612, bars cover 91% and 93%; 1000
#: everywhere 0.0225 and 0.0227, 0.549 and 0.516, 94% and 94%, but the empty flora-1 and maldonado-1 boards then ran
#: past the time limit (exit 3) at ``--time-limit`` 12.5 to 25 where 250 answered; this rule 0.0230 and 0.0247,
#: 0.586 and 0.661, 94% and 93%, empty boards as before, and flora-1 and maldonado-1 at 3 and 8 revealed, vameter-1
#: at 5, answered at 12.5, 15 and 25 (12.6-17.9 s wall at 25).
MID_PARTICLES, MID_SHARE, BASE_SCALE = 1000, 0.25, 0.4
#: Sweeps a chain makes between two looks at the wall clock.
CHUNK = 10

#: A move redraws its block whole (skipped, the chain staying put, when the enumeration would pass ``MOVE_CAP``
#: nodes: the enumeration is the same from every completion that agrees outside the block, so skipping keeps
#: the chain's balance), or only the block's cells holding terrains of a random set S, to terrains of S (the cells
#: holding S are the same before and after, so that move is a heat-bath update too).
MOVE_WHOLE, MOVE_SUBSET, MOVE_PAIR = 0, 1, 2
#: The windows redrawn whole, (rows, columns).
WINDOWS = ((2, 2), (2, 4), (4, 2))
#: How the windows larger than 2x2 are redrawn: whole, or only their cells holding a random set of terrains.
WINDOW_KINDS = (MOVE_SUBSET,)
#: Whole-board moves of two or three terrains per sweep: the moves that reach across the board (60 rather than 20
#: mixed Vameter, Flora and Maldonado states better for the same CPU time as more sweeps would take: measured).
PAIR_MOVES = 60
MOVE_CAP = 1_000
#: The chains relax every count rule by ``RELAX`` (a Fauna map's 3 Forts may be 2 to 4 between two sweeps),
#: each count outside the rule's bounds weighing ``RELAX_WEIGHT`` (see ``_chain``); at most ``RELAX_EXTRA`` times
#: the budget's sweeps in all.
RELAX, RELAX_WEIGHT, RELAX_EXTRA = 1, 0.05, 2
RELAX_LOW = 1
RELAX_WEIGHT_MAX = 0.5
#: The chance each terrain is in a subset move's set S.
SUBSET_SHARE = 0.6

_NEIGHBOURS, _DISTINCT, _PATTERN = 0, 1, 2
_HOODS = ("orthogonal", "diagonal", "king", "diagonal2")


class SamplerError(ValueError):
    """A state the sampler cannot start from (no completion to start a chain at)."""


class SamplerTimeout(TimeoutError):
    """The wall clock ran out before the sampler's work was done."""


# ---------------------------------------------------------------------------------------------------------------
# The rules as arrays


@dataclass
class Program:
    """A chapter's rules and one state's fixed cells, as arrays the compiled kernels read.

    Terrains are numbered 0..T-1 in the chapter's order (``terrains``); cells are the board's indices.
    """

    terrains: tuple[Terrain, ...]
    size: int
    height: int
    width: int
    dom: np.ndarray  # bool [N, T]: terrains a cell may hold (revealed cells: one)
    hidden: np.ndarray  # int64 [H]: the unrevealed cells
    # local rules, centred on a cell holding their subject
    r_kind: np.ndarray  # int64 [R]
    r_target: np.ndarray  # int64 [R]
    r_hood: np.ndarray  # int64 [R]
    r_lo: np.ndarray  # int64 [R]
    r_hi: np.ndarray  # int64 [R]
    by_terrain_ptr: np.ndarray  # int64 [T+1]: rules whose subject is terrain t: by_terrain[ptr[t]:ptr[t+1]]
    by_terrain: np.ndarray  # int64
    nb: np.ndarray  # int64 [4, N, 8]: neighbours per hood, -1 padded
    p_valid: np.ndarray  # bool [N, 4]: whether the rotated pattern fits on the board with its origin at the cell
    p_cell: np.ndarray  # int64 [N, 4, P]
    p_terr: np.ndarray  # int64 [4, P]: the terrain wanted there, -1 for any, -2 for one the chapter lacks
    # global rules
    line_terr: np.ndarray  # int64 [L]
    line_count: np.ndarray  # int64 [L]
    cnt_terr: np.ndarray  # int64 [Q]
    cnt_lo: np.ndarray  # int64 [Q]
    cnt_hi: np.ndarray  # int64 [Q]
    pair_first: np.ndarray  # int64 [K]: column pairs
    pair_second: np.ndarray  # int64 [K]
    conn_terr: np.ndarray  # int64 [C]
    hill_cell: np.ndarray  # int64 [Hn]: revealed Hills showing a number
    hill_n: np.ndarray  # int64 [Hn]
    counted: int  # the counted terrain's index, -1 without one
    # the chain's moves (``_blocks``), each made once a sweep
    blocks: list[np.ndarray] = field(default_factory=list)
    kinds: list[int] = field(default_factory=list)
    scopes: dict = field(default_factory=dict, repr=False)
    near: list = field(default_factory=list, repr=False)
    checks: list = field(default_factory=list, repr=False)  # ``_checks``


def _pad(rows: list[list[int]], width: int, fill: int = -1) -> np.ndarray:
    out = np.full((len(rows), max(width, 1)), fill, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def compile_program(chapter: Chapter, state: Map, possible: dict[int, frozenset[Terrain]] | None = None) -> Program:
    """The arrays for ``state`` under ``chapter``'s rules (the design profile's settings are no rules of the game
    and are never in ``chapter.rules`` here). ``possible`` (exact possible terrains per unrevealed cell, from
    ``Solver.possible``) narrows the cells' domains, which only speeds the enumeration up."""
    board = state.board
    terrains = tuple(chapter.terrains)
    ix = {t: k for k, t in enumerate(terrains)}
    n, nt = board.size, len(terrains)
    dom = np.ones((n, nt), dtype=np.bool_)
    local: list[tuple[int, int, int, int, int, int]] = []  # subject, kind, target, hood, lo, hi
    line_terr, line_count, cnt, pairs, conn = [], [], [], [], []
    pattern_rule: PatternMatch | None = None
    for rule in chapter.rules:
        if isinstance(rule, TerrainSet):
            for t, k in ix.items():
                if t not in rule.terrains:
                    dom[:, k] = False
        elif isinstance(rule, (NotOnEdge, Ring)):
            if rule.terrain in ix:
                for i in range(n):
                    if rule.rules_out(board, i, rule.terrain):
                        dom[i, ix[rule.terrain]] = False
        elif isinstance(rule, BriefingCell):
            at = rule.cell(state)
            if at is not None:
                dom[at, :] = False
                if rule.terrain in ix:
                    dom[at, ix[rule.terrain]] = True
        elif isinstance(rule, Neighbours):
            if rule.subject in ix:
                target = ix.get(rule.target, -2)
                hi = 99 if rule.at_most is None else rule.at_most
                local.append((ix[rule.subject], _NEIGHBOURS, target, _HOODS.index(rule.hood), rule.at_least, hi))
        elif isinstance(rule, DistinctNeighbours):
            if rule.terrain in ix:
                local.append((ix[rule.terrain], _DISTINCT, -1, _HOODS.index(rule.hood), 0, 0))
        elif isinstance(rule, PatternMatch):
            if rule.terrain in ix and getattr(state.briefing, rule.field) is not None:
                pattern_rule = rule
                local.append((ix[rule.terrain], _PATTERN, -1, 0, 0, 0))
        elif isinstance(rule, LineCount):
            if rule.terrain in ix:
                line_terr.append(ix[rule.terrain])
                line_count.append(rule.count)
        elif isinstance(rule, Count):
            if rule.terrain in ix:
                cnt.append((ix[rule.terrain], rule.at_least, 10**6 if rule.at_most is None else rule.at_most))
            elif rule.at_least > 0:
                dom[:, :] = False  # a terrain the chapter lacks can never be there: no completion
        elif isinstance(rule, ColumnPair):
            if rule.first in ix:
                pairs.append((ix[rule.first], ix.get(rule.second, -2)))
        elif isinstance(rule, Connected):
            if rule.terrain in ix:
                conn.append(ix[rule.terrain])
        elif isinstance(rule, HillNumbers):
            pass  # the revealed Hills' numbers, below
        else:  # a rule kind the sampler does not know would make its samples wrong: refuse
            raise SamplerError(f"the sampler cannot read rule {rule.id} (kind {rule.kind!r})")
    for i, shown in enumerate(state.cells):
        if shown is not None:
            dom[i, :] = False
            if shown in ix:
                dom[i, ix[shown]] = True
        elif possible is not None and i in possible:
            allowed = np.zeros(nt, dtype=np.bool_)
            for u in possible[i]:
                if u in ix:
                    allowed[ix[u]] = True
            dom[i] &= allowed
    local.sort()
    ptr = np.zeros(nt + 1, dtype=np.int64)
    for s, *_ in local:
        ptr[s + 1] += 1
    ptr = np.cumsum(ptr)
    nb = np.full((len(_HOODS), n, 8), -1, dtype=np.int64)
    for h, name in enumerate(_HOODS):
        for i, js in enumerate(board.hood(name)):
            nb[h, i, : len(js)] = js
    p_valid = np.zeros((n, 4), dtype=np.bool_)
    p_cell = np.full((n, 4, 1), -1, dtype=np.int64)
    p_terr = np.full((4, 1), -1, dtype=np.int64)
    if pattern_rule is not None:
        rotations = getattr(state.briefing, pattern_rule.field).rotations()
        size = max(len(r) for r in rotations)
        p_cell = np.full((n, 4, size), -1, dtype=np.int64)
        p_terr = np.full((4, size), -1, dtype=np.int64)
        for k, rot in enumerate(rotations):
            for p, (_, _, t) in enumerate(rot):
                p_terr[k, p] = -1 if t is None else ix.get(t, -2)
            for i in range(n):
                placed = pattern_placements(board, i, rot)
                if placed is not None:
                    p_valid[i, k] = True
                    p_cell[i, k, : len(placed)] = [j for j, _ in placed]
    counted = ix.get(chapter.counted, -1) if chapter.counted is not None else -1
    hills = (
        sorted(state.hills.items()) if counted >= 0 and any(isinstance(r, HillNumbers) for r in chapter.rules) else []
    )
    arr = lambda xs: np.asarray(xs, dtype=np.int64).reshape(-1)
    prog = Program(
        terrains=terrains,
        size=n,
        height=board.height,
        width=board.width,
        dom=dom,
        hidden=arr(state.unrevealed()),
        r_kind=arr([x[1] for x in local]),
        r_target=arr([x[2] for x in local]),
        r_hood=arr([x[3] for x in local]),
        r_lo=arr([x[4] for x in local]),
        r_hi=arr([x[5] for x in local]),
        by_terrain_ptr=ptr,
        by_terrain=arr(range(len(local))),
        nb=nb,
        p_valid=p_valid,
        p_cell=p_cell,
        p_terr=p_terr,
        line_terr=arr(line_terr),
        line_count=arr(line_count),
        cnt_terr=arr([c[0] for c in cnt]),
        cnt_lo=arr([c[1] for c in cnt]),
        cnt_hi=arr([c[2] for c in cnt]),
        pair_first=arr([p[0] for p in pairs]),
        pair_second=arr([p[1] for p in pairs]),
        conn_terr=arr(conn),
        hill_cell=arr([i for i, _ in hills]),
        hill_n=arr([v for _, v in hills]),
        counted=counted,
    )
    prog.blocks, prog.kinds = _blocks(board, set(state.unrevealed()))
    return prog


def _blocks(board, hidden: set[int]) -> tuple[list[np.ndarray], list[int]]:
    """The chain's moves: every 2x2 window redrawn whole (within a cap on the enumeration's work); every 2x4 and
    4x2 window and every band of two adjacent rows or columns, of which only the cells holding a random set of
    terrains are redrawn (whole 2x4 windows cost seven times as much a sweep for the same accuracy: measured);
    and the whole board's cells holding two or three random terrains. Windows 2x4 and 4x2 let two Woods of
    neighbouring lines swap columns (or rows) up to three apart, which generates every arrangement of the Woods.

    A block's cells are ordered across its shorter side first, so each rule's cells are all set soon after
    its centre is."""
    blocks, kinds = [], []

    def add(cells, kind):
        order = [i for i in cells if i in hidden]
        if len(order) > 1:
            blocks.append(np.asarray(order, dtype=np.int64))
            kinds.append(kind)

    h, w = board.height, board.width
    for rows, cols in WINDOWS:
        for r in range(h - rows + 1):
            for c in range(w - cols + 1):
                for kind in (MOVE_WHOLE,) if rows * cols <= 4 else WINDOW_KINDS:
                    if rows <= cols:  # down each column, then the next column
                        add([(r + a) * w + c + q for q in range(cols) for a in range(rows)], kind)
                    else:
                        add([(r + a) * w + c + q for a in range(rows) for q in range(cols)], kind)
    for r in range(h - 1):
        add([(r + a) * w + q for q in range(w) for a in range(2)], MOVE_SUBSET)
    for c in range(w - 1):
        add([a * w + c + q for a in range(h) for q in range(2)], MOVE_SUBSET)
    for _ in range(PAIR_MOVES):
        add(range(h * w), MOVE_PAIR)
    return blocks, kinds


def _scope(prog: Program, x: int, t: int) -> set[int]:
    """The cells a local rule centred on cell x holding terrain t reads (x included); kept on the program."""
    key = (x, t)
    got = prog.scopes.get(key)
    if got is None:
        got = prog.scopes[key] = _scope_of(prog, x, t)
    return got


def _near(prog: Program) -> list[set[int]]:
    """For every cell j, the cells x whose rules (for some terrain) read j."""
    if not prog.near:
        n, nt = prog.dom.shape
        near: list[set[int]] = [set() for _ in range(n)]
        for x in range(n):
            for t in range(nt):
                if prog.dom[x, t]:
                    for j in _scope(prog, x, t):
                        near[j].add(x)
        prog.near = near
    return prog.near


def _checks(prog: Program) -> list[list[tuple[int, tuple[int, ...]]]]:
    """Per cell x, (1 << t, the cells its rules read) for each terrain t it may hold that has rules: what
    ``make_plan`` checks where, made once per program (a plan per block: 156 on flora's boards)."""
    if not prog.checks:
        n, nt = prog.dom.shape
        dom = prog.dom.tolist()
        ptr = [int(v) for v in prog.by_terrain_ptr]
        prog.checks = [
            [(1 << t, tuple(_scope(prog, x, t))) for t in range(nt) if dom[x][t] and ptr[t + 1] > ptr[t]]
            for x in range(n)
        ]
    return prog.checks


def _scope_of(prog: Program, x: int, t: int) -> set[int]:
    out = {x}
    for r in prog.by_terrain[prog.by_terrain_ptr[t] : prog.by_terrain_ptr[t + 1]]:
        if prog.r_kind[r] == _PATTERN:
            for k in range(4):
                if prog.p_valid[x, k]:
                    out.update(int(j) for j, w in zip(prog.p_cell[x, k], prog.p_terr[k]) if j >= 0 and w != -1)
        else:
            out.update(int(j) for j in prog.nb[prog.r_hood[r], x] if j >= 0)
    return out


#: A plan's check entries (``Plan.c_idx``) pack a cell and the terrains whose rules centred there are checked:
#: the cell in the low ``CELL_BITS`` bits, above them one bit per terrain. One entry per cell, not one per (cell,
#: terrain) pair: a step reads the cell's terrain once and tests its bit, where it scanned every pair and divided
#: to unpack each (a quarter of the chains' CPU on flora-1 with 3 revealed: measured with perf).
CELL_BITS = 16
CELL_MASK = (1 << CELL_BITS) - 1


@dataclass
class Plan:
    """One block's enumeration order and when each check can run (step numbers along ``order``)."""

    order: np.ndarray  # int64 [K]
    c_ptr: np.ndarray  # int64 [K+1]: the cells whose rules read the cell set at step k: c_idx[c_ptr[k]:c_ptr[k+1]]
    c_idx: np.ndarray  # int64: cell | terrain bits << CELL_BITS (the terrains whose rules there read it), by cell
    row_done: np.ndarray  # int64 [height]: step at which the row's last block cell is set, -1 if none
    col_done: np.ndarray  # int64 [width]


def make_plan(prog: Program, order: np.ndarray) -> Plan:
    nt = prog.dom.shape[1]
    if prog.size > CELL_MASK + 1 or nt > 62 - CELL_BITS:
        raise SamplerError(f"a board of {prog.size} cells and {nt} terrains is past the kernels' packed checks")
    pos = {int(c): k for k, c in enumerate(order)}
    at: list[dict[int, int]] = [{} for _ in order]  # per step: cell -> bits of the terrains checked there
    # only cells within reach of the block can have a rule whose cells change
    near = _near(prog)
    reach: set[int] = set()
    for c in pos:
        reach.add(c)
        reach |= near[c]
    checks = _checks(prog)
    for x in sorted(reach):
        for bit, scope in checks[x]:
            for j in scope:  # checked (as far as its cells are set) each time one of its cells is set
                k = pos.get(j)
                if k is not None:
                    at[k][x] = at[k].get(x, 0) | bit
    c_ptr = np.zeros(len(order) + 1, dtype=np.int64)
    for k, s in enumerate(at):
        c_ptr[k + 1] = c_ptr[k] + len(s)
    c_idx = np.asarray([x | bits << CELL_BITS for s in at for x, bits in sorted(s.items())], dtype=np.int64).reshape(-1)
    row_done = np.full(prog.height, -1, dtype=np.int64)
    col_done = np.full(prog.width, -1, dtype=np.int64)
    for c, k in pos.items():
        r, q = divmod(c, prog.width)
        row_done[r] = max(row_done[r], k)
        col_done[q] = max(col_done[q], k)
    return Plan(
        order=np.asarray(order, dtype=np.int64),
        c_ptr=c_ptr,
        c_idx=c_idx,
        row_done=row_done,
        col_done=col_done,
    )


# ---------------------------------------------------------------------------------------------------------------
# The compiled kernels

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit
def _next(rng):
    """splitmix64 (Steele, Lea and Flood 2014): the kernels' own seeded generator, the same on every machine."""
    z = rng[0] + _GOLDEN
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit
def _below(rng, k):
    """A uniform integer in [0, k)."""
    u = (_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    v = int(u * k)
    return v if v < k else k - 1


@njit
def _centre_ok(x, t, m, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr):
    """Whether every local rule whose subject is terrain t can still hold at cell x: a cell holding -1 is not
    set yet and may become anything; with every cell it reads set, whether the rule holds."""
    for r in range(ptr[t], ptr[t + 1]):
        kind = r_kind[r]
        h = r_hood[r]
        if kind == 0:
            n = 0
            free = 0
            tg = r_target[r]
            for a in range(8):
                j = nb[h, x, a]
                if j < 0:
                    break
                if m[j] == tg:
                    n += 1
                elif m[j] < 0:
                    free += 1
            if n + free < r_lo[r] or n > r_hi[r]:
                return False
        elif kind == 1:
            for a in range(8):
                ja = nb[h, x, a]
                if ja < 0:
                    break
                if m[ja] < 0:
                    continue
                for b in range(a + 1, 8):
                    jb = nb[h, x, b]
                    if jb < 0:
                        break
                    if m[ja] == m[jb]:
                        return False
        else:
            found = False
            for k in range(4):
                if not p_valid[x, k]:
                    continue
                fits = True
                for p in range(p_cell.shape[2]):
                    w = p_terr[k, p]
                    if w == -1:
                        continue
                    j = p_cell[x, k, p]
                    if j < 0 or (m[j] >= 0 and m[j] != w):
                        fits = False
                        break
                if fits:
                    found = True
                    break
            if not found:
                return False
    return True


@njit
def _only(dom, i, terr):
    """Whether cell ``i`` may hold ``terr`` and nothing else."""
    if not dom[i, terr]:
        return False
    for u in range(dom.shape[1]):
        if u != terr and dom[i, u]:
            return False
    return True


@njit
def _connectable(m, terr, dom, nb, stack, seen):
    """Whether the cells holding ``terr`` form (``dom`` None: a complete map) or can still form (``dom`` the cells'
    terrains: the cells not set yet, -1, that may hold it join them, and those that may hold nothing else must be
    in the group too) one orthogonally connected group."""
    total = 0
    first = -1
    for i in range(m.shape[0]):
        seen[i] = False
        if m[i] == terr or (dom is not None and m[i] < 0 and _only(dom, i, terr)):
            total += 1
            if first < 0:
                first = i
    if total <= 1:
        return True
    top = 0
    stack[0] = first
    seen[first] = True
    reached = 1
    while top >= 0:
        i = stack[top]
        top -= 1
        for a in range(4):
            j = nb[0, i, a]
            if j < 0:
                break
            if seen[j]:
                continue
            if dom is None:
                joins = m[j] == terr
            else:
                joins = m[j] == terr or (m[j] < 0 and dom[j, terr])
            if joins:
                seen[j] = True
                if m[j] == terr or (dom is not None and m[j] < 0 and _only(dom, j, terr)):
                    reached += 1
                top += 1
                stack[top] = j
    return reached == total


@njit
def _leaf_ok(
    m, row_t, col_t, tot, width, full, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
    line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n,
    counted, stack, seen,
):  # fmt: skip
    """The rules only a complete assignment can be checked against (counts' least, connection); with ``full``,
    every rule."""
    n_cells = m.shape[0]
    height = n_cells // width
    ok = True
    for z in range(cnt_terr.shape[0]):
        if tot[cnt_terr[z]] < cnt_lo[z] or tot[cnt_terr[z]] > cnt_hi[z]:
            ok = False
    if ok:
        for z in range(conn_terr.shape[0]):
            if not _connectable(m, conn_terr[z], None, nb, stack, seen):
                ok = False
                break
    if ok and full:
        for x in range(n_cells):
            if not _centre_ok(x, m[x], m, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr):
                ok = False
                break
        for z in range(line_terr.shape[0]):
            for a in range(height):
                if row_t[a, line_terr[z]] != line_count[z]:
                    ok = False
            for a in range(width):
                if col_t[a, line_terr[z]] != line_count[z]:
                    ok = False
        for z in range(pair_first.shape[0]):
            for a in range(width):
                if col_t[a, pair_first[z]] > 0 and (pair_second[z] < 0 or col_t[a, pair_second[z]] == 0):
                    ok = False
        if counted >= 0:
            for z in range(hill_cell.shape[0]):
                hr = hill_cell[z] // width
                hq = hill_cell[z] % width
                if row_t[hr, counted] + col_t[hq, counted] != hill_n[z]:
                    ok = False
    return ok


@njit
def _enumerate(
    m, order, c_ptr, c_idx, row_done, col_done, width,
    dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
    line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n, counted,
    rng, cap, full,
):  # fmt: skip
    """Every assignment of the cells ``order`` that keeps the rules with the other cells of ``m`` fixed: their
    number, and ``m``'s block redrawn to one of them chosen uniformly (reservoir sampling). ``cap`` > 0 bounds
    the enumeration's nodes (-1 returned, ``m`` unchanged, past it); ``full`` checks every rule at each leaf
    (for counting a state, whose revealed part nothing else checks)."""
    return _enumerate_weighted(
        m, order, c_ptr, c_idx, row_done, col_done, width, dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb,
        p_valid, p_cell, p_terr, line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr,
        hill_cell, hill_n, counted, rng, cap, full, cnt_lo, cnt_hi, 1.0,
    )  # fmt: skip


@njit
def _enumerate_weighted(
    m, order, c_ptr, c_idx, row_done, col_done, width,
    dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
    line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n, counted,
    rng, cap, full, true_lo, true_hi, lam,
):  # fmt: skip
    """``_enumerate`` where the count rules' bounds ``cnt_lo``, ``cnt_hi`` may be wider than the rules' own
    (``true_lo``, ``true_hi``): an assignment then weighs ``lam`` to the power of how far the counts are outside
    the rules' bounds, and the block is redrawn in proportion to the weights (weighted reservoir sampling; with
    ``lam`` 1 exactly ``_enumerate``'s uniform draw). Returns the number of assignments met."""
    n_cells = m.shape[0]
    nt = dom.shape[1]
    height = n_cells // width
    kk = order.shape[0]
    orig = np.empty(kk, dtype=np.int64)
    saved = np.empty(kk, dtype=np.int64)
    for a in range(kk):
        orig[a] = m[order[a]]
        saved[a] = orig[a]
        m[order[a]] = -1
    row_t = np.zeros((height, nt), dtype=np.int64)
    col_t = np.zeros((width, nt), dtype=np.int64)
    tot = np.zeros(nt, dtype=np.int64)
    for i in range(n_cells):
        t = m[i]
        if t >= 0:
            row_t[i // width, t] += 1
            col_t[i % width, t] += 1
            tot[t] += 1
    rem_row = np.zeros(height, dtype=np.int64)  # block cells of the row not set yet
    rem_col = np.zeros(width, dtype=np.int64)
    for a in range(kk):
        rem_row[order[a] // width] += 1
        rem_col[order[a] % width] += 1
    stack = np.empty(n_cells, dtype=np.int64)
    seen = np.zeros(n_cells, dtype=np.bool_)
    tix = np.full(kk, -1, dtype=np.int64)
    count = 0
    weight = 0.0
    nodes = 0
    k = 0 if kk > 0 else -1
    if kk == 0 and _leaf_ok(
        m, row_t, col_t, tot, width, full, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
        line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n,
        counted, stack, seen,
    ):  # fmt: skip
        count = 1
    while k >= 0:
        c = order[k]
        r = c // width
        q = c % width
        t = tix[k]
        if t >= 0:
            row_t[r, t] -= 1
            col_t[q, t] -= 1
            tot[t] -= 1
            m[c] = -1
            rem_row[r] += 1
            rem_col[q] += 1
        t += 1
        while t < nt and not dom[c, t]:
            t += 1
        if t >= nt:
            tix[k] = -1
            k -= 1
            continue
        tix[k] = t
        m[c] = t
        row_t[r, t] += 1
        col_t[q, t] += 1
        tot[t] += 1
        rem_row[r] -= 1
        rem_col[q] -= 1
        nodes += 1
        if cap > 0 and nodes > cap:
            for a in range(kk):
                m[order[a]] = orig[a]
            return -1
        ok = True
        for z in range(cnt_terr.shape[0]):
            if cnt_terr[z] == t and tot[t] > cnt_hi[z]:
                ok = False
        for z in range(line_terr.shape[0]):
            lt = line_terr[z]
            lc = line_count[z]
            if row_t[r, lt] > lc or col_t[q, lt] > lc:
                ok = False
            if row_t[r, lt] + rem_row[r] < lc or col_t[q, lt] + rem_col[q] < lc:
                ok = False
        if ok and col_done[q] == k:
            for z in range(pair_first.shape[0]):
                if col_t[q, pair_first[z]] > 0 and (pair_second[z] < 0 or col_t[q, pair_second[z]] == 0):
                    ok = False
        if ok and counted >= 0:
            for z in range(hill_cell.shape[0]):
                hr = hill_cell[z] // width
                hq = hill_cell[z] % width
                v = row_t[hr, counted] + col_t[hq, counted]
                if v > hill_n[z] or k == max(row_done[hr], col_done[hq]) and v != hill_n[z]:
                    ok = False
        if ok:
            left = kk - 1 - k
            for z in range(cnt_terr.shape[0]):
                if tot[cnt_terr[z]] + left < cnt_lo[z]:
                    ok = False
        if ok:
            for a in range(c_ptr[k], c_ptr[k + 1]):
                x = c_idx[a] & CELL_MASK
                tx = m[x]
                if (
                    tx >= 0
                    and c_idx[a] >> (CELL_BITS + tx) & 1
                    and not _centre_ok(x, tx, m, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr)
                ):
                    ok = False
                    break
        if not ok:
            continue
        if k < kk - 1:
            k += 1
            tix[k] = -1
            continue
        # a leaf: the global rules left (``_leaf_ok``; its part without ``full`` written out here: a call increfs
        # each of its two dozen arrays and decrefs them after, at every leaf, a tenth of the chains' CPU)
        if full:
            ok = _leaf_ok(
                m, row_t, col_t, tot, width, full, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell,
                p_terr, line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell,
                hill_n, counted, stack, seen,
            )  # fmt: skip
        else:
            for z in range(cnt_terr.shape[0]):
                if tot[cnt_terr[z]] < cnt_lo[z] or tot[cnt_terr[z]] > cnt_hi[z]:
                    ok = False
            if ok:
                for z in range(conn_terr.shape[0]):
                    if not _connectable(m, conn_terr[z], None, nb, stack, seen):
                        ok = False
                        break
        if ok:
            count += 1
            if lam == 1.0:
                keep_it = _below(rng, count) == 0
            else:
                off = 0
                for z in range(cnt_terr.shape[0]):
                    v = tot[cnt_terr[z]]
                    if v < true_lo[z]:
                        off += true_lo[z] - v
                    elif v > true_hi[z]:
                        off += v - true_hi[z]
                w = lam**off
                weight += w
                keep_it = (_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * weight < w
            if keep_it:
                for a in range(kk):
                    saved[a] = m[order[a]]
    for a in range(kk):
        m[order[a]] = saved[a]
    return count


@njit
def _chain(
    m, orders, lens, kinds, c_ptrs, c_idxs, row_dones, col_dones, width,
    dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
    line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n, counted,
    rng, burn, cap, share, out, stats, true_lo, true_hi, lam, tune, last, extra,
):  # fmt: skip
    """A heat-bath chain from the completion ``m`` (left at the chain's last state, ``rng`` at its generator's):
    ``burn`` sweeps, then ``out.shape[0]`` sweeps each recorded in ``out``; a sweep makes every move once, in a
    random order. ``stats``: moves made, moves skipped at the cap, completions met, sweeps made.

    With count bounds ``cnt_lo``, ``cnt_hi`` wider than the rules' (``true_lo``, ``true_hi``), the chain runs on
    the completions of the relaxed rules, each weighing ``lam`` per count outside the rules' bounds (see
    ``_enumerate_weighted``): there a Fort can appear in one place and leave another in two local moves. Weight 1
    on every completion of the true rules, so the chain's law restricted to them is uniform; a sweep ending
    outside them is not recorded (the next sweep ending inside them is: the chain watched only while inside
    them is a Markov chain whose stationary law is the uniform one on them). The burn-in tunes the weight
    (``lam[0]``) so that about one sweep in four ends outside. A call making more than ``extra`` times its
    sweeps puts the chain back at ``last`` (the last completion of the true rules it met), records it and
    relaxes no more (``tune[0]`` set): a restart from a state the chain met, which bounds the work."""
    nb_blocks = lens.shape[0]
    nt = dom.shape[1]
    perm = np.arange(nb_blocks)
    sub = dom.copy()
    inset = np.zeros(nt, dtype=np.bool_)
    tot = np.zeros(nt, dtype=np.int64)
    s = 0
    made = 0
    while s < burn + out.shape[0]:
        made += 1
        for a in range(nb_blocks - 1, 0, -1):
            b = _below(rng, a + 1)
            perm[a], perm[b] = perm[b], perm[a]
        for a in range(nb_blocks):
            b = perm[a]
            kk = lens[b]
            order = orders[b, :kk]
            use = dom
            if kinds[b] >= 1:
                if kinds[b] == 1:
                    for t in range(nt):
                        inset[t] = _below(rng, 1_000_000) < share * 1_000_000
                else:  # two or three terrains
                    for t in range(nt):
                        inset[t] = False
                    size = 2 + _below(rng, 2)
                    got = 0
                    while got < size:
                        t = _below(rng, nt)
                        if not inset[t]:
                            inset[t] = True
                            got += 1
                for z in range(kk):
                    c = order[z]
                    for t in range(nt):
                        sub[c, t] = dom[c, t] and inset[t] if inset[m[c]] else t == m[c]
                use = sub
            if tune[0] == 0:
                got = _enumerate_weighted(
                    m, order, c_ptrs[b, : kk + 1], c_idxs[b], row_dones[b], col_dones[b], width,
                    use, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
                    line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell,
                    hill_n, counted, rng, cap, False, true_lo, true_hi, lam[0],
                )  # fmt: skip
            else:  # relaxing given up: the true rules only
                got = _enumerate(
                    m, order, c_ptrs[b, : kk + 1], c_idxs[b], row_dones[b], col_dones[b], width,
                    use, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
                    line_terr, line_count, cnt_terr, true_lo, true_hi, pair_first, pair_second, conn_terr, hill_cell,
                    hill_n, counted, rng, cap, False,
                )  # fmt: skip
            stats[0] += 1
            if got < 0:
                stats[1] += 1
            else:
                stats[2] += got
        stats[3] += 1
        for t in range(nt):
            tot[t] = 0
        for i in range(m.shape[0]):
            tot[m[i]] += 1
        inside = True
        for z in range(cnt_terr.shape[0]):
            if tot[cnt_terr[z]] < true_lo[z] or tot[cnt_terr[z]] > true_hi[z]:
                inside = False
        if s < burn:  # the burn-in tunes the weight: outside the true rules 1 or 2 sweeps in 5
            tune[1] += 1
            if not inside:
                tune[2] += 1
            if tune[1] == 5:
                if tune[2] > 2:
                    lam[0] *= 0.1
                elif tune[2] < 1 and lam[0] < RELAX_WEIGHT_MAX:
                    lam[0] = min(RELAX_WEIGHT_MAX, lam[0] * 2)
                tune[1] = 0
                tune[2] = 0
        if inside:
            for i in range(m.shape[0]):
                last[i] = m[i]
        elif made < extra * (burn + out.shape[0]):
            continue  # not a completion of the true rules: sweep on
        else:  # too long outside: back to the last completion of the true rules, and relax no more
            for i in range(m.shape[0]):
                m[i] = last[i]
            tune[0] = 1
        if s >= burn:
            for i in range(m.shape[0]):
                out[s - burn, i] = last[i]
        s += 1


# ---------------------------------------------------------------------------------------------------------------
# Chains, odds and counts


def _rules(prog: Program) -> tuple:
    return (
        prog.dom, prog.r_kind, prog.r_target, prog.r_hood, prog.r_lo, prog.r_hi, prog.by_terrain_ptr, prog.nb,
        prog.p_valid, prog.p_cell, prog.p_terr, prog.line_terr, prog.line_count, prog.cnt_terr, prog.cnt_lo,
        prog.cnt_hi, prog.pair_first, prog.pair_second, prog.conn_terr, prog.hill_cell, prog.hill_n, prog.counted,
    )  # fmt: skip


def _stacked(prog: Program) -> tuple:
    """Every block's plan, padded into arrays of one shape for ``_chain``."""
    plans = [make_plan(prog, b) for b in prog.blocks]
    nb_blocks = len(plans)
    kmax = max((len(p.order) for p in plans), default=1)
    cmax = max((len(p.c_idx) for p in plans), default=1)
    orders = np.zeros((nb_blocks, kmax), dtype=np.int64)
    lens = np.zeros(nb_blocks, dtype=np.int64)
    c_ptrs = np.zeros((nb_blocks, kmax + 1), dtype=np.int64)
    c_idxs = np.zeros((nb_blocks, max(cmax, 1)), dtype=np.int64)
    row_dones = np.full((nb_blocks, prog.height), -1, dtype=np.int64)
    col_dones = np.full((nb_blocks, prog.width), -1, dtype=np.int64)
    for b, p in enumerate(plans):
        k = len(p.order)
        orders[b, :k] = p.order
        lens[b] = k
        c_ptrs[b, : k + 1] = p.c_ptr
        c_idxs[b, : len(p.c_idx)] = p.c_idx
        row_dones[b] = p.row_done
        col_dones[b] = p.col_done
    kinds = np.asarray(prog.kinds, dtype=np.int64).reshape(-1)
    return orders, lens, kinds, c_ptrs, c_idxs, row_dones, col_dones


def encode(prog: Program, w) -> np.ndarray:
    """A complete terrain (a tuple of Terrain) as the kernels' array of terrain numbers."""
    ix = {t: k for k, t in enumerate(prog.terrains)}
    return np.asarray([ix[t] for t in w], dtype=np.int64)


def valid(prog: Program, x: np.ndarray) -> bool:
    """Whether the complete ``x`` keeps every rule of the program (one full check, compiled; the one-cell rules
    are the cells' domains)."""
    if not prog.dom[np.arange(prog.size), x].all():
        return False
    order = np.zeros(0, dtype=np.int64)
    return count_small(prog, x, order=order) == 1


def count_small(prog: Program, x: np.ndarray | None = None, *, order: np.ndarray | None = None, cap: int = 0) -> int:
    """The exact number of completions of the program's state (its unrevealed cells, or ``order``, enumerated
    with every rule checked), or -1 when more than ``cap`` nodes (> 0) would be needed."""
    m = np.full(prog.size, -1, dtype=np.int64) if x is None else np.array(x, dtype=np.int64)
    if x is None:
        for i in range(prog.size):
            if prog.dom[i].sum() == 1:
                m[i] = int(np.argmax(prog.dom[i]))
    if order is None:
        order = prog.hidden
    plan = make_plan(prog, order)
    rng = np.zeros(1, dtype=np.uint64)
    args = (plan.order, plan.c_ptr, plan.c_idx, plan.row_done, plan.col_done, prog.width)
    return int(_enumerate(m, *args, *_rules(prog), rng, cap, True))


class _Kit:
    """What every chain of one program runs with: the blocks' plans and the rules, the counts' bounds relaxed."""

    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.key = _fingerprint(prog)  # which chains run ahead are this program's (``ChainsAhead.take``)
        self.stacked = _stacked(prog)
        relax = list(_rules(prog))
        relax[14] = np.maximum(prog.cnt_lo - RELAX_LOW, 0)  # cnt_lo
        relax[15] = prog.cnt_hi + RELAX  # cnt_hi
        self.relaxed = tuple(relax)


class _Stopped(Exception):
    """A chain run ahead that is no longer wanted (``ChainsAhead.close``)."""


def _one_chain(
    kit: _Kit, start, c: int, sweeps: int, burn: int, seed: int, cap: int, deadline: float | None, total: int,
    stop: threading.Event | None = None,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Chain ``c`` (of ``total``) from ``start``, seeded from (seed, c): its ``sweeps`` draws after ``burn`` sweeps
    discarded, int8 [sweeps, cells], and its moves' tally. SamplerTimeout past the wall-clock ``deadline``."""
    prog = kit.prog
    out = np.zeros((sweeps, prog.size), dtype=np.int8)
    stats = np.zeros(4, dtype=np.int64)
    rng = np.asarray([random.Random(f"{seed}:{c}").getrandbits(63)], dtype=np.uint64)
    x = np.array(start, dtype=np.int64)
    last = x.copy()
    lam = np.asarray([RELAX_WEIGHT], dtype=np.float64)
    tune = np.zeros(3, dtype=np.int64)
    steps: list[tuple[int, tuple[int, int] | None]] = [(min(CHUNK, burn - a), None) for a in range(0, burn, CHUNK)]
    steps += [(0, (a, min(sweeps, a + CHUNK))) for a in range(0, sweeps, CHUNK)]
    empty = np.zeros((0, prog.size), dtype=np.int8)
    for skip, rec in steps:
        if stop is not None and stop.is_set():
            raise _Stopped
        if deadline is not None and time.monotonic() > deadline:
            raise SamplerTimeout(f"the time limit ran out while the sampler ran (chain {c + 1} of {total})")
        dest = empty if rec is None else out[rec[0] : rec[1]]
        _chain(
            x, *kit.stacked, prog.width, *kit.relaxed, rng, skip, cap, SUBSET_SHARE, dest, stats, prog.cnt_lo,
            prog.cnt_hi, lam, tune, last, RELAX_EXTRA,
        )  # fmt: skip
    return out, stats


def _fingerprint(prog: Program) -> bytes:
    """Programs with the same fingerprint (a state and its cells' possible terrains, of one chapter) are one."""
    return prog.dom.tobytes() + b"|" + np.asarray(prog.hidden, dtype=np.int64).tobytes()


@dataclass
class AheadTally:
    """What chains run ahead did for one question (``Solver.chains_ahead``): chains started from the count's runs,
    and chains the sampler took from there."""

    started: int = 0
    taken: int = 0


class ChainsAhead:
    """Chains run ahead, on a thread of their own, from starts known before the sampler is asked for its odds.

    At ``solve``'s default the chains start from the count estimate's SMC runs (``Solver.chain_starts`` rereads
    them), and the count runs them one by one on one core, its SAT checks holding the GIL, while the other core
    waits. A run's starts are known as soon as it ends (``offer``, called by ``smc.estimate``), so their chains can
    run then, beside the next runs; ``run_chains`` takes a chain's draws from here when its program, start, index,
    seed and budget are the ones run ahead (a chain's draws depend on nothing else), and runs it itself otherwise:
    the odds are the same to the digit, only sooner. ``close`` stops what is no longer wanted."""

    def __init__(
        self, prog: Program, *, chains: int, per_run: int, particles: int, step: int, sweeps: int, burn: int,
        seed: int, deadline: float | None = None, cap: int = MOVE_CAP, tally: AheadTally | None = None,
    ) -> None:  # fmt: skip
        self.tally = AheadTally() if tally is None else tally
        self.chains, self.per_run, self.particles, self.step = chains, max(1, per_run), particles, step
        self.sweeps, self.burn, self.seed, self.cap, self.deadline = sweeps, burn, seed, cap, deadline
        self._kit = _Kit(prog)
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chains-ahead")
        self._jobs: dict[tuple[int, bytes], Future] = {}
        self._given = 0  # chains offered so far (the starts ``smc.draws`` takes from the same runs, in order)
        self._offered: set[str] = set()  # the runs offered so far, by key
        self._open = True  # runs still come in order, none dead before

    def offer(self, prog: Program, particles: int, step: int, key: str, picks) -> None:
        """Run ``key`` of SMC runs of ``particles`` particles of ``step`` cells ended; ``picks(k)`` draws its k
        starts as ``smc.draws`` does, or None when every particle died (no start, as in draws). The runs come in
        order from the first, as ``smc.estimate`` and ``smc.draws`` make them (a run offered again, as draws rereads
        the count's, is passed over): a chain's index is its start's place among the draws. Runs of other particles
        or of another program are not the draws' and are passed over too (the count's at another time limit); a run
        out of order ends the offers: the chains left are ``run_chains``'."""
        if not self._open or self._stop.is_set() or key in self._offered:
            return
        if (particles, step) != (self.particles, self.step) or _fingerprint(prog) != self._kit.key:
            return
        if key != f"smc:{self.seed}:{len(self._offered)}":
            self._open = False
            return
        self._offered.add(key)
        if picks is None:
            return
        for x in picks(self.per_run)[: self.chains - self._given]:
            start = np.array(x, dtype=np.int64)
            c = self._given
            self._given += 1
            self.tally.started += 1
            self._jobs[(c, start.tobytes())] = self._pool.submit(
                _one_chain, self._kit, start, c, self.sweeps, self.burn, self.seed, self.cap, self.deadline,
                self.chains, self._stop,
            )  # fmt: skip

    def take(self, kit: _Kit, c: int, start: np.ndarray, sweeps: int, burn: int, seed: int, cap: int):
        """Chain ``c``'s draws and tally from ``start`` if run ahead for the same program (``kit``), seed and budget
        (waiting for it when it is running), else None (not run ahead, or not started yet: run it where you are)."""
        if kit.key != self._kit.key or (sweeps, burn, seed, cap) != (self.sweeps, self.burn, self.seed, self.cap):
            return None
        job = self._jobs.pop((c, np.asarray(start, dtype=np.int64).tobytes()), None)
        if job is None or job.cancel():
            return None
        got = job.result()
        self.tally.taken += 1
        return got

    def close(self) -> None:
        """Stop the chains no longer wanted (each within a chunk of its sweeps) and the thread."""
        self._stop.set()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._jobs.clear()


def run_chains(
    prog: Program,
    starts: list[np.ndarray],
    *,
    sweeps: int,
    burn: int,
    seed: int,
    threads: int = 2,
    cap: int = MOVE_CAP,
    deadline: float | None = None,
    ahead: ChainsAhead | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One chain from each start: ``burn`` sweeps discarded, then ``sweeps`` recorded. Returns the draws, int8
    [chains, sweeps, cells], and the moves' tally (made, skipped at the cap, block completions met). Chain c is
    seeded from (seed, c), so the result is the same whatever the threads. The chains run ``CHUNK`` sweeps at a
    time; past the wall-clock ``deadline`` (``time.monotonic()``) they stop and SamplerTimeout is raised. A chain
    ``ahead`` ran already (``ChainsAhead``) is taken from there."""
    kit = _Kit(prog)
    out = np.zeros((len(starts), sweeps, prog.size), dtype=np.int8)
    stats = np.zeros((len(starts), 4), dtype=np.int64)

    def one(c: int) -> None:
        got = None if ahead is None else ahead.take(kit, c, starts[c], sweeps, burn, seed, cap)
        if got is None:
            got = _one_chain(kit, starts[c], c, sweeps, burn, seed, cap, deadline, len(starts))
        out[c], stats[c] = got

    if threads > 1 and len(starts) > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(one, range(len(starts))))
    else:
        for c in range(len(starts)):
            one(c)
    return out, stats.sum(axis=0)


@dataclass
class Odds:
    """Shares of each terrain per unrevealed cell from a sampler's draws, with their standard errors."""

    shares: dict[int, dict[Terrain, float]]
    errors: dict[int, dict[Terrain, float]]
    #: the convergence check: the largest R-hat over the (cell, terrain) pairs that vary (1.0: the chains agree
    #: perfectly), nested over the chains' groups where they have them (``rhat_method``), else split
    rhat: float
    #: the effective sample size, median over the pairs that vary (p(1-p) / error^2)
    ess: float
    chains: int
    sweeps: int
    burn_in: int
    seed: int
    draws: np.ndarray = field(repr=False)  # int8 [chains, sweeps, cells]
    terrains: tuple[Terrain, ...] = ()
    #: moves made, and moves skipped because their block's enumeration passed ``MOVE_CAP``
    moves: int = 0
    skipped: int = 0
    #: how ``rhat`` was had: ``"nested"`` (over the groups of chains started from one SMC run each, ``superchains``
    #: of them) or ``"split"`` (each chain's two halves)
    rhat_method: str = "split"
    superchains: int = 0
    #: the largest split R-hat, reported beside a nested one (the same number where ``rhat_method`` is split)
    split_rhat: float = float("nan")

    @property
    def converged(self) -> bool:
        return converged(self.rhat)

    @property
    def max_error(self) -> float:
        return max((e for es in self.errors.values() for e in es.values()), default=0.0)

    def summary(self) -> dict:
        return {
            "method": ODDS_SAMPLER,
            "chains": self.chains,
            "sweeps": self.sweeps,
            "burn_in": self.burn_in,
            "seed": self.seed,
            "samples": self.chains * self.sweeps,
            "effective_samples": round(self.ess, 1),
            "rhat": rhat_json(self.rhat),
            "rhat_method": self.rhat_method,
            **({"superchains": self.superchains} if self.rhat_method == "nested" else {}),
            "split_rhat": rhat_json(self.split_rhat),
            "converged": self.converged,
            "max_error": round(self.max_error, 4),
            "moves": self.moves,
            "moves_skipped": self.skipped,
        }

    def add_unseen(self, possible: dict[int, frozenset[Terrain]], starts: int | None = None) -> None:
        """Every terrain ``possible`` (exact: ``Solver.possible``) says a cell can hold, but which no chain met
        there, listed with share 0 and the error of ``unseen_bound`` (as ``Z95`` standard errors): a terrain known to
        be possible is never shown as certain not to be there. Measured on the odds bench's states (one run, seed
        1): such pairs were 65 of 332 on fauna-1 with 5 revealed (exact shares up to 0.20), 96 of 307 at 8 (up to
        0.47), 65 of 241 on maldonado-2 at 16 (up to 0.065), and every one counted as a bar that missed."""
        bound = unseen_bound(self.chains if starts is None else starts, self.rhat, self.ess) / Z95
        for i, ts in possible.items():
            got = self.shares.get(i)
            if got is None:
                continue
            err = self.errors.setdefault(i, {})
            for t in sorted(ts - got.keys(), key=lambda t: t.index):
                got[t] = 0.0
                err[t] = bound

    def completions(self) -> list[tuple[Terrain, ...]]:
        """Every recorded draw as a terrain tuple (chains one after another)."""
        flat = self.draws.reshape(-1, self.draws.shape[-1])
        return [tuple(self.terrains[k] for k in row.tolist()) for row in flat]


class Starts(list):
    """Completions for chains to start from (``Solver.chain_starts``), with ``groups``: the same number for starts
    that are not independent of each other (drawn from one SMC run's particles), a number of its own for the rest."""

    def __init__(self, *args):
        super().__init__(*args)
        self.groups: list[int] = []


def odds_of(
    draws: np.ndarray,
    prog: Program,
    hidden,
    *,
    seed: int = 0,
    burn: int = 0,
    batches: int = BATCHES,
    groups: list[int] | None = None,
) -> Odds:
    """Shares, standard errors and R-hat from draws [chains, sweeps, cells]: nested R-hat over ``groups``
    (``_nested_rhat``) where the chains come in groups, else split R-hat.

    A share's standard error is the larger of two: batch means (every chain cut into ``batches`` batches, the
    batches' means as independent estimates: right when the chains mix) and the chains' own means as
    independent estimates, scaled so that Z95 errors make a Student t interval over the chains (right when
    they do not: chains stuck in different regions disagree, and only their spread shows it). Measured on the
    odds bench's states (one run of 8 chains, load 4-6): the 95% bars covered the exact share on 7-39% of
    the (cell, terrain) pairs of Fauna's states with batch means alone and 32-93% with the chains' spread;
    Training and Flora 87-98% before, 89-100% after. Chains that agree on a wrong answer (vameter-1 at 20
    revealed: R-hat 1.35, bars covering 42% then 52%) are out of any error bar's reach.

    ``groups`` (one number per chain) says which chains are not independent: started from draws of one SMC run, or
    from the same start. The spread is then taken over the groups' means, a Student t bar over the groups (with
    fewer than two groups, over the chains). Measured on 9 of the odds bench's states (seed 1, 8 chains from 4 SMC
    runs, two each): the bars covered 67% -> 89% of the pairs on fauna-2@5, 77% -> 83% on fauna-4@8, 75% -> 80%
    on fauna-7@12, 81% -> 87% on training-1@8, 87% -> 91% on maldonado-1@16, 1-2 points more on the others."""
    chains, sweeps, _ = draws.shape
    nt = len(prog.terrains)
    hidden = list(hidden)
    sub = draws[:, :, hidden].astype(np.int64)  # [C, S, H]
    onehot = np.zeros((chains, sweeps, len(hidden), nt), dtype=np.float64)
    np.put_along_axis(onehot, sub[..., None], 1.0, axis=3)
    p = onehot.mean(axis=(0, 1))  # [H, T]
    nb = max(2, min(batches, sweeps // 2)) if sweeps >= 4 else 1
    size = sweeps // nb
    if size >= 1 and chains * nb > 1:
        means = (
            onehot[:, : nb * size]
            .reshape(chains, nb, size, len(hidden), nt)
            .mean(axis=2)
            .reshape(chains * nb, len(hidden), nt)  # not -1: a complete map's 0 cells leave it undetermined
        )
        se = means.std(axis=0, ddof=1) / math.sqrt(means.shape[0])
    else:
        se = np.full_like(p, np.nan)
    given = groups if groups is not None and len(groups) == chains else []
    ids = sorted(set(given))
    of = np.asarray([ids.index(g) for g in given], dtype=np.int64)
    chain_means = onehot.mean(axis=1)  # [C, H, T]
    # the groups' means (the chains' of one group averaged: every chain has as many sweeps), where there are groups
    group_means = np.stack([chain_means[of == k].mean(axis=0) for k in range(len(ids))]) if len(ids) >= 2 else None
    if chains >= 2:
        # the chains' own means as independent estimates: where chains stuck in different regions disagree, their
        # spread (a Student t bar over the chains, in units that Z95 standard errors read) is the honest error;
        # chains that are not independent of each other count as one, their mean
        means_c = chain_means if group_means is None else group_means
        units = means_c.shape[0]
        spread = means_c.std(axis=0, ddof=1) / math.sqrt(units) * (t95(units - 1) / Z95)
        se = np.fmax(se, spread)
    # split R-hat: each chain's two halves as separate sequences
    half = sweeps // 2
    if half >= 2:
        seqs = np.concatenate([onehot[:, :half], onehot[:, half : 2 * half]], axis=0)  # [2C, half, H, T]
        mean_j = seqs.mean(axis=1)
        var_j = seqs.var(axis=1, ddof=1)
        w = var_j.mean(axis=0)
        b = half * mean_j.var(axis=0, ddof=1)
        var_plus = (half - 1) / half * w + b / half
        with np.errstate(divide="ignore", invalid="ignore"):
            rh = np.sqrt(var_plus / w)
        varies = (p > 0) & (p < 1)
        rh = np.where(w > 0, rh, np.where(b > 0, np.inf, 1.0))
        split = float(rh[varies].max()) if varies.any() else 1.0
    else:
        split = float("nan")
    rhat, method = split, "split"
    if group_means is not None and len(ids) < chains and sweeps >= 2:  # groups of chains: superchains
        rhat, method = _nested_rhat(onehot, of, chain_means, group_means, (p > 0) & (p < 1)), "nested"
    varies = (p > 0) & (p < 1) & (se > 0)
    ess = float(np.median(p[varies] * (1 - p[varies]) / se[varies] ** 2)) if varies.any() else float(chains * sweeps)
    shares: dict[int, dict[Terrain, float]] = {}
    errors: dict[int, dict[Terrain, float]] = {}
    for a, i in enumerate(hidden):
        shares[i] = {prog.terrains[t]: float(p[a, t]) for t in range(nt) if p[a, t] > 0}
        errors[i] = {prog.terrains[t]: float(se[a, t]) for t in range(nt) if p[a, t] > 0}
    return Odds(
        shares, errors, rhat, ess, chains, sweeps, burn, seed, draws, prog.terrains,
        rhat_method=method, superchains=len(ids) if method == "nested" else 0, split_rhat=split,
    )  # fmt: skip


def _nested_rhat(
    onehot: np.ndarray, of: np.ndarray, chain_means: np.ndarray, group_means: np.ndarray, varies: np.ndarray
) -> float:
    """Nested R-hat (Margossian, Hoffman, Sountsov, Riou-Durand, Vehtari and Gelman, *Nested R-hat: assessing the
    convergence of Markov chain Monte Carlo when running many short chains*, Bayesian Analysis 2024, eq. 17-19),
    the largest over the pairs that ``varies``: sqrt(1 + B / W), B the variance of the superchains' means
    (``group_means``, of the groups ``of`` numbers), W the mean over the superchains of their chains' variance
    within plus between (``chain_means``: each chain's). It is the check made for many short chains: split R-hat
    compares each chain's halves, 15 draws each here, and its noise alone kept chains that mix from passing
    (Training's early states: 1.05-1.12 split, 1.007-1.029 nested, 32 chains of 30 sweeps, seeds 1 and 2), while a
    group's chains share one SMC run's draws, so the groups, not the chains, are what must agree: where the runs put
    different weights on islands the chains cannot cross (Fauna's Forts) it stays far above 1 (fauna-1 at 3 to 8
    revealed: 1.37-2.81; flora-1, vameter-1 and maldonado-1 at 0 to 8: 1.08-6.27). Groups of unequal size (starts
    used in turn, lone SAT starts) are taken as they are: a smaller group's mean varies more, which can only raise
    B."""
    chain_var = onehot.var(axis=1, ddof=1)
    within = np.stack(
        [
            chain_var[of == g].mean(axis=0) + (chain_means[of == g].var(axis=0, ddof=1) if (of == g).sum() > 1 else 0)
            for g in range(len(group_means))
        ]
    ).mean(axis=0)
    between = group_means.var(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sqrt(1.0 + between / within)
    r = np.where(within > 0, r, np.where(between > 0, np.inf, 1.0))
    return float(r[varies].max()) if varies.any() else 1.0


@dataclass(frozen=True)
class Budget:
    """The sampler's work: chains, sweeps recorded per chain, burn-in sweeps per chain, and the particles of each
    SMC run that draws a chain's start (``smc.draws``). Never seconds."""

    chains: int = CHAINS
    sweeps: int = SWEEPS
    burn_in: int = BURN_IN
    start_particles: int = START_PARTICLES

    @classmethod
    def for_seconds(cls, seconds: float, revealed: float = 0.0) -> Budget:
        """The budget a time limit of ``seconds`` buys, a pure function of the numbers (never of the clock): at 10 s
        ``CHAINS`` chains (``RUNS`` SMC runs of ``START_PARTICLES``) of ``SWEEPS`` sweeps after ``BURN_IN``; below,
        fewer chains in proportion (at least 2 a run: 12 at ``solve``'s default 4 s) and fewer particles (at least
        50); above, longer chains. ``revealed``: the share of the state's cells revealed; past ``solve``'s default
        (``BASE_SCALE``) a state with more revealed gets more particles a run, up to ``MID_PARTICLES`` at 10 s from
        ``MID_SHARE`` revealed (an empty board keeps ``START_PARTICLES``)."""
        scale = seconds / 10
        per_run = max(2, min(CHAINS // RUNS, round(CHAINS / RUNS * scale)))
        particles = START_PARTICLES * min(scale, BASE_SCALE)
        if scale > BASE_SCALE:  # from solve's default on, linearly up to the state's particles at 10 s
            top = START_PARTICLES + (MID_PARTICLES - START_PARTICLES) * min(1.0, revealed / MID_SHARE)
            particles += (top - particles) * (min(scale, 1.0) - BASE_SCALE) / (1 - BASE_SCALE)
        return cls(RUNS * per_run, max(SWEEPS, round(SWEEPS * scale)), BURN_IN, max(50, round(particles)))


def sample_odds(
    chapter: Chapter,
    state: Map,
    starts: list[tuple[Terrain, ...]],
    *,
    budget: Budget = Budget(),
    seed: int = 0,
    possible: dict[int, frozenset[Terrain]] | None = None,
    threads: int = 2,
    deadline: float | None = None,
    ahead: ChainsAhead | None = None,
) -> Odds:
    """Odds for ``state`` from one chain per start (completions of the state; different ones make R-hat
    meaningful). Starts are used in turn when there are fewer than ``budget.chains``; the bars count the chains of
    one start, or of starts of one group (``Starts.groups``), as one. Chains run ``ahead`` are taken from there."""
    if not starts:
        raise SamplerError("no completion to start a chain from")
    prog = compile_program(chapter, state, possible)
    xs = [encode(prog, starts[c % len(starts)]) for c in range(budget.chains)]
    draws, stats = run_chains(
        prog, xs, sweeps=budget.sweeps, burn=budget.burn_in, seed=seed, threads=threads, deadline=deadline, ahead=ahead
    )
    # chains from one start, or from starts of one SMC run (``Starts.groups``), are one unit of the bars' spread
    given = getattr(starts, "groups", None)
    of_start = list(given) if given is not None and len(given) == len(starts) else list(range(len(starts)))
    groups = [of_start[c % len(starts)] for c in range(budget.chains)]
    odds = odds_of(draws, prog, state.unrevealed(), seed=seed, burn=budget.burn_in, groups=groups)
    odds.moves, odds.skipped = int(stats[0]), int(stats[1])
    if possible:  # the starts assumed independent for the bound: ``UNSEEN_PER_RUN`` of each group at most
        odds.add_unseen(possible, sum(min(UNSEEN_PER_RUN, groups.count(g)) for g in set(groups)))
    return odds
