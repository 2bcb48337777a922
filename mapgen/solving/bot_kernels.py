"""The heuristic's weights and expected values as compiled loops (numba): ``LocalRules.apply`` over arrays.

The same factors in the same order as the generated ``apply`` (``local_rules._source``), the same sums in the same
order (``sum`` over the terrains left to right), no fastmath: the same numbers to the bit. Loops are compiled on
first use and cached on disk (``mapgen.solving.kernels.njit``).
"""

from __future__ import annotations

import numpy as np

from mapgen.solving.kernels import njit


@njit
def _count(known, cells, a, b, t):
    n = 0
    for i in range(a, b):
        if known[cells[i]] == t:
            n += 1
    return n


@njit
def _line_count(known, width, height, t, row, col):
    """Seen cells of terrain t in row ``row`` and in column ``col``."""
    nr = 0
    for c in range(width):
        if known[row * width + c] == t:
            nr += 1
    nc = 0
    for r in range(height):
        if known[r * width + col] == t:
            nc += 1
    return nr, nc


@njit
def _pattern_factor(cell, pstart, rstart, rcell, rterr, known):
    best = -1
    for rot in range(pstart[cell], pstart[cell + 1]):
        hits = 0
        for i in range(rstart[rot], rstart[rot + 1]):
            k = known[rcell[i]]
            if k < 0:
                continue
            if k != rterr[i]:
                hits = -1
                break
            hits += 1
        if hits > best:  # noqa: PLR1730 -- as local_rules' _pattern_factor
            best = hits
    return 0.0 if best < 0 else 1.0 + 2.0 * best


@njit
def weights(
    cells,
    known,
    prior,
    width,
    height,
    zero,
    line_counts,
    hstart,
    hcells,
    need,
    apart,
    by_start,
    by_t,
    by_least,
    orth_g,
    connected,
    column_pairs,
    distinct,
    caps,
    pat_terrain,
    pstart,
    rstart,
    rcell,
    rterr,
    counted,
    hill_cell,
    hill_n,
    possible,
    water,
    out,
):
    """``out[i]``: the weights of ``cells[i]`` (``HeuristicBot._local_weights``, and with ``possible[cell]`` a
    bit mask of the terrains the cell can still hold (0: no answer) the deducer's narrowing)."""
    nt = len(prior)
    n_hoods = hstart.shape[0]
    w = np.empty(nt)
    for i in range(len(cells)):
        cell = cells[i]
        o = out[i]
        if known[cell] >= 0:
            for t in range(nt):
                o[t] = 0.0
            o[known[cell]] = 1.0
            continue
        mask = possible[cell]
        if mask != 0 and (mask & (mask - 1)) == 0:  # one terrain possible: that terrain
            for t in range(nt):
                o[t] = 1.0 if mask == (1 << t) else 0.0
            continue
        for t in range(nt):
            w[t] = prior[t]
            if zero[cell, t]:
                w[t] = 0.0
        row = cell // width
        col = cell % width
        for q in range(line_counts.shape[0]):
            t = line_counts[q, 0]
            nr, nc = _line_count(known, width, height, t, row, col)
            if nr >= line_counts[q, 1] or nc >= line_counts[q, 1]:
                w[t] = 0.0
            else:
                w[t] *= 1.5
        for g in range(n_hoods):
            a = hstart[g, cell]
            b = hstart[g, cell + 1]
            open_n = _count(known, hcells, a, b, -1)
            if open_n == b - a:
                continue
            for q in range(need.shape[0]):
                if need[q, 0] != g:
                    continue
                s = need[q, 1]
                t = need[q, 2]
                least = need[q, 3]
                one_way = need[q, 4]
                if one_way and least == 1:
                    if w[s]:
                        if _count(known, hcells, a, b, t):
                            w[s] *= 1.5
                        elif not open_n:
                            w[s] = 0.0
                elif one_way:
                    if w[s]:
                        found = _count(known, hcells, a, b, t)
                        if found + open_n < least:
                            w[s] = 0.0
                        elif found:
                            w[s] *= 1.5
                elif least == 1:
                    if not open_n and w[s] and not _count(known, hcells, a, b, t):
                        w[s] = 0.0
                elif open_n < least and w[s] and _count(known, hcells, a, b, t) + open_n < least:
                    w[s] = 0.0
            for q in range(apart.shape[0]):
                if apart[q, 0] != g:
                    continue
                s = apart[q, 1]
                if w[s] and _count(known, hcells, a, b, apart[q, 2]) > apart[q, 3]:
                    w[s] = 0.0
            for x in range(a, b):  # the cell as a target of each seen subject beside it, in neighbourhood order
                j = hcells[x]
                kj = known[j]
                if kj < 0 or by_start[g, kj] == by_start[g, kj + 1]:
                    continue
                ja = hstart[g, j]
                jb = hstart[g, j + 1]
                for r in range(by_start[g, kj], by_start[g, kj + 1]):
                    t = by_t[r]
                    least = by_least[r]
                    found = _count(known, hcells, ja, jb, t)
                    if least < 0:
                        if found >= -least - 1:
                            w[t] *= 0.0
                    elif found < least:
                        opens = _count(known, hcells, ja, jb, -1)
                        w[t] *= 1 + 6.0 / (opens if opens else 1)
        if len(connected):
            a = hstart[orth_g, cell]
            b = hstart[orth_g, cell + 1]
            for t in connected:
                if w[t]:
                    for _ in range(_count(known, hcells, a, b, t)):
                        w[t] *= 2.0
        for q in range(column_pairs.shape[0]):
            first = column_pairs[q, 0]
            second = column_pairs[q, 1]
            if w[second]:
                _, n_first = _line_count(known, width, height, first, row, col)
                _, n_second = _line_count(known, width, height, second, row, col)
                if n_first and not n_second:
                    w[second] *= 3.0
        for q in range(distinct.shape[0]):
            t = distinct[q, 0]
            g = distinct[q, 1]
            a = hstart[g, cell]
            b = hstart[g, cell + 1]
            for x in range(a, b):
                j = hcells[x]
                if known[j] == t:
                    for y in range(hstart[g, j], hstart[g, j + 1]):
                        ti = known[hcells[y]]
                        if ti >= 0:
                            w[ti] = 0.0
        for q in range(caps.shape[0]):
            t = caps[q, 0]
            if w[t]:
                on_map = 0
                for c in range(len(known)):
                    if known[c] == t:
                        on_map += 1
                if on_map >= caps[q, 1]:
                    w[t] = 0.0
        for p in range(len(pat_terrain)):
            t = pat_terrain[p]
            if w[t]:
                w[t] *= _pattern_factor(cell, pstart[p], rstart, rcell, rterr, known)
        if len(hill_cell):
            for t in counted:
                if w[t]:
                    for h in range(len(hill_cell)):
                        hc = hill_cell[h]
                        r = hc // width
                        c = hc % width
                        if r == row or c == col:
                            nr, nc = _line_count(known, width, height, t, r, c)
                            if nr + nc - (1 if known[hc] == t else 0) >= hill_n[h]:
                                w[t] = 0.0
                                break
                            w[t] *= 2.0
        total = 0.0
        for t in range(nt):
            total += w[t]
        if total <= 0:
            for t in range(nt):
                o[t] = 0.0
            o[water] = 1.0
        else:
            inv = 1.0 / total
            for t in range(nt):
                o[t] = w[t] * inv
        if mask != 0:  # the deducer: the local odds kept for the possible terrains only
            total = 0.0
            for t in range(nt):
                if mask & (1 << t):
                    w[t] = o[t] if o[t] else 0.01 * (prior[t] if prior[t] else 1.0)
                else:
                    w[t] = 0.0
                total += w[t]
            for t in range(nt):
                o[t] = w[t] / total


