"""A state's number of completions estimated by sequential Monte Carlo over its cells, with a 95% interval.

Where no exact count comes in time (early Flora, Vameter and Maldonado states), the count is estimated.
*Particles* fill the unrevealed cells in a fixed order, a few cells (a *step*) at a time. A step counts the
assignments of its cells that pass every rule's "can still hold" check with the cells set so far (the checks of
the block sampler's enumeration, ``sampler._centre_ok`` and the line, count, column-pair and Hill-number bounds,
read as bounds on the cells still unset), draws one of them uniformly, and multiplies the particle's weight by
their number; a particle with none, or whose complete map breaks a rule, gets weight 0. When the particles'
effective number falls below a share of them, they are resampled (systematic resampling) in proportion to their
weights. The product over the steps of the weighted mean increments is an **unbiased estimate of the count**
(sequential importance sampling as Chen, Diaconis, Holmes and Liu, JASA 2005, do for contingency tables;
unbiasedness with resampling: Del Moral, *Feynman-Kac Formulae*, 2004, 7.4.2).

The kernels' checks are local: filled row by row, most particles of an early state reach prefixes with no
completion (a Fort whose pattern cannot fit, a column left one cell for a Wood and a Vine, a Rock cut off) and die
rows later, all copies of a few doomed ancestors: every run of fauna-1 at 0 to 8 revealed died. So after each
step (``CHECK_EVERY``; the gap doubles after a check that cut none, up to ``CHECK_MOST``) a SAT check (``sat_check``, the count's ``Solver._smc_check``) asks of each distinct
particle whether its prefix still has a completion, and gives the doomed weight 0 before they are resampled: a
potential that is 1 on every prefix of a completion, so the estimate stays unbiased (the same normalising
constant). Measured (``python -m bench count_estimate``, one run): 14 of 16 early states (0, 3, 5, 8 revealed, one
map a chapter) get an interval (a run died on 13 of 16 before), and 32 of 34 states with an exact count are held
by theirs (26 of 35 before). Early intervals are rough: the estimator is heavy-tailed there and misses low.

Several independent runs (run r seeded from (seed, r)) give the interval: on the logarithms of their estimates
(nearly normal: the central limit theorem of SMC's log normalising constant, Bérard, Del Moral and Doucet,
2014), a Student t interval whose centre is moved up by half the runs' log variance (the log of an unbiased,
lognormal estimate sits that much below the log of its mean); the estimate is that centre, or the runs' own mean
where that is lower, and never outside the interval (``interval``). Everything is counted in work (particles, runs),
never in seconds: the same seed and budget give the same answer on any machine; a wall-clock deadline may only
cut the runs short (``SmcTimeout``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mapgen.solving.kernels import njit
from mapgen.solving.sampler import (
    CELL_BITS,
    CELL_MASK,
    Program,
    _below,
    _centre_ok,
    _connectable,
    _leaf_ok,
    _next,
    _rules,
    make_plan,
)
from mapgen.solving.sat import PROPAGATIONS_PER_SECOND, SatTimeout
from mapgen.solving.sat import Budget as SatBudget
from mapgen.solving.unigen import t95

if TYPE_CHECKING:
    from mapgen.model import Map
    from mapgen.solving.sampler import ChainsAhead
    from mapgen.solving.sat import SatSession

#: Default work: particles per run, independent runs, cells per step, and the effective share of particles
#: below which they are resampled.
PARTICLES, RUNS, STEP, RESAMPLE_BELOW = 1_000, 4, 1, 0.5
#: Particle runs (particles times runs) a second of a time limit buys (``SmcBudget.for_seconds``), and the runs: with
#: the SAT check, 4 runs of 223 particles at solve's 10 s (PER_SECOND 350) held the exact count on 33 of 35 states,
#: 6 of 106 (250) on 29 of 33 (``python -m bench count_estimate``, one run each); 4 runs at 250 keep the work
#: within the time limit's CPU (an empty Fauna board's count at 6 s took 7.2 CPU s at 350, 5.0 at 250) and held it on
#: 32 of 34.
PER_SECOND = 250
CONFIDENCE = 0.95
#: Forward checking (``_step_ok``): a step also fails when an unset neighbour of a cell whose rules read it
#: has no terrain left. Fewer particles die on the way (measured on Fauna and Flora states).
LOOK = True
#: Room (``_step_ok``): a terrain short of its count's least needs as many cells left where its line limits and local
#: rules can still hold with the cells set so far (a Fort's pattern, a Mud's Water and Rock). Measured (``python -m
#: bench count_estimate``, one run, load 5): intervals on fauna-2 at 5 and 8 revealed that had none, 25 of 33 states
#: covered (24 of 32 before); maldonado-2@20 now gets an interval that misses (2,996 outside 0-1,810).
ROOM = True
#: Column needs (``_line_room``): a column's unset cells must have room for every terrain it still needs. With it
#: and the connection check counting cells that may hold only a Rock (``sampler._connectable``), measured (``python
#: -m bench count_estimate``, one run): early flora-1 at 3, 5 and 8 revealed get intervals (every run died before);
#: against 20 runs of 1,000 particles (flora-1@3 1.07e20, @8 1.98e18) 7 of 9 seeds' intervals at solve's work hold
#: them: early intervals are rough (heavy tails), not 95%. Coverage on states with exact counts unchanged (26 of 35).
#: Tried and not kept: Fauna's three Forts drawn first per particle among the sets whose patterns and revealed Hill
#: numbers fit (the sets are right: fauna-2@8's four sets' exact counts sum to its count): runs survived no more
#: often (of 20 runs of 300 particles: fauna-2@5 16 against 12, fauna-1@12 12 against 19; 0 at 0-8 revealed
#: either way). Particles die of rules meeting (a column needing a Wood and a Vine, a Rock cut off by a Wood line).
LINE_NEEDS = True
#: The SAT check between segments (``_Runner``, ``sat_check``; ``Solver`` gives one where ``CHECK``): every
#: ``CHECK_EVERY`` step (twice as many after a check that cut none, up to ``CHECK_MOST``), at most
#: ``CHECK_PROPAGATIONS`` SAT propagations a distinct particle (about 0.17 ms each on
#: Flora states). Runs alive of 12 (149 particles; maldonado-1@0 and @3, vameter-1@5, fauna-1@3): every step 47 of
#: 48, every 2 steps 42 (0.7x the CPU), every 4 steps and every step while fewer than half passed 25.
CHECK, CHECK_EVERY, CHECK_MOST, CHECK_PROPAGATIONS = True, 1, 4, 200_000
#: Models the SAT check keeps as witnesses (the newest): a particle whose every set cell one of them holds has a
#: completion under the check's rules (that model), so it is kept without a SAT call, as the call would keep it. The
#: distinct particles are checked in lexicographic order, so neighbours share most of their cells. Measured on the
#: chain starts' runs at ``solve``'s default work (4 runs of 100 particles, empty boards): of 3,606 satisfiable
#: calls on maldonado-1 a pool of 64 answers 1,885 (the newest model alone 1), flora-1 2,893 of 7,020, vameter-1
#: 3,557 of 6,869, fauna-1 1,322 of 2,585, the calls it saves 41% of maldonado-1's SAT time (0.5 ms a satisfiable
#: call there). Tried before in numpy, the test cost 0.06 ms a particle, more than it saved outside Maldonado;
#: compiled (``_witnessed``) it costs a few microseconds.
WITNESSES = 64
#: Assignments of a step kept per particle for its copies (``_replay``): a particle with more is filled anew by each.
REPLAY_ROOM = 64
#: ``draws``: particles per run, and runs tried per run needed at most.
DRAW_PARTICLES, DRAW_TRIES = 200, 1.5


class SmcTimeout(TimeoutError):
    """The wall clock ran out before the estimate's runs were done."""


