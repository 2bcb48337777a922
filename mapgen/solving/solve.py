"""Deduction on partial maps (RULES.md §6): completions, forced cells, possible terrains, counts, probabilities.

One ``Solver`` is the one solver session of the project: the CLI, ``mapgen deduce``, the grade and
the engine's deducer bot all ask it. Per (chapter, briefing) it keeps a *slot*: an incremental SAT
session over the chapter's guarded CNF (``mapgen.solving.sat``: possible terrains, forced cells,
uniqueness, explanations) and, built only when a count needs it, the CP-SAT model that enumerates
completions. Completions found along the way are kept as *witnesses*, so repeated queries on
growing states (a game in progress) re-solve only what the witnesses do not settle.

Every solver call is bounded by a budget: wall-clock seconds, or deterministic ones (reproducible
on a busy machine). What can change an answer (exact or an estimate, which counter answered) is decided
by work, not by the wall clock: CPU seconds of the compiler and counters in their child processes,
CP-SAT's deterministic time for enumerations, SAT propagations, each a share of the question's nominal
seconds (``Budget.part``). The wall clock only ends the work (SolveTimeout, exit 3). Counts are exact when
a circuit, the enumeration or the exact counter finishes within its share, else a labelled estimate
(``CountResult.estimate``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import math
import numbers
import os
import random
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from constraints.catalogue import Chapter, chapter_board, chapter_names, get_chapter
from constraints.cnf import CountError, CountTimeout, approx_count_cnf, cnf_for_state, count_completions_cnf
from constraints.rules import BriefingCell, hill_line, hill_number
from mapgen.inputs import is_whole, seconds_problem
from mapgen.model import Briefing, Map, WrongMapError, expect_map
from mapgen.solving import compiled as _compiled
from mapgen.solving.compiled import Circuit, CircuitCache, CompileError, CompileSpent, CompileTimeout
from mapgen.solving.explain import minimal_reason
from mapgen.solving.proofs import Proofs
from mapgen.solving.sat import (  # SatTimeout, SolveTimeout, QuestionError: re-exported
    Budget,
    NoCompletion,
    QuestionError,
    SatSession,
    SatTimeout,
    SolveTimeout,
)
from mapgen.solving.unigen import (
    ODDS_AUTO,
    ODDS_EXACT,
    ODDS_METHODS,
    ODDS_NONE,
    ODDS_SAMPLER,
    ODDS_SAMPLES,
    ODDS_UNIGEN,
    SAMPLE_SECONDS,
    Z95,
    HeatAnswer,
    OddsAnswer,
    known_chance,
    unigen_samples,
)
from mapgen.terrain import Terrain, as_terrain, listed

if TYPE_CHECKING:
    from collections.abc import Callable

    from ortools.sat.python import cp_model

    from constraints.cpsat import ChapterModel
    from mapgen.solving import sampler, smc  # numba's kernels: imported where estimates and odds run

ENUMERATION_CAP = 2_000  # enumerate up to this many completions before asking the model counter
WITNESS_CAP = 400
#: ApproxMC's tolerance and confidence: the true count is within a factor 1 + EPSILON of the
#: estimate with probability at least 1 - DELTA.
EPSILON, DELTA = 0.8, 0.2


def _seconds(time_limit: float, who: str) -> None:
    """QuestionError for a time limit below 0 or NaN (a NaN deadline never passes: the question never ends)."""
    if seconds_problem(time_limit) is not None:
        raise QuestionError(f"{who}: seconds from 0, not {time_limit!r}")


def _sampler_seed(seed: object) -> None:
    """QuestionError for a sampler's seed that is no whole number from 0 (``solve --seed``'s range: -1 and "x" seeded
    chains no command can seed again)."""
    if not is_whole(seed, 0):
        raise QuestionError(f"seed is a whole number from 0, not {seed!r}")


def _work_seconds(value: object, who: str) -> None:
    """QuestionError for seconds of work that are no number from 0 (a str failed inside the sampler's budget)."""
    if seconds_problem(value) is not None:  # the one test of seconds (mapgen.inputs), in the sampler's words
        raise QuestionError(f"{who}: seconds (a number) from 0, not {value!r}")


def _limit(limit: object) -> None:
    if not is_whole(limit, 1):
        raise QuestionError(f"limit is a whole number of completions from 1, not {limit!r}")


@dataclass
class CountResult:
    """A count of completions. When ``exact`` is false, ``count`` is the estimate's best value and
    ``estimate`` says how it was made and which bounds are proven (see ``Solver.count``)."""

    count: int
    exact: bool
    method: str
    #: per unrevealed cell, completions holding each terrain (when the enumeration finished)
    tallies: dict[int, dict[Terrain, int]] | None = None
    estimate: dict | None = None

    def to_json(self) -> dict:
        out = {"count": self.count, "exact": self.exact, "method": self.method}
        if self.estimate is not None:
            out["estimate"] = self.estimate
        return out


@dataclass(frozen=True)
class HillAnswer:
    """The numbers of a state's hidden forced Hills (``Solver.hill_numbers``), by cell index: ``numbers`` the Hills
    whose number is the same in every completion (proven: deduced as surely as the Hill itself), ``varying`` those
    two completions number differently, ``unsettled`` those the budget ran out on (neither: their number is not
    shown, never guessed)."""

    numbers: dict[int, int]
    varying: tuple[int, ...] = ()
    unsettled: tuple[int, ...] = ()


def kernel_cache_dir() -> Path:
    """The folder numba keeps the compiled loops of this package in, found as numba finds it (its cache locators,
    in their order): ``$NUMBA_CACHE_DIR/solving_<sha1 of this folder>`` when that is set; else ``__pycache__``
    beside the sources when it can be written; else numba's user-wide cache (``~/.cache/numba/solving_<sha1>`` on
    Linux). Only the last asks numba (0.4 s to import) for its folder: a read-only install, as for another user."""
    source = os.path.dirname(os.path.abspath(__file__))  # numba's py_file is the module's; the kernels live here
    subpath = f"{os.path.basename(source)}_{hashlib.sha1(source.encode()).hexdigest()}"
    chosen = os.environ.get("NUMBA_CACHE_DIR", "")
    if chosen:
        return Path(chosen) / subpath
    in_tree = Path(source) / "__pycache__"
    if _writable(in_tree if in_tree.exists() else in_tree.parent):
        return in_tree
    from numba.misc.appdirs import AppDirs  # deferred: numba, only for an install its user cannot write to

    return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir) / subpath


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK)


def kernels_on_disk() -> bool:
    """Whether numba's disk cache holds the sampler's and the counter's compiled loops (else their first use
    compiles them: about 30 CPU s, once). Read from the cache's file names, without importing numba (0.4 s): a
    fresh install has none; a cache of older sources counts, and numba recompiles what it must. The folder is the
    one numba writes to (``kernel_cache_dir``): the one beside the sources said "compiled" with NUMBA_CACHE_DIR set
    while numba compiled inside the time limit (a first `solve flora-2 --reveal none --probabilities` ran out of
    time), and said "first use" on every run of a read-only install."""
    cache = kernel_cache_dir()
    names = (
        "sampler._enumerate",
        "sampler._chain",
        "smc._smc",
        "smc._witnessed",
        "bot_kernels.weights",
        "bot_kernels.expected_values",
        "bot_kernels.cell_values",
    )
    return all(any(cache.glob(f"{name}-*.nbi")) for name in names)


def warm_kernels() -> None:
    """Load the compiled loops of the sampler and of the sequential Monte Carlo counter now (numba compiles them on
    first use, about 30 CPU s once, then reads them from its disk cache in about a second), so that the first
    timed question after it does not pay for them: a server's workers at start, a test run's workers."""
    import maps  # deferred: a shipped map to run the loops on, only where they are warmed
    from mapgen.solving import bot_kernels, sampler, smc  # deferred: numba's kernels, loaded only where they are used

    bot_kernels.warm()  # the heuristic bots' weights (about 3 CPU s to compile)
    m = maps.load("training-1")
    chapter = get_chapter(m.chapter)
    prog = sampler.compile_program(chapter, m.hide(range(m.board.size)))
    sampler.count_small(prog, cap=1_000)
    sampler.run_chains(prog, [sampler.encode(prog, m.cells)], sweeps=1, burn=0, seed=0, threads=1)
    state = m.hide(range(m.board.size))
    smc.estimate(
        prog, budget=smc.SmcBudget(particles=4, runs=2), check=Solver.for_chapter(m.chapter)._smc_check(state, prog)
    )


_WARM = False  # this process has found the compiled loops on disk, or compiled them

_log = logging.getLogger(__name__)

#: What a first question from Python says (once) on a fresh install before it compiles the loops: ``ensure_kernels``.
FIRST_USE_LOG = "mapgen: first use: compiling the sampler's loops (about half a minute, once: later runs skip it)"


def ensure_kernels(announce: Callable[[], object] | None = None) -> None:
    """Before a timed question that may sample or estimate: on a fresh install compile the loops first (about 30 CPU
    s, once a process), so the question's time limit is its own; ``announce`` is called first when they compile
    (the CLI says so in its words). From Python the first ``odds_answer`` with the sampler raised SolveTimeout after
    14.7 s with a 10 s limit, and the next took 0.8 s.

    Without ``announce`` (a question asked from Python) it is said once through ``logging``, a WARNING of this
    module's logger, as matplotlib says it builds its font cache: Python prints it on stderr when the program set
    no logging up (INFO would be shown to no one), a program that did routes or silences it, and nothing is printed
    on later calls (nor through ``warnings``, whose filters a test suite may turn into errors)."""
    global _WARM
    if not _WARM:
        if not kernels_on_disk():
            if announce is not None:
                announce()
            else:
                _log.warning(FIRST_USE_LOG)
            warm_kernels()
        _WARM = True


def _briefing_says(chapter: Chapter, m: Map, rule_ids, lead: str) -> str:
    """The briefing's cells that rules ``rule_ids`` fix (the Peak a Rock, Flora's start a Fort), in words after
    ``lead``: what a conflict "with the briefing" is about (a Peak typed on the board's edge); empty if none."""
    said = [r.makes(m) for r in chapter.rules if isinstance(r, BriefingCell) and r.id in rule_ids and r.makes(m)]
    return lead + listed(said) if said else ""


def _briefing_clash(chapter: Chapter, m: Map) -> tuple[str, ...]:
    """The rules that fix one briefing cell to two terrains (Flora's start typed on the Peak: a Fort and a Rock)."""
    fixed = [(r, r.cell(m)) for r in chapter.rules if isinstance(r, BriefingCell) and r.cell(m) is not None]
    return tuple(dict.fromkeys(r.id for r, i in fixed for q, j in fixed if i == j and r.terrain is not q.terrain))


def agrees(chapter: Chapter, w, state: Map) -> bool:
    """Whether the complete terrain ``w`` is a completion's terrain for ``state``: it shows every revealed
    cell and every revealed Hill's number (``w`` itself keeps every rule: it came from a solver)."""
    if any(t is not None and t is not u for t, u in zip(state.cells, w)):
        return False
    c = chapter.counted
    return c is None or all(hill_number(state.board, w, i, c) == n for i, n in state.hills.items())


@dataclass
class _Slot:
    """One briefing's solvers and the completions seen for it."""

    sat: SatSession
    chapter: Chapter
    briefing: Briefing
    _cm: ChapterModel | None = None
    _ruled: SatSession | None = None

    @property
    def ruled(self) -> SatSession:
        """A fork of the session with every rule fixed in force (guards as unit clauses, not
        assumptions) and the Rocks' connection checked lazily (``SatSession.fork(ruled=True)``):
        full-rule questions run faster (built on first use)."""
        if self._ruled is None:
            self._ruled = self.sat.fork(ruled=True)
        return self._ruled

    @property
    def witnesses(self) -> list[tuple[Terrain, ...]]:
        return self.sat.witnesses

    @property
    def cm(self) -> ChapterModel:
        """The CP-SAT model (built on first use: only enumeration needs it)."""
        if self._cm is None:
            from constraints.cpsat import ChapterModel  # deferred: ortools (and pandas, 0.4 s), only to enumerate

            self._cm = ChapterModel(self.chapter, self.briefing)
        return self._cm


