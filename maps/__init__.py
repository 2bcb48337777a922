"""The shipped maps, usable by name (``fauna-1``): files here, or in a folder per chapter (``fauna/fauna-1.toml``,
the graded library that ``python -m maps.build`` makes).

Made by one command (see README.md in this folder), each checked by ``mapgen validate``.
"""

from __future__ import annotations

import re
from pathlib import Path

from mapgen.errors import InputError, MessageKeyError
from mapgen.inputs import a_kind
from mapgen.mapfile import read_map
from mapgen.model import Map

FOLDER = Path(__file__).parent


def exists(p: str | Path, *, file: bool = False) -> bool:
    """``Path(p).exists()`` (``is_file()`` with ``file``), False for a name the system refuses (too long:
    ENAMETOOLONG, which they raise): whether a map argument names a file or folder."""
    try:
        return Path(p).is_file() if file else Path(p).exists()
    except OSError:
        return False


def looks_like_path(spec: str) -> bool:
    """Whether a map argument is written as a file's path (a suffix or a folder in it), not a shipped map's name."""
    return bool(Path(spec).suffix) or "/" in spec or "\\" in spec


def names_nothing(spec: str, resolved: str) -> bool:
    """Whether a map argument is neither a file nor a shipped map's name: ``resolve`` gave it back, no such file
    exists, and it is not written as a path (whose reader says "no such file" itself)."""
    return resolved == spec and not exists(spec) and not looks_like_path(spec)


def names(chapter: str | None = None) -> list[str]:
    """Names of the shipped maps (``fauna-1`` …), in chapter and number order."""

    def key(p: Path):
        ch, _, n = p.stem.rpartition("-")
        return ch, int(n) if n.isdigit() else 0

    found = sorted(files(), key=key)
    return [p.stem for p in found if chapter is None or p.stem.rpartition("-")[0] == chapter]


def files() -> list[Path]:
    """Every shipped map file: ``maps/NAME.toml`` and ``maps/CHAPTER/NAME.toml``."""
    return [*FOLDER.glob("*.toml"), *(p for p in FOLDER.glob("*/*.toml") if p.parent.name == p.stem.rpartition("-")[0])]


class UnknownMapError(MessageKeyError, InputError):
    """No shipped map by that name (a KeyError, as ``path`` and ``load`` always raised, and invalid input: exit 2); its
    message names the map
    meant, or the shipped names, or for a file's path how to read it."""


def path(name: str) -> Path:
    """The file of a shipped map; UnknownMapError (a KeyError) when there is none by that name."""
    if not isinstance(name, str):
        raise TypeError(f"a shipped map's name is a str like 'fauna-1', not {a_kind(name)}")
    stem = name.removesuffix(".toml")
    p = FOLDER / f"{stem}.toml"
    if not exists(p, file=True) and "/" not in stem and "\\" not in stem:
        p = FOLDER / stem.rpartition("-")[0] / f"{stem}.toml"
    if not exists(p, file=True):
        if looks_like_path(name):  # a file's path, not a name
            raise UnknownMapError(
                f"{name!r} is not a shipped map's name: read a map file with mapgen.mapfile.read_map(path)"
            )
        raise UnknownMapError(f"no shipped map named {name!r}{unknown(name)}")
    return p


def resolve(name_or_path: str) -> str:
    """A path as given when it exists (or looks like a path), else the shipped map of that name. A folder is no map
    file: one named like a shipped map (``playtest training-1 --replay training-1``) does not hide it."""
    given = Path(name_or_path)
    if looks_like_path(name_or_path) or (exists(given) and not (given.is_dir() and name_or_path in names())):
        return name_or_path
    try:
        return str(path(name_or_path))
    except KeyError:
        return name_or_path


def load(name: str) -> Map:
    """A shipped map by name: ``maps.load("fauna-1")``."""
    return read_map(path(name))


def info(name: str) -> dict:
    """What a designer or player wants of a shipped map at a glance (``mapgen maps``), as its file records it
    (the ``[grade]`` table ``python -m maps.build`` writes: nothing is graded again): ``name``, ``chapter``,
    ``number`` and ``title`` (the briefing's), ``grade`` (the deduction grade: Gentle ... Fiendish) and
    ``play`` (the play difficulty: the best fair bot, its win rate, the oracle's and the gap between them);
    ``grade`` and ``play`` are None for a map without that record."""
    m = load(name)
    t = m.meta.get("grade")
    t = t if isinstance(t, dict) else {}
    play = t.get("play") if isinstance(t.get("play"), dict) else None
    return {
        "name": name,
        "chapter": m.chapter,
        "number": m.briefing.number,
        "title": m.briefing.name,
        "grade": t.get("tier"),
        "play": None
        if play is None
        else {k: play.get(k) for k in ("fair_bot", "fair_win_rate", "oracle_win_rate", "gap")},
    }


def _spans(found: list[str]) -> str:
    """``fauna-1 to fauna-8, training-1, training-2``: shipped names per chapter, a run of numbers by its ends."""
    by_chapter: dict[str, list[str]] = {}
    for n in found:
        by_chapter.setdefault(n.rpartition("-")[0], []).append(n)
    parts = []
    for group in by_chapter.values():
        nums = [n.rpartition("-")[2] for n in group]
        run = all(x.isdigit() for x in nums) and [int(x) - int(nums[0]) for x in nums] == list(range(len(nums)))
        parts.append(f"{group[0]} to {group[-1]}" if run and len(group) > 2 else ", ".join(group))
    return ", ".join(parts)


def unknown(name: str, listing: str = "") -> str:
    """What to say of a name no shipped map has, as `` (...)`` to follow the message (empty when none is shipped):
    the name meant when the spelling is near one (``Fauna-1``, ``fauna-01``, ``fauna1``, ``fuana-1``), else the
    chapter's shipped names, else all of them, then ``listing`` (where the list is: the CLI's ``mapgen maps``)."""
    shipped = names()
    if not shipped:
        return ""
    written = re.fullmatch(r"\s*([A-Za-z]+)\s*[-_ ]?\s*0*(\d+)\s*", name)
    near = [n for n in ([f"{written[1].lower()}-{int(written[2])}"] if written else []) if n in shipped]
    # a chapter's name with a number it has no map of (fauna-9): its maps, never one of them guessed
    chapter = [n for n in shipped if written and n.rpartition("-")[0] == written[1].lower()]
    if not near and not chapter:
        near = _nearest(name.lower(), shipped)
    if len(near) == 1:
        return f" (did you mean {near[0]}?)"
    return f" (shipped: {_spans(chapter or near or shipped)}{'; ' + listing if listing else ''})"


def _nearest(name: str, shipped: list[str]) -> list[str]:
    """The shipped names nearest ``name`` (``fuana-1``: fauna-1), all of them where several are as near
    (``fauna-l``, an l typed for a 1: fauna-1 ... fauna-8), or none near enough."""
    import difflib  # deferred: only for a name that is not shipped

    score = {n: difflib.SequenceMatcher(None, name, n).ratio() for n in shipped}
    best = max(score.values())
    return [n for n in shipped if score[n] == best] if best >= 0.85 else []