# ---------------------------------------------------------------------------------------------------------------
# The compiled kernels


@njit
def _local_ok(
    x, t, m, row_t, col_t, tot, width, dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
    line_terr, line_count, cnt_terr, cnt_hi,
):  # fmt: skip
    """``sampler._centre_ok``, sharper: an unset neighbour counts towards a rule's least only if it may still
    hold the target (its domain, the target's count and line limits; a target with one a line gets at most one
    more per row and per column among them), and a pattern fits only where its unset cells may hold what it
    wants there."""
    for r in range(ptr[t], ptr[t + 1]):
        if r_kind[r] == 2:  # a pattern: some rotation whose unset cells may still hold what it wants there
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
                    if j < 0 or w < 0 or (m[j] >= 0 and m[j] != w) or (m[j] < 0 and not dom[j, w]):
                        fits = False
                        break
                if fits:
                    found = True
                    break
            if not found:
                return False
            continue
        if r_kind[r] != 0:
            continue
        tg = r_target[r]
        h = r_hood[r]
        n = 0
        free = 0
        lc = -1
        for z in range(line_terr.shape[0]):
            if line_terr[z] == tg:
                lc = line_count[z]
        full = False
        for z in range(cnt_terr.shape[0]):
            if cnt_terr[z] == tg and tot[tg] >= cnt_hi[z]:
                full = True
        rows_seen = 0
        cols_seen = 0
        for a in range(8):
            j = nb[h, x, a]
            if j < 0:
                break
            if m[j] == tg:
                n += 1
            elif m[j] < 0 and tg >= 0 and dom[j, tg] and not full:
                rj = j // width
                qj = j % width
                if lc >= 0 and (row_t[rj, tg] >= lc or col_t[qj, tg] >= lc):
                    continue
                if lc == 1:
                    rows_seen |= 1 << rj
                    cols_seen |= 1 << qj
                free += 1
        if lc == 1:
            nr = 0
            nc = 0
            for b in range(64):
                if rows_seen >> b & 1:
                    nr += 1
                if cols_seen >> b & 1:
                    nc += 1
            free = min(free, nr, nc)
        if n + free < r_lo[r]:
            return False
    return _centre_ok(x, t, m, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr)


@njit
def _line_room(k, q, m, col_t, order, width, dom, line_terr, line_count, pair_first, pair_second):
    """Whether column ``q``'s cells still unset after step ``k`` can hold what the column still needs: its line
    terrains short of their count (C4's Wood) and the second of each column pair whose first it holds and whose
    second it lacks (F1's Vine for a Rock, Rock for a Vine), one cell each, counting only cells that may hold one
    of them. (One cell left for a Wood and a Vine killed every particle of a fauna-1 run at G2.)"""
    nt = col_t.shape[1]
    need = 0
    wanted = 0
    for z in range(line_terr.shape[0]):
        short = line_count[z] - col_t[q, line_terr[z]]
        if short > 0:
            need += short
            wanted |= 1 << line_terr[z]
    for z in range(pair_first.shape[0]):
        b = pair_second[z]
        if b >= 0 and col_t[q, pair_first[z]] > 0 and col_t[q, b] == 0 and not (wanted >> b & 1):
            need += 1
            wanted |= 1 << b
    if need == 0:
        return True
    room = 0
    for a in range(k + 1, order.shape[0]):
        j = order[a]
        if j % width != q or m[j] >= 0:
            continue
        for u in range(nt):
            if wanted >> u & 1 and dom[j, u]:
                room += 1
                break
    return room >= need