class _Tally:
    """An enumeration's completions: their number, per cell the completions of each terrain, the first ``keep``."""

    def __init__(self, cell_vars, cells, limit, deadline, keep: int = 64):
        self.cell_vars, self.cells, self.limit, self.deadline = cell_vars, cells, limit, deadline
        self.keep = keep  # completions kept in ``samples`` (terrain values of ``cells``)
        self.count = 0
        self.timed_out = self.partial = False  # set by Solver._enumerate: which limit stopped it
        self.tally: dict[int, dict[int, int]] = {i: {} for i in cells}  # cell -> terrain value -> completions
        self.samples: list[list[int]] = []


@dataclass
class _Beside:
    """An estimate made beside the enumeration (``Solver._enumerate_beside``): its value, or what it raised."""

    value: object = None
    error: SolveTimeout | None = None

    def result(self):
        if self.error is not None:
            raise self.error
        return self.value


@functools.cache
def _callback_class() -> Callable[[_Tally], cp_model.CpSolverSolutionCallback]:
    """CP-SAT's solution callback that counts into a ``_Tally``, made on first use: ortools (with pandas, 0.4 s) is
    imported only where a count enumerates, not on every ``solve`` (the states whose count a circuit gives never do)."""
    from ortools.sat.python import cp_model  # deferred: ortools, only to enumerate

    class Callback(cp_model.CpSolverSolutionCallback):
        def __init__(self, tally: _Tally):
            super().__init__()
            self.t = tally

        def on_solution_callback(self):
            t = self.t
            t.count += 1
            values = [self.value(t.cell_vars[i]) for i in t.cells]
            for i, v in zip(t.cells, values):
                d = t.tally[i]
                d[v] = d.get(v, 0) + 1
            if len(t.samples) < t.keep:
                t.samples.append(values)
            if t.count >= t.limit:
                self.stop_search()

    return Callback


class CircuitStore:
    """The compiled circuits of one process: loaded ones in memory (least recently used dropped past
    ``max_edges`` edges in all), the on-disk ``CircuitCache`` behind them, and the bases whose compile
    failed (not tried again with a time limit no larger). ``compiles=False``: only circuits already
    cached answer (today's counters otherwise)."""

    def __init__(self, cache: CircuitCache | None = None, *, max_edges: int = 20_000_000, compiles: bool = True):
        self.cache = cache
        self.max_edges = max_edges
        self.compiles = compiles
        self._lock = threading.RLock()  # the web app's threads share one store
        self._loaded: OrderedDict[str, Circuit] = OrderedDict()
        self._failed: dict[str, float] = {}  # base -> the largest time limit it did not compile within
        self._spent: dict[str, float] = {}  # base -> the largest CPU budget it did not compile within
        self._broken: set[str] = set()  # bases the compiler failed on (out of memory): not tried again

    def find(self, chapter: Chapter, state: Map) -> Circuit | None:
        """A circuit that answers ``state`` (its base the largest), from memory or the disk cache."""
        with self._lock:
            return self._find(chapter, state)

    def _find(self, chapter: Chapter, state: Map) -> Circuit | None:
        best = None
        for c in self._loaded.values():
            if c.chapter == chapter and c.applies(state) and (best is None or _revealed(c.base) > _revealed(best.base)):
                best = c
        if best is None and self.cache is not None:
            best = self.cache.load(chapter, state)
            if best is not None:
                self.keep(best)
        if best is not None:
            self._loaded.move_to_end(best.key)
        return best

    def compile(
        self,
        chapter: Chapter,
        state: Map,
        time_limit: float,
        progress=None,
        *,
        memory_limit: int | None = None,
        cpu_limit: float | None = None,
    ) -> Circuit | None:
        """Compile ``state`` as revealed: None when it does not within ``time_limit`` seconds or, when given,
        ``cpu_limit`` CPU seconds (a base is not tried again with a budget no larger), or when the compiler
        fails. With ``cpu_limit`` the CPU budget decides and the wall clock only ends the work: running out
        of ``time_limit`` first raises CompileTimeout, remembered nowhere."""
        key = _compiled.circuit_key(chapter, state)
        if not self.compiles or time_limit <= 0.05 or key in self._broken:
            return None
        tried = self._failed if cpu_limit is None else self._spent
        if tried.get(key, -1.0) >= (time_limit if cpu_limit is None else cpu_limit):
            return None
        try:
            c = Circuit.compile(
                chapter,
                state,
                time_limit=time_limit,
                memory_limit=memory_limit or _compiled.DEFAULT_COMPILE_MEMORY,
                progress=progress,
                cpu_limit=cpu_limit,
            )
        except CompileTimeout:
            if cpu_limit is not None:
                raise
            self._failed[key] = time_limit
            return None
        except CompileSpent:
            self._spent[key] = cpu_limit or 0.0
            return None
        except (CompileError, OSError):
            self._broken.add(key)
            return None
        self.keep(c)
        if self.cache is not None:
            self.cache.store(c)
        return c

    def keep(self, c: Circuit) -> None:
        """Keep ``c`` in memory (not on disk: a conditioned circuit is made again in a second)."""
        with self._lock:
            self._keep_locked(c)

    def _keep_locked(self, c: Circuit) -> None:
        self._loaded[c.key] = c
        self._loaded.move_to_end(c.key)
        while len(self._loaded) > 1 and sum(x.stats.edges for x in self._loaded.values()) > self.max_edges:
            self._loaded.popitem(last=False)


def _revealed(state: Map) -> int:
    return sum(t is not None for t in state.cells)


_DEFAULT_STORE: CircuitStore | None = None


def default_store() -> CircuitStore:
    """The process-wide store over the user's cache folder (``compiled.default_cache_dir``)."""
    global _DEFAULT_STORE
    if _DEFAULT_STORE is None:
        _DEFAULT_STORE = CircuitStore(CircuitCache())
    return _DEFAULT_STORE


#: Revealed cells from which a question compiles the state as revealed when no cached circuit answers it
#: (``python -m bench.bench_exact --thresholds`` measures the compiles around them: below these a compile rarely lands
#: within a question's CPU share, so the share goes to the other counters instead). The compile's budget is
#: CPU seconds of the compiler, a share of the question's time limit, so whether it lands does not depend on
#: the load; the wall clock running out first is a SolveTimeout (exit 3). Below them only circuits already
#: compiled answer (``mapgen compile``, the web app's background compiles), unless the question's compile
#: budget reaches a rung of ``COMPILE_LADDER``. A chapter not listed (a house chapter): ``COMPILE_FROM_DEFAULT``.
COMPILE_FROM = {"training": 0, "fauna": 5, "flora": 24, "vameter": 20, "maldonado": 16}
COMPILE_FROM_DEFAULT = 8
#: From these the compile takes well under a second on most sampled states (same measurement): the table
#: helper's quick answer compiles inline (within a CPU share of its time limit) instead of in the background.
INLINE_FROM = {"training": 0, "fauna": 8, "flora": 28, "vameter": 24, "maldonado": 20}
INLINE_FROM_DEFAULT = 12


#: Chapters whose briefings (the empty board, with any revealed Hills) compile within these CPU seconds
#: (measured with d4's MOM scoring, ``compiled.D4_HEURISTIC``: fauna-1's empty board 24 CPU s and 0.4 GB in
#: the compiler, 34 s and 0.8 GB in all for ``mapgen compile fauna-1``; fauna-5's 0.4 s; fauna-3's 153 CPU s;
#: fauna-2, 4, 6, 7 and 8 more than 100 CPU s, not measured further): below ``compile_from`` the table helper compiles
#: the briefing in the background (``mapgen.web.service.BackgroundCompiles``), and every state of the game is
#: answered from it.
#: Flora, Vameter and Maldonado briefings do not compile (issue 24), so they are not listed.
BRIEFING_COMPILE_CPU = {"fauna": 300.0}


#: Earlier thresholds for a larger budget: (revealed cells, CPU seconds) such that, of the states sampled with
#: that many cells revealed along a path from the start (one per shipped map of the chapter, 8 in all:
#: ``python -m bench.bench_exact --ladder CHAPTER:K,... --time-limit 40``), at least half compiled within those
#: seconds (the lower median; then the largest of that and the later rungs', so a budget that reaches a rung
#: reaches every later one). A question whose compile budget reaches a rung compiles from there
#: (``compile_from`` with ``cpu``), so a larger ``--time-limit`` buys exact answers earlier; the bots' worlds
#: keep ``COMPILE_FROM`` (``Solver.circuit(fixed=True)``: they ask at every decision). Measured in CPU seconds on
#: this project's 2-core machine; lower medians per rung: Fauna 3 revealed 2.4 s, 4: 2.6 s; Flora 16: none
#: within 40 s (1 of 8), 20: 12.3 s, 22: 35.4 s, 24: 2.5 s; Vameter 14: none (1 of 8), 16: 2.4 s, 18: 1.4 s,
#: 20: 1.9 s; Maldonado 10: none (2 of 8), 12: 4.2 s, 14: 0.7 s, 16: 0.7 s.
COMPILE_LADDER: dict[str, tuple[tuple[int, float], ...]] = {
    "fauna": ((3, 2.6), (4, 2.6)),
    "flora": ((20, 35.4), (22, 35.4)),
    "vameter": ((16, 2.4), (18, 1.4)),
    "maldonado": ((12, 4.2), (14, 0.7)),
}


def compile_from(chapter: Chapter, cpu: float | None = None) -> int:
    """Revealed cells from which a question compiles a state: ``COMPILE_FROM``, or earlier where a compile budget
    of ``cpu`` CPU seconds reaches the measured ``COMPILE_LADDER``."""
    fixed = COMPILE_FROM.get(chapter.name, COMPILE_FROM_DEFAULT)
    if cpu is None:
        return fixed
    return min([k for k, seconds in COMPILE_LADDER.get(chapter.name, ()) if seconds <= cpu] + [fixed])


def briefing_compile_cpu(chapter: Chapter) -> float | None:
    """CPU seconds within which ``chapter``'s briefings compile (``BRIEFING_COMPILE_CPU``), or None."""
    return BRIEFING_COMPILE_CPU.get(chapter.name)


def briefing_base(state: Map) -> Map:
    """The briefing of ``state`` as a base to compile: every cell hidden but the revealed Hills (their numbers
    in the circuit's formula), so every later state of the same game extends it. A running or cached compile
    of the bare briefing answers such a state too, within ``compiled.HILL_PATTERNS`` placements."""
    return state.with_cells(t if t is Terrain.HILL else None for t in state.cells)


def counter_from(chapter: Chapter) -> int:
    """Revealed cells from which a count asks the exact model counter (Ganak): the earliest rung of the chapter's
    ``COMPILE_LADDER`` (else ``COMPILE_FROM``). Below it the counter, a search of the same kind as the compiler,
    was measured never to land within its share (3 CPU s, maps 1-3 of each chapter at 0, 4, 8, ... 20 revealed:
    Fauna none at 0 and 1 of 3 at 4, then all from 12; Flora and Vameter none up to 20; Maldonado one, at 20), and
    it cost that share in wall-clock seconds the sequential Monte Carlo estimate then lacked (maldonado-1 with 3
    revealed at 10 s: 2 of its 4 runs done). The threshold counts revealed cells, never the clock."""
    return min([k for k, _ in COMPILE_LADDER.get(chapter.name, ())] + [compile_from(chapter)])


def inline_from(chapter: Chapter) -> int:
    return INLINE_FROM.get(chapter.name, INLINE_FROM_DEFAULT)


#: A circuit this large answers a state with many more reveals slower than compiling that state anew, or
#: than itself conditioned on them: when that keeps at most ``CONDITION_KEEPS`` of its edges, the conditioned
#: circuit (kept in memory) answers the state and its later ones.
LARGE_CIRCUIT_EDGES = 200_000
CONDITION_KEEPS = 0.25
#: Shares of a count's budget (its nominal seconds, never of what is left: the same under any load), in CPU
#: seconds of the compiler, Ganak and ApproxMC in turn; the wall clock only ends the work (SolveTimeout).
COMPILE_SHARE, COUNTER_SHARE, APPROX_SHARE = 0.4, 0.1, 0.05
#: The sequential Monte Carlo estimate's share of a count's nominal seconds, as work (particles and runs:
#: ``smc.SmcBudget.for_seconds``, never the clock; the wall clock may only cut its runs short).
SMC_SHARE = 0.3
#: Deterministic seconds (CP-SAT's ``max_deterministic_time``) a count's enumeration may take: how many
#: completions it finds before the other counters take over is the same on a busy machine as on an idle one.
ENUMERATION_WORK = 0.25
#: ``small_count``'s default cap on search nodes (measured: 40-130 ms on 7x7 states; exact up to about 16,000
#: completions from 33 reveals on, where CP-SAT's enumeration of 500 took 100-550 ms and found none whole)
SMALL_COUNT_NODES = 300_000


