"""The deducer's possible terrains against the worked examples' forced cells, and a deducer game."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from mapgen.engine.bots import make_bot
from mapgen.engine.deduce import FrontierPossible
from mapgen.engine.game import Game
from mapgen.engine.play import play_game
from mapgen.mapfile import read_map
from mapgen.terrain import Terrain

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("name", ["fauna-201-k34", "training-201-k16"])
def test_possible_terrains_agree_with_the_forced_cells(name):
    expected = json.loads((DATA / "states" / "expected.json").read_text())[name]
    state = read_map(DATA / "states" / f"{name}.toml")
    full = read_map(DATA / "valid" / f"{name.rsplit('-', 1)[0]}.toml")
    fp = FrontierPossible(state.chapter, time_limit=20.0)
    hidden = state.unrevealed()
    possible = fp.possible(state, hidden)
    assert set(possible) == set(hidden) and fp.timeouts == 0
    forced = {state.board.name(i): next(iter(ts)).code for i, ts in possible.items() if len(ts) == 1}
    assert forced == expected["forced"]
    # the true map is one completion: every cell's real terrain is possible
    assert all(full.cells[i] in possible[i] for i in hidden)
    # a second question on the same state is answered from the witnesses kept
    again = fp.possible(state, hidden[:3])
    assert again == {i: possible[i] for i in hidden[:3]}


def test_deducer_plays_a_training_game():
    g = Game(read_map(DATA / "engine_training_201.toml"))
    s = g.new_initial_state()
    bot = make_bot("deducer", random.Random(0))
    play_game(s, [bot], random.Random(0))
    assert s.is_terminal() and bot.solver_calls > 0
    assert all(isinstance(t, Terrain) for ts in bot._possible.values() for t in ts)


def test_deducer_games_are_reproducible():
    from mapgen.engine.playtest import Settings, play_one

    m = read_map(DATA / "engine_fauna_202.toml")
    s = Settings(bot="deducer", seed=4)
    first = play_one(m, s, 0, keep_actions=True)
    play_one(m, s, 1)  # another game in between must not change the next answers
    again = play_one(m, s, 0, keep_actions=True)
    assert first.actions == again.actions and first.outcome == again.outcome


def test_the_deducer_reasons_with_a_house_rule_chapter(tmp_path):
    """`playtest --rules FILE`: the deducer's solver uses the house rules, not the shipped chapter's."""
    from constraints.catalogue import get_chapter, load_chapter
    from mapgen.engine.deduce import solver_for

    src = (Path(__file__).parent.parent / "constraints" / "chapters" / "training.toml").read_text(encoding="utf-8")
    house = tmp_path / "training-no-mud.toml"
    house.write_text(src.replace('"C5", ', ""), encoding="utf-8")
    rules = load_chapter(house)
    assert "C5" not in rules.rule_ids
    assert solver_for(rules).solver.chapter is rules
    assert solver_for(get_chapter("training")) is solver_for("training")


def test_the_deducer_s_answers_on_kept_proofs_are_those_of_a_fresh_session(monkeypatch):
    """Every question of a run of deducer games (the briefing's proofs shared by all of them) gets the answer a
    session that has seen no other question gives."""
    from mapgen.engine import deduce
    from mapgen.engine.playtest import Settings, run_playtest

    m = read_map(DATA / "engine_fauna_202.toml")
    monkeypatch.setattr(deduce, "_CACHE", {})
    asked = []
    real = FrontierPossible.possible

    def possible(self, state, cells, time_limit=None, session=None):
        got = real(self, state, cells, time_limit, session)
        asked.append((state, list(cells), got))
        return got

    monkeypatch.setattr(FrontierPossible, "possible", possible)
    run_playtest(m, Settings(bot="deducer", seed=2), 6)
    fp = deduce.solver_for("fauna")
    assert len(asked) > 20 and fp.timeouts == 0
    solver = fp.solver
    for state, cells, got in asked:
        fresh = solver.possible(state, 5.0, cells=cells, session=solver.session(state.briefing))
        assert got == fresh


def test_a_cell_known_to_hold_one_terrain_is_not_asked_about_again(monkeypatch):
    """Once the deducer knows a cell holds one terrain, it asks the solver about the other cells only: as more
    cells are seen, that terrain stays the cell's exact answer (a fresh session's, checked at every question)."""
    from mapgen.engine import deduce
    from mapgen.engine.bots.deducer import DeducerBot
    from mapgen.engine.playtest import Settings, run_playtest

    m = read_map(DATA / "engine_fauna_202.toml")
    monkeypatch.setattr(deduce, "_CACHE", {})
    asked: list[list[int]] = []
    kept = []  # (known map, {cell: its one terrain}) at each question where the bot skipped such cells
    real_possible, real_ask = FrontierPossible.possible, DeducerBot._ask

    def possible(self, state, cells, time_limit=None, session=None):
        asked.append(list(cells))
        return real_possible(self, state, cells, time_limit, session)

    def ask(self, obs, explores, new_seen):
        one = {c: ts for c, ts in self._possible.items() if len(ts) == 1 and c in explores and obs.terrain[c] < 0}
        n = len(asked)
        real_ask(self, obs, explores, new_seen)
        if len(asked) > n and one:
            assert not set(asked[-1]) & set(one)
            kept.append((obs.known_map(), one))

    monkeypatch.setattr(FrontierPossible, "possible", possible)
    monkeypatch.setattr(DeducerBot, "_ask", ask)
    run_playtest(m, Settings(bot="deducer", seed=2), 6)
    assert len(kept) > 5
    solver = deduce.solver_for("fauna").solver
    for state, one in kept:
        fresh = solver.possible(state, 5.0, cells=list(one), session=solver.session(state.briefing))
        assert fresh == one


def test_each_briefing_keeps_its_own_session_whichever_was_asked_last():
    """A briefing's session (and proofs) is found again whether its state's briefing is the object asked about last
    or an equal one, and another briefing's states get their own: the last asked is read without hashing."""
    from dataclasses import replace

    fp = FrontierPossible("fauna")
    a = read_map(DATA / "engine_fauna_201.toml")
    b = read_map(DATA / "engine_fauna_202.toml")
    assert a.briefing != b.briefing
    first = fp.session(a)
    assert fp.session(a) is first
    twin = replace(a, briefing=replace(a.briefing))  # an equal briefing, another object
    assert twin.briefing is not a.briefing and fp.session(twin) is first
    other = fp.session(b)
    assert other is not first and fp.session(b) is other
    assert fp.session(a) is first and fp.session(twin) is first and fp.session(b) is other
