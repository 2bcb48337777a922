"""``mapgen compile``: compile a briefing (or a state as revealed) to a d-DNNF circuit and cache it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mapgen.cli.errors import OutOfTime, RuleBroken, about, printed
from mapgen.cli.options import (
    FiniteRange,
    OutName,
    json_option,
    map_argument,
    reveal_option,
    revealed_input,
    rules_file,
    rules_for,
    rules_option,
    time_limit_option,
)
from mapgen.terrain import quantity


@click.command(name="compile")
@map_argument()
@reveal_option
@time_limit_option(60.0, help="Seconds the compile may take.")
@click.option(
    "--memory-limit",
    type=FiniteRange(0.1, 1024),
    default=4.0,
    show_default=True,
    metavar="GB",
    help="Memory the compiler may use, in GB (exit 1 past it).",
)
@click.option(
    "--cache-dir",
    type=OutName("folder", file_okay=False),
    default=None,
    help="Where compiled briefings are kept (default: $MAPGEN_CACHE_DIR, else the user cache folder). The other "
    "commands read only the default: set MAPGEN_CACHE_DIR to this folder for them to use its circuits.",
)
@click.option(
    "--cache-size",
    type=FiniteRange(0.01, 1024),
    default=2.0,
    show_default=True,
    metavar="GB",
    help="The cache's size cap; the least recently used circuits go first.",
)
@click.option("--recompile", is_flag=True, help="Compile again even when a cached circuit answers the map.")
@rules_option
@json_option
def compile_(map_in, reveal, time_limit, memory_limit, cache_dir, cache_size, recompile, rules, as_json):
    """Compile a map's briefing, or a partial map as revealed, to a d-DNNF circuit (d4) and cache it.

    A complete MAP compiles its briefing: the empty board, every map the briefing allows. A partial MAP, or a MAP
    with --reveal, compiles the state as revealed (smaller and faster when the empty board is too hard). Every later
    state of the same briefing is then answered from the circuit in milliseconds by `mapgen solve`, `hint`,
    `deduce`, `grade` and the web helper: exact counts, forced cells, exact odds and uniform samples. Exit 0 when
    compiled (or already cached), 1 when the compiler runs out of memory or no map completes the state (the
    conflict named, as by `mapgen solve`), 2 for an unreadable file or cache folder, 3 when the time limit runs out.

    With --rules FILE the circuit is that house-rule chapter file's (exit 2 for a map of another chapter): the
    cache keeps it apart by the rules' fingerprint, so `mapgen solve --rules FILE` of the same briefing uses it
    and a question under the shipped rules never does.

    \b
    Example:
        mapgen compile training-1
        mapgen compile fauna-1 --time-limit 120 --json
    """
    from mapgen.output import prepare_folder  # deferred: the command's library, only when it runs
    from mapgen.solving.compiled import (  # deferred: pysat and numpy, only when the command runs
        Circuit,
        CircuitCache,
        CompileError,
        CompileTimeout,
        default_cache_dir,
    )

    chapter = rules_for(map_in, rules)  # the --rules house chapter (exit 2: another chapter's map), else the map's
    map_in = revealed_input(map_in, reveal, chapter)
    m, file = map_in.map, map_in.source
    state = m.hide(range(m.board.size)) if m.complete else m
    briefing = _revealed(state) == 0  # a complete map's, or the board before the first reveal: the same circuit
    folder = cache_dir or str(default_cache_dir())
    cache = CircuitCache(folder, max_bytes=int(cache_size * (1 << 30)))
    what = "the briefing (empty board)" if briefing else f"the state as revealed ({quantity(_revealed(state), 'cell')})"
    circuit = None if recompile or not Path(folder).is_dir() else cache.load(chapter, state, exact=True)
    from_cache = circuit is not None and circuit.base.cells == state.cells and circuit.base.hills == state.hills
    for damaged, why in cache.damaged:  # never an answer (a state it should answer is compiled again): say so
        fate = "left there (it could not be deleted), not used" if damaged.exists() else "deleted, not used"
        click.echo(f"note: {file}: {why} in the cache, {damaged}: {fate}", err=True)
    if not from_cache:  # to compile and store: a folder it cannot write in fails now, before the work
        circuit = None
        prepare_folder(folder)
    if circuit is None:
        show = sys.stderr.isatty() and not as_json
        status = _Status(f"{file}: compiling {what}", show)
        try:
            with about(file, time_limit):
                circuit = Circuit.compile(
                    chapter,
                    state,
                    time_limit=time_limit,
                    memory_limit=int(memory_limit * (1 << 30)),
                    progress=status.tick,
                )
        except CompileTimeout:
            raise OutOfTime(file, f"the compile of {what} did not finish within {time_limit:g} s") from None
        except CompileError as e:
            raise RuleBroken(file, f"the compile of {what} failed: {e}") from None
        finally:
            status.done()
    if from_cache:  # nothing written, but the cap holds all the same (the way to shrink the cache: a smaller one)
        path = cache.found
        cache.evict()
    else:
        path = cache.store(circuit)
    stats = circuit.stats
    out = {
        "file": file,
        "base": "briefing" if briefing else "state",
        "revealed": _revealed(state),
        "nodes": stats.nodes,
        "edges": stats.edges,
        "seconds": round(stats.seconds, 3),
        "count": stats.count,
        "from_cache": from_cache,
        "cache": str(path) if path else None,
        **({"rules": rules_file()} if rules is not None else {}),
    }
    if as_json:
        click.echo(json.dumps(out))
        if path is None and not from_cache:  # "cache": null alone does not say why (a full disk, or the cap)
            click.echo(f"note: {file}: {cache.not_stored}", err=True)
        _no_completion(state, chapter, file, stats.count, reported=True)
        return
    # a cached circuit was compiled before, not now ("compiled in 0.20 s; already cached" read as a second compile)
    when = (
        f"already in the cache (compiled earlier in {stats.seconds:.2f} s)"
        if from_cache
        else f"compiled in {stats.seconds:.2f} s; " + (f"cached in {path}" if path else str(cache.not_stored))
    )
    under = f" under the house rules of {rules_file()}" if rules is not None else ""
    click.echo(
        f"{file}{under}: {what}: {stats.count:,} map{'s' if stats.count != 1 else ''}, {stats.nodes:,} nodes, "
        f"{stats.edges:,} edges, {when}"
    )
    _no_completion(state, chapter, file, stats.count)


def _no_completion(state, chapter, file: str, count: int, reported: bool = False) -> None:
    """A state no map completes (0 maps): exit 1 with the conflict `mapgen solve` names, as every command exits on
    a partial map without a completion (the circuit is reported and cached all the same)."""
    if count:
        return
    from mapgen.solving.solve import Solver  # deferred: ortools, only for a state without a completion

    error = RuleBroken(file, str(Solver.for_chapter(chapter).explain(state)))
    raise printed(error) if reported else error  # --json's report above (count 0) is the document


def _revealed(state) -> int:
    return sum(t is not None for t in state.cells)


class _Status:
    """``compiling … N s`` on one terminal line (stderr), rewritten as the compile runs."""

    def __init__(self, text: str, show: bool):
        self.text, self.show, self.shown = text, show, False

    def tick(self, seconds: float) -> None:
        if self.show:
            click.echo(f"\r{self.text}… {seconds:.0f} s", err=True, nl=False)
            self.shown = True

    def done(self) -> None:
        if self.shown:
            click.echo("\r\033[K", err=True, nl=False)
