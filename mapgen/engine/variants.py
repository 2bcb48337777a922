"""Named variants: other readings of an ambiguous rule, and house rules, each off unless asked for.

A game's variants are ``Game(..., variants=(...))`` (``mapgen playtest --variant NAME``); the default
game is the rulebooks' literal reading. Each variant says which chapters it applies to and why it exists;
``mapgen/engine/README.md`` quotes the passages behind each one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    name: str
    chapters: tuple[str, ...]  # the chapters it applies to (empty: every chapter)
    kind: str  # "reading" (another reading of an ambiguous rule) or "house rule" (not in the rulebooks)
    text: str


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "collins-again",
            ("fauna", "flora", "vameter", "maldonado"),
            "reading",
            "Collins' waiver ('You don't pay the Resource to Explore Paths protected by Monsters') also covers the "
            "Tracking Guide's explore again after a right guess",
        ),
        Variant(
            "flora-minotaurs",
            ("flora",),
            "reading",
            "Flora's Threat deck also holds Fauna's four Minotaur cards (Sacagawea's text speaks of Minotaurs in play)",
        ),
        Variant(
            "relaunch",
            (),
            "house rule",
            "when no Path can be explored from the trail, the expedition may start again from an unexplored start Path",
        ),
        Variant(
            "toll-no-water",
            ("training", "fauna", "flora"),
            "reading",
            "a Minotaur's toll ('discard any 1 Resource') cannot be paid with Water",
        ),
    )
}


def check_variants(names, chapter: str) -> frozenset[str]:
    """The variant names, checked: ValueError naming an unknown one or one for another chapter."""
    out = set()
    for name in names or ():
        v = VARIANTS.get(name)
        if v is None:
            raise ValueError(f"unknown variant {name!r} (expected one of {', '.join(sorted(VARIANTS))})")
        if v.chapters and chapter not in v.chapters:
            raise ValueError(f"the variant {name!r} is for {', '.join(v.chapters)}, not {chapter}")
        out.add(name)
    return frozenset(out)


__all__ = ["VARIANTS", "Variant", "check_variants"]
