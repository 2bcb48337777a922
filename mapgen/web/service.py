"""The web API's work: a validated JSON body in, the CLI's JSON contract out (no web framework here).

Each ``do_*`` function takes a request body (a dict already decoded from JSON) and returns
``(exit_code, payload)``: the exit code the same CLI command would end with (0, 1) and what its
``--json`` prints. Bad input raises ``ApiError`` (exit 2), a request no map can meet ``ApiError``
with exit 1, a time limit ``ApiError`` with exit 3; the app turns them into HTTP statuses.
Solver-backed calls keep one ``Solver`` per chapter per thread (Solvers cache models and are not
thread-safe), so concurrent requests never share one; the app runs them in worker processes (``pools``),
so everything here, ``ApiError`` included, crosses a process boundary by pickling.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import threading
import time
from dataclasses import replace
from pathlib import Path

from constraints.catalogue import Chapter, chapter_names, check_map, get_chapter, unknown_chapter
from constraints.rules import BriefingCell
from mapgen.deduce_text import seed_number_note
from mapgen.errors import BROKEN, TIMEOUT, exit_code
from mapgen.inputs import Unreadable, parse_toml, text_problem, unknown_key
from mapgen.mapfile import MAX_RECORD_TEXT, MapFileError, dumps_map, edited_by_hand, parse_map, read_map, tail_text
from mapgen.model import Map
from mapgen.terrain import quantity
from mapgen.web.rules import SHIPPED, ServedRules

#: seconds allowed when a body names no time limit, and the most a body may ask for
DEFAULT_TIME = {"solve": 10.0, "hint": 5.0, "table": 4.0, "generate": 10.0, "repair": 10.0, "deduce": 120.0}
MAX_TIME = {"solve": 30.0, "hint": 15.0, "table": 15.0, "generate": 30.0, "repair": 30.0, "deduce": 300.0}
HTTP_STATUS = {1: 409, 2: 400, 3: 504}
QUICK_COUNT = 500  # the table helper's first count from a circuit: completions enumerated up to this many
QUICK_TARGET = 0.6  # seconds for the target status in a quick answer (the full one has longer)
HEAT_ENUMERATION = 20_000  # an exact heat map by enumeration up to this many completions (a few seconds)


class ApiError(Exception):
    """A request the API refuses or cannot meet: ``exit`` is the CLI's code, ``extra`` goes into the body."""

    def __init__(self, message: str, exit: int = 2, status: int | None = None, **extra):
        super().__init__(message)
        self.exit = exit
        self.status = status or HTTP_STATUS[exit]
        self.extra = extra

    def to_json(self) -> dict:
        """``{"error", ...extra}``; a 409 always with ``rules`` and ``cells`` (empty where the refusal names none: a
        mode the chapter lacks, house rules of another fingerprint), the shape the README gives every 409."""
        out = {"error": str(self), **self.extra}
        if self.status == 409:
            out.setdefault("rules", [])
            out.setdefault("cells", [])
        return out

    def __reduce__(self):  # whole from a worker process: the exit code, status and extra fields too
        return _api_error, (str(self), self.exit, self.status, self.extra)


def _api_error(message: str, exit: int, status: int, extra: dict) -> ApiError:
    return ApiError(message, exit, status, **extra)


# -- reading bodies ---------------------------------------------------------------------------------

#: how every endpoint names its map: map file text or a shipped map's name, and the file name reports use
MAP_FIELDS = ("map", "name", "file")
#: the fields each endpoint reads; any other is refused (a typo, ``time_limt``, would otherwise be ignored)
FIELDS = {
    "parse": MAP_FIELDS,
    "validate": MAP_FIELDS,
    "solve": (*MAP_FIELDS, "limit", "probabilities", "explain", "target", "time_limit", "rules_fingerprint"),
    "hint": (*MAP_FIELDS, "target", "exclude", "time_limit", "rules_fingerprint", "odds"),
    "table": (*MAP_FIELDS, "heat", "target", "count", "time_limit", "rules_fingerprint"),
    "repair": (*MAP_FIELDS, "within_profile", "profile", "time_limit"),
    "generate": ("chapter", "from", "seed", "profile", "time_limit"),
    "render": (*MAP_FIELDS, "format", "paper", "layout", "forced", "heat"),
    "deduce": (*MAP_FIELDS, "seed", "profile", "time_limit"),
    "playtest": (*MAP_FIELDS, "games", "bot", "players", "seed", "mode"),
}


def check_fields(endpoint: str, body: dict) -> None:
    """ApiError (400) naming the first field ``endpoint`` does not read."""
    known = FIELDS[endpoint]
    unknown = unknown_key(body, known)
    if unknown is not None:
        raise ApiError(f"unknown field {unknown!r} for /api/{endpoint} (known: {', '.join(known)})"[:300])


def shown(value) -> str:
    """A value of a request body as its sender wrote it: JSON (``true``, ``null``, ``["png"]``), a string quoted
    as the messages quote names (``'x'``); never Python's spelling (``True``, ``None``, ``['png']``)."""
    if isinstance(value, str):
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not from JSON: as Python writes it
        return repr(value)


def json_kind(value) -> str:
    """The JSON name of a body's kind of value: "an array", "null", "a string", ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    kinds = ((dict, "an object"), (list, "an array"), (str, "a string"), (int | float, "a number"))
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def _field(body: dict, key: str, kind, what: str, default=None, *, required: bool = False):
    if key not in body or body[key] is None:
        if required:
            raise ApiError(f"missing field '{key}' ({what})")
        return default
    value = body[key]
    ok = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok:
        raise ApiError(f"field '{key}' must be {what}, not {shown(value)}"[:200])
    return value


def _bounded(body: dict, key: str, lo, hi, default, what: str):
    kind = float if isinstance(default, float) else int
    value = _field(body, key, kind, what, default)
    if not lo <= value <= hi:
        raise ApiError(f"field '{key}' must be between {lo} and {hi}, not {shown(value)}")
    return value


def time_limit(body: dict, kind: str) -> float:
    return float(_bounded(body, "time_limit", 0.1, MAX_TIME[kind], DEFAULT_TIME[kind], "a number of seconds"))


def read_map_field(body: dict, key: str = "map") -> Map:
    """The map of a body: ``map`` (map file text) or ``name`` (a shipped map such as ``fauna-1``)."""
    if key == "map" and body.get("map") is None and body.get("name") is not None:
        import maps  # deferred: maps, only for a shipped map's name; not at the app's start

        name = _field(body, "name", str, "the name of a shipped map")
        try:
            # maps.path takes a file's path too (absolute, or ``../`` from the maps folder): only a file in the
            # shipped folder is a shipped map, else any map file the user can read would be served to a client
            path = maps.path(name)
            if not path.resolve().is_relative_to(maps.FOLDER.resolve()):
                raise KeyError(name)
            return read_map(path)
        except (KeyError, MapFileError):
            raise ApiError(f"no shipped map named {name!r}{maps.unknown(name)}"[:300]) from None
    text = _field(body, key, str, "map file text (TOML)", required=True)
    try:
        return parse_map(text, key)
    except MapFileError as e:
        word = text.strip()
        if key == "map" and re.fullmatch(r"[A-Za-z][\w./\\-]{0,60}", word):
            # a shipped map's name (or a file's) where its text belongs: say where a name goes
            name = word if re.fullmatch(r"[a-z]+-\d+", word) else "fauna-1"
            raise ApiError(
                f'field \'map\' is map file text (TOML), not {word!r}: a shipped map goes by name, {{"name": "{name}"}}'
            ) from None
        if word and "\n" not in word and "=" not in word and "is not a map file's text" in str(e):
            # a word where a file's text belongs: said in the API's words, not the Python library's (read_map(path))
            raise ApiError(f"field '{key}' is map file text (TOML), not {word[:60]!r}") from None
        raise ApiError(" ".join(str(e).split())[:300]) from None


def _source(body: dict) -> str:
    """How reports name the map: ``file`` if given, else the shipped map's name, else ``map``."""
    name = body.get("name") if isinstance(body.get("name"), str) and body.get("map") is None else None
    return _field(body, "file", str, "a file name", name or "map")


