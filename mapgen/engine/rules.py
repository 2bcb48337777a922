"""The core rulebook's numbers and tables: limits, the Terrain Activation Table, the Resource Priority Order, levels."""

from __future__ import annotations

from types import SimpleNamespace

from mapgen.engine.cards import FOOD, FOSSIL, MUD, MUSHROOM, NRES, ROCK, SKULL, VINE, WATER, WOOD
from mapgen.errors import InputError, UnmetError
from mapgen.terrain import Terrain

#: Resources other than Water, in order (the ones a free discard can drop)
CARRIED = tuple(r for r in range(NRES) if r != WATER)
BACKPACK_SLOTS = 6
WATER_LIMIT = 10
MAX_FIRES = 3
SAMPLE_TOKENS = 4
#: The Reserve's tokens, from the component lists: core "48 Resource Tokens" (Food, Wood, Mud, Rock and Skull
#: share them: ``POOL``) and "14 Water Tokens"; Fauna "6 Vine Tokens"; Flora "4 Petrified Fossil Tokens";
#: Vameter "6 Mushroom tokens". What the players hold (the backpack, York's cards, the Jar, the Water Skin)
#: cannot exceed them: a gain with the Reserve empty gains nothing (``effects.room``).
SUPPLY = {WATER: 14, VINE: 6, MUSHROOM: 6, FOSSIL: 4}
POOL = (FOOD, WOOD, MUD, ROCK, SKULL)
POOL_TOKENS = 48

#: Terrain's members as plain attributes, for code run at every step (``T = TERRAIN``, then ``t is T.HILL``): the
#: same objects as ``Terrain.HILL``, without Python 3.11's ``EnumType.__getattr__`` hook, which makes each read of
#: a member off its Enum class cost about ten times an attribute's
TERRAIN = SimpleNamespace(**Terrain.__members__)

#: Resource gained when a terrain is activated (the Terrain Activation Table).
TERRAIN_RESOURCE = {
    Terrain.FOOD: FOOD,
    Terrain.WOOD: WOOD,
    Terrain.MUD: MUD,
    Terrain.ROCK: ROCK,
    Terrain.SKULL: SKULL,
    Terrain.VINE: VINE,
    Terrain.WATER: WATER,
}
#: The Resource Priority Order on the back of the rulebook, used to place Monsters.
PRIORITY = {
    t: k
    for k, t in enumerate(
        (
            Terrain.FOOD,
            Terrain.WOOD,
            Terrain.MUD,
            Terrain.ROCK,
            Terrain.SKULL,
            Terrain.VINE,
            Terrain.FIELD,
            Terrain.MUSHROOM_FIELD,
            Terrain.PETRIFIED_FOREST,
            Terrain.WATER,
            Terrain.TIPI,
            Terrain.HILL,
        )
    )
}
LEVELS = (
    (28, "Master Explorer"),
    (22, "Fearless Trailblazer"),
    (16, "Veteran Pathfinder"),
    (10, "Skilled Tracker"),
    (4, "Novice Guide"),
    (1, "Greenhorn Scout"),
)
GEAR_PER_PLAYER = {1: 3, 2: 2, 3: 1, 4: 1}
#: The rulebooks' causes of loss (core; a chapter adds its own: ``Chapter.loss_causes``).
LOSS_CAUSES = ("thirst", "hunger", "no_challenges")
#: The outcome of a game that cannot go on: for a whole round no Path could be explored (Rocks and Monsters
#: wall the trail in, the Monsters' toll cannot be paid, or every Path is explored). The rulebooks do not
#: say what happens then; it is no loss of theirs and is reported apart (``"sealed"``).
SEALED = "sealed"
#: why a game was sealed (recorded as the event ``sealed: WHY``)
SEALED_BY = ("walled in", "toll unpaid", "map explored")


def level_name(score: int) -> str:
    """The rulebook's level of success for a final score ("" below 1)."""
    for lo, name in LEVELS:
        if score >= lo:
            return name
    return ""


class GameError(UnmetError, ValueError):
    """Settings a game cannot be made from (a wrong character, too much gear, a bad map); ``mapgen.engine.game``
    re-exports it. ``setting`` names the setting at fault (``"characters"``, ``"gear"``, ``"players"``,
    ``"mode"``, ``"rules"``, ``"variants"``; None: the map), so that a command can name its option in the error line."""

    setting: str | None = None

    def __init__(self, message: str = "", *, setting: str | None = None):
        super().__init__(message)
        if setting is not None:
            self.setting = setting


class UnknownNameError(InputError, GameError):
    """A character or Gear card that does not exist: a bad option value (exit 2), not a team the rules forbid;
    ``mapgen.engine.game`` re-exports it."""


class BadSettingError(InputError, GameError):
    """A setting's value no game takes (players outside 1 to 4, a mode, variant or chapter that does not exist, the
    rules of another chapter than the map's, a str where a list of names belongs): invalid input (exit 2), as the command line refuses such an option's value
    itself; ``mapgen.engine.game`` re-exports it. Values that each could be played but not together (Hidden Traitor
    on a Fauna map, a Flora variant on a Fauna map, Hidden Traitor solo) are a GameError (exit 1)."""


class TeamCountError(InputError, GameError):
    """Characters or gear lists that do not give one entry per player (two characters for a solo game): a bad
    option value (exit 2); ``mapgen.engine.game`` re-exports it. A player's Gear card count the rules forbid
    (two cards in a solo game, which takes three) is a GameError (exit 1)."""
