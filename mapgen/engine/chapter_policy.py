"""The bots' chapter knowledge: a chapter's ``bot_policy`` answers what the heuristic bot asks it.

``HeuristicBot`` (and so the deducer and clairvoyant bots) calls these for chapters that set
``bot_policy``; each method gets the bot, so it can use the bot's ``unit_value`` and beliefs.
"""

from __future__ import annotations


class ChapterPolicy:
    """Defaults: no extra needs or values, the first legal chapter action, no chapter free action."""

    def needs(self, bot, state, need: list[float]) -> None:
        """Add what the chapter's goal asks for to ``need`` (units of each Resource)."""

    def terrain_value(self, bot, state, need, terrain) -> float:
        """Extra value of finding this terrain now."""
        return 0.0

    def cell_value(self, bot, state, need, cell: int) -> float:
        """Extra value of exploring this cell now (known places: Greek Fire, the Vameter)."""
        return 0.0

    def step(self, bot, state, legal: list[int], need) -> int:
        """Answer a ``("chapter", ...)`` decision."""
        return legal[0]

    def main(self, bot, state, legal: list[int], need) -> int | None:
        """A chapter free action to take now in the main step, or None to play as usual."""
        return None
