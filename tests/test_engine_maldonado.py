"""Maldonado (expansion 3) on the engine: co-operative and Hidden Traitor modes, rulebook examples, playouts.

The map is tests/data/engine6_maldonado_201.toml (Peak C4, start column 7):

       1   2   3   4   5   6   7
    A  Hi2 Wa  Wo  Ma  Wa  Hi2 Ma
    B  Fi  Fo  Hi1 Fo  Wo  Fi  Fo
    C  Wo  Sk  Ti  Ro  Sk  Ti  Fi
    D  Wa  Mu  Ro  Ro  Hi0 Hi0 Wo
    E  Hi1 Wo  Ma  Ro  Ro  Mu  Wa
    F  Hi0 Wa  Fo  Wa  Mu  Wo  Wa
    G  Sk  Ti  Hi1 Wo  Hi0 Wa  Hi1

Crew Members (mapgen/engine/cards/maldonado.toml): 0 Rock, 1 Food, 2 Wood, 3 Mud, 4 Skull.
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
from mapgen.engine import maldonado as M
from mapgen.engine.bots import make_bot
from mapgen.engine.cards import FOOD, MUD, ROCK, WATER, WOOD
from mapgen.engine.game import Game, GameError
from mapgen.engine.play import play_game, replay
from mapgen.engine.traitor import MaldonadoTraitor
from mapgen.mapfile import read_map
from tests.engine_support import cell, opened, settle
from tests.engine_support import random_playout as shared_playout

DATA = Path(__file__).parent / "data"
MAPS = ["engine6_maldonado_201", "engine6_maldonado_202"]
ROCK_CREW, FOOD_CREW = 0, 1


@pytest.fixture(scope="module")
def mmap():
    return read_map(DATA / "engine6_maldonado_201.toml")


def start(m, traitor=False, **kw):
    kw.setdefault("characters", ("Clark",) if kw.get("players", 1) == 1 else None)
    kw.setdefault("gear", (("Flint", "Jar", "Satchel"),) if kw.get("players", 1) == 1 else None)
    chapter = MaldonadoTraitor() if traitor else None
    return settle(Game(m, chapter=chapter, **kw).new_initial_state())


def explore(state, name):
    state.apply_action(A.EXPLORE + cell(state, name))
    return settle(state)


def influence(ch, resource, match, skip=0):
    return [k for k, c in enumerate(ch.influence) if c.resource == resource and c.match == match][skip]


def test_crew_member_example_from_the_rulebook(mmap):
    """Matching 2, 1 and 3 (6) minus two non-matching 1s: 4, against Power 3 the Crew Member survives."""
    s = start(mmap)
    ch = s.game.chapter
    assert ch.crew[ROCK_CREW].resource == ROCK
    s.data["piles"][ROCK_CREW] = [
        [influence(ch, ROCK, 2), True, 0],
        [influence(ch, ROCK, 1), True, 0],
        [influence(ch, ROCK, 3), True, 0],
        [influence(ch, FOOD, 1), True, 0],
        [influence(ch, WOOD, 2), True, 0],
    ]
    assert ch.crew_value(s, ROCK_CREW) == 4
    s.data["power"] = 3
    assert ch.saved(s)[ROCK_CREW]
    s.data["power"] = 5
    assert not ch.saved(s)[ROCK_CREW]
    # a Command card: +1 on its own Resource, -1 elsewhere; the Traitor card -4
    rock_cmd = ch.commands.index(ROCK)
    assert ch.card_value(M.COMMAND_BASE + rock_cmd, ROCK_CREW) == 1
    assert ch.card_value(M.COMMAND_BASE + rock_cmd, FOOD_CREW) == -1
    assert ch.card_value(M.TRAITOR_CARD, ROCK_CREW) == -4


@pytest.mark.parametrize("players, hand", [(1, 10), (2, 5), (3, 4), (4, 3)])
def test_coop_setup(mmap, players, hand):
    s = start(mmap, players=players)
    d = s.data
    assert d["power"] == 6 and len(d["removed"]) == 5
    assert [len(p) for p in d["piles"]] == [1] * 5 and all(not p[0][1] for p in d["piles"])
    assert sum(p[0][0] == M.TRAITOR_CARD for p in d["piles"]) == 1
    assert all(len(h) == hand for h in d["hands"])
    assert len(d["inf_pile"]) == 45 - 5 - 4 - hand * players


def test_resource_gained_targets_its_crew_member_and_the_card_goes_face_up(mmap):
    s = start(mmap)
    ch = s.game.chapter
    d = s.data
    d["hands"][0] = [influence(ch, FOOD, 2), influence(ch, WOOD, 1)]
    explore(s, "B7")  # Food
    s.apply_action(A.END_TURN)
    settle(s)
    # one Target only (the Food Crew Member); one matching card: played face up at once (co-operative)
    assert d["piles"][FOOD_CREW][-1] == [influence(ch, FOOD, 2), True, 0]
    assert d["log"] == [(0, FOOD_CREW, "up")]
    assert len(d["hands"][0]) == 4  # refilled to 4


def test_no_matching_card_means_a_command_card_and_water_targets_anyone(mmap):
    s = start(mmap)
    ch = s.game.chapter
    d = s.data
    d["hands"][0] = [influence(ch, MUD, 1), influence(ch, MUD, 1, 1), influence(ch, MUD, 1, 2), influence(ch, MUD, 2)]
    explore(s, "E7")  # Water: any Crew Member may be the Target
    s.apply_action(A.END_TURN)
    settle(s)
    assert s.agenda[-1] == ("chapter", "target")
    assert s.legal_actions() == [M.TARGET_CREW + c for c in range(5)]
    s.apply_action(M.TARGET_CREW + ROCK_CREW)
    settle(s)
    # no Rock card in hand: a Command card, face down
    top = d["piles"][ROCK_CREW][-1]
    assert top[0] >= M.COMMAND_BASE and not top[1] and d["log"][-1] == (0, ROCK_CREW, "command")


def test_power_track_skull_maldonado_and_rows(mmap):
    s = start(mmap)
    d = s.data
    explore(s, "A7")  # Maldonado: +1 Power and a Resource of choice
    assert d["power"] == 7
    assert s.agenda[-1] == ("gain",)
    s.apply_action(A.GAIN + ROCK)
    settle(s)
    assert s.pack[ROCK] == 1
    # co-operative: a setup card is turned face up
    if s.agenda[-1] == ("chapter", "flip"):
        s.apply_action(M.FLIP + 0)
        settle(s)
    assert sum(e[1] for p in d["piles"] for e in p if e[2] == -1) == 1
    # a completed row lowers the Power
    s2 = start(mmap)
    opened(s2, "G2", "G3", "G4", "G5", "G6", "G7", "F1")
    explore(s2, "G1")  # a Skull, the last of row G: +1 then -1
    assert s2.data["power"] == 6


def test_tipi_draws_a_kill_monster_card_and_two_different_resources_kill(mmap):
    s = start(mmap)
    g = s.game
    d = s.data
    opened(s, "C7")
    explore(s, "C6")  # a Tipi: first a Kill Monster card, then the trade
    assert len(d["kill_face"]) == 1
    assert s.agenda[-1] == ("trade",)
    s.apply_action(A.SKIP)
    settle(s)
    k = d["kill_face"][0]
    shown = [r for r in range(10) if g.kills[k].requires[r]]
    mon = next(i for i, c in enumerate(g.threats) if c.monster)
    s.th_pile.remove(mon)
    s.threats.append(mon)
    s.monsters[cell(s, "A1")] = mon
    s.pack[shown[0]] += 1
    s._legal = None
    assert not any(M.KILL_M <= a < M.PAIR for a in s.legal_actions())  # one kind only: not enough
    s.pack[shown[1]] += 1
    s._legal = None
    assert M.KILL_M in s.legal_actions()
    s.apply_action(M.KILL_M)
    settle(s)
    assert d["kills"] == 1 and not s.monsters and d["kill_face"] == []


def test_monsters_by_day_on_the_skull_by_night_beside_the_northernmost(mmap):
    s = start(mmap)
    g = s.game
    ch = g.chapter
    vip = next(i for i, c in enumerate(g.threats) if c.kind == "vipera")
    rat = next(i for i, c in enumerate(g.threats) if c.kind == "rattus")
    opened(s, "C5", "D7", "E7")
    ch.place_monster(s, vip, "day", cell(s, "C5"))
    assert s.monsters == {cell(s, "C5"): vip}
    s.monsters.clear()
    ch.place_monster(s, vip, "night", -1)  # northernmost Explored: C5; an Unexplored Path beside it, north first
    assert s.monsters == {cell(s, "B5"): vip}
    ch.place_monster(s, rat, "night", -1)  # southernmost Explored: E7; south first
    assert s.monsters[cell(s, "F7")] == rat


def test_third_kill_ends_the_coop_game(mmap):
    s = start(mmap)
    d = s.data
    ch = s.game.chapter
    d["kills"] = 2
    d["power"] = 0
    for pile in d["piles"]:
        pile[:] = [e for e in pile if e[0] != M.TRAITOR_CARD]
        pile.append([influence(ch, ch.crew[d["piles"].index(pile)].resource, 3), True, 0])
    g = s.game
    mon = next(i for i, c in enumerate(g.threats) if c.monster)
    s.th_pile.remove(mon)
    s.threats.append(mon)
    s.monsters[cell(s, "A1")] = mon
    d["kill_face"] = [d["kill_pile"].pop(0)]
    k = d["kill_face"][0]
    for r in [r for r in range(10) if g.kills[k].requires[r]][:2]:
        s.pack[r] += 1
    s._legal = None
    s.apply_action(M.KILL_M)
    settle(s)
    assert s.outcome == "win" and all(e[1] for p in d["piles"] for e in p)


def test_water_skin_goggles_journal_and_the_partners(mmap):
    s = start(mmap, players=2, characters=("Randolph", "Russell"), gear=(("Water Skin", "Goggles"), ("Flint", "Jar")))
    d = s.data
    assert s.pack[WATER] == 6 and d["skin"] == 2
    assert s.game.chapter.score_bonus(s) == 7
    assert M.WATER_SKIN in s.legal_actions()
    s.apply_action(M.WATER_SKIN)
    assert s.pack[WATER] == 8 and s.game.chapter.score_bonus(s) == 0
    s.apply_action(M.GOGGLES + cell(s, "E7"))
    explore(s, "E7")  # Water: 1 more
    assert s.pack[WATER] == 10
    s.exhausted.update(("Flint", "Jar"))
    s._legal = None
    assert M.PARTNER in s.legal_actions()
    s.apply_action(M.PARTNER)
    assert "Flint" not in s.exhausted and "Jar" not in s.exhausted and "Randolph" in s.exhausted
    journal = next(k for k, c in enumerate(s.game.destiny) if c.name == "Journal")
    assert [str(e) for e in s.game.destiny[journal].effects] == ["lose 1 power"]


# ----- Hidden Traitor mode -----
@pytest.mark.parametrize("players, power, ids", [(2, 0, 3), (3, 7, 3), (4, 9, 4)])
def test_traitor_setup(mmap, players, power, ids):
    s = start(mmap, traitor=True, players=players)
    d = s.data
    assert d["power"] == power and all(len(h) == 4 for h in d["hands"])
    assert len(set(d["identity"])) == players and len(d["id_pile"]) == ids - players
    assert all(p == [] for p in d["piles"])  # no setup cards in this mode
    if players > 2:
        assert d["identity"].count(0) == 1


def test_traitor_mode_needs_two_players(mmap):
    with pytest.raises(GameError, match="2 to 4 players"):
        Game(mmap, chapter=MaldonadoTraitor())


def test_loyalist_faces_and_the_traitor_card(mmap):
    s = start(mmap, traitor=True, players=3)
    ch = s.game.chapter
    d = s.data
    t = d["identity"].index(0)
    loyal = next(p for p in range(3) if p != t)
    d["hands"][loyal] = [influence(ch, ROCK, 1), influence(ch, ROCK, 2), influence(ch, FOOD, 3)]
    # a Loyalist: matching cards only, +1 face up and +2 face down
    assert ch.play_actions(s, loyal, ROCK_CREW) == [M.PLAY + 1, M.PLAY + 2]
    # the Traitor: any card, either face, or the Traitor card
    d["hands"][t] = [influence(ch, MUD, 1)]
    assert ch.play_actions(s, t, ROCK_CREW) == [M.PLAY, M.PLAY + 1, M.COMMAND, M.TRAITOR_PLAY]
    s.current = t
    ch.play(s, ROCK_CREW, M.TRAITOR_PLAY)
    assert d["traitor_played"] and d["piles"][ROCK_CREW][-1] == [M.TRAITOR_CARD, False, t]
    assert ch.refill_to(s, t) == 5 and ch.refill_to(s, loyal) == 4


def test_everyone_accuses_after_a_kill_and_the_turn_goes_back(mmap):
    s = start(mmap, traitor=True, players=3)
    g, d = s.game, s.data
    mon = next(i for i, c in enumerate(g.threats) if c.monster)
    s.th_pile.remove(mon)
    s.threats.append(mon)
    s.monsters[cell(s, "A1")] = mon
    d["kill_face"] = [d["kill_pile"].pop(0)]
    k = d["kill_face"][0]
    for r in [r for r in range(10) if g.kills[k].requires[r]][:2]:
        s.pack[r] += 1
    s._legal = None
    s.apply_action(M.KILL_M)
    settle(s)
    for p in (0, 1, 2):
        assert s.current_player() == p and s.agenda[-1] == ("chapter", "accuse", p)
        assert ABSTAIN_NOT_IN(s.legal_actions())
        s.apply_action(M.ACCUSE + (p + 1) % 3)
    assert s.current_player() == 0 and s.agenda[-1] == ("main",)
    assert d["accusations"] == [[(0, 1), (1, 2), (2, 0)]]


def ABSTAIN_NOT_IN(legal):
    return M.ABSTAIN not in legal


def test_accusations_resolved_by_player_count(mmap):
    # 3-4 players: -1 Power for each token in front of the Traitor
    s = start(mmap, traitor=True, players=4)
    ch = s.game.chapter
    d = s.data
    d["identity"] = [1, 0, 2, 3]
    d["accusations"] = [
        [(0, 1), (2, 1), (3, 0), (1, 0)],
        [(0, 1), (2, 3), (3, 1), (1, 2)],
        [(0, 2), (2, 1), (3, 1), (1, 0)],
    ]
    assert ch.accusation_power(s) == -6
    assert ch.caught(s)  # 6 of the Loyalists' 9 tokens
    # 2 players: +1 for each wrong or missing Loyalist token
    s2 = start(mmap, traitor=True, players=2)
    ch2 = s2.game.chapter
    d2 = s2.data
    d2["identity"] = [0, 2]  # player 1 is the Traitor
    d2["accusations"] = [[(0, 1), (1, 0)], [(0, 1), (1, -1)], [(0, 1), (1, 0)]]
    assert ch2.accusation_power(s2) == 1  # one abstention by the Loyalist
    assert ch2.caught(s2)
    d2["identity"] = [1, 2]  # nobody is the Traitor: every placed token is wrong
    assert ch2.accusation_power(s2) == 5 and not ch2.caught(s2)


def test_traitor_wins_when_three_crew_members_die(mmap):
    s = start(mmap, traitor=True, players=3)
    ch = s.game.chapter
    d = s.data
    d["identity"] = [1, 0, 2]
    d["accusations"] = [[(0, 2), (2, 0), (1, 0)]] * 3
    d["power"] = 3
    d["piles"] = [[[influence(ch, ch.crew[c].resource, 3), False, 0]] for c in range(5)]
    d["piles"][0].append([M.TRAITOR_CARD, False, 1])
    d["piles"][1].append([M.TRAITOR_CARD, False, 1])
    d["piles"][2].append([influence(ch, MUD, 3), False, 1])
    ch.finale(s)
    assert d["result"] == "traitor" and "traitor wins" in s.events and "traitor caught" not in s.events
    settle(s)
    assert s.outcome == "traitor"


def check_maldonado_invariants(s):
    g, d = s.game, s.data
    ch = g.chapter
    assert min(s.pack) >= 0 and d["power"] >= 0 and 0 <= d["kills"] <= 3
    assert s.n_explored == sum(e[1] for e in s.row) + s.tokens_out == sum(s.explored)
    assert len(s.ch_pile) + sum(1 for e in s.row if e[0] >= 0) + s.resolved == len(g.challenges)
    assert len(s.th_pile) + len(s.th_bottom) + len(s.th_discard) + len(s.threats) + d["kills"] == len(g.threats)
    # every Influence card is in exactly one place
    on_crew = [e[0] for p in d["piles"] for e in p if e[0] < M.COMMAND_BASE]
    places = d["inf_pile"] + d["inf_discard"] + d["removed"] + [c for h in d["hands"] for c in h] + on_crew
    assert sorted(places) == list(range(len(ch.influence)))
    commands = [e[0] - M.COMMAND_BASE for p in d["piles"] for e in p if M.COMMAND_BASE <= e[0] < M.TRAITOR_CARD]
    assert sorted(commands + d["cmd_pile"]) == list(range(len(ch.commands)))
    assert sum(e[0] == M.TRAITOR_CARD for p in d["piles"] for e in p) <= 1
    assert len(d["kill_pile"]) + len(d["kill_face"]) + d["kills"] <= len(g.kills)
    assert d["kills"] < 3 or s.is_terminal()
    if ch.mode == "traitor":
        assert len(d["accusations"]) == d["kills"] or (s.is_terminal() and s.outcome != "win")
    if s.outcome == "win":
        assert d["kills"] == 3 and sum(ch.saved(s)) >= (5 if ch.mode == "coop" else 3)


def random_playout(g, seed):
    return shared_playout(g, seed, check_maldonado_invariants)


@pytest.mark.parametrize("name", MAPS)
@pytest.mark.parametrize("players", [1, 2])
def test_random_playouts_keep_coop_invariants(name, players):
    g = Game(read_map(DATA / f"{name}.toml"), players=players)
    for seed in range(8):
        random_playout(g, seed)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_keep_traitor_invariants(players, mmap):
    g = Game(mmap, chapter=MaldonadoTraitor(), players=players)
    for seed in range(6):
        random_playout(g, seed)


@pytest.mark.parametrize("traitor, players", [(False, 1), (True, 3)])
def test_bots_finish_maldonado_games_and_replay(mmap, traitor, players):
    g = Game(mmap, chapter=MaldonadoTraitor() if traitor else None, players=players)
    outcomes = []
    for seed in range(6):
        s = g.new_initial_state()
        play_game(
            s,
            [make_bot("clairvoyant", random.Random(seed * 4 + p), map=s.game.map) for p in range(players)],
            random.Random(seed),
        )
        check_maldonado_invariants(s)
        outcomes.append(s.outcome)
        if seed < 2:
            again = replay(g, s.history)
            assert again.outcome == s.outcome and str(again) == str(s)
    assert "win" in outcomes


def test_playtest_traitor_mode_reports_traitor_keys(tmp_path):
    f = str(DATA / "engine6_maldonado_201.toml")
    r = CliRunner().invoke(main, ["playtest", f, "--games", "4", "--players", "3", "--mode", "traitor", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    for key in ("games", "wins", "win_rate", "win_rate_ci", "mean_score", "losses", "mean_days"):
        assert key in rep
    assert rep["games"] == 4 and 0 <= rep["traitor_wins"] <= 4 and 0 <= rep["traitor_caught"] <= 4
    assert rep["traitor_wins"] == rep["losses"].get("traitor", 0)
    # replays keep the mode
    out = tmp_path / "runs"
    r = CliRunner().invoke(
        main, ["playtest", f, "--games", "2", "--players", "2", "--mode", "traitor", "--replay", str(out)]
    )
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["playtest", "--show", str(out / "game-00001.json")])
    assert r.exit_code == 0 and "Game over" in r.output
    r = CliRunner().invoke(main, ["playtest", f, "--games", "2", "--mode", "traitor"])
    assert r.exit_code == 1 and "2 to 4 players" in r.output


SHIPPED = maps.names("maldonado")  # flat files or the graded library's maldonado/ folder
CONTRACT = {"games", "wins", "win_rate", "win_rate_ci", "mean_score", "losses", "mean_days"}


@pytest.mark.parametrize("name", SHIPPED or ["engine6_maldonado_201"])
def test_playtest_json_on_every_shipped_maldonado_map(name):
    spec = name if SHIPPED else str(DATA / f"{name}.toml")
    r = CliRunner().invoke(main, ["playtest", spec, "--games", "3", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert CONTRACT <= set(rep) and rep["chapter"] == "maldonado" and rep["games"] == 3
    assert sum(rep["losses"].values()) + rep["sealed"] + rep["wins"] == 3  # issue 12: sealed games are no loss


@pytest.mark.parametrize(
    "name, traitor, players",
    [("engine6_flora_201", False, 1), ("engine6_vameter_201", False, 2), ("engine6_maldonado_201", True, 3)],
)
def test_clone_is_independent_and_equal_in_every_expansion_chapter(name, traitor, players):
    g = Game(read_map(DATA / f"{name}.toml"), chapter=MaldonadoTraitor() if traitor else None, players=players)
    rng = random.Random(11)
    s = g.new_initial_state()
    for _ in range(400):
        if s.is_terminal():
            break
        c = s.clone()
        assert str(c) == str(s) and c.legal_actions() == s.legal_actions() and c.data == s.data
        a = rng.choice(s.chance_outcomes())[0] if s.is_chance_node() else rng.choice(s.legal_actions())
        c.apply_action(a)
        s.apply_action(a)
        assert str(c) == str(s) and c.data == s.data
        other = c.clone()
        if not other.is_terminal():
            b = rng.choice(other.chance_outcomes())[0] if other.is_chance_node() else rng.choice(other.legal_actions())
            other.apply_action(b)
        assert str(c) == str(s) and c.data == s.data  # playing on a clone leaves its original alone


def test_loyalist_bots_never_read_hidden_cards(mmap):
    """A Loyalist's choices stay the same when other players' hands and face-down cards are swapped."""
    g = Game(mmap, chapter=MaldonadoTraitor(), players=3)
    rng = random.Random(5)
    bots = [make_bot("heuristic", random.Random(p)) for p in range(3)]
    checked = 0
    s = g.new_initial_state()
    while not s.is_terminal() and checked < 12:
        if s.is_chance_node():
            s.apply_action(rng.choice(s.chance_outcomes())[0])
            continue
        me = s.current_player()
        step = s.agenda[-1]
        if step[0] == "chapter" and step[1] in ("target", "play", "accuse") and s.data["identity"][me] != 0:
            other = s.clone()
            d = other.data
            # shuffle what the acting Loyalist cannot see: the others' hands and their face-down cards
            hidden = [c for p in range(3) if p != me for c in d["hands"][p]]
            pool = hidden + d["inf_pile"]
            random.Random(checked).shuffle(pool)
            for p in range(3):
                if p != me:
                    n = len(d["hands"][p])
                    d["hands"][p], pool = pool[:n], pool[n:]
            d["inf_pile"] = pool
            for pile in d["piles"]:
                for e in pile:
                    if not e[1] and e[2] not in (me,) and e[0] < M.COMMAND_BASE:
                        e[0] = (e[0] + 7) % len(g.chapter.influence)
            seed = rng.random()
            a = make_bot("heuristic", random.Random(seed)).step(s.observation())
            b = make_bot("heuristic", random.Random(seed)).step(other.observation())
            assert a == b, step
            checked += 1
        s.apply_action(bots[me].step(s.observation()))
    assert checked >= 5


def _rapids_resolves_this_turn(s):
    """The Challenge Row's first card is Rapids (Pass: 1 Wood) with 2 of its 3 Path tokens; the backpack can pass it."""
    k = next(k for k, c in enumerate(s.game.challenges) if c.name == "Rapids")
    if k in s.ch_pile:
        s.ch_pile.remove(k)
    s.row = [[k, 2, None]] + [e for e in s.row if e[0] != k][:2]  # the day goes on after Rapids
    s.pack[:] = [0] * len(s.pack)
    s.pack[ROCK] = s.pack[MUD] = s.pack[FOOD] = 1
    s.pack[WATER] = 8


