"""Generation of new maps: a random briefing, then CP-SAT finds a map true to every rule and setting.

The profile's settings are rules too (``Profile.rules``: P1, P2, P3), appended to the chapter's rules;
the model of them all is built once per ``Generator`` (without the briefing) and cloned for each map,
which adds that map's briefing. Every map passes the plain-Python checks before it is returned.
"""

from __future__ import annotations

import numbers
import random
import time
from dataclasses import dataclass, replace
from pathlib import Path

import ortools

from constraints.catalogue import Chapter, check_map, get_chapter, is_shipped, with_hill_numbers
from constraints.cpsat import ChapterModel, clock_stopped, make_solver
from mapgen import __version__
from mapgen.errors import InputError, TimeLimitError, UnmetError
from mapgen.inputs import a_kind, seconds_problem, text_problem
from mapgen.mapfile import MAX_RECORD_TEXT, parse_pattern
from mapgen.model import Briefing, Map, Pattern
from mapgen.profile import Profile, ProfileError, default_profile
from mapgen.terrain import Terrain

ATTEMPTS = 8  # random briefings tried before a request is judged impossible


class GenerationError(UnmetError):
    """A request that cannot be met; the message names the settings and rules that conflict, and ``rules`` holds
    their labels (rule ids, profile settings as written: ``counts.Ft = [5, 5]``, as ``SketchError`` names them),
    empty when none was named; ``cells`` is empty (no cell of a map to be made is part of a conflict)."""

    def __init__(self, message: str, rules: tuple[str, ...] = (), cells: tuple[str, ...] = ()):
        super().__init__(message)
        self.rules = rules
        self.cells = cells

    def __reduce__(self):  # whole from a worker process (generate --jobs): the rules named too
        return type(self), (str(self), self.rules, self.cells)


class GenerationTimeout(TimeLimitError, GenerationError):
    """No map was found within the time limit (the request may still be possible with more time)."""


class SettingError(InputError, ValueError):
    """A Generator's setting it cannot use (exit 2): a time limit below 0 or NaN, which ran out before the first
    map was tried and was reported as a time-out (exit 3)."""


class SeedError(InputError, ValueError):
    """A seed a map file cannot record (its map number: a TOML integer, 0 to 2**63 - 1, as ``--seed`` takes)."""


#: the largest seed: a made map's number is its seed, and TOML's integers are signed 64-bit
MAX_SEED = 2**63 - 1