def _terrain(code: str, what: str, chapter: Chapter):
    """The chapter's terrain named by a body's field (``target``, ``heat``): a code of another chapter is refused
    as the CLI's ``--target`` refuses it."""
    try:
        return chapter.terrain(code)
    except (ValueError, KeyError) as e:
        raise ApiError(f"field '{what}': {e}"[:200]) from None


_local = threading.local()


def solver_for(chapter: str | Chapter):
    """This thread's Solver for a chapter: a shipped one by name, or a Chapter (the served rules: a house chapter
    gets a solver of its own, never the shipped chapter's of the same name)."""
    from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
        Solver,
    )

    if isinstance(chapter, str):
        chapter = get_chapter(chapter)
    solvers = _local.__dict__.setdefault("solvers", {})
    if chapter not in solvers:
        solvers[chapter] = Solver(chapter)
    return solvers[chapter]


class BackgroundCompiles:
    """Briefings compiled behind the table helper: the first time a state is shown that no cached circuit
    answers, its state as revealed is compiled in a thread (the compile itself in a child process, bounded
    in CPU seconds and memory); answers say ``"compiling": {"seconds": N}`` meanwhile and are exact once it lands
    (the circuit goes to the process-wide store and the disk cache). At most ``MAX`` compiles at once; a
    state that extends a running compile's base waits for it. Only states with the chapter's measured
    number of reveals for half of ``SECONDS`` of CPU (``solve.compile_from`` with that budget: Training's empty
    board, Fauna from 3 cells, Vameter 16, Maldonado 12, Flora 24) are compiled as revealed, in the other slot
    while the briefing compiles (which takes minutes, or fails). Below it, in a chapter whose briefings compile (``solve.BRIEFING_COMPILE_CPU``: Fauna), the
    briefing itself is compiled (``solve.briefing_base``: the empty board and any revealed Hills), as soon
    as the helper shows the briefing: one to two minutes of CPU and about 2 GB, after which every state of
    the game is exact from its first reveal. ``MAPGEN_BRIEFING_COMPILES=0`` turns those off (a small
    machine; the test suite). A compile, a briefing's or a state's, is claimed by a marker file in the cache folder
    (``compiling/KEY``: its process and start), so the server's worker processes (the table's quick answer and its
    full count go to two) run it once between them: the others say how long it has run (a later state of a compile
    claimed there too), and load the circuit from the disk cache once it is there. A compile that fails for good
    leaves ``compiling/KEY.failed`` (this server's, by their parent process; the wall clock's ends counted there
    against ``WALL_TRIES``), so no other process tries it again. Without a writable cache folder each process
    compiles (and remembers failures) for itself."""

    MAX = 2
    QUEUE = 32
    #: a state's compile: its budget in CPU seconds (``compile_from`` picks the states that compile in half of it,
    #: measured), and the wall clock that ends it only on a machine some times busier than that (a compile it ends
    #: may be asked again: ``WALL_TRIES``); only a spent CPU budget or a compiler's failure says "never exact here"
    SECONDS = 60.0
    STATE_WALL = 300.0
    WALL_TRIES = 2
    MEMORY = 2 << 30
    #: a briefing's compile: the wall clock that ends it (its budget is CPU seconds) and the compiler's memory
    BRIEFING_SECONDS = 900.0
    BRIEFING_MEMORY = 3 << 30

    def __init__(self):
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.MAX)
        self._running: dict[str, tuple[Map, float, bool]] = {}  # key -> (base, started, a briefing's compile)
        self._failed: set[str] = set()
        self._walled: dict[str, int] = {}  # key -> compiles the wall clock ended (the load's doing, not the state's)
        self._elsewhere: dict[str, Map] = {}  # key -> base of a state's compile another process was found claiming

    def status(self, chapter, state: Map) -> float | None:
        """Seconds since the compile that will answer ``state`` was asked for (asking for it if needed; it
        waits for one of ``MAX`` slots), or None when none will (fewer reveals than ``compile_from``, this
        base failed before, or ``QUEUE`` compiles already wait)."""
        from mapgen.solving.compiled import (  # deferred: pysat and numpy, on the first request that needs them, not at the app's start
            circuit_key,
            extends,
        )
        from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
            briefing_base,
            briefing_compile_cpu,
        )

        cpu = None
        if self.of_briefing(chapter, state):
            cpu = briefing_compile_cpu(chapter)
            if cpu is None or os.environ.get("MAPGEN_BRIEFING_COMPILES", "1") == "0":
                return None
            state = briefing_base(state)
        key = circuit_key(chapter, state)
        now = time.monotonic()
        with self._lock:
            for base, started, briefing in self._running.values():
                # a state from the rung on does not wait for the briefing (minutes, or no circuit at all):
                # its own compile takes seconds, in the other slot
                if extends(state, base) and (cpu is not None or not briefing):
                    return now - started
            for other, base in list(self._elsewhere.items()):  # as above, for a state's compile in another process
                if extends(state, base):
                    age = _claimed(other, 2 * self.STATE_WALL)
                    if age is not None:
                        return age
                    del self._elsewhere[other]  # landed (the disk cache answers), failed, or its process is gone
            if key in self._failed or len(self._running) >= self.QUEUE or self._failed_here(key):
                return None
            elsewhere = _claim(key, self.BRIEFING_SECONDS if cpu is not None else 2 * self.STATE_WALL)
            if elsewhere is not None:  # another worker process of this server compiles it
                if cpu is None:
                    self._elsewhere[key] = state
                    if len(self._elsewhere) > self.QUEUE:  # the oldest: most likely long landed or given up
                        del self._elsewhere[next(iter(self._elsewhere))]
                return elsewhere
            if self._failed_here(key):  # it failed there between the two looks: the claim was its end's
                _unclaim(key)
                return None
            self._running[key] = (state, now, cpu is not None)
        threading.Thread(target=self._compile, args=(chapter, state, key, cpu), name="compile", daemon=True).start()
        return 0.0

    def running(self, chapter, state: Map) -> bool:
        """Whether a compile of the state as revealed that answers ``state`` (``state`` extends its base) runs now, here
        or in another process of the server (of ``state`` itself, or of a base seen claimed there): a briefing's
        compile (minutes, or no circuit at all) does not count."""
        from mapgen.solving.compiled import (  # deferred: pysat and numpy, on the first request that needs them, not at the app's start
            circuit_key,
            extends,
        )

        with self._lock:
            if any(extends(state, base) and not briefing for base, _, briefing in self._running.values()):
                return True
            elsewhere = [key for key, base in self._elsewhere.items() if extends(state, base)]
        longest = 2 * self.STATE_WALL
        return any(_claimed(key, longest) is not None for key in [circuit_key(chapter, state), *elsewhere])

    def of_briefing(self, chapter, state: Map) -> bool:
        """Whether the compile that answers ``state`` is its briefing's (fewer reveals than the rung), not the state's
        as revealed (an answer's ``"compiling": {"of"}``: ``"briefing"`` or ``"reveals"``)."""
        from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
            compile_from,
        )

        return sum(t is not None for t in state.cells) < compile_from(chapter, self.SECONDS / 2)

    def _compile(self, chapter, state: Map, key: str, cpu: float | None = None) -> None:
        """Compile ``state`` (with ``cpu``: a briefing, within that many CPU seconds) into the store."""
        from mapgen.solving.compiled import (  # deferred: pysat and numpy, beside the compile that needs them
            CompileTimeout,
        )
        from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
            default_store,
        )

        got, walled = None, False
        try:
            with self._slots:
                if cpu is None:
                    got = default_store().compile(
                        chapter, state, self.STATE_WALL, memory_limit=self.MEMORY, cpu_limit=self.SECONDS
                    )
                else:
                    got = default_store().compile(
                        chapter, state, self.BRIEFING_SECONDS, memory_limit=self.BRIEFING_MEMORY, cpu_limit=cpu
                    )
        except CompileTimeout:  # the wall clock ended it before its CPU budget: a busy machine, asked again later
            walled = True
        except Exception:  # noqa: BLE001 - a failed background compile only means: no exact answer yet
            got = None
        with self._lock:
            try:
                # the outcome is left for the other processes before the claim goes, so none takes it up meanwhile
                walls = self._walled.get(key, 0)
                if walled:
                    walls = self._walled[key] = max(walls, _failure(key)[1]) + 1
                if got is None and (not walled or walls >= self.WALL_TRIES):
                    self._failed.add(key)
                if got is not None:
                    _forget_failure(key)
                else:
                    _record_failure(key, walls if walled else None)
            finally:
                _unclaim(key)
                self._running.pop(key, None)

    def _failed_here(self, key: str) -> bool:
        """Whether a compile of ``key`` by another process of this server failed for good (its CPU budget spent,
        the compiler's error, or the wall clock ``WALL_TRIES`` times between them): remembered here too."""
        failed, walls = _failure(key)
        if failed or walls >= self.WALL_TRIES:
            self._failed.add(key)
            return True
        return False