def test_resource_gained_from_a_challenge_after_end_turn_plays_an_influence_card(mmap):
    """'when you gain a Resource Token on your turn by any means ... that Crew Member is the Target': the
    Challenge resolved after "end turn" is still this turn, so its Wood targets the Wood Crew Member."""
    s = start(mmap)
    ch, d = s.game.chapter, s.data
    wood_crew = next(c for c, m in enumerate(ch.crew) if m.resource == WOOD)
    _rapids_resolves_this_turn(s)
    d["hands"][0] = [influence(ch, WOOD, 2), influence(ch, ROCK, 1)]
    explore(s, "C7")  # Fields: no Resource gained while exploring; the third Path token goes on Rapids
    s.apply_action(A.END_TURN)
    settle(s)
    assert d["log"] == []
    assert s.legal_actions() == [A.PASS, A.FAIL]
    s.apply_action(A.PASS)  # discard 1 Rock, 1 Mud, 2 Water; gain 1 Wood
    settle(s)
    assert s.pack[WOOD] == 1
    assert d["log"] == [(0, wood_crew, "up")]
    assert d["piles"][wood_crew][-1] == [influence(ch, WOOD, 2), True, 0]
    assert len(d["hands"][0]) == 4  # refilled at the end of the turn


def test_only_one_influence_card_per_turn_even_with_a_challenge_gain(mmap):
    """'You only play one Influence or Command Card per turn regardless of the total number of Resources.'"""
    s = start(mmap)
    ch, d = s.game.chapter, s.data
    _rapids_resolves_this_turn(s)
    d["hands"][0] = [influence(ch, FOOD, 2), influence(ch, WOOD, 1)]
    explore(s, "B7")  # Food: its card is played at "end turn"
    s.apply_action(A.END_TURN)
    settle(s)
    assert d["log"] == [(0, FOOD_CREW, "up")]
    s.apply_action(A.PASS)  # the Wood from Rapids does not give a second play this turn
    settle(s)
    assert d["log"] == [(0, FOOD_CREW, "up")]