def checked_seed(seed: object) -> int:
    """A map's seed as an int: TypeError for one that is no whole number (``"1"`` made another map than ``1``),
    SeedError (exit 2) for one outside 0 to ``MAX_SEED`` (what a map file's number can record)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, numbers.Integral)):
        raise TypeError(f"a seed is a whole number from 0 to 2**63 - 1, not {seed!r}")
    seed = int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise SeedError(f"seed {seed} is beyond what a map file can record (0 to 2**63 - 1, TOML's largest integer)")
    return seed


#: CP-SAT's random_seed is a 32-bit int: a larger map seed is folded into its range (the same below 2**31)
CP_SAT_SEEDS = 2**31


@dataclass(frozen=True)
class Generated:
    """What ``Generator.generate`` made: the ``map``, the ``seed`` it was made for, the ``attempts`` (random
    briefings tried) and the wall-clock ``seconds`` it took."""

    map: Map
    seed: int
    attempts: int
    seconds: float


def ortools_version() -> str:
    return ortools.__version__


def generator_record(seed: int, profile: str, rules: dict | None = None) -> dict:
    """A made map's ``[generator]`` table: the versions, seed and profile that make it again; ``rules``: the house
    rules it was made under (``rules_record``)."""
    return {"mapgen": __version__, "ortools": ortools_version(), "seed": seed, "profile": profile, **(rules or {})}


#: The ``[generator]`` keys that say which house-rule chapter file a map was made under (``rules_record``).
RULES_KEYS = ("rules", "rules_fingerprint")


def rules_record(rules_file: str | None, chapter: Chapter) -> dict:
    """What a map made under a house-rule chapter file records in its ``[generator]`` table: the file's name and
    the fingerprint of the rules it holds (``chapter_fingerprint``: board, terrains and every rule instance, not
    the wording), so a designer can tell later which rules a map was made for; {} without a file."""
    if rules_file is None:
        return {}
    from mapgen.solving.compiled import chapter_fingerprint  # deferred: numpy's module, only for house rules

    name = Path(rules_file).name or str(rules_file)
    if text_problem(name, MAX_RECORD_TEXT):  # a line break in a file name: the map file must read back
        name = repr(name)[:MAX_RECORD_TEXT]
    return {"rules": name, "rules_fingerprint": chapter_fingerprint(chapter)}


def with_rules_record(m: Map, rules: dict) -> Map:
    """``m`` whose ``[generator]`` table says the house rules it keeps (``rules_record``), or none (``{}``: the
    shipped chapter's), whatever an earlier table said."""
    table = {k: v for k, v in (m.meta.get("generator") or {}).items() if k not in RULES_KEYS}
    table.update(rules)
    meta = {k: v for k, v in m.meta.items() if k != "generator"}
    return replace(m, meta={**meta, "generator": table} if table else meta)


def _tune(solver) -> None:
    """Parameters measured to suit these small models (see bench/bench_generate.py): inprocessing
    alone costs three times the search on a 7x7 map."""
    solver.parameters.linearization_level = 0
    solver.parameters.cp_model_probing_level = 0
    solver.parameters.use_sat_inprocessing = False


class Generator:
    """Makes maps of one chapter under one profile; reuse it for a batch."""

    def __init__(
        self,
        chapter: str | Chapter,
        profile: Profile | None = None,
        *,
        time_limit: float = 10.0,
        rules_file: str | None = None,
        work: float | None = None,
    ):
        """``rules_file``: the house-rule chapter file ``chapter`` was loaded from; each map records its name and
        the rules' fingerprint (``rules_record``). ``work``: CP-SAT's deterministic seconds the search for one map
        may take in all (its attempts together), so that whether a seed's map is found is the same on any load;
        ``time_limit`` is then the wall clock's safety net. None: the time limit alone bounds it."""
        self.chapter = get_chapter(chapter) if isinstance(chapter, str) else chapter
        self.rules = rules_record(rules_file, self.chapter)
        if profile is not None and not isinstance(profile, Profile):  # a name or a path: an AttributeError below
            raise TypeError(
                f"Generator's profile is a Profile, not {a_kind(profile, shown=True)}: "
                "mapgen.profile.load_profile(path), or default_profile(chapter); None for the chapter's default"
            )
        if profile is not None and profile.chapter != self.chapter.name:  # its settings were put on another chapter
            raise ProfileError(
                f"Generator's profile ({profile.source}) is for chapter {profile.chapter}, not {self.chapter.name}: "
                f"load_profile(path, {self.chapter.name!r}), or default_profile({self.chapter.name!r})"
            )
        self.profile = profile or default_profile(self.chapter)  # a house-rule file's own profile key
        #: The chapter with the profile's rules (P1, P2, P3) appended: what every map keeps.
        self.designed = self.profile.applied_to(self.chapter)
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, numbers.Real)):
            # "x": "could not convert string to float"; "5" was taken as 5 s, where the Solver refuses it
            raise TypeError(f"Generator's time_limit: seconds (a number), not {time_limit!r}")
        problem = seconds_problem(time_limit)
        if problem is not None:
            raise SettingError(f"Generator's {problem}")
        self.time_limit = float(time_limit)
        self.work = None if work is None else float(work)
        self.board = self.chapter.board
        self._base: ChapterModel | None = None
        # a shipped chapter under its own profile admits maps (the shipped maps are some, and the tests generate
        # them): only a designer's profile or house rules are checked first (0.07 s, 4x a shipped map's making)
        self._free_checked = is_shipped(self.chapter) and self.profile == default_profile(self.chapter)

    # -- the model ---------------------------------------------------------------------------
    def base_model(self) -> ChapterModel:
        if self._base is None:
            self._base = ChapterModel(self.designed, None)
        return self._base

    def model_for(self, briefing: Briefing, guarded: bool = False) -> ChapterModel:
        if guarded:
            return ChapterModel(self.designed, briefing, guarded=True)
        return self.base_model().with_briefing(briefing)

    # -- briefings ---------------------------------------------------------------------------
    def random_briefing(self, rng: random.Random) -> Briefing:
        p, b = self.profile, self.board
        interior = [i for i in range(b.size) if not b.is_edge(i)]
        peak = p.peak if p.peak is not None else rng.choice(interior)
        if self.chapter.default_peak and p.peak is None and p.source == "default":
            peak = b.index(self.chapter.default_peak)
        start = greek_fire = pattern = None
        fields = self.chapter.briefing  # the registry says which fields this chapter's briefing holds
        if "start" in fields:
            start = p.start if p.start is not None else rng.choice(list(b.col_cells(7)))
        if "greek_fire" in fields:
            options = [i for i in range(b.size) if i not in (start, peak)]
            greek_fire = p.greek_fire if p.greek_fire is not None else rng.choice(options)
        if "fort_pattern" in fields:
            pattern = parse_pattern(p.fort_pattern) if p.fort_pattern else self.random_pattern(rng)
        return Briefing(peak=peak, start=start, fort_pattern=pattern, greek_fire=greek_fire)

    def random_pattern(self, rng: random.Random) -> Pattern:
        """A mini map: a few terrain cells within one step of the Fort, in the smallest box holding them."""
        lo, hi = self.profile.pattern_cells
        offsets = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
        chosen = rng.sample(offsets, rng.randint(lo, hi))
        terrains = self.profile.pattern_terrains or (Terrain.VINE, Terrain.SKULL, Terrain.TIPI)
        # Distinct terrains: a telling pattern, and one the three Forts can all meet far more often.
        picks = (
            rng.sample(terrains, len(chosen))
            if len(terrains) >= len(chosen)
            else [rng.choice(terrains) for _ in chosen]
        )
        placed = dict(zip(chosen, picks))
        placed[(0, 0)] = Terrain.FORT
        rows = range(min(r for r, _ in placed), max(r for r, _ in placed) + 1)
        cols = range(min(c for _, c in placed), max(c for _, c in placed) + 1)
        return Pattern(rows=tuple(tuple(placed.get((r, c)) for c in cols) for r in rows))

    def weights(self) -> dict[Terrain, float]:
        """How often each terrain is suggested to the solver: the middle of its profile bounds."""
        out = {}
        for t in self.chapter.terrains:
            lo, hi = self.profile.counts.get(t, (None, None))
            if t is Terrain.WOOD:
                out[t] = float(self.board.width)
            elif lo is not None or hi is not None:
                out[t] = ((lo or 0) + (hi if hi is not None else (lo or 0) + 4)) / 2
            else:
                out[t] = 3.0
        return out

    def hint(self, cm: ChapterModel, rng: random.Random) -> None:
        """Suggest a random map to the solver: different seeds lead it to very different maps."""
        weights = self.weights()
        for i, cell in enumerate(cm.x):
            options = [t for t in cell if cm.possible(i, t)]
            pick = rng.choices(options, [weights[t] for t in options])[0]
            for t, v in cell.items():
                cm.model.add_hint(v, t is pick)

    # -- generation --------------------------------------------------------------------------
    def generate(self, seed: int) -> Generated:
        """One map for a seed: the same seed, chapter, profile and versions give the same map (``mapgen generate
        --seed`` makes it too). TypeError for a seed that is no int, SeedError (exit 2) for one outside 0 to
        ``MAX_SEED``; GenerationError (exit 1) when the profile cannot be met, GenerationTimeout (exit 3) when no
        map is found within the generator's ``time_limit``."""
        seed = checked_seed(seed)
        started = time.perf_counter()
        conflict = self.briefing_free_conflict(self.time_limit)
        if conflict is not None:
            raise conflict
        rng = random.Random(f"mapgen:{self.chapter.name}:{seed}")
        briefing, name = None, "UNKNOWN"
        spent = 0.0  # deterministic seconds, with ``work``
        for attempt in range(1, ATTEMPTS + 1):
            briefing = self.random_briefing(rng)
            cm = self.model_for(briefing)
            self.hint(cm, rng)
            left = self.time_limit - (time.perf_counter() - started)
            if left <= 0:
                break
            if self.work is not None and self.work - spent <= 1e-3:
                raise self._out_of_work(seed)
            # the work bounds the search only (one worker: the same search, so the same map, as without it)
            work = None if self.work is None else self.work - spent
            solver = make_solver(left, seed=rng.randrange(2**31), presolve=False, work=work)
            _tune(solver)
            status = solver.solve(cm.model)
            name = solver.status_name(status)
            spent += solver.response_proto.deterministic_time
            if name in ("OPTIMAL", "FEASIBLE"):
                m = self._finish(cm.decode(solver.boolean_value), briefing, seed)
                return Generated(m, seed, attempt, time.perf_counter() - started)
            if name == "UNKNOWN" and self.work is not None and not clock_stopped(solver):
                raise self._out_of_work(seed)
            if name != "INFEASIBLE":  # UNKNOWN: the time limit, the search's only bound, ran out
                break
            if not self._has_random_briefing():
                break
        if name != "INFEASIBLE" or time.perf_counter() - started >= self.time_limit or briefing is None:
            raise GenerationTimeout(
                f"no {self.chapter.name} map found within the time limit of {self.time_limit:g} s "
                f"(seed {seed}); try a larger --time-limit or looser profile settings"
            )
        raise self.explain(briefing, self.time_limit - (time.perf_counter() - started))

    def _out_of_work(self, seed: int) -> GenerationTimeout:
        """The search's ``work`` ran out (the same on any load), before a map was found."""
        return GenerationTimeout(
            f"no {self.chapter.name} map found within the work of {self.work:g} deterministic seconds (seed {seed})"
        )

    def _conflict_work(self, wall: float) -> _Work:
        """The work that names a conflict: ``CONFLICT_WORK`` deterministic seconds per second of the time limit (its
        nominal seconds, never what the wall clock left of them) up to ``CONFLICT_MOST``; the wall clock's ``wall``
        seconds end it (GenerationTimeout)."""
        total = min(CONFLICT_MOST, CONFLICT_WORK * self.time_limit)
        return _Work(total, time.monotonic() + max(0.5, wall), self.time_limit)

    def briefing_free_conflict(self, time_limit: float) -> GenerationError | None:
        """The rules and settings that admit no map whatever the briefing, named (once per Generator): the
        GenerationError to raise, or None.

        Settings that conflict with the chapter's rules on their own (``counts.Wa = [20, 30]`` with
        ``counts.Fo = [20, 30]`` on a 7x7 Fauna map) made each random briefing's search, which runs without
        presolve, end at the time limit (exit 3) or name a conflict of that briefing alone. Presolve proves
        such a conflict in a fraction of a second on the briefing-free model; each rule or setting is then
        dropped in turn (the chapter's rules first, as ``minimal_core``) and stays out when the rest still
        admit no map; a question that does not end within its work keeps its rule (the set named stays
        impossible, if not minimal). The work is CP-SAT's deterministic time (``_Work``): the set named is the same
        on a busy machine; the wall clock running out first is GenerationTimeout (exit 3). It touches no random
        number: a seed's maps are the same without it.
        """
        if self._free_checked:
            return None
        self._free_checked = True
        work = self._conflict_work(time_limit)  # no map is searched for once this is proved
        if work.ask(self.base_model().model, FREE_CHECK) != "INFEASIBLE":
            return None
        rules = [r for r in self.designed.rules if not r.reads_briefing]
        labels = list(dict.fromkeys(r.label for r in rules))  # a rule's instances (C5's two) go together

        def impossible(chosen: list[str]) -> bool:  # False also when the question's work runs out
            model = ChapterModel(self.designed, None, rules=[r for r in rules if r.label in chosen]).model
            return work.ask(model, CORE_QUESTION) == "INFEASIBLE"

        kept = list(labels)  # each dropped in turn (the chapter's rules first), out when the rest admit no map
        for label in labels:
            rest = [k for k in kept if k != label]
            if impossible(rest):
                kept = rest
        return self._conflict(kept, None)

    def _has_random_briefing(self) -> bool:
        p = self.profile
        return (
            (p.peak is None and not (self.chapter.default_peak and p.source == "default"))
            or ("fort_pattern" in self.chapter.briefing and not p.fort_pattern)
            or ("start" in self.chapter.briefing and p.start is None)
            or ("greek_fire" in self.chapter.briefing and p.greek_fire is None)
        )

    def _finish(self, cells, briefing: Briefing, seed: int) -> Map:
        meta = {"generator": generator_record(seed, self.profile.source, self.rules)}
        briefing = replace(briefing, number=seed)  # the map number is its seed: easy to make again
        m = with_hill_numbers(
            Map(chapter=self.chapter.name, briefing=briefing, cells=tuple(cells), meta=meta, board=self.chapter.board),
            self.chapter,
        )
        problems = check_map(m, self.designed)
        if problems:  # the model and the checks disagree: a bug, never a map to hand out
            raise AssertionError("generated map fails its checks: " + "; ".join(map(str, problems)))
        return m

    def explain(self, briefing: Briefing, time_left: float | None = None) -> GenerationError:
        """Name a small set of rules and settings that together admit no map (CP-SAT assumptions): the
        GenerationError to raise."""
        cm = self.model_for(briefing, guarded=True)
        guards = list(cm.guards.values())
        cm.model.add_assumptions([g.literal for g in guards])
        work = self._conflict_work(self.time_limit if time_left is None else time_left)
        solver = work.solver(CONFLICT_MOST)  # all the work, if it needs it
        if solver is None or work.tell(solver, solver.solve(cm.model)) != "INFEASIBLE":
            return GenerationError(
                f"no {self.chapter.name} map found for {ATTEMPTS} random briefings; "
                "the profile settings are too tight for the work the time limit gives"
            )
        core = set(solver.sufficient_assumptions_for_infeasibility())
        kept = minimal_core(cm.model, [g.literal for g in guards if g.literal.index in core], work)
        labels = [g.label for g in guards if g.literal.index in {k.index for k in kept}]
        return self._conflict(labels, briefing)

    def _conflict(self, labels: list[str], briefing: Briefing | None) -> GenerationError:
        """The error naming ``labels`` (rule ids, profile settings) in words, and in ``rules`` for --json and the web."""
        words = "; ".join(self.describe(label, briefing) for label in labels)
        return GenerationError(f"no {self.chapter.name} map can meet all of these together: {words}", tuple(labels))

    def describe(self, label: str, briefing: Briefing | None) -> str:
        """A guard's rule in words: a profile setting as written, or the rule's id, title and text."""
        b = self.board
        rule = next(r for r in self.designed.rules if r.label == label)
        if rule.setting:
            return f"profile setting {rule.setting} ({rule.id} {rule.title}, {self.profile.source})"
        info = self.designed.rule_info(rule.id)
        extra = ""
        if briefing is None:  # a conflict whatever the briefing: the rule's words alone
            pass
        elif label == "C6":
            extra = f"; the Peak is {b.name(briefing.peak)}"
        elif getattr(rule, "field", None) == "fort_pattern" and briefing.fort_pattern is not None:
            extra = f"; the mini map is {briefing.fort_pattern.text().replace(chr(10), ' / ')}"
        elif getattr(rule, "field", None) == "greek_fire" and briefing.greek_fire is not None:
            extra = f"; the Greek Fire is on {b.name(briefing.greek_fire)}"
        # one sentence in the brackets: "(... the Peak is a Rock; the Peak is C4)", never "a Rock., Peak C4)"
        return f"rule {info.id} {info.title} ({info.text.rstrip().removesuffix('.')}{extra})"


