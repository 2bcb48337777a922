"""Validation of map files: every broken rule of a complete map, as values (never exceptions)."""

from __future__ import annotations

from dataclasses import dataclass

from constraints.catalogue import Chapter, check_map, misfit
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
    problem = None if chapter is None else misfit(m, chapter)
    if problem:
        return FileReport(path, error=problem)
    return FileReport(path, violations=tuple(check_map(m, chapter)))
