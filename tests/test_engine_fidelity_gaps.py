"""Issue 22, part 4: the engine's last gaps against the rulebooks. Each test quotes the rule it checks; where the
rulebooks leave a choice, the test pins the engine's decision (mapgen/engine/README.md, "Rulebook fidelity").

Maps: tests/data/engine_fauna_201.toml, engine6_flora_201.toml, engine6_vameter_201.toml,
engine6_maldonado_201.toml (their layouts are drawn in the chapter test files).
"""

from __future__ import annotations

from pathlib import Path

from mapgen.engine import actions as A
from mapgen.engine.cards import FOOD, FOSSIL, MUSHROOM, ROCK, VINE, WATER, WOOD
from mapgen.engine.game import Game
from mapgen.mapfile import read_map
from mapgen.terrain import Terrain
from tests.engine_support import cell, opened, settle

DATA = Path(__file__).parent / "data"
TRACK = 1  # A.GUESS_GEAR index of the Tracking Guide: its guess is A.GUESS + 20 * TRACK + terrain


def load(name):
    return read_map(DATA / f"{name}.toml")


def new(name, **kw):
    return settle(Game(load(name), **kw).new_initial_state())


def answer_place(s):
    """Vameter: skip the Crew placement offered after an explore (and settle the draws that follow)."""
    settle(s)
    while s.agenda and s.agenda[-1][:2] == ("chapter", "place"):
        s.apply_action(A.SKIP)
        settle(s)


# ----- the Reserve's token counts -----
def test_water_beyond_the_fourteen_tokens_is_not_gained():
    """Core components: "14 Water Tokens". Exploring Water with all 14 out of the Reserve gains nothing."""
    s = new("engine_fauna_201", characters=("Clark",))
    s.pack[WATER] = 14
    s.apply_action(A.EXPLORE + cell(s, "A7"))  # Water
    settle(s)
    assert s.pack[WATER] == 14


def test_the_48_resource_tokens_are_shared_by_the_five_core_resources():
    """Core components: "48 Resource Tokens" (Food, Wood, Mud, Rock and Skull: Vines, Fossils and Mushrooms are
    the chapters' own tokens). With 48 held, Food found gains nothing; with 47, one."""
    for held, gained in ((48, 0), (47, 1)):
        s = new("engine_fauna_201", characters=("Clark",))
        s.pack[WOOD], s.pack[ROCK] = held - 20, 20
        s.apply_action(A.EXPLORE + cell(s, "E7"))  # Food
        settle(s)
        assert s.pack[FOOD] == gained


def test_chapter_tokens_have_their_own_counts():
    """Fauna: "6 Vine Tokens"; Flora: "4 Petrified Fossil Tokens"; Vameter: "6 Mushroom tokens"."""
    from mapgen.engine.rules import SUPPLY

    assert SUPPLY == {WATER: 14, VINE: 6, MUSHROOM: 6, FOSSIL: 4}
    s = new("engine_fauna_201", characters=("Clark",))
    s.pack[VINE] = 6
    s.gain(VINE)
    assert s.pack[VINE] == 6 and s.room(VINE) == 0
    s.pack[VINE] = 5
    s.gain(VINE, 3)
    assert s.pack[VINE] == 6


def test_take_any_offers_only_what_the_reserve_still_has():
    """Mortar and Pestle: "Discard any 2 Resources to gain any 1 Resource" - of the Reserve's tokens: with the 14
    Water out, Water is not offered."""
    from mapgen.engine.effects import legal_gain

    s = new("engine_fauna_201", characters=("Clark",))
    s.pack[WATER] = 14
    offered = {a - A.GAIN for a in legal_gain(s, ("gain",))}
    assert WATER not in offered and FOOD in offered


