"""The bots' chapter knowledge: a chapter's policy answers what the heuristic bot asks it.

A chapter plug-in names its policy (``policy = "flora"``); ``POLICIES`` maps that name to the class in
this package, so the rules modules import nothing from the bots. ``HeuristicBot`` (and so the deducer
and clairvoyant bots) calls these with the bot and the acting player's observation, so a policy can use
the bot's ``unit_value`` and beliefs.
"""

from __future__ import annotations

from importlib import import_module
from typing import ClassVar

#: policy name -> "module:Class" in this package (imported when a game of that chapter is first played)
POLICIES = {
    "flora": "mapgen.engine.bots.flora:FloraPolicy",
    "vameter": "mapgen.engine.bots.vameter:VameterPolicy",
    "maldonado": "mapgen.engine.bots.maldonado:CoopPolicy",
    "maldonado-traitor": "mapgen.engine.bots.traitor:TraitorPolicy",
}


class ChapterPolicy:
    """Defaults: no extra needs or values, the first legal chapter action, no chapter free action."""

    #: the heuristic's terrain frequencies per cell on the chapter's maps (None: Fauna's, in common.PRIORS)
    priors: ClassVar[dict | None] = None

    def needs(self, bot, obs, need: list[float]) -> None:
        """Add what the chapter's goal asks for to ``need`` (units of each Resource)."""

    def needs_key(self, obs) -> tuple | None:
        """What ``needs`` reads of the observation beyond the heuristic's own needs (``HeuristicBot.needs``: the
        row, the Fire, the day, the Kill cards), as a key: the bot keeps its last answer while the key holds.
        None (the default): ``needs`` is asked at every decision. A policy that overrides ``needs`` overrides
        this too (or keeps None)."""
        return None

    def terrain_value(self, bot, obs, need, terrain) -> float:
        """Extra value of finding this terrain now."""
        return 0.0

    def cell_value(self, bot, obs, need, cell: int) -> float:
        """Extra value of exploring this cell now (known places: Greek Fire, the Vameter)."""
        return 0.0

    def step(self, bot, obs, legal: list[int], need) -> int:
        """Answer a ``("chapter", ...)`` decision."""
        return legal[0]

    def main(self, bot, obs, legal: list[int], need) -> int | None:
        """A chapter free action to take now in the main step, or None to play as usual."""
        return None


def policy_for(chapter) -> ChapterPolicy | None:
    """A new policy object for the chapter plug-in's ``policy`` name (None: the heuristic alone)."""
    name = chapter.policy
    if name is None:
        return None
    try:
        module, cls = POLICIES[name].split(":")
    except KeyError:
        raise ValueError(f"unknown bot policy {name!r} (expected one of {', '.join(POLICIES)})") from None
    return getattr(import_module(module), cls)()
