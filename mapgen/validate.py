"""Validation of map files: every broken rule of a complete map, as values (never exceptions)."""

from __future__ import annotations

from dataclasses import dataclass

from constraints.catalogue import Chapter, chapter_names, check_map
from constraints.rules import Violation
from mapgen.mapfile import MapFileError, read_map


@dataclass(frozen=True)
class FileReport:
    """The outcome for one file: violations when it was read, else the reason it was not."""

    file: str
    violations: tuple[Violation, ...] = ()
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.error is None and not self.violations

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "valid": self.valid,
            "violations": [v.to_json() for v in self.violations],
            "error": self.error,
        }


def validate_file(path: str, chapter: Chapter | None = None) -> FileReport:
    """Read and check one complete map; unreadable and partial files come back with ``error`` set."""
    try:
        m = read_map(path)
    except MapFileError as e:
        return FileReport(path, error=e.problem)
    hidden = m.unrevealed()
    if hidden:
        cells = "cell" if len(hidden) == 1 else "cells"
        return FileReport(
            path,
            error=(
                f"partial map ({len(hidden)} unrevealed {cells}, first {m.board.name(hidden[0])}); "
                "validate needs a complete map, use `mapgen solve` for partial ones"
            ),
        )
    if chapter is not None and chapter.board != m.board:
        return FileReport(path, error=f"a {m.chapter} map does not fit the board of chapter {chapter.name}")
    if chapter is not None and chapter.name != m.chapter and chapter.name in chapter_names():
        # another shipped chapter's rules (a copied file whose name was left): every check would report its terrains
        told = f'a house-rule file for {m.chapter} maps says name = "{m.chapter}"'
        return FileReport(path, error=f"a {m.chapter} map, but the rules are chapter {chapter.name}'s ({told})")
    return FileReport(path, violations=tuple(check_map(m, chapter)))