#: CP-SAT's deterministic seconds (``max_deterministic_time``) each "is it still impossible without this one?"
#: question may take at most (``minimal_core``, ``Generator.briefing_free_conflict``). It was 2 wall-clock seconds:
#: a busy machine's questions ran out and kept their rules, and a less trimmed set came out as the answer (exit 1).
#: Measured (2026-12-06, one worker): a deterministic second is 1.4-1.7 CPU seconds on wet-and-fed Fauna's
#: questions (counts.Wa and counts.Fo = [20, 30]: 0.2-1.5 each, one past 9).
CORE_QUESTION = 1.5
#: deterministic seconds the briefing-free model may take to be proved impossible
#: (``Generator.briefing_free_conflict``); a shipped profile's model is solved in under 0.03
FREE_CHECK = 1.0
#: deterministic seconds that naming a conflict may take in all: per second of the time limit, and at most (the
#: default limit's). Its questions are not asked past them (the set named stays impossible, if not minimal); a larger
#: limit gives a busy machine's wall clock room, not more questions. wet-and-fed Fauna: C4, C6-C9, F1, F2 and the two
#: settings in 6.6 CPU s (with 30 wall-clock seconds a question: C4, C7, F2 and the settings).
CONFLICT_WORK, CONFLICT_MOST = 0.4, 4.0