@njit
def _step_ok(
    k, m, row_t, col_t, tot, order, pos, look, c_ptr, c_idx, can_row, can_col, can_tot, width,
    dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
    line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n, counted,
    stack, seen,
):  # fmt: skip
    """Whether, with cells order[0..k] set (the others -1), every rule can still hold, as far as the checks that
    cell order[k] touches tell. ``can_row[k, r, t]``: the cells of row r set after step k that may hold terrain t
    (``can_col`` per column, ``can_tot`` in all)."""
    c = order[k]
    r = c // width
    q = c % width
    t = m[c]
    nt = tot.shape[0]
    kk = order.shape[0]
    for z in range(cnt_terr.shape[0]):
        if cnt_terr[z] == t and tot[t] > cnt_hi[z]:
            return False
    need = 0
    for z in range(cnt_terr.shape[0]):
        if tot[cnt_terr[z]] + can_tot[k, cnt_terr[z]] < cnt_lo[z]:
            return False
        if tot[cnt_terr[z]] < cnt_lo[z]:
            need += cnt_lo[z] - tot[cnt_terr[z]]
    if need > kk - 1 - k:  # the terrains still short of their least need more cells than are left
        return False
    if ROOM:
        # a terrain short of its least needs that many cells left where it could still stand: its own line limits
        # and local rules (a Fort's pattern, a Mud's Water and Rock) with the cells set so far (looked for until
        # found: cheap unless tight)
        for z in range(cnt_terr.shape[0]):
            u = cnt_terr[z]
            short = cnt_lo[z] - tot[u]
            if short <= 0:
                continue
            found = 0
            for a in range(k + 1, kk):
                j = order[a]
                if not dom[j, u]:
                    continue
                rj = j // width
                qj = j % width
                free = True
                for y in range(line_terr.shape[0]):
                    if line_terr[y] == u and (row_t[rj, u] >= line_count[y] or col_t[qj, u] >= line_count[y]):
                        free = False
                if not free:
                    continue
                m[j] = u
                fine = _local_ok(
                    j, u, m, row_t, col_t, tot, width, dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid,
                    p_cell, p_terr, line_terr, line_count, cnt_terr, cnt_hi,
                )  # fmt: skip
                m[j] = -1
                if fine:
                    found += 1
                    if found >= short:
                        break
            if found < short:
                return False
    for z in range(line_terr.shape[0]):
        lt = line_terr[z]
        lc = line_count[z]
        if row_t[r, lt] > lc or col_t[q, lt] > lc:
            return False
        if row_t[r, lt] + can_row[k, r, lt] < lc or col_t[q, lt] + can_col[k, q, lt] < lc:
            return False
    for z in range(pair_first.shape[0]):
        if col_t[q, pair_first[z]] > 0 and (
            pair_second[z] < 0 or col_t[q, pair_second[z]] + can_col[k, q, pair_second[z]] == 0
        ):
            return False
    if LINE_NEEDS and not _line_room(k, q, m, col_t, order, width, dom, line_terr, line_count, pair_first, pair_second):
        return False
    if counted >= 0:
        for z in range(hill_cell.shape[0]):
            hr = hill_cell[z] // width
            hq = hill_cell[z] % width
            v = row_t[hr, counted] + col_t[hq, counted]
            if v > hill_n[z] or v + can_row[k, hr, counted] + can_col[k, hq, counted] < hill_n[z]:
                return False
    for a in range(c_ptr[k], c_ptr[k + 1]):
        x = c_idx[a] & CELL_MASK
        tx = m[x]
        if tx >= 0 and c_idx[a] >> (CELL_BITS + tx) & 1 and not _local_ok(
            x, tx, m, row_t, col_t, tot, width, dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell,
            p_terr, line_terr, line_count, cnt_terr, cnt_hi,
        ):  # fmt: skip
            return False
    for z in range(conn_terr.shape[0]):  # a Rock set may be cut off too: from the unset cells only it may hold
        if not _connectable(m, conn_terr[z], dom, nb, stack, seen):
            return False
    if not look:
        return True
    # forward checking: every unset king-neighbour of a cell whose rules read this one keeps a terrain that
    # passes the upper bounds and every local rule it touches
    for a in range(c_ptr[k], c_ptr[k + 1]):
        x = c_idx[a] & CELL_MASK
        tx = m[x]
        if tx < 0 or not c_idx[a] >> (CELL_BITS + tx) & 1:
            continue
        for b in range(9):
            j = x if b == 8 else nb[2, x, b]
            if j < 0 or m[j] >= 0 or pos[j] < 0:
                continue
            kj = pos[j]
            rj = j // width
            qj = j % width
            alive = False
            for u in range(nt):
                if not dom[j, u]:
                    continue
                fine = True
                for z in range(cnt_terr.shape[0]):
                    if cnt_terr[z] == u and tot[u] + 1 > cnt_hi[z]:
                        fine = False
                for z in range(line_terr.shape[0]):
                    if line_terr[z] == u and (row_t[rj, u] + 1 > line_count[z] or col_t[qj, u] + 1 > line_count[z]):
                        fine = False
                if not fine:
                    continue
                m[j] = u
                for e in range(c_ptr[kj], c_ptr[kj + 1]):
                    y = c_idx[e] & CELL_MASK
                    ty = m[y]
                    if ty >= 0 and c_idx[e] >> (CELL_BITS + ty) & 1 and not _local_ok(
                        y, ty, m, row_t, col_t, tot, width, dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb,
                        p_valid, p_cell, p_terr, line_terr, line_count, cnt_terr, cnt_hi,
                    ):  # fmt: skip
                        fine = False
                        break
                m[j] = -1
                if fine:
                    alive = True
                    break
            if not alive:
                return False
    return True


