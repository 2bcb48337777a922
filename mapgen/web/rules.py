"""The rules ``mapgen serve`` answers under: each chapter's shipped rules, or a house-rule chapter file given with
``mapgen serve --rules FILE`` (at most one per chapter; several files for several chapters).

Every question the app answers about a map (validate, solve, the table helper's counts and odds, hint, repair,
render, generate, deduce, playtest) takes its chapter from ``ServedRules.chapter``, never from the registry:
a map made under house rules and asked about at the table gets the deductions of those rules. A ``ServedRules``
is small and picklable (its Chapters are frozen dataclasses); the app hands it to every call, in its threads and
its worker processes alike, and the caches keyed by a chapter (solver sessions, circuits, sampler pools) key on
the Chapter itself, so the shipped and a house chapter of one name never share an answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from constraints.catalogue import Chapter, ChapterError, chapter_board, chapter_names, get_chapter


@dataclass(frozen=True)
class ServedRules:
    """The house chapters a server answers under: (file as given, Chapter) pairs, one per chapter name at most.
    Every other chapter keeps its shipped rules."""

    house: tuple[tuple[str, Chapter], ...] = ()

    @classmethod
    def of(cls, files: Iterable[tuple[str, Chapter]]) -> ServedRules:
        """The served rules of ``--rules`` files, each loaded already (``load_chapter``); ChapterError (exit 2,
        ``FILE: what``) for one the app cannot serve: a chapter name that is no shipped chapter (the app's maps
        name their chapter), another board than that chapter's, or a second file for one chapter."""
        house: dict[str, tuple[str, Chapter]] = {}
        for file, chapter in files:
            name = chapter.name
            if name not in chapter_names():
                raise ChapterError(
                    f"{file}: a map names its chapter, and {name!r} is no shipped chapter "
                    f"({', '.join(chapter_names())}): keep name the chapter the house rules vary"
                )
            if chapter.board != chapter_board(name):
                raise ChapterError(f"{file}: the board of chapter {name} is not the one its maps are drawn on")
            if name in house:
                raise ChapterError(
                    f"{file}: a second house-rule file for {name} ({house[name][0]} gives its rules already): "
                    "give at most one --rules file per chapter"
                )
            house[name] = (file, chapter)
        return cls(tuple(house[n] for n in chapter_names() if n in house))

    def chapter(self, name: str) -> Chapter:
        """The rules a map of chapter ``name`` is asked about under: the house file's, else the shipped ones."""
        for _, chapter in self.house:
            if chapter.name == name:
                return chapter
        return get_chapter(name)

    def file(self, name: str) -> str | None:
        """The house-rule file chapter ``name`` is served under, as given to ``--rules``; None for shipped rules."""
        return next((file for file, chapter in self.house if chapter.name == name), None)

    def house_chapter(self, name: str) -> Chapter | None:
        """The house chapter of ``name``, or None where the shipped rules hold (the library's ``chapter=None``)."""
        return self.chapter(name) if self.file(name) is not None else None

    def under(self, name: str) -> str:
        """For a message about chapter ``name``: `` under the house rules of FILE`` (as the CLI's ``--rules``), else
        nothing."""
        file = self.file(name)
        return "" if file is None else f" under the house rules of {file}"


#: A server without --rules: every chapter's shipped rules.
SHIPPED = ServedRules()