class _Aside:
    """A state's compile under way in a thread beside the estimates (``Solver.compile_aside``): the child process
    is d4's as for any compile, its CPU budget decides whether it lands, and the wall clock only ends it."""

    def __init__(self, store: CircuitStore, chapter: Chapter, state: Map, cpu: float, deadline: float):
        self.cpu = cpu
        self.circuit: Circuit | None = None
        self.timed_out = False  # the wall clock ran out before the CPU budget did
        self._done = threading.Event()
        self._cancel = threading.Event()
        args = (store, chapter, state, deadline)
        threading.Thread(target=self._run, args=args, name="compile-aside", daemon=True).start()

    def _run(self, store: CircuitStore, chapter: Chapter, state: Map, deadline: float) -> None:
        try:
            self.circuit = store.compile(
                chapter, state, max(0.05, deadline - time.monotonic()), self._check, cpu_limit=self.cpu
            )
        except CompileTimeout:
            self.timed_out = True
        except _Cancelled:
            pass
        finally:
            self._done.set()

    def _check(self, _waited: float) -> None:
        """The compile's progress (about every quarter second): ends it once cancelled (its child is killed)."""
        if self._cancel.is_set():
            raise _Cancelled

    def cancel(self) -> None:
        """Stop the compile: its state was answered exactly another way (its completions enumerated)."""
        self._cancel.set()

    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, deadline: float) -> Circuit | None:
        """The circuit, or None when the state did not compile within the CPU budget (or the compiler failed);
        SolveTimeout when the wall clock ran out first."""
        if not self._done.wait(max(0.0, deadline - time.monotonic()) + ASIDE_GRACE) or self.timed_out:
            raise SolveTimeout(f"the time limit ran out while the state was compiled ({self.cpu:g} CPU s budget)")
        return self.circuit


class _Cancelled(Exception):
    """An aside compile no longer needed."""


#: Deterministic seconds (SAT propagations) for the chain starts a private SAT session tops up where the SMC runs
#: died (``Solver.chain_starts``); the same figure of wall-clock seconds ends them when no deadline is given.
TOP_UP_WORK = 30.0

#: Seconds an aside compile's waiter allows past the deadline for the compile's own end (its child is killed at
#: the deadline, then reaped).
ASIDE_GRACE = 1.0


def _sample_work(state: Map, seconds: float) -> sampler.Budget:
    """The sampler's work for ``state`` at ``seconds`` (``sampler.Budget.for_seconds``, by the share revealed)."""
    from mapgen.solving import sampler  # deferred: numba's kernels

    return sampler.Budget.for_seconds(seconds, 1 - len(state.unrevealed()) / state.board.size)