@njit
def _fill(
    k0, k1, m, row_t, col_t, tot, order, pos, look, c_ptr, c_idx, can_row, can_col, can_tot, width,
    dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
    line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n, counted,
    stack, seen, tix, saved, rng, prop, rec_t, rec_q, rec_n, ri,
):  # fmt: skip
    """The assignments of cells order[k0..k1) (unset in ``m``) that pass every check: ``m`` (with the tallies)
    left at one of them drawn in proportion to the product of its cells' ``prop`` (weighted reservoir sampling),
    or unchanged when none; returns the importance weight of the draw (the sum of the products over the
    assignments, over the drawn one's: with ``prop`` all ones, their number). At the last cell of the order,
    every rule of the complete map is checked. With ``ri`` >= 0 the assignments of positive weight and their
    weights are kept in ``rec_t[ri]``, ``rec_q[ri]`` (their number in ``rec_n[ri]``, -1 past the room) for the
    particle's copies (``_replay``)."""
    kk = order.shape[0]
    if ri >= 0:
        rec_n[ri] = 0
    count = 0
    mass = 0.0
    chosen = 0.0
    k = k0
    tix[k0] = -1
    nt = dom.shape[1]
    while k >= k0:
        c = order[k]
        r = c // width
        q = c % width
        t = tix[k]
        if t >= 0:
            row_t[r, t] -= 1
            col_t[q, t] -= 1
            tot[t] -= 1
            m[c] = -1
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
        ok = _step_ok(
            k, m, row_t, col_t, tot, order, pos, look, c_ptr, c_idx, can_row, can_col, can_tot, width,
            dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
            line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n,
            counted, stack, seen,
        )  # fmt: skip
        if ok and k == kk - 1:
            ok = _leaf_ok(
                m, row_t, col_t, tot, width, True, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell,
                p_terr, line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr,
                hill_cell, hill_n, counted, stack, seen,
            )  # fmt: skip
        if not ok:
            continue
        if k < k1 - 1:
            k += 1
            tix[k] = -1
            continue
        count += 1
        q = 1.0
        for a in range(k0, k1):
            q *= prop[order[a], m[order[a]]]
        if q <= 0.0:
            continue
        mass += q
        if ri >= 0 and rec_n[ri] >= 0:
            if rec_n[ri] < rec_q.shape[1]:
                for a in range(k0, k1):
                    rec_t[ri, rec_n[ri], a - k0] = m[order[a]]
                rec_q[ri, rec_n[ri]] = q
                rec_n[ri] += 1
            else:
                rec_n[ri] = -1
        if _uniform(rng) * mass < q:
            chosen = q
            for a in range(k0, k1):
                saved[a] = m[order[a]]
    # back to the chosen assignment (every cell of the step is unset here)
    if mass > 0.0:
        _place(k0, k1, m, row_t, col_t, tot, order, width, saved, 0)
        return mass / chosen
    return 0.0