class _Work:
    """CP-SAT questions on a count of deterministic work (``total`` seconds of it), so their answers are the same
    on any machine and load; the wall clock's ``deadline`` (``time.monotonic``) only ends them, as
    GenerationTimeout (exit 3), never as an answer."""

    def __init__(self, total: float, deadline: float, time_limit: float):
        self.total, self.deadline, self.time_limit = total, deadline, time_limit
        self.spent = 0.0

    def solver(self, most: float):
        """A solver for one question of at most ``most`` deterministic seconds, or None when the work is spent."""
        work = min(most, self.total - self.spent)
        if work <= 1e-3:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self.timeout()
        return make_solver(left, presolve=True, work=work)

    def tell(self, solver, status) -> str:
        """The question's status name; GenerationTimeout when the wall clock, not the work, stopped it."""
        self.spent += min(solver.response_proto.deterministic_time, solver.parameters.max_deterministic_time)
        name = solver.status_name(status)
        if name == "UNKNOWN" and clock_stopped(solver):
            raise self.timeout()
        return name

    def ask(self, model, most: float) -> str:
        solver = self.solver(most)
        return "UNKNOWN" if solver is None else self.tell(solver, solver.solve(model))

    def timeout(self) -> GenerationTimeout:
        return GenerationTimeout(
            f"the time limit of {self.time_limit:g} s ran out before the rules that conflict were named; "
            "try a larger --time-limit"
        )