def _marker(key: str, kind: str = "claim") -> Path | None:
    """The file that claims a compile (``compiling/KEY`` in the circuit cache), or with ``kind="failed"`` says how it
    failed (``compiling/KEY.failed``); None without a cache."""
    from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
        default_store,
    )

    cache = default_store().cache
    return None if cache is None else cache.folder / "compiling" / (key if kind == "claim" else f"{key}.{kind}")


def _server() -> int:
    """The server whose worker processes share compiles: their parent (a failure is remembered for its life)."""
    return os.getppid()


def _failure(key: str) -> tuple[bool, int]:
    """How this server's compiles of ``key`` failed, as its processes left it beside the claim: (failed for good,
    times the wall clock ended one); (False, 0) for none, or one left by a server that has ended."""
    path = _marker(key, "failed")
    try:
        server, kind, walls = path.read_text(encoding="ascii").split() if path is not None else ("0", "", "0")
        if int(server) != _server():
            return False, 0
        return kind == "failed", int(walls)
    except (OSError, ValueError):  # none, or unreadable: not known to have failed
        return False, 0


def _record_failure(key: str, walls: int | None) -> None:
    """Leave the failure of a compile of ``key`` for the other processes: for good (``walls`` None), or the wall
    clock's ``walls``-th; failures left by servers that have ended are dropped meanwhile. Nothing without a
    writable cache folder (each process then remembers its own)."""
    path = _marker(key, "failed")
    if path is None:
        return
    with contextlib.suppress(OSError):
        for old in path.parent.glob("*.failed"):
            with contextlib.suppress(OSError, ValueError):
                server = int(old.read_text(encoding="ascii").split()[0])
                if server != _server() and not _alive(server):
                    old.unlink()
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(f"{_server()} {'failed' if walls is None else 'walled'} {walls or 0}", encoding="ascii")
        os.replace(tmp, path)  # whole or not at all: another process never reads half of it


def _forget_failure(key: str) -> None:
    path = _marker(key, "failed")
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        return True
    return True


#: A claim's file is written the moment it is made: one still empty after this many seconds is a process's that
#: died between the two (it claimed the briefing's compile for ever: "compiling" and never exact).
EMPTY_CLAIM_SECONDS = 30.0


def _claim(key: str, longest: float) -> float | None:
    """Claim the compile of ``key`` for this process: None when claimed (or no cache to share), else the
    seconds since another live process claimed it (a claim older than ``longest`` or by a process gone is
    taken over)."""
    path = _marker(key)
    if path is None:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                age = _claimed(key, longest)
                if age is not None:
                    return age
                path.unlink(missing_ok=True)  # a stale claim
                continue
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(f"{os.getpid()} {time.time()}")
            return None
    except OSError:  # a read-only cache folder: compile here, unshared
        return None
    return None


def _claimed(key: str, longest: float) -> float | None:
    """The seconds since another live process claimed the compile of ``key``, or None: no claim, or a stale one
    (older than ``longest``, by a process gone, unreadable, or empty for longer than ``EMPTY_CLAIM_SECONDS``)."""
    path = _marker(key)
    if path is None:
        return None
    try:
        text = path.read_text(encoding="ascii")
        if not text:  # claimed a moment ago, not yet written; or by a process that died right then
            age = max(0.0, time.time() - path.stat().st_mtime)
            return age if age <= EMPTY_CLAIM_SECONDS else None
        pid, started = text.split()
        age = time.time() - float(started)
        if not _alive(int(pid)):  # that process is gone
            return None
    except (OSError, ValueError):  # none or unreadable
        return None
    return max(0.0, age) if age <= longest else None


def _unclaim(key: str) -> None:
    path = _marker(key)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


COMPILES = BackgroundCompiles()


def _timeout(e) -> ApiError:
    return ApiError(f"{e} (ask for a larger time_limit)", exit=3)


# -- endpoints --------------------------------------------------------------------------------------


def map_json(m: Map) -> dict:
    """A map for the browser: briefing fields, one code per cell (``..`` unrevealed), and the file text; what the
    studio keeps of the file once the map is edited (``edited_tail``: the ``name`` and the record tables as
    ``edited_by_hand`` leaves them, TOML to follow the terrain), and the fingerprint of the rules its
    ``[generator]`` table says it was made under (``made_fingerprint``), for its helper link's ``rf``."""
    b, br = m.board, m.briefing
    cells = [".." if t is None else t.code + (str(m.hills[i]) if i in m.hills else "") for i, t in enumerate(m.cells)]
    return {
        "chapter": m.chapter,
        "number": br.number,
        "name": br.name,
        "peak": b.name(br.peak),
        "start": None if br.start is None else b.name(br.start),
        "fort_pattern": None if br.fort_pattern is None else br.fort_pattern.text(),
        "greek_fire": None if br.greek_fire is None else b.name(br.greek_fire),
        "rows": b.row_letters,
        "columns": list(b.col_numbers),
        "cells": cells,
        "text": dumps_map(m),
        "edited_tail": tail_text(br.name, edited_by_hand(m.meta)),
        "rules_fingerprint": made_fingerprint(m),
    }


def made_fingerprint(m: Map) -> str | None:
    """The fingerprint of the rules ``m``'s ``[generator]`` table says it was made under: the house rules' it
    records (``links.rules_fingerprint``), else the shipped chapter's; None for a map without the record (or
    one naming house rules without their fingerprint)."""
    from mapgen.validate import made_under  # deferred: mapgen.validate, only for a map with a record

    if not isinstance(m.meta.get("generator"), dict):
        return None
    made = made_under(m)
    if made is not None:
        return made["fingerprint"]
    from mapgen.solving.compiled import chapter_fingerprint  # deferred: numpy's module, only for such a map

    return chapter_fingerprint(get_chapter(m.chapter))


