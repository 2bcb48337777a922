"""The chapter registry: each chapter is one TOML file, the single source of everything about it.

``constraints/chapters/NAME.toml`` gives a chapter's name, title, board, terrains, counted terrain,
briefing fields, rules (rule-kind instances), default design profile, card files and engine plug-in;
every other layer (map files, profiles, the generator, the game engine, the CLI's choices) reads them
from here: ``chapter_names()``, ``get_chapter(name)``, ``chapter_board(name)``.

A designer can write a house-rule chapter as a TOML file in the same shape as the shipped ones
and load it with ``load_chapter(path)``; no code is needed.
"""

from __future__ import annotations

import importlib.util
import tomllib
from dataclasses import dataclass, fields
from dataclasses import field as dataclass_field
from functools import cache
from pathlib import Path
from typing import Any

from constraints.rules import KINDS, Count, HillNumbers, LineCount, Rule, View, Violation, hill_number
from mapgen.board import FULL, HOODS, TRAINING, Board
from mapgen.errors import InputError
from mapgen.inputs import Unreadable, a_kind, did_you_mean, read_toml
from mapgen.model import Map, expect_map
from mapgen.terrain import Terrain, parse_terrain

CHAPTER_DIR = Path(__file__).parent / "chapters"
BOARDS = {"7x7": FULL, "5x5": TRAINING}
#: The fields a Mission Briefing may hold (RULES.md §4); a chapter file says which it has.
BRIEFING_FIELDS = ("peak", "start", "fort_pattern", "greek_fire")
#: The keys of a chapter file; any other key is an error that names it.
CHAPTER_KEYS = (
    "name",
    "title",
    "board",
    "terrains",
    "counted",
    "default_peak",
    "briefing",
    "rules",
    "rule",
    "profile",
    "cards",
    "engine",
)
RULE_KEYS = ("id", "title", "text", "checks")


class ChapterError(InputError, ValueError):
    """A chapter file that cannot be used."""


@dataclass(frozen=True)
class RuleInfo:
    """A rule id of RULES.md §3 with its title and words."""

    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Chapter:
    """One chapter's Reference Board: its board, terrains, counted terrain and rule instances."""

    name: str
    title: str
    board: Board
    terrains: tuple[Terrain, ...]
    counted: Terrain | None
    rules: tuple[Rule, ...]
    info: tuple[RuleInfo, ...]
    default_peak: str | None = None
    #: Briefing fields the chapter's maps hold, and those a map file must give.
    briefing: tuple[str, ...] = ("peak",)
    required: tuple[str, ...] = ("peak",)
    #: The default design profile (a file name in mapgen/profiles/), or None.
    profile: str | None = None
    #: Card files (names in mapgen/engine/cards/) the engine plays with besides core.toml.
    cards: tuple[str, ...] = ()
    #: The engine plug-in, "module:Class", or None when the chapter cannot be played yet.
    engine: str | None = None
    #: The chapter file's parsed TOML it was read from (``chapter_from_data``), so that a record of a game played
    #: under house rules can carry the rules themselves (a replay file); not compared, not hashed.
    data: dict | None = dataclass_field(default=None, compare=False, repr=False)

    @property
    def rule_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.info)

    @property
    def listed(self) -> str:
        """The chapter's terrain codes in words, for a message about an unknown one: ``Fauna's codes: Fo Wo ...``."""
        return f"{self.name.title()}'s codes: {' '.join(t.code for t in self.terrains)}"

    def terrain(self, code: str) -> Terrain:
        """The chapter's terrain with this code (a ``--target``, a heat map's terrain); ValueError in words for a
        code that is no terrain, or one this chapter's maps never hold (``Maldonado (Ma) is not a terrain of
        fauna``)."""
        try:
            t = parse_terrain(code)
        except ValueError:  # say which codes there are; a Hill's number belongs on a map, not in a terrain's code
            hill = "; a Hill is Hi, without its number" if code[:2].lower() == "hi" and code[2:].isdigit() else ""
            raise ValueError(f"unknown terrain code {code!r} ({self.listed}{hill})") from None
        if t not in self.terrains:
            raise ValueError(f"{t.label} ({t.code}) is not a terrain of {self.name}")
        return t

    @property
    def described(self) -> tuple[RuleInfo, ...]:
        """The rules its Reference Board lists: all but those whose every check speaks of a terrain the chapter
        never holds (C8 Field on Vameter, which has Mushroom Fields instead: V3)."""
        kept = []
        for info in self.info:
            checks = [r for r in self.rules if r.id == info.id]
            if not checks or not all(r.vacuous(self.terrains) for r in checks):
                kept.append(info)
        return tuple(kept)

    def rule_info(self, rule_id: str) -> RuleInfo:
        return next(r for r in self.info if r.id == rule_id)

    def check(self, m: Map) -> list[Violation]:
        """Every violation of every rule on a complete map, in rule order."""
        view = View(m)
        out: list[Violation] = []
        for rule in self.rules:
            out.extend(rule.check(view))
        return out

    @property
    def hill_number_max(self) -> int:
        """The largest number a Hill can show: the counted terrain its row and column (the Hill's own cell
        aside) can hold under the chapter's count rules (Fauna's exactly 3 Forts: 3), 0 without a counted
        terrain."""
        if self.counted is None:
            return 0
        most = self.board.height - 1 + self.board.width - 1
        for rule in self.rules:
            if isinstance(rule, Count) and rule.terrain is self.counted and rule.at_most is not None:
                most = min(most, rule.at_most)
            if isinstance(rule, LineCount) and rule.terrain is self.counted:
                most = min(most, 2 * rule.count)
        return most

    def hill_numbers(self, m: Map) -> dict[int, int]:
        """The right number for every Hill of a complete map (empty without a counted terrain)."""
        if self.counted is None:
            return {}
        return {i: hill_number(m.board, m.cells, i, self.counted) for i in m.cells_of(Terrain.HILL)}