def minimal_core(model, core: list, work: _Work) -> list:
    """A subset-minimal part of ``core`` (assumption literals CP-SAT found together impossible): each is dropped in
    the order given (a chapter's rules before the profile's settings, which are what a designer changes) and
    stays out when the rest are still impossible without it; CP-SAT's own core is not minimal (twenty-forts.toml's counts.Ft = [20, 20] came with
    C2, C5, C6, C8 and F2 where F2 alone conflicts with it). A question that does not end within its work
    (``CORE_QUESTION``, and what is left of ``work``) keeps its literal (the set stays impossible, if not
    minimal); the wall clock running out is GenerationTimeout."""
    kept = list(core)
    try:
        for lit in list(kept):
            if all(k.index != lit.index for k in kept):  # gone with an earlier, smaller core
                continue
            rest = [k for k in kept if k.index != lit.index]
            model.clear_assumptions()
            model.add_assumptions(rest)
            solver = work.solver(CORE_QUESTION)
            if solver is None:
                break
            if work.tell(solver, solver.solve(model)) == "INFEASIBLE":
                smaller = set(solver.sufficient_assumptions_for_infeasibility())
                kept = [k for k in rest if k.index in smaller] or rest
    finally:
        model.clear_assumptions()
    return kept


def generate_map(chapter: str, seed: int, profile: Profile | None = None, time_limit: float = 10.0) -> Map:
    """One map of a chapter for a seed (convenience for a single call; use Generator for batches)."""
    return Generator(chapter, profile, time_limit=time_limit).generate(seed).map