def do_chapters(body: dict | None = None, rules: ServedRules = SHIPPED) -> tuple[int, list]:
    """Every chapter as the pages draw and explain it: under the served rules (``house_rules`` names the
    ``mapgen serve --rules`` file a chapter runs under, and what of the app still speaks of the shipped rules;
    ``rules_fingerprint`` the fingerprint of the rules served, shipped or house, as a map made under them records
    it and its helper link carries it)."""
    import maps  # deferred: maps, only for /api/chapters; not at the app's start
    from mapgen.profile import (  # deferred: mapgen.profile, only for /api/chapters; not at the app's start
        P1,
        P2,
        P3,
        PROFILE_DIR,
    )
    from mapgen.reference import (  # deferred: mapgen.reference, only for /api/chapters; not at the app's start
        chapter_json,
    )
    from mapgen.render.style import STYLES  # deferred: mapgen.render, only for /api/chapters; not at the app's start
    from mapgen.solving.compiled import (  # deferred: numpy's module, only for /api/chapters; not at the app's start
        chapter_fingerprint,
    )

    out = []
    for name in chapter_names():
        chapter = rules.chapter(name)
        entry = chapter_json(chapter)
        entry["maps"] = maps.names(name)
        entry["styles"] = {
            t.code: {"label": t.label, "colour": s.colour, "ink": s.ink, "symbol": s.symbol}
            for t, s in STYLES.items()
            if t.code in entry["terrains"]
        }
        entry["briefing_cells"] = [
            {"field": r.field, "terrain": r.terrain.code, "rule": r.id}
            for r in chapter.rules
            if isinstance(r, BriefingCell)
        ]
        entry["profile_rules"] = [{"id": r.id, "title": r.title, "text": r.text} for r in (P1, P2, P3)]
        entry["hill_max"] = chapter.hill_number_max
        spec = chapter.profile
        entry["profile"] = (PROFILE_DIR / spec).read_text(encoding="utf-8") if spec else None
        entry["house_rules"] = house_note(rules, name)
        entry["rules_fingerprint"] = chapter_fingerprint(chapter)  # what a helper link's ``rf`` must name
        out.append(entry)
    return 0, out


def house_note(rules: ServedRules, name: str) -> dict | None:
    """How /api/chapters says chapter ``name`` runs under house rules: ``{"file", "note"}``, the note naming what
    still speaks of the shipped rules; None under the shipped rules."""
    file = rules.file(name)
    if file is None:
        return None
    return {
        "file": file,
        "note": (
            f"every answer about a {name} map follows the house rules of {file}; the shipped maps' grades and a "
            f"deduction's grade tier are measured on shipped {name}'s rules (the only calibration there is)"
        ),
    }


def do_maps(body: dict | None = None, rules: ServedRules = SHIPPED) -> tuple[int, list]:
    """What ``mapgen maps --json`` prints: every shipped map, chapters in the game's order, easiest first, with
    its deduction grade and play difficulty as its ``[grade]`` table records them; a chapter served under house
    rules says its maps were graded (and made) under the shipped rules (``graded_under``)."""
    import maps  # deferred: maps, only for /api/maps; not at the app's start

    out = []
    for ch in chapter_names():
        for n in maps.names(ch):
            entry = maps.info(n)
            if rules.file(ch) is not None:
                entry["graded_under"] = f"the shipped {ch} rules, not the house rules of {rules.file(ch)}"
            out.append(entry)
    return 0, out


def do_parse(body: dict, rules: ServedRules = SHIPPED) -> tuple[int, dict]:
    """A map for the browser (``map_json``); ``rules`` unused (reading a map file asks no rule), taken as every
    endpoint's function takes them."""
    return 0, map_json(read_map_field(body))


def do_validate(body: dict, rules: ServedRules = SHIPPED) -> tuple[int, list]:
    """What ``mapgen validate --json`` prints for one file (imports no solver), under the served rules (``rules``:
    the house-rule file, as ``validate --rules`` judges it)."""
    from mapgen.validate import (  # deferred: mapgen.validate, only for /api/validate; not at the app's start
        FileReport,
        made_under,
    )

    m = read_map_field(body)
    file = _source(body)
    hidden = m.unrevealed()
    if hidden:
        raise ApiError(
            f"partial map ({quantity(len(hidden), 'unrevealed cell')}, first {m.board.name(hidden[0])}); "
            "validate needs a complete map"
        )
    report = FileReport(file, violations=tuple(check_map(m, rules.chapter(m.chapter))), made_under=made_under(m))
    out = report.to_json()
    if rules.file(m.chapter) is not None:
        out["rules"] = rules.file(m.chapter)
    return (0 if report.valid else 1), [out]


#: a rules fingerprint as ``chapter_fingerprint`` writes it
FINGERPRINT = re.compile(r"[0-9a-f]{16}")


def keeps_rules(body: dict, rules: ServedRules, chapter: str) -> None:
    """ApiError (409, exit 1) when the body's ``rules_fingerprint`` (the house rules its map was made under, as a
    helper link's ``rf`` carries it) is not the fingerprint of the rules chapter ``chapter`` is served under: the
    answer would follow other rules than the map's, wrong forced cells at the table. The error's
    ``rules_mismatch`` says which: ``{"asked", "served", "rules"}`` (``rules``: the served house file, or null)."""
    asked = _field(body, "rules_fingerprint", str, "a rules fingerprint (16 hex digits)")
    if asked is None:
        return
    if not FINGERPRINT.fullmatch(asked):
        raise ApiError(
            f"field 'rules_fingerprint' must be 16 hex digits (as a map's [generator] table), not {asked!r}"[:200]
        )
    from mapgen.solving.compiled import chapter_fingerprint  # deferred: numpy's module, only for such a request

    served = chapter_fingerprint(rules.chapter(chapter))
    if asked == served:
        return
    file = rules.file(chapter)
    now = f"the house rules of {file} (fingerprint {served})" if file else f"the shipped {chapter} rules"
    raise ApiError(
        f"this map was made under house rules of fingerprint {asked}, and this server answers {chapter} under {now}: "
        "start it with mapgen serve --rules FILE, FILE the house rules the map was made under "
        "(its [generator] table names them)",
        exit=1,
        rules_mismatch={"asked": asked, "served": served, "rules": file},
    )


def do_solve(body: dict, rules: ServedRules = SHIPPED) -> tuple[int, dict]:
    """What ``mapgen solve --json`` prints: count, exact, unique, forced (+ probabilities, target)."""
    from mapgen.report import (  # deferred: ortools, on the first request that needs it, not at the app's start
        solve_report,
    )
    from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
        NoCompletion,
        SolveTimeout,
    )

    state = read_map_field(body)
    keeps_rules(body, rules, state.chapter)
    limit = _bounded(body, "limit", 1, 1_000_000, 100_000, "a whole number")
    probabilities = _field(body, "probabilities", bool, "true or false", False)
    explain = _field(body, "explain", bool, "true or false", False)
    chapter = rules.chapter(state.chapter)
    target = _target(body, chapter)
    try:
        report = solve_report(
            state,
            limit=limit,
            probabilities=probabilities,
            target=target,
            explain=explain,
            time_limit=time_limit(body, "solve"),
            solver=solver_for(chapter),
        )
    except NoCompletion as e:
        return 1, e.report_json()
    except SolveTimeout as e:
        raise _timeout(e) from None
    _named(report, rules, state.chapter)
    if "timed_out" in report:  # what was found (the forced cells first) goes beside the error
        raise ApiError(f"{report['timed_out']} (ask for a larger time_limit)", exit=3, **report)
    return 0, report


def _named(out: dict, rules: ServedRules, chapter: str) -> dict:
    """``out`` with ``rules``: the house-rule file its answer follows, where chapter ``chapter`` is served under one."""
    if rules.file(chapter) is not None:
        out["rules"] = rules.file(chapter)
    return out


def _target(body: dict, chapter: Chapter):
    code = _field(body, "target", str, 'a terrain code, or "" for the chapter\'s counted terrain')
    if code is None:
        return None
    if code == "":
        counted = chapter.counted
        if counted is None:
            raise ApiError(f"the {chapter.name} chapter has no counted terrain; name one in 'target'")
        return counted
    return _terrain(code, "target", chapter)


