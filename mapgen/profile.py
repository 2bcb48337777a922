"""Design profiles: the generation defaults of RULES.md §5 as settings, and as rules.

A profile's settings become rule instances of the catalogue (``Profile.rules``) that the generator
appends to the chapter's rules: **P1 Reachable** (``reachable``), **P2 Balanced** (each of ``counts``)
and, for a chapter whose briefing names a Greek Fire cell, the design default **P3 Greek Fire
collectable** (never on a Rock). They are checked, compiled to CP-SAT and described by the same code
as every rule of a chapter.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from constraints.catalogue import (
    Chapter,
    ChapterError,
    RuleInfo,
    chapter_board,
    chapter_names,
    get_chapter,
    unknown_chapter,
)
from constraints.design import NotAt, Reachable
from constraints.rules import Count, Rule
from mapgen.board import Board, CellError
from mapgen.errors import InputError
from mapgen.inputs import Unreadable, read_toml
from mapgen.mapfile import parse_pattern
from mapgen.terrain import Terrain, parse_terrain

PROFILE_DIR = Path(__file__).parent / "profiles"
#: The keys of a profile file (and of its fort_pattern table); any other key is an error that names it.
#: ``quality`` is the [quality] table of generation to a target, read and checked by ``mapgen.quality``.
PROFILE_KEYS = ("chapter", "reachable", "peak", "start", "greek_fire", "counts", "fort_pattern", "quality")
PATTERN_KEYS = ("cells", "terrains")
#: The design defaults as rules: id, title and words (RULES.md §5; P3 is a project design default).
P1 = RuleInfo(
    "P1", "Reachable", "Every cell can be reached from the start without passing a Rock (profile: reachable)."
)
P2 = RuleInfo("P2", "Balanced", "Each terrain's count lies within the profile's [least, most] (profile: counts)")
P3 = RuleInfo("P3", "Greek Fire collectable", "The Greek Fire is never on a Rock, so the expedition can collect it.")


class ProfileError(InputError, ValueError):
    """A profile file that cannot be used."""


@dataclass(frozen=True)
class Profile:
    """Settings for generated maps; ``source`` names the file they came from."""

    chapter: str
    source: str = "default"
    reachable: bool = True
    peak: int | None = None  # None: random
    start: int | None = None  # Flora: None is random in column 7
    greek_fire: int | None = None
    counts: dict[Terrain, tuple[int | None, int | None]] = field(default_factory=dict)
    pattern_cells: tuple[int, int] = (2, 4)
    pattern_terrains: tuple[Terrain, ...] = ()
    fort_pattern: str | None = None  # a fixed mini map, in the map file's notation

    @property
    def board(self) -> Board:
        return chapter_board(self.chapter)

    def rules(self, chapter: Chapter) -> tuple[Rule, ...]:
        """The profile's settings as rule instances, in the order the generator posts them:
        the counts (P2), reachability (P1), then the Greek Fire (P3). A count of a terrain neither ``chapter`` nor
        the profile's shipped chapter has is a typo (``Fi`` on Vameter, for its Mushroom Field ``Mf``): ProfileError;
        one the shipped chapter has and a house chapter left out is passed over (its default profile still applies)."""
        shipped = get_chapter(self.chapter).terrains
        codes = " ".join(u.code for u in chapter.terrains)
        for t in self.counts:
            if t not in chapter.terrains and t not in shipped:
                raise ProfileError(
                    f"{self.source}: counts.{t.code}: {t.label} is not a terrain of {chapter.name} (its terrains: "
                    f"{codes})"
                )
        # a mini map of a terrain the chapter lacks can match no Fort: the profile's typo (exit 2), not a request no
        # map can meet (it said "no fauna map can meet ... rule F2", exit 1)
        fixed = parse_pattern(self.fort_pattern).rows if self.fort_pattern else ()
        mini = "fort_pattern" in chapter.briefing  # the default table's terrains stand in every profile: Fauna's
        for key, terrains in (
            ("fort_pattern", [t for row in fixed for t in row]),
            ("fort_pattern.terrains", self.pattern_terrains),
        ):
            wrong = next(
                (t for t in terrains if t is not None and t not in chapter.terrains and t not in shipped), None
            )
            if mini and wrong is not None:
                raise ProfileError(
                    f"{self.source}: {key}: {wrong.label} ({wrong.code}) is not a terrain of {chapter.name} "
                    f"(its terrains: {codes})"
                )
        out: list[Rule] = [
            Count(
                P2.id,
                P2.title,
                f"counts.{t.code} = [{_bound(lo)}, {_bound(hi)}]",
                terrain=t,
                at_least=lo or 0,
                at_most=hi,
            )
            for t, (lo, hi) in self.counts.items()
            if t in chapter.terrains
        ]
        if self.reachable:
            # A start inside the board must wait for the briefing; any edge start reaches what column 7 does.
            inside = "start" in chapter.briefing and self.start is not None and not chapter.board.is_edge(self.start)
            out.append(
                Reachable(
                    P1.id, P1.title, "reachable = true", blocker=Terrain.ROCK, start="briefing" if inside else "edge"
                )
            )
        if "greek_fire" in chapter.briefing:
            out.append(NotAt(P3.id, P3.title, field="greek_fire", terrain=Terrain.ROCK))
        return tuple(out)

    def applied_to(self, chapter: Chapter) -> Chapter:
        """The chapter with the profile's rules appended: what a generated map must keep."""
        rules = self.rules(chapter)
        ids = {r.id for r in rules}
        counts = "; ".join(r.setting.removeprefix("counts.") for r in rules if r.id == P2.id)
        p2 = replace(P2, text=f"{P2.text}: {counts}.")
        info = tuple(i for i in (P1, p2, P3) if i.id in ids)
        return replace(chapter, rules=chapter.rules + rules, info=chapter.info + info)


