"""Chapters as data: each chapter file lists its terrains and its rules as rule-kind instances.

A designer can write a house-rule chapter as a TOML file in the same shape as the shipped ones
(``constraints/chapters/*.toml``) and load it with ``load_chapter(path)``; no code is needed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

from constraints.rules import KINDS, HillNumbers, Rule, View, Violation
from mapgen.board import FULL, HOODS, TRAINING, Board
from mapgen.model import CHAPTER_NAMES, Map
from mapgen.terrain import Terrain, parse_terrain

CHAPTER_DIR = Path(__file__).parent / "chapters"
BOARDS = {"7x7": FULL, "5x5": TRAINING}


class ChapterError(ValueError):
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

    @property
    def rule_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.info)

    def rule_info(self, rule_id: str) -> RuleInfo:
        return next(r for r in self.info if r.id == rule_id)

    def check(self, m: Map) -> list[Violation]:
        """Every violation of every rule on a complete map, in rule order."""
        view = View(m)
        out: list[Violation] = []
        for rule in self.rules:
            out.extend(rule.check(view))
        return out

    def hill_numbers(self, m: Map) -> dict[int, int]:
        """The right number for every Hill of a complete map (empty without a counted terrain)."""
        from constraints.rules import hill_number

        if self.counted is None:
            return {}
        return {i: hill_number(m.board, m.cells, i, self.counted) for i in m.cells_of(Terrain.HILL)}


def _terrain(value, where: str) -> Terrain:
    if not isinstance(value, str):
        raise ChapterError(f"{where}: expected a terrain code, not {value!r}")
    try:
        return parse_terrain(value)
    except ValueError as e:
        raise ChapterError(f"{where}: {e}") from None


_NUMBERS = ("at_least", "at_most", "count", "depth")
_FIELDS = {"briefing_cell": ("peak", "start", "greek_fire"), "pattern": ("fort_pattern",)}


def _setting(rule_id: str, kind_name: str, key: str, value):
    """A plain setting checked against what the rule kind reads, so a bad chapter file fails on loading."""
    if key in _NUMBERS and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ChapterError(f"rule {rule_id}: {key} must be a whole number of 0 or more, not {value!r}")
    if key == "hood" and (not isinstance(value, str) or value not in HOODS):
        raise ChapterError(f"rule {rule_id}: unknown neighbourhood {value!r} (known: {', '.join(HOODS)})")
    if key == "field" and value not in _FIELDS.get(kind_name, ()):
        known = ", ".join(_FIELDS.get(kind_name, ()))
        raise ChapterError(f"rule {rule_id}: a {kind_name} rule reads the briefing field {known}, not {value!r}")
    if key == "both_ways" and not isinstance(value, bool):
        raise ChapterError(f"rule {rule_id}: both_ways must be true or false, not {value!r}")
    return value


def _instances(spec: dict, rule_id: str, title: str, terrains, counted) -> list[Rule]:
    if not isinstance(spec, dict):
        raise ChapterError(f"rule {rule_id}: each check must be a table like {{ kind = \"count\", ... }}, not {spec!r}")
    spec = dict(spec)
    kind_name = spec.pop("kind", None)
    if not isinstance(kind_name, str) or kind_name not in KINDS:
        raise ChapterError(f"rule {rule_id}: unknown rule kind {kind_name!r} (known: {', '.join(sorted(KINDS))})")
    kind = KINDS[kind_name]
    both = _setting(rule_id, kind_name, "both_ways", spec.pop("both_ways", False))
    names = {f.name: f for f in fields(kind)} if hasattr(kind, "__dataclass_fields__") else {}
    args: dict = {}
    each_terrain = False
    for key, value in spec.items():
        if key not in names or key in ("id", "title"):
            raise ChapterError(f"rule {rule_id}: a {kind_name} rule has no setting {key!r}")
        if key == "terrains":
            if value != "chapter" and not isinstance(value, list):
                raise ChapterError(f'rule {rule_id}: terrains must be "chapter" or a list of codes, not {value!r}')
            value = terrains if value == "chapter" else [_terrain(v, f"rule {rule_id}") for v in value]
            args[key] = frozenset(value)
        elif value == "chapter" and key == "counted":
            if counted is None:
                raise ChapterError(f"rule {rule_id}: the chapter has no counted terrain")
            args[key] = counted
        elif value == "*" and key == "terrain":
            each_terrain = True
        elif key in ("subject", "target", "terrain", "first", "second", "counted", "hill"):
            args[key] = _terrain(value, f"rule {rule_id}")
        else:
            args[key] = _setting(rule_id, kind_name, key, value)
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


def chapter_from_data(data: dict) -> Chapter:
    """A chapter from the parsed TOML of a chapter file; ChapterError (and nothing else) when it cannot be used."""
    name = _field(data, "name", str, "text")
    board_name = data.get("board", "7x7")
    if not isinstance(board_name, str) or board_name not in BOARDS:
        raise ChapterError(f"chapter file: board must be {' or '.join(BOARDS)}, not {board_name!r}")
    board = BOARDS[board_name]
    terrains = tuple(_terrain(t, "terrains") for t in _field(data, "terrains", list, "a list of terrain codes"))
    counted = _terrain(data["counted"], "counted") if "counted" in data else None
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
    for spec in specs:
        rid = _field(spec, "id", str, "text", "a [[rule]] table")
        title = _field(spec, "title", str, "text", f"rule {rid}")
        info.append(RuleInfo(rid, title, spec.get("text", "")))
        for check in _field(spec, "checks", list, "a list of checks", f"rule {rid}"):
            rules.extend(_instances(check, rid, title, terrains, counted))
    return Chapter(name=name, title=data.get("title", name), board=board, terrains=terrains, counted=counted,
                   rules=tuple(rules), info=tuple(info), default_peak=data.get("default_peak"))


@cache
def get_chapter(name: str) -> Chapter:
    """A shipped chapter by name: training, fauna, flora, vameter or maldonado."""
    if name not in CHAPTER_NAMES:
        raise ChapterError(f"unknown chapter {name!r} (expected one of {', '.join(CHAPTER_NAMES)})")
    return chapter_from_data(tomllib.loads((CHAPTER_DIR / f"{name}.toml").read_text(encoding="utf-8")))


def load_chapter(path: str | Path) -> Chapter:
    """A chapter (shipped or house-rule) from a TOML file."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ChapterError(f"{path}: {e}") from None
    try:
        return chapter_from_data(data)
    except ChapterError as e:
        raise ChapterError(f"{path}: {e}") from None


def chapter_for(m: Map) -> Chapter:
    return get_chapter(m.chapter)


def check_map(m: Map, chapter: Chapter | None = None) -> list[Violation]:
    """Every violation of a complete map against its chapter's rules."""
    return (chapter or chapter_for(m)).check(m)


def with_hill_numbers(m: Map, chapter: Chapter | None = None) -> Map:
    """A complete map with the right number on every Hill."""
    return m.with_cells(m.cells, hills=(chapter or chapter_for(m)).hill_numbers(m))


__all__ = ["Chapter", "ChapterError", "RuleInfo", "get_chapter", "load_chapter", "check_map",
           "with_hill_numbers", "chapter_for", "HillNumbers"]
