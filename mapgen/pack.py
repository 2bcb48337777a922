"""Map folders to print and play (``mapgen pack``): which maps go in a folder, numbered as the box numbers them.

A folder is made by generation to a target (``mapgen.target.search``): every candidate is graded (its
deduction, and the band's bot playing it), so each kept map carries a ``[grade]`` table with its deduction
tier and play figures for the cover. ``--grade-spread`` fills the tiers in equal shares in one pass over the
seeds, like the graded library (``maps/build.py``); ``--grade TIER`` asks one tier. The kept maps are
numbered easiest first (tier, then the band bot's win rate, highest first, then seed), so the same seed
gives the same folder, byte for byte, whatever ran it. The PDF itself is ``mapgen.render.folder``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from constraints.catalogue import Chapter
from mapgen.model import Map
from mapgen.quality import TIERS, Quality, chapter_quality, tier_index
from mapgen.target import SearchResult, kept_map, search

#: Maps in a chapter's folder in the box (the rulebooks: 8 per chapter, the Training maps 2)
FOLDER_SIZE = {"training": 2}
DEFAULT_FOLDER_SIZE = 8
#: The tiers a chapter's maps reach (Training's small board: Gentle and Moderate, as in maps/build.py)
SPREAD_TIERS = {"training": ("Gentle", "Moderate")}
#: The most maps one folder holds (its cover continues on its back when they do not fit one page)
MAX_MAPS = 40


def folder_size(chapter: str) -> int:
    return FOLDER_SIZE.get(chapter, DEFAULT_FOLDER_SIZE)


def spread(chapter: str, count: int) -> dict[str, int]:
    """``count`` maps shared over the chapter's tiers, the easier tiers taking what does not divide evenly."""
    tiers = SPREAD_TIERS.get(chapter, TIERS)
    base, extra = divmod(count, len(tiers))
    return {t: base + (k < extra) for k, t in enumerate(tiers) if base + (k < extra)}


def pack_quality(
    chapter: str,
    *,
    grade: str | None = None,
    win_rate: tuple[float, float] | None = None,
    bot: str | None = None,
    max_walled_in: float | None = None,
    games: int = 200,
) -> Quality:
    """What a folder's map must meet: the chapter's play defaults (win-rate band, walled-in share, as the graded
    library), the options over them, and ``games`` games of the band's bot per candidate."""
    q = replace(chapter_quality(chapter), guessed_targets=None)
    changes: dict = {}
    if grade is not None:
        changes["grade"] = grade
    if win_rate is not None:
        changes["win_rate"] = win_rate
    if bot is not None:
        changes["bot"] = bot
    if max_walled_in is not None:
        changes["max_walled_in"] = max_walled_in
    q = replace(q, **changes)
    return replace(q, games={q.bot: games})


def _head_win(m: Map, bot: str) -> float:
    g = m.meta.get("grade") or {}
    f = g.get(bot)
    return float(f["win_rate"]) if isinstance(f, dict) and "win_rate" in f else 0.0


def numbered(maps: list[Map], bot: str = "heuristic") -> list[Map]:
    """The maps easiest first (deduction tier, then ``bot``'s win rate, highest first, then seed), numbered 1..N."""

    def key(m: Map):
        g = m.meta.get("grade") or {}
        tier = g.get("tier")
        seed = (m.meta.get("generator") or {}).get("seed", 0)
        return (tier_index(tier) if tier else len(TIERS), -_head_win(m, bot), seed)

    ordered = sorted(maps, key=key)
    return [replace(m, briefing=replace(m.briefing, number=k)) for k, m in enumerate(ordered, 1)]


@dataclass
class Made:
    """A generated folder: its maps (numbered, each with its ``[grade]`` table) and the search behind them."""

    maps: list[Map]
    result: SearchResult


def make_folder(
    chapter: str,
    profile,
    quality: Quality,
    *,
    count: int,
    seed: int,
    grade_spread: bool = False,
    time_limit: float = 1200.0,
    candidates: int = 400,
    where=None,
    progress=None,
    rules: Chapter | None = None,
    rules_file: str | None = None,
) -> Made:
    """Candidates from ``seed`` on until ``count`` pass (``grade_spread``: each tier its share); every candidate's
    deduction is graded; under ``rules`` (a house chapter loaded from ``rules_file``) when given: the maps keep them
    and their tables name them. ``result.done`` is False when too few passed (``result.stopped`` says why)."""
    per_tier = spread(chapter, count) if grade_spread else None
    res = search(
        chapter,
        profile,
        quality,
        seed=seed,
        count=count,
        time_limit=time_limit,
        max_candidates=candidates,
        where=where,
        progress=progress,
        per_tier=per_tier,
        deduce=True,
        rules=rules,
        rules_file=rules_file,
    )
    maps = numbered([kept_map(c) for c in res.kept], quality.bot) if res.done else []
    return Made(maps, res)


__all__ = [
    "DEFAULT_FOLDER_SIZE",
    "MAX_MAPS",
    "Made",
    "folder_size",
    "make_folder",
    "numbered",
    "pack_quality",
    "spread",
]
