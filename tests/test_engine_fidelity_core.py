"""An audit of the core game (Training, Fauna, Flora) against the core rulebook: the discrepancies it found, each
test quoting the rule it checks. The readings it found undocumented are listed in mapgen/engine/README.md
("Decisions found undocumented by an audit of the core game").

Maps: tests/data/engine_fauna_201.toml, engine6_flora_201.toml (their layouts are drawn in the chapter test files).
"""

from __future__ import annotations

from pathlib import Path

from mapgen.engine import actions as A
from mapgen.engine import flora as F
from mapgen.engine.cards import FOOD, ROCK, WATER, WOOD
from mapgen.engine.game import Game
from mapgen.mapfile import read_map
from tests.engine_support import cell, settle

DATA = Path(__file__).parent / "data"


def load(name):
    return read_map(DATA / f"{name}.toml")


def refresh_jar(s) -> None:
    """Medicine refreshes the Jar (player 1's first Gear card)."""
    s.apply_action(next(a for a in s.legal_actions() if s.action_to_string(a) == "Medicine: refresh player 1 gear 1"))


def test_a_refreshed_jar_keeps_the_resource_on_it():
    """Jar: "EXHAUST: Place 1 Resource that's not Water from the Supply Board onto this card. At Night, return that
    Resource plus one more of the same type to the Supply Board." Refreshed by Medicine ("EXHAUST: Refresh 1
    Character or Gear") while a Rock is on it, the Jar cannot take a second Resource over the first: before, the
    Food stored replaced the Rock, which vanished from the game (neither held nor back at Night)."""
    s = settle(
        Game(
            load("engine_fauna_201"), characters=("Clark",), gear=(("Jar", "Flint", "Compass"),), medicine=True
        ).new_initial_state()
    )
    s.pack[ROCK] = s.pack[FOOD] = 1
    s._legal = None
    s.apply_action(A.JAR_STORE + ROCK)
    refresh_jar(s)
    assert "Jar" not in s.exhausted
    assert A.JAR_STORE + FOOD not in s.legal_actions()  # the Rock is still on the card
    assert s.jar == ROCK and s.pack[FOOD] == 1
    s.apply_action(A.JAR_TAKE)  # taken back, the Jar (refreshed) takes a Resource again
    assert s.pack[ROCK] == 1 and A.JAR_STORE + FOOD in s.legal_actions()


def test_the_satchel_swaps_the_water_mme_boniface_took():
    """Satchel: "EXHAUST AFTER EXPLORE: Discard the Resource you just gained from Exploring to take a Destiny Card
    instead." Mme. Boniface: "When you collect Wood or Skull from Exploring, you can instead take Water." The Water
    she took is the Resource just gained: the Satchel discards it (before, the Satchel looked for the Wood, which
    was never gained, so it was not offered)."""
    s = settle(
        Game(
            load("engine6_flora_201"), characters=("Mme. Boniface",), gear=(("Flint", "Jar", "Satchel"),)
        ).new_initial_state()
    )
    s.apply_action(A.EXPLORE + cell(s, "E7"))  # Wood
    settle(s)
    assert s.agenda[-1] == ("chapter", "boniface", WOOD)
    s.apply_action(F.BONIFACE_WATER)
    water = s.pack[WATER]
    assert s.pack[WOOD] == 0 and A.SATCHEL in s.legal_actions()
    s.apply_action(A.SATCHEL)
    assert s.pack[WATER] == water - 1 and s.pack[WOOD] == 0