@njit
def _place(k0, k1, m, row_t, col_t, tot, order, width, values, off):
    """Set the cells ``order[k0..k1)`` (unset) to ``values[a - off]`` and count them in the tallies."""
    for a in range(k0, k1):
        c = order[a]
        t = values[a - off]
        m[c] = t
        row_t[c // width, t] += 1
        col_t[c % width, t] += 1
        tot[t] += 1


@njit
def _replay(k0, k1, m, row_t, col_t, tot, order, width, rec_t, rec_q, n, rng):
    """``_fill`` for a copy of a particle whose assignments (``n`` of positive weight, in ``_fill``'s order) and
    weights were kept: the same draws from ``rng`` (one a kept assignment), the same choice, the same weight."""
    mass = 0.0
    chosen = 0.0
    pick = -1
    for a in range(n):
        q = rec_q[a]
        mass += q
        if _uniform(rng) * mass < q:
            chosen = q
            pick = a
    if mass > 0.0:
        _place(k0, k1, m, row_t, col_t, tot, order, width, rec_t[pick], k0)
        return mass / chosen
    return 0.0


@njit
def _copies(ms, w, hashes, lead):
    """``lead[i]``: the first live particle with the same cells as live particle ``i`` (``i`` itself when none)."""
    npart = ms.shape[0]
    n = ms.shape[1]
    for i in range(npart):
        h = np.uint64(14695981039346656037)
        for c in range(n):
            h = (h ^ np.uint64(ms[i, c] + 1)) * np.uint64(1099511628211)
        hashes[i] = h if w[i] > 0 else np.uint64(0)
        lead[i] = i
    by = np.argsort(hashes, kind="mergesort")  # equal hashes in index order
    a = 0
    while a < npart:
        b = a + 1
        while b < npart and hashes[by[b]] == hashes[by[a]]:
            b += 1
        first = by[a]
        if w[first] > 0:
            for e in range(a + 1, b):
                i = by[e]
                same = True
                for c in range(n):
                    if ms[i, c] != ms[first, c]:
                        same = False
                        break
                if same:
                    lead[i] = first
        a = b


@njit
def _uniform(rng):
    """A uniform float in [0, 1)."""
    return (_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def _smc_start(m0, ms, rows, cols, tots, width):
    """Every particle at the state ``m0`` (unrevealed cells -1), with its tallies per row, column and in all."""
    rows[:] = 0
    cols[:] = 0
    tots[:] = 0
    for i in range(ms.shape[0]):
        for c in range(m0.shape[0]):
            t = m0[c]
            ms[i, c] = t
            if t >= 0:
                rows[i, c // width, t] += 1
                cols[i, c % width, t] += 1
                tots[i, t] += 1


@njit
def _smc(
    s_from, s_to, ms, rows, cols, tots, w, ms2, rows2, cols2, tots2, idx, order, pos, look, starts, c_ptr, c_idx,
    can_row, can_col, can_tot, width, dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
    line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr, hill_cell, hill_n, counted,
    rng, resample_below, alive, prop,
):  # fmt: skip
    """The particles ``ms`` (with their tallies and normalised weights ``w``, all updated in place; ``ms2`` ..
    ``idx`` the runner's scratch for resampling) through the steps s_from..s_to-1, each filling order[starts[s]:starts[s+1]]. Returns the log of the product of the steps'
    weighted mean increments (-inf when every particle died) and the resamplings made. A run is ``_smc_start``,
    then this over all the steps, or over a segment at a time (``_Runner``: the SAT check between segments)."""
    npart = ms.shape[0]
    n = ms.shape[1]
    inc = np.zeros(npart)
    stack = np.empty(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    kk = order.shape[0]
    tix = np.full(max(kk, 1), -1, dtype=np.int64)
    saved = np.zeros(max(kk, 1), dtype=np.int64)
    log_z = 0.0
    resamplings = 0
    widest = 1
    for s in range(starts.shape[0] - 1):
        widest = max(widest, starts[s + 1] - starts[s])
    rec_t = np.empty((npart, REPLAY_ROOM, widest), dtype=np.int64)
    rec_q = np.empty((npart, REPLAY_ROOM))
    rec_n = np.full(npart, -1, dtype=np.int64)
    hashes = np.empty(npart, dtype=np.uint64)
    lead = np.empty(npart, dtype=np.int64)
    if kk == 0:  # nothing to fill: one completion or none
        ok = _leaf_ok(
            ms[0], rows[0], cols[0], tots[0], width, True, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid,
            p_cell, p_terr, line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr,
            hill_cell, hill_n, counted, stack, seen,
        )  # fmt: skip
        return (0.0 if ok else -np.inf), 0
    for s in range(s_from, s_to):
        k0 = starts[s]
        k1 = starts[s + 1]
        total = 0.0
        _copies(ms, w, hashes, lead)
        for i in range(npart):
            if w[i] > 0:
                j = lead[i]
                if j != i and rec_n[j] >= 0:  # a copy of particle j, filled before it: its assignments replayed
                    got = _replay(
                        k0, k1, ms[i], rows[i], cols[i], tots[i], order, width, rec_t[j], rec_q[j], rec_n[j], rng
                    )
                else:
                    got = _fill(
                        k0, k1, ms[i], rows[i], cols[i], tots[i], order, pos, look, c_ptr, c_idx, can_row, can_col,
                        can_tot, width, dom, r_kind, r_target, r_hood, r_lo, r_hi, ptr, nb, p_valid, p_cell, p_terr,
                        line_terr, line_count, cnt_terr, cnt_lo, cnt_hi, pair_first, pair_second, conn_terr,
                        hill_cell, hill_n, counted, stack, seen, tix, saved, rng, prop, rec_t, rec_q, rec_n, i,
                    )  # fmt: skip
                inc[i] = got
                total += w[i] * got
            else:
                inc[i] = 0.0
        live = 0
        for i in range(npart):
            if inc[i] > 0:
                live += 1
        alive[s] = live
        if total <= 0.0:
            return -np.inf, resamplings
        log_z += math.log(total)
        sq = 0.0
        for i in range(npart):
            w[i] = w[i] * inc[i] / total
            sq += w[i] * w[i]
        if s < starts.shape[0] - 2 and 1.0 / sq < resample_below * npart:
            resamplings += 1
            _resample(ms, rows, cols, tots, w, ms2, rows2, cols2, tots2, idx, rng)
    return log_z, resamplings


@njit
def _resample(ms, rows, cols, tots, w, ms2, rows2, cols2, tots2, idx, rng):
    """Systematic resampling in place: the particles drawn in proportion to ``w``, then equal weights."""
    npart = ms.shape[0]
    u = (_below(rng, 1 << 30) + 0.5) / (1 << 30) / npart
    cum = 0.0
    j = 0
    for i in range(npart):
        target = u + i / npart
        while j < npart - 1 and cum + w[j] < target:
            cum += w[j]
            j += 1
        idx[i] = j
    for i in range(npart):
        a = idx[i]
        ms2[i] = ms[a]
        rows2[i] = rows[a]
        cols2[i] = cols[a]
        tots2[i] = tots[a]
    ms[:] = ms2
    rows[:] = rows2
    cols[:] = cols2
    tots[:] = tots2
    for i in range(npart):
        w[i] = 1.0 / npart


# ---------------------------------------------------------------------------------------------------------------
# Runs and the interval


@dataclass(frozen=True)
class SmcBudget:
    """The estimate's work: particles per run, independent runs, cells filled per step. Never seconds."""

    particles: int = PARTICLES
    runs: int = RUNS
    step: int = STEP

    @classmethod
    def for_seconds(cls, seconds: float) -> SmcBudget:
        """The work ``seconds`` of a time limit buy, a pure function of the number (never of the clock):
        ``PER_SECOND`` particle runs a second (with the SAT check an empty 7x7 board takes about 4 CPU ms a particle
        on this machine, 8 on Maldonado's, a state with 8 revealed 2-3), split among ``RUNS`` runs, at least 100
        particles each."""
        return cls(max(100, round(PER_SECOND * seconds / RUNS)), RUNS, STEP)


@dataclass
class SmcEstimate:
    """A count estimated by independent SMC runs, with its 95% interval."""

    value: int  # the point estimate (rounded; 0 when every run's particles died)
    low: int
    high: int
    log_estimates: list[float]  # each run's natural log estimate (-inf: every particle died)
    budget: SmcBudget
    seed: int
    confidence: float = CONFIDENCE
    resamplings: int = 0
    #: whether the wall clock cut the runs short (fewer than ``budget.runs`` done)
    cut: bool = False
    #: the last run's final particles (terrain numbers, [particles, cells]) and normalised weights
    particles: np.ndarray | None = None
    weights: np.ndarray | None = None

    @property
    def runs_done(self) -> int:
        return len(self.log_estimates)

    def contains(self, exact: int) -> bool:
        return self.low <= exact <= self.high

    def as_json(self) -> dict:
        """The ``estimate`` dict of ``Solver.count`` (method "smc")."""
        b = self.budget
        return {
            "method": "smc",
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "confidence": self.confidence,
            "particles": b.particles,
            "runs": self.runs_done,
            "runs_planned": b.runs,
            "runs_died": self.runs_done - sum(math.isfinite(x) for x in self.log_estimates),
            "seed": self.seed,
            "note": f"estimated by sequential Monte Carlo ({self.runs_done} independent runs of {b.particles} "
            f"particles, seed {self.seed}): the count lies between low and high with about {self.confidence:.0%} "
            "confidence (a Student t interval over the runs)"
            + (f"; the time limit cut the runs short: {self.runs_done} of {b.runs} done" if self.cut else ""),
        }


def _order(prog: Program, hidden: np.ndarray) -> np.ndarray:
    """The cells' fill order: row by row, top to bottom (each rule's cells are then set close together; column
    by column and from the centre out did no better on the states measured)."""
    return np.asarray(sorted(int(c) for c in hidden), dtype=np.int64)


def _ahead(prog: Program, order: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per step k, the cells set after it that may hold each terrain: per row [k, row, terrain], per column
    [k, column, terrain], in all [k, terrain]."""
    kk, nt, width = len(order), len(prog.terrains), prog.width
    can_row = np.zeros((max(kk, 1), prog.height, nt), dtype=np.int64)
    can_col = np.zeros((max(kk, 1), width, nt), dtype=np.int64)
    for k in range(kk - 2, -1, -1):
        c = int(order[k + 1])
        can_row[k] = can_row[k + 1]
        can_col[k] = can_col[k + 1]
        can_row[k, c // width] += prog.dom[c]
        can_col[k, c % width] += prog.dom[c]
    return can_row, can_col, can_row.sum(axis=1)


def interval(logs: list[float]) -> tuple[float, float, float] | None:
    """(estimate, low, high) on the natural log scale from the runs' log estimates (-inf: a run whose particles
    all died), or None unless at least two runs were made and every one lived.

    A Student t interval on the logs, centred on their mean moved up by half their variance (a lognormal
    estimate's log sits that much below the log of its mean). Cox's interval for a lognormal mean (Land,
    Technometrics 14, 1972), whose width holds the half-variance's own error too (``t * sqrt(s^2/r + s^4/(2(r-1)))``),
    was measured against exact counts at ``solve``'s work (4 runs of 159 particles, one run each,
    ``bench.bench_count_estimate``'s states): later states 31 of 33 held either way (median width 0.55 against
    0.58 decades); early Fauna (6 seeds of fauna-1 and 2 at 0 and 3 revealed, fauna-3 at 3 and 5) 25 against 26
    of 36, at twice the width (median 2.4 against 4.3 decades, up to 21). The misses are runs that agree with
    each other and all fall short (a mass none of them reached), which no width drawn from their spread mends; so
    the narrower interval stays. A run that died says the particle systems collapse
    on this state, and their estimates are then heavy-tailed: measured on flora-1's empty board, 10 seeds at
    ``solve``'s work (6 runs of 297 particles) each lost a run or two, and every one of their intervals (a t
    interval on the estimates, zeros included) fell below the estimate of 20 runs of 1,000 particles (3.2e23:
    theirs 6.4e21 to 1.2e23); so no interval is given there (``solve`` falls back to ApproxMC or proven bounds).

    The estimate itself is never above the runs' own mean (the average of their estimates, unbiased as each is): with
    few runs far apart the variance's half moved it past every one of them. fauna-1's empty board at ``solve
    --probabilities``' work (4 runs of 100 particles: 1.3e7, 2.3e9, 3.0e9, 2.3e11; exact 1.19e10) said "about 6.39e12",
    28 times the largest run; the runs' mean is 5.9e10. Nor is it below the interval's low end (``solve`` moved it
    up to there: "about 3.35e+22 (95%: 3.35e+22 to 3.37e+28)"); the interval reaches down to it."""
    r = len(logs)
    if r < 2 or not all(math.isfinite(x) for x in logs):
        return None
    mean = sum(logs) / r
    var = sum((x - mean) ** 2 for x in logs) / (r - 1)
    top = max(logs)
    runs_mean = top + math.log(sum(math.exp(x - top) for x in logs) / r)  # the log of the runs' estimates' mean
    centre = mean + var / 2
    half = t95(r - 1) * math.sqrt(var / r)
    estimate = min(centre, runs_mean)
    return estimate, min(centre - half, estimate), centre + half  # the estimate is never outside its interval


def _exp(x: float) -> int:
    if x == -math.inf:
        return 0
    if x > 700:
        return round(math.exp(x - 700)) * int(math.exp(700))  # beyond floats' range: rough is enough
    return round(math.exp(x))


#: ``check``: given distinct partial particles [k, cells] (-1 unset), whether each still has a completion (True when
#: it could not tell within its budget: a check may only cut particles that are doomed).
Check = Callable[[np.ndarray], np.ndarray]


@njit
def _witnessed(p, hidden, lit, models, n):
    """Whether one of the ``n`` models kept (``models``: a ring of rows, the newest at row ``(n - 1) % rows``; a
    row holds 1 where a variable is true) sets every literal the particle ``p`` assumes (``lit[c, t]`` for each
    hidden cell ``c`` it sets to ``t``; 0: none). The newest first: the particles come in lexicographic order."""
    rows = models.shape[0]
    kept = min(rows, n)
    for j in range(kept):
        row = (n - 1 - j) % rows
        ok = True
        for c in hidden:
            t = p[c]
            if t >= 0:
                v = lit[c, t]
                if v > 0 and models[row, v] == 0:
                    ok = False
                    break
        if ok:
            return True
    return False


def sat_check(session: SatSession, state: Map, prog: Program, propagations: int = CHECK_PROPAGATIONS) -> Check:
    """A ``Check`` by the SAT session ``session`` (a fork of the state's session, every rule in force: its own,
    so its answers depend on no other question) on ``state``'s completions: each particle's set cells assumed,
    at most ``propagations`` SAT propagations a particle (deterministic work). A ruled fork's lazily checked
    connection is left to the kernels (``sat.SatSession.solve(lazy=False)``): decoding every model to check it
    cost as much as the SAT calls (flora-1 at 8 revealed). A particle that one of the ``WITNESSES`` newest models
    satisfies is kept without a call (that model is a completion under the same rules): the session must be the
    check's own while it is used (``Solver._smc_check`` makes one), since a clause added to it might break a model
    kept."""
    base = session.givens(state)
    lits = [[session.lit(i, t) for t in prog.terrains] for i in range(prog.size)]
    hidden = [int(c) for c in prog.hidden]
    seconds = propagations / PROPAGATIONS_PER_SECOND
    lit = np.zeros((prog.size, len(prog.terrains)), dtype=np.int64)  # the literal assumed, 0 for none
    for i, row in enumerate(lits):
        for t, v in enumerate(row):
            if v is not None and v > 0:
                lit[i, t] = v
    simple = all(v is None or v > 0 for row in lits for v in row)  # a negative literal: no witness test
    width = int(lit.max()) + 1
    models = np.zeros((WITNESSES, width), dtype=np.uint8)
    hidden_arr = np.asarray(hidden, dtype=np.int64)
    kept = [0]  # models found so far (the newest WITNESSES of them in ``models``)

    def check(parts: np.ndarray) -> np.ndarray:
        out = np.ones(len(parts), dtype=np.bool_)
        if base is None:
            out[:] = False
            return out
        for a, p in enumerate(parts.tolist()):
            if simple and kept[0] and _witnessed(parts[a], hidden_arr, lit, models, kept[0]):
                continue  # a model found before completes it: kept, as the call would
            assumed = list(base)
            for c in hidden:
                if p[c] >= 0 and (v := lits[c][p[c]]) is not None:
                    assumed.append(v)
            try:
                out[a] = session.solve(
                    assumed, SatBudget.until(seconds, time.monotonic() + 60, deterministic=True), lazy=False
                )
            except SatTimeout:
                continue  # could not tell: kept
            if out[a] and simple:
                row = models[kept[0] % WITNESSES]
                row[1:] = np.asarray(session.model()[: width - 1]) > 0  # item v - 1 of the model is +-v
                kept[0] += 1
        return out

    return check


def _distinct(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)`` (the distinct rows in lexicographic order, and each row's
    index among them) for rows of terrain numbers from -1 up, each row read as one string of bytes (value + 1):
    byte strings sort as the rows do, and one compare a pair replaces a compare per cell (20x faster on a run's
    particles). The check asks the SAT session in this order: its answers may depend on the questions before."""
    if rows.size == 0 or rows.min() < -1 or rows.max() > 254:
        distinct, back = np.unique(rows, axis=0, return_inverse=True)
        return distinct, back.reshape(-1)
    packed = np.ascontiguousarray((rows + 1).astype(np.uint8))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    _, first, back = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], back.reshape(-1)


class _Runner:
    """One program's SMC runs: the fill order, its plan and the particles' arrays made once, a run per call."""

    def __init__(
        self, prog: Program, budget: SmcBudget, proposal: np.ndarray | None = None, check: Check | None = None
    ):
        order = _order(prog, prog.hidden)
        self.budget = budget
        self.order = order
        self.plan = make_plan(prog, order)
        kk = len(order)
        self.can = _ahead(prog, order)
        self.pos = np.full(prog.size, -1, dtype=np.int64)
        self.pos[order] = np.arange(kk)
        self.starts = np.asarray(list(range(0, kk, max(1, budget.step))) + [kk], dtype=np.int64)
        self.m0 = np.full(prog.size, -1, dtype=np.int64)
        hidden = {int(c) for c in prog.hidden}
        for i in range(prog.size):
            if i not in hidden and prog.dom[i].sum() == 1:
                self.m0[i] = int(np.argmax(prog.dom[i]))
        self.rules = _rules(prog)
        self.width = prog.width
        self.weights = np.ones(prog.dom.shape) if proposal is None else proposal
        npart, nt = budget.particles, len(prog.terrains)
        self.out_m = np.zeros((npart, prog.size), dtype=np.int64)
        self.out_w = np.zeros(npart)
        self.alive = np.zeros(len(self.starts), dtype=np.int64)
        self._tallies = tuple(
            np.zeros(shape, dtype=np.int64)
            for shape in ((npart, prog.height, nt), (npart, prog.width, nt), (npart, nt))
        )
        self._spare = (np.empty_like(self.out_m), *(np.empty_like(a) for a in self._tallies))
        self._idx = np.zeros(npart, dtype=np.int64)
        self.check = check
        #: particles found without a completion by ``check`` (over every run of this runner)
        self.cut = 0

    def __call__(self, key: str) -> tuple[float, int]:
        """A run seeded from ``key``: the log of its count estimate (-inf: every particle died) and its
        resamplings; the final particles and their normalised weights left in ``out_m``, ``out_w``.

        With a ``check``, the run stops every ``CHECK_EVERY`` steps and the particles the check finds without a
        completion get weight 0 (their weights were bound for 0 anyway: the estimate stays unbiased, the same
        normalising constant with one more potential), then resampled at once: particles are no longer all the
        copies of a few that were doomed rows before they die."""
        rng = np.asarray([random.Random(key).getrandbits(63)], dtype=np.uint64)
        can_row, can_col, can_tot = self.can
        ms, w = self.out_m, self.out_w
        rows, cols, tots = self._tallies
        _smc_start(self.m0, ms, rows, cols, tots, self.width)
        w[:] = 1.0 / len(w)
        self.alive[:] = 0
        steps = len(self.starts) - 1
        log_z, made = 0.0, 0
        s0, gap = 0, CHECK_EVERY
        while True:
            s1 = steps if self.check is None else min(steps, s0 + gap)
            got, res = _smc(
                s0, s1, ms, rows, cols, tots, w, *self._spare, self._idx, self.order, self.pos, LOOK, self.starts, self.plan.c_ptr,
                self.plan.c_idx, can_row, can_col, can_tot, self.width, *self.rules, rng, RESAMPLE_BELOW, self.alive,
                self.weights,
            )  # fmt: skip
            made += int(res)
            if not math.isfinite(got):
                return -math.inf, made
            log_z += float(got)
            if s1 >= steps:
                break
            s0 = s1
            live = np.flatnonzero(w > 0)
            distinct, back = _distinct(ms[live])
            ok = self.check(distinct)  # type: ignore[misc]  # s1 < steps: there is a check
            dead = live[~ok[back]]
            # after a check that found none doomed the next comes twice as many steps later (up to CHECK_MOST)
            gap = CHECK_EVERY if len(dead) else min(2 * gap, CHECK_MOST)
            if not len(dead):
                continue
            self.cut += len(dead)
            w[dead] = 0.0
            kept = float(w.sum())
            if kept <= 0.0:
                return -math.inf, made
            log_z += math.log(kept)
            w /= kept
            if 1.0 / float((w * w).sum()) < RESAMPLE_BELOW * len(w):
                made += 1
                _resample(ms, rows, cols, tots, w, *self._spare, self._idx, rng)
        return log_z, made

    def picks(self, key: str, k: int) -> list[np.ndarray]:
        """``k`` of the last run's final particles drawn in proportion to their weights, systematically (one
        uniform offset seeded from ``key``, then steps of 1/k: the first pick is the same whatever ``k``)."""
        w = self.out_w
        cum = np.cumsum(w) / float(w.sum())
        u0 = random.Random(key).random()
        out = []
        for j in range(k):
            i = min(int(np.searchsorted(cum, (u0 + j) / k, side="right")), len(w) - 1)
            out.append(self.out_m[i].copy())
        return out


class Runs:
    """The finished SMC runs of one program (one state, its possible terrains, with or without the SAT check), by
    their particles and key: a run's result is a function of those alone, so the count's runs (``estimate``) are
    reread, not run again, by the sampler's chain starts (``draws``) when both ask for the same ones (``solve``'s
    default: the count's 4 runs of 100 particles are the starts' runs). A cache: answers are the same without it."""

    def __init__(self) -> None:
        self._done: dict[tuple[int, int, str], tuple[float, int, np.ndarray, np.ndarray]] = {}

    def run(self, runner: _Runner, key: str) -> tuple[float, int]:
        """``runner(key)``, or its kept result: (log estimate, resamplings), the final particles left in
        ``runner.out_m``, ``runner.out_w``."""
        tag = (runner.budget.particles, runner.budget.step, key)
        got = self._done.get(tag)
        if got is None:
            log_z, made = runner(key)
            self._done[tag] = (log_z, made, runner.out_m.copy(), runner.out_w.copy())
            return log_z, made
        runner.out_m[:] = got[2]
        runner.out_w[:] = got[3]
        return got[0], got[1]


def draws(
    prog: Program,
    n: int,
    *,
    seed: int = 0,
    particles: int = DRAW_PARTICLES,
    deadline: float | None = None,
    check: Check | None = None,
    per_run: int = 1,
    runs: Runs | None = None,
    runs_of: list[int] | None = None,
    ahead: ChainsAhead | None = None,
) -> list[np.ndarray]:
    """Up to ``n`` completions of the program's state, ``per_run`` from the final weighted particles of each SMC run
    of ``particles`` (run r keyed ``smc:{seed}:{r}``, as ``estimate``'s: with ``runs`` the count's runs are reread;
    systematic picks in proportion to the weights, ``_Runner.picks``): near the uniform law, the nearer the more
    particles (a weighted particle system's bias shrinks as one over their number); draws of different runs are
    independent, draws of one run are not. The block sampler's chains start from them: a chain started from the
    uniform law stays in it at every sweep, so its draws are fair even where it cannot mix, and the chains' spread
    is then an honest error (``sampler.odds_of``). At most ``DRAW_TRIES`` times the runs needed (a run whose
    particles all die gives none); fewer than ``n`` when too many die (without ``check``: early Fauna, the Forts'
    patterns; Maldonado, its counts), none when the first half of the runs needed all died. The same seed gives
    the same draws. Past the wall-clock ``deadline``, checked between runs, the draws so far. ``runs_of``, when
    given, gets the run of each draw appended (draws of one run are not independent: ``sampler.odds_of``'s groups).
    Each run's end is offered to ``ahead`` (``sampler.ChainsAhead``): the chains from its draws start at once."""
    if n <= 0:
        return []
    run = _Runner(prog, SmcBudget(particles, 1, STEP), check=check)
    per_run = max(1, per_run)
    needed = math.ceil(n / per_run)
    out: list[np.ndarray] = []
    for r in range(math.ceil(DRAW_TRIES * needed)):
        if len(out) >= n or (deadline is not None and time.monotonic() > deadline):
            break
        if not out and 2 * r >= max(needed, 2):  # the first half of the runs needed all died: the state kills them
            break
        key = f"smc:{seed}:{r}"
        log_z, _ = run(key) if runs is None else runs.run(run, key)
        if ahead is not None:
            ahead.offer(
                prog, particles, STEP, key, (lambda k, key=key: run.picks(key, k)) if math.isfinite(log_z) else None
            )
        if math.isfinite(log_z):
            picked = run.picks(key, per_run)[: n - len(out)]
            out += picked
            if runs_of is not None:
                runs_of += [r] * len(picked)
    return out


def estimate(
    prog: Program,
    *,
    budget: SmcBudget = SmcBudget(),
    seed: int = 0,
    deadline: float | None = None,
    trace: list | None = None,
    proposal: np.ndarray | None = None,
    check: Check | None = None,
    runs: Runs | None = None,
    ahead: ChainsAhead | None = None,
    stop: Callable[[], bool] | None = None,
) -> SmcEstimate | None:
    """The program's number of completions estimated by ``budget.runs`` independent SMC runs (run r seeded from
    (seed, r)); None when a run's particles all died or fewer than two runs were made (no interval to give:
    ``interval``). Past the wall-clock
    ``deadline`` (``time.monotonic()``), checked between runs, the runs done so far answer (``cut``), or
    SmcTimeout with fewer than two; None as soon as ``stop()`` says so between runs (the estimate no longer wanted).
    Each run's end is offered to ``ahead`` (``sampler.ChainsAhead``): the sampler's
    chains that start from its particles run beside the next runs."""
    run = _Runner(prog, budget, proposal, check)
    logs: list[float] = []
    resamplings = 0
    cut = False
    for r in range(budget.runs):
        if stop is not None and stop():
            return None
        if deadline is not None and time.monotonic() > deadline:
            cut = True
            break
        key = f"smc:{seed}:{r}"
        log_z, res = run(key) if runs is None or proposal is not None or trace is not None else runs.run(run, key)
        if ahead is not None and proposal is None:
            picks = (lambda k, key=key: run.picks(key, k)) if math.isfinite(log_z) else None
            ahead.offer(prog, budget.particles, budget.step, key, picks)
        if trace is not None:
            trace.append(run.alive.copy())
        logs.append(float(log_z))
        resamplings += int(res)
        if not math.isfinite(log_z):
            break  # a run died: no interval will be given (``interval``), the rest would be work for nothing
    got = interval(logs)
    if got is None:
        if cut:
            raise SmcTimeout(
                f"the time limit ran out while the count was estimated ({len(logs)} of {budget.runs} runs)"
            )
        return None
    centre, lo, hi = got
    return SmcEstimate(
        value=_exp(centre),
        low=_exp(lo),
        high=_exp(hi),
        log_estimates=logs,
        budget=budget,
        seed=seed,
        resamplings=resamplings,
        particles=run.out_m.copy(),
        weights=run.out_w.copy(),
        cut=cut,
    )
