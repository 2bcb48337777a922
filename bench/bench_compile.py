"""Knowledge compilation of early states: the d4 compiler on each chapter's CNF (issue 24, item 3).

For each chapter, shipped maps (``maps/<chapter>/``) with 0, 3, 5 and 8 revealed cells (column 7 from
the top, then column 6, then column 5: the way a first exploration goes), compiled to a d-DNNF by d4
(PyPI ``d4solver``) in a child process killed at the time limit, its address space capped. Prints a
table: chapter, map, revealed cells, compiled or not, CPU seconds of the compile (the time limit is
in CPU seconds too, so figures hold on a loaded machine), circuit nodes and the model count
(the number of completions: every auxiliary variable of the CNF is defined, so the circuit's count
over all variables equals the count projected on the terrain variables).

Run: ``python -m bench.bench_compile`` (defaults: every chapter, its first map, 60 CPU s and 4 GB per
compile); ``--maps flora-1,vameter-2``, ``--revealed 0,3,5,8,12``, ``--time-limit`` (CPU seconds of the
compile), ``--memory-gb``,
``--style count|compile`` (the CNF of constraints/cnf.py) and ``--settings given|classic|tree-decomposition``
(d4's branching, ``compile_settings`` of constraints/cnf.py: ``classic`` is the issue's
measurement, ``tree-decomposition`` d4's default). ``--check`` also counts each compiled state with Ganak.

Measured (2 shared cores under load 13-15, CPU seconds, limit 30 CPU s, first map of each chapter,
style compile, settings given; "-" = not compiled within the limit):

    revealed        0                     3                      5                    8
    training-1   0.43 s 29,190 nodes   0.10 s 4,996           0.09 s 4,328         0.05 s 783
    fauna-1      -                     - (classic: 3.35 s)    1.90 s 26,628        1.28 s 18,162
    flora-1      -                     -                      -                    -
    vameter-1    -                     -                      -                    -
    maldonado-1  -                     -                      -                    -

Which rule defeats the compiler (``--drop-each``, ``--add-each T1,C4,C6,C1,C2,...``; flora-1 with column 7
and A6 revealed, 8 and 10 CPU s per compile, 2 cores under load 4-5): no single rule. Left out one at a time,
no rule id makes it compile (all 15). Added one at a time, it compiles up to T1, C4, C6, C1 (the Wood lines,
the Rock group, Water-Wood: 4.4 s, 72,693 nodes, 2.8e34 maps; d4's "classic" branching fails already at
the Rock group) and stops at C2 (Food-Tipi diagonals), and every later rule leaves it uncompiled. Fauna
alike: T1, C4, C6 compile (1.2 s given, not classic) and T1, C4, C6, F1 do not, yet all of Fauna's rules
compile (0.2 s): its three Forts on the briefing's mini map pin the space down, and Flora, Vameter and
Maldonado have no rule that strong. Fixing all seven of flora-1's Woods (the Wood permutation) does not
make the state compile within 10 s either, and Ganak does not count flora-1 with 8 or 12 revealed within
90 CPU s. So it is not one encoding but the size and width of the space: 13 (Flora) or 10 terrains per
cell with local rules everywhere, without a rule that cuts the count down; the ways forward are splits
on cells compiled in parallel (``case_split``) and a compiler that sweeps the board row by row.

Later states that compile: maldonado-1 with 16 revealed 8.2 s, 293,894 nodes (d4's default
heuristic 16.2 s, 642,956); vameter-1 with 20/24/28 revealed 2.5/0.9/0.6 s (153k/61k/44k nodes),
not 16; flora-1 with 20 revealed 9.6 s (334k nodes), 28 revealed 0.2 s, and 24 revealed only as
13 parts split on D4 (14.0 s together, ``case_split``).

Case splits do not make early states cheap (flora-1, ``given``, 30 CPU s per part, beside a busy process):
with 20 revealed the whole state compiles in 6.2 s (270,908 nodes, 6.78e9 maps) and split on D3 or C3
its 13 parts take 10.8 s or 14.3 s together (596k or 857k nodes): a split adds work when the whole
compiles. With 16 revealed the whole does not compile within 30 s, and split on D3 all 13 parts do, in
127.8 CPU s together (4.0M nodes, 1.10e12 maps). So each 4 fewer reveals cost about 20 times more
(6 s at 20, about 130 s at 16); at that rate 12 revealed would take about 40 CPU minutes and 8 about
15 CPU hours, which no split into two parallel processes brings within a game's reach.

d4's scoring of branching variables matters more than anything else tried here (classic branching, one
run each, idle machine or CPU seconds): MOM against VSADS, d4's default, compiles fauna-1's empty board in
24 against 56 CPU s (2.9M against 5.6M nodes), fauna-3 with 3 revealed in 7.1 against 10.0 s, maldonado-1
with 12 revealed in 17.0 against 28.4 s, flora-1 with 24 in 8.7 against 18.3 s, vameter-1 with 20 in 16.4
against 21.2 s, and small states as fast; VSIDS, DLCS and JW-TS were slower than MOM on the empty board
(32.8, 60.4 and 49.0 s), and d4's hybrid branching with MOM slower at maldonado-1 (49.4 s). So every compile
now uses MOM (``compiled.D4_HEURISTIC``). It does not change which states compile: Flora and Vameter with 12
revealed and Maldonado with 8 still do not within 60 s. Of the shipped Fauna briefings (empty boards),
fauna-1 (24 CPU s) and fauna-5 (0.4 s, 6.5M maps) compile; fauna-2, 3, 4 and 6 do not within 100 CPU s
with either scoring (fauna-3 took 153 CPU s with MOM, 16.8M nodes, 37,411,901,420 maps). Larger cache
pages, no cache cleaning, gate removal, occurrence phases and minisat did not help.

An ordered BDD in board order (CUDD through PyPI ``dd``, no reordering; the compile-style CNF's clauses
conjoined in the order of their last variable, each auxiliary placed just after the cells it reads: the
row-by-row sweep above, as a decision diagram) does not get through Training's empty board: 778,375 nodes
after 1,500 of its 2,611 clauses, 50 CPU s, where d4 takes 0.25 s; bottom-up SDDs (PySDD, vtree in board
order) failed alike. A compile's floor is d4's own, about 23 ms CPU however small the formula (a state with 3
cells hidden: 42 variables, a 1-edge circuit): the binding fills a 64 MB node page (``NodeManager``'s
``PAGE_SIZE = 1 << 24`` entries, fixed at build time, not an option) on every compile, so the 6-10 tiny
compiles of a ``mapgen deduce`` walk cost about 0.3 s whatever their size.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import resource
import signal
import sys
import time

import maps
from constraints.catalogue import Chapter, get_chapter
from constraints.cnf import HEURISTICS, STYLES, CountTimeout, cnf_for_state, compile_settings, count_cnf, d4_solver
from mapgen.model import Map

CHAPTERS = ("training", "fauna", "flora", "vameter", "maldonado")


def reveal_order(m: Map) -> list[int]:
    """Column 7 top down, then column 6, then the others right to left."""
    return [i for col in reversed(m.board.cols) for i in col]


def revealed_state(m: Map, k: int) -> Map:
    shown = set(reveal_order(m)[:k])
    return m.hide(i for i in range(m.board.size) if i not in shown)


def _child(conn, cnf, settings: dict, memory: int, cpu_seconds: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(cpu_seconds) + 1  # SIGXCPU ends the child once it has used this much CPU
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # d4 may print on stdout
    try:
        start = time.process_time()
        res = d4_solver(cnf, settings).compile()
        seconds = time.process_time() - start
        conn.send(("ok", seconds, res.getNbNodes(), res.getNbEdges(), int(res.count([]))))
    except BaseException as e:  # noqa: BLE001 - reported to the parent, which prints it in the table
        conn.send(("error", f"{type(e).__name__}: {e}"))


def compile_bounded(cnf, settings: dict, time_limit: float, memory: int) -> tuple:
    """Compile in a child with ``time_limit`` CPU seconds (RLIMIT_CPU: the figure does not depend on the
    machine's load) and 10 times that in wall-clock seconds as a backstop.

    ("ok", CPU seconds, nodes, edges, count), ("timeout", seconds), ("error", text) or ("died", exit code)."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, cnf, settings, memory, time_limit), daemon=True)
    start = time.perf_counter()
    proc.start()
    child.close()
    try:
        if not parent.poll(10 * time_limit + 10):
            return ("timeout", time.perf_counter() - start)
        try:
            return parent.recv()
        except EOFError:
            proc.join(5.0)
            if proc.exitcode == -signal.SIGXCPU:
                return ("timeout", time_limit)
            return ("died", proc.exitcode)
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5.0)
        parent.close()