@njit
def expected_values(ws, values, out):
    """``out[i]``: sum of ``ws[i, k] * values[k]``, k in order."""
    for i in range(ws.shape[0]):
        v = 0.0
        for k in range(ws.shape[1]):
            v += ws[i, k] * values[k]
        out[i] = v


@njit
def cell_values(ws, values, cells, explored, width, ostart, ocells, line, taxes, column_bonus, row_bonus, out):
    """``out[i]``: ``HeuristicBot._cell_values`` of ``cells[i]`` but the chapter policy's term: the expected value
    (``expected_values``), less 0.6 per Monster toll (``line``: the one Monster's row and column as a mask per
    cell, else ``taxes[i]``; both empty: no toll), 0.8 when the cell is its column's last unexplored cell
    (``column_bonus``), 0.3 its row's (``row_bonus``), 0.05 per unexplored orthogonal neighbour; the same sums
    in the same order as the Python loop."""
    n = len(explored)
    for i in range(ws.shape[0]):
        v = 0.0
        for k in range(ws.shape[1]):
            v += ws[i, k] * values[k]
        cell = cells[i]
        if len(line):
            if line[cell]:
                v = v - 0.6
        elif len(taxes) and taxes[i]:
            v = v - 0.6 * taxes[i]
        if column_bonus:
            z = 0
            for c in range(cell % width, n, width):
                if explored[c] == 0:
                    z += 1
            if z == 1:
                v += 0.8
        if row_bonus:
            a = (cell // width) * width
            z = 0
            for c in range(a, min(a + width, n)):
                if explored[c] == 0:
                    z += 1
            if z == 1:
                v += 0.3
        for x in range(ostart[cell], ostart[cell + 1]):
            if explored[ocells[x]] == 0:
                v += 0.05
        out[i] = v


def warm() -> None:
    """Compile (or load) the loops for the argument types the heuristic passes, on a one-cell board."""
    i1 = np.zeros(0, dtype=np.int64)
    i2 = np.zeros((0, 2), dtype=np.int64)
    hstart = np.zeros((1, 2), dtype=np.int64)
    by_start = np.zeros((1, 21), dtype=np.int64)
    out = np.empty((1, 20))
    args = (np.zeros(1, dtype=np.int64), np.full(1, -1, dtype=np.int64), np.ones(20), 1, 1)
    tables: tuple = (np.zeros((1, 20), dtype=np.uint8), i2, hstart, i1, np.zeros((0, 5), dtype=np.int64))
    tables += (np.zeros((0, 4), dtype=np.int64), by_start, i1, i1, 0, i1, i2, i2, i2, i1)
    tables += (np.zeros((0, 2), dtype=np.int64), np.zeros(1, dtype=np.int64), i1, i1, i1)
    weights(*args, *tables, i1, i1, np.zeros(1, dtype=np.int64), 2, out)
    expected_values(out, np.ones(20), np.empty(1))
    ex = np.zeros(1, dtype=np.uint8)
    cell_values(
        out, np.ones(20), args[0], ex, 1, np.zeros(2, dtype=np.int64), i1, ex, np.zeros(1), True, True, np.empty(1)
    )
