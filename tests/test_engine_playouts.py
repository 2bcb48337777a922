"""Random playouts that check the game's invariants at every step (OpenSpiel's random_sim_test), and replays."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mapgen.engine import actions as A
from mapgen.engine.bots import make_bot
from mapgen.engine.game import BACKPACK_SLOTS, CHANCE_PLAYER, WATER_LIMIT, Game
from mapgen.engine.play import play_game, replay
from mapgen.mapfile import read_map
from mapgen.terrain import Terrain

DATA = Path(__file__).parent / "data"
MAPS = ["engine_training_201", "engine_training_202", "engine_fauna_201", "engine_fauna_202"]


def check_invariants(
    s,
    before_top: str | None,
    action: int | None,
    explored_before: bytearray,
    monsters_before: dict,
    n_explored_before: int,
):
    g = s.game
    # counts never go negative, Fire, Samples and kills stay within their tokens
    assert min(s.pack) >= 0 and 0 <= s.fires <= 3 and 0 <= s.samples <= 4 and s.shelter in (-1, *range(g.board.size))
    # Path tokens are conserved: every explored Path's token is on a Challenge card or discarded
    assert s.n_explored == sum(e[1] for e in s.row) + s.tokens_out == sum(s.explored)
    # Challenge cards: deck + row + resolved = all of them
    assert len(s.ch_pile) + sum(1 for e in s.row if e[0] >= 0) + s.resolved == len(g.challenges)
    # Threat cards: deck + bottom + discard + in play + killed
    killed = s.data.get("kills", 0)
    assert len(s.th_pile) + len(s.th_bottom) + len(s.th_discard) + len(s.threats) + killed == len(g.threats)
    assert len(set(s.th_pile) | set(s.th_bottom) | set(s.th_discard) | set(s.threats)) == len(g.threats) - killed
    # every Monster token belongs to a Monster card in play, on an Explored Path (Training's D4 excepted)
    assert all(k in s.threats and g.threats[k].monster for c, k in s.monsters.items())
    assert all(s.explored[c] or g.chapter.name == "training" for c in s.monsters)
    # Destiny cards: deck + face up + held + under Chased + used
    destiny = s.de_pile + s.de_face + s.de_held + s.chased_pile + s.de_discard
    assert sorted(destiny) == list(range(len(g.destiny)))
    # Kill Minotaur cards
    if "kill_pile" in s.data:
        assert len(s.data["kill_pile"]) + len(s.data["kill_face"]) + killed <= len(g.kills)
    # the backpack is within its limits once a turn's limits are checked
    top = s.agenda[-1][0] if s.agenda else None
    if (action == A.END_TURN or before_top == "limits") and top != "limits" and not s.is_terminal():
        assert s.slots() <= BACKPACK_SLOTS or s.carried() == 0
        assert s.pack[A.GAIN - A.GAIN + 9] <= WATER_LIMIT
    # no illegal explore
    if action is not None and action < A.DISCARD:
        c = action
        assert not explored_before[c]
        if n_explored_before == 0:
            assert c in g.start_cells
        else:
            assert c not in monsters_before

            def open_from(j):
                return explored_before[j] and g.cells[j] is not Terrain.ROCK and j not in monsters_before

            trail = [
                k
                for k in range(len(explored_before))
                if not explored_before[k] and k not in monsters_before and any(open_from(j) for j in g.orth[k])
            ]
            # from the trail; or, with the house rule "relaunch" and the trail blocked everywhere, from the start
            # column again
            assert c in trail or ("relaunch" in g.variants and not trail and c in g.start_cells)


def random_playout(s, rng: random.Random):
    steps = 0
    while not s.is_terminal():
        before_top = s.agenda[-1][0]
        explored_before, monsters_before, n_before = bytearray(s.explored), dict(s.monsters), s.n_explored
        if s.current_player() == CHANCE_PLAYER:
            outcomes = s.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            action = rng.choice(outcomes)[0]
            s.apply_action(action)
            action = None
        else:
            la = s.legal_actions()
            assert la == sorted(set(la)) and la, f"no legal action at {s.agenda[-1]}"
            action = rng.choice(la)
            s.apply_action(action)
        check_invariants(s, before_top, action, explored_before, monsters_before, n_before)
        steps += 1
        assert steps < 5000
    assert s.outcome is not None and s.legal_actions() == []
    return s


@pytest.mark.parametrize("name", MAPS)
@pytest.mark.parametrize("players", [1, 2, 4])
def test_random_playouts_keep_invariants(name, players):
    m = read_map(DATA / f"{name}.toml")
    g = Game(m, players=players)
    for seed in range(12):
        random_playout(g.new_initial_state(), random.Random(seed))


def test_clone_is_independent_and_equal():
    g = Game(read_map(DATA / "engine_fauna_201.toml"))
    rng = random.Random(3)
    s = g.new_initial_state()
    for _ in range(40):
        if s.is_terminal():
            break
        c = s.clone()
        assert str(c) == str(s) and c.legal_actions() == s.legal_actions() and c.history == s.history
        a = rng.choice(s.chance_outcomes())[0] if s.is_chance_node() else rng.choice(s.legal_actions())
        c.apply_action(a)
        assert len(s.history) + 1 == len(c.history)
        s.apply_action(a)
        assert str(c) == str(s)


@pytest.mark.parametrize("bot", ["random", "heuristic", "clairvoyant"])
def test_game_replays_from_its_actions(bot):
    g = Game(read_map(DATA / "engine_fauna_202.toml"), players=2)
    s = g.new_initial_state()
    play_game(
        s, [make_bot(bot, random.Random(5), map=g.map), make_bot(bot, random.Random(6), map=g.map)], random.Random(7)
    )
    again = replay(g, s.history)
    assert again.outcome == s.outcome and again.score == s.score and str(again) == str(s)
    # and the same seeds give the same game
    t = g.new_initial_state()
    play_game(
        t, [make_bot(bot, random.Random(5), map=g.map), make_bot(bot, random.Random(6), map=g.map)], random.Random(7)
    )
    assert t.history == s.history


def test_illegal_actions_are_refused():
    g = Game(read_map(DATA / "engine_fauna_201.toml"))
    s = g.new_initial_state()
    assert s.is_chance_node()
    with pytest.raises(ValueError, match="not a chance outcome"):
        s.apply_action(A.END_TURN)
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    with pytest.raises(ValueError, match="illegal action"):
        s.apply_action(A.EXPLORE + g.board.index("A1"))  # not column 7
    with pytest.raises(ValueError, match="illegal action"):
        s.apply_action(A.END_TURN)  # a Path must be explored first


def test_heuristic_bot_reads_only_what_is_revealed():
    """On two maps that differ only in unseen cells the heuristic decides the same; the clairvoyant does not."""
    m = read_map(DATA / "engine_fauna_201.toml")
    changed = {i for i, t in enumerate(m.cells) if t is Terrain.FOOD and m.board.name(i) not in ("D7", "E7")}
    other = m.with_cells(Terrain.WATER if i in changed else t for i, t in enumerate(m.cells))
    a, b = Game(m).new_initial_state(), Game(other).new_initial_state()
    bot_a, bot_b = make_bot("heuristic", random.Random(1)), make_bot("heuristic", random.Random(1))
    rng = random.Random(2)
    decisions = 0
    while not a.is_terminal() and not any(a.seen[i] for i in changed):
        if a.is_chance_node():
            action = rng.choice(a.chance_outcomes())[0]
        else:
            action = bot_a.step(a.observation())
            assert bot_b.step(b.observation()) == action
            decisions += 1
        a.apply_action(action)
        b.apply_action(action)
    assert decisions >= 10
    e7 = m.board.index("E7")
    c3 = m.board.index("C4")  # Food on one map, Water on the other
    clair = make_bot("clairvoyant", random.Random(1), map=m)
    assert clair.belief(a.observation(), e7) == {Terrain.FOOD: 1.0}
    assert clair.belief(Game(m).new_initial_state().observation(), c3) == {Terrain.FOOD: 1.0}
    other_clair = make_bot("clairvoyant", random.Random(1), map=other)
    assert other_clair.belief(Game(other).new_initial_state().observation(), c3) == {Terrain.WATER: 1.0}
