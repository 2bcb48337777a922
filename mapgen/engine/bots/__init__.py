"""Bots: each is handed its own seeded RNG and implements ``step(obs) -> action``.

``obs`` is the acting player's ``Observation`` (``mapgen/engine/observation.py``): what that player may
know, never the hidden map or a deck's order. ``play_game`` hands it over.

- ``random`` (``random_bot.py``): a uniform legal action; it reads the legal actions only
  (``decides_on = "legal"``: handed ``observation.legal_only``).
- ``heuristic`` (``heuristic.py``): plays on what is revealed, with the chapter's policy.
- ``deducer`` (``deducer.py``): the heuristic, with exact deduction of the reachable cells' terrains.
- ``clairvoyant`` (``clairvoyant.py``): the heuristic given the map (``make_bot(..., map=m)``).
- ``ismcts`` (``ismcts.py``): OpenSpiel's Information Set MCTS on worlds resampled from the player's
  information state, the heuristic as rollout; ``budget`` simulations per decision (needs ``open-spiel``).
  It decides on an ``InfoState`` (``mapgen/engine/infostate.py``: ``decides_on = "infostate"``).
- ``planner`` (``planner.py``): the deducer, whose explores are chosen by rollouts (the clairvoyant
  bot on each world) on ``budget`` worlds drawn from the player's information state: a fair player.
- ``scout`` (``scout.py``): the fast fair player: the deducer, with the planner's search on the late game only (the Paths
  chosen once a share ``LATE`` of the board is explored, where the searches pay and are cheap), ``budget`` worlds per
  search; it decides on its observation, and on its information state at the decisions it searches
  (``decides_on = "infostate_when"``).
- ``first_path.py``: the planner's first Path, taken among the start Paths least likely to be a Skull by the
  sampler's odds of the unrevealed board (``AimedDeducer.first_path_by_odds``).
- ``oracle`` (``oracle.py``): a rollout search with the map in view (the clairvoyant bot as rollout,
  chance drawn at random: no deck order), ``budget`` rollouts per candidate action; the playtests'
  upper bound, not a fair player (``decides_on = "state"``).

Chapter policies: ``policy.py`` (the base and the ``POLICIES`` registry), one module per chapter
(``flora.py``, ``vameter.py``, ``maldonado.py``, ``traitor.py``); shared tables in ``common.py``.
"""

from __future__ import annotations

import random

from mapgen.engine.bots.clairvoyant import ClairvoyantBot
from mapgen.engine.bots.deducer import DeducerBot
from mapgen.engine.bots.heuristic import HeuristicBot
from mapgen.engine.bots.ismcts import IsmctsBot
from mapgen.engine.bots.oracle import OracleBot
from mapgen.engine.bots.planner import PlannerBot
from mapgen.engine.bots.policy import POLICIES, ChapterPolicy
from mapgen.engine.bots.random_bot import RandomBot
from mapgen.engine.bots.scout import ScoutBot
from mapgen.engine.rules import BadSettingError
from mapgen.inputs import a_kind, did_you_mean, is_whole
from mapgen.model import Map, expect_map

BOTS = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "deducer": DeducerBot,
    "clairvoyant": ClairvoyantBot,
    "ismcts": IsmctsBot,
    "planner": PlannerBot,
    "oracle": OracleBot,
    "scout": ScoutBot,
}
#: the bots that must be handed the map (``make_bot(name, rng, map=m)``)
NEEDS_MAP = frozenset({"clairvoyant", "oracle"})
#: the bots with a search budget (``make_bot(name, rng, budget=n)``: simulations per decision)
HAS_BUDGET = frozenset({"ismcts", "planner", "oracle", "scout"})
#: the bots that see the hidden map: upper bounds, not fair players (a grade's gap is oracle minus the best other)
UNFAIR = frozenset({"clairvoyant", "oracle"})


def make_bot(name: str, rng: random.Random, map: Map | None = None, budget: int | None = None):
    """A new bot by name; ``map`` (a complete Map) is required by the bots in ``NEEDS_MAP`` and ignored by the others;
    ``budget`` (a whole number from 1) is given to the bots in ``HAS_BUDGET`` (their default when None) and ignored by
    the others. BadSettingError (invalid input, exit 2; a ValueError) for an unknown bot, a missing map or a budget it
    cannot use; TypeError for an ``rng`` that is no ``random.Random`` or a ``map`` that is no Map, WrongMapError for
    a partial one."""
    cls = BOTS.get(name) if isinstance(name, str) else None
    if cls is None:
        near = did_you_mean(name, BOTS) if isinstance(name, str) else ""
        raise BadSettingError(f"unknown bot {name!r}{near} (expected one of {', '.join(BOTS)})", setting="bot")
    if not isinstance(rng, random.Random):  # an int failed at the bot's first decision
        raise TypeError(f"make_bot's rng is a random.Random (random.Random(seed)), not {a_kind(rng, shown=True)}")
    if name in HAS_BUDGET and budget is not None and not is_whole(budget, 1):  # kept, and failed inside the search
        raise BadSettingError(
            f"a search bot's budget is a whole number from 1 (None: its default), not {budget!r}", setting="budget"
        )
    if name in NEEDS_MAP:
        if map is None:
            raise BadSettingError(f"the {name} bot must be given the map (make_bot(..., map=m))", setting="bot")
        expect_map(map, "make_bot", complete=True)  # a name: an AttributeError inside the bot; a partial map: its play
        return cls(rng, map, budget) if name in HAS_BUDGET else cls(rng, map)
    if name in HAS_BUDGET:
        return cls(rng, budget)
    return cls(rng)


__all__ = [
    "BOTS",
    "HAS_BUDGET",
    "NEEDS_MAP",
    "POLICIES",
    "UNFAIR",
    "ChapterPolicy",
    "ClairvoyantBot",
    "DeducerBot",
    "HeuristicBot",
    "IsmctsBot",
    "OracleBot",
    "PlannerBot",
    "RandomBot",
    "ScoutBot",
    "make_bot",
]
