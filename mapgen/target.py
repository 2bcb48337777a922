"""Generation to a target: make candidate maps, grade each, keep those that pass (Tatham's ``new_game_desc``).

Candidate k of a search from seed S is the map ``Generator.generate(S + k)`` graded with seed S + k, so
the kept maps are the first ``count`` passing seeds in order: the same seed gives the same maps whatever
ran them (one process, many, Ray) and however many candidates ran at once. The search stops when enough
maps pass, after ``max_candidates`` candidates, or at the time limit (never a hang); short of ``count``
it reports how many were tried, why they failed, and the closest candidates.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from constraints.catalogue import Chapter
from mapgen.batch import MapOutput, check_seconds, start_batch
from mapgen.campaign import Backend, Local, Ray, Task, run
from mapgen.engine.game import game_variants
from mapgen.errors import TimeLimitError, UnmetError
from mapgen.generate import GenerationTimeout, Generator
from mapgen.grade import GradeSettings, MapGrade, assemble, tasks_for
from mapgen.mapfile import dumps_map, parse_map, with_grade_table
from mapgen.model import Map
from mapgen.profile import Profile
from mapgen.quality import Quality
from mapgen.solving.solve import SolveTimeout
from mapgen.terrain import quantity


class TargetMissed(UnmetError):
    """Fewer maps than asked met the target (exit 1); ``result`` holds the closest candidates."""

    def __init__(self, message: str, result: SearchResult):
        super().__init__(message)
        self.result = result


class TargetOutOfTime(TimeLimitError, TargetMissed):
    """Fewer maps than asked met the target when the time ran out (the search's, or a candidate's generation or
    grading): exit 3, as for any time limit; the maps kept are those of the seeds before (decided by work)."""


@dataclass(frozen=True)
class Candidate:
    """One generated candidate: its seed, the map (None when generation failed) and its grade or failure."""

    seed: int
    map_text: str | None
    grade: MapGrade | None
    failure: str | None = None  # generation failed (timed out) or grading ran out of time
    seconds: float = 0.0

    @property
    def passes(self) -> bool:
        return self.grade is not None and self.grade.passes

    @property
    def distance(self) -> float:
        return float("inf") if self.grade is None else self.grade.distance

    def reasons(self) -> list[str]:
        if self.failure:
            return [self.failure]
        return [f.text for f in self.grade.flags] if self.grade else []

    def to_json(self) -> dict:
        return {
            "seed": self.seed,
            "passes": self.passes,
            "reasons": self.reasons(),
            "seconds": round(self.seconds, 3),
            "grade": self.grade.to_json() if self.grade else None,
        }


@dataclass
class SearchResult:
    chapter: str
    quality: Quality
    count: int
    kept: list[Candidate] = field(default_factory=list)
    tried: int = 0
    failures: Counter = field(default_factory=Counter)  # flag code (or "generation") -> candidates
    closest: list[Candidate] = field(default_factory=list)
    seconds: float = 0.0
    stopped: str = ""  # "enough", "candidates" or "time"
    out_of_time: Candidate | None = None  # the candidate whose generation or grading ran out of time (stopped "time")

    @property
    def done(self) -> bool:
        return len(self.kept) >= self.count

    def summary(self) -> str:
        """One paragraph: tried, kept, why the others failed."""
        counts = [(k, n) for k, n in self.failures.most_common() if k != "tier_full"]
        why = ", ".join(f"{_FAILURE_WORDS.get(k, k)} {n}" for k, n in counts)
        full = self.failures["tier_full"]  # these passed: not failures, and "... was full 1" read wrong
        # a candidate is counted under each check it fails: "tried 7, kept 2; failed: grade 5, win rate 1" read as 6
        # failures of 5 candidates
        failing = self.tried - len(self.kept) - full
        several = " (a candidate can fail several checks)" if sum(n for _, n in counts) > failing else ""
        why = f"{failing} failed{several}: {why}" if why else "none failed"
        if full:
            why += (
                f"; {full} other{'s' if full != 1 else ''} passed but {'their' if full != 1 else 'its'} tier was full"
            )
        per = (
            f"; {self.tried / len(self.kept):.1f} candidates and {self.seconds / len(self.kept):.1f} s per kept map"
            if self.kept
            else ""
        )
        return (
            f"tried {self.tried} candidate{'s' if self.tried != 1 else ''} in {self.seconds:.1f} s, kept "
            f"{len(self.kept)} of {self.count} asked{per}; {why}"
        )

    def to_json(self) -> dict:
        return {
            "chapter": self.chapter,
            "quality": self.quality.to_json(),
            "asked": self.count,
            "tried": self.tried,
            "kept": [c.to_json() for c in self.kept],
            "failures": dict(self.failures.most_common()),
            "closest": [c.to_json() for c in self.closest],
            "seconds": round(self.seconds, 3),
            "stopped": self.stopped,
        }


_FAILURE_WORDS = {
    "grade": "deduction grade",
    "win_rate": "win rate outside the band",
    "walled_in": "sealed walled in too often",
    "guessed_target": "a target found before deduced",
    "generation": "no map generated in time",
    "timeout": "grading ran out of time",
}

#: a candidate's failures that are the wall clock's, not the map's: they end the search (stopped "time", exit 3)
_OUT_OF_TIME = ("generation", "timeout")

_GENERATORS: dict = {}


def _generator(chapter: str | Chapter, profile: Profile, time_limit: float, rules_file: str | None = None):
    """One Generator per (chapter, profile, house rules) in each worker process: the chapter model is built once."""
    key = (chapter, repr(profile), rules_file)
    gen = _GENERATORS.get(key)
    if gen is None:
        if len(_GENERATORS) > 8:
            _GENERATORS.clear()
        gen = _GENERATORS[key] = Generator(chapter, profile, time_limit=time_limit, rules_file=rules_file)
    gen.time_limit = time_limit
    return gen


def candidate(
    chapter: str,
    profile: Profile,
    seed: int,
    quality: Quality,
    settings: GradeSettings,
    gen_time: float,
    rules_file: str | None = None,
) -> Candidate:
    """Generate the map of ``seed`` and grade it against ``quality`` (a campaign task: runs anywhere). Under house
    rules (``settings.rules``, loaded from ``rules_file``) the map keeps them and is graded under them, and both its
    ``[generator]`` and ``[grade]`` tables name them (as ``generate --rules`` and ``grade --rules``)."""
    started = time.perf_counter()
    gen = _generator(settings.rules or chapter, profile, gen_time, rules_file)
    try:
        made = gen.generate(seed)
    except GenerationTimeout:
        return Candidate(seed, None, None, "generation", time.perf_counter() - started)
    m = made.map
    tasks = tasks_for(m, settings)
    try:
        results = run(tasks, Local(1))
    except SolveTimeout:
        return Candidate(seed, dumps_map(m), None, "timeout", time.perf_counter() - started)
    g = assemble(f"{chapter}-{seed}", m, settings, results, quality)
    if settings.rules is not None:
        g = replace(g, rules=gen.rules or None)
    return Candidate(seed, dumps_map(m), g, None, time.perf_counter() - started)


def settings_for(
    quality: Quality,
    seed: int,
    time_limit: float,
    *,
    deduce: bool = False,
    rules: Chapter | None = None,
    variants: tuple[str, ...] = (),
) -> GradeSettings:
    """Only what the targets need: the band's bot (its games) and the deduction when a grade or targets are
    asked (or ``deduce``); under ``rules`` (a house chapter) when given, the games under ``variants``."""
    games = {b: quality.games.get(b, 200) for b in quality.bots_needed()}
    return GradeSettings(
        games=games,
        seed=seed,
        deduce=deduce or quality.needs_deduction(),
        time_limit=time_limit,
        rules=rules,
        variants=variants,
    )


def search(
    chapter: str,
    profile: Profile,
    quality: Quality,
    *,
    seed: int = 0,
    count: int = 1,
    time_limit: float = 600.0,
    max_candidates: int = 200,
    map_time: float = 10.0,
    where: Backend | None = None,
    progress=None,
    closest: int = 3,
    per_tier: dict[str, int] | None = None,
    deduce: bool = False,
    rules: Chapter | None = None,
    rules_file: str | None = None,
    variants: tuple[str, ...] = (),
) -> SearchResult:
    """Candidates from ``seed`` on until ``count`` pass; see the module docstring.

    ``per_tier`` ({"Gentle": 2, ...}, with no ``quality.grade``): fill each deduction tier's share in one
    pass over the seeds instead (a graded library); a passing map whose tier is full is not kept.
    ``deduce``: grade every candidate's deduction even when no target needs it (its tier goes in ``[grade]``).
    ``rules``: a house chapter (loaded from ``rules_file``) every candidate keeps and is graded under (the tier's
    cuts and the default bands in ``quality`` stay the shipped chapter's measures, as ``grade --rules`` says).
    ``variants``: the named variants the candidates' games are played under (``mapgen grade --variant``; a
    GameError, before any candidate, for one of another chapter, naming the setting).
    ``progress`` is called with (candidates tried, maps kept). Raises GenerationError when the profile
    itself admits no map (every candidate would fail the same way).
    """
    check_seconds(time_limit, "search")
    check_seconds(map_time, "search", "map_time")
    variants = tuple(sorted(game_variants(variants, chapter)))
    where = where or Local(1)
    started = time.monotonic()
    deadline = started + time_limit
    room = dict(per_tier or {})
    if per_tier:
        count = sum(per_tier.values())
    result = SearchResult(chapter, quality, count)
    batch = max(1, 2 * where.workers) if isinstance(where, Local) else max(2, where.workers)
    next_seed = seed
    graded: list[Candidate] = []
    while not result.done:
        left = deadline - time.monotonic()
        todo = min(batch, max_candidates - result.tried)
        if todo <= 0:
            result.stopped = "candidates"
            break
        if left <= 0 or result.out_of_time is not None:
            result.stopped = "time"
            break
        tasks = [
            Task(
                candidate,
                (
                    chapter,
                    profile,
                    s,
                    quality,
                    settings_for(
                        quality, s, max(1.0, left), deduce=deduce or bool(per_tier), rules=rules, variants=variants
                    ),
                    min(map_time, max(1.0, left)),
                    rules_file,
                ),
            )
            for s in range(next_seed, next_seed + todo)
        ]
        next_seed += todo
        for c in run(tasks, where):  # in seed order: the first passing seeds are kept, whatever the batch
            if result.done:
                break
            result.tried += 1
            if c.failure in _OUT_OF_TIME:
                # its generation or grading ran out of the wall clock: skipping it made the kept maps the machine's
                # load's doing (a busy machine kept later seeds), so the search ends here, with the seeds before it
                result.failures[c.failure] += 1
                result.stopped, result.out_of_time = "time", c
                break
            graded.append(c)
            if c.passes and per_tier:
                if room.get(c.grade.tier, 0) > 0:
                    room[c.grade.tier] -= 1
                    result.kept.append(c)
                else:
                    result.failures["tier_full"] += 1
            elif c.passes:
                result.kept.append(c)
            elif c.failure:
                result.failures[c.failure] += 1
            else:
                for f in c.grade.flags:
                    result.failures[f.code] += 1
            if progress:
                progress(result.tried, len(result.kept))
    else:
        result.stopped = "enough"
    result.seconds = time.monotonic() - started
    failed = [c for c in graded if not c.passes and c.grade is not None]
    result.closest = sorted(failed, key=lambda c: (c.distance, c.seed))[:closest]
    return result


def kept_map(c: Candidate) -> Map:
    """A kept candidate's map with its ``[grade]`` table (which ``validate`` ignores)."""
    return with_grade_table(parse_map(c.map_text), c.grade.table())


