"""Action numbers: every move is one int (OpenSpiel style), grouped in ranges by kind.

``describe(action, state)`` turns a number into words for logs and replays.
"""

from __future__ import annotations

from mapgen.engine.cards import RESOURCE_CODES
from mapgen.terrain import TERRAINS

EXPLORE = 0  # + cell index (< 64)
DISCARD = 64  # + resource: a free discard, or the resource paid when a choice asks for one
GAIN = 80  # + resource: the resource taken when a choice offers any
TRADE = 100  # + give * 10 + take (Tipi)
FIRE = 200  # + 0: 2 Wood, 1: 2 Rock, 2: Flint and 1 Wood, 3: Flint and 1 Rock
SHELTER = 210  # + 0: Wood and Mud, 1: Wood and Skull, 2: Mud and Skull
CURE_INJURED = 220  # pay 1 Mud to discard Injured
DROP_SAMPLE = 230  # + resource paid to discard 1 Sample token
USE_DESTINY = 240  # + index into the held Destiny cards
KILL = 260  # + kill-card slot * 8 + monster slot
GUESS = 330  # + gear (0 Compass, 1 Tracking Guide) * 20 + terrain index
LEWIS = 380
COLLINS = 381
BOX_OF_GOODS = 382
MORTAR = 383
SATCHEL = 384
JAR_STORE = 390  # + resource
JAR_TAKE = 400
MEDICINE = 410  # + player * 8 + slot (0 the character, 1.. the gear)
CLARK = 450  # + own gear slot * 10 + reserve gear kind
BACKTRACK = 530
ACTIVATE = 531
END_TURN = 532
PASS = 533
FAIL = 534
SKIP = 535
FATIGUE_WATER = 536
DESTINY_PICK = 540  # + 0/1 a face-up card, 2 the top of the deck
THREAT_DISCARD = 550  # + index into the Threat cards in play
CHAPTER = 600  # chapter plug-ins own 600..999
CHANCE = 1000  # + card index in the deck being drawn from

GEAR_KINDS = ("Box of Goods", "Compass", "Flint", "Jar", "Mortar and Pestle", "Satchel", "Tracking Guide", "Medicine")
CHARACTERS = ("Clark", "Collins", "Lewis", "York")
GUESS_GEAR = ("Compass", "Tracking Guide")
SHELTER_PAIRS = ((1, 2), (1, 4), (2, 4))  # Wood+Mud, Wood+Skull, Mud+Skull


def describe(a: int, state=None) -> str:
    """Words for an action number; with a state, cells and cards get their names."""
    board = state.game.board if state is not None else None
    if a >= CHANCE:
        return f"chance outcome {a - CHANCE}"
    if a < DISCARD:
        return f"explore {board.name(a) if board else a}"
    if a < GAIN:
        return f"discard {RESOURCE_CODES[a - DISCARD]}"
    if a < TRADE:
        return f"take {RESOURCE_CODES[a - GAIN]}"
    if a < FIRE:
        g, t = divmod(a - TRADE, 10)
        return f"trade {RESOURCE_CODES[g]} for {RESOURCE_CODES[t]}"
    if a < SHELTER:
        return ("build Fire (2 Wo)", "build Fire (2 Ro)", "build Fire (Flint, Wo)", "build Fire (Flint, Ro)")[a - FIRE]
    if a < CURE_INJURED:
        x, y = SHELTER_PAIRS[a - SHELTER]
        return f"build Shelter ({RESOURCE_CODES[x]}+{RESOURCE_CODES[y]})"
    if a == CURE_INJURED:
        return "pay Mu to discard Injured"
    if DROP_SAMPLE <= a < USE_DESTINY:
        return f"pay {RESOURCE_CODES[a - DROP_SAMPLE]} to discard a Sample"
    if USE_DESTINY <= a < KILL:
        k = a - USE_DESTINY
        if state is not None and k < len(state.de_held):
            return f"use Destiny '{state.game.destiny[state.de_held[k]].name}'"
        return f"use Destiny card {k}"
    if KILL <= a < GUESS:
        k, m = divmod(a - KILL, 8)
        return f"kill Minotaur {m} with Kill card {k}"
    if GUESS <= a < LEWIS:
        g, t = divmod(a - GUESS, 20)
        return f"{GUESS_GEAR[g]}: guess {TERRAINS[t].label}"
    names = {
        LEWIS: "Lewis: double the next find",
        COLLINS: "Collins: ignore Monsters this explore",
        BOX_OF_GOODS: "discard Box of Goods",
        MORTAR: "Mortar and Pestle",
        SATCHEL: "Satchel: swap find for Destiny",
        JAR_TAKE: "take the Jar's Resource back",
        BACKTRACK: "Backtrack (2 Fire)",
        ACTIVATE: "activate",
        END_TURN: "end turn",
        PASS: "pass the Challenge",
        FAIL: "fail the Challenge",
        SKIP: "skip",
        FATIGUE_WATER: "stay Fatigued (lose 1 Water unless Sheltered)",
    }
    if a in names:
        return names[a]
    if JAR_STORE <= a < JAR_TAKE:
        return f"Jar: store {RESOURCE_CODES[a - JAR_STORE]}"
    if MEDICINE <= a < CLARK:
        p, s = divmod(a - MEDICINE, 8)
        return f"Medicine: refresh player {p + 1} {'character' if s == 0 else f'gear {s}'}"
    if CLARK <= a < BACKTRACK:
        s, k = divmod(a - CLARK, 10)
        kinds = state.game.chapter.gear_kinds() if state is not None else GEAR_KINDS
        return f"Clark: swap gear {s + 1} for {kinds[k] if k < len(kinds) else f'gear kind {k}'}"
    if DESTINY_PICK <= a < THREAT_DISCARD:
        return ("take face-up Destiny 1", "take face-up Destiny 2", "draw the top Destiny card")[a - DESTINY_PICK]
    if THREAT_DISCARD <= a < CHAPTER:
        return f"row reward: discard Threat {a - THREAT_DISCARD + 1}"
    if state is not None:
        return state.game.chapter.describe_action(a, state)
    return f"chapter action {a}"