def test_york_and_the_jar_hold_tokens_out_of_the_reserve():
    """York: "place it on the Challenge Card instead of in your Backpack"; Jar: "Place 1 Resource ... onto this
    card". Tokens there are not in the Reserve: 13 Water in the backpack and 1 on a card leave no Water."""
    s = new("engine_fauna_201", characters=("Clark",))
    s.pack[WATER] = 13
    s.row[0][2] = [WATER]
    assert s.room(WATER) == 0
    s.row[0][2] = None
    s.jar = FOOD
    assert s.room(FOOD) == 48 - 1 - sum(s.pack[r] for r in range(5))


# ----- Lewis on a choice of Resource -----
def test_lewis_on_maldonado_terrain_gives_two_of_the_resource_chosen():
    """Lewis: "If the Terrain provides your choice of Resource, then this ability will give you 2 of the one you
    choose." Maldonado Terrain: "gain 1 Resource of your choice or 1 Water"."""
    s = new("engine6_maldonado_201", characters=("Lewis",))
    s.apply_action(A.LEWIS)
    s.apply_action(A.EXPLORE + cell(s, "A7"))  # Maldonado
    settle(s)
    assert s.agenda[-1] == ("gain", 2)
    before = s.pack[ROCK]
    s.apply_action(A.GAIN + ROCK)
    assert s.pack[ROCK] == before + 2


def test_maldonado_terrain_without_lewis_gives_one():
    s = new("engine6_maldonado_201", characters=("Clark",))
    s.apply_action(A.EXPLORE + cell(s, "A7"))
    settle(s)
    assert s.agenda[-1] == ("gain",)


# ----- a right Tracking Guide guess -----
def test_collins_waiver_is_spent_on_the_path_the_tracking_guide_discards():
    """Collins: "EXHAUST: You don't pay the Resource to Explore Paths protected by Monsters." Tracking Guide: "If
    you correctly guess the Terrain you're about to Explore, discard that Path Token and that Resource, and
    Explore again." Collins was used for the Path explored; the explore again pays a Monster's toll (as every
    explore after the one Collins was used for)."""
    s = new(
        "engine_fauna_201",
        players=2,
        characters=("Collins", "Clark"),
        gear=(("Tracking Guide", "Jar"), ("Compass", "Flint")),
    )
    opened(s, "E7")
    card = next(k for k in s.th_pile if s.game.threats[k].monster)
    s.th_pile.remove(card)
    s.threats.append(card)
    s.monsters[cell(s, "D6")] = card  # row D and column 6
    s.pack[WOOD] = 2
    s.apply_action(A.COLLINS)
    s.apply_action(A.GUESS + 20 * TRACK + Terrain.FOOD.index)
    s.apply_action(A.EXPLORE + cell(s, "D7"))  # Food, row D: toll-free with Collins
    settle(s)
    assert s.pack[WOOD] == 2 and not s.explored_now and s.explored[cell(s, "D7")]
    assert not s.collins_on and s.monster_tax(cell(s, "E6")) == 1  # column 6: the toll is owed again


def test_the_collins_again_reading_keeps_the_waiver_for_the_explore_again():
    """The other reading (variant ``collins-again``): the Tracking Guide's "Explore again" is the same explore action
    Collins was exhausted for ("You don't pay the Resource to Explore Paths protected by Monsters", Paths in the
    plural), so the explore again is toll-free too; it is spent once a Path is activated."""
    s = new(
        "engine_fauna_201",
        players=2,
        characters=("Collins", "Clark"),
        gear=(("Tracking Guide", "Jar"), ("Compass", "Flint")),
        variants=("collins-again",),
    )
    opened(s, "E7")
    card = next(k for k in s.th_pile if s.game.threats[k].monster)
    s.th_pile.remove(card)
    s.threats.append(card)
    s.monsters[cell(s, "D6")] = card  # row D and column 6
    s.pack[WOOD] = 2
    s.apply_action(A.COLLINS)
    s.apply_action(A.GUESS + 20 * TRACK + Terrain.FOOD.index)
    s.apply_action(A.EXPLORE + cell(s, "D7"))  # Food, row D: toll-free with Collins
    settle(s)
    assert s.pack[WOOD] == 2 and not s.explored_now and s.explored[cell(s, "D7")]
    assert s.collins_on and s.monster_tax(cell(s, "E6")) == 0  # column 6: still waived
    s.apply_action(A.EXPLORE + cell(s, "E6"))
    settle(s)
    assert s.pack[WOOD] == 2 and s.explored_now and not s.collins_on  # no toll paid; spent by the activation