def _bound(n: int | None) -> str:
    return "any" if n is None else str(n)


def _unknown_keys(table: dict, known: tuple[str, ...], where: str) -> None:
    unknown = [k for k in table if k not in known]
    if unknown:
        raise ProfileError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(known)})")


def _cell_or_random(data: dict, key: str, board: Board, source: str) -> int | None:
    value = data.get(key, "random")
    if value == "random":
        return None
    if not isinstance(value, str):
        raise ProfileError(f"{source}: '{key}' must be a cell name or \"random\", not {value!r}")
    try:
        return board.index(value)
    except CellError as e:
        raise ProfileError(f"{source}: '{key}': {e}") from None


#: A mini map's terrains when a profile's [fort_pattern] table names none: the shipped Fauna profile's (Mud left out:
#: it needs Water and Rock beside it, so three Forts rarely share it and most such briefings admit no map)
PATTERN_TERRAINS = ("Vi", "Sk", "Ti", "Fi", "Fo", "Wa", "Hi")


def profile_from_data(data: dict, source: str, chapter: str | None = None) -> Profile:
    if "terrain" in data:  # a map file: it said "unknown key 'terrain'"
        raise ProfileError(
            f"{source}: a map file, not a design profile (it says terrain = ...): mapgen chapters CHAPTER --design -o "
            "FILE writes a profile to start from"
        )
    _unknown_keys(data, PROFILE_KEYS, source)
    name = data.get("chapter", chapter)
    if not isinstance(name, str) or name not in chapter_names():
        raise ProfileError(f"{source}: {unknown_chapter(name)}")
    if chapter is not None and name != chapter:
        raise ProfileError(f"{source}: this profile is for chapter {name}, not {chapter}")
    spec = get_chapter(name)
    board = spec.board
    for key in ("start", "greek_fire", "fort_pattern"):
        if key in data and key not in spec.briefing:
            raise ProfileError(f"{source}: '{key}': a {name} briefing has no {key}")
    counts: dict[Terrain, tuple[int | None, int | None]] = {}
    table = data.get("counts", {})
    if not isinstance(table, dict):
        raise ProfileError(f"{source}: 'counts' must be a table like [counts] Wa = [6, 10], not {table!r}")
    for code, bounds in table.items():
        try:
            t = parse_terrain(code)
        except ValueError as e:
            raise ProfileError(f"{source}: counts: {e}") from None
        ok = (
            isinstance(bounds, list)
            and len(bounds) == 2
            # past TOML's largest integer (Python's reader takes one) CP-SAT failed with a TypeError
            and all(b is None or (isinstance(b, int) and not isinstance(b, bool) and 0 <= b < 2**63) for b in bounds)
        )
        if not ok:
            raise ProfileError(
                f"{source}: counts.{code} must be [least, most] (whole numbers from 0 to 2**63 - 1), not {bounds!r}"
            )
        if None not in bounds and bounds[0] > bounds[1]:  # a typo, not a request no map can meet (exit 1)
            raise ProfileError(f"{source}: counts.{code} = {bounds!r}: least {bounds[0]} is more than most {bounds[1]}")
        counts[t] = (bounds[0], bounds[1])
    fp = data.get("fort_pattern", {})
    terrains: tuple[Terrain, ...]
    if isinstance(fp, str):
        try:  # a mini map no briefing can hold is the profile's fault (exit 2), not a crash at the first map
            parse_pattern(fp)
        except ValueError as e:
            raise ProfileError(f"{source}: fort_pattern: {e}") from None
        fixed, cells, terrains = fp, (2, 4), ()
    elif isinstance(fp, dict):
        _unknown_keys(fp, PATTERN_KEYS, f"{source}: fort_pattern")
        fixed = None
        cells = fp.get("cells", [2, 4])
        cells = tuple(cells) if isinstance(cells, list) else (cells,)
        if len(cells) != 2 or not all(type(c) is int and 1 <= c <= 8 for c in cells) or cells[0] > cells[1]:
            raise ProfileError(
                f"{source}: fort_pattern.cells must be [least, most] between 1 and 8, not {list(cells)!r}"
            )
        try:
            terrains = tuple(parse_terrain(c) for c in fp.get("terrains", PATTERN_TERRAINS))
        except (ValueError, TypeError) as e:
            raise ProfileError(f"{source}: fort_pattern.terrains: {e}") from None
    else:
        raise ProfileError(f"{source}: 'fort_pattern' must be a mini map or a table of cells and terrains")
    reachable = data.get("reachable", True)
    if not isinstance(reachable, bool):
        raise ProfileError(f"{source}: 'reachable' must be true or false")
    return Profile(
        chapter=name,
        source=source,
        reachable=reachable,
        peak=_cell_or_random(data, "peak", board, source),
        start=_cell_or_random(data, "start", board, source),
        greek_fire=_cell_or_random(data, "greek_fire", board, source),
        counts=counts,
        pattern_cells=cells,
        pattern_terrains=terrains,
        fort_pattern=fixed,
    )


