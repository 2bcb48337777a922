"""Validation of map files: every broken rule of a complete map, as values (never exceptions)."""

from __future__ import annotations

from dataclasses import dataclass

from constraints.catalogue import Chapter, as_chapter, check_map, misfit
from constraints.rules import Violation
from mapgen.mapfile import MapFileError, parse_map, read_map


@dataclass(frozen=True)
class FileReport:
    """The outcome for one file: violations when it was read, else the reason it was not."""

    file: str
    violations: tuple[Violation, ...] = ()
    error: str | None = None
    #: The house rules the map says it was made under (its ``[generator]`` table: ``rules``, the file's name, and
    #: ``rules_fingerprint``; ``mapgen.generate.rules_record``), else None.
    made_under: dict | None = None
    #: The file was read but is a partial map (``..`` cells): not validated, since only a complete map's rules are
    #: judged (exit 2 all the same, as every command given a partial map where a complete one is needed).
    partial: bool = False

    @property
    def valid(self) -> bool:
        return self.error is None and not self.violations

    def to_json(self) -> dict:
        out = {
            "file": self.file,
            "valid": self.valid,
            "violations": [v.to_json() for v in self.violations],
            "error": self.error,
        }
        if self.made_under is not None:
            out["made_under"] = self.made_under
        return out


def validate_file(path: str, chapter: Chapter | str | None = None, *, text: str | None = None) -> FileReport:
    """Read and check one complete map; unreadable and partial files come back with ``error`` set. ``text``: the
    file's text, read already (a map piped in, ``path`` then only its name). ``chapter``: the rules (a Chapter or a
    chapter's name; default the map's)."""
    chapter = None if chapter is None else as_chapter(chapter, "validate_file")
    try:
        m = read_map(path) if text is None else parse_map(text, path, from_file=True)
    except MapFileError as e:
        return FileReport(path, error=e.problem)
    hidden = m.unrevealed()
    if hidden:
        cells = "cell" if len(hidden) == 1 else "cells"
        return FileReport(
            path,
            partial=True,
            error=(
                f"partial map ({len(hidden)} unrevealed {cells}, first {m.board.name(hidden[0])}); "
                "validate needs a complete map, use `mapgen solve` for partial ones"
            ),
        )
    problem = None if chapter is None else misfit(m, chapter)
    if problem:
        return FileReport(path, error=problem)
    return FileReport(path, violations=tuple(check_map(m, chapter)), made_under=made_under(m))


def made_under(m) -> dict | None:
    """The house rules a map's ``[generator]`` table says it was made under: {"rules": file name, "fingerprint"},
    else None (made under the shipped chapter's rules, or by hand)."""
    record = m.meta.get("generator")
    if not isinstance(record, dict) or not isinstance(record.get("rules"), str):
        return None
    fingerprint = record.get("rules_fingerprint")
    return {"rules": record["rules"], "fingerprint": fingerprint if isinstance(fingerprint, str) else None}