def test_dowsing_rod_guess_is_used_up_on_the_path_the_tracking_guide_discards():
    """Dowsing Rod: "guess the Terrain under the Path you're about to Explore. If correct, gain 1 additional
    Resource from an adjacent Explored Path of your choice." The guess is for that Path: a right Tracking Guide
    guess on it (no activation) still settles the Rod's guess there, and it does not carry over to the Path
    explored next."""
    from mapgen.engine import vameter as V

    s = new("engine6_vameter_201", characters=("Clark",), gear=(("Dowsing Rod", "Tracking Guide", "Jar"),))
    opened(s, "E7")  # Food
    s.apply_action(V.DOWSE + Terrain.WOOD.index)
    s.apply_action(A.GUESS + 20 * TRACK + Terrain.WOOD.index)
    food = s.pack[FOOD]
    s.apply_action(A.EXPLORE + cell(s, "F7"))  # Wood
    answer_place(s)
    assert s.data["dowse"] == -1 and s.pack[FOOD] == food + 1  # the Rod's Resource, from E7
    assert s.pack[WOOD] == 0  # the Tracking Guide discards the Wood


def test_vameter_moves_and_crew_may_be_placed_after_a_right_tracking_guide_guess():
    """Vameter: "After Exploring a Path but before Activating the Terrain or moving the Vameter, you can choose to
    place one of the Crew"; "After Exploring a Path and finding Water, the Vameter (if in play) moves
    immediately". A right Tracking Guide guess skips the activation, not the Exploring."""
    s = new("engine6_vameter_201", characters=("Clark",), gear=(("Tracking Guide", "Flint", "Jar"),))
    opened(s, "F7")
    s.data["vam"] = cell(s, "C4")
    s.apply_action(A.GUESS + 20 * TRACK + Terrain.WATER.index)
    s.apply_action(A.EXPLORE + cell(s, "G7"))  # Water
    s._advance()
    assert s.agenda[-1] == ("chapter", "place", cell(s, "G7"))
    s.apply_action(A.SKIP)
    settle(s)
    assert len(s.data["move_face"]) == 1  # a Move token was flipped: the Vameter moved


def test_first_fezron_camp_found_by_a_right_guess_spawns_the_vameter_without_a_token():
    """Vameter: "When the first Fezron Camp is found, spawn the Vameter!"; "Gain a Fezron token when activating a
    Fezron Camp terrain" - a right Tracking Guide guess finds it without activating it."""
    s = new("engine6_vameter_201", characters=("Clark",), gear=(("Tracking Guide", "Flint", "Jar"),))
    opened(s, "F1")
    s.apply_action(A.GUESS + 20 * TRACK + Terrain.FEZRON_CAMP.index)
    s.apply_action(A.EXPLORE + cell(s, "G1"))  # a Fezron Camp
    answer_place(s)
    assert s.data["vam"] >= 0 and s.data["fezron"] == 0


