"""The table helper's pool of sampler draws per briefing: estimated odds from the first reveal, at a tap's speed.

Where no exact odds answer a state (early Flora, Vameter and Maldonado states; Fauna while its briefing
compiles), the odds come from the block heat-bath sampler (``mapgen.solving.sampler``), whose run takes
seconds to a minute: far more than a tap may wait. So each briefing keeps the draws of its last sampled
states (``KEEP`` runs). A draw of a state S is a completion of S; when a later state T of the same briefing
reveals more cells, the draws of S that show T's reveals and T's Hill numbers (``solve.agrees``) are
completions of T, and, if S's draws were uniform over S's completions, uniform over T's: the agreeing draws
answer T at once. T's own run answers alone once it has landed; before that the agreeing draws of every kept
run under T answer together (each run's are uniform over T's completions, so their union is too). The answer's
shares are the agreeing draws' shares, each with the larger of two standard errors: the binomial
``sqrt(q(1 - q) / n_eff)``, ``q = (k + 1) / (n + 2)`` (Laplace's rule, so that a terrain seen in none of the
``n`` agreeing draws still has an error) and ``n_eff`` the sum over the runs of their agreeing draws times
``ess / samples`` (the run's effective samples per draw: the chains' draws are correlated; runs started from one
another's draws are correlated too, which this sum ignores); and the spread of the units' shares, a unit being
the chains of a run that started from one SMC run (or one start), as ``solve`` takes it
(``sampler.odds_of``): where the chains sit on islands they cannot leave, only their disagreement shows the
error. A terrain the cell can hold that no agreeing draw shows there gets at least ``unseen_bound``'s error (as
``solve``'s "up to 31%"), and so does one that every agreeing draw shows where the cell can hold others. Its
R-hat is the worst of the runs' (the chains' agreement over S).

After each answer the pool is refilled in the background: a new run for the state just asked, its chains
starting from agreeing draws (already a fair sample of it), replaces the oldest. When fewer than
``MIN_AGREE`` draws agree in all (or none of the kept runs' states lies under T: an undo past them), there is
no answer yet; a run for T starts and the answer says ``"sampling": {"seconds": N}`` meanwhile, like a compile
(the page asks again). Runs go to one process of their own per server worker, at a lower priority (the
sampler's numba loops hold the GIL: in the worker's thread a run would hold up every tap for its chunks).

An answer from the pool depends on which runs were kept, so it is an estimate whose last digits depend on the
reveals before it (within its error bars), not a function of the request; the answer cache keeps only the
answers from a state's own run. The work of a run is counted in sweeps and seeded, never the clock.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

import numpy as np

from constraints.catalogue import Chapter
from mapgen.mapfile import dumps_map, parse_map
from mapgen.model import Map
from mapgen.solving.solve import agrees
from mapgen.solving.unigen import UNSEEN_PER_RUN, Z95, converged, rhat_json, t95, unseen_bound
from mapgen.terrain import Terrain
from mapgen.workers import start_worker

#: a pool answers when at least this many of its draws agree with the state (else a run for it starts)
MIN_AGREE = int(os.environ.get("MAPGEN_POOL_MIN_AGREE", "40"))
#: each run: chains, sweeps recorded per chain, burn-in sweeps from a SAT solver's starts (from agreeing draws:
#: ``WARM_BURN``, since they are a fair sample already)
CHAINS = 8
SWEEPS = int(os.environ.get("MAPGEN_POOL_SWEEPS", "100"))
BURN, WARM_BURN = 20, 5
#: particles of each SAT-checked SMC run that draws chain starts, two a run (``Solver.chain_starts``), when no earlier
#: run's draws agree. 250 since the eighth session of 2026-12-05 (was 100): against the compiled odds, 8 states of the
#: odds bench, seeds 1 and 2, one run of 8 chains of 100 sweeps as the pool runs it, mean |error| 0.066 -> 0.052
#: (fauna-1@12 0.111 -> 0.027, fauna-1@8 0.076 -> 0.048; 4 states within their noise either way) for 14% more CPU
#: (6.5 -> 7.4 s a run): the starts' island weights are the SMC run's, and more particles weigh them better;
#: 32 chains of 25 sweeps from the same 250 particles did no better (0.049) for 45% more
START_PARTICLES = 250
SEED = 0
#: while no newer state is asked, a state's own runs go on (a next run from the last one's draws, the next seed)
#: until it has this many: the pool deepens while the player looks, so a rarer reveal still finds agreeing draws
DEEPEN = int(os.environ.get("MAPGEN_POOL_DEEPEN", "3"))
#: runs kept per briefing (an undo finds the run of an earlier state), and briefings kept
KEEP, BRIEFINGS = 6, 16
#: the OS priority of the process the runs go to, added to the worker's
NICE = 5
#: a unit (a run's chains from one SMC run, or one start) counts towards the spread of the shares with at least
#: this many agreeing draws
UNIT_ROWS = 5


@dataclass
class Run:
    """The draws of one sampler run: ``draws`` int8 [chains, sweeps, cells], terrain numbers into ``terrains``."""

    state: Map
    draws: np.ndarray
    terrains: tuple[Terrain, ...]
    rhat: float
    ess: float
    used: float = field(default_factory=time.monotonic)
    #: per chain, the unit it belongs to (chains from one SMC run share one); empty: every chain its own
    groups: tuple[int, ...] = ()

    @property
    def samples(self) -> int:
        return int(self.draws.shape[0] * self.draws.shape[1])

    def under(self, state: Map) -> bool:
        """Whether ``state`` reveals every cell this run's state reveals, alike (and its Hills' numbers)."""
        mine = self.state
        if mine.briefing != state.briefing:
            return False
        if any(t is not None and u is not t for t, u in zip(mine.cells, state.cells)):
            return False
        return all(state.hills.get(i) == n for i, n in mine.hills.items())

    def agreeing(self, chapter: Chapter, state: Map) -> np.ndarray:
        """The draws [n, cells] that are completions of ``state`` (its reveals, its Hill numbers)."""
        return self.draws.reshape(-1, self.draws.shape[-1])[self._agree(chapter, state)]

    def units(self, chapter: Chapter, state: Map) -> np.ndarray:
        """Per draw of ``agreeing``, its unit: the group of the chain that drew it (``groups``)."""
        chains, sweeps = self.draws.shape[:2]
        of = np.asarray(self.groups if len(self.groups) == chains else range(chains), dtype=np.int64)
        return np.repeat(of, sweeps)[self._agree(chapter, state)]

    def _agree(self, chapter: Chapter, state: Map) -> np.ndarray:
        """Which of the flattened draws are completions of ``state`` (a mask)."""
        flat = self.draws.reshape(-1, self.draws.shape[-1])
        keep = np.ones(len(flat), dtype=bool)
        for i, t in enumerate(state.cells):
            if t is None or self.state.cells[i] is not None:
                continue
            if t not in self.terrains:
                return np.zeros(len(flat), dtype=bool)
            keep &= flat[:, i] == self.terrains.index(t)
        if any(self.state.hills.get(i) != n for i, n in state.hills.items()):  # a new Hill number: a count to check
            for j in np.flatnonzero(keep):
                keep[j] = agrees(chapter, tuple(self.terrains[k] for k in flat[j]), state)
        return keep


def estimate(parts: list[tuple[Run, np.ndarray, np.ndarray]], state: Map, terrain: Terrain, possible) -> dict:
    """The table's estimated heat from the agreeing draws of one or more runs (``parts``: (run, rows, units)):
    ``heat`` and ``heat_error`` per unrevealed cell (0 or 1 with no error where ``possible`` decides it) and the
    ``sampler`` summary. Each run's agreeing draws are uniform over the state's completions (if its own draws
    were over its own state's), so their union is too; their effective number is each run's share of
    effective samples per draw times its agreeing draws, summed; the R-hat is the worst of the runs'. The error
    is the larger of the binomial one and the units' spread (a Student t bar over the units' shares, in units
    that Z95 errors read, as ``sampler.odds_of`` takes the groups' spread)."""
    b = state.board
    rows = np.concatenate([r for _, r, _ in parts]) if len(parts) > 1 else parts[0][1]
    # every (run, unit) with enough agreeing draws is one unit of the spread
    unit = np.concatenate([u * len(parts) + k for k, (_, _, u) in enumerate(parts)]) if parts else np.zeros(0)
    ids, unit_of, sizes = np.unique(unit, return_inverse=True, return_counts=True)
    counted = sizes >= UNIT_ROWS
    units = int(counted.sum())
    # the starts taken as independent where no draw shows a terrain a cell can hold (``unseen_bound``): per unit, its
    # chains up to ``UNSEEN_PER_RUN`` (as ``sampler.sample_odds`` counts them)
    starts = 0
    for run, _, u in parts:
        chains = run.draws.shape[0]
        of = list(run.groups) if len(run.groups) == chains else list(range(chains))
        starts += sum(min(UNSEEN_PER_RUN, of.count(g)) for g in set(u.tolist()))
    n = len(rows)
    n_eff = max(1.0, sum(len(r) * (min(1.0, run.ess / run.samples) if run.samples else 1.0) for run, r, _ in parts))
    rhat = max(run.rhat for run, _, _ in parts)
    terrains = parts[0][0].terrains  # every run of a briefing numbers the chapter's terrains alike
    k_of = terrains.index(terrain) if terrain in terrains else -1
    heat, error = {}, {}
    for i in sorted(possible):
        ts = possible[i]
        if len(ts) == 1 or terrain not in ts:
            heat[b.name(i)], error[b.name(i)] = (1.0 if ts == {terrain} else 0.0), 0.0
            continue
        hit = rows[:, i] == k_of if k_of >= 0 else np.zeros(n, dtype=bool)
        k = int(hit.sum())
        q = (k + 1) / (n + 2)
        heat[b.name(i)] = round(k / n, 4)
        err = math.sqrt(q * (1 - q) / n_eff)
        if units >= 2:  # units that disagree (islands the chains cannot leave): their spread is the honest error
            shares = (np.bincount(unit_of, weights=hit, minlength=len(ids)) / sizes)[counted]
            err = max(err, float(shares.std(ddof=1)) / math.sqrt(units) * t95(units - 1) / Z95)
        # the cell can hold it and another terrain (``possible``), yet no draw shows it there (k == 0), or none shows
        # the others (k == n: "~100% ±<1" where the chances of those are unseen, not known to be nil): the unseen bound
        if k in (0, n):
            err = max(err, unseen_bound(starts, rhat, n_eff) / Z95)
        error[b.name(i)] = round(err, 4)
    summary = {
        "rhat": rhat_json(rhat),
        "converged": converged(rhat),
        "samples": sum(run.samples for run, _, _ in parts),
        "agreeing": n,
        "effective_samples": round(n_eff, 1),
        "drawn_for": max(sum(t is not None for t in run.state.cells) for run, _, _ in parts),
        "own": any(_same_state(run.state, state) for run, _, _ in parts),
        "runs": len(parts),
        "units": units,
        "error": "binomial_or_spread",
    }
    return {"heat": heat, "heat_error": error, "sampler": summary}


def _same_state(a: Map, b: Map) -> bool:
    """Whether two states of a briefing are the same (the same reveals and Hill numbers): a run's state and the
    state asked, when the run was drawn for it."""
    return a.cells == b.cells and a.hills == b.hills


class DrawPools:
    """The kept runs per briefing and the run under way; runs go to ``runner`` (``submit(fn, *args)`` returning
    a future), by default one process of their own made on first use."""

    def __init__(self, runner=None):
        self._runner = runner
        self._lock = threading.Lock()
        self._runs: dict[object, list[Run]] = {}
        self._running: dict[object, tuple[Map, float]] = {}  # briefing -> (state being sampled, started)
        self._wanted: dict[object, Map] = {}  # briefing -> the latest state asked while a run was under way
        self._asked: dict[object, tuple[Map, float]] = {}  # briefing -> (the state waiting, when first asked)

    def answer(self, chapter: Chapter, state: Map, terrain: Terrain, possible) -> dict:
        """``estimate``'s answer from the kept run with the most agreeing draws, refilling the pool behind it;
        or ``{"sampling": {"seconds"}}`` while a run that will answer ``state`` goes on."""
        key = (chapter, state.briefing)  # the Chapter: a house chapter's draws are its own
        with self._lock:
            runs = list(self._runs.get(key, ()))
        parts = [(run, run.agreeing(chapter, state), run.units(chapter, state)) for run in runs if run.under(state)]
        parts = [p for p in parts if len(p[1])]
        own = [p for p in parts if _same_state(p[0].state, state)]
        best = max(parts, key=lambda p: len(p[1]), default=None)
        if own:
            for run, _, _ in own:
                run.used = time.monotonic()
            self._answered(key, state)
            return estimate(own, state, terrain, possible)
        if best is not None and sum(len(rows) for _, rows, _ in parts) >= MIN_AGREE:
            for run, _, _ in parts:
                run.used = time.monotonic()
            self._start(chapter, state, best[1], best[0].terrains)
            self._answered(key, state)
            return estimate(parts, state, terrain, possible)
        self._start(chapter, state, *((best[1], best[0].terrains) if best is not None else (None, ())))
        # the seconds since this state was first asked: the wait its player sees. Not the run under way's age: that
        # may be an earlier state's run, and when it ends and this state's starts, the count went back to 0.
        now = time.monotonic()
        with self._lock:
            asked = self._asked.get(key)
            if asked is None or not _same_state(asked[0], state):
                asked = self._asked[key] = (state, now)
        return {"sampling": {"seconds": round(now - asked[1], 1)}}

    def _answered(self, key, state: Map) -> None:
        """``state`` has an estimate: no longer waiting (asked again later without one, its wait starts anew)."""
        with self._lock:
            asked = self._asked.get(key)
            if asked is not None and _same_state(asked[0], state):
                del self._asked[key]

    def _start(
        self,
        chapter: Chapter,
        state: Map,
        rows: np.ndarray | None,
        terrains: tuple[Terrain, ...],
        seed: int = SEED,
        follow: bool = False,
    ) -> float:
        """Start a run for ``state`` unless one is under way for this briefing (then it is next), its chains
        from ``rows`` (agreeing draws, terrain numbers into ``terrains``) when there are any; when the run
        for it started. ``follow``: the run that just ended starts it (the briefing stays marked running)."""
        key = (chapter, state.briefing)  # the Chapter: a house chapter's draws are its own
        with self._lock:
            running = self._running.get(key)
            if running is not None and not follow:
                if running[0].cells != state.cells or running[0].hills != state.hills:
                    self._wanted[key] = state
                return running[1]
            now = time.monotonic()
            self._running[key] = (state, now)
        starts = None
        if rows is not None and len(rows):
            pick = np.linspace(0, len(rows) - 1, CHAINS).round().astype(int)
            starts = [[int(k) for k in rows[j]] for j in pick]
        codes = [t.code for t in terrains]
        try:
            future = self.runner().submit(run_draws, chapter, dumps_map(state), starts, codes, SWEEPS, seed)
        except Exception:  # noqa: BLE001 - no process for the runs now: no estimate yet; the next ask tries again
            with self._lock:
                self._running.pop(key, None)
            return now
        future.add_done_callback(lambda f: self._done(chapter, key, state, f))
        return now

    def _done(self, chapter: Chapter, key, state: Map, future) -> None:
        got = None
        try:
            got = future.result()
        except Exception:  # noqa: BLE001 - a failed run only means no estimate yet; the next ask starts another
            got = None
        with self._lock:
            wanted = self._wanted.pop(key, None)
            if got is not None:
                draws, codes, rhat, ess, groups = got
                run = Run(state, draws, tuple(Terrain.from_code(c) for c in codes), rhat, ess, groups=tuple(groups))
                runs = self._runs.setdefault(key, [])
                runs.append(run)
                runs.sort(key=lambda r: r.used)
                del runs[:-KEEP]
                while len(self._runs) > BRIEFINGS:
                    oldest = min(self._runs, key=lambda k: max(r.used for r in self._runs[k]))
                    del self._runs[oldest]
            # nothing newer asked: the state's own runs go on, up to DEEPEN of them
            mine = sum(_same_state(r.state, state) for r in self._runs.get(key, ())) if got is not None else DEEPEN
            if wanted is None and mine >= DEEPEN:
                self._running.pop(key, None)  # else the next run takes over the mark (``wait`` sees no gap)
        if wanted is not None:  # the player moved on while this ran: sample the latest state next
            if got is not None and run.under(wanted):
                self._start(chapter, wanted, run.agreeing(chapter, wanted), run.terrains, follow=True)
            else:
                self._start(chapter, wanted, None, (), follow=True)
        elif mine < DEEPEN:
            self._start(chapter, state, run.draws[:, -1], run.terrains, seed=SEED + mine, follow=True)

    def runner(self):
        if self._runner is None:
            self._runner = _Runs()
        return self._runner

    def wait(self, seconds: float = 120.0) -> None:
        """Until no run is under way (tests)."""
        deadline = time.monotonic() + seconds
        while self._running and time.monotonic() < deadline:
            time.sleep(0.05)

    def clear(self) -> None:
        with self._lock:
            self._runs.clear()
            self._wanted.clear()
            self._asked.clear()


class _Runs:
    """One spawned process for the runs, at ``NICE``, ending with its parent; a fresh one after it died."""

    def __init__(self):
        self._pool: ProcessPoolExecutor | None = None

    def submit(self, fn, /, *args):
        for _ in range(2):
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=mp.get_context("spawn"), initializer=_start_runs)
            try:
                return self._pool.submit(fn, *args)
            except BrokenProcessPool:  # the process died (killed, out of memory): start afresh
                self._pool.shutdown(wait=False)
                self._pool = None
        raise BrokenProcessPool("the sampler's process could not start")

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _start_runs() -> None:
    """In the runs' process: ignore Ctrl-C, end with the worker that made it, yield the CPU to the taps."""
    start_worker()
    with contextlib.suppress(AttributeError, OSError):  # not allowed here: equal priority, still its own GIL
        os.nice(NICE)


