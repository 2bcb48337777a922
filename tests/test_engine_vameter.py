"""Vameter (expansion 2) on the engine: the rulebook's rules as tests, and random playouts.

The map is tests/data/engine6_vameter_201.toml (Peak B4):

       1   2   3   4   5   6   7
    A  Hi2 Sk  Ti  Wo  Wa  Hi0 Hi0
    B  Mf  Fo  Ro  Ro  Hi0 Wo  Wa
    C  Wo  Sk  Ti  Ro  Sk  Ti  Hi0
    D  Wa  Ro  Ro  Ro  Wo  Mf  Fo
    E  Fz  Ro  Wo  Ro  Wa  Hi1 Fo
    F  Hi2 Mu  Wa  Ro  Mu  Ti  Wo
    G  Fz  Wo  Wa  Fz  Hi2 Sk  Wa
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
from mapgen.engine import vameter as V
from mapgen.engine.bots import make_bot
from mapgen.engine.cards import MUSHROOM, WATER
from mapgen.engine.game import CHANCE_PLAYER, Game
from mapgen.engine.play import play_game, replay
from mapgen.mapfile import read_map
from mapgen.terrain import Terrain
from tests.engine_support import cell, opened, random_playout

DATA = Path(__file__).parent / "data"
MAPS = ["engine6_vameter_201", "engine6_vameter_202"]


@pytest.fixture(scope="module")
def vmap():
    return read_map(DATA / "engine6_vameter_201.toml")


def settle(state, move=None):
    """Run pending automatic steps, answer chance nodes with the lowest card (Move tokens by ``move``)."""
    state._advance()
    state._legal = None
    while state.current_player() == CHANCE_PLAYER:
        pile = state._chance_pile()
        pick = min(pile)
        if state.agenda[-1] == ("chance_chapter", "move") and move is not None:
            pick = next(k for k in pile if V.MOVE_TOKENS[k] == move)
        state.apply_action(A.CHANCE + pick)
    return state


def start(m, **kw):
    kw.setdefault("characters", ("Clark",))
    kw.setdefault("gear", (("Flint", "Jar", "Satchel"),))
    return settle(Game(m, **kw).new_initial_state())


def explore(state, name, move=None):
    state.apply_action(A.EXPLORE + cell(state, name))
    return settle(state, move)


def answer(state, action):
    state.apply_action(action)
    return settle(state)


def vam_at(state, name, facing=1):
    state.data["vam"], state.data["dir"] = cell(state, name), facing
    state._legal = None


def test_first_fezron_camp_spawns_the_vameter_on_the_peak_facing_east(vmap):
    s = start(vmap)
    opened(s, "F1")
    explore(s, "G1")  # a Fezron Camp
    answer(s, A.SKIP)  # no Crew placed
    assert s.data["fezron"] == 1 and s.data["vam"] == cell(s, "B4") and s.data["dir"] == 1
    assert s.slots() == 0  # Fezron is no Resource
    # the Vameter's Path cannot be explored
    opened(s, "B5")
    assert cell(s, "B4") not in s.frontier()


def test_spawn_on_the_nearest_unexplored_path_when_the_peak_is_explored(vmap):
    s = start(vmap)
    opened(s, "B4", "F1")
    explore(s, "G1")
    assert s.data["vam"] in {cell(s, n) for n in ("A3", "A4", "A5", "B3", "B5", "C3", "C4", "C5")}


def test_vameter_moves_over_explored_paths_and_turns_clockwise(vmap):
    """Rulebook: it counts only Unexplored Paths, jumps Explored ones, and turns 90 degrees clockwise."""
    s = start(vmap)
    ch = s.game.chapter
    vam_at(s, "B4")
    opened(s, "B5")
    ch.move_vameter(s, 2)  # B5 is jumped: B6 is 1, B7 is 2
    assert s.data["vam"] == cell(s, "B7") and s.data["dir"] == 1
    ch.move_vameter(s, 1)  # nothing East of B7: turn to face South, C7
    assert s.data["vam"] == cell(s, "C7") and s.data["dir"] == 2
    opened(s, "D7", "E7")
    ch.move_vameter(s, 1)  # South: D7 and E7 jumped, F7
    assert s.data["vam"] == cell(s, "F7")


def test_a_pinned_vameter_does_not_move_but_can_be_shot(vmap):
    s = start(vmap)
    ch = s.game.chapter
    b = s.game.board
    opened(s, *[b.name(i) for i in range(b.size) if b.name(i) != "D4"])
    vam_at(s, "D4")
    s.data["crew"][2] = cell(s, "D7")  # range 4, in line
    ch.move_vameter(s, 3)
    assert s.data["vam"] == cell(s, "D4")
    settle(s)
    assert s.data["hearts"] == 4


def test_vameter_kills_the_crew_around_where_it_stops_and_the_crew_in_line_fire(vmap):
    s = start(vmap)
    ch = s.game.chapter
    vam_at(s, "B4")
    s.data["crew"] = [cell(s, "C7"), cell(s, "D7"), cell(s, "F4")]  # ranges 2, 3, 4
    opened(s, "C7", "D7", "F4", "B5")
    ch.move_vameter(s, 2)  # to B7: C7 (Crew 2) is beside it and dies
    assert s.data["crew"][0] == V.DEAD
    settle(s)
    # Crew 3 on D7 is 2 Paths below B7 (range 3): it fires; Crew 4 on F4 is in no line with it
    assert s.data["hearts"] == 4 and s.data["crew"][1] == cell(s, "D7") and s.data["crew"][2] == cell(s, "F4")


def test_crew_shoot_the_first_target_in_line_not_over_it(vmap):
    s = start(vmap)
    ch = s.game.chapter
    g = s.game
    vam_at(s, "A7")
    cyc = next(k for k, c in enumerate(g.threats) if c.kind == "cyclops")
    s.th_pile.remove(cyc)
    s.threats.append(cyc)
    s.monsters[cell(s, "C7")] = cyc
    s.data["crew"][2] = cell(s, "E7")  # range 4: the Cyclops on C7 stands before the Vameter on A7
    assert ch.line_targets(s, 2) == [cell(s, "C7")]
    s.data["crew"][0] = cell(s, "A5")  # range 2: only the Vameter is in its lines
    assert ch.line_targets(s, 0) == [cell(s, "A7")]
    s.data["crew"][1] = cell(s, "A3")  # range 3: A7 is 4 away
    assert ch.line_targets(s, 1) == []
    # two targets in two lines: the players choose
    s.data["crew"][2] = cell(s, "C5")
    s.data["range"][2] = 2
    vam_at(s, "A5")
    assert ch.line_targets(s, 2) == [cell(s, "A5"), cell(s, "C7")]
    s.push(("chapter", "fire", 2))
    s._legal = None
    assert s.legal_actions() == [V.TARGET + cell(s, "A5"), V.TARGET + cell(s, "C7")]
    s.apply_action(V.TARGET + cell(s, "C7"))
    assert not s.monsters and cyc not in s.threats and s.data["cyclops_out"] == 1


def test_sacrificing_a_fezron_shoots_and_the_crew_waits_for_the_end_of_day(vmap):
    s = start(vmap)
    vam_at(s, "A7")
    s.data["fezron"] = 1
    s.data["crew"][0] = cell(s, "A5")
    s._legal = None
    assert V.SACRIFICE + 0 in s.legal_actions()
    s.apply_action(V.SACRIFICE + 0)
    assert s.data["hearts"] == 4 and s.data["fezron"] == 0 and s.data["crew"][0] == V.PASS
    # at End of Day the Pass space's Crew come back to the supply
    s.game.chapter.night_steps(s)
    assert s.data["crew"][0] == V.SUPPLY


def test_shooting_the_vameter_removes_hunting_grounds(vmap):
    s = start(vmap)
    g = s.game
    hunt = next(k for k, c in enumerate(g.threats) if c.kind == "misfortune")
    s.th_pile.remove(hunt)
    s.threats.append(hunt)
    ch = g.chapter
    # Hunting Grounds: 1 extra Water to Pass
    arch = s.challenge(0)
    s.pack[WATER] = arch.requires[WATER]
    s.pack[1] = 5
    assert not s.can_pass()
    s.pack[WATER] += 1
    assert s.can_pass()
    vam_at(s, "A7")
    ch.shoot(s, cell(s, "A7"))
    assert hunt not in s.threats and s.data["hearts"] == 4


def test_vulnerable_vameter_surrounded_wins_with_five_points_a_fezron(vmap):
    s = start(vmap)
    vam_at(s, "A7")
    s.data["hearts"] = 0
    s.data["fezron"] = 2
    opened(s, "A6", "B6")
    assert not s.is_terminal()
    explore(s, "B7")  # the last of A7's Paths: won at once, before any Crew is placed
    assert s.outcome == "win"
    assert s.score >= 10  # 5 per Fezron still held, plus the Challenge cards left


def test_cyclops_tax_and_move_after_a_consequence(vmap):
    s = start(vmap)
    g = s.game
    cyc = next(k for k, c in enumerate(g.threats) if c.kind == "cyclops")
    s.th_pile.remove(cyc)
    s.threats.append(cyc)
    opened(s, "E7", "D6")
    s.monsters[cell(s, "E7")] = cyc
    assert s.monster_tax(cell(s, "D7")) == 1  # among the 8 Paths around it
    assert s.monster_tax(cell(s, "C7")) == 0
    # after a Consequence it moves to the closest Unexplored Path and explores it
    before = s.n_explored
    g.chapter.on_resolved(s, s.challenge(0), False)
    s.push(*g.chapter.after_resolve_steps(s))  # the Consequence, after the card's effects and Fatigue
    s._legal = None
    if s.agenda[-1][:2] == ("chapter", "cyclops"):
        la = s.legal_actions()
        assert all(la_cell - V.DEST in {cell(s, n) for n in ("D7", "E6", "F6", "F7")} for la_cell in la)
        s.apply_action(la[0])
    settle(s)
    (where,) = list(s.monsters)
    assert where != cell(s, "E7") and s.explored[where] and s.n_explored == before + 1
    assert max(abs(g.row_of[where] - 4), abs(g.col_of[where] - 6)) == 1


def test_row_reward_moves_a_crew_up_to_three_explored_paths(vmap):
    s = start(vmap)
    opened(s, "G2", "G3", "G4", "G5", "G6", "G7", "F1")
    s.data["crew"][1] = cell(s, "G4")
    explore(s, "G1")  # completes row G (a Fezron Camp: the Vameter spawns too)
    if s.agenda[-1][:2] == ("chapter", "place"):
        answer(s, A.SKIP)
    assert s.agenda[-1][:2] == ("chapter", "row_pick")
    answer(s, V.ROW_PICK + 1)
    la = s.legal_actions()
    dests = {a - V.DEST for a in la}
    assert cell(s, "G7") in dests and cell(s, "G1") in dests and cell(s, "F1") not in dests  # F1 is 4 steps
    answer(s, V.DEST + cell(s, "G7"))
    assert s.data["crew"][1] == cell(s, "G7")


def test_crew_placed_after_exploring_and_a_challenge_can_kill_one(vmap):
    s = start(vmap)
    explore(s, "E7")
    assert s.agenda[-1] == ("chapter", "place", cell(s, "E7"))
    answer(s, V.PLACE + 2)
    assert s.data["crew"][2] == cell(s, "E7")
    s.game.chapter.run_effect(
        s, __import__("mapgen.engine.cards", fromlist=["parse_effect"]).parse_effect("lose 1 crew")
    )
    s._legal = None
    assert s.legal_actions() == [V.LOSE_CREW + 0, V.LOSE_CREW + 1, V.LOSE_CREW + 2]
    answer(s, V.LOSE_CREW + 2)
    assert s.data["crew"][2] == V.DEAD


def test_mushroom_field_and_water_moves_the_vameter(vmap):
    s = start(vmap)
    opened(s, "B2")
    explore(s, "B1")
    answer(s, A.SKIP)
    assert s.pack[MUSHROOM] == 1
    vam_at(s, "A4")
    s.apply_action(A.END_TURN)
    settle(s)
    opened(s, "C1")
    s.apply_action(A.EXPLORE + cell(s, "D1"))  # Water
    assert s.agenda[-1][:2] == ("chapter", "place")
    s.apply_action(A.SKIP)
    assert s.agenda[-1] == ("chance_chapter", "move")
    settle(s, move=1)
    assert s.data["vam"] == cell(s, "A5")


def test_irene_pipe_hawks_dowsing_rod(vmap):
    s = start(vmap, characters=("Irene",), gear=(("Pipe Hawks", "Dowsing Rod", "Flint"),))
    g = s.game
    cyc = next(k for k, c in enumerate(g.threats) if c.kind == "cyclops")
    s.th_pile.remove(cyc)
    s.threats.append(cyc)
    opened(s, "E7")
    s.monsters[cell(s, "E7")] = cyc
    s._legal = None
    assert V.IRENE in s.legal_actions()
    answer(s, V.IRENE)
    answer(s, V.DEST + cell(s, "D6"))
    assert list(s.monsters) == [cell(s, "D6")] and "Irene" in s.exhausted
    # Dowsing Rod: a right guess takes a Resource of an adjacent Explored Path (E7 is Food)
    answer(s, V.DOWSE + Terrain.WOOD.index)
    explore(s, "F7")  # Wood, beside E7 (Food)
    if s.agenda[-1][:2] == ("chapter", "place"):
        answer(s, A.SKIP)
    assert s.pack[0] == 1 and s.pack[1] == 1  # Wood found, Food from E7
    # Pipe Hawks: another explore, its Path token discarded; +3 only if kept
    tokens = s.row[0][1]
    answer(s, V.PIPE_HAWKS)
    assert "Pipe Hawks" not in s.gear[0]
    explore(s, "G7")
    if s.agenda[-1][:2] == ("chapter", "place"):
        answer(s, A.SKIP)
    assert s.row[0][1] == tokens
    assert g.chapter.score_bonus(s) == 0


def test_vameter_destiny_cards(vmap):
    s = start(vmap)
    g = s.game
    names = [c.name for c in g.destiny if c.chapter == "vameter"]
    assert names == ["Scope", "Fezron Guide", "Monster Claws", "Air Rifle Shot"]
    scope = next(k for k, c in enumerate(g.destiny) if c.name == "Scope")
    s.de_pile.remove(scope) if scope in s.de_pile else s.de_face.remove(scope)
    s.de_held.append(scope)
    s._legal = None
    answer(s, A.USE_DESTINY + s.de_held.index(scope))
    answer(s, V.RANGE_TO + 0)
    assert s.data["range"] == [4, 3, 4]


def check_vameter_invariants(s):
    g, d = s.game, s.data
    assert min(s.pack) >= 0 and 0 <= s.fires <= 3
    assert s.n_explored == sum(e[1] for e in s.row) + s.tokens_out == sum(s.explored)
    assert len(s.ch_pile) + sum(1 for e in s.row if e[0] >= 0) + s.resolved == len(g.challenges)
    assert len(s.th_pile) + len(s.th_bottom) + len(s.th_discard) + len(s.threats) + d["cyclops_out"] == len(g.threats)
    assert all(k in s.threats and g.threats[k].kind == "cyclops" for k in s.monsters.values())
    assert 0 <= d["hearts"] <= 5 and 0 <= d["fezron"] <= 4  # spent Fezron go back to the Reserve (issue 12)
    if d["vam"] >= 0:
        assert not s.explored[d["vam"]] and d["vam"] not in s.monsters
    crew_cells = [c for c in d["crew"] if c >= 0]
    assert len(set(crew_cells)) == len(crew_cells) and all(s.explored[c] for c in crew_cells)
    assert sorted(d["move_pile"] + d["move_face"]) == list(range(len(V.MOVE_TOKENS)))
    if s.outcome == "win":
        assert d["hearts"] == 0 and g.chapter.surrounded(s)


@pytest.mark.parametrize("name", MAPS)
@pytest.mark.parametrize("players", [1, 2])
def test_random_playouts_keep_vameter_invariants(name, players):
    gear = None if players == 1 else (("Pipe Hawks", "Dowsing Rod"), ("Flint", "Compass"))
    chars = None if players == 1 else ("Irene", "Clark")
    g = Game(read_map(DATA / f"{name}.toml"), players=players, characters=chars, gear=gear)
    for seed in range(10):
        random_playout(g, seed, check_vameter_invariants)


@pytest.mark.parametrize("bot", ["heuristic", "clairvoyant"])
def test_bots_finish_vameter_games_and_replay(bot, vmap):
    g = Game(vmap)
    won = 0
    for seed in range(12):
        s = g.new_initial_state()
        play_game(s, [make_bot(bot, random.Random(seed), map=s.game.map)], random.Random(seed))
        check_vameter_invariants(s)
        won += s.won()
        if seed < 4:
            again = replay(g, s.history)
            assert again.outcome == s.outcome and str(again) == str(s)
    assert won >= 1  # the Vameter can be shot five times and surrounded


SHIPPED = maps.names("vameter")  # flat files or the graded library's vameter/ folder
CONTRACT = {"games", "wins", "win_rate", "win_rate_ci", "mean_score", "losses", "mean_days"}


@pytest.mark.parametrize("name", SHIPPED or ["engine6_vameter_201"])
def test_playtest_json_on_every_shipped_vameter_map(name):
    spec = name if SHIPPED else str(DATA / f"{name}.toml")
    r = CliRunner().invoke(main, ["playtest", spec, "--games", "3", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert CONTRACT <= set(rep) and rep["chapter"] == "vameter" and rep["games"] == 3
    assert sum(rep["losses"].values()) + rep["sealed"] + rep["wins"] == 3  # issue 12: sealed games are no loss


def test_clark_swaps_in_the_dowsing_rod_but_never_pipe_hawks(vmap):
    """Clark: 'Swap 1 Gear from Reserve'; Pipe Hawks: 'This Gear cannot be swapped in using Clark's ability.'"""
    s = start(vmap)
    kinds = s.game.chapter.gear_kinds()
    assert "Dowsing Rod" in s.reserve and "Pipe Hawks" in s.reserve
    clark = [a for a in s.legal_actions() if A.CLARK <= a < A.BACKTRACK]
    swapped_in = {kinds[(a - A.CLARK) % 10] for a in clark}
    assert "Dowsing Rod" in swapped_in and "Pipe Hawks" not in swapped_in and "Box of Goods" not in swapped_in
    a = A.CLARK + 10 * 2 + kinds.index("Dowsing Rod")  # the Satchel goes to the Reserve
    assert s.action_to_string(a) == "Clark: swap gear 3 for Dowsing Rod"
    answer(s, a)
    assert s.gear[0] == ["Flint", "Jar", "Dowsing Rod"] and "Satchel" in s.reserve and "Dowsing Rod" not in s.reserve
    # the Dowsing Rod now works: its guess is a free action before exploring
    assert any(V.DOWSE <= x < V.DOWSE + 20 for x in s.legal_actions())