def test_maldonado_power_and_flip_after_a_right_tracking_guide_guess():
    """Maldonado's Power Track: "The Crew Token on Maldonado's Power Track increases by 1 every time you find a
    Skull or a Maldonado Terrain"; co-operative: "Each time you reveal a Skull or a Maldonado Terrain, you also
    get to flip over one of the 5 face-down Influence Cards". Maldonado Terrain: "gain 1 Resource of your
    choice" is its activation, which a right Tracking Guide guess skips."""
    s = new("engine6_maldonado_201", characters=("Clark",), gear=(("Tracking Guide", "Flint", "Jar"),))
    power = s.data["power"]
    s.apply_action(A.GUESS + 20 * TRACK + Terrain.MALDONADO.index)
    s.apply_action(A.EXPLORE + cell(s, "A7"))  # Maldonado
    s._advance()
    assert s.data["power"] == power + 1
    assert s.agenda[-1][:2] == ("chapter", "flip") and ("gain",) not in s.agenda


def test_goggles_water_after_a_right_tracking_guide_guess():
    """Goggles: "When that Path is Explored (by any Player), gain 1 more Water if the Terrain is Water." The Path
    is Explored by a right Tracking Guide guess too (its own Water is discarded with the Path token)."""
    from mapgen.engine import maldonado as M

    s = new("engine6_maldonado_201", characters=("Clark",), gear=(("Tracking Guide", "Goggles", "Jar"),))
    water = s.pack[WATER]
    s.apply_action(M.GOGGLES + cell(s, "E7"))
    s.apply_action(A.GUESS + 20 * TRACK + Terrain.WATER.index)
    s.apply_action(A.EXPLORE + cell(s, "E7"))  # Water
    settle(s)
    assert s.pack[WATER] == water + 1 and s.data["goggles"] == -1


# ----- the Shelter -----
def test_shelter_goes_on_a_vacant_field_not_under_a_monster():
    """Build a Shelter: "A Shelter must be built on an Explored Field Terrain. If there are no available vacant
    Field Terrains then a Shelter cannot be built." and "Place the Shelter on an available Field Terrain". A
    Field holding a Monster token is not vacant."""
    from mapgen.engine.cards import MUD

    s = new("engine_fauna_201", characters=("Clark",))
    opened(s, "F7")  # a Field
    card = next(k for k in s.th_pile if s.game.threats[k].monster)
    s.th_pile.remove(card)
    s.threats.append(card)
    s.monsters[cell(s, "F7")] = card
    s.pack[WOOD] = s.pack[MUD] = 1
    assert not [a for a in s.legal_actions() if A.SHELTER <= a < A.SHELTER + len(A.SHELTER_PAIRS)]
    opened(s, "E1")  # another Field, vacant
    s._legal = None
    shelter = [a for a in s.legal_actions() if A.SHELTER <= a < A.SHELTER + len(A.SHELTER_PAIRS)]
    s.apply_action(shelter[0])
    assert s.shelter == cell(s, "E1")


# ----- Flora: the Search cards and the 8 Flora Terrain Tokens -----
def test_flora_has_six_search_cards_and_the_giant_plant():
    """Flora components: "7 Search Cards"; setup: "Place the Search Card with the Giant Plant face up. Shuffle and
    deal 3 face up Search Cards ... Remove the remaining Search Cards from the game." - 6 to deal from."""
    from mapgen.engine import flora as F

    s = new("engine6_flora_201", characters=("Clark",))
    assert len(s.game.chapter.search) == 6 and F.PLANT == "Giant Plant"
    assert len(s.data["trail"]) == 3 and len(s.data["search_pile"]) == 3