def _terrain(value, where: str, chapter: tuple[Terrain, ...] | None = None) -> Terrain:
    """A terrain code; with ``chapter`` (the terrains of the chapter whose own [[rule]] names it), one of those."""
    codes = f" (the chapter's codes: {' '.join(t.code for t in chapter)})" if chapter else ""
    if not isinstance(value, str):
        raise ChapterError(f"{where}: expected a terrain code, not {value!r}{codes}")
    try:
        t = parse_terrain(value)
    except ValueError as e:
        raise ChapterError(f"{where}: {e}{codes}") from None
    if chapter is not None and t not in chapter:  # the check could never apply: a typo, or a terrain left out
        raise ChapterError(f"{where}: {t.label} ({t.code}) is not a terrain of the chapter{codes}; add it to terrains")
    return t


_NUMBERS = ("at_least", "at_most", "count", "depth")


def _setting(rule_id: str, kind_name: str, key: str, value):
    """A plain setting checked against what the rule kind reads, so a bad chapter file fails on loading."""
    if key in _NUMBERS and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ChapterError(f"rule {rule_id}: {key} must be a whole number of 0 or more, not {value!r}")
    if key == "hood" and (not isinstance(value, str) or value not in HOODS):
        raise ChapterError(f"rule {rule_id}: unknown neighbourhood {value!r} (known: {', '.join(HOODS)})")
    if key == "field" and value not in KINDS[kind_name].briefing_fields:
        known = ", ".join(KINDS[kind_name].briefing_fields)
        raise ChapterError(f"rule {rule_id}: a {kind_name} rule reads the briefing field {known}, not {value!r}")
    if key == "both_ways" and not isinstance(value, bool):
        raise ChapterError(f"rule {rule_id}: both_ways must be true or false, not {value!r}")
    return value


