"""Issue 12: the engine follows the rulebooks. Each test quotes the rule it checks.

Maps: tests/data/engine_fauna_201.toml, engine_training_201.toml, engine6_flora_201.toml,
engine6_vameter_201.toml, engine6_maldonado_201.toml (their layouts are drawn in the chapter test files).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mapgen.engine import actions as A
from mapgen.engine.cards import WATER
from mapgen.engine.game import CHANCE_PLAYER, Game
from mapgen.mapfile import read_map
from tests.engine_support import cell, opened, settle

DATA = Path(__file__).parent / "data"


def load(name):
    return read_map(DATA / f"{name}.toml")


def reveal_threat(state, kind: str) -> int:
    """Put the first Threat card of this kind in play (out of the deck), as a draw would."""
    g = state.game
    card = next(k for k in state.th_pile if g.threats[k].kind == kind or (kind == "monster" and g.threats[k].monster))
    state.th_pile.remove(card)
    state.threats.append(card)
    return card


def chase(state) -> None:
    """Chased in play with one Destiny card held under it."""
    state.de_held = [state.de_pile.pop()]
    card = reveal_threat(state, "chased")
    from mapgen.engine.challenges import chance_threat

    state.threats.remove(card)
    chance_threat(state, ("chance_threat", "day", -1), card)
    assert state.chased and not state.de_held and state.chased_pile


# ----- 1. Chased is cleared by every Monster kill -----
CHASED_RULE = (
    "Core rules, Skull Terrain Found: 'You can reclaim Destiny Cards and use them again after you Kill a "
    "Monster (varies by chapter) and discard Chased.'"
)


def test_shooting_a_cyclops_discards_chased():
    """Core rules, Skull Terrain Found: "You can reclaim Destiny Cards and use them again after you Kill a
    Monster (varies by chapter) and discard Chased." Vameter: "Cyclops is shot: Remove that Cyclops token
    and the matching Threat card from the game." """
    s = settle(Game(load("engine6_vameter_201"), characters=("Clark",)).new_initial_state())
    chase(s)
    cyc = reveal_threat(s, "cyclops")
    opened(s, "E7")
    s.monsters[cell(s, "E7")] = cyc
    s.game.chapter.shoot(s, cell(s, "E7"))
    assert not s.monsters and not s.chased and len(s.de_held) == 1 and not s.chased_pile


def test_monster_claws_discards_chased():
    """As above: Monster Claws kills a Cyclops, and a kill discards Chased."""
    from mapgen.engine import vameter as V

    s = settle(Game(load("engine6_vameter_201"), characters=("Clark",)).new_initial_state())
    chase(s)
    cyc = reveal_threat(s, "cyclops")
    opened(s, "E7")
    s.monsters[cell(s, "E7")] = cyc
    s.game.chapter._do(s, ("chapter", "claw"), V.CLAW + cell(s, "E7"))
    assert not s.monsters and not s.chased and len(s.de_held) == 1


def test_shooting_the_vameter_does_not_discard_chased():
    """Vameter: "Important: The Vameter is not considered to be a Monster for any game effect." """
    s = settle(Game(load("engine6_vameter_201"), characters=("Clark",)).new_initial_state())
    chase(s)
    s.data["vam"] = cell(s, "B4")
    s.game.chapter.shoot(s, cell(s, "B4"))
    assert s.data["hearts"] == 4 and s.chased


def test_sacagawea_removing_a_minotaur_discards_chased():
    """Flora: "SACAGAWEA: ... When you Activate this Terrain you immediately remove all Minotaurs in play.
    Also, if more Minotaurs enter play, they are immediately killed and removed from play." A Minotaur
    so removed is killed, and a kill discards Chased."""
    s = settle(
        Game(load("engine6_flora_201"), characters=("Clark",), variants=("flora-minotaurs",)).new_initial_state()
    )
    chase(s)
    mino = reveal_threat(s, "monster")
    s.monsters[cell(s, "F7")] = mino
    opened(s, "C2", "C3")
    s.apply_action(A.EXPLORE + cell(s, "B2"))  # Sacagawea
    settle(s)
    assert not s.monsters and not s.chased and len(s.de_held) == 1


# ----- 2. Flora's Threat deck -----
def test_flora_threat_deck_is_injured_and_chased():
    """Core Game Setup, Q: "Shuffle the Injured and Chased Threat Cards together with any Chapter Specific
    Threat Cards to form the Threat Deck." Flora's Chapter Specific Components list no Threat cards (Fauna's
    list "4 Threat Cards": the Minotaurs)."""
    g = Game(load("engine6_flora_201"))
    assert sorted(t.kind for t in g.threats) == ["chased", "injured"]


def test_flora_minotaurs_variant_adds_faunas_four_minotaurs_only():
    """The variant ``flora-minotaurs`` reads Sacagawea's "you immediately remove all Minotaurs in play" as
    Minotaurs being in Flora's Threat deck: Fauna's four Minotaur cards, no other chapter's Monsters."""
    g = Game(load("engine6_flora_201"), variants=("flora-minotaurs",))
    assert sorted(t.kind for t in g.threats) == ["chased", "injured"] + ["minotaur"] * 4
    assert {t.chapter for t in g.threats if t.monster} == {"fauna"}
    # the chapter object of another game is not changed by this game's variant
    assert "flora-minotaurs" not in Game(load("engine6_flora_201")).chapter.variants


def test_variant_for_another_chapter_or_unknown_is_refused():
    from mapgen.engine.game import GameError

    with pytest.raises(GameError, match="is for flora, not fauna"):
        Game(load("engine_fauna_201"), variants=("flora-minotaurs",))
    with pytest.raises(GameError, match="unknown variant"):
        Game(load("engine_fauna_201"), variants=("no-such-rule",))