def test_clark_never_swaps_pipe_hawks_out(vmap):
    s = start(vmap, gear=(("Pipe Hawks", "Jar", "Satchel"),))
    clark = [a for a in s.legal_actions() if A.CLARK <= a < A.BACKTRACK]
    assert clark and all((a - A.CLARK) // 10 != 0 for a in clark)


def _irene_with_a_cyclops_on(vmap, where):
    s = start(vmap, characters=("Irene",))
    cyc = next(k for k, c in enumerate(s.game.threats) if c.kind == "cyclops")
    s.th_pile.remove(cyc)
    s.threats.append(cyc)
    opened(s, "E7")
    s.monsters[cell(s, where)] = cyc
    s.pack[:] = [0] * len(s.pack)  # nothing to pay a Cyclops' toll with
    s._legal = None
    return s


def test_heuristic_irene_moves_a_cyclops_that_tolls_every_path_it_can_explore(vmap):
    """Irene: 'EXHAUST: Move a Monster to an adjacent Path.' A Cyclops on E6 tolls D7 and F7 (its 8 Paths)
    and its own Path cannot be explored: with nothing to pay, the bot moves it, then explores for free."""
    s = _irene_with_a_cyclops_on(vmap, "E6")
    assert not [a for a in s.legal_actions() if a < A.DISCARD]
    bot = make_bot("heuristic", random.Random(1))
    assert bot.step(s.observation()) == V.IRENE
    answer(s, V.IRENE)
    assert s.agenda[-1] == ("chapter", "irene", cell(s, "E6"))
    answer(s, bot.step(s.observation()))
    (moved,) = s.monsters
    assert moved != cell(s, "E6") and "Irene" in s.exhausted
    a = bot.step(s.observation())
    assert a < A.DISCARD and s.monster_tax(a) == 0  # an explore with no toll


def test_heuristic_keeps_irene_when_no_monster_is_in_the_way(vmap):
    s = _irene_with_a_cyclops_on(vmap, "A2")
    assert V.IRENE in s.legal_actions()
    bot = make_bot("heuristic", random.Random(1))
    assert bot.step(s.observation()) != V.IRENE