def do_hint(body: dict, rules: ServedRules = SHIPPED) -> tuple[int, dict]:
    """What ``mapgen hint --json`` prints: the easiest deduction and its reason, or the best odds of ``target``;
    exit 3 with what was found when the odds, the page's best guess, or a forced cell's explanation (its counted
    share of the limit's work) did not come (``missing`` says so, as the CLI's JSON)."""
    from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
        NoCompletion,
        SolveTimeout,
    )
    from mapgen.web.hints import (  # deferred: ortools, on the first request that needs it, not at the app's start
        easiest_hint,
    )

    state = read_map_field(body)
    keeps_rules(body, rules, state.chapter)
    chapter = rules.chapter(state.chapter)
    target = _target(body, chapter) if body.get("target") else None
    exclude = _field(body, "exclude", list, "a list of cell names (hints already given)", [])
    if len(exclude) > state.board.size:
        raise ApiError(f"field 'exclude' must be a list of at most {state.board.size} cell names, not {len(exclude)}")
    for cell in exclude:  # a cell off the board, or not a name, would be skipped without a word
        if not isinstance(cell, str):
            raise ApiError(
                f"field 'exclude' must be a list of cell names (like E3), not one holding {shown(cell)}"[:300]
            )
        try:
            state.board.index(cell)
        except ValueError as e:
            raise ApiError(f"field 'exclude': {e}"[:300]) from None
    given = board_odds(body, state, target or chapter.counted)
    try:
        out = easiest_hint(
            state,
            solver=solver_for(chapter),
            target=target,
            time_limit=time_limit(body, "hint"),
            exclude=tuple(exclude),
            given=given,
        )
        return (3 if "missing" in out else 0), _named(out, rules, state.chapter)
    except NoCompletion as e:
        out = {"forced": False, "message": str(e), "conflict": e.to_json()}
        return 1, _named(out, rules, state.chapter)
    except SolveTimeout as e:
        raise _timeout(e) from None


def board_odds(body: dict, state: Map, target):
    """The hint body's ``odds``: the chances of ``target`` the helper's board shows for ``state`` (``/api/table``'s
    ``heat``, ``heat_error`` and ``heat_exact`` for that terrain, named by ``terrain``), as ``explain.GivenOdds``; None
    when the body has none. A chance is a number from 0 to 1, or null where the board has none yet ("?")."""
    from mapgen.solving.explain import (  # deferred: ortools, on the first request that needs it, not at the app's start
        GivenOdds,
    )

    odds = _field(body, "odds", dict, "an object (the board's odds: terrain, heat, heat_error, heat_exact)")
    if odds is None:
        return None

    def bad(problem: str) -> ApiError:
        return ApiError(f"field 'odds': {problem}"[:300])

    unknown = unknown_key(odds, ("terrain", "heat", "heat_error", "heat_exact"))
    if unknown is not None:
        raise bad(f"unknown key {unknown!r} (known: terrain, heat, heat_error, heat_exact)")
    if target is None:
        raise bad(f"the {state.chapter} chapter has no counted terrain for the hint to rank: name one in 'target'")
    terrain = odds.get("terrain")
    if terrain is None:
        raise bad(f"missing key 'terrain' (the hint's {target.code})")
    if terrain != target.code:  # the board shades another terrain: its odds are not the hint's
        raise bad(
            f"the odds of {terrain if isinstance(terrain, str) else shown(terrain)}, not of the hint's {target.code}"
        )
    b = state.board

    def cells(key: str, lo: float, hi: float, what: str, nullable: bool) -> dict[int, float | None]:
        given = odds.get(key, {})
        if not isinstance(given, dict):
            raise bad(f"'{key}' must be an object (cell name: {what}), not {shown(given)}")
        out: dict[int, float | None] = {}
        for name, value in given.items():
            try:
                i = b.index(name)
            except (KeyError, ValueError, TypeError, IndexError) as e:
                raise bad(f"'{key}': {e}") from None
            if value is None and nullable:
                out[i] = None
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
                raise bad(f"the {what} at {name} must be a number from {lo:g} to {hi:g}, not {shown(value)}")
            out[i] = float(value)
        return out

    exact = odds.get("heat_exact", False)
    if not isinstance(exact, bool):
        raise bad(f"'heat_exact' must be true or false, not {shown(exact)}")
    chances = cells("heat", 0.0, 1.0, "chance", True)
    errors = cells("heat_error", 0.0, 1.0, "error", False)
    return GivenOdds(chances, {i: e for i, e in errors.items() if e is not None}, exact)


def do_table(body: dict, rules: ServedRules = SHIPPED) -> tuple[int, dict]:
    """The table helper's view of a state, in one call within one time limit.

    ``{"count", "exact", "unique", "forced", "target", "heat", "heat_exact"}``: forced cells always exact (with
    ``"hill_numbers"`` where a Hill is forced: those whose number every completion gives alike, as ``solve --json``);
    the count exact when it finishes in time, else the counters' labelled estimate with ``exact: false``
    (``estimate``), null when there is none yet; ``heat`` the chance of the terrain ``heat`` names in every
    unrevealed cell, exact (``heat_exact``) when the completions could be enumerated, else only where it is
    known (0 or 1) and null where the terrain may be; ``heat`` is null when not even that could be had in time.
    ``count: "quick"`` (the first answer after a tap) counts only what answers in milliseconds: a compiled
    circuit, or a compiled enumeration capped in search nodes (``Solver.small_count``), else ``count: null``;
    ``"full"`` (default) then asks the exact and approximate counters too.
    """
    from mapgen.report import hill_fields  # deferred: with the solver
    from mapgen.solving.explain import HILL_SHARE  # deferred: with the solver
    from mapgen.solving.sat import Budget  # deferred: pysat, on the first request that needs it, not at the app's start
    from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
        CountResult,
        NoCompletion,
        SolveTimeout,
        inline_from,
    )
    from mapgen.solving.unigen import known_chance  # deferred: with the solver

    state = read_map_field(body)
    keeps_rules(body, rules, state.chapter)
    chapter = rules.chapter(state.chapter)
    heat_code = _field(body, "heat", str, "a terrain code")
    heat_t = _terrain(heat_code, "heat", chapter) if heat_code else None
    target_t = _target(body, chapter) if "target" in body else chapter.counted
    mode = _field(body, "count", str, '"quick" or "full"', "full")
    if mode not in ("quick", "full"):
        raise ApiError(f'field \'count\' must be "quick" or "full", not {mode!r}'[:200])
    limit = time_limit(body, "table")
    budget = Budget(limit)  # shares of its seconds (not of what is left): the same answer under any load
    solver = solver_for(chapter)
    b = state.board
    possible, result = None, None  # what is known when a time-out comes: carried by its 504 (below)

    try:
        possible = solver.possible(state, time_limit=budget)
        forced = {i: next(iter(ts)) for i, ts in possible.items() if len(ts) == 1}
        # a forced Hill's number where every completion gives the same one (a share of the time limit, counted work)
        hills = solver.hill_numbers(
            state, Budget.until(HILL_SHARE * limit, budget.deadline), forced=forced, possible=possible
        )
        # A compiled circuit answers at once: a cached one, else from ``inline_from`` reveals the state
        # compiled now (a fraction of a second; within 40% of the time limit in CPU seconds), else (from
        # ``compile_from``) compiled in the background and the answer says so. Which of these answers
        # depends on the state and on what was compiled before, not on the load: the wall clock running
        # out is a time-out (exit 3), never a weaker answer.
        # The wall clock ending the inline compile (a busy machine) is no time-out: the compile goes on in the background
        # and the answer says "compiling" (the page asks again until it lands); while it runs, the state and the later
        # ones it answers are not compiled inline again (each such ask would run out the same way).
        compiling = None
        inline = 0.4 * limit if sum(t is not None for t in state.cells) >= inline_from(chapter) else 0.0
        if inline and COMPILES.running(chapter, state):
            inline = 0.0
        try:
            circuit = solver.circuit(state, inline, deadline=budget.deadline)
        except SolveTimeout:
            if not inline:
                raise
            circuit = None
        if circuit is not None:
            # the circuit answers at once, with every cell's tallies (an exact heat map)
            result = solver.count(state, limit=QUICK_COUNT, time_limit=budget, exact_counter=False, possible=possible)
        else:
            compiling = COMPILES.status(chapter, state)
            # a compiled enumeration capped in search nodes (deterministic work, tens of milliseconds): exact
            # for the states with up to some thousands of completions; no count yet otherwise (never a
            # lower bound made of the completions met before a cap as the headline number)
            small = solver.small_count(state, possible)
            result = CountResult(small, True, "enumeration") if small is not None else None
        if (
            (result is None or not result.exact) and mode == "full" and compiling is None
        ):  # then the exact count (the counters)
            # compile=False: a state whose background compile failed is not compiled again here; while one
            # runs the page only polls (the counters would take CPU from the compile that answers exactly)
            result = solver.count(state, limit=100_000, time_limit=budget.part(0.8), possible=possible, compile=False)
        if result is None:  # a quick answer, or a compile going on: the count comes later
            count, exact, tallies, method = None, False, None, "none"
        else:
            count, exact, tallies, method = result.count, result.exact, result.tallies, result.method
        if mode == "full" and heat_t is not None and tallies is None and exact and count <= HEAT_ENUMERATION:
            few = solver.count(
                state, limit=HEAT_ENUMERATION + 1, time_limit=budget, exact_counter=False, possible=possible
            )
            tallies = few.tallies if few.exact else None  # few enough to enumerate: an exact heat map
        out = {
            "count": count,
            "exact": exact,
            "unique": exact and count == 1,
            "forced": {b.name(i): t.code for i, t in sorted(forced.items())},
            **hill_fields(state, hills, forced),
            "count_mode": mode,
            "method": method,
            "target": solver.target(state, target_t, possible=possible) if target_t is not None else None,
            "heat": None,
            "heat_exact": None,
        }
        if result is not None and not exact and result.estimate is not None:
            out["estimate"] = result.estimate
        if compiling is not None and method != "d-dnnf":
            of = "briefing" if COMPILES.of_briefing(chapter, state) else "reveals"
            out["compiling"] = {"seconds": round(compiling, 1), "of": of}
        if heat_t is not None:
            if tallies is not None and exact:
                out["heat"] = {b.name(i): d.get(heat_t, 0) / count for i, d in sorted(tallies.items())}
                out["heat_exact"] = True
            else:
                # Too many maps to enumerate: where the terrain can be at all (0 or 1 where known, null where
                # it may be); on a quick answer (the worker of this map: ``app.STICKY``) the chance estimated
                # from the briefing's pool of sampler draws, or "sampling" while a run for this state goes on
                out["heat"] = {b.name(i): known_chance(ts, heat_t) for i, ts in sorted(possible.items())}
                out["heat_exact"] = False
                if mode == "quick" and any(v is None for v in out["heat"].values()):
                    from mapgen.web.draws import POOLS  # deferred: numpy, only for an estimated heat map

                    out.update(POOLS.answer(chapter, state, heat_t, possible))
            out["heat_method"] = "exact" if out["heat_exact"] else "sampler" if "heat_error" in out else "none"
        return 0, _named(out, rules, state.chapter)
    except NoCompletion as e:
        return 1, _named({**e.report_json(), "target": None, "heat": None, "heat_exact": None}, rules, state.chapter)
    except SolveTimeout as e:
        if possible is None:  # nothing is known yet
            raise _timeout(e) from None
        exact = result is not None and result.exact
        found = {
            "count": result.count if exact else None,
            "exact": exact,
            "unique": exact and result.count == 1,
            "forced": {b.name(i): next(iter(ts)).code for i, ts in sorted(possible.items()) if len(ts) == 1},
            "count_mode": mode,
            "method": result.method if exact else "none",
            "target": solver.target(state, target_t, possible=possible) if target_t is not None else None,
            "heat": None,
            "heat_exact": None,
        }
        if heat_t is not None:  # where the terrain is known (0 or 1), null where it may be: exact as far as it goes
            found.update(heat={b.name(i): known_chance(ts, heat_t) for i, ts in sorted(possible.items())})
            found.update(heat_exact=False, heat_method="none")
        # what the wall clock left out, as `mapgen solve --json` says it: the forced cells (exact) kept beside the 504
        missing = [k for k, lost in (("count", not exact), ("heat", heat_t is not None)) if lost]
        raise ApiError(
            f"{e} (ask for a larger time_limit)", exit=3, **_named(found, rules, state.chapter),
            timed_out=str(e), missing=missing,
        ) from None  # fmt: skip


