"""Exact answers from compiled briefings (issue 24): ``python -m bench exact`` (or ``python -m bench.bench_exact``).

Per chapter, on its first shipped maps, states revealing 0, 3, 5 and 8 cells (column 7 first, the
explorers' start, then the cells next to what is revealed, as a game reveals them):

- **cold**: no circuit cached; the state compiled as revealed, then exact count and every cell's odds
  (goal for 5 or more revealed: <= 1 s);
- **cached**: with that circuit, a later state of the same briefing (4 more cells revealed, new Hills too):
  exact count + forced cells + all odds (goal <= 50 ms), once the circuit has answered a question (its first,
  "first ms", answered by numpy's level passes; from the next on a large circuit walks with compiled loops,
  ``compiled.KERNEL_EDGES``);
- **side by side** on the 8-revealed states: Ganak (the project's count_cnf), ApproxMC and the circuit,
  time and answer;
- **empty boards** (``--empty``): every chapter's first shipped briefing compiled, seconds, nodes and
  the compiler's peak memory (goal <= 60 s and <= 2 GB);
- ``mapgen deduce`` with exact counts at every step: seconds per map (goal <= 2 s);
- ``--thresholds`` (alone): the reveal thresholds of ``mapgen.solving.solve`` (``COMPILE_FROM``: a question
  compiles from there; ``INLINE_FROM``: the table helper compiles inline from there), CPU seconds to compile
  states revealed along a path from the start and at random, around each chapter's thresholds.

CPU seconds are the process's own plus its children's (the compiler runs in a child process); on a
shared machine they are the figures to compare. Medians; one run.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time

import maps
from constraints.catalogue import chapter_names, get_chapter
from constraints.cnf import CountTimeout, approx_count_cnf, cnf_for_state, count_cnf
from mapgen.model import Map
from mapgen.solving.compiled import Circuit, CompileError, CompileTimeout


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def reveal_order(m: Map) -> list[int]:
    """Column 7 top to bottom, then breadth first from what is revealed, Hills included (a circuit compiled
    without a Hill's number sums over its placements: ``Circuit.patterns``)."""
    b = m.board
    orth = b.hood("orthogonal")
    order = [i for i in b.col_cells(7)]
    seen = set(order)
    k = 0
    while k < len(order):
        for j in orth[order[k]]:
            if j not in seen:
                seen.add(j)
                order.append(j)
        k += 1
    return order


def state_of(m: Map, cells) -> Map:
    keep = set(cells)
    return m.hide(i for i in range(m.board.size) if i not in keep)


def answer(circuit: Circuit, state: Map):
    total, tallies = circuit.tallies(state)
    forced = {i: next(iter(d)) for i, d in tallies.items() if len(d) == 1}
    return total, forced, tallies


def row(*cells, widths=(11, 9, 9, 10, 10, 14, 12, 10)) -> str:
    return "  ".join(str(c).rjust(w) for c, w in zip(cells, widths))


def path_order(m: Map, rng) -> list[int]:
    """Cells in an order a game could reveal them: from the start (a random cell of the last column when the
    briefing has none), each next cell orthogonally next to one already revealed."""
    b = m.board
    orth = b.hood("orthogonal")
    first = m.briefing.start if m.briefing.start is not None else rng.choice(list(b.col_cells(b.col_numbers[-1])))
    order, seen = [first], {first}
    while len(order) < b.size:
        nxt = rng.choice(sorted({j for i in order for j in orth[i]} - seen))
        seen.add(nxt)
        order.append(nxt)
    return order


def compile_seconds(ch, state: Map, cpu_limit: float, wall_factor: float) -> float:
    """CPU seconds (compile child included) to compile ``state`` within ``cpu_limit`` CPU seconds and
    ``wall_factor`` times that of wall-clock time; inf when it does not."""
    t0 = cpu()
    try:
        Circuit.compile(ch, state, time_limit=wall_factor * cpu_limit, cpu_limit=cpu_limit)
    except (CompileTimeout, CompileError):
        return float("inf")
    return cpu() - t0


def thresholds(per_map: int, cpu_limit: float) -> None:
    """Per chapter and number of revealed cells around its thresholds: how many sampled states compile within
    ``cpu_limit`` CPU seconds and their median and worst CPU seconds (compile child included), for states
    revealed along a path from the start and at random, on every shipped map."""
    import random

    from mapgen.solving.solve import compile_from, inline_from

    print(f"compile within {cpu_limit:g} CPU s: landed/sampled, median and worst CPU s (inf: not within the budget)")
    for chapter in chapter_names():
        ch = get_chapter(chapter)
        low, high = compile_from(ch), inline_from(ch)
        counts = sorted({max(0, low - 4), low, (low + high) // 2, high, high + 4} & set(range(50)))
        for revealed in counts:
            for kind in ("path", "random"):
                rng = random.Random(revealed * 7 + len(kind))
                spent = []
                for name in maps.names(chapter):
                    m = maps.load(name)
                    for _ in range(per_map):
                        order = path_order(m, rng) if kind == "path" else rng.sample(range(m.board.size), m.board.size)
                        spent.append(compile_seconds(ch, state_of(m, order[:revealed]), cpu_limit, 20))
                landed = sum(x != float("inf") for x in spent)
                mark = " (compile_from)" if revealed == low else " (inline_from)" if revealed == high else ""
                print(
                    f"  {chapter:<10} {revealed:>2} revealed{mark:<16} {kind:<6} {landed:>2}/{len(spent):<2} "
                    f"median {statistics.median(spent):.2f}  worst {max(spent):.2f}",
                    flush=True,
                )


def ladder(chapters: list[str], counts: list[int], cpu_limit: float) -> None:
    """``solve.COMPILE_LADDER``'s measurement: per chapter and number of revealed cells, one state per shipped
    map revealed along a path from the start (``path_order`` seeded by the count and the map's name), each
    compiled within ``cpu_limit`` CPU seconds; prints how many landed, every map's CPU seconds and the lower
    median (the seconds within which at least half of them compiled: the ladder's figure)."""
    import random

    print(f"compile within {cpu_limit:g} CPU s: per map CPU s (inf: not within the budget); lower median")
    for chapter in chapters:
        ch = get_chapter(chapter)
        for revealed in counts:
            spent = []
            for name in maps.names(chapter):
                m = maps.load(name)
                state = state_of(m, path_order(m, random.Random(revealed * 31 + len(name)))[:revealed])
                spent.append(compile_seconds(ch, state, cpu_limit, 10))
            ranked = sorted(spent)
            half = ranked[(len(ranked) - 1) // 2]
            landed = sum(x != float("inf") for x in spent)
            print(
                f"  {chapter:<10} {revealed:>2} revealed  {landed}/{len(spent)}  "
                + " ".join(f"{x:.1f}" for x in spent)
                + f"  lower median {half:.1f}",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maps", type=int, default=2, help="shipped maps per chapter")
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds per compile")
    ap.add_argument("--empty", action="store_true", help="compile every chapter's first empty board too (slow)")
    ap.add_argument("--deduce", type=int, default=1, help="maps per chapter for the deduce timing (0: skip)")
    ap.add_argument(
        "--thresholds",
        action="store_true",
        help="only measure the reveal thresholds (solve.COMPILE_FROM, INLINE_FROM): CPU seconds to compile "
        "states revealed along a path from the start and at random, around each chapter's thresholds",
    )
    ap.add_argument("--per-map", type=int, default=2, help="states per shipped map and kind (--thresholds)")
    ap.add_argument(
        "--ladder",
        metavar="CHAPTER:K,K,...",
        action="append",
        help="only measure solve.COMPILE_LADDER: one path state per shipped map with K revealed cells, compiled "
        "within --time-limit CPU s (repeatable, e.g. --ladder maldonado:12,14 --time-limit 40)",
    )
    a = ap.parse_args()
    if a.ladder:
        for spec in a.ladder:
            chapter, _, ks = spec.partition(":")
            if chapter not in chapter_names() or not ks:
                ap.error(f"--ladder: expected CHAPTER:K,K,... with a shipped chapter, not {spec!r}")
            try:
                counts = [int(k) for k in ks.split(",")]
            except ValueError:
                ap.error(f"--ladder: expected numbers of revealed cells like 12,14, not {ks!r}")
            ladder([chapter], counts, a.time_limit)
        return
    if a.thresholds:
        thresholds(a.per_map, a.time_limit)
        return

    print("cold: compile the state + exact count and all odds; cached: a later state (4 more cells) on it")
    print(row("chapter", "revealed", "compiled", "cold s", "nodes", "count", "cached ms", "first ms"))
    cold_5, cached_all, firsts, side = [], [], [], []
    for chapter in chapter_names():
        ch = get_chapter(chapter)
        for k in range(1, a.maps + 1):
            m = maps.load(f"{chapter}-{k}")
            order = reveal_order(m)
            for revealed in (0, 3, 5, 8):
                state = state_of(m, order[:revealed])
                t0 = cpu()
                try:
                    c = Circuit.compile(ch, state, time_limit=a.time_limit)
                    total, _forced, _tallies = answer(c, state)
                except (CompileTimeout, CompileError) as e:
                    kind = "timeout" if isinstance(e, CompileTimeout) else "failed"
                    print(row(f"{chapter}-{k}", revealed, kind, f">{a.time_limit:g}", "-", "-", "-"), flush=True)
                    continue
                cold = cpu() - t0
                later = state_of(m, order[: revealed + 4])
                c._memo.clear()
                t1 = time.process_time()
                answer(c, later)  # the first question (a large circuit loads its compiled passes at the next)
                first = 1000 * (time.process_time() - t1)
                c._memo.clear()
                answer(c, later)
                times = []
                for _ in range(3):
                    c._memo.clear()
                    t1 = time.process_time()
                    answer(c, later)
                    times.append(1000 * (time.process_time() - t1))
                cached = statistics.median(times)
                if revealed >= 5:
                    cold_5.append(cold)
                cached_all.append(cached)
                firsts.append(first)
                print(
                    row(
                        f"{chapter}-{k}",
                        revealed,
                        "yes",
                        f"{cold:.2f}",
                        c.stats.nodes,
                        total,
                        f"{cached:.1f}",
                        f"{first:.1f}",
                    ),
                    flush=True,
                )
                if revealed == 8:
                    side.append((f"{chapter}-{k}", state, total, cold))
    if cold_5:
        med = statistics.median(cold_5)
        print(
            f"cold, 5+ revealed: median {med:.2f} s, worst {max(cold_5):.2f} s (goal <= 1 s: ratio {max(cold_5):.2f})"
        )
    if cached_all:
        med = statistics.median(cached_all)
        print(
            f"cached: median {med:.1f} ms, worst {max(cached_all):.1f} ms (goal <= 50 ms: ratio {max(cached_all) / 50:.2f})"
        )
        print(
            f"  the first question to a loaded circuit: median {statistics.median(firsts):.1f} ms, worst "
            f"{max(firsts):.1f} ms (numpy's passes; a large circuit asked again walks with compiled loops)"
        )

    print("\nside by side on the 8-revealed states (CPU s; answers)")
    print(
        row(
            "state", "circuit", "count", "ganak s", "ganak", "approxmc s", "approxmc", widths=(11, 8, 14, 8, 14, 10, 14)
        )
    )
    for name, state, total, cold in side:
        cnf = cnf_for_state(state)
        t0 = cpu()
        try:
            g = count_cnf(cnf, time_limit=a.time_limit)
        except (CountTimeout, RuntimeError):
            g = None
        tg = cpu() - t0
        t0 = cpu()
        try:
            x = approx_count_cnf(cnf, a.time_limit)
        except (CountTimeout, RuntimeError):
            x = None
        tx = cpu() - t0
        print(
            row(
                name,
                f"{cold:.2f}",
                total,
                f"{tg:.2f}",
                g if g is not None else "timeout",
                f"{tx:.2f}",
                x if x is not None else "timeout",
                widths=(11, 8, 14, 8, 14, 10, 14),
            ),
            flush=True,
        )

    if a.empty:
        print("\nempty boards (the briefing of each chapter's first shipped map)")
        for chapter in chapter_names():
            m = maps.load(f"{chapter}-1")
            state = m.hide(range(m.board.size))
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            t0 = time.perf_counter()
            try:
                c = Circuit.compile(get_chapter(chapter), state, time_limit=max(a.time_limit, 120.0))
                peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
                print(
                    f"  {chapter}: {time.perf_counter() - t0:.1f} s, {c.stats.nodes:,} nodes, {c.stats.count:,} maps, "
                    f"compiler peak {max(peak, before) / 1024:.0f} MB",
                    flush=True,
                )
            except (CompileTimeout, CompileError) as e:
                print(f"  {chapter}: not compiled ({e})", flush=True)

    if a.deduce:
        from mapgen.deduce import deduce_report
        from mapgen.solving.compiled import CircuitCache
        from mapgen.solving.solve import CircuitStore

        print(
            "\nmapgen deduce with exact counts at every step (CPU s per map, process and compiler children; "
            "cold: an empty circuit cache of its own, as a new user's; again: the same map once more, on the "
            "circuits the cold run cached; exact steps / 49)"
        )
        per, again = [], []
        for chapter in chapter_names():
            for k in range(1, a.deduce + 1):
                m = maps.load(f"{chapter}-{k}")
                with tempfile.TemporaryDirectory(prefix="mapgen-bench-circuits-") as folder:
                    # each run a new store over the map's own cache folder, as a new process would have
                    t0 = cpu()
                    r = deduce_report(m, circuits=CircuitStore(CircuitCache(folder)))
                    spent = cpu() - t0
                    t0 = cpu()
                    deduce_report(m, circuits=CircuitStore(CircuitCache(folder)))
                    warm = cpu() - t0
                per.append(spent)
                again.append(warm)
                steps = r["profile"]["steps"]
                exact = sum(s["exact"] for s in steps)
                print(
                    f"  {chapter}-{k}: cold {spent:.2f} s, again {warm:.2f} s, {exact}/{len(steps)} steps exact, "
                    f"{r['grade']['tier']}",
                    flush=True,
                )
        print(
            f"deduce: cold median {statistics.median(per):.2f} s, worst {max(per):.2f} s (goal <= 2 s: ratio "
            f"{statistics.median(per) / 2:.2f}); again median {statistics.median(again):.2f} s"
        )


if __name__ == "__main__":
    main()