class Solver:
    """Answers deduction questions about states of one chapter (a ``Chapter``, or a shipped chapter's name);
    cheap to query repeatedly.

    ``time_limit`` is the default budget of one question; with ``deterministic=True`` it counts
    deterministic seconds (SAT propagations) so the same question gets the same answer however
    busy the machine is (the deducer bot's playtests rely on it). ``spent`` adds up the
    deterministic time used.

    A Solver is not thread-safe (its SAT sessions and caches): ask one from one thread at a time.
    ``Solver.for_chapter`` gives each thread its own.

    Every question takes a ``Map`` (a partial map, or a complete one) of this solver's chapter: TypeError for
    anything else (a path, a name: ``read_map``, ``maps.load``), WrongMapError (exit 2) for a map of another chapter.
    A state with no completion raises NoCompletion (exit 1; ``completion`` returns None instead), and the wall
    clock running past the budget SolveTimeout (exit 3); an argument a question cannot use (an odds method that does
    not exist, a count's limit below 1) QuestionError (exit 2).
    """

    #: ``for_chapter``'s solvers, per thread (``_shared.solvers``: chapter name -> Solver)
    _shared: ClassVar[threading.local] = threading.local()

    def __init__(
        self,
        chapter: Chapter | str,
        *,
        time_limit: float = 30.0,
        deterministic: bool = False,
        circuits: CircuitStore | None = None,
    ):
        # a shipped chapter's name too: ``Solver("fauna", time_limit=0.05, deterministic=True)``
        chapter = get_chapter(chapter) if isinstance(chapter, str) else chapter
        # a str failed at the first question, inside the SAT budget ("can't multiply sequence by non-int")
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, numbers.Real)):
            raise TypeError(f"Solver's time_limit: seconds (a number), not {time_limit!r}")
        _seconds(time_limit, "Solver's time_limit")
        self.chapter = chapter
        self.time_limit = time_limit
        self.deterministic = deterministic
        self.spent = 0.0
        self._shipped = chapter.name in chapter_names()  # a shipped chapter's solver takes its own maps only
        self._slots: OrderedDict[Briefing, _Slot] = OrderedDict()
        self._circuits = circuits
        #: the last state's finished SMC runs (``smc.Runs``): the count's, reread by the sampler's chain starts
        self._runs: tuple[tuple[Map, bytes], smc.Runs] | None = None
        #: compiles under way beside the estimates (``compile_aside``), by circuit key
        self._asides: dict[str, _Aside] = {}
        #: the odds the next count estimate's runs will start chains for (``chains_ahead``): the state, the
        #: sampler's seconds and seed, the deadline; and the chains run ahead for it once its program is known
        self._ahead_for: tuple[Map, float, int, float | None, sampler.AheadTally] | None = None
        self._ahead: sampler.ChainsAhead | None = None

    @property
    def circuits(self) -> CircuitStore:
        """Where compiled briefings come from (default: the process-wide store over the user cache)."""
        if self._circuits is None:
            self._circuits = default_store()
        return self._circuits

    def circuit(
        self,
        state: Map,
        time_limit: float | None = 0.0,
        *,
        progress=None,
        deadline: float | None = None,
        fixed: bool = False,
    ) -> Circuit | None:
        """A compiled circuit that answers ``state`` exactly: a cached one (memory, then disk), else (with a
        ``time_limit`` above 0; None: the compile's default) the state compiled as revealed, from
        ``compile_from(chapter, time_limit)`` revealed cells (``fixed``: from ``COMPILE_FROM`` whatever the
        budget, for a bot that asks at every decision). Given a wall-clock ``deadline`` (``time.monotonic``), ``time_limit``
        counts the compiler's CPU seconds, so whether the compile lands does not depend on the machine's load,
        and the deadline passing first raises SolveTimeout; without one it counts wall-clock seconds. None
        below the threshold, past the budget, or when the compiler fails. A very large cached circuit gives
        way to a compile of a state with many more reveals (the same answers, faster)."""
        found = self.circuits.find(self.chapter, state)
        if time_limit is None:
            time_limit = _compiled.DEFAULT_COMPILE_SECONDS
        wall, cpu = (time_limit, None) if deadline is None else (deadline - time.monotonic(), time_limit)
        if found is not None and found.stats.edges > LARGE_CIRCUIT_EDGES and _revealed(state) > _revealed(found.base):
            # a large circuit conditioned on the new reveals, pruned, answers this state and the later ones
            # (fauna's empty board keeps 12% of its edges after two reveals, 1% after four)
            narrower = found.condition(state, at_most=CONDITION_KEEPS)
            if narrower is not None:
                self.circuits.keep(narrower)
                found = narrower
        if found is not None:
            if found.stats.edges > LARGE_CIRCUIT_EDGES and _revealed(state) >= _revealed(found.base) + 8:
                try:
                    fresh = self.circuits.compile(
                        self.chapter, state, min(2.0, wall), progress, cpu_limit=None if cpu is None else min(2.0, cpu)
                    )
                except CompileTimeout:
                    fresh = None
                if fresh is not None:  # else the cached one answers alike, only slower
                    return fresh
            return found
        inline = time_limit > 0 and _revealed(state) >= compile_from(self.chapter, None if fixed else time_limit)
        aside = self._asides.get(_compiled.circuit_key(self.chapter, state)) if self._asides else None
        if aside is not None and not aside.done():  # compiling beside the estimates: waited for where it compiles here
            return aside.wait(time.monotonic() + wall) if inline else None
        if not inline:
            return None
        if wall <= 0.05:
            raise SolveTimeout("the time limit ran out before the state was compiled")
        try:
            return self.circuits.compile(self.chapter, state, wall, progress, cpu_limit=cpu)
        except CompileTimeout:
            raise SolveTimeout(f"the time limit ran out while the state was compiled ({cpu:g} CPU s budget)") from None

    def compile_aside(self, state: Map, cpu: float, deadline: float) -> _Aside | None:
        """Start compiling ``state`` in a thread beside the other counters and the sampler, within ``cpu`` CPU seconds,
        when no circuit answers it and it has fewer revealed cells than ``COMPILE_FROM`` (from there compiles take
        well under a second: inline) but as many as the budget's rung of ``COMPILE_LADDER`` (where a compile may take
        seconds, or not land). ``count`` and ``odds_answer`` take its circuit as soon as it lands and wait for it
        before they answer with an estimate; whether it lands is its CPU budget's doing, never the load's. Returns the
        one running for ``state`` if there is one; None when none runs or starts.

        Measured (``mapgen solve``, default 10 s, its compile share 3.4 CPU s): ``--probabilities`` gave the count 0.45
        of the time, so its compile share (1.5 CPU s) stayed below Fauna's rung at 3 and 4 revealed (2.6 s): fauna-1
        with A7, B7, C7 revealed got the sampler's unconverged odds (bars up to ±80 points) in 4.7 s, and exact odds
        in 2.7 s with ``--time-limit 30``; a plain count ran the compile, Ganak and the estimate one after another.
        """
        key = _compiled.circuit_key(self.chapter, state)
        running = self._asides.get(key)
        if running is not None and not running.done():
            return running
        for k in [k for k, a in list(self._asides.items()) if a.done()]:  # the web app's threads share a solver
            self._asides.pop(k, None)
        if self.deterministic or not self.circuits.compiles:
            return None
        if not compile_from(self.chapter, cpu) <= _revealed(state) < compile_from(self.chapter):
            return None
        if self.circuits.find(self.chapter, state) is not None:
            return None
        aside = self._asides[key] = _Aside(self.circuits, self.chapter, state, cpu, deadline)
        return aside

    def exact_tallies(
        self, state: Map, time_limit: float | None = 0.0, *, progress=None, deadline: float | None = None
    ) -> tuple[int, dict[int, dict[Terrain, int]]] | None:
        """The exact count and, per unrevealed cell, how many completions hold each terrain, from a
        circuit (see ``circuit``); None when no circuit can be had within ``time_limit``."""
        c = self.circuit(state, time_limit, progress=progress, deadline=deadline)
        return None if c is None else c.tallies(state)

    @classmethod
    def for_chapter(cls, name: str | Chapter) -> Solver:
        """The shared solver of a shipped chapter, by name or as its Chapter (models are cached per briefing): one per
        thread, as a Solver is not thread-safe (a server's threads may each call this); a Chapter of house rules gets
        a solver of its own."""
        if isinstance(name, Chapter):
            if name.name not in chapter_names() or get_chapter(name.name) != name:
                return cls(name)
            name = name.name
        shared: dict[str, Solver] = cls._shared.__dict__.setdefault("solvers", {})
        if name not in shared:
            shared[name] = cls(get_chapter(name))
        return shared[name]

    # -- sessions and budgets ------------------------------------------------------------------
    def _blank(self, briefing: Briefing) -> Map:
        """A blank state on this chapter's board (a house chapter borrows a shipped chapter's name with
        that board: a Map finds its board by chapter name)."""
        names = chapter_names()
        name = self.chapter.name
        if name not in names or chapter_board(name) != self.chapter.board:
            name = next(n for n in names if chapter_board(n) == self.chapter.board)
        return Map(name, briefing, (None,) * self.chapter.board.size, board=self.chapter.board)

    def slot(self, briefing: Briefing) -> _Slot:
        """The shared session of a briefing (its solvers and witnesses)."""
        s = self._slots.get(briefing)
        if s is None:
            s = self._slots[briefing] = _Slot(SatSession(self.chapter, self._blank(briefing)), self.chapter, briefing)
            if len(self._slots) > 16:
                self._slots.popitem(last=False)
        else:
            self._slots.move_to_end(briefing)
        return s

    def session(self, briefing: Briefing, *, ruled: bool = False) -> _Slot:
        """A private session for one briefing: its answers never depend on questions asked elsewhere.

        ``ruled``: every rule fixed in force (``SatSession.fork(ruled=True)``), for questions always asked
        under every rule; its cores name revealed cells only (made from a session of its own that never
        encodes what the fork leaves out: ``SatSession(..., lazy=True)``)."""
        if ruled:
            return _Slot(
                SatSession(self.chapter, self._blank(briefing), lazy=True).fork(ruled=True), self.chapter, briefing
            )
        return _Slot(self.slot(briefing).sat.fork(), self.chapter, briefing)

    def budget(self, time_limit: float | Budget | None = None) -> Budget:
        """The budget of one question: ``time_limit`` seconds (default the solver's), in this solver's kind
        (wall-clock or deterministic); a Budget given is used as it is."""
        if isinstance(time_limit, Budget):
            return time_limit
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)):
            # Solver.forced(state, "A7") failed deep inside with "can't multiply sequence by non-int of type 'float'"
            raise TypeError(f"time_limit: seconds (a number) or a Budget, not {time_limit!r}")
        if time_limit is not None and math.isnan(time_limit):
            _seconds(time_limit, "time_limit")  # a negative one runs out at once (SolveTimeout)
        return Budget(self.time_limit if time_limit is None else time_limit, self.deterministic)

    def _sat(self, slot: _Slot, assumptions: list[int], budget: Budget) -> bool:
        before = slot.sat.spent
        try:
            return slot.sat.solve(assumptions, budget)
        except SatTimeout:
            raise SolveTimeout("the time limit ran out") from None
        finally:
            self.spent += slot.sat.spent - before

    def _givens(self, slot: _Slot, state: Map, rules=None) -> list[int]:
        """The session's assumptions for the revealed cells (under ``rules``: default all); NoCompletion (T1,
        always in force) when a revealed terrain is not of the chapter."""
        lits = slot.sat.givens(state, rules=rules)
        if lits is None:
            b = state.board
            bad, t = next((i, t) for i, t in enumerate(state.cells) if t is not None and t not in slot.sat.x[i])
            if not isinstance(t, Terrain):  # a code where a Terrain belongs: a mistake of the caller, not a rule
                raise TypeError(
                    f"cell {b.name(bad)} holds {t!r}, not a Terrain: a Map's cells are Terrain members or None "
                    f"(Terrain.from_code({t!r}) for a code)"
                )
            raise NoCompletion(
                f"{t.label} ({t.code}) at {b.name(bad)} is not a terrain of this chapter (T1)", ("T1",), (b.name(bad),)
            )
        return lits

    def _witnesses(self, slot: _Slot, state: Map) -> list[tuple[Terrain, ...]]:
        """Stored completions that are completions of this state too (Hill numbers included)."""
        return [w for w in slot.witnesses if agrees(self.chapter, w, state)]

    def _found(self, slot: _Slot) -> tuple[Terrain, ...]:
        w = slot.sat.decode()
        slot.sat.remember(w, WITNESS_CAP)
        return w

    # -- questions ---------------------------------------------------------------------------
    def terrain(self, terrain: Terrain | str) -> Terrain:
        """A terrain a question asks about (a Terrain or its code, ``"Ft"``); QuestionError for one this chapter's maps
        never hold (``Ma`` on Fauna: ``--target``'s words), whose every share would be a vacuous 0."""
        t = as_terrain(terrain)
        if t not in self.chapter.terrains:
            codes = " ".join(u.code for u in self.chapter.terrains)
            raise QuestionError(f"{t.label} ({t.code}) is not a terrain of {self.chapter.name} (its terrains: {codes})")
        return t

    def check(self, state: Map, who: str = "Solver") -> None:
        """TypeError when ``state`` is not a Map (a path or a shipped map's name), WrongMapError when it is a map of
        another shipped chapter than this solver's (a house-rule chapter takes the maps of the chapter it varies)."""
        expect_map(state, who)
        if state.chapter != self.chapter.name and self._shipped:
            raise WrongMapError(
                f"a {state.chapter} map given to {who} of a {self.chapter.name} solver: "
                f"ask Solver.for_chapter({state.chapter!r}) (or Solver.for_chapter(state.chapter))"
            )

    def completion(self, state: Map, time_limit=None, *, session: _Slot | None = None) -> tuple[Terrain, ...] | None:
        """One completion, or None when there is none."""
        self.check(state, "Solver.completion")
        slot = session or self.slot(state.briefing)
        known = self._witnesses(slot, state)
        if known:
            return known[0]
        if not self._sat(slot, self._givens(slot, state), self.budget(time_limit)):
            return None
        return self._found(slot)

    def other_completion(self, state: Map, avoid, time_limit=None, *, rules=None) -> tuple[Terrain, ...] | None:
        """A completion of ``state`` that differs from the terrain ``avoid`` on some unrevealed cell, or None.

        ``rules`` (rule ids) keeps only those rules in force (default: all; T1 and the briefing always).
        """
        self.check(state, "Solver.other_completion")
        slot = self.slot(state.briefing)
        hidden = state.unrevealed()
        if rules is None:
            for w in self._witnesses(slot, state):
                if any(w[i] is not avoid[i] for i in hidden):
                    return w
        lits = [-v for i in hidden if (v := slot.sat.lit(i, avoid[i])) is not None]
        if not lits:
            return None
        givens = self._givens(slot, state, rules)
        act = slot.sat.switch(lits)
        try:
            if not self._sat(slot, [*givens, act], self.budget(time_limit)):
                return None
            w = slot.sat.decode()
            if rules is None:
                slot.sat.remember(w, WITNESS_CAP)
            return w
        finally:
            slot.sat.retire(act)

    def sample(
        self, state: Map, n: int, time_limit=None, *, seed: int = 0, session: _Slot | None = None
    ) -> list[tuple[Terrain, ...]]:
        """``n`` completions drawn exactly uniformly (with repetition, seeded) when a compiled circuit
        answers the state (``circuit``: cached ones only); otherwise up to ``n`` completions, each found
        under random preferred terrains (diverse, not uniform), as many as the budget allows. With a
        private ``session`` (see ``session()``) always the latter, in that session: its answers depend on
        its own questions only, never on which circuits this machine has cached (the planner bot)."""
        self.check(state, "Solver.sample")
        if not is_whole(n, 0):
            raise QuestionError(f"n is a whole number of completions from 0, not {n!r}")
        if session is None:
            c = self.circuit(state, 0.0)
            if c is not None:
                return c.sample(state, n, seed)
        budget = self.budget(time_limit)
        slot = session or self.slot(state.briefing)
        sat, rng = slot.sat, random.Random(seed)
        givens = self._givens(slot, state)
        hidden = state.unrevealed()
        out = []
        try:
            for _ in range(n):
                sat.lean([v if rng.random() < 0.5 else -v for i in hidden for v in sat.x[i].values()])
                prefer = [rng.choice(list(sat.x[i].values())) for i in hidden]
                sat.lean(prefer)
                if not self._sat(slot, givens, budget):
                    break
                out.append(sat.decode())
        except SolveTimeout:
            if budget.deterministic and time.monotonic() >= budget.deadline:
                raise  # the wall clock, not the deterministic budget, ended the draws
        return out

    def fair_samples(
        self, state: Map, n: int, time_limit: float, *, deadline: float | None = None
    ) -> list[tuple[Terrain, ...]]:
        """``n`` of UniGen's almost-uniform completions (``unigen.UNIGEN_EPSILON``) within ``time_limit`` CPU
        seconds, else [] (never other draws: odds are made of these only). The wall-clock ``deadline``
        (default: ``time_limit`` from now) passing first raises SolveTimeout."""
        deadline = time.monotonic() + time_limit if deadline is None else deadline
        got = unigen_samples(state, self.chapter, n, max(0.05, deadline - time.monotonic()), cpu_limit=time_limit)
        return got or []

    def possible(
        self, state: Map, time_limit=None, cells=None, *, session: _Slot | None = None, proofs: Proofs | None = None
    ) -> dict[int, frozenset[Terrain]]:
        """For every unrevealed cell (or just ``cells``: indices or names like ``"A7"``; CellError off the board),
        the terrains it holds in at least one completion.

        ``proofs`` (with the ``session`` they were kept on: the deducer bot's) are completions and
        cores kept from earlier questions of that session (``mapgen.solving.proofs``): read first, and
        extended by what this question proves. The answer is the same with or without them.
        Raises NoCompletion when there is no completion at all, SolveTimeout past the budget.
        """
        self.check(state, "Solver.possible")
        if proofs is not None and session is None:
            raise QuestionError("proofs belong to one private session: pass it (session=, Solver.session)")
        budget = self.budget(time_limit)
        slot = session or self.slot(state.briefing)
        sat = slot.sat
        hidden = state.unrevealed() if cells is None else [i for i in map(state._cell, cells) if state.cells[i] is None]
        givens = self._givens(slot, state)
        if session is None and (c := self.circuit(state, 0.0)) is not None:
            total, tallies = c.tallies(state)
            if total == 0:
                raise self.explain(state)
            return {i: frozenset(tallies[i]) for i in hidden}
        if not hidden:
            if self.completion(state, budget, session=slot) is None:
                raise self.explain(state)
            return {}
        if proofs is not None:
            return self._possible_proved(slot, state, hidden, givens, budget, proofs)
        fast = session is None and not budget.deterministic
        if fast:
            # Wall-clock questions run on the fork with every rule fixed in force (faster, e.g. an
            # empty board); its completions are kept as the shared session's witnesses. The
            # deterministic path without proofs keeps the guarded session: same answers, same cost.
            ruled = slot.ruled
            ruled.witnesses = slot.sat.witnesses
            guards = set(ruled.cnf.guards.values())
            slot = _Slot(ruled, slot.chapter, slot.briefing)
            givens = [v for v in self._givens(slot, state) if v not in guards]
            sat = ruled
        seen: dict[int, set[Terrain]] = {i: set() for i in hidden}
        for w in self._witnesses(slot, state):
            for i in hidden:
                seen[i].add(w[i])
        # the (cell, terrain, literal) pairs still unseen; pairs unit propagation already excludes
        # need no round (asked only when the witnesses fall short)
        pending = [(i, t, v) for i in hidden for t, v in sat.x[i].items() if t not in seen[i]]
        if pending:
            ruled_out = sat.implied_false(givens)
            pending = [p for p in pending if p[2] not in ruled_out]
        # One round asks for a completion with any unseen pair. Once a round finds at most one new
        # pair, the wall-clock path asks pair by pair instead (the pair assumed, the others leaned
        # towards): the late pairs are few and hard, and a disjunction over them (mostly impossible
        # ones) costs the solver more than one question each (Fauna's empty boards: about half).
        per_pair = False
        while pending:
            if per_pair:
                _i, _t, v = pending.pop(0)
                sat.lean([v, *(p[2] for p in pending)])
                if not self._sat(slot, [*givens, v], budget):
                    continue  # (cell, terrain) in no completion
            elif not self._any_of(slot, givens, [v for _i, _t, v in pending], budget):
                break  # no completion holds any unseen pair
            w = self._found(slot)
            for i in hidden:
                seen[i].add(w[i])
            before = len(pending)
            pending = [p for p in pending if w[p[0]] is not p[1]]
            per_pair = per_pair or (fast and before - len(pending) <= 1)
        if not seen[hidden[0]]:
            raise self.explain(state)
        return {i: frozenset(ts) for i, ts in seen.items()}

    def _possible_proved(
        self, slot: _Slot, state: Map, hidden: list[int], givens: list[int], budget: Budget, proofs: Proofs
    ) -> dict[int, frozenset[Terrain]]:
        """``possible`` on kept proofs: pairs a stored completion shows or a stored core rules out are settled
        at once; each round then asks for a completion with any pair left, and when there is none, the solver's
        core (the revealed cells and rules it needed) is kept as the proof for all of them. (A core per cell
        is smaller, but the extra solves cost more than the later states it settles: fauna-7, 400 games.)"""
        sat = slot.sat
        have = frozenset(givens)
        seen, pending = proofs.sort(state, hidden, sat.x, have)
        while pending:
            lits = [v for _i, _t, v in pending]
            if not self._any_of(slot, givens, lits, budget):
                proofs.learn(lits, frozenset(sat.core()) & have)
                break
            w = sat.decode()
            proofs.add(w)
            for i in hidden:
                seen[i].add(w[i])
            pending = [p for p in pending if w[p[0]] is not p[1]]
        if not seen[hidden[0]]:
            raise self.explain(state)
        return {i: frozenset(ts) for i, ts in seen.items()}

    def forced(self, state: Map, time_limit=None, *, session: _Slot | None = None) -> dict[int, Terrain]:
        """Unrevealed cells with the same terrain in every completion (a shrinking-disjunction loop), as {cell
        index: Terrain}. NoCompletion when there is no completion, SolveTimeout past the budget."""
        self.check(state, "Solver.forced")
        budget = self.budget(time_limit)
        slot = session or self.slot(state.briefing)
        sat = slot.sat
        hidden = state.unrevealed()
        if session is None and (c := self.circuit(state, 0.0)) is not None:
            self._givens(slot, state)
            total, tallies = c.tallies(state)
            if total == 0:
                raise self.explain(state)
            return {i: next(iter(d)) for i, d in tallies.items() if len(d) == 1}
        known = self._witnesses(slot, state)
        if not known:
            first = self.completion(state, budget, session=slot)
            if first is None:
                raise self.explain(state)
            known = [first]
        cand = {i: known[0][i] for i in hidden}
        for w in known[1:]:
            cand = {i: t for i, t in cand.items() if w[i] is t}
        givens = self._givens(slot, state)
        while cand:
            lits = [-v for i, t in cand.items() if isinstance(v := sat.x[i][t], int) and not isinstance(v, bool)]
            if not lits:
                break
            if not self._any_of(slot, givens, lits, budget):  # no completion differs from a candidate
                break
            w = self._found(slot)
            cand = {i: t for i, t in cand.items() if w[i] is t}
        return cand

    def hill_numbers(
        self,
        state: Map,
        time_limit=None,
        *,
        forced: dict[int, Terrain] | None = None,
        possible: dict[int, frozenset[Terrain]] | None = None,
    ) -> HillAnswer:
        """The number of every unrevealed cell forced to be a Hill, where every completion gives it the same one
        (RULES.md C9: the chapter's counted terrain in its row and column); empty in a chapter without a counted
        terrain. ``forced`` (``Solver.forced``) and ``possible`` (``Solver.possible``), exact answers the caller
        has, save asking again; without either, the forced cells are asked here (within the same budget).

        A Hill whose row and column hold no cell that may or may not be of the counted terrain has its number at
        once. For the others, one completion gives each a candidate number, then a shrinking disjunction (as
        ``forced``) asks for a completion in which some candidate's row and column count otherwise: each found
        drops the Hills it numbers differently (``varying``), and none left proves the rest. The work is SAT
        propagations on a private session (``time_limit``'s seconds as deterministic ones, a Budget's too, with
        its wall-clock deadline), so what is proven is the same on any load and after any earlier question; the
        work running out leaves the Hills not settled ``unsettled`` (their numbers never guessed). The wall clock
        passing the deadline raises SolveTimeout, no completion NoCompletion."""
        self.check(state, "Solver.hill_numbers")
        if isinstance(time_limit, Budget):  # its seconds counted in propagations, its wall-clock deadline kept
            budget = Budget.until(time_limit.seconds, time_limit.deadline, deterministic=True)
        else:  # the wall clock only a safety net (``Budget.wall_factor``)
            budget = Budget(self.budget(time_limit).seconds, deterministic=True)
        counted, b = self.chapter.counted, state.board
        if counted is None or not any(state.cells[i] is None for i in range(b.size)):
            return HillAnswer({})
        if forced is None and possible is not None:
            forced = {i: next(iter(ts)) for i, ts in possible.items() if len(ts) == 1}
        elif forced is None:
            forced = self.forced(state, budget)
        numbers: dict[int, int] = {}
        lines: dict[int, tuple[tuple[int, ...], int, int]] = {}  # a Hill to settle: its line, the count's bounds
        for i in sorted(forced):
            if forced[i] is not Terrain.HILL or state.cells[i] is not None:
                continue
            line = hill_line(b, i)
            sure = maybe = 0
            for j in line:
                t = state.cells[j] if state.cells[j] is not None else forced.get(j)
                if t is not None:
                    sure += t is counted
                elif possible is None or counted in possible[j]:
                    maybe += 1
            if maybe:
                lines[i] = (line, sure, sure + maybe)
            else:
                numbers[i] = sure
        if not lines:
            return HillAnswer(numbers)
        slot = self.session(state.briefing)  # private: its work never depends on the questions asked before
        givens = self._givens(slot, state)
        sat = slot.sat
        varying: list[int] = []
        candidates: dict[int, int] = {}
        try:
            if not self._sat(slot, givens, budget):
                raise self.explain(state)
            w = sat.decode()
            candidates = {i: hill_number(b, w, i, counted) for i in lines}
            other: dict[int, list[int]] = {}  # per Hill: switches for a count below, above its candidate
            for i, (line, lo, hi) in lines.items():
                n = candidates[i]
                other[i] = [sat.count_switch(line, counted, 0, n - 1)] if n > lo else []
                other[i] += [sat.count_switch(line, counted, n + 1, None)] if n < hi else []
            while candidates:
                if not self._any_of(slot, givens, [v for i in candidates for v in other[i]], budget):
                    break  # no completion numbers any of them otherwise
                w = sat.decode()
                moved = [i for i, n in candidates.items() if hill_number(b, w, i, counted) != n]
                varying += moved
                for i in moved:
                    del candidates[i]
        except SolveTimeout:
            if time.monotonic() >= budget.deadline:
                raise  # the wall clock, not the counted work, ended it
            return HillAnswer(numbers, tuple(sorted(varying)), tuple(sorted(set(lines) - set(varying))))
        return HillAnswer(dict(sorted({**numbers, **candidates}.items())), tuple(sorted(varying)))

    def _any_of(self, slot: _Slot, givens: list[int], lits: list[int], budget) -> bool:
        """Is there a completion with at least one of ``lits`` true? The solver leans towards all of
        them at once (fewer rounds), through one switch retired after the call."""
        sat = slot.sat
        act = sat.switch(lits)
        sat.lean(lits)
        try:
            return self._sat(slot, [*givens, act], budget)
        finally:
            sat.retire(act)

    def is_unique(self, state: Map, time_limit=None) -> bool:
        """Whether the state has exactly one completion (NoCompletion if it has none).

        Two stored completions that differ settle it at once; otherwise one completion and one
        solve for another that differs from it somewhere.
        """
        self.check(state, "Solver.is_unique")
        budget = self.budget(time_limit)
        slot = self.slot(state.briefing)
        if (c := self.circuit(state, 0.0)) is not None:
            self._givens(slot, state)
            n = c.count(state)
            if n == 0:
                raise self.explain(state)
            return n == 1
        known = self._witnesses(slot, state)
        if len(set(known)) > 1:
            return False
        first = known[0] if known else self.completion(state, budget)
        if first is None:
            raise self.explain(state)
        return self.other_completion(state, first, budget) is None

    def count(
        self,
        state: Map,
        *,
        limit: int = 100_000,
        time_limit: float | Budget | None = None,
        exact_counter: bool = True,
        possible: dict[int, frozenset[Terrain]] | None = None,
        compile: bool = True,
        work: float | None = None,
        approximate: bool = True,
        seed: int = 0,
        wait_aside: bool = True,
    ) -> CountResult:
        """The number of completions, exact when it can be, else a labelled estimate.

        In turn, each within its share of the budget's nominal seconds (never of what is left, so the answer
        is the same under any load; the wall clock passing first raises SolveTimeout):

        - a compiled circuit (``circuit``) answers exactly with every cell's tallies (``method`` "d-dnnf"):
          a cached one always, else (when ``exact_counter`` and ``compile``) the state compiled from
          ``compile_from`` revealed cells within ``COMPILE_SHARE`` of the seconds in CPU seconds;
        - enumeration (CP-SAT, one worker) up to ``limit`` completions within ``work`` deterministic seconds
          (default ``ENUMERATION_WORK``);
        - the exact projected model counter (Ganak) within ``COUNTER_SHARE`` in CPU seconds (and half the
          compile's share when no compile was tried), from ``counter_from`` revealed cells, then sequential Monte Carlo (``smc``: ``SMC_SHARE`` of
          the seconds as particles and runs, seeded by ``seed``), then ApproxMC within ``APPROX_SHARE`` when the
          SMC gave no interval.

        Without an exact answer the result's ``estimate`` holds ``proven_low`` (completions enumerated:
        proven), ``proven_high`` (the product of every unrevealed cell's possible terrains: proven), and the
        estimate's ``method`` ("smc", else "approxmc", else "bounds"), ``value``, and ``low``/``high`` that hold
        with probability about ``confidence``.
        ``exact_counter=False`` skips both counters (enumeration up to ``limit`` only); ``approximate=False`` skips
        ApproxMC only (the odds ask so: an estimated count gives no odds); ``compile=False`` uses only circuits
        already compiled.

        Below ``COMPILE_FROM`` (where a compile that the budget reaches may take seconds, or not land) the compile
        runs beside the other counters (``compile_aside``): they work while it does, its circuit answers as soon
        as it lands, and a count without an exact answer waits for it before it returns an estimate
        (``wait_aside=False``: it does not; ``solve --probabilities`` waits after the sampler instead). Measured:
        ``mapgen solve fauna-4 --reveal A7,B7,C7`` (no compile within 3.4 CPU s) ran the compile, then Ganak, then
        the estimate one after another, 6.2 CPU s, and under load 2.5 ran out of its 10 s.
        """
        self.check(state, "Solver.count")
        _limit(limit)
        if exact_counter and approximate:
            ensure_kernels()  # the estimate's loops: compiled before the budget starts, on a fresh install
        budget = self.budget(time_limit)
        slot = self.slot(state.briefing)
        self._givens(slot, state)
        wall = exact_counter and compile and not budget.deterministic
        # the compile's share of the budget in CPU seconds: of the nominal seconds, not of what is left
        cpu = COMPILE_SHARE * budget.seconds if wall else 0.0
        aside = self.compile_aside(state, cpu, budget.deadline) if wall else None
        got = self.exact_tallies(state, 0.0 if aside is not None else cpu, deadline=budget.deadline)
        if got is not None:  # (exact_tallies: the seam tests and callers replace to say "no circuit")
            total, tallies = got
            if total == 0:
                raise self.explain(state)
            return CountResult(total, True, "d-dnnf", tallies)
        result = self._count_rest(state, slot, budget, limit, exact_counter, possible, wall, work, approximate, seed)
        if aside is not None and result.tallies is not None and result.method != "d-dnnf":
            aside.cancel()  # every answer the circuit would give is here (the completions enumerated)
        if aside is not None and wait_aside and not result.exact:
            landed = aside.wait(budget.deadline)
            if landed is not None:
                return self._circuit_count(landed, state)
        return result

    def counter_reaches(self, state: Map) -> bool:
        """Whether the exact model counter (Ganak) is asked about ``state``: from ``counter_from`` revealed cells
        (below, it was measured never to land within its share). A rule of the state, never of the clock."""
        return _revealed(state) >= counter_from(self.chapter)

    def _circuit_count(self, circuit: Circuit, state: Map) -> CountResult:
        total, tallies = circuit.tallies(state)
        if total == 0:
            raise self.explain(state)
        return CountResult(total, True, "d-dnnf", tallies)

    def _count_rest(
        self, state: Map, slot, budget: Budget, limit: int, exact_counter: bool, possible, wall: bool, work, approximate,
        seed: int,
    ) -> CountResult:  # fmt: skip
        """``count`` past the circuits: enumeration, Ganak, then the estimates."""
        deadline = budget.deadline
        cap = min(limit, ENUMERATION_CAP) if exact_counter else limit
        enumerate_it = functools.partial(
            self._enumerate,
            slot,
            state,
            cap,
            time.monotonic() + max(0.05, budget.left()),
            allow_partial=True,
            work=ENUMERATION_WORK if work is None else work,
        )
        early: _Beside | None = None  # the estimate made while the completions were enumerated
        if exact_counter and approximate and possible is not None and not self.counter_reaches(state):
            # no exact counter between the two: the estimate on this thread, the enumeration (CP-SAT, which lets go
            # of the GIL) beside it; the estimate is used as it would be after, or dropped when the count is exact
            tally, early = self._enumerate_beside(
                enumerate_it, state, possible, SMC_SHARE * budget.seconds, deadline, seed
            )
        else:
            tally = enumerate_it()
        if tally.timed_out:  # the wall clock ran out before the deterministic work did
            raise SolveTimeout(f"the time limit ran out while completions were enumerated ({tally.count} found)")
        if tally.count == 0 and (not tally.partial or self.completion(state, max(0.05, budget.left())) is None):
            raise self.explain(state)
        if tally.count < cap and not tally.partial:
            return CountResult(tally.count, True, "enumeration", self._tallies(tally, state))
        low = max(1, tally.count)  # completions enumerated (the same on any machine), or the one just found
        aside = self._asides.get(_compiled.circuit_key(self.chapter, state)) if self._asides else None
        if aside is not None and aside.done() and aside.circuit is not None:  # compiled beside: no estimate needed
            return self._circuit_count(aside.circuit, state)
        if exact_counter and self.counter_reaches(state):
            # Ganak gets half the compile's share too when no compile was tried (a rule of the state)
            tried = wall and (
                _revealed(state) >= compile_from(self.chapter, COMPILE_SHARE * budget.seconds)
                or _compiled.circuit_key(self.chapter, state) in self._asides
            )
            share = COUNTER_SHARE + (0 if tried else COMPILE_SHARE / 2)
            exact = self.model_count(state, share * budget.seconds, deadline)
            if exact is not None:
                return CountResult(exact, True, "model counter")
        if possible is None:
            possible = self.possible(state, max(0.05, deadline - time.monotonic()))
        hidden = state.unrevealed()
        if possible is not None:
            high = math.prod(len(possible[i]) for i in hidden)
        else:
            high = math.prod(sum(slot.sat.lit(i, t) is not None for t in slot.sat.x[i]) for i in hidden)
        value, method = low, "bounds"
        estimate: dict[str, object] = {
            "method": method,
            "value": value,
            "low": low,
            "high": high,
            "confidence": 1.0,
            "proven_low": low,
            "proven_high": high,
            "note": "proven bounds: at least the completions enumerated, at most the product of every "
            "unrevealed cell's possible terrains",
        }
        if aside is not None and aside.done() and aside.circuit is not None:
            return self._circuit_count(aside.circuit, state)
        if exact_counter and approximate and low < high:
            if early is not None:
                got_smc = early.result()
            else:
                got_smc = self._smc_count(state, possible, SMC_SHARE * budget.seconds, deadline, seed)
            if got_smc is not None:
                e = got_smc.as_json()
                # the proven bounds hold always: the interval never reaches past them
                e["low"] = min(max(low, e["low"]), high)
                e["high"] = max(min(high, e["high"]), e["low"])
                e["value"] = min(max(e["value"], e["low"]), e["high"])
                note = (
                    f"{e['note']}; proven_low (completions enumerated) and proven_high (product of every "
                    "unrevealed cell's possible terrains) always hold"
                )
                estimate = {**e, "proven_low": low, "proven_high": high, "note": note}
                return CountResult(e["value"], False, "smc", estimate=estimate)
        if exact_counter and approximate and low < high:
            approx = self._approx_count(state, APPROX_SHARE * budget.seconds, deadline)
            if approx is not None:
                lo = max(low, math.ceil(approx / (1 + EPSILON)))
                hi = min(high, math.floor(approx * (1 + EPSILON)))
                value, method = min(max(approx, lo), hi), "approxmc"
                estimate = {
                    "method": method,
                    "value": value,
                    "low": lo,
                    "high": hi,
                    "confidence": 1 - DELTA,
                    "proven_low": low,
                    "proven_high": high,
                    "epsilon": EPSILON,
                    "delta": DELTA,
                    "note": f"low and high hold with probability at least {1 - DELTA:g} (ApproxMC, epsilon "
                    f"{EPSILON:g}, delta {DELTA:g}); proven_low (completions enumerated) and proven_high (product "
                    "of every unrevealed cell's possible terrains) always hold",
                }
        return CountResult(value, False, method, estimate=estimate)

    def probabilities(
        self,
        state: Map,
        *,
        limit: int = 100_000,
        time_limit: float | Budget | None = None,
        counted: CountResult | None = None,
    ) -> tuple[dict[int, dict[Terrain, float]], bool]:
        """``odds`` as (shares, whether they are exact); see there."""
        self.check(state, "Solver.probabilities")
        shares, method = self.odds(state, limit=limit, time_limit=time_limit, counted=counted)
        return shares, method == ODDS_EXACT

    def odds(
        self,
        state: Map,
        *,
        limit: int = 100_000,
        time_limit: float | Budget | None = None,
        counted: CountResult | None = None,
        possible: dict[int, frozenset[Terrain]] | None = None,
    ) -> tuple[dict[int, dict[Terrain, float]], str]:
        """``odds_answer``'s shares and how they were had (``ODDS_*``)."""
        self.check(state, "Solver.odds")
        got = self.odds_answer(state, limit=limit, time_limit=time_limit, counted=counted, possible=possible)
        return got.shares, got.method

    def odds_answer(
        self,
        state: Map,
        *,
        limit: int = 100_000,
        time_limit: float | Budget | None = None,
        counted: CountResult | None = None,
        possible: dict[int, frozenset[Terrain]] | None = None,
        method: str = ODDS_AUTO,
        seed: int = 0,
        sample_seconds: float | None = None,
    ) -> OddsAnswer:
        """Per unrevealed cell, the share of completions holding each terrain, and how it was had.

        ``ODDS_EXACT``: by enumeration when the count is small, from a compiled circuit, or by counting the
        completions with each (cell, terrain) fixed (``counted``: the state's count, when already known). A compile
        that the budget's ``COMPILE_SHARE`` reaches runs beside the count and the sampler (``compile_aside``): where
        it lands within its CPU seconds its exact odds are the answer.
        ``ODDS_SAMPLER``: where no exact answer comes within the budget, shares over the draws of the block
        heat-bath sampler (``mapgen.solving.sampler``), each with its standard error, and the chains' R-hat.
        ``method`` forces a route: ``ODDS_SAMPLER`` (the sampler even where exact odds exist, to check it
        against them) or ``ODDS_UNIGEN`` (UniGen's almost-uniform samples: slow on these CNFs). ``ODDS_NONE``
        when no route answered: then only the cells whose terrain is known (one possible terrain) have a
        share, 1.0. ``sample_seconds`` sizes the sampler's work (``sampler.Budget.for_seconds``: sweeps, never
        the clock); by default ``SAMPLE_SECONDS`` times the budget's nominal seconds (a time limit given as a
        number is its own budget's nominal seconds: the same work as ``solve`` at that ``--time-limit``).
        """
        self.check(state, "Solver.odds_answer")
        _limit(limit)
        _sampler_seed(seed)
        if sample_seconds is not None:
            _work_seconds(sample_seconds, "sample_seconds")
        if method not in ODDS_METHODS:
            raise QuestionError(f"unknown odds method {method!r} (one of {', '.join(ODDS_METHODS)})")
        if method != ODDS_NONE:
            ensure_kernels()  # a fresh install's first question: the loops compiled before its budget starts
        budget = self.budget(time_limit)
        deadline = budget.deadline
        hidden = state.unrevealed()
        aside = None  # the compile share of the whole question, beside the count and the sampler (or solve's, running)
        if method == ODDS_AUTO and not budget.deterministic:
            aside = self.compile_aside(state, COMPILE_SHARE * budget.seconds, deadline)
        if method == ODDS_AUTO:
            got = self._exact_odds(state, limit, budget, counted, possible)
            if got is not None:
                return OddsAnswer(got, ODDS_EXACT)
        if possible is None or any(i not in possible for i in hidden):
            possible = self.possible(state, max(0.1, deadline - time.monotonic()))
        if method == ODDS_UNIGEN:
            # asked for by name: UniGen has the odds' whole budget (nothing else runs beside it)
            found = self.fair_samples(state, ODDS_SAMPLES, max(0.2, budget.seconds), deadline=deadline)
            if found:
                tallies: dict[int, dict[Terrain, int]] = {i: {} for i in hidden}
                for w in found:
                    for i in hidden:
                        tallies[i][w[i]] = tallies[i].get(w[i], 0) + 1
                return OddsAnswer(self._shares(tallies, len(found)), ODDS_UNIGEN)
        else:
            if aside is not None and aside.done() and aside.circuit is not None:  # landed already: no sampler
                return OddsAnswer(self._circuit_shares(aside.circuit, state), ODDS_EXACT)
            sampled = self.sampled_odds(
                state, seconds=SAMPLE_SECONDS * budget.seconds if sample_seconds is None else sample_seconds, seed=seed,
                possible=possible, deadline=deadline,
            )  # fmt: skip
            if aside is not None:  # exact where it lands within its CPU budget, whatever the sampler found
                landed = aside.wait(deadline)
                if landed is not None:
                    return OddsAnswer(self._circuit_shares(landed, state), ODDS_EXACT)
            if sampled is not None:
                return OddsAnswer(sampled.shares, ODDS_SAMPLER, sampled.errors, sampled)
        return OddsAnswer({i: {next(iter(ts)): 1.0} for i, ts in possible.items() if len(ts) == 1}, ODDS_NONE)

    def _circuit_shares(self, circuit: Circuit, state: Map) -> dict[int, dict[Terrain, float]]:
        counted = self._circuit_count(circuit, state)
        return self._shares(counted.tallies or {}, counted.count)

    def _exact_odds(
        self, state: Map, limit: int, budget: Budget, counted: CountResult | None, possible
    ) -> dict[int, dict[Terrain, float]] | None:
        """Exact shares within the budget, or None."""
        deadline = budget.deadline
        # an aside compile is waited for after the sampler (odds_answer), not here
        result = counted or self.count(
            state, limit=limit, time_limit=budget.part(0.5), approximate=False, wait_aside=False
        )
        hidden = state.unrevealed()
        if result.tallies is not None:
            return self._shares(result.tallies, result.count)
        cpu = 0.0 if budget.deterministic else budget.seconds  # CPU seconds: the compiler, Ganak
        got = self.exact_tallies(state, 0.2 * cpu, deadline=deadline)
        if got is not None and got[0]:
            return self._shares(got[1], got[0])
        if result.exact:
            if possible is None or any(i not in possible for i in hidden):
                possible = self.possible(state, max(0.1, deadline - time.monotonic()))
            pairs = [(i, t) for i in hidden if len(possible[i]) > 1 for t in possible[i]]
            tallies: dict[int, dict[Terrain, int]] = {i: {} for i in hidden}
            for i in hidden:
                if len(possible[i]) == 1:
                    tallies[i][next(iter(possible[i]))] = result.count
            for i, t in pairs:  # each (cell, terrain) counted by Ganak within an equal share of the CPU budget
                sub = state.with_cells(t if k == i else c for k, c in enumerate(state.cells))
                n = self.model_count(sub, 0.3 * cpu / len(pairs), deadline)
                if n is None:
                    return None
                tallies[i][t] = n
            return self._shares(tallies, result.count)
        return None

    def small_count(
        self, state: Map, possible: dict[int, frozenset[Terrain]] | None = None, nodes: int = SMALL_COUNT_NODES
    ) -> int | None:
        """The exact count of a state with few completions, from the sampler's compiled depth-first enumeration
        (``sampler.count_small``: every rule checked as soon as its cells are set), or None when it would visit
        more than ``nodes`` search nodes or the sampler cannot read one of the chapter's rules. The node cap is
        deterministic work: the same answer under any load (tens of milliseconds at the default)."""
        from mapgen.solving import sampler  # deferred: numba's kernels, loaded only where they are used

        try:
            prog = sampler.compile_program(self.chapter, state, possible)
        except sampler.SamplerError:
            return None
        n = sampler.count_small(prog, cap=nodes)
        return None if n < 0 else n

    def sampled_odds(
        self,
        state: Map,
        *,
        seconds: float,
        seed: int = 0,
        possible: dict[int, frozenset[Terrain]] | None = None,
        deadline: float | None = None,
        work: sampler.Budget | None = None,
    ):
        """The block heat-bath sampler's odds for ``state`` (``mapgen.solving.sampler.Odds``), its work sized by
        ``seconds`` (a number, never the clock) or given whole (``work``: a ``sampler.Budget``); None when the state
        has no completion to start from. Chains start from ``chain_starts``: the same seed gives the same answer.
        QuestionError for a seed that is no whole number from 0 or seconds that are no number from 0."""
        _sampler_seed(seed)
        _work_seconds(seconds, "seconds")
        if deadline is not None and time.monotonic() >= deadline:
            # before the imports, the session's fork and numba's loops (seconds on a busy machine): a time limit
            # that has run out ends the question here, not 6 to 15 s later (measured at load 10)
            raise SolveTimeout("the time limit ran out before the sampler started")
        from mapgen.solving import sampler  # deferred: numba's kernels, loaded only where odds are sampled

        work = work or _sample_work(state, seconds)
        ahead = self._ahead  # solve's, fed by the count's runs (``chains_ahead``)
        own = None  # else one of this question's own, fed by the chain starts' runs as they end
        if ahead is None:
            try:
                prog = sampler.compile_program(self.chapter, state, possible)
            except sampler.SamplerError:
                pass
            else:
                own = ahead = self._new_ahead(prog, work, seed, deadline)
        try:
            starts = self.chain_starts(
                state, work.chains, seed=seed, possible=possible, deadline=deadline, particles=work.start_particles,
                ahead=ahead,
            )  # fmt: skip
            if not starts:
                return None
            if deadline is not None and time.monotonic() >= deadline:
                raise SolveTimeout("the time limit ran out before the sampler started")
            return sampler.sample_odds(
                self.chapter, state, starts, budget=work, seed=seed, possible=possible, deadline=deadline, ahead=ahead
            )
        except sampler.SamplerTimeout as e:
            raise SolveTimeout(str(e)) from None
        finally:
            if own is not None:
                own.close()

    def chain_starts(
        self,
        state: Map,
        n: int,
        *,
        seed: int = 0,
        possible: dict[int, frozenset[Terrain]] | None = None,
        deadline: float | None = None,
        particles: int | None = None,
        ahead: sampler.ChainsAhead | None = None,
    ) -> sampler.Starts:
        """Completions for the sampler's ``n`` chains to start from: near-uniform ones drawn by sequential Monte
        Carlo, ``n / sampler.RUNS`` from each of SAT-checked runs of ``particles`` (default
        ``sampler.START_PARTICLES``; ``smc.draws``: a chain started from the uniform law stays in it, so its draws
        are fair where it cannot mix), used in turn when at least half of ``n`` came; else topped up with a private
        SAT session's completions under random preferences (diverse, not uniform). Seeded, counted in work. The runs
        are the count estimate's (``smc.estimate``, the same keys and check) where both ask for the same particles,
        as at ``solve``'s default: kept (``smc.Runs``), not run again. The chains still burn in as from any start:
        with 5 sweeps in place of 30 they came out worse on 5 of 6 of the odds bench's states (vameter-2@24 max
        error 0.057 -> 0.183): the draws are near-uniform, not uniform. The starts' ``groups`` say which came from
        the same run (a SAT completion is a group of its own): their chains are not independent
        (``sampler.odds_of``)."""
        from mapgen.solving import sampler, smc  # deferred: numba's kernels, loaded only where odds are sampled

        got = sampler.Starts()
        runs_of: list[int] = []
        try:
            prog = sampler.compile_program(self.chapter, state, possible)
        except sampler.SamplerError:
            pass
        else:
            # SAT-checked runs (``smc.sat_check``, the count's): unchecked ones die on early Fauna and Maldonado
            # (the Forts' patterns, the counts: all 8 runs of 80 particles on maldonado-1's and fauna-1's empty
            # boards, vameter-1 with 5 revealed, maldonado-1 with 3), and the biased SAT starts that took over made
            # the worst odds (``sampler.START_PARTICLES``: measured there)
            check = self._smc_check(state, prog)
            if deadline is not None and time.monotonic() >= deadline:  # the fork above may take seconds under load
                raise SolveTimeout("the time limit ran out before the sampler started")
            drawn = smc.draws(
                prog,
                n,
                seed=seed,
                particles=particles or sampler.START_PARTICLES,
                deadline=deadline,
                check=check,
                per_run=math.ceil(n / sampler.RUNS),
                runs=self._runs_of(state, prog) if check is not None else None,
                runs_of=runs_of,
                ahead=ahead,
            )
            got += [tuple(prog.terrains[k] for k in x.tolist()) for x in drawn]
            got.groups += runs_of
        if 2 * len(got) >= n:
            return got
        # counted in work (SAT propagations), never in the seconds left: a busy machine drew fewer starts in silence
        # (used in turn, other odds for the same seed); the wall clock passing first raises SolveTimeout
        wall = time.monotonic() + TOP_UP_WORK if deadline is None else deadline
        work = Budget.until(TOP_UP_WORK, wall, deterministic=True)
        more = self.sample(state, n - len(got), work, seed=seed, session=self.session(state.briefing))
        first = max(got.groups, default=-1) + 1
        got += more
        got.groups += range(first, first + len(more))
        return got

    def heat(self, state: Map, terrain: Terrain | str, time_limit=None) -> tuple[dict[int, float | None], str]:
        """Per unrevealed cell, the chance it holds ``terrain`` (a Terrain or its code, ``"Ft"``: a picture's
        shading), and how it was had (``odds``); with no fair odds in time (``ODDS_NONE``, or the wall clock running
        out while they were sought) 0.0 where it cannot be, 1.0 where it must, None where it may: the exact part is
        never lost. ``heat_answer`` adds the sampler's bounds where its share is 0 but the terrain may be there."""
        got = self.heat_answer(state, terrain, time_limit=time_limit)
        return got.heat, got.method

    def heat_answer(self, state: Map, terrain: Terrain | str, time_limit=None) -> HeatAnswer:
        """``heat`` and, per cell where the sampler's share is 0 but the cell can hold ``terrain`` (no chain met it
        there, ``sampler.Odds.add_unseen``), the 95% upper bound on its chance: what ``solve`` prints as ``Ft up to
        31%``, so a picture says ``≤31%`` there, never a bare 0%; where the sampler answered, each other share's 95%
        half-width (``solve``'s ``Sk 12% ±14``) and whether its chains agreed (``sampler.Odds.converged``)."""
        self.check(state, "Solver.heat")
        terrain = self.terrain(terrain)  # a code was compared with Terrain keys: 0.0 everywhere, "exact"
        budget = self.budget(time_limit)
        possible = self.possible(state, budget)
        sampled = None
        try:
            got = self.odds_answer(state, time_limit=budget, possible=possible)
            shares, method, errors, sampled = got.shares, got.method, got.errors or {}, got.sampled
        except SolveTimeout:
            shares, method, errors = {}, ODDS_NONE, {}
        if method == ODDS_NONE:
            return HeatAnswer({i: known_chance(ts, terrain) for i, ts in sorted(possible.items())}, method)
        heat: dict[int, float | None] = {i: float(shares.get(i, {}).get(terrain, 0.0)) for i in state.unrevealed()}
        bounds: dict[int, float] = {}  # a share of 0 where the cell may hold it: its upper bound ("≤31%")
        spread: dict[int, float] = {}  # any other estimate: its half-width ("±14")
        for i, p in heat.items():
            if terrain not in errors.get(i, {}):
                continue
            e = min(1.0, Z95 * float(errors[i][terrain]))
            if p == 0.0 and terrain in possible.get(i, ()):
                bounds[i] = e
            elif p is not None and 0.0 < p < 1.0:
                spread[i] = e
        converged = None if sampled is None else bool(sampled.converged)
        return HeatAnswer(heat, method, bounds, spread, converged)

    def target(self, state: Map, terrain: Terrain | str, time_limit=None, possible=None) -> dict:
        """Whether the cells of ``terrain`` (a Terrain or its code) are the same in every completion, and if so
        where."""
        self.check(state, "Solver.target")
        terrain = self.terrain(terrain)
        possible = possible if possible is not None else self.possible(state, time_limit)
        b = state.board
        revealed = [i for i, t in enumerate(state.cells) if t is terrain]
        sure = [i for i, ts in possible.items() if ts == {terrain}]
        maybe = [i for i, ts in possible.items() if terrain in ts and len(ts) > 1]
        cells = sorted(revealed + sure)
        return {
            "terrain": terrain.code,
            "deduced": not maybe,
            "cells": [b.name(i) for i in cells] if not maybe else None,
            "known": [b.name(i) for i in cells],
            "undecided": [b.name(i) for i in sorted(maybe)],
        }

    # -- internals ---------------------------------------------------------------------------
    @staticmethod
    def _cell_vars(cm: ChapterModel, model: cp_model.CpModel, cells) -> dict[int, cp_model.IntVar]:
        """Per cell, an integer holding its terrain's index: one read per cell in the callback."""
        out = {}
        for i in cells:
            v = model.new_int_var(0, len(Terrain) - 1, f"terrain_{cm.board.name(i)}")
            model.add(v == sum(t.index * lit for t, lit in cm.x[i].items()))
            out[i] = v
        return out

    def _enumerate(
        self,
        slot: _Slot,
        state: Map,
        limit: int,
        deadline: float,
        allow_partial=False,
        work: float | None = None,
        keep: int = 64,
    ) -> _Tally:
        """Completions of ``state`` up to ``limit``, within the wall-clock ``deadline`` (``timed_out``) and,
        when given, ``work`` deterministic seconds of CP-SAT (``partial``: stopped by the work, not the clock); the
        first ``keep`` of them kept in the tally's ``samples``."""
        cm = slot.cm
        lits = cm.given_literals(state)
        if lits is None:
            raise self.explain(state)
        model = cm.model.clone()
        model.add_bool_and(lits)
        cell_vars = self._cell_vars(cm, model, state.unrevealed())
        left = deadline - time.monotonic()
        tally = _Tally(cell_vars, state.unrevealed(), limit, deadline, keep)
        if left <= 0:
            if not allow_partial:
                raise SolveTimeout("the time limit ran out")
            tally.timed_out = True
            return tally
        from constraints.cpsat import make_solver  # deferred: ortools, only to enumerate

        solver = make_solver(left)  # measured: presolve on and no LP relaxation enumerate 8x faster
        solver.parameters.enumerate_all_solutions = True
        solver.parameters.linearization_level = 0
        if work is not None:
            solver.parameters.max_deterministic_time = work
        name = solver.status_name(solver.solve(model, _callback_class()(tally)))
        stopped = name == "UNKNOWN" or (name == "FEASIBLE" and tally.count < limit)
        # which limit stopped it: the deterministic work (the same on any machine), else the wall clock
        tally.partial = stopped and work is not None and solver.response_proto.deterministic_time >= 0.98 * work
        tally.timed_out = stopped and not tally.partial
        if tally.timed_out and not allow_partial:
            raise SolveTimeout(f"enumeration stopped by the time limit after {tally.count} completions")
        return tally

    def model_count(self, state: Map, cpu: float, deadline: float) -> int | None:
        """The exact count by Ganak on this solver's own chapter (a house chapter counts its own rules) within
        ``cpu`` CPU seconds (None past them, or when the counter fails); SolveTimeout past the ``deadline``."""
        left = deadline - time.monotonic()
        if cpu <= 0.05:
            return None
        if left <= 0.05:
            raise SolveTimeout("the time limit ran out before the exact count")
        try:
            return count_completions_cnf(state, time_limit=left, chapter=self.chapter, cpu_limit=cpu)
        except CountTimeout:
            raise SolveTimeout("the time limit ran out during the exact count") from None
        except (CountError, OSError, EOFError):  # its CPU budget spent, or the counter failed
            return None

    def _enumerate_beside(self, enumerate_it, state: Map, possible, seconds: float, deadline: float, seed: int):
        """``enumerate_it()`` (the count's enumeration, CP-SAT) on a thread of its own while the sequential Monte
        Carlo estimate (``_smc_count``) runs on this one: (the tally, a ``_Beside`` holding the estimate or the
        SolveTimeout it raised). The estimate stops between its runs once the enumeration has found every
        completion (the count is exact: the estimate is not needed). Both are counted in work, so each is what it
        would be alone: the enumeration's wall clock hides behind the estimate's. Measured on the empty maldonado-1
        board: the enumeration 0.77 s and the estimate 3.00 s one after the other, 0.73 and 3.01 side by side (3.01
        in all), the same tally and estimate."""

        def exact() -> bool:
            if not beside.done() or beside.exception() is not None:
                return False
            t = beside.result()
            return t.count < t.limit and not t.partial and not t.timed_out

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="enumerate") as pool:
            beside = pool.submit(enumerate_it)
            got = _Beside()
            try:
                got.value = self._smc_count(state, possible, seconds, deadline, seed, stop=exact)
            except SolveTimeout as e:
                got.error = e
            return beside.result(), got  # the enumeration's own error, if any, raised here as it would be alone

    def _smc_count(self, state: Map, possible, seconds: float, deadline: float, seed: int, stop=None):
        """The sequential Monte Carlo estimate (``smc.SmcEstimate``) with the work ``seconds`` buy, or None
        (no interval: a run whose particles all died (``smc.interval``), or a rule the kernels cannot read);
        SolveTimeout when the wall clock ends it before every run is done (an interval over fewer runs would be
        another answer than an idle machine's)."""
        if seconds <= 0.1:
            return None
        if deadline - time.monotonic() <= 0.1:
            raise SolveTimeout("the time limit ran out before the count was estimated")
        from mapgen.solving import sampler, smc  # deferred: numba's kernels, loaded only where counts are estimated

        try:
            prog = sampler.compile_program(self.chapter, state, possible)
            check = self._smc_check(state, prog)
            runs = self._runs_of(state, prog) if check is not None else None
            budget = smc.SmcBudget.for_seconds(seconds)
            ahead = self._chains_ahead(state, prog, seed) if runs is not None else None
            got = smc.estimate(
                prog, budget=budget, seed=seed, deadline=deadline, check=check, runs=runs, ahead=ahead, stop=stop
            )
            # A run that died gives no interval, and more particles are other runs, not more of the same: fauna-1's
            # empty board held its exact count in the 4 runs of 100 particles of --time-limit 10, and lost a run of
            # 156 at --time-limit 20 (proven bounds only). So a larger budget falls back to the smaller budgets'
            # work, halving its seconds down to the floor every shorter limit runs: a longer limit never gives less.
            while got is None and budget.particles > smc.SmcBudget.for_seconds(0).particles and not (stop and stop()):
                seconds /= 2
                budget = smc.SmcBudget.for_seconds(seconds)
                got = smc.estimate(prog, budget=budget, seed=seed, deadline=deadline, check=check, runs=runs, stop=stop)
        except sampler.SamplerError:
            return None
        except smc.SmcTimeout as e:
            raise SolveTimeout(str(e)) from None
        if got is not None and got.cut:
            # fewer runs than the work asks for: another interval than an idle machine's, so no answer (the count
            # is missing, exit 3), never one that depends on the load (measured: tests/test_load.py, 2 of 4 runs)
            raise SolveTimeout(
                f"the time limit ran out while the count was estimated ({got.runs_done} of {got.budget.runs} runs)"
            )
        return got

    @contextlib.contextmanager
    def chains_ahead(self, state: Map, seconds: float, *, seed: int = 0, deadline: float | None = None):
        """Within this block the sampler's chains for ``state`` (``sampled_odds`` with ``seconds`` of work and
        ``seed``) start beside the count estimate, on the other core, as soon as the estimate's runs give their
        starts (``sampler.ChainsAhead``); ``sampled_odds`` then takes them. The answers are the same as without it
        (a chain's draws depend on its start, index, seed and budget alone), only sooner. Measured on the empty
        maldonado-1 board at ``solve``'s defaults, medians of 6 runs taken in turn with and without on an idle 2-core
        machine: 7.29 -> 6.55 s wall; flora-1, vameter-1, fauna-1 empty 5.86 -> 5.53, 4.97 -> 4.71, 5.16 -> 4.92
        (4 runs each), maldonado-1 with 3 revealed 6.39 -> 5.78; flora-1 with 8 revealed 5.73 -> 5.59. Yields the
        tally of chains started and taken (``sampler.AheadTally``); the chains still running are stopped when the
        block ends."""
        from mapgen.solving import sampler  # deferred: numba's kernels

        tally = sampler.AheadTally()
        self._ahead_for = (state, seconds, seed, deadline, tally)
        try:
            yield tally
        finally:
            self._ahead_for = None
            if self._ahead is not None:
                self._ahead.close()
                self._ahead = None

    def _chains_ahead(self, state: Map, prog, seed: int):
        """The chains run ahead for ``state``'s odds from the count's runs of ``prog`` (``chains_ahead``), or None."""
        want = self._ahead_for
        if want is None or want[0] != state or want[2] != seed:
            return None
        if self._ahead is None:
            self._ahead = self._new_ahead(prog, _sample_work(state, want[1]), seed, want[3], want[4])
        return self._ahead

    @staticmethod
    def _new_ahead(prog, work, seed: int, deadline: float | None, tally=None):
        """Chains run ahead for ``prog``'s odds at the sampler's ``work`` (``sampler.ChainsAhead``)."""
        from mapgen.solving import sampler, smc  # deferred: numba's kernels

        return sampler.ChainsAhead(
            prog, chains=work.chains, per_run=math.ceil(work.chains / sampler.RUNS), particles=work.start_particles,
            step=smc.STEP, sweeps=work.sweeps, burn=work.burn_in, seed=seed, deadline=deadline, tally=tally,
        )  # fmt: skip

    def _runs_of(self, state: Map, prog):
        """The finished SMC runs kept for ``state``'s program ``prog`` (``smc.Runs``, checked runs), new for another
        state or another program of it (cells' terrains narrowed by another ``possible``: the same completions, other
        runs), so that a question's answer never depends on the questions asked before it."""
        from mapgen.solving import smc  # deferred: numba's kernels

        key = (state, prog.dom.tobytes())
        if self._runs is None or self._runs[0] != key:
            self._runs = (key, smc.Runs())
        return self._runs[1]

    def _smc_check(self, state: Map, prog):
        """The SAT check between an SMC run's segments (``smc.sat_check``) on a fork of the state's session of its
        own (its answers depend on no other question), or None where ``smc.CHECK`` is off."""
        from mapgen.solving import smc  # deferred: numba's kernels, loaded only where counts are estimated

        if not smc.CHECK:
            return None
        return smc.sat_check(self.session(state.briefing, ruled=True).sat, state, prog)

    def _approx_count(self, state: Map, cpu: float, deadline: float) -> int | None:
        """ApproxMC's (EPSILON, DELTA) estimate on this solver's chapter within ``cpu`` CPU seconds (None past
        them, or when it fails); SolveTimeout past the ``deadline``."""
        left = deadline - time.monotonic()
        if cpu <= 0.1:
            return None
        if left <= 0.1:
            raise SolveTimeout("the time limit ran out before the estimate")
        try:
            return approx_count_cnf(
                cnf_for_state(state, self.chapter), left, epsilon=EPSILON, delta=DELTA, cpu_limit=cpu
            )
        except CountTimeout:
            raise SolveTimeout("the time limit ran out during the estimate") from None
        except (CountError, OSError, EOFError, ImportError):
            return None

    @staticmethod
    def _tallies(tally: _Tally, state: Map) -> dict[int, dict[Terrain, int]]:
        by_index = list(Terrain)
        return {i: {by_index[v]: n for v, n in d.items()} for i, d in tally.tally.items()}

    @staticmethod
    def _shares(tallies: dict[int, dict[Terrain, int]], total: int) -> dict[int, dict[Terrain, float]]:
        # most likely first; ties in the terrains' order (the same however the counts were made)
        order = {i: sorted(d.items(), key=lambda kv: (-kv[1], kv[0].index)) for i, d in tallies.items()}
        return {i: {t: n / total for t, n in items} for i, items in order.items()}

    def partial_conflict(self, state: Map, time_limit: float) -> NoCompletion | None:
        """The conflict (``NoCompletion``) of a partial map no map completes, else None: one SAT call (what
        ``forced`` asks first), then, only when there is no completion, the rules and cells that conflict
        (``explain``). A check that ran out of time is no answer: None. For pictures of a hand-made puzzle
        (``mapgen render``, ``/api/render``), drawn all the same with a note."""
        try:
            if self.completion(state, time_limit=time_limit) is not None:
                return None
            return self.explain(state, time_limit)
        except SolveTimeout:
            return None

    def explain(self, state: Map, time_limit: float | None = None) -> NoCompletion:
        """A subset-minimal set of rules and revealed cells that admit no completion together.

        The search is counted work, ``time_limit`` (default the solver's, at least 5 s) as deterministic seconds
        (SAT propagations): the same reason on any load. The wall clock, ``Budget``'s safety net of 200 times that,
        may end it first only on a machine that stalls; the answer then says so."""
        self.check(state, "Solver.explain")
        b = state.board
        slot = self.slot(state.briefing)
        try:
            self._givens(slot, state)
        except NoCompletion as e:
            return e
        seconds = self.budget(max(5.0, self.time_limit) if time_limit is None else time_limit).seconds
        work = Budget(seconds, deterministic=True)
        try:
            reason = minimal_reason(self, state, None, work)
        except SolveTimeout:
            if time.monotonic() < work.deadline:  # the counted work ran out: the same on any machine
                return NoCompletion("no completion found (its reason was not found within the search's work)")
            return NoCompletion("no completion found (the time limit ran out while looking for its reason)")
        if reason is None:  # every rule and revealed cell together admit a completion: not a conflict of them
            return NoCompletion("no completion found (no conflicting set of rules and cells could be named)")
        rule_ids, cells = reason
        if not rule_ids and not cells:  # nothing but the briefing: two of its cells clash (Flora's start on the Peak)
            rule_ids = _briefing_clash(self.chapter, state)
        briefed = self._briefing_conflicts(state, cells)
        if briefed:  # a revealed Peak (or Flora's start) that is not the briefing's terrain: the briefing's rule
            rule_ids = tuple(dict.fromkeys([*rule_ids, *(r.id for r, _ in briefed)]))
        # a reason names revealed cells only
        shown = ", ".join(
            f"{b.name(i)} ({t.code}{state.hills.get(i, '')})" for i in cells if (t := state.cells[i]) is not None
        )
        cells = tuple(b.name(i) for i in cells)
        words = listed([f"{r} {self.chapter.rule_info(r).title}" for r in rule_ids])
        subject = (
            (f"rule {words} conflicts" if len(rule_ids) == 1 else f"rules {words} conflict")
            if rule_ids
            else ("the revealed cells conflict")
        )
        msg = f"no completion: {subject}"
        if rule_ids:
            msg += (
                f" with the revealed cell{'s' if len(cells) > 1 else ''} {shown}"
                if cells
                else " with the briefing" + _briefing_says(self.chapter, state, rule_ids, ": it makes ")
            )
        elif cells:
            msg += f": {shown}"
        for r, _ in briefed:
            msg += f"; the briefing makes {r.makes(state)} ({r.id})"
        return NoCompletion(msg, tuple(rule_ids), cells)

    def _briefing_conflicts(self, state: Map, cells) -> list:
        """(rule, cell) for each cell of ``cells`` the briefing fixes to another terrain than the revealed one."""
        out = []
        for r in self.chapter.rules:
            if isinstance(r, BriefingCell):
                i = r.cell(state)
                if i is not None and i in cells and state.cells[i] is not None and state.cells[i] is not r.terrain:
                    out.append((r, i))
        return out
