"""The scout (the fast fair player): seeded play, legal games to the end in every chapter, what it is handed,
and its pool of draws following the reveals."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from mapgen.engine.bots import BOTS, HAS_BUDGET, NEEDS_MAP, UNFAIR, make_bot, scout
from mapgen.engine.bots.scout import ScoutBot
from mapgen.engine.game import CHANCE_PLAYER
from mapgen.engine.observation import observe
from mapgen.engine.playtest import Settings, make_game, play_one
from mapgen.mapfile import read_map
from mapgen.solving.solve import agrees
from mapgen.terrain import TERRAINS

DATA = Path(__file__).parent / "data"
FAUNA = DATA / "engine_fauna_201.toml"
MAPS = ["engine_training_201", "engine_fauna_201", "engine6_flora_201", "engine6_vameter_201", "engine6_maldonado_201"]


@pytest.fixture
def small_pools(monkeypatch):
    """A small pool (a test's speed; the same code) and no pool kept from another test."""
    monkeypatch.setattr(scout, "POOL_CHAINS", 4)
    monkeypatch.setattr(scout, "POOL_SWEEPS", 4)
    monkeypatch.setattr(scout, "_POOLS", {})


def test_the_registry_knows_the_scout():
    assert BOTS["scout"] is ScoutBot
    assert "scout" in HAS_BUDGET and "scout" not in NEEDS_MAP and "scout" not in UNFAIR  # a fair player
    assert make_bot("scout", random.Random(0), budget=3).budget == 3
    assert make_bot("scout", random.Random(0)).budget == scout.DEFAULT_BUDGET


def test_same_seed_same_game_whether_the_pool_is_new_or_kept(small_pools):
    m = read_map(FAUNA)
    s = Settings(bot="scout", seed=4, budget=2)
    game = make_game(m, s, 0)
    one = play_one(m, s, 0, keep_actions=True, game=game)  # makes the briefing's pool
    two = play_one(m, s, 0, keep_actions=True, game=game)  # the kept pool
    scout._POOLS.clear()
    three = play_one(m, s, 0, keep_actions=True, game=game)  # a new pool, made alike
    assert one.actions == two.actions == three.actions and one.outcome == two.outcome
    others = [play_one(m, Settings(bot="scout", seed=k, budget=2), 0, keep_actions=True, game=game) for k in (5, 6)]
    assert any(o.actions != one.actions for o in others)


@pytest.mark.parametrize("name", MAPS)
def test_plays_legal_games_to_the_end_in_every_chapter(small_pools, name):
    """Every action it picks is legal, and the games end (won, lost or sealed), searched decisions included."""
    m = read_map(DATA / f"{name}.toml")
    for seed in range(2):
        s = Settings(bot="scout", seed=seed, budget=1)
        state = make_game(m, s, seed).new_initial_state()
        bot = make_bot("scout", random.Random(seed), budget=1)
        rng = random.Random(seed)
        from mapgen.engine.infostate import information_state

        while not state.is_terminal():
            p = state.current_player()
            if p == CHANCE_PLAYER:
                pile = state._chance_pile()
                state.apply_action(1000 + pile[rng.randrange(len(pile))])
                continue
            obs = observe(state, p)
            a = bot.step(information_state(state, p) if bot.wants_infostate(obs) else obs)
            assert a in state.legal_actions()
            state.apply_action(a)
        assert state.outcome is not None
    assert bot.searches >= 1 or name == "engine6_maldonado_201"


def test_it_is_handed_its_information_state_only_at_the_decisions_it_searches(small_pools):
    from mapgen.engine.play import play_game

    assert ScoutBot.decides_on == "infostate_when"
    seen = []

    class Spy(ScoutBot):
        def step(self, x):
            seen.append(type(x).__name__)
            return super().step(x)

    m = read_map(FAUNA)
    bot = Spy(random.Random(1), 1)
    play_game(make_game(m, Settings(), 7).new_initial_state(), [bot], random.Random(7))
    assert seen.count("InfoState") == bot.searches <= scout.SEARCHES
    assert bot.searches >= 1 and seen.count("Observation") > 10
    assert bot.rollouts >= 2 * bot.searches  # every candidate on the world drawn


def test_the_pool_follows_the_reveals(small_pools):
    """At every decision the draws the scout keeps agree with every seen cell and Hill number (the shares it
    plays on are the agreeing draws'), and they shrink as cells are revealed (or are refilled)."""
    from mapgen.engine.play import play_game

    m = read_map(FAUNA)
    state = make_game(m, Settings(), 3).new_initial_state()
    checked = []

    class Check(ScoutBot):
        def step(self, x):
            obs = x.obs if hasattr(x, "obs") else x
            self._follow(obs)
            known = state.known_map()
            pool = self.pool
            assert pool is not None and self.agree is not None
            for j in self.agree.tolist():
                w = tuple(TERRAINS[int(pool.index[k])] for k in pool.rows[j].tolist())
                assert agrees(m_chapter, w, known)
            checked.append(len(self.agree))
            return super().step(x)

    from constraints.catalogue import get_chapter

    m_chapter = get_chapter(m.chapter)
    bot = Check(random.Random(2), 1)
    play_game(state, [bot], random.Random(3))
    (pool,) = scout._POOLS.values()  # one briefing, one pool
    assert pool is not None and len(checked) > 10 and checked[0] == len(pool.rows)
    assert min(checked) < checked[0]


def test_the_pool_shares_are_the_heuristic_weights(small_pools):
    """An unseen cell's weights are the agreeing draws' shares, smoothed by ``PRIOR`` pseudo-draws of the
    heuristic's local weights; they sum to 1."""
    m = read_map(FAUNA)
    state = make_game(m, Settings(), 0).new_initial_state()
    while state.current_player() == CHANCE_PLAYER:
        state.apply_action(1000 + state._chance_pile()[0])
    obs = observe(state, 0)
    bot = ScoutBot(random.Random(0), 1)
    known = bot._known(obs)
    cell = next(c for c in range(len(known)) if known[c] < 0)
    w = bot._local_weights(obs, cell, known)
    assert sum(w) == pytest.approx(1.0)
    pool, agree = bot.pool, bot.agree
    assert pool is not None and agree is not None and len(agree)
    counts = np.bincount(pool.rows[agree, cell], minlength=len(pool.index))
    for k, c in enumerate(counts.tolist()):
        assert w[int(pool.index[k])] >= c / (len(agree) + scout.PRIOR) - 1e-12
