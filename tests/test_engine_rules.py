"""The core rules, Training and Fauna, following the rulebook's own examples.

The map is tests/data/engine_fauna_201.toml (a valid Fauna map):

       1   2   3   4   5   6   7
    A  Hi  Hi  Vi  Vi  Wo  Wa  Wa
    B  Mu  Ro  Ro  Ro  Ro  Mu  Wo
    C  Wa  Wa  Wo  Fo  Vi  Sk  Hi
    D  Wo  Vi  Ti  Sk  Ft  Ti  Fo
    E  Fi  Wo  Sk  Vi  Ft  Ti  Fo
    F  Fo  Wa  Ft  Vi  Sk  Wo  Fi
    G  Sk  Ti  Wa  Wo  Hi  Wa  Hi
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mapgen.engine import actions as A
from mapgen.engine.cards import FOOD, MUD, ROCK, SKULL, VINE, WATER, WOOD
from mapgen.engine.game import CHANCE_PLAYER, Game, GameError, level_name
from mapgen.mapfile import read_map
from mapgen.terrain import Terrain

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def fauna_map():
    return read_map(DATA / "engine_fauna_201.toml")


@pytest.fixture(scope="module")
def training_map():
    return read_map(DATA / "engine_training_201.toml")


def idx(cards, name):
    return next(k for k, c in enumerate(cards) if c.name == name)


def settle(state, *prefer):
    """Answer chance nodes, drawing the first preferred card (by name) still in the deck, else the lowest."""
    g = state.game
    while state.current_player() == CHANCE_PLAYER:
        kind = state.agenda[-1][0]
        cards = {
            "chance_challenge": g.challenges,
            "chance_threat": g.threats,
            "chance_destiny": g.destiny,
            "chance_held": g.destiny,
            "chance_chapter": g.kills,
        }[kind]
        pile = state._chance_pile()
        want = [idx(cards, n) for n in prefer if any(c.name == n for c in cards)]
        pick = next((k for k in want if k in pile), min(pile))
        state.apply_action(A.CHANCE + pick)
    return state


def start(game, *prefer):
    return settle(game.new_initial_state(), *prefer)


def cell(state, name):
    return state.game.board.index(name)


def explore(state, name, *prefer):
    state.apply_action(A.EXPLORE + cell(state, name))
    return settle(state, *prefer)


def set_row(state, *cards):
    """Make the Challenge Row hold these cards (name, tokens), taking them out of the deck."""
    g = state.game
    row = []
    for name, tokens in cards:
        k = idx(g.challenges, name)
        if k in state.ch_pile:
            state.ch_pile.remove(k)
        row.append([k, tokens, None])
    for entry in state.row:
        if entry[0] >= 0 and entry[0] not in [r[0] for r in row]:
            state.ch_pile.append(entry[0])
    state.row = row


def pack(state, **counts):
    codes = {"Fo": FOOD, "Wo": WOOD, "Mu": MUD, "Ro": ROCK, "Sk": SKULL, "Vi": VINE, "Wa": WATER}
    state.pack = [0] * len(state.pack)
    for code, n in counts.items():
        state.pack[codes[code]] = n


def mark(state, *names):
    """Explore these Paths without playing them (a test's shortcut to a position)."""
    for name in names:
        i = cell(state, name)
        state.explored[i] = state.seen[i] = 1
        state.ex_list.append(i)
        state.n_explored += 1
    state._legal = None


def solo(m, **kw):
    kw.setdefault("characters", ("Clark",))
    kw.setdefault("gear", (("Flint", "Jar", "Satchel"),))
    return Game(m, **kw)


# ----- setup -----
def test_core_setup_arch_first_eight_water_two_destiny_and_threat_deck(fauna_map):
    s = start(Game(fauna_map))
    g = s.game
    assert g.challenges[s.row[0][0]].name == "Approach the Arch"
    assert len(s.row) == 3 and all(c >= 0 for c, _, _ in s.row)
    assert s.pack[WATER] == 8
    assert len(s.de_face) == 2 and not s.de_held
    assert sorted(t.kind for t in g.threats) == ["chased", "injured", "minotaur", "minotaur", "minotaur", "minotaur"]
    assert len(g.challenges) == 20 and len(g.destiny) == 12 and len(g.kills) == 4


@pytest.mark.parametrize(("players", "per"), [(1, 3), (2, 2), (3, 1), (4, 1)])
def test_gear_per_player_count(fauna_map, players, per):
    g = Game(fauna_map, players=players)
    assert [len(x) for x in g.gear] == [per] * players
    with pytest.raises(GameError, match="Gear card"):
        Game(fauna_map, players=players, gear=[["Compass", "Flint", "Jar", "Satchel"][: per + 1]] * players)


def test_collins_cannot_play_solo(fauna_map):
    with pytest.raises(GameError, match="Collins cannot be used in a solo game"):
        Game(fauna_map, characters=("Collins",))
    Game(fauna_map, players=2, characters=("Collins", "Lewis"))


# ----- exploring -----
def test_first_explore_from_column_7_then_orthogonal_and_never_from_rock(fauna_map):
    s = start(solo(fauna_map))
    first = sorted(a for a in s.legal_actions() if a < A.DISCARD)
    assert [s.game.board.name(a) for a in first] == ["A7", "B7", "C7", "D7", "E7", "F7", "G7"]
    explore(s, "B7")
    s.apply_action(A.END_TURN)
    settle(s)
    assert {s.game.board.name(c) for c in s.frontier()} == {"A7", "C7", "B6"}
    explore(s, "B6")
    s.apply_action(A.END_TURN)
    explore(s, "B5")  # a Rock: it can be explored, but not explored from
    s.apply_action(A.END_TURN)
    names = {s.game.board.name(c) for c in s.frontier()}
    assert "B4" not in names and "A5" not in names and "C5" not in names
    assert {"A6", "C6", "A7", "C7"} <= names


def test_monster_blocks_and_taxes_its_row_and_column(fauna_map):
    s = start(solo(fauna_map))
    explore(s, "D7")
    s.apply_action(A.END_TURN)
    minotaur = idx(s.game.threats, "Minotaur (North)")
    s.th_pile.remove(minotaur)
    s.threats.append(minotaur)
    s.monsters[cell(s, "D7")] = minotaur
    s._legal = None
    # no exploring past a Monster: with every way on blocked, no Path can be explored (issue 12: the
    # rulebooks never land the boat again; that is the house rule "relaunch")
    assert s.frontier() == [] and A.EXPLORE + cell(s, "D6") not in s.legal_actions()
    relaunch = start(solo(fauna_map, variants=("relaunch",)))
    explore(relaunch, "D7")
    relaunch.apply_action(A.END_TURN)
    relaunch.th_pile.remove(minotaur)
    relaunch.threats.append(minotaur)
    relaunch.monsters[cell(relaunch, "D7")] = minotaur
    relaunch._legal = None
    names = [s.game.board.name(c) for c in relaunch.frontier()]
    assert names == ["A7", "B7", "C7", "E7", "F7", "G7"]  # with it, the boat lands again on column 7
    del s.monsters[cell(s, "D7")]
    s.monsters[cell(s, "C1")] = minotaur  # C1: row C and column 1
    s._legal = None
    pack(s, Fo=1, Wa=8)
    s.apply_action(A.EXPLORE + cell(s, "C7"))  # in the Minotaur's row: pay 1 Resource first
    assert s.agenda[-1][0] == "pay"
    s.apply_action(A.DISCARD + FOOD)
    assert s.pack[FOOD] == 0 and s.explored[cell(s, "C7")]


def test_tipi_trades_one_resource(fauna_map):
    s = start(solo(fauna_map))
    explore(s, "D7")
    s.apply_action(A.END_TURN)
    settle(s)
    explore(s, "D6")
    assert s.agenda[-1][0] == "trade"
    assert A.SKIP in s.legal_actions()
    s.apply_action(A.TRADE + 10 * FOOD + ROCK)
    assert s.pack[FOOD] == 0 and s.pack[ROCK] == 1


def test_hill_discards_its_token_and_gives_another_turn(fauna_map):
    s = start(Game(fauna_map, players=2))
    explore(s, "C7")
    assert s.row[0][1] == 0 and s.tokens_out == 1
    s.apply_action(A.END_TURN)
    settle(s)
    assert s.current == 0 and s.turn == 2  # the same player again
    explore(s, "D7")
    assert s.row[0][1] == 1
    s.apply_action(A.END_TURN)
    settle(s)
    assert s.current == 1


def test_skull_draws_a_threat_and_a_minotaur_sits_on_its_lair(fauna_map):
    s = start(solo(fauna_map))
    explore(s, "C7")
    s.apply_action(A.END_TURN)
    explore(s, "C6", "Minotaur (South)")
    assert s.pack[SKULL] == 1
    assert s.monsters == {cell(s, "C6"): idx(s.game.threats, "Minotaur (South)")}


def test_night_minotaur_goes_to_the_edge_by_resource_priority(fauna_map):
    s = start(solo(fauna_map))
    for name in ("A7", "A6", "A5", "G7"):
        s.explored[cell(s, name)] = 1
    north = idx(s.game.threats, "Minotaur (North)")
    # northernmost row A: A5 Wood, A6 and A7 Water; Wood comes first in the Resource Priority Order
    assert s.game.board.name(s.monster_place(north, "night", -1)) == "A5"
    south = idx(s.game.threats, "Minotaur (South)")
    assert s.game.board.name(s.monster_place(south, "night", -1)) == "G7"
    east = idx(s.game.threats, "Minotaur (East)")
    assert s.game.board.name(s.monster_place(east, "night", -1)) == "A7"  # column 7: Water A7 before Hill G7


# ----- challenges, Fatigue and Shelter -----
def _everson(fauna_map):
    s = start(solo(fauna_map))
    set_row(s, ("Rapids", 2), ("Mudslide", 0), ("Fever", 0))
    pack(s, Ro=1, Mu=1, Wo=1, Sk=1, Fo=1, Wa=8)
    explore(s, "D7")  # Everson places the third Path token: Food, so 6 Resources are carried
    assert s.row[0][1] == 3 and s.slots() == 6
    s.apply_action(A.END_TURN)
    assert s.agenda[-1][0] == "resolve"
    return s


def test_everson_challenge_example(fauna_map):
    s = _everson(fauna_map)
    assert s.legal_actions() == [A.PASS, A.FAIL]
    s.apply_action(A.PASS)  # discard 1 Rock, 1 Mud and 2 Water; the Pass side gives 1 Wood
    assert (s.pack[ROCK], s.pack[MUD], s.pack[WATER], s.pack[WOOD]) == (0, 0, 6, 2)
    assert s.agenda[-1][0] == "fatigue" and s.slots() == 5  # Fatigued: a Resource in the red spaces
    s.apply_action(A.DISCARD + FOOD)  # they discard 1 Food, down to 4, and keep their Water
    settle(s)
    assert s.pack[WATER] == 6 and s.slots() == 4
    assert s.agenda[-1] == ("main",) and s.turn == 2
    assert s.game.challenges[s.row[0][0]].name == "Mudslide" and s.resolved == 1


def test_everson_fail_side(fauna_map):
    s = _everson(fauna_map)
    s.shelter = cell(s, "F7")
    s.apply_action(A.FAIL)  # discard 3 Water, 2 Wood and the Shelter
    assert s.pack[WATER] == 5 and s.pack[WOOD] == 0 and s.shelter == -1


def test_fatigue_costs_a_water_unless_sheltered(fauna_map):
    s = _everson(fauna_map)
    s.apply_action(A.PASS)
    s.apply_action(A.FATIGUE_WATER)
    assert s.pack[WATER] == 5 and s.slots() == 5
    s = _everson(fauna_map)
    s.shelter = cell(s, "F7")
    s.apply_action(A.PASS)
    settle(s)
    assert s.agenda[-1] == ("main",) and s.pack[WATER] == 6 and s.slots() == 5  # no penalty with a Shelter


def test_bracketed_fire_and_shelter_requirements(fauna_map):
    s = start(solo(fauna_map))
    set_row(s, ("Thunderstorm", 2), ("Cold Night", 0), ("Fever", 0))
    pack(s, Fo=1, Wa=8)
    explore(s, "A7")
    s.apply_action(A.END_TURN)
    assert s.legal_actions() == [A.FAIL]  # no Shelter on a Field
    s = start(solo(fauna_map))
    set_row(s, ("Thunderstorm", 2), ("Cold Night", 0), ("Fever", 0))
    pack(s, Fo=1, Wa=8)
    s.shelter = cell(s, "F7")
    explore(s, "A7")
    s.apply_action(A.END_TURN)
    s.apply_action(A.PASS)
    assert s.pack[FOOD] == 0  # the bracketed Food is discarded because they have it
    settle(s)
    set_row(s, ("Cold Night", 2), ("Fever", 0))
    pack(s, Wo=1, Wa=8)
    explore(s, "B7")
    s.apply_action(A.END_TURN)
    assert s.legal_actions() == [A.FAIL]  # Cold Night needs a Fire
    s.fires = 1
    s._legal = None
    assert A.PASS in s.legal_actions()
    s.apply_action(A.PASS)
    assert s.fires == 1  # the Fire is needed, not discarded


def test_build_fire_and_shelter(fauna_map):
    s = start(solo(fauna_map))
    pack(s, Wo=3, Mu=1, Wa=8)
    s._legal = None
    la = s.legal_actions()
    assert A.FIRE in la and A.FIRE + 1 not in la and A.FIRE + 2 in la  # 2 Wood, or Flint with 1 Wood
    assert not any(A.SHELTER <= a < A.CURE_INJURED for a in la)  # no explored Field yet
    s.apply_action(A.FIRE)
    assert s.fires == 1 and s.pack[WOOD] == 1
    mark(s, "F7")
    s.apply_action(A.SHELTER)  # Wood and Mud
    assert s.shelter == cell(s, "F7") and s.pack[WOOD] == 0 and s.pack[MUD] == 0


def test_backtrack(fauna_map):
    s = start(Game(fauna_map, characters=("Lewis",), gear=(("Compass", "Flint", "Jar"),)))
    s.fires = 2
    s._legal = None
    s.apply_action(A.LEWIS)
    explore(s, "D7")
    assert s.legal_actions() == [A.BACKTRACK, A.ACTIVATE]
    s.apply_action(A.BACKTRACK)
    assert s.fires == 0 and not s.explored[cell(s, "D7")] and s.row[0][1] == 0
    assert s.pack[FOOD] == 0 and "Lewis" not in s.exhausted
    la = s.legal_actions()
    assert A.EXPLORE + cell(s, "D7") not in la and A.EXPLORE + cell(s, "E7") in la  # a different Path
    assert s.known(cell(s, "D7")) is Terrain.FOOD  # what they saw stays known


def test_end_of_day_food_night_and_refresh(fauna_map):
    s = start(Game(fauna_map, characters=("Lewis",), gear=(("Compass", "Flint", "Jar"),)))
    set_row(s, ("Mudslide", 1))
    pack(s, Fo=1, Wa=8)
    s.exhausted.add("Flint")
    explore(s, "A7")
    s.apply_action(A.END_TURN)
    s.apply_action(A.FAIL)
    assert s.current_player() == CHANCE_PLAYER  # Night: no Monster, so a Threat card is drawn
    settle(s, "Minotaur (North)")
    assert s.pack[FOOD] == 0 and s.day == 2 and len(s.row) == 3 and not s.exhausted
    assert s.game.board.name(next(iter(s.monsters))) == "A7"


def test_hunger_thirst_and_no_challenges(fauna_map):
    s = start(solo(fauna_map))
    set_row(s, ("Mudslide", 1))
    pack(s, Wa=8)
    explore(s, "A7")
    s.apply_action(A.END_TURN)
    s.apply_action(A.FAIL)
    assert s.outcome == "hunger" and s.is_terminal() and s.returns() == [0.0]
    s = start(solo(fauna_map))
    set_row(s, ("Rapids", 2))
    pack(s, Wa=2)
    explore(s, "B7")
    s.apply_action(A.END_TURN)
    s.apply_action(A.FAIL)
    assert s.outcome == "thirst"
    s = start(solo(fauna_map))
    set_row(s, ("Mudslide", 1))
    s.ch_pile = s.ch_pile[:2]
    pack(s, Fo=1, Wa=8)
    explore(s, "A7")
    s.apply_action(A.END_TURN)
    s.apply_action(A.FAIL)
    settle(s)
    assert s.outcome == "no_challenges"


# ----- threats -----
def test_chased_locks_destiny_until_a_kill(fauna_map):
    s = start(solo(fauna_map))
    s.de_held = [s.de_pile.pop()]
    explore(s, "C7")
    s.apply_action(A.END_TURN)
    explore(s, "C6", "Chased")
    assert s.chased and not s.de_held and len(s.chased_pile) == 1
    assert not any(A.USE_DESTINY <= a < A.KILL for a in s.legal_actions())
    minotaur = idx(s.game.threats, "Minotaur (East)")
    s.th_pile.remove(minotaur)
    s.threats.append(minotaur)
    s.monsters[cell(s, "D7")] = minotaur
    s.data["kill_face"] = [idx(s.game.kills, "Poisoned Bait")]
    pack(s, Fo=1, Mu=1, Sk=1, Wa=8)
    s._legal = None
    s.apply_action(A.KILL)
    assert not s.chased and len(s.de_held) == 1 and not s.monsters and s.data["kills"] == 1
    assert s.slots() == 0


def test_injured_takes_a_challenge_space_and_mud_cures_it(fauna_map):
    s = start(solo(fauna_map))
    explore(s, "C7")
    s.apply_action(A.END_TURN)
    explore(s, "C6", "Injured")
    assert s.injured == 1
    set_row(s, ("Mudslide", 1))
    pack(s, Fo=1, Wa=8)
    s.apply_action(A.END_TURN)
    explore(s, "D7")
    s.apply_action(A.END_TURN)
    s.apply_action(A.FAIL)
    settle(s)
    assert s.injured == 2 and s.row[0][0] == -1 and len(s.row) == 3  # Injured + only 2 new cards
    pack(s, Mu=1, Wa=8)
    s._legal = None
    s.apply_action(A.CURE_INJURED)
    assert s.injured == 0 and len(s.row) == 2 and s.pack[MUD] == 0


# ----- rewards -----
def test_column_reward_destiny_and_fauna_row_reward(fauna_map):
    s = start(solo(fauna_map))
    for name in ("A7", "B7", "C7", "D7", "E7", "F7"):
        s.explored[cell(s, name)] = 1
        s.ex_list.append(cell(s, name))
        s.n_explored += 1
    s._legal = None
    explore(s, "G7")
    assert s.agenda[-1][0] == "destiny_pick"
    face = list(s.de_face)
    s.apply_action(A.DESTINY_PICK)
    settle(s)
    assert s.de_held == [face[0]] and len(s.de_face) == 2
    s = start(solo(fauna_map))
    chased = idx(s.game.threats, "Chased")
    s.th_pile.remove(chased)
    s.threats.append(chased)
    s.chased = True
    for name in ("A1", "A2", "A3", "A4", "A5", "A6"):
        s.explored[cell(s, name)] = 1
        s.ex_list.append(cell(s, name))
        s.n_explored += 1
    s._legal = None
    explore(s, "A7")
    assert s.agenda[-1][0] == "threat_discard"
    s.apply_action(A.THREAT_DISCARD)
    assert not s.chased and s.th_bottom == [chased]  # to the bottom of the Threat deck
    assert s.current_player() == CHANCE_PLAYER  # a new Threat card must be drawn


# ----- characters and gear -----
def test_lewis_doubles_and_compass_saves_an_hour(fauna_map):
    s = start(Game(fauna_map, characters=("Lewis",), gear=(("Compass", "Flint", "Jar"),)))
    s.apply_action(A.LEWIS)
    s.apply_action(A.GUESS + Terrain.FOOD.index)
    explore(s, "D7")
    assert s.pack[FOOD] == 2 and s.row[0][1] == 0 and s.tokens_out == 1


def test_tracking_guide_explores_again(fauna_map):
    s = start(Game(fauna_map, characters=("Clark",), gear=(("Tracking Guide", "Flint", "Jar"),)))
    s.apply_action(A.GUESS + 20 + Terrain.FOOD.index)
    explore(s, "D7")
    assert s.pack[FOOD] == 0 and s.explored[cell(s, "D7")] and not s.explored_now
    assert any(a < A.DISCARD for a in s.legal_actions())  # explore again this turn


def test_york_puts_needed_resources_on_the_challenge(fauna_map):
    s = start(Game(fauna_map, characters=("York",), gear=(("Compass", "Flint", "Jar"),)))
    set_row(s, ("Approach the Arch", 0), ("Mudslide", 0), ("Fever", 0))
    explore(s, "B7")
    assert s.pack[WOOD] == 0 and s.row[0][2] == [WOOD]
    s.row[0][1] = 3
    s.apply_action(A.END_TURN)
    assert A.PASS in s.legal_actions()


def test_jar_mortar_box_of_goods(fauna_map):
    s = start(Game(fauna_map, characters=("Clark",), gear=(("Jar", "Mortar and Pestle", "Box of Goods"),)))
    pack(s, Fo=1, Ro=2, Wa=8)
    s._legal = None
    s.apply_action(A.JAR_STORE + FOOD)
    assert s.pack[FOOD] == 0 and s.jar == FOOD
    s.apply_action(A.MORTAR)
    s.apply_action(A.DISCARD + ROCK)
    s.apply_action(A.DISCARD + ROCK)
    assert s.legal_actions()[0] == A.GAIN  # choose any Resource
    s.apply_action(A.GAIN + MUD)
    assert s.pack[MUD] == 1 and s.pack[ROCK] == 0
    set_row(s, ("Mudslide", 1))
    pack(s, Fo=1, Wa=8)
    explore(s, "A7")
    s.apply_action(A.END_TURN)
    s.apply_action(A.FAIL)
    settle(s)
    assert s.pack[FOOD] == 2 and s.jar == -1  # at Night the Jar returns its Food plus one more


def test_box_of_goods_and_medicine_scores(fauna_map):
    s = start(Game(fauna_map, characters=("Clark",), gear=(("Jar", "Flint", "Box of Goods"),)))
    s.data["kills"] = 2
    s.data["kill_face"] = [idx(s.game.kills, "Make Ammo")]
    minotaur = idx(s.game.threats, "Minotaur (West)")
    s.th_pile.remove(minotaur)
    s.threats.append(minotaur)
    s.monsters[cell(s, "B2")] = minotaur
    pack(s, Ro=2, Wo=1, Wa=8)
    s._legal = None
    s.apply_action(A.KILL)  # the third kill wins at once
    expected = sum(s.game.challenges[c].time for c, _, _ in s.row) + sum(s.game.challenges[c].time for c in s.ch_pile)
    assert s.outcome == "win" and s.returns() == [1.0] and s.score == expected + 4
    assert s.level() == level_name(s.score)
    g = Game(fauna_map, players=2, medicine=True)
    assert "Medicine" in g.gear[0]


def test_clark_swaps_gear_and_medicine_refreshes(fauna_map):
    s = start(
        Game(
            fauna_map,
            players=2,
            characters=("Clark", "Lewis"),
            gear=(("Flint", "Jar"), ("Compass", "Satchel")),
            medicine=True,
        )
    )
    pack(s, Wo=1, Wa=8)
    s._legal = None
    s.apply_action(A.FIRE + 2)  # Flint: 1 Wood is enough
    assert s.fires == 1 and "Flint" in s.exhausted
    s.apply_action(A.MEDICINE + 1)  # refresh player 1's first Gear (Flint)
    assert "Flint" not in s.exhausted and "Medicine" in s.exhausted
    swap = A.CLARK + 10 * 0 + A.GEAR_KINDS.index("Mortar and Pestle")
    assert swap in s.legal_actions()
    s.apply_action(swap)
    assert s.gear[0][0] == "Mortar and Pestle" and "Flint" in s.reserve


def test_collins_ignores_a_monster(fauna_map):
    s = start(Game(fauna_map, players=2, characters=("Collins", "Lewis")))
    explore(s, "D7")
    s.apply_action(A.END_TURN)
    settle(s)
    minotaur = idx(s.game.threats, "Minotaur (North)")
    s.th_pile.remove(minotaur)
    s.threats.append(minotaur)
    s.monsters[cell(s, "C1")] = minotaur
    s.current = 0
    pack(s, Fo=1, Wa=8)
    s._legal = None
    assert s.monster_tax(cell(s, "C7")) == 1
    s.apply_action(A.COLLINS)
    explore(s, "C7")  # Collins: no Resource paid to the Minotaur of row C
    assert s.pack[FOOD] == 1 and s.explored[cell(s, "C7")]


# ----- Training and Fauna -----
def test_training_setup(training_map):
    s = start(Game(training_map))
    g = s.game
    assert g.board.size == 25 and g.characters == ("Lewis",) and g.gear == (("Compass",),)
    assert s.pack[WATER] == 3
    assert [g.board.name(c) for c in s.monsters] == ["D4"]
    assert [g.kills[k].name for k in s.data["kill_face"]] == ["Make Ammo"]
    assert not g.destiny and not s.de_face
    assert all(not c.shelter and not c.requires[SKULL] and not c.requires[VINE] for c in g.challenges)
    with pytest.raises(GameError, match="Lewis only"):
        Game(training_map, characters=("Clark",))


def test_training_won_by_six_challenges_and_no_food_after_day_two(training_map):
    import random

    from mapgen.engine.bots import make_bot
    from mapgen.engine.play import play_game

    wins = 0
    for seed in range(6):
        s = Game(training_map).new_initial_state()
        play_game(s, [make_bot("clairvoyant", random.Random(seed), map=s.game.map)], random.Random(seed))
        if s.won():
            wins += 1
            assert s.resolved == 6 and s.day == 2
    assert wins >= 4


def test_fauna_fort_reveals_a_kill_card(fauna_map):
    s = start(solo(fauna_map))
    s.explored[cell(s, "E7")] = 1
    s.ex_list.append(cell(s, "E7"))
    s.n_explored = 1
    explore(s, "E6")  # a Tipi: no trade
    s.apply_action(A.SKIP)
    s.apply_action(A.END_TURN)
    settle(s)
    s.apply_action(A.EXPLORE + cell(s, "E5"))
    assert s.current_player() == CHANCE_PLAYER and s.agenda[-1] == ("chance_chapter", "kill")
    settle(s, "Vine Snare")
    assert [s.game.kills[k].name for k in s.data["kill_face"]] == ["Vine Snare"]
    assert s.events["first fort"] == s.turn


def test_chapters_not_yet_played_are_refused():
    m = read_map(DATA / "engine_fauna_201.toml")
    from dataclasses import replace

    with pytest.raises(GameError, match="cannot play 'fog'"):  # Flora, Vameter, Maldonado: mapgen/engine/flora.py, ...
        Game(replace(m, chapter="fog"))


def test_a_round_without_an_affordable_path_seals_the_game_with_its_cause(fauna_map):
    s = start(solo(fauna_map))
    explore(s, "D7")
    s.apply_action(A.END_TURN)
    for name, where in (("Minotaur (North)", "D1"), ("Minotaur (East)", "A7")):  # row D and column 7
        minotaur = idx(s.game.threats, name)
        s.th_pile.remove(minotaur)
        s.threats.append(minotaur)
        s.monsters[cell(s, where)] = minotaur
    pack(s)
    la = s.legal_actions()
    assert A.END_TURN in la and not any(a < A.DISCARD for a in la)  # Paths open, nothing to pay with
    s.apply_action(A.END_TURN)
    # issue 12: the rulebooks have no such loss: the game ends "sealed", with its reason
    assert s.outcome == "sealed" and s.score == 0 and s.level() == "" and "sealed: toll unpaid" in s.events
