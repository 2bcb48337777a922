"""Flora (core rulebook, chapter 2) on the engine: the rulebook's rules as tests, and random playouts.

The map is tests/data/engine6_flora_201.toml (start F7, Greek Fire C2, Peak B4):

       1   2   3   4   5   6   7
    A  Wa  Wo  Wa  Mu  Sk  Ti  Hi1
    B  Wo  Sa  Wa  Ro  Ro  Ro  Fo
    C  Fc  Fi  Wo  Mu  Hi2 Ro  Fc
    D  Fc  Fo  Fi  Wa  Wo  Ro  Wa
    E  Sk  Pf  Ti  Mu  Ro  Ro  Wo
    F  Ti  Pf  Sk  Wo  Sk  Ti  Ft
    G  Sk  Fo  Fc  Wa  Wa  Wo  Fo
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import maps
from cli import main
from mapgen.engine import actions as A
from mapgen.engine import flora as F
from mapgen.engine.bots import make_bot
from mapgen.engine.cards import FOOD, FOSSIL, MUD, ROCK, WATER, WOOD
from mapgen.engine.game import CHANCE_PLAYER, Game
from mapgen.engine.play import play_game, replay
from mapgen.mapfile import read_map
from mapgen.terrain import Terrain
from tests.engine_support import cell, opened, random_playout

DATA = Path(__file__).parent / "data"
MAPS = ["engine6_flora_201", "engine6_flora_202"]


@pytest.fixture(scope="module")
def flora_map():
    return read_map(DATA / "engine6_flora_201.toml")


def settle(state, *prefer):
    """Answer chance nodes: the first preferred card (by name) still in its deck, else the lowest."""
    g = state.game
    while state.current_player() == CHANCE_PLAYER:
        step = state.agenda[-1]
        cards = {
            "chance_challenge": g.challenges,
            "chance_threat": g.threats,
            "chance_destiny": g.destiny,
            "chance_held": g.destiny,
            "chance_chapter": g.chapter.search,
        }[step[0]]
        pile = state._chance_pile()
        want = [k for n in prefer for k, c in enumerate(cards) if c.name == n]
        pick = next((k for k in want if k in pile), min(pile))
        state.apply_action(A.CHANCE + pick)
    return state


def start(m, *prefer, **kw):
    kw.setdefault("characters", ("Clark",))
    kw.setdefault("gear", (("Flint", "Jar", "Satchel"),))
    return settle(Game(m, **kw).new_initial_state(), *prefer)


def explore(state, name, *prefer):
    state.apply_action(A.EXPLORE + cell(state, name))
    return settle(state, *prefer)


TRAIL = ("Riverbank", "Stone Garden", "Thicket")  # Wa Fc | Pf Ro | Wo Fc ; backs Fo Wo | Ro Mu | Wo Pf


def test_setup_start_fort_one_fire_trail_of_three_and_greek_fire(flora_map):
    s = start(flora_map, *TRAIL)
    ch = s.game.chapter
    assert [ch.search[k].name for k in s.data["trail"]] == list(TRAIL)
    # the other Search cards leave the game: "7 Search Cards", one of them the Giant Plant, 3 dealt (issue 22)
    assert len(s.data["search_pile"]) == 3
    assert s.explored[cell(s, "F7")] and s.n_explored == 1 and s.tokens_out == 1
    assert s.fires == 1 and s.data["crew"] == 4 and s.data["pos"] == 0
    assert ch.next_icon(s) is Terrain.WATER
    # the first exploration continues from the start Fort
    assert sorted(a for a in s.legal_actions() if a < A.DISCARD) == sorted(cell(s, n) for n in ("E7", "G7", "F6"))


def test_trail_advances_on_the_next_terrain_only(flora_map):
    s = start(flora_map, *TRAIL)
    explore(s, "E7")  # Wood: not next (Water is)
    assert s.data["pos"] == 0 and s.pack[WOOD] == 1
    s.apply_action(A.END_TURN)
    settle(s)
    explore(s, "D7")  # Water: next on the Trail
    assert s.data["pos"] == 1 and s.game.chapter.next_icon(s) is Terrain.FLORA_CREATURE


def test_flora_met_with_fire_is_killed_and_advances(flora_map):
    s = start(flora_map, *TRAIL)
    opened(s, "E7", "D7")
    s.data["pos"] = 1  # next on the Trail: a Flora creature
    explore(s, "C7")
    assert s.agenda[-1] == ("chapter", "flora", cell(s, "C7"))
    assert s.legal_actions() == [F.BURN, F.SPARE]
    s.apply_action(F.BURN)
    assert s.fires == 0 and s.data["dead"] == 1 and s.data["pos"] == 2 and s.data["crew"] == 4
    # S is on the last icon of the first Search card; moving off it shows its back
    assert s.data["ringed"] == [] and s.game.chapter.flipped(s) == 0
    s.game.chapter.advance(s)
    assert s.game.chapter.flipped(s) == 1


def test_flora_met_without_fire_costs_a_crew_token_and_red_circles_the_path(flora_map):
    s = start(flora_map, *TRAIL)
    opened(s, "E7", "D7")
    s.fires = 0
    before = list(s.pack)
    explore(s, "C7")
    assert s.legal_actions() == [F.SPARE]  # no Fire to discard
    s.apply_action(F.SPARE)
    assert s.data["crew"] == 3 and s.data["ringed"] == [cell(s, "C7")] and s.data["pos"] == 0
    assert s.pack == before  # not activated: nothing gained
    s.apply_action(A.END_TURN)
    settle(s)
    # no Path can be explored from the red-circled one (B7 only touches C7 and the Rock B6)
    assert cell(s, "B7") not in s.frontier() and cell(s, "C6") not in s.frontier()
    # later, a built Fire kills it and the way opens
    s.fires = 1
    assert F.KILL_RING + cell(s, "C7") in s.legal_actions()
    s.apply_action(F.KILL_RING + cell(s, "C7"))
    assert s.fires == 0 and s.data["ringed"] == [] and cell(s, "B7") in s.frontier()


def test_choosing_to_keep_the_fire_also_costs_a_crew(flora_map):
    s = start(flora_map, *TRAIL)
    opened(s, "E7", "D7")
    s.data["pos"] = 1
    explore(s, "C7")
    s.apply_action(F.SPARE)
    assert s.fires == 1 and s.data["crew"] == 3 and s.data["pos"] == 1


def test_losing_every_crew_token_loses_the_game(flora_map):
    s = start(flora_map, *TRAIL)
    opened(s, "E7", "D7")
    s.fires = 0
    s.data["crew"] = 0
    explore(s, "C7")
    s.apply_action(F.SPARE)
    assert s.outcome == "crew_lost" and s.is_terminal()


def test_row_reward_moves_s_unless_the_next_is_flora(flora_map):
    s = start(flora_map, *TRAIL)
    g = s.game
    row_g = ["G1", "G2", "G3", "G4", "G5", "G6", "G7"]
    opened(s, *row_g[1:])
    # G1 is the last of row G: S moves on from before the Trail onto Water
    opened(s, "F1")
    explore(s, "G1")
    assert s.data["pos"] == 1
    # next is a Flora creature: a completed row does not move S
    s2 = start(flora_map, *TRAIL)
    s2.data["pos"] = 1
    opened(s2, *row_g[1:], "F1")
    explore(s2, "G1")
    assert s2.data["pos"] == 1
    assert g.chapter.next_icon(s2) is Terrain.FLORA_CREATURE


def test_petrified_forest_gives_a_fossil_and_sacagawea_removes_minotaurs(flora_map):
    s = start(flora_map, *TRAIL)
    opened(s, "E3")
    explore(s, "E2")
    assert s.pack[FOSSIL] == 1
    s = start(flora_map, *TRAIL, variants=("flora-minotaurs",))  # the variant whose Threat deck holds Minotaurs
    g = s.game
    mino = next(k for k, c in enumerate(g.threats) if c.monster)
    s.th_pile.remove(mino)
    s.threats.append(mino)
    s.monsters[cell(s, "F7")] = mino
    opened(s, "C2", "C3")
    explore(s, "B2")
    assert s.monsters == {} and s.data["sacagawea"] and s.data["removed"] == 1
    # a Minotaur drawn later is killed at once
    mino2 = next(k for k in s.th_pile if g.threats[k].monster)
    s.th_pile.remove(mino2)
    s.threats.append(mino2)  # as the core does when a Threat card is drawn
    g.chapter.place_monster(s, mino2, "night", -1)
    assert s.monsters == {} and mino2 not in s.threats and s.data["removed"] == 2


def test_greek_fire_takes_a_space_and_the_fight_needs_what_crew_do_not_cover(flora_map):
    s = start(flora_map, *TRAIL)
    ch = s.game.chapter
    n = len(ch.icons(s))
    s.data["pos"] = n  # S on the last icon of the third Search card
    opened(s, "D2", "D3")
    slots = s.slots()
    explore(s, "C2")  # the Greek Fire's Path: the fight begins
    assert s.data["greek_fire"] and s.slots() == slots + 1
    assert s.data["fight"] and s.data["pos"] == n + 1
    assert ch.back_items(s) == [FOOD, WOOD, ROCK, MUD, WOOD, FOSSIL]
    # four Crew tokens cover four of the six items
    for item in (0, 1, 2, 3):
        assert s.agenda[-1] == ("chapter", "cover")
        s.apply_action(F.COVER + item)
    assert ch.missing(s) == [WOOD, FOSSIL] or sorted(ch.missing(s)) == sorted([WOOD, FOSSIL])
    assert not s.is_terminal()
    # losing a Crew token during the fight uncovers its item
    ch.lose_crew(s)
    assert s.agenda[-1] == ("chapter", "uncover")
    s.apply_action(F.UNCOVER + 2)
    assert sorted(ch.missing(s)) == sorted([ROCK, WOOD, FOSSIL])
    # holding what is still visible wins at once
    s.pack[WOOD] = 1
    s.pack[FOSSIL] = 1
    s.pack[ROCK] = 1
    s.apply_action(A.DISCARD + FOOD) if s.pack[FOOD] else s.apply_action(A.END_TURN)
    assert s.outcome == "win" and s.score > 0


def test_no_fight_without_the_greek_fire(flora_map):
    s = start(flora_map, "Riverbank", "Stone Garden", "Guide's Trail")  # the Trail ends Mu Wa
    ch = s.game.chapter
    s.data["pos"] = len(ch.icons(s)) - 1
    opened(s, "D5")
    explore(s, "D4")  # Water: S on the last icon, but no Greek Fire yet
    assert s.data["pos"] == len(ch.icons(s)) and not s.data["fight"]
    s.data["greek_fire"] = False


def test_mme_boniface_takes_water_for_wood(flora_map):
    s = start(flora_map, *TRAIL, characters=("Mme. Boniface",))
    explore(s, "E7")  # Wood
    assert s.agenda[-1] == ("chapter", "boniface", WOOD)
    water = s.pack[WATER]
    s.apply_action(F.BONIFACE_WATER)
    assert s.pack[WOOD] == 0 and s.pack[WATER] == water + 1


def check_flora_invariants(s):
    g, d = s.game, s.data
    assert min(s.pack) >= 0 and 0 <= s.fires <= 3
    assert s.n_explored == sum(e[1] for e in s.row) + s.tokens_out == sum(s.explored)
    assert len(s.ch_pile) + sum(1 for e in s.row if e[0] >= 0) + s.resolved == len(g.challenges)
    assert len(s.th_pile) + len(s.th_bottom) + len(s.th_discard) + len(s.threats) + d["removed"] == len(g.threats)
    assert 0 <= d["crew"] <= 4 and 0 <= d["pos"] <= len(g.chapter.icons(s)) + 1
    assert d["fight"] == (d["pos"] == len(g.chapter.icons(s)) + 1 and len(d["trail"]) == 3)
    assert not d["fight"] or d["greek_fire"]
    assert s.extra_slots == int(d["greek_fire"])
    assert all(s.explored[c] and g.cells[c] is Terrain.FLORA_CREATURE for c in d["ringed"])
    assert len(d["covered"]) <= d["crew"] and len(set(d["covered"])) == len(d["covered"])
    if d["sacagawea"]:
        assert not s.monsters
    assert d["dead"] + len(d["ringed"]) <= 8
    if s.outcome == "win":
        assert d["fight"] and not g.chapter.missing(s)


@pytest.mark.parametrize("name", MAPS)
@pytest.mark.parametrize("players", [1, 3])
def test_random_playouts_keep_flora_invariants(name, players):
    g = Game(read_map(DATA / f"{name}.toml"), players=players)
    for seed in range(10):
        random_playout(g, seed, check_flora_invariants)


@pytest.mark.parametrize("bot", ["heuristic", "clairvoyant"])
def test_bots_finish_flora_games_and_replay(bot):
    g = Game(read_map(DATA / "engine6_flora_202.toml"), players=2)
    outcomes = set()
    for seed in range(6):
        s = g.new_initial_state()
        play_game(
            s,
            [
                make_bot(bot, random.Random(seed), map=s.game.map),
                make_bot(bot, random.Random(seed + 9), map=s.game.map),
            ],
            random.Random(seed),
        )
        check_flora_invariants(s)
        outcomes.add(s.outcome)
        again = replay(g, s.history)
        assert again.outcome == s.outcome and str(again) == str(s)
    assert outcomes


def test_clairvoyant_wins_flora_often(flora_map):
    g = Game(flora_map)
    wins = 0
    for seed in range(12):
        s = g.new_initial_state()
        play_game(s, [make_bot("clairvoyant", random.Random(seed), map=s.game.map)], random.Random(seed))
        wins += s.won()
    assert wins >= 6


SHIPPED = maps.names("flora")  # flat files or the graded library's flora/ folder
CONTRACT = {"games", "wins", "win_rate", "win_rate_ci", "mean_score", "losses", "mean_days"}


@pytest.mark.parametrize("name", SHIPPED or ["engine6_flora_201"])
def test_playtest_json_on_every_shipped_flora_map(name):
    spec = name if SHIPPED else str(DATA / f"{name}.toml")
    r = CliRunner().invoke(main, ["playtest", spec, "--games", "3", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert CONTRACT <= set(rep) and rep["chapter"] == "flora" and rep["games"] == 3
    assert sum(rep["losses"].values()) + rep["sealed"] + rep["wins"] == 3  # issue 12: sealed games are no loss


def test_typed_in_search_cards_replace_the_designed_ones(tmp_path, flora_map):
    from mapgen.engine.cards import CardError

    f = tmp_path / "printed.toml"
    f.write_text(
        "\n".join(f'[[search]]\nname = "Card {k}"\ntrail = ["Wa", "Wo"]\nback = ["Fo", "fire"]\n' for k in range(3)),
        encoding="utf-8",
    )
    cards = F.load_search_cards(f)
    assert [c.name for c in cards] == ["Card 0", "Card 1", "Card 2"] and not cards[0].approximate
    s = settle(Game(flora_map, chapter=F.Flora(cards)).new_initial_state())
    assert s.game.chapter.icons(s) == [Terrain.WATER, Terrain.WOOD] * 3
    f.write_text('[[search]]\nname = "Bad"\ntrail = ["Qq"]\nback = ["Fo"]\n', encoding="utf-8")
    with pytest.raises(CardError, match="Bad"):
        F.load_search_cards(f)


def test_greek_fire_is_taken_when_a_tracking_guide_guess_skips_the_activation(flora_map):
    """'To acquire Greek Fire, simply Explore the Path that has the Greek Fire Token on it': a right
    Tracking Guide guess discards the Path token and skips the activation, but the Path is Explored."""
    s = start(flora_map, *TRAIL, gear=(("Tracking Guide", "Jar", "Satchel"),))
    opened(s, "D2", "D3")
    assert s.game.cells[cell(s, "C2")] is Terrain.FIELD and not s.data["greek_fire"]
    slots = s.slots()
    s.apply_action(A.GUESS + 20 * 1 + Terrain.FIELD.index)  # Tracking Guide: "Field"
    explore(s, "C2")
    assert s.explored[cell(s, "C2")] and not s.explored_now  # the right guess: explore again
    assert s.data["greek_fire"] and s.slots() == slots + 1
