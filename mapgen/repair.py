"""Designer features over CP-SAT: the valid map nearest to a hand-made one, and filling a sketch.

``repair_map`` finds a map that keeps every rule of the chapter and the briefing while changing as few
cells as possible (CP-SAT minimises the Hamming distance to the given map), and says for each change the
rule it mends: the rules that break again when that one change alone is undone. ``fill_sketch`` keeps
every placed cell of a partial map and generates the ``..`` cells under the chapter's rules and a design
profile; when no map can complete the sketch, ``SketchError`` names the rules, settings and cells that
conflict (CP-SAT assumptions, as ``Generator.explain`` does). Every solver call is time-limited.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace

from constraints.catalogue import Chapter, as_chapter, check_map, get_chapter, with_hill_numbers
from constraints.cpsat import ChapterModel, clock_stopped, make_solver
from constraints.rules import BriefingCell, HillNumbers
from mapgen import __version__
from mapgen.design import check_design
from mapgen.errors import UnmetError
from mapgen.generate import (
    CONFLICT_MOST,
    CONFLICT_WORK,
    CP_SAT_SEEDS,
    RULES_KEYS,
    GenerationError,
    GenerationTimeout,
    Generator,
    _Work,
    checked_seed,
    generator_record,
    minimal_core,
    ortools_version,
    rules_record,
    with_rules_record,
)
from mapgen.inputs import a_kind
from mapgen.mapfile import EDITED, dumps_map, edited_by_hand
from mapgen.model import Map, expect_map
from mapgen.profile import Profile
from mapgen.solving.sat import check_time_limit
from mapgen.solving.solve import SolveTimeout
from mapgen.terrain import listed

__all__ = ["Change", "Repair", "RepairError", "SketchError", "SolveTimeout", "fill_sketch", "repair_map"]

#: CP-SAT's deterministic seconds (``max_deterministic_time``) the search for the nearest map may take per second
#: of its time limit: where it is not proven nearest within them, the map it found is the same on any machine and
#: load; the wall clock (the time limit) only ends the work (SolveTimeout). Measured (2026-12-06, one worker): a
#: deterministic second took 0.4-0.5 wall seconds on the hard repairs (Maldonado maps of random terrain: 25 in 10.2
#: s), 0.6-1.5 on the small ones, so an idle machine does the work within about half of its time limit.
WORK_PER_SECOND = 1.0


class RepairError(UnmetError):
    """No valid map exists for this briefing at all; ``rules`` names the rules that conflict."""

    def __init__(self, message: str, rules: tuple[str, ...] = (), cells: tuple[str, ...] = ()):
        super().__init__(message)
        self.rules = rules
        self.cells = cells


class SketchError(RepairError):
    """A sketch no map can complete; ``rules`` (rule ids and profile settings) and ``cells`` conflict."""


@dataclass(frozen=True)
class Change:
    """One cell changed by a repair, with the rules that break again if this change alone is undone (none for a
    blank cell filled or a Hill number filled in where there was none)."""

    cell: str
    before: str
    after: str
    rules: tuple[str, ...]
    message: str

    def to_json(self) -> dict:
        return {
            "cell": self.cell,
            "from": self.before,
            "to": self.after,
            "rules": list(self.rules),
            "message": self.message,
        }

    def __str__(self) -> str:
        why = f"mends {', '.join(self.rules)}: {self.message}" if self.rules else self.message
        return f"{self.cell}: {self.before} -> {self.after} ({why})"


@dataclass(frozen=True)
class Repair:
    """The outcome of ``repair_map``: the repaired map, its changes, and whether the distance is proven least.
    ``partial``: the map given had ``..`` cells, so its rules were not judged (``violations_before`` is empty
    and ``valid_before`` None: a partial map is neither valid nor invalid as a complete map)."""

    map: Map
    changes: tuple[Change, ...]
    violations_before: tuple
    optimal: bool
    seconds: float
    partial: bool = False
    #: why the repaired map's ``[generator]`` table now says ``edited = true`` (its seed does not make this map, or is
    #: not known to: ``_seed_claim``), without the file's name; None when the table was left as it was
    seed_note: str | None = None

    @property
    def valid_before(self) -> bool | None:
        """Whether the map given was valid; None for a partial map (only a complete map can be judged)."""
        return None if self.partial else not self.violations_before

    @property
    def distance(self) -> int:
        """Placed cells whose terrain changed (free cells filled and Hill numbers set right are not counted)."""
        return sum(1 for c in self.changes if c.before != ".." and c.before[:2] != c.after[:2])

    def to_json(self) -> dict:
        return {
            "valid_before": self.valid_before,
            "violations_before": [v.to_json() for v in self.violations_before],
            "distance": self.distance,
            "optimal": self.optimal,
            "changes": [c.to_json() for c in self.changes],
            "seconds": round(self.seconds, 4),
            "text": dumps_map(self.map),
            **({"seed_note": self.seed_note} if self.seed_note else {}),
        }


_BASE: dict[str, ChapterModel] = {}


def _model(chapter: Chapter, m: Map) -> ChapterModel:
    """The chapter's rules and this map's briefing (the briefing-free part compiled once per chapter)."""
    key = chapter.name if chapter is get_chapter(chapter.name) else None
    if key is None:
        return ChapterModel(chapter, m.briefing)
    base = _BASE.get(key)
    if base is None:
        base = _BASE[key] = ChapterModel(chapter, None)
    return base.with_briefing(m.briefing)


def _code(m: Map, i: int) -> str:
    t = m.cells[i]
    if t is None:
        return ".."
    return t.code + (str(m.hills[i]) if i in m.hills else "")


def _rule_words(chapter: Chapter, label: str) -> str:
    """A guard's rule in a conflict's words: its id and title, or a profile setting as written (a chapter with a
    profile's rules appended, Repair within the profile) with the rule it belongs to."""
    rule = next((r for r in chapter.rules if r.label == label), None)
    if rule is not None and rule.setting:
        return f"profile setting {rule.setting} ({rule.id} {rule.title})"
    return f"{label} {chapter.rule_info(label).title}"


def _briefing_conflict(chapter: Chapter, m: Map, time_limit: float) -> RepairError | SolveTimeout:
    """Why no map at all keeps the rules with this briefing (assumptions over guarded rules): a smallest set, trimmed
    from CP-SAT's core as Generate's is (``minimal_core`` on counted work: the same set on any load; Repair within a
    profile of 20 Forts named C2, C6, C7 and F1 beside F2 and the setting); SolveTimeout when the wall clock runs out
    first."""
    cm = ChapterModel(chapter, m.briefing, guarded=True)
    guards = list(cm.guards.values())
    cm.model.add_assumptions([g.literal for g in guards])
    solver = make_solver(max(0.5, time_limit))
    name = solver.status_name(solver.solve(cm.model))
    if name == "UNKNOWN":
        return SolveTimeout("the time limit ran out before the rules this briefing conflicts with were named")
    if name != "INFEASIBLE":
        return RepairError(f"no valid {chapter.name} map found for this briefing within the time limit")
    core = set(solver.sufficient_assumptions_for_infeasibility())
    work = _Work(min(CONFLICT_MOST, CONFLICT_WORK * time_limit), time.monotonic() + max(0.5, time_limit), time_limit)
    try:
        kept = minimal_core(cm.model, [g.literal for g in guards if g.literal.index in core], work)
    except GenerationTimeout:
        return SolveTimeout("the time limit ran out before the rules this briefing conflicts with were named")
    ids = tuple(g.label for g in guards if g.literal.index in {k.index for k in kept})
    words = "; ".join(_rule_words(chapter, label) for label in ids)
    hold = "cannot hold with it" if len(ids) == 1 else "cannot all hold with it"  # one rule: never "all"
    # the briefing's cells those rules fix (a Peak typed on the board's edge): named, so the designer knows where
    fixed = [r for r in chapter.rules if isinstance(r, BriefingCell) and r.label in ids and r.cell(m) is not None]
    said = f" (the briefing makes {listed([r.makes(m) for r in fixed])})" if fixed else ""
    cells = tuple(dict.fromkeys(m.board.name(i) for r in fixed if (i := r.cell(m)) is not None))
    return RepairError(f"no valid {chapter.name} map has this briefing: {words} {hold}{said}", ids, cells)


def repair_map(
    m: Map,
    *,
    chapter: Chapter | str | None = None,
    time_limit: float = 10.0,
    workers: int = 1,
    rules_file: str | None = None,
) -> Repair:
    """The valid map nearest to ``m``: fewest cells changed, the briefing kept, every rule of the chapter met.
    ``rules_file``: the house-rule file ``chapter`` was loaded from, which the map's ``[generator]`` table then
    names with the rules' fingerprint (``generate.rules_record``); a map changed under the shipped rules loses
    such a record (it keeps those rules now).

    ``..`` cells are free (filled at no cost). Hill numbers are set right on every Hill. Raises
    ``RepairError`` when no map at all has this briefing, ``SolveTimeout`` when the time limit runs out
    before any valid map is found; a map found but not proven nearest has ``optimal=False``. The search's work is
    counted (``WORK_PER_SECOND``): the same map on any load, or SolveTimeout when the wall clock ends it first.
    """
    expect_map(m, "repair_map")
    check_time_limit(time_limit, "repair_map")
    started = time.perf_counter()
    chapter = get_chapter(m.chapter) if chapter is None else as_chapter(chapter, "repair_map")
    before = tuple(check_map(m, chapter)) if m.complete else ()
    if m.complete and not before:  # valid: nothing changes but a Hill number not given (``Hi``), filled in
        numbered = with_hill_numbers(m, chapter)
        if rules_file is not None:  # checked under these house rules: the map says so from now on
            numbered = with_rules_record(numbered, rules_record(rules_file, chapter))
        return Repair(numbered, tuple(_changes(m, numbered, chapter)), (), True, time.perf_counter() - started)
    cm = _model(chapter, m)
    model = cm.model
    keep = []
    for i, t in enumerate(m.cells):
        lit = None if t is None else cm.lit(i, t)
        if lit is not None:
            keep.append(lit)
            model.add_hint(lit, True)
    model.maximize(sum(keep))
    solver = make_solver(time_limit, workers=workers, work=WORK_PER_SECOND * time_limit)
    solver.parameters.linearization_level = 0
    name = solver.status_name(solver.solve(model))
    if name == "INFEASIBLE":
        raise _briefing_conflict(chapter, m, max(0.5, time_limit - (time.perf_counter() - started)))
    if name not in ("OPTIMAL", "FEASIBLE"):
        raise SolveTimeout(f"no valid map found within the time limit of {time_limit:g} s")
    if name == "FEASIBLE" and clock_stopped(solver):
        # the wall clock stopped the search before its work was done: the map found is the load's doing (a busy
        # machine handed out a farther one, exit 0), never an answer
        raise SolveTimeout(
            f"the time limit of {time_limit:g} s ran out before the search for the nearest map had done its work"
        )
    fixed = with_hill_numbers(m.with_cells(cm.decode(solver.boolean_value), hills={}), chapter)
    fixed = Map(m.chapter, m.briefing, fixed.cells, fixed.hills, dict(m.meta), board=m.board)
    seed_note = None
    if fixed.cells != m.cells:  # another map: the input's grade is not its own, nor, maybe, its seed
        fixed = fixed.without_grade()
        fixed, seed_note = _seed_claim(fixed)
    if rules_file is not None or fixed.cells != m.cells:  # the rules it keeps now: these house rules, or shipped
        fixed = with_rules_record(fixed, rules_record(rules_file, chapter))
    problems = check_map(fixed, chapter)
    if problems:  # the model and the checks disagree: a bug, never a map to hand out
        raise AssertionError("repaired map fails its checks: " + "; ".join(map(str, problems)))
    changes = tuple(_changes(m, fixed, chapter))
    optimal, seconds = name == "OPTIMAL", time.perf_counter() - started
    return Repair(fixed, changes, before, optimal, seconds, partial=not m.complete, seed_note=seed_note)


#: CP-SAT's deterministic seconds for making a ``[generator]`` seed's map again (``_seed_makes``): counted work, so
#: the answer is the same on any load (5 s of the wall clock marked a busy machine's maps "not known to make").
#: Measured (2026-12-07, default profiles, seeds 0-199; Training 0-39): at most 0.133 deterministic s
#: (Fauna, two attempts; Vameter 0.024, Flora and Maldonado 0.008, Training 0.0003), 0.13 CPU s; 15 times that here.
SEED_CHECK_WORK = 2.0
#: the wall clock's safety net for it, in seconds: only a machine that stalls reaches it (2 deterministic seconds
#: are at most about 3.4 CPU s, at generate.py's measured 1.4-1.7 CPU s each)
SEED_CHECK_WALL = 60.0


def _seed_claim(fixed: Map) -> tuple[Map, str | None]:
    """A repaired map whose cells changed, with its ``[generator]`` table marked ``edited = true`` (as the studio
    marks a map edited by hand, ``edited_by_hand``) unless the seed it records makes this very map (a mistyped cell
    mended back), and the note that says so. The table kept the seed, claiming that ``generate --seed`` makes the
    repaired map: a map filled from fauna-1 with 30 cells erased said seed 1, which makes fauna-1."""
    record = fixed.meta.get("generator")
    if not isinstance(record, dict) or "seed" not in record or record.get(EDITED):
        return fixed, None
    checkable = _seed_checkable(record)
    made = _seed_makes(fixed, record) if checkable else None
    if made:
        return fixed, None
    seed, profile = record["seed"], record.get("profile", "default")
    under = "" if profile == "default" else f" --profile {profile}"
    said = (
        f"does not make the repaired map (mapgen generate -c {fixed.chapter} --seed {seed}{under} makes another)"
        if made is False
        else "is not known to make the repaired map (made by another mapgen, ortools, profile or house rules)"
        if not checkable
        else "is not known to make the repaired map (its map was not made again within the check's work)"
    )
    marked = replace(fixed, meta=edited_by_hand(fixed.meta))  # (its [grade] is gone already: another map)
    return marked, f"[generator] seed {seed} {said}: its table now says {EDITED} = true"


def _seed_checkable(record: dict) -> bool:
    """Whether this mapgen can make the map of ``record`` (a ``[generator]`` table) again: made by these versions of
    mapgen and ortools, under the chapter's default profile and its shipped rules, from a seed a map file records."""
    try:
        checked_seed(record.get("seed"))
    except (TypeError, ValueError):  # SeedError is a ValueError
        return False
    versions = (record.get("mapgen"), record.get("ortools"))
    default = record.get("profile", "default") == "default"
    return versions == (__version__, ortools_version()) and default and not any(k in record for k in RULES_KEYS)


def _seed_makes(m: Map, record: dict) -> bool | None:
    """Whether the seed of ``record`` (a ``[generator]`` table that ``_seed_checkable`` passed) makes ``m`` (its
    number and name aside: a shipped map is renumbered); None when its map was not made again within
    ``SEED_CHECK_WORK`` (or the wall clock's ``SEED_CHECK_WALL``)."""
    try:
        generator = Generator(get_chapter(m.chapter), None, time_limit=SEED_CHECK_WALL, work=SEED_CHECK_WORK)
        made = generator.generate(record["seed"]).map
    except GenerationError:  # the work (or the wall clock's safety net) ran out
        return None
    same = replace(made.briefing, number=m.briefing.number, name=m.briefing.name) == m.briefing
    return same and made.cells == m.cells and made.hills == m.hills


def _changes(m: Map, fixed: Map, chapter: Chapter) -> list[Change]:
    """Each changed cell with the rules that break again when that change alone is undone."""
    b = m.board
    hill_rule = _hill_rule(chapter)
    # the Hills whose number was wrong on the map as given (only a complete map's numbers can be judged)
    wrong = {c for v in (check_map(m, chapter) if m.complete else ()) if v.rule in hill_rule for c in v.cells}
    out = []
    for i in range(b.size):
        was, now = _code(m, i), _code(fixed, i)
        if was == now:
            continue
        if m.cells[i] is None:
            out.append(Change(b.name(i), was, now, (), "a free cell, filled"))
            continue
        if m.cells[i] is fixed.cells[i]:  # the same Hill with its number set right
            counts = f"the Hill at {b.name(i)} counts {fixed.hills[i]}"
            if b.name(i) in wrong:
                out.append(Change(b.name(i), was, now, hill_rule, counts))
            elif i not in m.hills:  # no number given: nothing was broken, undoing it breaks nothing
                out.append(Change(b.name(i), was, now, (), f"Hill number filled in: {counts}"))
            else:  # right on the map as given, changed with the cells it counts
                out.append(Change(b.name(i), was, now, (), f"Hill number set right with the other changes: {counts}"))
            continue
        undone = fixed.with_cells(m.cells[i] if k == i else t for k, t in enumerate(fixed.cells))
        undone = with_hill_numbers(undone, chapter) if m.cells[i] in chapter.terrains else undone
        broken = check_map(undone, chapter)
        # every rule that breaks again, those naming this cell first, each with its first message: a change
        # that mends C2 and C4 says what C4 was too, not C2's words alone
        broken = sorted(broken, key=lambda v: b.name(i) not in v.cells)
        first = {v.rule: v.message for v in reversed(broken)}
        rules = tuple(dict.fromkeys(v.rule for v in broken))
        message = "; ".join(first[r] for r in rules) if rules else "needed with the other changes"
        out.append(Change(b.name(i), was, now, rules, message))
    return out


def _hill_rule(chapter: Chapter) -> tuple[str, ...]:
    """The id of the chapter's Hill-number rule (C9), as a change's ``rules``."""
    return tuple(dict.fromkeys(r.id for r in chapter.rules if isinstance(r, HillNumbers))) or ("C9",)


def fill_sketch(
    sketch: Map,
    profile: Profile | None = None,
    *,
    seed: int = 0,
    time_limit: float = 10.0,
    chapter: Chapter | None = None,
    rules_file: str | None = None,
) -> Map:
    """Complete a designer's sketch: placed cells kept, ``..`` cells generated under the rules and profile.

    The same sketch, seed and profile give the same map. Raises ``SketchError`` naming the rules, profile
    settings and placed cells that conflict, or ``SolveTimeout`` when the time limit runs out first.
    """
    expect_map(sketch, "fill_sketch")
    seed = checked_seed(seed)  # "x" failed inside OR-Tools, -1 filled a map no --seed makes again
    if profile is not None and not isinstance(profile, Profile):
        raise TypeError(
            f"fill_sketch's profile is a Profile, not {a_kind(profile, shown=True)}: "
            "mapgen.profile.load_profile(path), or default_profile(chapter); None for the chapter's default"
        )
    started = time.perf_counter()
    gen = Generator(chapter or sketch.chapter, profile, time_limit=time_limit, rules_file=rules_file)
    cm = gen.model_for(sketch.briefing)
    givens = cm.given_literals(sketch)
    if givens is None:
        b = sketch.board
        bad = next(i for i, t in enumerate(sketch.cells) if t is not None and cm.lit(i, t) is None)
        t = sketch.cells[bad]
        raise SketchError(
            f"{t.label} ({t.code}) at {b.name(bad)} is not a terrain of the {gen.chapter.name} chapter (T1)",
            ("T1",),
            (b.name(bad),),
        )
    cm.model.add_bool_and(givens)
    gen.hint(cm, random.Random(f"mapgen:sketch:{gen.chapter.name}:{seed}"))
    solver = make_solver(time_limit, seed=seed % CP_SAT_SEEDS, presolve=True)  # 2**31 and up: a traceback
    name = solver.status_name(solver.solve(cm.model))
    if name == "INFEASIBLE":
        raise _sketch_conflict(gen, sketch, max(0.5, time_limit - (time.perf_counter() - started)))
    if name not in ("OPTIMAL", "FEASIBLE"):
        raise SolveTimeout(f"no completion of the sketch found within the time limit of {time_limit:g} s")
    filled = with_hill_numbers(sketch.with_cells(cm.decode(solver.boolean_value), hills={}), gen.chapter)
    filled = Map(sketch.chapter, sketch.briefing, filled.cells, filled.hills, dict(sketch.meta), board=sketch.board)
    if filled.cells != sketch.cells:  # a new map: this fill's seed and profile, and no grade of another map
        record = generator_record(seed, gen.profile.source, gen.rules)
        filled = replace(filled, meta={**filled.meta, "generator": record})
        filled = filled.without_grade()
    problems = check_map(filled, gen.chapter) + check_design(filled, gen.profile, gen.chapter)
    if problems:  # the model and the checks disagree: a bug, never a map to hand out
        raise AssertionError("filled sketch fails its checks: " + "; ".join(map(str, problems)))
    return filled


def _sketch_conflict(gen: Generator, sketch: Map, time_left: float) -> SketchError | SolveTimeout:
    """A smallest set of rules, settings and placed cells that admit no map together, trimmed from CP-SAT's core
    as Generate's is (``minimal_core`` on counted work: a blank sketch under a 20-Fort profile named C2, C6, C7
    and F1 beside F2 and the setting); SolveTimeout when the wall clock runs out first."""
    cm = gen.model_for(sketch.briefing, guarded=True)
    b = sketch.board
    labels: dict[int, tuple[str, str]] = {g.literal.index: ("rule", g.label) for g in cm.guards.values()}
    assumptions = [g.literal for g in cm.guards.values()]
    for i, t in enumerate(sketch.cells):
        if t is not None:
            lit = cm.lit(i, t)
            assumptions.append(lit)
            labels.setdefault(lit.index, ("cell", b.name(i)))
    shown: set[int] = set()  # a placed Hill's number: C9's count, so a conflict it is in names C9 too (as solve does)
    for i, n in sketch.hills.items():
        if any(r.id == "C9" for r in gen.chapter.rules):
            lit = cm.hill_shows(i, n)
            assumptions.append(lit)
            labels.setdefault(lit.index, ("cell", b.name(i)))
            shown.add(lit.index)
    cm.model.add_assumptions(assumptions)
    solver = make_solver(time_left)
    name = solver.status_name(solver.solve(cm.model))
    if name == "UNKNOWN":
        return SolveTimeout("the time limit ran out before the rules and cells the sketch conflicts with were named")
    if name != "INFEASIBLE":
        return SketchError(f"no completion of the sketch found within the time limit of {gen.time_limit:g} s")
    found = set(solver.sufficient_assumptions_for_infeasibility())
    lits = list({lit.index: lit for lit in assumptions if lit.index in found}.values())
    work = _Work(min(CONFLICT_MOST, CONFLICT_WORK * time_left), time.monotonic() + max(0.5, time_left), time_left)
    try:
        kept = minimal_core(cm.model, lits, work)
    except GenerationTimeout:
        return SolveTimeout("the time limit ran out before the rules and cells the sketch conflicts with were named")
    core = [labels[k.index] for k in kept if k.index in labels]
    rules = tuple(dict.fromkeys(name for kind, name in core if kind == "rule"))
    if any(k.index in shown for k in kept):  # the rules of the game, then the profile's settings, as generate says
        game = {r.id for r in gen.chapter.rules}
        hill = _hill_rule(gen.chapter)
        rules = tuple(dict.fromkeys([*(r for r in rules if r in game), *hill, *(r for r in rules if r not in game)]))
    cells = tuple(sorted(dict.fromkeys(name for kind, name in core if kind == "cell"), key=b.index))
    parts = [gen.describe(r, sketch.briefing) for r in rules]
    if cells:
        placed = ", ".join(f"{c} ({_code(sketch, b.index(c))})" for c in cells)
        parts.append(f"the placed cell{'s' if len(cells) > 1 else ''} {placed}")
    return SketchError("the sketch cannot be completed; these cannot all hold: " + "; ".join(parts), rules, cells)