_solvers: dict[Chapter, object] = {}


def run_draws(chapter: Chapter, text: str, starts, terrains, sweeps: int, seed: int):
    """In the runs' process: a sampler run for the state ``text``, ``CHAINS`` chains from ``starts`` (terrain
    numbers into ``terrains``, agreeing draws of an earlier run) or, without them, from ``Solver.chain_starts``
    (near-uniform SMC draws, else a SAT solver's diverse completions). Returns (draws int8 [chains, sweeps,
    cells], terrain codes, R-hat, effective samples, each chain's unit)."""
    from mapgen.solving import sampler  # deferred: numba's kernels, in the runs' process only
    from mapgen.solving.solve import Solver  # deferred: ortools, in the runs' process only

    state = parse_map(text, "state")
    solver = _solvers.get(chapter)
    if not isinstance(solver, Solver):
        solver = _solvers[chapter] = Solver(chapter)
    if starts:
        ts = [Terrain.from_code(c) for c in terrains]
        first = [tuple(ts[k] for k in row) for row in starts]
        burn = WARM_BURN
    else:
        first = solver.chain_starts(state, CHAINS, seed=seed, particles=START_PARTICLES)
        burn = BURN
    if not first:
        raise RuntimeError("no completion to start from")
    odds = sampler.sample_odds(chapter, state, first, budget=sampler.Budget(CHAINS, sweeps, burn), seed=seed, threads=1)
    # chains from one SMC run's draws are one unit of the error's spread (sample_odds takes them so); warm starts
    # (agreeing draws of an earlier run) each their own
    given = getattr(first, "groups", None)
    of_start = list(given) if given is not None and len(given) == len(first) else list(range(len(first)))
    groups = [int(of_start[c % len(first)]) for c in range(CHAINS)]
    return odds.draws, [t.code for t in odds.terrains], float(odds.rhat), float(odds.ess), groups


POOLS = DrawPools()