def _profile(body: dict, chapter: Chapter):
    """The body's ``profile`` for maps of ``chapter`` (the served rules), else the chapter's default profile (a
    house-rule file's own ``profile`` key)."""
    from mapgen.profile import (  # deferred: mapgen.profile, only for a profile; not at the app's start
        ProfileError,
        default_profile,
        profile_from_data,
    )

    text = _field(body, "profile", str, "profile file text (TOML)")
    if text is None:
        return default_profile(chapter)
    try:
        data = parse_toml(text)  # the reader of profile files: BOM, nesting, size
    except Unreadable as e:
        raise ApiError(f"profile: {e}"[:300]) from None
    try:
        profile = profile_from_data(data, "profile", chapter.name)
        profile.rules(chapter)  # a count of a terrain the chapter has not (Ma on Fauna), said now as the CLI says it
    except ProfileError as e:
        raise ApiError(str(e)[:300]) from None
    return profile


def _no_quality_target(body: dict, chapter: str) -> None:
    """A profile's ``[quality]`` target is what ``mapgen generate -c CHAPTER --profile FILE`` grades candidates until
    one meets (minutes of work); /api/generate makes one map ungraded, so a target in the profile is refused here,
    not passed over (its keys are checked as the CLI checks them). A table with no check (only ``games``) is none."""
    from mapgen.quality import (  # deferred: mapgen.quality, only for a profile with a [quality] table
        NO_CHECKS,
        QualityError,
        quality_from_data,
    )

    text = body.get("profile")
    if not isinstance(text, str) or "quality" not in text:
        return
    data = parse_toml(text)  # read once already by _profile: readable
    if "quality" not in data:
        return
    try:
        quality = quality_from_data(data["quality"], "profile", chapter, NO_CHECKS)
    except QualityError as e:
        raise ApiError(str(e)[:300]) from None
    if quality.checks:
        raise ApiError(
            "profile: [quality] asks for maps generated to a target (candidates graded until one meets it), which "
            f"/api/generate (the studio's Generate) does not do: remove the table, or run mapgen generate -c {chapter} --profile FILE"
        )


#: what a map made under a profile typed in the studio records as its ``[generator]`` profile: no file of that name
STUDIO_PROFILE = "studio"


def _typed_profile_record(m: Map, body: dict) -> Map:
    """``m`` (made under ``body``'s typed profile, if any) whose ``[generator]`` table lets a designer make it again:
    ``profile = "studio"``, ``profile_fingerprint`` (sha256 of the text, 16 hex digits, as a rules fingerprint) and
    ``profile_text``, the profile's lines (saved as a file, ``mapgen generate --profile FILE --seed N`` makes the map
    again). A record string is one line of at most MAX_RECORD_TEXT characters (mapfile): a profile with a longer
    line keeps its fingerprint only."""
    import hashlib  # deferred: hashlib, only for a typed profile; not at the app's start

    text = body.get("profile")
    record = m.meta.get("generator")
    if not isinstance(text, str) or not isinstance(record, dict):
        return m
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    typed: dict[str, str | list[str]] = {
        "profile": STUDIO_PROFILE,
        "profile_fingerprint": hashlib.sha256(text.encode()).hexdigest()[:16],
    }
    if not any(text_problem(line, MAX_RECORD_TEXT) for line in lines if line):
        typed["profile_text"] = lines
    return replace(m, meta={**m.meta, "generator": {**record, **typed}})


