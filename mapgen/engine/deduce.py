"""The deducer bot's deduction: which terrains each reachable cell can still hold.

``FrontierPossible`` asks ``mapgen.solving.solve.Solver.possible`` (the terrains a cell holds in at least
one completion of the revealed state, under every rule of the chapter) for the cells the bot may
explore next only: far fewer and easier questions than for every unrevealed cell. It adds what a
playtest needs: a *deterministic* budget (the same question gets the same answer on a busy machine
as on an idle one, so playtests stay reproducible), one session per briefing whose proofs (completions
and unsatisfiable cores, ``mapgen.solving.proofs``) every game on that briefing reads and extends, and an
empty answer instead of an exception when time runs out. The session has every rule fixed in force
(``Solver.session(..., ruled=True)``: the Rocks' connection checked lazily; its SAT work a third of the
guarded session's on fauna-7). The proofs settle most questions of later games
without the SAT solver; as they are proofs, a game's answers are the same whichever games came before
(only their cost differs), unless a question runs out of time, which no shipped map's games do.
``SolverPossible`` asks for every unrevealed cell, for comparison.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from constraints.catalogue import Chapter, cache_key, get_chapter
from mapgen.model import Briefing, Map
from mapgen.solving.proofs import Proofs
from mapgen.solving.solve import NoCompletion, Solver, SolveTimeout
from mapgen.terrain import Terrain

if TYPE_CHECKING:
    from mapgen.solving.solve import _Slot


@dataclass
class ProvedSession:
    """One briefing's SAT session and the proofs kept on it."""

    slot: _Slot
    proofs: Proofs


class FrontierPossible:
    """Possible terrains of chosen unrevealed cells, exact, bounded per question.

    The bound is deterministic time (``Solver(deterministic=True)``); ``spent`` adds up the
    deterministic time used. Each briefing has one session with its proofs (``session()``), kept for the
    last ``SESSIONS`` briefings asked about.
    """

    SESSIONS = 16

    def __init__(self, chapter: str | Chapter, time_limit: float = 0.05):
        rules = get_chapter(chapter) if isinstance(chapter, str) else chapter
        self.solver = Solver(rules, time_limit=time_limit, deterministic=True)
        self.timeouts = 0
        self.calls = 0
        self._sessions: OrderedDict[Briefing, ProvedSession] = OrderedDict()
        self._last: tuple[Briefing, ProvedSession] | None = None  # the briefing asked about last, and its session

    @property
    def time_limit(self) -> float:
        return self.solver.time_limit

    @property
    def spent(self) -> float:
        return self.solver.spent

    def session(self, state: Map) -> ProvedSession:
        """The session of the state's briefing (its SAT solver and the proofs kept on it)."""
        b = state.briefing
        last = self._last
        if last is not None and last[0] is b:  # a game's states share their briefing: no hashing it (a dataclass's)
            return last[1]
        s = self._sessions.get(b)
        if s is None:
            s = self._sessions[b] = ProvedSession(self.solver.session(b, ruled=True), Proofs(self.solver.chapter))
            if len(self._sessions) > self.SESSIONS:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(b)
        self._last = (b, s)  # the most recent, so never the one dropped
        return s

    def possible(
        self, state: Map, cells, time_limit: float | None = None, session: ProvedSession | None = None
    ) -> dict[int, frozenset[Terrain]]:
        """{cell: terrains it can hold} for the given unrevealed cells; {} when time runs out.

        ``session`` (default: the briefing's, from ``session()``) says whose proofs are read and extended.
        """
        self.calls += 1
        budget = self.solver.budget(time_limit)
        if budget.seconds <= 0:
            self.timeouts += 1
            return {}
        s = session or self.session(state)
        try:
            return self.solver.possible(state, budget, cells=list(cells), session=s.slot, proofs=s.proofs)
        except SolveTimeout:
            if time.monotonic() >= budget.deadline:
                raise  # the wall clock's safety net, not the deterministic budget: no answer, never another move
            self.timeouts += 1
            return {}
        except NoCompletion:  # a terrain foreign to the chapter, or no completion: play on the heuristic
            return {}


class SolverPossible:
    """``mapgen.solving.solve.Solver.possible`` for every unrevealed cell (slower: kept for comparison)."""

    def __init__(self, chapter: str, time_limit: float = 1.0):
        self.solver = Solver.for_chapter(chapter)
        self.time_limit = time_limit
        self.timeouts = 0
        self.calls = 0

    def possible(self, state: Map, cells=None, time_limit: float | None = None) -> dict[int, frozenset[Terrain]]:
        self.calls += 1
        try:
            return self.solver.possible(state, time_limit=self.time_limit if time_limit is None else time_limit)
        except SolveTimeout:
            self.timeouts += 1
            return {}
        except NoCompletion:  # cannot happen on a valid map; play on the heuristic's guesses
            return {}


_CACHE: dict[object, FrontierPossible] = {}


def solver_for(chapter: str | Chapter) -> FrontierPossible:
    """One per chapter and process (one session per briefing, with its witnesses): a shipped chapter by
    name or as its registry object, or a house-rule chapter (``load_chapter``) the game's bots reason with."""
    key = cache_key(chapter)  # the shipped chapter shared with callers that name it; a house chapter its own
    if key not in _CACHE:
        _CACHE[key] = FrontierPossible(chapter)
    return _CACHE[key]