def _instances(spec: dict, rule_id: str, title: str, terrains, counted, own: bool = False) -> list[Rule]:
    """A check's rule instances. ``own``: a chapter's own [[rule]] (not a shared one), whose terrains must be the
    chapter's (a shared rule may name one a chapter lacks: C8's Field on Vameter, left out of its board)."""
    if not isinstance(spec, dict):
        raise ChapterError(f'rule {rule_id}: each check must be a table like {{ kind = "count", ... }}, not {spec!r}')
    spec = dict(spec)
    if "kind" not in spec:
        known = ", ".join(sorted(KINDS))
        raise ChapterError(f'rule {rule_id}: a check without a kind: write {{ kind = "count", ... }} (known: {known})')
    kind_name = spec.pop("kind")
    if not isinstance(kind_name, str) or kind_name not in KINDS:
        raise ChapterError(f"rule {rule_id}: unknown rule kind {kind_name!r} (known: {', '.join(sorted(KINDS))})")
    kind: Any = KINDS[kind_name]  # a Rule subclass; its settings are checked against its fields below
    both = _setting(rule_id, kind_name, "both_ways", spec.pop("both_ways", False))
    names = {f.name: f for f in fields(kind)} if hasattr(kind, "__dataclass_fields__") else {}
    args: dict = {}
    each_terrain = False
    for key, value in spec.items():
        if key not in names or key in ("id", "title", "setting"):
            raise ChapterError(f"rule {rule_id}: a {kind_name} rule has no setting {key!r}")
        if key == "terrains":
            if value != "chapter" and not isinstance(value, list):
                raise ChapterError(f'rule {rule_id}: terrains must be "chapter" or a list of codes, not {value!r}')
            mine = terrains if own else None
            value = terrains if value == "chapter" else [_terrain(v, f"rule {rule_id}", mine) for v in value]
            args[key] = frozenset(value)
        elif value == "chapter" and key == "counted":
            if counted is None:
                raise ChapterError(f"rule {rule_id}: the chapter has no counted terrain")
            args[key] = counted
        elif value == "*" and key == "terrain":
            each_terrain = True
        elif key in ("subject", "target", "terrain", "first", "second", "counted", "hill"):
            args[key] = _terrain(value, f"rule {rule_id}", terrains if own else None)
        else:
            args[key] = _setting(rule_id, kind_name, key, value)
    least, most = args.get("at_least"), args.get("at_most")
    if least is not None and most is not None and least > most:  # as a profile's counts = [5, 4] is refused
        raise ChapterError(f"rule {rule_id}: at_least = {least} is more than at_most = {most}: no map can hold it")
    try:
        if each_terrain:
            made = [kind(id=rule_id, title=title, terrain=t, **args) for t in terrains]
        else:
            made = [kind(id=rule_id, title=title, **args)]
        if both:
            swap = {"subject": "target", "target": "subject", "first": "second", "second": "first"}
            made.append(kind(id=rule_id, title=title, **{swap.get(k, k): v for k, v in args.items()}))
    except TypeError as e:
        raise ChapterError(f"rule {rule_id}: {e}") from None
    return made


@cache
def _core_rules() -> dict[str, dict]:
    data = tomllib.loads((CHAPTER_DIR / "core.toml").read_text(encoding="utf-8"))
    return {r["id"]: r for r in data["rule"]}


def _field(table: dict, key: str, kind: type, what: str, where: str = "chapter file"):
    if key not in table:
        raise ChapterError(f"{where}: missing {key!r}")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ChapterError(f"{where}: {key!r} must be {what}, not {value!r}")
    return value


def _unknown_keys(table: dict, known: tuple[str, ...], where: str) -> None:
    unknown = [k for k in table if k not in known]
    if unknown:
        raise ChapterError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(known)})")


def _names(data: dict, key: str, where: str = "chapter file") -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ChapterError(f"{where}: {key!r} must be a list of file names, not {value!r}")
    return tuple(value)