def do_generate(body: dict, rules: ServedRules = SHIPPED) -> tuple[int, list]:
    """What ``mapgen generate --json`` prints (one map); with ``from`` a sketch is filled instead. Under the served
    rules: a chapter served under a house-rule file gets maps that keep them, each recording the file (as
    ``generate --rules``; the API has no quality target)."""
    from mapgen.batch import MapOutput  # deferred: ortools, on the first request that needs it, not at the app's start
    from mapgen.generate import (  # deferred: ortools, on the first request that needs it, not at the app's start
        GenerationError,
        Generator,
    )
    from mapgen.repair import (  # deferred: ortools, on the first request that needs it, not at the app's start
        SketchError,
        fill_sketch,
    )
    from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
        SolveTimeout,
    )

    limit = time_limit(body, "generate")
    seed = _bounded(body, "seed", 0, 2**63 - 1, -1, "a whole number") if body.get("seed") is not None else None
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    if body.get("from") is not None:
        sketch = read_map_field(body, "from")
        asked = _field(body, "chapter", str, "a chapter name")
        if asked is not None and asked.strip().lower() != sketch.chapter:  # as generate --from SKETCH -c refuses it
            raise ApiError(f"field 'chapter': the sketch is a {sketch.chapter} map, not {asked.strip()[:60]}")
        house = rules.house_chapter(sketch.chapter)
        profile = _profile(body, rules.chapter(sketch.chapter))
        started = time.perf_counter()
        try:
            m = fill_sketch(
                sketch, profile, seed=seed, time_limit=limit, chapter=house, rules_file=rules.file(sketch.chapter)
            )
        except SketchError as e:
            raise ApiError(str(e), exit=1, rules=list(e.rules), cells=list(e.cells)) from None
        except SolveTimeout as e:
            raise _timeout(e) from None
        fields = {"from": "sketch", "seconds": round(time.perf_counter() - started, 4)}
        return 0, [MapOutput(m.chapter).put(_typed_profile_record(m, body), seed, **fields)]
    chapter = _field(body, "chapter", str, "a chapter name", required=True).strip().lower()
    if chapter not in chapter_names():
        raise ApiError(unknown_chapter(chapter)[:200])
    spec = rules.chapter(chapter)
    profile = _profile(body, spec)
    _no_quality_target(body, chapter)
    gen = Generator(spec, profile, time_limit=limit, rules_file=rules.file(chapter))
    try:
        made = gen.generate(seed)
    except GenerationError as e:  # a GenerationTimeout means exit 3, any other exit 1 (mapgen.errors)
        code = exit_code(e) or BROKEN
        named = {"rules": list(e.rules), "cells": list(e.cells)} if code == BROKEN else {}  # every 409's shape
        raise ApiError(str(e), exit=code, **named) from None
    made_map = _typed_profile_record(made.map, body)
    return 0, [MapOutput(chapter).put(made_map, seed, seconds=round(made.seconds, 4), attempts=made.attempts)]


def do_repair(body: dict, rules: ServedRules = SHIPPED) -> tuple[int, dict]:
    """What ``mapgen repair --json`` prints: the nearest valid map and each change with the rule it mends, under
    the served rules (a house-rule chapter's map records them, as ``repair --rules``)."""
    from mapgen.design import check_design  # deferred: mapgen.design, only for /api/repair; not at the app's start
    from mapgen.generate import (  # deferred: ortools, on the first request that needs it, not at the app's start
        rules_record,
        with_rules_record,
    )
    from mapgen.repair import (  # deferred: ortools, on the first request that needs it, not at the app's start
        RepairError,
        repair_map,
    )
    from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
        SolveTimeout,
    )

    m = read_map_field(body)
    within = _field(body, "within_profile", bool, "true or false", False)
    served = rules.chapter(m.chapter)
    unread = None
    try:
        profile = _profile(body, served)
    except ApiError as e:
        if within or not isinstance(body.get("profile"), str):  # Repair within the profile keeps it: it is read
            raise
        # plain Repair only reports what the map breaks of the profile: a profile it cannot read is said, not fatal
        profile, unread = None, " ".join(f"profile not read: {str(e).removeprefix('profile: ')}".split())[:300]
    chapter = profile.applied_to(served) if within and profile is not None else rules.house_chapter(m.chapter)
    file = rules.file(m.chapter)
    try:
        r = repair_map(m, chapter=chapter, time_limit=time_limit(body, "repair"))
        if file is not None:  # the house rules it keeps, by their own fingerprint (not the profile's rules added)
            r = replace(r, map=with_rules_record(r.map, rules_record(file, served)))
    except RepairError as e:
        raise ApiError(str(e), exit=1, rules=list(e.rules), cells=list(e.cells)) from None
    except SolveTimeout as e:
        raise _timeout(e) from None
    # the repaired map keeps every rule; say whether it keeps the profile too (Fill the rest and
    # Generate use it), so a designer is never surprised by a 7th Skull later
    out = _named({"file": _source(body), **r.to_json(), "within_profile": within}, rules, m.chapter)
    out["profile"] = profile.source if profile is not None else None
    out["profile_violations"] = [
        {"rule": v.rule, "title": v.title, "cells": list(v.cells), "message": v.message}
        for v in (check_design(r.map, profile) if profile is not None else ())
    ]
    if unread is not None:
        out["profile_note"] = unread
    return 0, out


def download_stem(m: Map) -> str:
    """What a download of the map is named after (``/api/render``'s pictures, a deduce job's puzzle): CHAPTER-NUMBER as
    the shipped files (fauna-1) and ``mapgen generate --out`` name theirs, so several maps never save as
    "fauna-map (1).toml"; CHAPTER-map for a map without a number. The studio saves its map file without asking the
    server, under the same stem (studio.js ``downloadStem``; tests/test_web_browser.py checks that they agree)."""
    return f"{m.chapter}-{m.briefing.number if m.briefing.number is not None else 'map'}"


RENDER_FORMATS = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf", "sheet": "application/pdf"}