def test_clark_swaps_in_the_goggles_but_never_the_water_skin(mmap):
    """Clark: 'Swap 1 Gear from Reserve'; Water Skin: 'cannot be swapped in using Clark's ability'."""
    s = start(mmap)
    kinds = s.game.chapter.gear_kinds()
    assert "Goggles" in s.reserve and "Water Skin" in s.reserve
    clark = [a for a in s.legal_actions() if A.CLARK <= a < A.BACKTRACK]
    swapped_in = {kinds[(a - A.CLARK) % 10] for a in clark}
    assert "Goggles" in swapped_in and "Water Skin" not in swapped_in
    a = A.CLARK + kinds.index("Goggles")  # the Flint goes to the Reserve
    assert s.action_to_string(a) == "Clark: swap gear 1 for Goggles"
    s.apply_action(a)
    settle(s)
    assert s.gear[0] == ["Goggles", "Jar", "Satchel"] and "Flint" in s.reserve
    assert any(M.GOGGLES <= x < M.GOGGLES + 64 for x in s.legal_actions())  # the Goggles can be used now


def test_york_placing_a_found_resource_on_a_challenge_card_still_gains_it(mmap):
    """Maldonado: 'when you gain a Resource Token on your turn by any means (exploring, trading, Gear or Character
    Card, etc.), check if it matches a Resource indicated on one of the 5 Crew Member Cards'; York: 'When you find
    a Resource that's needed for any of today's challenges, place it on the Challenge Card instead of in your
    Backpack.' The Food York found goes on the card, and it is still a Food gained: the Food Crew Member is the
    Target (before, York's explores never asked for an Influence card)."""
    s = start(mmap, characters=("York",))
    ch, d = s.game.chapter, s.data
    _rapids_resolves_this_turn(s)
    rapids = s.row[0][0]
    k = next(k for k, c in enumerate(s.game.challenges) if c.requires[FOOD] and k != rapids)
    s.row[1] = [k, 0, None]  # a Challenge of today that needs Food
    d["hands"][0] = [influence(ch, FOOD, 2), influence(ch, WOOD, 1)]
    before = s.pack[FOOD]
    explore(s, "B7")  # Food: York puts it on the card
    assert s.row[1][2] == [FOOD] and s.pack[FOOD] == before
    s.apply_action(A.END_TURN)
    settle(s)
    assert d["log"][0] == (0, FOOD_CREW, "up")
    assert d["piles"][FOOD_CREW][-1] == [influence(ch, FOOD, 2), True, 0]