def test_each_flora_creature_is_its_own_flora_terrain_token():
    """Flora: "8 Flora Terrain Tokens"; "Place the Flora Terrain Tokens over the matching Terrain icons on the Flora
    Reference Board"; burnt: "Remove the matching Flora Token from the Reference Board and place it off to the
    side"; spared: "Place the Flora Terrain Token matching the Terrain you just explored ONTO that Path";
    later "discard it to kill any Flora Terrain Token that's on the Map Board. Discard that Flora Terrain
    Token." Two creatures are two tokens, each followed on its own."""
    from mapgen.engine import flora as F

    s = new("engine6_flora_201", characters=("Clark",))
    assert s.data["tokens"] == [F.ON_BOARD] * 8
    opened(s, "E7", "D7")
    s.fires = 1
    s.apply_action(A.EXPLORE + cell(s, "C7"))  # a Flora creature: the first found is token 1
    settle(s)
    s.apply_action(F.SPARE)
    assert s.data["tokens"][0] == cell(s, "C7") and s.data["tokens"][1:] == [F.ON_BOARD] * 7
    opened(s, "G2", "G1")
    s.explored_now = False
    s._legal = None
    s.apply_action(A.EXPLORE + cell(s, "G3"))  # another Flora creature: token 2
    settle(s)
    s.apply_action(F.BURN)
    assert s.data["tokens"][:2] == [cell(s, "C7"), F.DEAD]
    s.fires = 1
    s._legal = None
    s.apply_action(F.KILL_RING + cell(s, "C7"))
    assert s.data["tokens"][:2] == [F.DEAD, F.DEAD] and s.data["dead"] == 2


def test_a_map_with_more_flora_creatures_than_tokens_cannot_be_played():
    """Flora components: "8 Flora Terrain Tokens": a ninth Flora creature has no token."""
    import pytest

    from mapgen.engine.game import GameError

    m = load("engine6_flora_201")
    cells = list(m.cells)
    for name in ("A1", "A2", "A3", "A4", "B1"):
        cells[m.board.index(name)] = Terrain.FLORA_CREATURE
    with pytest.raises(GameError, match="8 Flora Terrain Tokens"):
        Game(m.with_cells(tuple(cells)), characters=("Clark",))


# ----- decisions where the rulebooks leave a choice (mapgen/engine/README.md, issue 22) -----
def test_vameter_move_tokens_are_four_designed_numbers():
    """Vameter components: "4 Vameter Move tokens"; "Flip a random Vameter Move token face up ... Move the Vameter
    by the number of Unexplored Paths shown". The numbers are not printed in the rulebook: the engine's tokens
    show 1, 2, 2 and 3 (decision)."""
    from mapgen.engine import vameter as V

    assert V.MOVE_TOKENS == (1, 2, 2, 3)
    s = new("engine6_vameter_201", characters=("Clark",))
    assert sorted(s.data["move_pile"]) == [0, 1, 2, 3]


def test_closest_path_is_counted_in_king_steps_and_a_tie_is_the_players_choice():
    """Cyclops: "move each Cyclops to the closest Unexplored Path ... If multiple Paths are equally close, you
    choose." The rulebook does not say how distance is counted: king steps (the 8 Paths around are all 1 away,
    as "any of the 8 Paths surrounding a Cyclops"), decision; every closest Path is offered."""
    from mapgen.engine import vameter as V

    s = new("engine6_vameter_201", characters=("Clark",))
    opened(s, "C4", "B4", "D4")
    dests = s.game.chapter.cyclops_dests(s, cell(s, "C4"))
    assert [s.game.board.name(c) for c in dests] == ["B3", "B5", "C3", "C5", "D3", "D5"]
    s.monsters[cell(s, "C4")] = next(k for k in s.th_pile if s.game.threats[k].monster)
    step = ("chapter", "cyclops", s.monsters[cell(s, "C4")])
    assert s.game.chapter.legal(s, step) == [V.DEST + c for c in dests]


def test_vameter_spawns_on_the_nearest_unexplored_path_ties_broken_by_the_engine():
    """Vameter: "Place the Vameter token with the arrow pointing East on the Peak. If the Peak is explored, place it
    on the nearest Unexplored Path." Nearest and its ties are not defined: king steps, then orthogonal steps,
    then reading order (decision; no choice is offered)."""
    s = new("engine6_vameter_201", characters=("Clark",))
    opened(s, "B4")  # the Peak
    s.game.chapter.spawn(s)
    assert s.data["vam"] == cell(s, "A4") and s.data["dir"] == 1  # A4 is 1 king and 1 orthogonal step away, first


