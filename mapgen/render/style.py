"""How each terrain looks in pictures: a colour, a symbol and a name that also read in greyscale."""

from __future__ import annotations

from dataclasses import dataclass

from mapgen.terrain import Terrain


@dataclass(frozen=True)
class TerrainStyle:
    """A terrain's fill colour, the symbol drawn on it, its ink colour and its name wrapped for a cell."""

    colour: str
    symbol: str
    ink: str
    short: str  # the name as printed in a cell, with a line break where it is long


# Colours are chosen so that terrains of one chapter differ in lightness as well as hue, and stay apart for
# colour-blind readers (at least 12 CIE76 units under simulated protanopia, deuteranopia and tritanopia:
# Tipi and Hill were 2.2 apart for deuteranopes); the symbol and the printed name carry the meaning when
# printed in black and white. Each ink has a contrast
# of at least 4.5:1 on its colour (WCAG AA for small text: a phone's cells; tests/test_render.py).
STYLES: dict[Terrain, TerrainStyle] = {
    Terrain.FOOD: TerrainStyle("#f0a04b", "♥", "#3b1f00", "Food"),
    Terrain.WOOD: TerrainStyle("#2e7d32", "♣", "#ffffff", "Wood"),
    Terrain.WATER: TerrainStyle("#4f8fd9", "≈", "#06182e", "Water"),
    Terrain.MUD: TerrainStyle("#916d57", "∴", "#ffffff", "Mud"),
    Terrain.ROCK: TerrainStyle("#a3a3a3", "▲", "#1a1a1a", "Rock"),
    Terrain.SKULL: TerrainStyle("#303030", "☠", "#ffffff", "Skull"),
    Terrain.TIPI: TerrainStyle("#e6cfa3", "△", "#3b2a10", "Tipi"),
    Terrain.FIELD: TerrainStyle("#f7f375", "⁂", "#3b3500", "Field"),
    Terrain.HILL: TerrainStyle("#cefcca", "∩", "#16300c", "Hill"),
    Terrain.VINE: TerrainStyle("#73ab2b", "§", "#102000", "Vine"),
    Terrain.FORT: TerrainStyle("#a8201a", "♜", "#ffffff", "Fort"),
    Terrain.PETRIFIED_FOREST: TerrainStyle("#5d4037", "♠", "#ffffff", "Petrified\nForest"),
    Terrain.SACAGAWEA: TerrainStyle("#ac54ba", "★", "#12001a", "Sacagawea"),
    Terrain.FLORA_CREATURE: TerrainStyle("#fca4c8", "✿", "#3d0018", "Flora\ncreature"),
    Terrain.FEZRON_CAMP: TerrainStyle("#4a2d8f", "⚑", "#ffffff", "Fezron\nCamp"),
    Terrain.MUSHROOM_FIELD: TerrainStyle("#d992c4", "☂", "#2b0018", "Mushroom\nField"),
    Terrain.MALDONADO: TerrainStyle("#f2c21b", "♛", "#2b2000", "Maldonado"),
}

#: An unexplored Path: the round Path token that covers it on the Map Board.
TOKEN_FILL = "#d8d2c4"
#: A shaded cell whose chance is unknown (no fair odds in time): a neutral grey token marked "?".
UNKNOWN_FILL = (0.85, 0.85, 0.85, 1.0)
TOKEN_EDGE = "#7a7266"
BOARD_FILL = "#f7f4ec"
GRID_EDGE = "#4a4a4a"
RIVER = "#3f7fcf"
PEAK_BADGE = "#1a1a1a"
START_EDGE = "#e0a800"
GREEK_FIRE = "#ff6f00"
#: A cell of a broken rule: a red frame with a white one inside (it shows on the red Fort) and the rule's id.
BROKEN = "#c00000"
HEAT_CMAP = "YlOrRd"  # light to dark: the order survives greyscale printing


def style(t: Terrain) -> TerrainStyle:
    return STYLES[t]