def test_playtest_variant_option_is_reported_and_replayed(tmp_path):
    import json

    from click.testing import CliRunner

    from cli import main
    from mapgen.engine.playtest import load_replay

    flora = str(DATA / "engine6_flora_201.toml")
    r = CliRunner().invoke(
        main, ["playtest", flora, "-n", "3", "--variant", "flora-minotaurs", "--json", "--replay", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert rep["variants"] == ["flora-minotaurs"]
    game, _, _ = load_replay(tmp_path / "game-00000.json")
    assert game.variants == {"flora-minotaurs"} and any(t.monster for t in game.threats)
    r = CliRunner().invoke(main, ["playtest", str(DATA / "engine_fauna_201.toml"), "--variant", "flora-minotaurs"])
    assert (
        r.exit_code == 1
        and r.output.strip() == "error: --variant: the variant 'flora-minotaurs' is for flora, not fauna"
    )


# ----- 3. Training is won after the sixth Challenge is fully resolved -----
def _training_at_sixth_card(fail_card: str, water: int):
    """A Training game whose sixth Challenge card (``fail_card``) is about to be resolved."""
    g = Game(load("engine_training_201"))
    s = settle(g.new_initial_state())
    k = next(i for i, c in enumerate(g.challenges) if c.name == fail_card)
    if k in s.ch_pile:
        s.ch_pile.remove(k)
    s.row = [[k, g.challenges[k].time, None]]
    s.resolved = s.settled = 5
    s.pack = [0] * len(s.pack)
    s.pack[WATER] = water
    s.agenda = [("next_turn",), ("after_resolve",), ("fatigue",), ("resolve",)]
    s._legal = None
    return s


def test_training_sixth_card_fail_that_causes_thirst_loses():
    """Training: "You WIN the Training Mission if you resolve all 6 Challenge Cards." and "You LOSE the
    Training Mission if you are required to discard any Water Tokens and have none on the Supply Board."
    The sixth card is resolved once its Fail side is followed ("Follow any instructions on the Fail side
    of the Challenge Card"), so a Fail that asks for Water the players lack loses."""
    s = _training_at_sixth_card("Cold Night", water=1)  # Fail: lose 2 Water
    s.apply_action(A.FAIL)
    assert s.outcome == "thirst"


def test_training_sixth_card_fail_that_can_be_paid_wins():
    s = _training_at_sixth_card("Cold Night", water=2)
    s.apply_action(A.FAIL)
    assert s.outcome == "win" and s.settled == 6 and s.pack[WATER] == 0


# ----- 4. A Sample Token gained with a full Backpack -----
def _fauna_with(pack_counts: dict, samples: int = 0):
    from mapgen.engine.cards import FOOD, MUD, ROCK, WOOD

    g = Game(load("engine_fauna_201"), characters=("Clark",))
    s = settle(g.new_initial_state())
    codes = {"Fo": FOOD, "Wo": WOOD, "Mu": MUD, "Ro": ROCK, "Wa": WATER}
    s.pack = [0] * len(s.pack)
    for code, n in pack_counts.items():
        s.pack[codes[code]] = n
    s.samples = samples
    return s


def _gain_a_sample(s):
    from mapgen.engine.cards import Effect

    s.agenda.append(("effect", Effect("gain", 1, "sample")))
    s._advance()
    s._legal = None


def test_sample_token_with_a_full_backpack_costs_a_resource():
    """Core rules, Backpack: "If you gain a Sample Token when your Backpack is full, you must discard a
    resource to accept the Sample Token!" """
    from mapgen.engine.cards import FOOD

    s = _fauna_with({"Fo": 3, "Wo": 3, "Wa": 5})  # 6 spaces in use: full
    _gain_a_sample(s)
    assert s.samples == 1 and s.agenda[-1] == ("pay", 1, "any")
    assert A.DISCARD + WATER not in s.legal_actions()  # Water takes no space: a Resource is discarded
    s.apply_action(A.DISCARD + FOOD)
    assert s.pack[FOOD] == 2 and s.slots() == 6 and s.pack[WATER] == 5


def test_sample_token_with_room_costs_nothing():
    s = _fauna_with({"Fo": 2, "Wo": 3, "Wa": 5})  # 5 spaces in use
    _gain_a_sample(s)
    assert s.samples == 1 and s.slots() == 6 and s.agenda[-1] != ("pay", 1, "any")


# ----- 5. Vameter -----
def _vameter(**kw):
    kw.setdefault("characters", ("Clark",))
    kw.setdefault("gear", (("Flint", "Jar", "Satchel"),))
    return settle(Game(load("engine6_vameter_201"), **kw).new_initial_state())


def test_cyclops_moves_after_the_fail_effects_and_fatigue():
    """Core rules, Consequence: "Regardless of whether you Passed or Failed, discard the resolved Challenge
    Card ... Then you must resolve the Consequence ... Each Consequence will check if you are Fatigued and
    resolve any active Consequence Effects." Vameter, Cyclops: "B. Each time you resolve a Consequence,
    move each Cyclops to the closest Unexplored Path". So the Cyclops moves after the card's Fail effects
    and the Fatigue check, not before them."""
    from mapgen.engine.cards import FOOD

    s = _vameter()
    g = s.game
    cyc = reveal_threat(s, "cyclops")
    opened(s, "E7", "D6")
    s.monsters[cell(s, "E7")] = cyc
    k = next(i for i, c in enumerate(g.challenges) if c.name == "Approach the Arch")  # Fail: lose 1 Water
    s.row = [[k, g.challenges[k].time, None]]
    s.pack = [0] * len(s.pack)
    s.pack[FOOD], s.pack[WATER] = 5, 5  # 5 spaces: Fatigued
    s.agenda = [("next_turn",), ("after_resolve",), ("fatigue",), ("resolve",)]
    s._legal = None
    s.apply_action(A.FAIL)
    assert s.pack[WATER] == 4 and s.agenda[-1] == ("fatigue",)  # the Fail effect is done, Fatigue is asked
    assert s.monsters == {cell(s, "E7"): cyc}  # and the Cyclops has not moved yet
    s.apply_action(A.FATIGUE_WATER)
    if s.agenda and s.agenda[-1][:2] == ("chapter", "cyclops"):
        s.apply_action(s.legal_actions()[0])
    settle(s)
    assert s.pack[WATER] == 3 and cell(s, "E7") not in s.monsters and len(s.monsters) == 1


def test_cyclops_does_not_move_after_injured():
    """Core rules: "Note that Consequences are only triggered after normal Challenge Cards are discarded, not
    End of Day or Injured Threat Cards." """
    s = _vameter()
    cyc = reveal_threat(s, "cyclops")
    opened(s, "E7")
    s.monsters[cell(s, "E7")] = cyc
    assert s.game.chapter.after_resolve_steps(s) == []


def test_day_drawn_cyclops_goes_on_its_lair_even_with_crew_there():
    """Vameter: "When Cyclops are placed on the board at night, ignore terrain that have Crew tokens on them."
    Only the Night placement skips Paths with Crew: by day the Cyclops goes on the Skull it came from."""
    s = _vameter()
    cyc = reveal_threat(s, "cyclops")
    opened(s, "C5", "C6")  # C5 is a Skull
    s.data["crew"][0] = cell(s, "C5")
    s.game.chapter.place_monster(s, cyc, "day", cell(s, "C5"))
    assert s.monsters == {cell(s, "C5"): cyc}


def test_pipe_hawks_extra_explore_may_come_before_the_turns_explore():
    """Vameter, Pipe Hawks: "On your turn, you may remove this Gear from the game to take 1 extra Explore
    action, and discard the Path token." Free Actions "can be done at any time during a turn, before or
    after you Explore and Activate a Path"."""
    from mapgen.engine import vameter as V

    s = _vameter(characters=("Clark",), gear=(("Pipe Hawks", "Flint", "Jar"),))
    assert V.PIPE_HAWKS in s.legal_actions()  # before the turn's explore
    tokens = s.row[0][1]
    s.apply_action(V.PIPE_HAWKS)
    s.apply_action(A.EXPLORE + cell(s, "D7"))  # Water: the Vameter is not in play yet
    settle(s)
    if s.agenda[-1][:2] == ("chapter", "place"):
        s.apply_action(A.SKIP)
    assert s.row[0][1] == tokens  # Pipe Hawks' explore: its Path token discarded
    la = s.legal_actions()
    assert A.END_TURN not in la and A.EXPLORE + cell(s, "E7") in la  # the turn's own explore is still to come
    s.apply_action(A.EXPLORE + cell(s, "E7"))  # Food
    settle(s)
    if s.agenda[-1][:2] == ("chapter", "place"):
        s.apply_action(A.SKIP)
    assert s.row[0][1] == tokens + 1 and A.END_TURN in s.legal_actions()


def test_spent_fezron_go_back_to_the_reserve():
    """Vameter setup: "Place Fezron tokens in the Reserve with other tokens." Sacrificing: "discard 1 Fezron
    token from your Supply"; a discarded token goes back to the Reserve (Core: "discard ... back to the
    Reserve"), so it can be gained again: only 4 can be held at once, not 4 in the whole game."""
    s = _vameter()
    s.data["fezron_used"] = 4
    opened(s, "F1")
    s.apply_action(A.EXPLORE + cell(s, "G1"))  # a Fezron Camp
    settle(s)
    assert s.data["fezron"] == 1


# ----- 6. Gear and the Flora trail -----
def test_dowsing_rod_guess_does_not_carry_over_a_backtrack():
    """Core rules, Backtrack: "Simply replace the Path Token on top of that Path. You MAY Refresh any Gear or
    Characters that you used, and reverse any effects those cards had. You then must Explore a different
    Path." Dowsing Rod: "EXHAUST BEFORE EXPLORE: If you correctly guess the Terrain you're about to Explore"
    - the guess was for the Path put back, not for the different one."""
    from mapgen.engine import vameter as V
    from mapgen.terrain import Terrain

    s = _vameter(gear=(("Dowsing Rod", "Flint", "Jar"),))
    opened(s, "E7")
    s.fires = 2
    s.apply_action(V.DOWSE + Terrain.WOOD.index)
    s.apply_action(A.EXPLORE + cell(s, "F7"))  # Wood
    settle(s)
    assert s.agenda[-1] == ("backtrack", cell(s, "F7"))
    s.apply_action(A.BACKTRACK)
    assert s.data["dowse"] == -1 and "Dowsing Rod" not in s.exhausted
    assert V.DOWSE + Terrain.WOOD.index in s.legal_actions()  # refreshed: a new guess for the new Path


def _flora_trail(gear=("Tracking Guide", "Jar", "Satchel")):
    g = Game(load("engine6_flora_201"), characters=("Clark",), gear=(gear,))
    s = g.new_initial_state()
    trail = ("Riverbank", "Stone Garden", "Thicket")  # Wa Fc | Pf Ro | Wo Fc
    while s.current_player() == CHANCE_PLAYER:
        pile = s._chance_pile()
        want = [k for n in trail for k, c in enumerate(g.chapter.search) if c.name == n]
        s.apply_action(A.CHANCE + next((k for k in want if k in pile), min(pile)))
    return s


def test_tracking_guide_right_guess_on_the_next_trail_terrain_advances_s():
    """Flora: "If you Explore a Path and the revealed Terrain is next on the Expedition Trail (to the right of
    the Crew Token) move the Crew Token onto that Terrain icon". Tracking Guide: "If you correctly guess the
    Terrain you're about to Explore, discard that Path Token and that Resource, and Explore again": the Path
    is still Explored, so S moves."""
    from mapgen.terrain import Terrain

    s = _flora_trail()
    opened(s, "E7")
    assert s.game.chapter.next_icon(s) is Terrain.WATER
    s.apply_action(A.GUESS + 20 * 1 + Terrain.WATER.index)  # Tracking Guide: "Water"
    s.apply_action(A.EXPLORE + cell(s, "D7"))  # Water
    settle(s)
    assert s.data["pos"] == 1 and s.pack[WATER] == s.game.chapter.start_water  # no Water taken
    assert not s.explored_now  # explore again


def test_tracking_guide_right_guess_on_a_flora_creature_meets_it():
    """Flora: "If you Explore a Path and reveal a Flora Terrain, you MAY discard a Fire Token to kill it ...
    B. If the Flora Terrain you just Explored matches the next Terrain on the Expedition Trail, advance the
    Crew Token". A right Tracking Guide guess still Explores the Path."""
    from mapgen.engine import flora as F
    from mapgen.terrain import Terrain

    s = _flora_trail()
    opened(s, "E7", "D7")
    s.data["pos"] = 1  # S on Water: the next icon is a Flora creature
    s.apply_action(A.GUESS + 20 * 1 + Terrain.FLORA_CREATURE.index)
    s.apply_action(A.EXPLORE + cell(s, "C7"))  # a Flora creature
    settle(s)
    assert s.agenda[-1] == ("chapter", "flora", cell(s, "C7"))
    s.apply_action(F.BURN)
    assert s.data["pos"] == 2 and s.data["dead"] == 1 and s.fires == 0


# ----- 7. Maldonado's Hidden Traitor redraws to 5 after the -4 card -----
def test_traitor_who_played_the_minus_four_redraws_to_five_influence_cards():
    """Maldonado, End of Turn: "If you have less than 4 Influence Cards, redraw back up so that you now have 5
    cards in your hand. You will have 4 Influence Cards and 1 Identity Card. If you are the Traitor and you
    have played your -4 Traitor Card, then you should redraw so that you have 5 Influence Cards in your
    hand." - with 4 Influence cards left, the Traitor still draws the fifth."""
    from mapgen.engine.traitor import MaldonadoTraitor

    s = settle(Game(load("engine6_maldonado_201"), chapter=MaldonadoTraitor(), players=2).new_initial_state())
    d = s.data
    t = d["identity"].index(0)
    loyal = 1 - t
    d["traitor_played"] = True
    assert len(d["hands"][t]) == 4 and len(d["hands"][loyal]) == 4
    s.agenda.append(("chapter", "refill", t))
    s.agenda.append(("chapter", "refill", loyal))
    settle(s)
    assert len(d["hands"][t]) == 5 and len(d["hands"][loyal]) == 4


# ----- 8. Rules the rulebooks do not have: the sealed trail -----
def test_no_relaunch_from_the_start_column_unless_the_house_rule_is_asked_for():
    """Core rules, Rules for Exploring: "Every Path that you Explore after the first must be orthogonally
    adjacent (north, east, west, or south) to a Path that has already been Explored." and "you cannot
    explore a Path adjacent to: a Rock Path or a Path with a Monster Token on it." No rule lets the boat land
    again: landing again from the start column is the house rule ``relaunch``."""
    for variants, expected in (((), []), (("relaunch",), ["A7", "B7", "C7", "E7", "F7", "G7"])):
        s = settle(Game(load("engine_fauna_201"), characters=("Clark",), variants=variants).new_initial_state())
        opened(s, "D7")
        s.monsters[cell(s, "D7")] = reveal_threat(s, "monster")
        s._legal = None
        assert [s.game.board.name(c) for c in s.frontier()] == expected


def test_a_round_with_no_path_to_explore_seals_the_game_not_a_loss():
    """Core rules, End of Game and How You Lose: thirst, hunger, and "If you cannot refill the Challenge Row
    with 3 new Challenge cards then you lose the game" - no rule loses a game in which no Path can be
    explored. The engine ends it "sealed" after a whole round of that, and reports it apart from losses."""
    from mapgen.engine.playtest import GameRecord, Settings, report_text, summarise

    g = Game(load("engine_fauna_201"), characters=("Clark", "York"), players=2)
    s = settle(g.new_initial_state())
    opened(s, "D7")
    s.monsters[cell(s, "D7")] = reveal_threat(s, "monster")
    s.agenda = [("main",)]
    s._legal = None
    assert s.legal_actions()[-1] == A.END_TURN and not any(a < A.DISCARD for a in s.legal_actions())
    s.apply_action(A.END_TURN)
    settle(s)
    while s.current_player() != 0 and not s.is_terminal():  # the other player's turn: no Path either
        la = s.legal_actions()
        s.apply_action(A.END_TURN if A.END_TURN in la else la[0])
        settle(s)
    assert s.outcome == "sealed" and "sealed: walled in" in s.events
    recs = [
        GameRecord(0, 1, "sealed", 0, 1, 3, {"sealed: walled in": 3}),
        GameRecord(1, 2, "hunger", 0, 2, 9, {}),
        GameRecord(2, 3, "win", 20, 3, 20, {}),
    ]
    rep = summarise(recs, load("engine_fauna_201"), Settings())
    assert rep["losses"] == {"hunger": 1} and rep["sealed"] == 1 and rep["sealed_by"] == {"walled in": 1}
    assert rep["sealed_rate"] == round(1 / 3, 4)
    text = report_text(rep)
    assert (
        "sealed       1/3 = 33.3% (no Path could be explored for a whole round: not a rulebook loss; walled in 1)"
        in text
    )
    assert "losses       hunger 1" in text
    # with no game sealed the line still says so (it was left out, where grade says "sealed 0/3 = 0.0%")
    none = report_text(summarise(recs[1:], load("engine_fauna_201"), Settings()))
    assert "sealed       0/2 = 0.0% (no Path could be explored for a whole round: not a rulebook loss)" in none


def test_the_playtest_levels_line_says_it_counts_won_games():
    """The levels of success are reached by won games only: the text said "levels  Master Explorer 1", which
    testers read as a count of all games; it says of how many won games."""
    from mapgen.engine.playtest import GameRecord, Settings, report_text, summarise

    recs = [
        GameRecord(0, 1, "hunger", 0, 2, 9, {}),
        GameRecord(1, 2, "win", 30, 3, 20, {}),
        GameRecord(2, 3, "win", 24, 3, 20, {}),
    ]
    text = report_text(summarise(recs, load("engine_fauna_201"), Settings()))
    assert (
        "  levels       of the 2 won games: Master Explorer (28+) 1, Fearless Trailblazer (22-27) 1"
        in text.splitlines()
    )
    one = report_text(summarise(recs[:2], load("engine_fauna_201"), Settings()))
    assert "  levels       of the 1 won game: Master Explorer (28+) 1" in one.splitlines()


def test_the_playtest_levels_line_gives_each_level_its_scores():
    """ "levels  of the 11 won games: Master Explorer 11" on one map and "Veteran Pathfinder 10" on another: a
    designer comparing them had to look the levels up in the rulebook ("Scoring the Game for the Level of Success":
    28+ Master Explorer, 16-21 Veteran Pathfinder, ...). Each level says its scores."""
    from mapgen.engine.playtest import GameRecord, Settings, report_text, summarise

    recs = [GameRecord(k, k, "win", score, 3, 20, {}) for k, score in enumerate((3, 1, 16, 45))]
    text = report_text(summarise(recs, load("engine_fauna_201"), Settings()))
    assert (
        "  levels       of the 4 won games: Master Explorer (28+) 1, Veteran Pathfinder (16-21) 1, "
        "Greenhorn Scout (1-3) 2"
    ) in text.splitlines()


def test_the_playtest_plot_draws_sealed_games_apart(tmp_path):
    from mapgen.render import plot_playtest

    rep = {"bot": "heuristic", "games": 3, "wins": 1, "win_rate": 0.3333, "scores": [0, 0, 20]}
    rep |= {"losses": {"hunger": 1}, "sealed": 1, "levels": {}}
    out = tmp_path / "p.svg"
    plot_playtest([rep], out)
    svg = out.read_text()
    assert "playtest-loss-sealed" in svg and "playtest-loss-hunger" in svg


# ----- Water and a Monster's toll: two readings -----
def test_water_pays_a_minotaurs_toll_unless_toll_no_water():
    """Core rules: "If you Explore a Path that is affected by a Monster's Explore Effect, then you must discard
    any 1 Resource before you can Explore that Path." Mortar and Pestle: "Remember, Water is a Resource!"
    The default reads Water as a Resource; the variant ``toll-no-water`` reads Vameter's and Maldonado's
    explicit "Resource or Water" as saying that a plain "Resource" excludes Water."""
    for variants, can_pay in (((), True), (("toll-no-water",), False)):
        s = settle(Game(load("engine_fauna_201"), characters=("Clark",), variants=variants).new_initial_state())
        opened(s, "D7")
        s.monsters[cell(s, "C1")] = reveal_threat(s, "monster")  # row C: C7 costs 1
        s.pack = [0] * len(s.pack)
        s.pack[WATER] = 5
        s.agenda = [("main",)]
        s._legal = None
        assert (A.EXPLORE + cell(s, "C7") in s.legal_actions()) is can_pay
        assert A.EXPLORE + cell(s, "E7") in s.legal_actions()  # no toll there
    s.pack[WATER] = 5
    from mapgen.engine.cards import FOOD

    s.pack[FOOD] = 1
    s._legal = None
    s.apply_action(A.EXPLORE + cell(s, "C7"))
    assert s.agenda[-1] == ("pay", 1, "any") and A.DISCARD + WATER not in s.legal_actions()


# ----- 9. The heuristic bot reasons with the chapter's rule instances -----
RIVERSIDE_WOOD = """
[[rule]]
id = "H1"
title = "Riverside Wood"
text = "Every Wood is on the outer rows or columns."
checks = [{ kind = "ring", terrain = "Wo", depth = 0 }]
"""


RIVERSIDE_HILL = """
[[rule]]
id = "H1"
title = "Riverside Hill"
text = "Every Hill is on the outer rows or columns."
checks = [{ kind = "ring", terrain = "Hi", depth = 0 }]
"""


def _wood_hunt(reference):
    """Fauna map 201 with A7 and A6 (two Waters) explored: A5, B6 and B7 can be explored, Wood is needed."""
    g = Game(load("engine_fauna_201"), characters=("Clark",), gear=(("Flint", "Jar", "Satchel"),), reference=reference)
    s = settle(g.new_initial_state())
    opened(s, "A7", "A6")
    s.pack = [0] * len(s.pack)
    s.pack[WATER] = 9
    s._legal = None
    return s


def test_a_house_rule_changes_the_heuristics_play(tmp_path):
    """STYLE.md: "A chapter is *data*: a list of rule instances with their parameters ... so a new chapter or a
    house rule needs no new code." RULES.md C1: "Every Water has >=1 orthogonal Wood": the Water on A7 has
    only B7 left for its Wood, so the heuristic explores B7... unless a house rule puts every Wood on the
    board's edge, when the Waters' Woods must be A5 or B7, never B6."""
    import random

    from constraints.catalogue import CHAPTER_DIR, get_chapter, load_chapter
    from mapgen.engine.bots import make_bot
    from mapgen.engine.observation import observe
    from mapgen.terrain import Terrain

    path = tmp_path / "riverside.toml"
    path.write_text((CHAPTER_DIR / "fauna.toml").read_text(encoding="utf-8") + RIVERSIDE_WOOD, encoding="utf-8")
    house = load_chapter(path)
    shipped = _wood_hunt(None)
    assert shipped.game.reference == get_chapter("fauna")  # by default, the chapter's own rules
    riverside = _wood_hunt(house)
    picks, woods = [], []
    for s in (shipped, riverside):
        bot = make_bot("heuristic", random.Random(1))
        obs = observe(s, 0)
        woods.append({s.game.board.name(c): bot.belief(obs, c).get(Terrain.WOOD, 0.0) for c in s.frontier()})
        picks.append(s.action_to_string(bot.step(obs)))
    assert woods[0]["B6"] > 0 and woods[1]["B6"] == 0
    assert woods[0]["B7"] == woods[1]["B7"] > woods[0]["A5"] > 0  # C1 around the Waters, in both
    assert picks[0] != picks[1] and picks[1] in ("explore A5", "explore B7")


def test_the_heuristics_local_reasoning_reads_every_rule_kind():
    """Each shipped chapter's rule instances compile into the heuristic's local reasoning, kind by kind:
    C4 ("Exactly one Wood in every row and every column"), C6 ("No Rock on the board's outer rows or
    columns"), F1 ("A column that holds a Vine holds a Rock"), L1 ("Every Petrified Forest is exactly one
    Path in from the edge"), V2 ("No Fezron Camp is among the 8 neighbours of a Skull")."""
    from constraints.catalogue import get_chapter
    from mapgen.engine.bots.local_rules import NT, LineCounts, LocalRules
    from mapgen.terrain import Terrain as T

    def weights(chapter, seen: dict, cell: str):
        m = load({"fauna": "engine_fauna_201", "flora": "engine6_flora_201", "vameter": "engine6_vameter_201"}[chapter])
        b = m.board
        ch = get_chapter(chapter)
        local = LocalRules(ch.rules, b, m.briefing, ch.terrains)
        known = [-1] * b.size
        for name, t in seen.items():
            known[b.index(name)] = t.index
        w = [1.0] * NT
        local.apply(w, b.index(cell), known, LineCounts(known, local), [])
        return {t: w[t.index] for t in T}

    assert weights("fauna", {"D4": T.WOOD}, "D2")[T.WOOD] == 0  # C4: D4's row has its Wood
    assert weights("fauna", {}, "A3")[T.ROCK] == 0 and weights("fauna", {}, "C3")[T.ROCK] > 0  # C6
    assert weights("fauna", {"C3": T.ROCK}, "E3")[T.VINE] == 3.0 * 1.0  # F1: a Rock's column wants a Vine
    assert weights("flora", {}, "D4")[T.PETRIFIED_FOREST] == 0 and weights("flora", {}, "B4")[T.PETRIFIED_FOREST]
    assert weights("vameter", {"C3": T.SKULL}, "D4")[T.FEZRON_CAMP] == 0  # V2
    assert weights("vameter", {"C3": T.FEZRON_CAMP}, "D4")[T.SKULL] == 0


def _weighing_games(tmp_path, bot) -> list:
    """Three games of ``bot`` on a map of every chapter and on Fauna with a house rule (H1: "Every Wood is on the
    outer rows or columns"), played; the games."""

    from constraints.catalogue import CHAPTER_DIR, load_chapter

    path = tmp_path / "riverside.toml"
    path.write_text((CHAPTER_DIR / "fauna.toml").read_text(encoding="utf-8") + RIVERSIDE_WOOD, encoding="utf-8")
    games = [Game(load(name)) for name in ("engine_training_201", "engine_fauna_201", "engine6_flora_201")]
    games += [Game(load(name)) for name in ("engine6_vameter_201", "engine6_maldonado_201")]
    games.append(Game(load("engine_fauna_202"), reference=load_chapter(path)))
    for g in games:
        _play_three(g, bot)
    return games


def _play_three(game, bot) -> None:
    """Three games of ``bot`` on ``game``, seeds 0 to 2."""
    import random

    from mapgen.engine.play import play_game

    for seed in range(3):
        play_game(game.new_initial_state(), [bot(random.Random(seed))], random.Random(seed))


def test_the_heuristics_cached_weights_are_never_stale(tmp_path, monkeypatch):
    """A newly seen cell drops exactly the cached weights it can change (``LocalRules.stale``): every cached
    weight the heuristic reads equals the weights computed afresh from a full recount of the seen cells, in
    every chapter and with a house rule (H1: "Every Wood is on the outer rows or columns")."""

    from mapgen.engine.bots import heuristic
    from mapgen.engine.bots.heuristic import HeuristicBot
    from mapgen.engine.bots.local_rules import LineCounts

    monkeypatch.setattr(heuristic, "_COMPILED", False)  # the Python reading, as a short playtest plays it
    checked = []

    class Checking(HeuristicBot):
        def _expected_values(self, obs, cells, values):
            if obs.terrain is not self._known_terrain:
                self._known(obs)
            known, local = self._known_list, self._geo(obs.game).local
            for c, w in list(self._weight_cache.items()):
                kept, self._counts = self._counts, LineCounts(known, local)
                assert self._local_weights(obs, c, known) == w, obs.game.board.name(c)
                self._counts = kept
                checked.append(c)
            return super()._expected_values(obs, cells, values)

    _weighing_games(tmp_path, Checking)
    assert len(checked) > 2000


def test_the_heuristics_compiled_weights_are_its_local_reading_to_the_bit(tmp_path, monkeypatch):
    """The weights the heuristic and the deducer play on (compiled: ``mapgen/solving/bot_kernels.py``) equal, to the
    bit, the Python reading of the rules (``_local_weights`` on a full recount of the seen cells, the deducer's
    narrowing) for every cell weighed, in every chapter and with a house rule (H1: "Every Wood is on the outer rows
    or columns"); and the expected values are the Python sums, in order."""

    from mapgen.engine.bots import heuristic
    from mapgen.engine.bots.deducer import DeducerBot
    from mapgen.engine.bots.heuristic import HeuristicBot
    from mapgen.engine.bots.local_rules import LineCounts

    monkeypatch.setattr(heuristic, "_COMPILED", True)  # the compiled loops, as a long playtest plays them
    checked = []

    def check(bot, obs, cells, values, evs):
        known = bot._known(obs)  # (the seen Hills, as the Python reading takes them)
        for c, ev in zip(cells, evs):
            bot._counts = LineCounts(known, bot._geo(obs.game).local)
            w = bot._local_weights(obs, c, known)
            assert bot._weights(obs, c) == w, obs.game.board.name(c)
            assert ev == sum(map(float.__mul__, w, values))
            checked.append(c)

    class Checking(HeuristicBot):
        def _expected_values(self, obs, cells, values):
            evs = super()._expected_values(obs, cells, values)
            check(self, obs, cells, values, evs)
            return evs

    class CheckingDeducer(DeducerBot):
        def _expected_values(self, obs, cells, values):
            evs = super()._expected_values(obs, cells, values)
            check(self, obs, cells, values, evs)
            return evs

    games = _weighing_games(tmp_path, Checking)
    plain = len(checked)
    _play_three(games[1], CheckingDeducer)  # the deducer on Fauna
    assert plain > 2000
    assert len(checked) - plain > 200


def test_the_compiled_weights_read_each_cells_latest_answer(monkeypatch):
    """The compiled weights keep each answered cell's terrain mask between weighings (made again only for a cell
    whose answer is new): a cell's new answer, in a new dict or not, is the one weighed, and a cell no longer
    answered is weighed on the local rules alone, as a bot that never kept a mask weighs them."""
    import random

    from mapgen.engine.bots import heuristic
    from mapgen.engine.bots.common import NT
    from mapgen.engine.bots.deducer import DeducerBot
    from mapgen.engine.observation import observe
    from mapgen.terrain import Terrain as T

    monkeypatch.setattr(heuristic, "_COMPILED", True)
    obs = observe(settle(Game(load("engine_fauna_201")).new_initial_state()))
    cells = [c for c in range(len(obs.terrain)) if obs.terrain[c] < 0][:3]
    a, b, c = cells

    class Told(DeducerBot):
        answers: dict | None = None

        def _possible_for(self, obs):
            return self.answers

    def weights(bot, answers):
        bot.answers = answers
        return bot._kernel_weights(obs, cells).tolist()

    kept = Told(random.Random(0))
    steps = [
        {a: frozenset({T.WOOD, T.WATER}), b: frozenset({T.ROCK})},
        {a: frozenset({T.WATER}), b: frozenset({T.ROCK}), c: frozenset({T.MUD, T.WOOD})},  # a: a new answer
        {c: frozenset({T.MUD, T.WOOD})},  # a and b no longer answered
        {},
    ]
    for answers in steps:
        assert weights(kept, answers) == weights(Told(random.Random(0)), answers)
    water = [0.0] * NT
    water[T.WATER.index] = 1.0
    assert weights(kept, steps[1])[0] == water  # one terrain possible: that terrain


def test_the_heuristics_compiled_cell_values_are_its_python_reading_to_the_bit(tmp_path, monkeypatch):
    """The cell values the heuristic and the deducer choose by when compiled (weights, expected values, tolls and
    the line and neighbour bonuses in ``bot_kernels.cell_values``, the chapter policy's term after) equal, to the
    bit, the values of the Python loop over the compiled expected values (as a bot whose ``_expected_values`` is
    its own plays), and the heuristic's equal a Python-read bot's: in every chapter, with a house rule, with
    Monsters' tolls."""
    import random

    from mapgen.engine.bots import heuristic
    from mapgen.engine.bots.deducer import DeducerBot
    from mapgen.engine.bots.heuristic import HeuristicBot

    monkeypatch.setattr(heuristic, "_COMPILED", True)  # the compiled loops, as a long playtest plays them
    checked = []

    def python_loop(bot, obs, need, cells, values):  # the same bot as one with its own _expected_values
        fused = type(bot)
        own = {"_expected_values": fused._expected_values, "_cell_values": HeuristicBot._cell_values}
        bot.__class__ = type("Unfused", (fused,), own)
        try:
            return bot._cell_values(obs, need, cells, values)
        finally:
            bot.__class__ = fused

    class Checking(HeuristicBot):
        def _cell_values(self, obs, need, cells, values):
            got = super()._cell_values(obs, need, cells, values)
            assert got == python_loop(self, obs, need, cells, values), obs.game.board.name(cells[0])
            heuristic.use_compiled(False)
            try:
                assert got == HeuristicBot(random.Random(0))._cell_values(obs, need, cells, values)
            finally:
                heuristic.use_compiled(True)
            checked.extend(cells)
            return got

    class CheckingDeducer(DeducerBot):
        def _cell_values(self, obs, need, cells, values):
            got = super()._cell_values(obs, need, cells, values)
            assert got == python_loop(self, obs, need, cells, values), obs.game.board.name(cells[0])
            checked.extend(cells)
            return got

    games = _weighing_games(tmp_path, Checking)
    plain = len(checked)
    _play_three(games[1], CheckingDeducer)  # the deducer on Fauna
    assert plain > 2000
    assert len(checked) - plain > 200


def test_playtest_rules_option_gives_the_bots_a_house_rule_chapter(tmp_path):
    import json

    from click.testing import CliRunner

    from cli import main
    from constraints.catalogue import CHAPTER_DIR

    path = tmp_path / "riverside.toml"  # a rule map 201 keeps (its Hills are all on the edge), the bots reason with
    path.write_text((CHAPTER_DIR / "fauna.toml").read_text(encoding="utf-8") + RIVERSIDE_HILL, encoding="utf-8")
    fauna = str(DATA / "engine_fauna_201.toml")
    runs = [
        CliRunner().invoke(main, ["playtest", fauna, "-n", "6", "--json", *extra])
        for extra in ((), ("--rules", str(path)))
    ]
    assert all(r.exit_code == 0 for r in runs), runs[1].output
    plain, house = (json.loads(r.output) for r in runs)
    assert house["house_rules"] == "fauna" and "house_rules" not in plain
    assert plain["scores"] != house["scores"] or plain["mean_days"] != house["mean_days"]  # the bots play otherwise
    # rules the map breaks (Riverside Wood: no fauna map keeps it beside C4's Wood lines) are refused before any game,
    # naming the rule, as a map that breaks the shipped rules is
    path.write_text((CHAPTER_DIR / "fauna.toml").read_text(encoding="utf-8") + RIVERSIDE_WOOD, encoding="utf-8")
    r = CliRunner().invoke(main, ["playtest", fauna, "-n", "2", "--rules", str(path)])
    assert r.exit_code == 1 and "under the house rules of" in r.output and "H1 Riverside Wood" in r.output
    r = CliRunner().invoke(main, ["playtest", fauna, "--rules", str(CHAPTER_DIR / "training.toml")])
    assert r.exit_code == 2 and "does not fit the board of chapter training" in r.output


def test_a_playtest_plays_the_same_games_with_the_compiled_weights_as_without(monkeypatch):
    """The heuristic bots weigh cells in compiled loops where a process plays enough games to repay loading
    numba (``heuristic.COMPILED_FROM_GAMES``), else in Python: the same games either way."""
    from mapgen.engine.bots import heuristic
    from mapgen.engine.playtest import Settings, run_playtest

    m = load("engine_fauna_201")
    played = {}
    for on in (False, True):
        monkeypatch.setattr(heuristic, "_COMPILED", on)
        for bot in ("heuristic", "deducer"):
            recs = run_playtest(m, Settings(bot=bot, seed=5), 12, keep_actions=True)
            played[on, bot] = [(r.outcome, r.score, r.actions) for r in recs]
    assert played[False, "heuristic"] == played[True, "heuristic"]
    assert played[False, "deducer"] == played[True, "deducer"]
    monkeypatch.setattr(heuristic, "_COMPILED", None)
    monkeypatch.setattr(heuristic, "COMPILED_FROM_GAMES", 3)
    run_playtest(m, Settings(bot="heuristic", seed=5), 3)
    assert heuristic.compiled()  # enough games a process: compiled


def test_the_playtest_text_rounds_the_interval_once_as_grade_does():
    """One game won of one: playtest's text said "95% interval 20.6% to 100.0%" and grade's, for the same game,
    "20.7% to 100.0%": playtest printed the JSON's 4-digit rounding (0.2065) rounded again. 2,013 of the 20,300
    (wins, games) pairs up to 200 games differed so by 0.1 point. The text rounds the interval (and the shares)
    once."""
    from mapgen.engine.playtest import GameRecord, Settings, report_text, summarise, wilson

    recs = [GameRecord(0, 1, "win", 30, 3, 20, {})]
    text = report_text(summarise(recs, load("engine_fauna_201"), Settings()))
    assert "  wins         1/1 = 100.0% (95% interval 20.7% to 100.0%)" in text.splitlines()
    _, hi = wilson(0, 3)
    recs = [GameRecord(k, k, "sealed", 0, 1, 2, {}, [], {"why": "unknown"}) for k in range(3)]
    text = report_text(summarise(recs, load("engine_fauna_201"), Settings()))
    assert f"  wins         0/3 = 0.0% (95% interval 0.0% to {100 * hi:.1f}%)" in text.splitlines()
    assert f"{100 * hi:.1f}" == "56.2"


def test_the_playtest_figures_in_words_are_the_text_report_s():
    """The studio's Playtest said the losses by their JSON keys ("crew died 79") where playtest says "a Crew Member
    not saved 79", and rounded the JSON's 4-digit interval again (16.9% where playtest says 16.8%): ``report_words``,
    which the web job carries beside its result, are the text report's own words."""
    from mapgen.engine.playtest import GameRecord, Settings, report_text, report_words, summarise

    recs = [GameRecord(k, k, "win" if k < 25 else "crew_died", 30 if k < 25 else 0, 3, 20, {}) for k in range(104)]
    rep = summarise(recs, load("engine_fauna_201"), Settings())
    words = report_words(rep)
    assert words == {
        "wins": "25/104 = 24.0% (95% interval 16.8% to 33.1%)",
        "losses": "a Crew Member not saved 79",
        "causes": {"crew_died": "a Crew Member not saved"},
    }
    lines = report_text(rep).splitlines()
    assert f"  wins         {words['wins']}" in lines and f"  losses       {words['losses']}" in lines