def test_irene_moves_a_monster_to_any_of_its_8_neighbours_but_not_onto_crew():
    """Irene: "EXHAUST: Move a Monster to an adjacent Path." and "Moves a Monster to its adjacent Path (Explored or
    Unexplored)". "Adjacent" is unqualified (the core says "orthogonally adjacent" where it means it; Vameter
    counts "the 8 spaces adjacent to the Vameter"): any of the 8 neighbours, decision; not onto another Monster,
    the Vameter or a Crew token (as the Cyclops' own move: "It cannot move to a Path with another Cyclops, the
    Vameter, or a Crew token"), decision."""
    from mapgen.engine import vameter as V

    s = new("engine6_vameter_201", characters=("Irene",))
    card = next(k for k in s.th_pile if s.game.threats[k].monster)
    s.th_pile.remove(card)
    s.threats.append(card)
    s.monsters[cell(s, "D5")] = card
    s.data["crew"][0] = cell(s, "C4")
    s.data["vam"] = cell(s, "E6")
    dests = [s.game.board.name(a - V.DEST) for a in s.game.chapter.legal(s, ("chapter", "irene", cell(s, "D5")))]
    assert dests == ["C5", "C6", "D4", "D6", "E4", "E5"]


def test_goggles_take_no_water_from_the_backpack():
    """Goggles: "Place 2 Water Tokens on any Unexplored Path. When that Path is Explored (by any Player), gain 1 more
    Water if the Terrain is Water." Core, Strategy: "Place a Resource Token matching the suspected Terrain on top
    of the face down Path Token as a reminder". Decision: the 2 Water tokens mark the Path (a reminder, not the
    team's Water): placing them costs nothing, and the one more Water comes from the Reserve."""
    from mapgen.engine import maldonado as M

    s = new("engine6_maldonado_201", characters=("Clark",), gear=(("Goggles", "Flint", "Jar"),))
    water = s.pack[WATER]
    s.apply_action(M.GOGGLES + cell(s, "E7"))
    assert s.pack[WATER] == water and s.data["goggles"] == cell(s, "E7")
    s.apply_action(A.EXPLORE + cell(s, "E7"))  # Water
    settle(s)
    assert s.pack[WATER] == water + 2  # the Terrain's Water and one more


def test_the_traitor_chooses_the_influence_card_kept_at_night():
    """Maldonado, Night: "all players must discard all 4 of their Influence Cards face down and redraw back up to 4.
    Note: If you are the Traitor and you have played your -4 Traitor Card, then you need to keep any 1 of your
    Influence Cards". Which one is the Traitor's choice: a decision step of theirs (before: the first of the hand)."""
    from mapgen.engine.maldonado import KEEP
    from mapgen.engine.traitor import MaldonadoTraitor

    s = settle(Game(load("engine6_maldonado_201"), chapter=MaldonadoTraitor(), players=2).new_initial_state())
    d = s.data
    t = d["identity"].index(0)
    d["traitor_played"] = True
    hand = list(d["hands"][t])
    other = list(d["hands"][1 - t])
    assert len(hand) == 4
    me = s.current
    s.push(*s.game.chapter.night_steps(s))
    settle(s)  # the draws of the players before the Traitor
    assert s.agenda[-1] == ("chapter", "keep", t) and s.current_player() == t
    assert s.legal_actions() == [KEEP + k for k in range(4)]
    assert s.action_to_string(KEEP + 2).startswith("keep Influence ")
    s.apply_action(KEEP + 2)  # the third card, not the first
    assert d["hands"][t] == [hand[2]] and len(d["hands"][1 - t]) == 4  # the Loyalist drew a new hand
    assert set(other + hand[:2] + hand[3:]) <= set(d["inf_discard"]) and hand[2] not in d["inf_discard"]
    settle(s)
    assert s.current == me and len(d["hands"][t]) == 5 and len(d["hands"][1 - t]) == 4