#: the whole search's default time limit in seconds (``generate_to_target`` with no ``time_limit``)
SEARCH_TIME = 600.0


@dataclass
class TargetRun:
    """What ``generate_to_target`` did: the search, its time limit, and the kept maps as ``MapOutput.put``
    summaries (chapter, seed, file or None, text), in seed order."""

    result: SearchResult
    time_limit: float
    candidates: int
    put: list[dict] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.result.done

    @property
    def files(self) -> list[str]:
        """The kept maps' files (none when printed)."""
        return [p["file"] for p in self.put if p["file"] is not None]

    def to_json(self) -> dict:
        """The search's report, each kept map with its ``file`` (or None) and ``text``."""
        report = self.result.to_json()
        for kept, p in zip(report["kept"], self.put):
            kept["file"] = p["file"]
            kept["text"] = p["text"]
        return report

    def missed(self) -> TargetMissed:
        """The error for a search short of its count: how many met the target, why it stopped, the closest
        (``TargetOutOfTime``, exit 3, when the time ran out)."""
        r = self.result
        first = r.closest[0] if r.closest else None
        near = f"; closest: seed {first.seed} ({'; '.join(first.reasons())})" if first else ""
        late = r.out_of_time
        stop = {
            "time": f"the time limit of {self.time_limit:g} s ran out"
            if late is None
            else f"seed {late.seed}: {_FAILURE_WORDS[late.failure or '']}",
            "candidates": f"all {quantity(self.candidates, 'candidate')} tried",
        }
        return (TargetOutOfTime if r.stopped == "time" else TargetMissed)(
            f"only {len(r.kept)} of {quantity(r.count, r.chapter + ' map')} met the target ({stop.get(r.stopped, '')}){near}",
            r,
        )