def default_profile(chapter: str | Chapter) -> Profile:
    """The chapter's default profile: the file its registry entry (or a house-rule chapter file) names
    (``profile = "NAME.toml"`` in ``mapgen/profiles/``), or the bare defaults (P1 only) when it names none."""
    if isinstance(chapter, Chapter):
        spec, chapter = chapter, chapter.name
    else:
        try:
            spec = get_chapter(chapter)
        except ChapterError as e:
            raise ProfileError(str(e)) from None
    path = profile_path(spec)
    if path is None:
        return Profile(chapter=chapter)
    return profile_from_data(read_toml(path, "profile file"), "default", chapter)


def profile_path(chapter: Chapter) -> Path | None:
    """The file of ``chapter``'s default profile (its ``profile`` key, a file in ``mapgen/profiles/``, with the
    comments that explain each setting: what `mapgen chapters CHAPTER --design -o FILE` writes), or None when it
    names none (the bare defaults, P1 only)."""
    return None if chapter.profile is None else PROFILE_DIR / chapter.profile


def read_profile_file(path: str | Path, error: type[ValueError] = ProfileError) -> dict:
    """A profile file's parsed TOML; ``error`` (one line naming the file) when it cannot be read or parsed
    (mapgen.inputs: size, encoding, nesting)."""
    try:
        return read_toml(path, "profile file")
    except Unreadable as e:
        raise error(f"{path}: {e}") from None


def load_profile(path: str | Path, chapter: str | None = None) -> Profile:
    """A designer's profile file; ``chapter``, when given, must match the file's."""
    return profile_from_data(read_profile_file(path), str(path), chapter)