def do_render(body: dict, rules: ServedRules = SHIPPED) -> tuple[bytes, str, str, str | None, int]:
    """A picture of a map (``format``: png, svg, pdf or sheet; ``layout``: wide or tall, not for a sheet), with forced
    cells and a heat map if asked, and a complete map's broken rules drawn as ``mapgen render`` draws them: its bytes,
    media type, file name, ``render``'s note on characters the font cannot draw and on odds that did not come in time
    (None when there is nothing to say; matplotlib's warnings, one a character and call, are not left to the server's
    log), and the exit code of ``mapgen render`` (3: the odds did not come in time, the picture drawn with "?")."""
    import tempfile  # deferred: tempfile (shutil, bz2, lzma), only for /api/render; not at the app's start

    from mapgen.render import (  # deferred: mapgen.render, only for /api/render; not at the app's start
        heat_options,
        odds_not_in_time,
        render_map,
    )
    from mapgen.render.output import (  # deferred: mapgen.render, only for /api/render; not at the app's start
        RenderError,
        glyph_note,
        missing_glyphs,
    )
    from mapgen.render.sheet import (  # deferred: mapgen.render, only for /api/render; not at the app's start
        render_sheet,
    )
    from mapgen.report import hills_late  # deferred: with the solver
    from mapgen.solving.explain import HILL_SHARE  # deferred: with the solver
    from mapgen.solving.solve import (  # deferred: ortools, on the first request that needs it, not at the app's start
        NoCompletion,
        SolveTimeout,
    )

    m = read_map_field(body)
    fmt = _field(body, "format", str, "png, svg, pdf or sheet", "png")
    if fmt not in RENDER_FORMATS:
        raise ApiError(f"field 'format' must be one of png, svg, pdf, sheet, not {fmt!r}"[:200])
    paper = _field(body, "paper", str, "a4 or letter", "a4")
    if paper not in ("a4", "letter"):
        raise ApiError(f"field 'paper' must be a4 or letter, not {paper!r}"[:200])
    layout = _field(body, "layout", str, "wide or tall", "wide")
    if layout not in ("wide", "tall"):
        raise ApiError(f"field 'layout' must be wide or tall, not {layout!r}"[:200])
    if fmt == "sheet" and body.get("layout") is not None:  # it would be dropped without a word, as render --sheet
        raise ApiError("field 'layout' arranges a picture of a map; a sheet has a layout of its own")
    if fmt != "sheet" and body.get("paper") is not None:  # dropped without a word, as render --paper without --sheet
        raise ApiError(
            "field 'paper' is the paper of a printable sheet: ask format 'sheet' (a map alone is drawn to its own size)"
        )
    want_forced = _field(body, "forced", bool, "true or false", False)
    heat_code = _field(body, "heat", str, "a terrain code")
    chapter = rules.chapter(m.chapter)
    heat_t = _terrain(heat_code, "heat", chapter) if heat_code else None
    forced = heat = hills = None
    if (want_forced or heat_t) and not m.complete:
        solver = solver_for(chapter)
        try:
            if want_forced:
                forced = solver.forced(m, time_limit=DEFAULT_TIME["solve"])
                hills = solver.hill_numbers(m, HILL_SHARE * DEFAULT_TIME["solve"], forced=forced)
            if heat_t:
                heat = solver.heat_answer(m, heat_t, time_limit=DEFAULT_TIME["solve"])
        except NoCompletion as e:  # every 409's shape: the conflict's rules and cells, as /api/solve names them
            raise ApiError(str(e), exit=1, rules=list(e.rules), cells=list(e.cells)) from None
        except SolveTimeout as e:
            raise _timeout(e) from None
    notes = []
    if not m.complete and not (want_forced or heat_t):  # a puzzle drawn for print, as ``mapgen render`` draws it:
        conflict = solver_for(chapter).partial_conflict(m, DEFAULT_TIME["solve"])  # as ``mapgen render``
        if conflict is not None:
            notes.append(f"no map completes this partial map: {conflict}{rules.under(m.chapter)}")
    suffix = "pdf" if fmt == "sheet" else fmt
    fd, path = tempfile.mkstemp(suffix=f".{suffix}", prefix="mapgen-render-")
    os.close(fd)
    try:
        kw = {"forced": forced, **heat_options(heat, heat_t.label if heat_t else "")}
        if hills is not None and hills.numbers:
            kw["hill_numbers"] = hills.numbers
        if rules.file(m.chapter) is not None:  # its terrains and, on a sheet, the rules listed: the house chapter's
            kw["chapter"] = chapter
        # a complete map's broken rules (a designer's hand-made map) framed in red and listed, as ``mapgen render``:
        # the downloaded picture of a broken map looked sound
        broken = check_map(m, chapter) if m.complete else []
        try:  # a worker draws one picture at a time (``draw`` and ``slow`` pools): the warnings caught are its own
            with missing_glyphs() as missing:
                if fmt == "sheet":
                    render_sheet(m, path, paper=paper, violations=broken, **kw)
                else:
                    render_map(m, path, violations=broken, layout=layout, **kw)
        except RenderError as e:
            raise ApiError(str(e)[:300]) from None
        with open(path, "rb") as f:
            data = f.read()
    finally:
        os.unlink(path)
    stem = download_stem(m)
    name = f"{stem}-sheet.pdf" if fmt == "sheet" else f"{stem}.{fmt}"
    if missing:
        notes.append(glyph_note(name, "picture", missing, "drawn as boxes"))
    hills_note = hills_late(m, hills) if hills is not None else ""
    if hills_note:  # said, never guessed: the picture shows those Hills without a number
        notes.append(hills_note)
    late = odds_not_in_time(heat, heat_t.label) if heat_t is not None else None
    if late is not None:  # as `mapgen render --probabilities` says it, exit 3
        limit = DEFAULT_TIME["solve"]
        notes.append(
            f'{late} (time limit {limit:g} s): drew what was found ("?" where it may be), missing: probabilities'
        )
    return data, RENDER_FORMATS[fmt], name, "; ".join(notes) or None, 0 if late is None else TIMEOUT


def puzzle_note(text: str) -> str | None:
    """The note a deduce job's puzzle comes with: ``mapgen deduce --puzzle``'s when the puzzle is numbered by the seed
    that makes its answer (``seed_number_note``), read from the map file the job deduced; else None."""
    return seed_number_note(parse_map(text))


# -- long jobs: bodies checked here, run in worker processes (see jobs.py) ----------------------------


def complete_valid_map(body: dict, rules: ServedRules = SHIPPED) -> Map:
    m = read_map_field(body)
    if not m.complete:
        raise ApiError(f"a partial map ({quantity(len(m.unrevealed()), 'unrevealed cell')}); this needs a complete map")
    broken = check_map(m, rules.chapter(m.chapter))
    if broken:
        # every 409's shape: the rules broken and their cells, as a client marks them (the message names the first)
        cells = {c for v in broken for c in v.cells}
        raise ApiError(
            f"the map breaks {broken[0]}{rules.under(m.chapter)} (validate it first)"[:300],
            exit=1,
            rules=list(dict.fromkeys(v.rule for v in broken)),
            cells=[name for name in (m.board.name(i) for i in range(m.board.size)) if name in cells],
        )
    return m


def _house_args(m: Map, rules: ServedRules) -> dict:
    """What a job needs to run under the served rules: ``rules``, the house chapter (None: the shipped one), and
    ``rules_file``, its file as given to ``mapgen serve --rules``."""
    return {"rules": rules.house_chapter(m.chapter), "rules_file": rules.file(m.chapter)}


def deduce_args(body: dict, rules: ServedRules = SHIPPED) -> dict:
    m = complete_valid_map(body, rules)
    return {
        **_house_args(m, rules),
        "text": dumps_map(m),
        "seed": _bounded(body, "seed", 0, 2**31 - 1, 0, "a whole number"),
        "profile": _field(body, "profile", bool, "true or false", True),
        "time_limit": time_limit(body, "deduce"),
        "stem": download_stem(m),  # the puzzle's file name, CHAPTER-NUMBER-puzzle.toml
    }


def playtest_args(body: dict, rules: ServedRules = SHIPPED) -> dict:
    m = complete_valid_map(body, rules)
    from mapgen.engine.bots import BOTS  # deferred: the bots import ortools; not at the app's start

    bot = _field(body, "bot", str, "the name of a bot", "heuristic")
    if bot not in BOTS:
        raise ApiError(f"field 'bot' must be one of {', '.join(BOTS)}, not {bot!r}"[:200])
    mode = _field(body, "mode", str, "coop or traitor")
    if mode is not None and mode not in ("coop", "traitor"):
        raise ApiError(f"field 'mode' must be coop or traitor, not {mode!r}"[:200])
    args = {
        **_house_args(m, rules),
        "text": dumps_map(m),
        "games": _bounded(body, "games", 1, 5_000, 200, "a whole number"),
        "bot": bot,
        "players": _bounded(body, "players", 1, 4, 1, "a whole number"),
        "seed": _bounded(body, "seed", 0, 2**31 - 1, 0, "a whole number"),
        "mode": mode,
        "source": _source(body),
    }
    _check_playtest(m, args)
    return args


def _check_playtest(m: Map, args: dict) -> None:
    """What ``mapgen playtest`` refuses before its first game, refused here before the job starts, in its
    words: a mode the chapter does not have, a team the rules forbid (409, exit 1), a name no card has (exit 2), a
    bot not installed."""
    from mapgen.engine.game import GameError  # deferred: the engine, only for /api/playtest; not at the app's start
    from mapgen.engine.playtest import (  # deferred: ortools, on the first request that needs it, not at the app's start
        Settings,
        make_game,
    )

    if args["bot"] == "ismcts":
        from mapgen.engine.bots.ismcts import (  # deferred: ortools, on the first request that needs it, not at the app's start
            require_openspiel,
        )

        try:
            require_openspiel()
        except ImportError as e:
            raise ApiError(f"bot ismcts: {e}"[:300], exit=1) from None
    s = Settings(
        bot=args["bot"], players=args["players"], seed=args["seed"], mode=args["mode"], reference=args["rules"]
    )
    try:
        make_game(m, s, 0)
    except GameError as e:  # the request's field at fault named, as the CLI names its option
        text = f"{e.setting}: {e}" if e.setting else str(e)
        raise ApiError(text[:300], exit=exit_code(e) or BROKEN) from None
