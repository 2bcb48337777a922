"""The circuit's passes as compiled loops (numba): only the part of the circuit a state leaves reachable.

A state's reveals leave little of a briefing's circuit reachable from its root (on fauna's empty board 1% of
the edges after four reveals), and numpy's passes level by level cannot skip the rest: each touches every edge
(0.5 CPU s on that circuit, 4.8M edges). Here one depth-first walk from the root visits only the edges whose
literals the reveals leave standing, and computes each node's model count as it leaves it (post-order); the
downward pass of derivatives walks the same nodes in reverse post-order (a topological order: parents first)
and adds each edge's models to the positive literals on it. Same answers as ``Dnnf``'s numpy passes, which
stay for counts too large for 64 bits (``BIG``) and for the smallest circuits (not worth loading numba).

Loops are compiled on first use and cached on disk (beside this file, else in the user's cache folder; with
neither writable, compiled anew in each process).
"""

from __future__ import annotations

import numba

from mapgen.solving.nodes import AND, TRUE_NODE


def njit(f):
    """``numba.njit``, cached on disk where a folder for it can be written."""
    try:
        return numba.njit(cache=True, nogil=True)(f)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(f)


@njit
def _edge_alive(e, lit, lit_start, dead, nvars):
    for j in range(lit_start[e], lit_start[e + 1]):
        if dead[lit[j] + nvars]:
            return False
    return True


@njit
def _seg_end(s, seg_start, n_edges):
    return seg_start[s + 1] if s + 1 < len(seg_start) else n_edges


@njit
def up(kind, child, seg_start, seg_of, lit, lit_start, dead, nvars, val, order, seen, stack_v, stack_e):
    """Depth-first from the root (node 0) through the edges alive under ``dead`` (per literal + nvars: it
    contradicts a reveal): ``val`` gets each visited node's model count, ``order`` the visited nodes in
    post-order; returns how many. An AND with a dead edge has no models and is not entered.

    Scratch the caller keeps between walks, so that one costs what it visits, not the circuit's size:
    ``seen`` (all 0, and left so), the stacks (the circuit's height + 1 deep: every step goes down).
    ``val`` of a node not visited is left as it was and never read (neither here nor in ``down``)."""
    n_edges = len(child)
    one = val.dtype.type(1)
    zero = val.dtype.type(0)
    k = 0
    top = 0
    stack_v[0] = 0
    stack_e[0] = -1
    seen[0] = 1
    while top >= 0:
        v = stack_v[top]
        s = seg_of[v]
        kd = kind[v]
        if stack_e[top] == -1:  # first visit
            if s < 0:  # no edges
                val[v] = one if (kd == TRUE_NODE or kd == AND) else zero
                seen[v] = 2
                order[k] = v
                k += 1
                top -= 1
                continue
            a = seg_start[s]
            b = _seg_end(s, seg_start, n_edges)
            if kd == AND:
                dead_edge = False
                for e in range(a, b):
                    if not _edge_alive(e, lit, lit_start, dead, nvars):
                        dead_edge = True
                        break
                if dead_edge:
                    val[v] = zero
                    seen[v] = 2
                    order[k] = v
                    k += 1
                    top -= 1
                    continue
            stack_e[top] = a
        a = seg_start[s]
        b = _seg_end(s, seg_start, n_edges)
        e = stack_e[top]
        pushed = False
        while e < b:
            c = child[e]
            if seen[c] == 0 and (kd == AND or _edge_alive(e, lit, lit_start, dead, nvars)):
                stack_e[top] = e + 1
                top += 1
                stack_v[top] = c
                stack_e[top] = -1
                seen[c] = 1
                pushed = True
                break
            e += 1
        if pushed:
            continue
        if kd == AND:
            p = one
            for e in range(a, b):
                p *= val[child[e]]
            val[v] = p
        else:
            t = zero
            for e in range(a, b):
                if _edge_alive(e, lit, lit_start, dead, nvars):
                    t += val[child[e]]
            val[v] = t
        seen[v] = 2
        order[k] = v
        k += 1
        top -= 1
    for j in range(k):
        seen[order[j]] = 0
    return k


@njit
def _hand_down(e, c, x, der, val, lit, lit_start, sums):
    """Edge ``e`` hands its child ``c`` the derivative ``x``; its models are added at its positive literals."""
    der[c] += x
    m = x * val[c]
    for j in range(lit_start[e], lit_start[e + 1]):
        if lit[j] > 0:
            sums[lit[j]] += m


@njit
def down(kind, child, seg_start, seg_of, lit, lit_start, dead, nvars, val, order, k, sums, before, der):
    """The derivatives from the root down the ``k`` nodes of ``order`` (reversed: parents first); each live
    edge's models (its parent's derivative times the other AND edges' counts times its child's) are added to
    ``sums`` at every positive literal on it. Scratch: ``before``, room for the widest node's edges; ``der``,
    per node (set here for the visited ones; only those are read)."""
    n_edges = len(child)
    for j in range(k):
        der[order[j]] = 0
    der[0] = 1
    one = val.dtype.type(1)
    for idx in range(k - 1, -1, -1):
        v = order[idx]
        d = der[v]
        s = seg_of[v]
        if d == 0 or val[v] == 0 or s < 0:
            continue
        a = seg_start[s]
        b = _seg_end(s, seg_start, n_edges)
        if kind[v] == AND:  # every edge alive (else no models): the others' product, from both sides
            p = one
            for e in range(a, b):
                before[e - a] = p
                p *= val[child[e]]
            after = one
            for e in range(b - 1, a - 1, -1):
                c = child[e]
                x = d * before[e - a] * after
                after *= val[c]
                if x != 0:
                    _hand_down(e, c, x, der, val, lit, lit_start, sums)
        else:
            for e in range(a, b):
                c = child[e]
                if val[c] != 0 and _edge_alive(e, lit, lit_start, dead, nvars):
                    _hand_down(e, c, d, der, val, lit, lit_start, sums)