def _briefing(data: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(fields, required fields) from ``briefing = { peak = "required", greek_fire = "optional" }``."""
    table = data.get("briefing", {"peak": "required"})
    if not isinstance(table, dict):
        raise ChapterError(f"chapter file: 'briefing' must be a table like {{ peak = \"required\" }}, not {table!r}")
    _unknown_keys(table, BRIEFING_FIELDS, "chapter file: briefing")
    for key, value in table.items():
        if value not in ("required", "optional"):
            raise ChapterError(f'chapter file: briefing.{key} must be "required" or "optional", not {value!r}')
    if table.get("peak") != "required":
        raise ChapterError('chapter file: every briefing names the Peak: briefing.peak must be "required"')
    fields_ = tuple(f for f in BRIEFING_FIELDS if f in table)
    return fields_, tuple(f for f in fields_ if table[f] == "required")


def chapter_from_data(data: dict) -> Chapter:
    """A chapter from the parsed TOML of a chapter file; ChapterError (and nothing else) when it cannot be used."""
    if "chapter" in data and "name" not in data:  # the key every map and profile file starts with
        what = (
            "a map file" if "terrain" in data else "a design profile" if "counts" in data else "a map or profile file"
        )
        raise ChapterError(
            f"{what}, not a chapter file (it says chapter = ...); a chapter file says name = ..., terrains and "
            "rules: mapgen chapters CHAPTER -o FILE writes one to start from"
        )
    _unknown_keys(data, CHAPTER_KEYS, "chapter file")
    name = _field(data, "name", str, "text")
    title = data.get("title", name)
    if not isinstance(title, str):
        raise ChapterError(f"chapter file: 'title' must be text, not {title!r}")
    board_name = data.get("board", "7x7")
    if not isinstance(board_name, str) or board_name not in BOARDS:
        raise ChapterError(f"chapter file: board must be {' or '.join(BOARDS)}, not {board_name!r}")
    board = BOARDS[board_name]
    terrains = tuple(_terrain(t, "terrains") for t in _field(data, "terrains", list, "a list of terrain codes"))
    counted = _terrain(data["counted"], "counted") if "counted" in data else None
    default_peak = data.get("default_peak")
    if default_peak is not None:
        if not isinstance(default_peak, str):
            raise ChapterError(f"chapter file: 'default_peak' must be a cell name like C4, not {default_peak!r}")
        try:
            board.index(default_peak)
        except ValueError as e:
            raise ChapterError(f"chapter file: 'default_peak': {e}") from None
    briefing, required = _briefing(data)
    for key in ("profile", "engine"):
        if not isinstance(data.get(key, ""), str):
            raise ChapterError(f"chapter file: {key!r} must be text, not {data[key]!r}")
    engine = data.get("engine")
    if engine is not None and engine.count(":") != 1:
        raise ChapterError(f"chapter file: 'engine' must be \"module:Class\", not {engine!r}")
    core = _core_rules()
    specs = []
    shared = data.get("rules", [])
    if not isinstance(shared, list):
        raise ChapterError(f"chapter file: 'rules' must be a list of shared rule ids like [\"C1\"], not {shared!r}")
    for rid in shared:
        if not isinstance(rid, str) or rid not in core:
            raise ChapterError(f"unknown shared rule {rid!r} (shared rules: {', '.join(core)})")
        specs.append(core[rid])
    own = data.get("rule", [])
    if not isinstance(own, list) or not all(isinstance(spec, dict) for spec in own):
        raise ChapterError("chapter file: each rule must be a [[rule]] table with id, title and checks")
    specs.extend(own)
    rules: list[Rule] = []
    info: list[RuleInfo] = []
    for n, spec in enumerate(specs):
        rid = _field(spec, "id", str, "text", "a [[rule]] table")
        if not rid or any(c.isspace() for c in rid):  # every report and --explain names a rule by its id
            raise ChapterError(f"a [[rule]] table: 'id' must be a name like H1, without spaces, not {rid!r}")
        is_own = n >= len(shared)
        if is_own and rid in core:  # a report's "C3" would no longer be RULES.md's C3
            raise ChapterError(
                f"rule {rid}: {rid} is the id of the shared rule {core[rid]['title']} (core.toml); give this rule an "
                f"id of its own, like H1 (to change {rid}, drop it from 'rules' and add yours under a new id)"
            )
        if any(r.id == rid for r in info):
            where = "'rules' lists it twice" if not is_own else "two rules have this id"
            raise ChapterError(f"rule {rid}: {where}; each rule needs an id of its own")
        _unknown_keys(spec, RULE_KEYS, f"rule {rid}")
        title_ = _field(spec, "title", str, "text", f"rule {rid}")
        text = spec.get("text", "")
        if not isinstance(text, str):
            raise ChapterError(f"rule {rid}: 'text' must be text, not {text!r}")
        info.append(RuleInfo(rid, title_, text))
        for check in _field(spec, "checks", list, "a list of checks", f"rule {rid}"):
            rules.extend(_instances(check, rid, title_, terrains, counted, own=is_own))
    for rule in rules:  # a field the maps never hold: every map would break the rule, none could be made
        field = getattr(rule, "field", None)
        if isinstance(field, str) and field not in briefing:
            raise ChapterError(
                f"rule {rule.id}: a {rule.kind} check reads the briefing's {field}, which {name} maps do not hold "
                f"(briefing: {', '.join(briefing)}): add {field} to briefing"
            )
    return Chapter(
        name=name,
        title=title,
        board=board,
        terrains=terrains,
        counted=counted,
        rules=tuple(rules),
        info=tuple(info),
        default_peak=default_peak,
        briefing=briefing,
        required=required,
        profile=data.get("profile"),
        cards=_names(data, "cards"),
        engine=engine,
        data=data,
    )


# -- the registry of shipped chapters ---------------------------------------------------------------


@cache
def _stems() -> frozenset[str]:
    """The names of the shipped chapter files (a folder listing: no file is read)."""
    return frozenset(p.stem for p in CHAPTER_DIR.glob("*.toml")) - {"core"}  # core.toml: the shared rules


@cache
def _data(name: str) -> dict | None:
    """One shipped chapter file's data, or None when no file has that name. Only that file is read."""
    if not isinstance(name, str) or name not in _stems():
        return None
    path = CHAPTER_DIR / f"{name}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if data.get("name") != name:
        raise ChapterError(f"{path}: 'name' must be {name!r}, the file's name")
    return data


@cache
def _registry() -> dict[str, dict]:
    """Every shipped chapter file's data by chapter name, in the order of their titles (Chapter 0 first)."""
    found = {name: data for name in _stems() if (data := _data(name)) is not None}  # every stem has its file
    return dict(sorted(found.items(), key=lambda item: (str(item[1].get("title", item[0])), item[0])))


def chapter_names() -> tuple[str, ...]:
    """The shipped chapters' names (one per file in constraints/chapters/), Chapter 0 first."""
    return tuple(_registry())


def unknown_chapter(name: object) -> str:
    """``unknown chapter 'faun': did you mean fauna? (expected one of training, fauna, …)``: the words every
    refusal of a chapter name gives (the command line, a map file, a profile, the web API), the one meant named
    when the name is near one, as ``--chapter faun`` names it."""
    names = chapter_names()
    near = did_you_mean(name, names) if isinstance(name, str) and name.strip() else ""
    return f"unknown chapter {name!r}{near} (expected one of {', '.join(names)})"


def _unknown(name: str) -> ChapterError:
    return ChapterError(unknown_chapter(name))


@cache
def chapter_board(name: str) -> Board:
    """A shipped chapter's board, read without compiling its rules (maps ask for it often)."""
    data = _data(name)
    if data is None:
        raise _unknown(name)
    return BOARDS[data.get("board", "7x7")]


@cache
def get_chapter(name: str) -> Chapter:
    """A shipped chapter by name (see ``chapter_names()``); ChapterError for any other name."""
    data = _data(name)
    if data is None:
        raise _unknown(name)
    try:
        return chapter_from_data(data)
    except ChapterError as e:
        raise ChapterError(f"{CHAPTER_DIR / name}.toml: {e}") from None


def is_shipped(chapter: Chapter) -> bool:
    """``chapter`` is a shipped chapter's registry object (``get_chapter``), not a house-rule file's copy of it."""
    return chapter.name in chapter_names() and chapter is get_chapter(chapter.name)


def cache_key(chapter: str | Chapter) -> str | int:
    """The key of a per-chapter cache (a solver, a sampler): a shipped chapter's name, whether named or given as its
    registry object, or a house-rule chapter's ``id`` (``load_chapter``'s: never the shipped one of the same name;
    the cache holds the chapter, so the id stays its own)."""
    if isinstance(chapter, str):
        return chapter
    return chapter.name if is_shipped(chapter) else id(chapter)


def chapter_file(name: str) -> Path:
    """A shipped chapter's file (``constraints/chapters/NAME.toml``), to start a house-rule file from (``mapgen
    chapters NAME -o FILE``); ChapterError for any other name."""
    if _data(name) is None:
        raise _unknown(name)
    return CHAPTER_DIR / f"{name}.toml"


#: Where a chapter file's ``profile`` and ``cards`` are (mapgen/profiles/, mapgen/engine/cards/).
PROFILE_DIR = Path(__file__).parent.parent / "mapgen" / "profiles"
CARD_DIR = Path(__file__).parent.parent / "mapgen" / "engine" / "cards"


def _check_files(chapter: Chapter) -> None:
    """A house-rule file's ``profile``, ``cards`` and ``engine`` name what is there (the registry's test checks the
    shipped files'): ChapterError naming the key and what there is, rather than an error later, or none."""
    if chapter.name in chapter_names() and chapter.board != chapter_board(chapter.name):  # maps read back on it
        given, shipped = (
            next(k for k, b in BOARDS.items() if b == x) for x in (chapter.board, chapter_board(chapter.name))
        )
        raise ChapterError(
            f'board: {chapter.name} maps are drawn on the {shipped} board, not {given}: keep board = "{shipped}" '
            "(a map names its chapter and is read on that chapter's board)"
        )
    named = [("profile", PROFILE_DIR, [chapter.profile] if chapter.profile else [])]
    for key, folder, names in [*named, ("cards", CARD_DIR, chapter.cards)]:
        for name in names:
            if not (folder / name).is_file():
                there = ", ".join(sorted(p.name for p in folder.glob("*.toml")))
                where = folder.relative_to(Path(__file__).parent.parent).as_posix()
                raise ChapterError(f"{key}: no file {name!r} in {where}/ (there: {there})")
    if chapter.profile:  # a shipped profile of another chapter (its first line says which)
        data = tomllib.loads((PROFILE_DIR / chapter.profile).read_text(encoding="utf-8"))
        if data.get("chapter") != chapter.name:
            if chapter.name not in chapter_names():  # a renamed copy: the name is what is wrong, not the profile
                near = did_you_mean(chapter.name, chapter_names())  # `Fauna`: names are lower case
                raise ChapterError(
                    f"name: {chapter.name!r} is no shipped chapter{near} ({', '.join(chapter_names())}): keep name the "
                    f"chapter the house rules vary, the chapter its maps and its profile {chapter.profile!r} name"
                )
            raise ChapterError(
                f"profile: {chapter.profile!r} is a profile of chapter {data.get('chapter')}, not {chapter.name}"
            )
    if chapter.engine is not None:
        module = chapter.engine.split(":")[0]
        try:
            found = importlib.util.find_spec(module) is not None  # finds it without running it
        except (ImportError, ValueError):  # a parent package that is not there; an empty name
            found = False
        if not found:
            raise ChapterError(
                f"engine: no module {module!r} to import (the shipped chapters' plug-ins are in "
                f'mapgen.engine.chapters, like "mapgen.engine.chapters:Fauna")'
            )


def load_chapter(path: str | Path) -> Chapter:
    """A chapter (shipped or house-rule) from a TOML file."""
    try:
        data = read_toml(path, "chapter file")  # size, encoding, nesting: the same reader as every input
    except Unreadable as e:
        raise ChapterError(f"{path}: {e}") from None
    try:
        return checked_chapter(data)
    except ChapterError as e:
        raise ChapterError(f"{path}: {e}") from None


def checked_chapter(data: dict) -> Chapter:
    """A chapter from a chapter file's parsed TOML (``Chapter.data``, as a replay file carries it), checked as
    ``load_chapter`` checks a file: its profile, cards and engine are there. ChapterError when it cannot be used."""
    chapter = chapter_from_data(data)
    _check_files(chapter)
    return chapter


def chapter_for(m: Map) -> Chapter:
    """The shipped chapter a map belongs to (its ``chapter`` field); ``get_chapter(name)`` for a chapter's name."""
    if not isinstance(m, Map):  # a chapter's name most often: an AttributeError on .chapter
        raise TypeError(f"chapter_for takes a Map, not {a_kind(m)}: get_chapter(name) for a chapter's name")
    return get_chapter(m.chapter)


def as_chapter(chapter: Chapter | str, who: str) -> Chapter:
    """``chapter`` as a Chapter: itself, or the shipped chapter a name names (ChapterError for no chapter's name, as
    ``get_chapter``); TypeError for anything else, saying what ``who`` (a function's name) takes. A name where the
    library's functions take a Chapter raised AttributeError ('str' object has no attribute 'check')."""
    if isinstance(chapter, Chapter):
        return chapter
    if isinstance(chapter, str):
        return get_chapter(chapter)
    raise TypeError(
        f"{who}'s chapter is a Chapter (get_chapter(name), load_chapter(path)) or a chapter's name, not "
        f"{a_kind(chapter, shown=True)}"
    )


def check_map(m: Map, chapter: Chapter | str | None = None) -> list[Violation]:
    """Every violation of a complete map against its chapter's rules (``chapter``: a Chapter or a chapter's name;
    default the map's); WrongMapError for a partial map (solve it)."""
    expect_map(m, "check_map", complete=True)
    return (chapter_for(m) if chapter is None else as_chapter(chapter, "check_map")).check(m)


def misfit(m: Map, chapter: Chapter) -> str | None:
    """Why a map cannot be asked about under ``chapter`` (a house-rule chapter file given with --rules), else None:
    it does not fit the chapter's board, or the chapter is another shipped chapter (a copied file whose name was
    left: every check would report the map's terrains)."""
    if chapter.board != m.board:
        return f"a {m.chapter} map does not fit the board of chapter {chapter.name}"
    if chapter.name != m.chapter and chapter.name in chapter_names():
        told = f'a house-rule file for {m.chapter} maps says name = "{m.chapter}"'
        return f"a {m.chapter} map, but the rules are chapter {chapter.name}'s ({told})"
    return None


def with_hill_numbers(m: Map, chapter: Chapter | None = None) -> Map:
    """A complete map with the right number on every Hill."""
    return m.with_cells(m.cells, hills=(chapter or chapter_for(m)).hill_numbers(m))


def with_every_hill_number(m: Map, chapter: Chapter | None = None) -> Map:
    """A complete map as it is printed: every Hill with a number. The numbers the file gives are kept (a wrong one
    is a C9 violation to show, not to hide); a Hill the file writes as plain ``Hi`` (C9 allows it) gets the number
    the rules give it. A partial map is returned as it is (its Hills' numbers depend on the hidden cells)."""
    if not m.complete or all(i in m.hills for i in m.cells_of(Terrain.HILL)):
        return m
    return m.with_cells(m.cells, hills={**(chapter or chapter_for(m)).hill_numbers(m), **m.hills})


__all__ = [
    "BRIEFING_FIELDS",
    "Chapter",
    "ChapterError",
    "HillNumbers",
    "RuleInfo",
    "chapter_board",
    "chapter_for",
    "chapter_names",
    "check_map",
    "checked_chapter",
    "get_chapter",
    "load_chapter",
    "misfit",
    "unknown_chapter",
    "with_every_hill_number",
    "with_hill_numbers",
]