def settings_for(cnf, name: str) -> dict:
    """d4 settings by name: those of ``compile_settings`` ("given", "classic", "tree-decomposition")."""
    return compile_settings(cnf, name)


def ablate(name: str, m: Map, chapter: Chapter, k: int, a, memory: int) -> None:
    """The state compiled with each rule id left out (``--drop-each``) or with the rules added one at a time
    (``--add-each``): which rule, or which mix of rules, the compiler cannot take."""
    ids = list(dict.fromkeys(r.id for r in chapter.rules))
    if a.add_each:
        order = a.add_each.split(",")
        runs = [(f"+{rid}", set(order[: n + 1])) for n, rid in enumerate(order)]
    else:
        runs = [("all", set(ids))] + [(f"-{rid}", set(ids) - {rid}) for rid in ids]
    state = revealed_state(m, k)
    for label, keep in runs:
        sub = dataclasses.replace(chapter, rules=tuple(r for r in chapter.rules if r.id in keep))
        cnf = cnf_for_state(state, sub, style=a.style)
        r = compile_bounded(cnf, settings_for(cnf, a.settings), a.time_limit, memory)
        got = f"{r[1]:.2f} s, {r[2]:,} nodes, {r[4]:.3e} maps" if r[0] == "ok" else r[0]
        print(f"{name:<14} {k:>3} {label:<6} {got}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maps", help="comma-separated shipped maps (default: each chapter's first map)")
    ap.add_argument("--revealed", default="0,3,5,8")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--memory-gb", type=float, default=4.0)
    ap.add_argument("--style", choices=STYLES, default="compile")
    ap.add_argument("--settings", choices=HEURISTICS, default="given")
    ap.add_argument("--check", action="store_true", help="also count with Ganak (same time limit)")
    ap.add_argument(
        "--drop-each", action="store_true", help="compile again with each rule id of the chapter left out in turn"
    )
    ap.add_argument(
        "--add-each", metavar="IDS", help="compile with only the first 1, 2, ... of these rule ids (T1,C4,C6,...)"
    )
    a = ap.parse_args(argv)
    names = a.maps.split(",") if a.maps else [maps.names(c)[0] for c in CHAPTERS]
    try:
        ks = [int(k) for k in a.revealed.split(",")]
    except ValueError:
        print(f"error: --revealed: expected numbers like 0,3,5,8, not {a.revealed!r}", file=sys.stderr)
        return 2
    memory = int(a.memory_gb * (1 << 30))
    print(f"style={a.style} settings={a.settings} limit={a.time_limit:g} CPU s memory={a.memory_gb:g} GB")
    print(f"{'map':<14} {'rev':>3} {'vars':>5} {'clauses':>7} {'result':<8} {'seconds':>8} {'nodes':>9} {'count':>24}"
          + ("  ganak" if a.check else ""))  # fmt: skip
    for name in names:
        m = maps.load(name)
        chapter = get_chapter(m.chapter)
        for k in ks:
            if a.drop_each or a.add_each:
                ablate(name, m, chapter, k, a, memory)
                continue
            cnf = cnf_for_state(revealed_state(m, k), style=a.style)
            r = compile_bounded(cnf, settings_for(cnf, a.settings), a.time_limit, memory)
            if r[0] == "ok":
                cells = ("yes", f"{r[1]:.2f}", f"{r[2]:,}", f"{r[4]:,}")
            elif r[0] == "timeout":
                cells = ("timeout", f">{a.time_limit:g}", "", "")
            else:
                cells = (r[0], "", "", str(r[1])[:24])
            line = f"{name:<14} {k:>3} {cnf.nvars:>5} {len(cnf.clauses):>7} {cells[0]:<8} {cells[1]:>8} {cells[2]:>9} {cells[3]:>24}"
            if a.check and r[0] == "ok":
                try:
                    g = count_cnf(cnf, a.time_limit)
                    line += "  same" if g == r[4] else f"  DIFFERS: {g:,}"
                except CountTimeout:
                    line += "  timeout"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