def generate_to_target(
    chapter: str,
    quality: Quality,
    *,
    seed: int | None = None,
    count: int = 1,
    out_dir: str | None = None,
    profile_file: str | None = None,
    time_limit: float | None = None,
    candidates: int = 200,
    where: Backend | None = None,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    rules: Chapter | None = None,
    rules_file: str | None = None,
    variants: tuple[str, ...] = (),
) -> TargetRun:
    """``mapgen generate`` with a quality target: ``search`` from ``seed`` (random when None) for ``count`` maps
    among ``candidates``, within ``time_limit`` seconds (``SEARCH_TIME`` when None); each kept map, with its
    ``[grade]`` table, printed or written to ``out_dir`` through ``MapOutput`` (every file a candidate could
    become is checked, and a Ray cluster joined, before the work). A search short of ``count`` is returned too
    (its maps are written): ``run.missed()`` is the error to raise once it is reported. ``rules``: a house chapter
    (loaded from ``rules_file``) the candidates are made and graded under, as ``search`` says (without
    ``profile_file``, its own profile key); ``variants``: the candidates' games' (``search``). Raises what ``start_batch``, ``MapOutput``, ``Ray.connect`` and
    ``search`` raise."""
    if time_limit is not None:
        check_seconds(time_limit, "generate_to_target")
    seed, profile = start_batch(
        chapter if rules is None else rules, seed, count, candidates, out_dir, profile_file, "--candidates"
    )
    out = MapOutput(chapter, out_dir, force=force)
    out.check(range(seed, seed + candidates))  # every file a candidate could become, checked before the work
    if isinstance(where, Ray):
        where.connect()  # and the cluster joined: a wrong address fails before any candidate is made
    limit = SEARCH_TIME if time_limit is None else time_limit
    result = search(
        chapter,
        profile,
        quality,
        seed=seed,
        count=count,
        time_limit=limit,
        max_candidates=candidates,
        where=where,
        progress=progress,
        rules=rules,
        rules_file=rules_file,
        variants=variants,
    )
    return TargetRun(result, limit, candidates, [out.put(kept_map(c), c.seed) for c in result.kept])


__all__ = [
    "SEARCH_TIME",
    "Candidate",
    "SearchResult",
    "TargetMissed",
    "TargetRun",
    "candidate",
    "generate_to_target",
    "kept_map",
    "search",
    "settings_for",
]
