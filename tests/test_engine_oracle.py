"""The oracle (a rollout search with the map in view: the upper bound) and the planner (the strong fair bot):
seeded play, the bound above the fair bots, what each is handed, the CLI, and grade's play figures."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import maps
from cli import main
from mapgen.engine.bots import BOTS, HAS_BUDGET, NEEDS_MAP, UNFAIR, make_bot
from mapgen.engine.bots.oracle import OracleBot
from mapgen.engine.bots.planner import PlannerBot
from mapgen.engine.play import replay
from mapgen.engine.playtest import Settings, make_game, play_one, run_playtest, summarise
from mapgen.grade import BotFigures, flags_for, grade, play_of
from mapgen.mapfile import read_map
from mapgen.quality import chapter_quality

DATA = Path(__file__).parent / "data"
TRAINING = DATA / "engine_training_201.toml"
FAUNA = DATA / "engine_fauna_201.toml"


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_registry_knows_the_new_bots():
    assert {"oracle", "planner"} <= set(BOTS)
    assert "oracle" in NEEDS_MAP and "planner" not in NEEDS_MAP  # the planner never sees the map
    assert {"oracle", "planner"} <= HAS_BUDGET
    assert UNFAIR == {"clairvoyant", "oracle"}
    m = read_map(TRAINING)
    assert make_bot("oracle", random.Random(0), map=m, budget=3).budget == 3
    assert make_bot("planner", random.Random(0), budget=2).budget == 2
    with pytest.raises(ValueError, match="must be given the map"):
        make_bot("oracle", random.Random(0))


@pytest.mark.parametrize("bot", ["oracle", "planner"])
def test_same_seed_same_game_and_the_record_replays(bot):
    m = read_map(FAUNA)
    s = Settings(bot=bot, seed=4, budget=1)
    game = make_game(m, s, 0)
    one = play_one(m, s, 0, keep_actions=True, game=game)
    two = play_one(m, s, 0, keep_actions=True, game=game)
    assert one.actions == two.actions and one.outcome == two.outcome
    other = play_one(m, Settings(bot=bot, seed=5, budget=1), 0, keep_actions=True, game=game)
    assert other.actions != one.actions
    # the oracle searches on clones: the game it was handed is the game the record replays
    assert replay(make_game(m, s, one.seed), one.actions).outcome == one.outcome


def test_what_each_bot_decides_on():
    assert OracleBot.decides_on == "state"  # the whole state (map and cards dealt, no deck order)
    assert PlannerBot.decides_on == "infostate"  # the player's information only
    seen = []

    class Spy(PlannerBot):
        def step(self, info):
            seen.append(type(info).__name__)
            return super().step(info)

    from mapgen.engine.play import play_game

    m = read_map(TRAINING)
    state = make_game(m, Settings(), 7).new_initial_state()
    play_game(state, [Spy(random.Random(1), 1)], random.Random(7))
    assert seen and set(seen) == {"InfoState"}


def test_the_oracle_searches_and_departs_from_the_clairvoyant_bot():
    from mapgen.engine.play import play_game

    m = read_map(FAUNA)
    # game 21: game 11 was, before issue 41's heuristic rules made the clairvoyant bot win every gate there, then game
    # 16 until their second round (8 searches there now, no departure)
    state = make_game(m, Settings(), 21).new_initial_state()
    bot = OracleBot(random.Random(3), m, 2)
    play_game(state, [bot], random.Random(21))
    assert bot.searches > 10 and bot.rollouts > bot.searches and bot.departures > 0


def test_after_a_won_gate_the_oracle_searches_again_only_after_a_card_is_drawn(monkeypatch):
    from mapgen.engine import actions as A
    from mapgen.engine.bots import oracle
    from mapgen.engine.play import play_game

    searched = []  # (len(history), rollouts played) of each search
    search = oracle.rollout_search

    def spy(worlds, *args, **kw):
        best, played = search(worlds, *args, **kw)
        searched.append((len(worlds[0][0].history), played))
        return best, played

    monkeypatch.setattr(oracle, "rollout_search", spy)
    m = read_map(FAUNA)
    state = make_game(m, Settings(), 21).new_initial_state()  # game 11, then 16, before issue 41's heuristic rules
    bot = OracleBot(random.Random(3), m, 2)
    play_game(state, [bot], random.Random(21))
    gates = [h for h, played in searched if played == 1]
    assert gates and len(searched) > len(gates)  # gates won, and searches past a lost gate
    for (h, played), (later, _) in itertools.pairwise(searched):
        if played == 1:  # a chance outcome (a card drawn) came between a won gate and the next search
            assert any(a >= A.CHANCE for a in state.history[h:later])
    # without the carry, more decisions are searched on the same game's first moves
    searched.clear()
    state = make_game(m, Settings(), 21).new_initial_state()
    bot = OracleBot(random.Random(3), m, 2)
    bot.carry = False
    play_game(state, [bot], random.Random(21))
    assert any(
        played == 1 and not any(a >= A.CHANCE for a in state.history[h:later])
        for (h, played), (later, _) in itertools.pairwise(searched)
    )


@pytest.mark.slow  # 8 s: enough games of four bots for the intervals
def test_the_oracle_is_above_the_fair_bots_within_the_intervals():
    """fauna-1 (shipped): 10 oracle games (budget 2) against 60 games of each fair bot, seed 0."""
    m = maps.load("fauna-1")
    oracle = summarise(run_playtest(m, Settings(bot="oracle", budget=2), 10), m, Settings(bot="oracle"))
    clairvoyant = summarise(run_playtest(m, Settings(bot="clairvoyant"), 60), m, Settings(bot="clairvoyant"))
    for bot, n in (("heuristic", 60), ("planner", 6)):
        s = Settings(bot=bot, budget=1 if bot == "planner" else None)
        fair = summarise(run_playtest(m, s, n), m, s)
        assert fair["win_rate_ci"][0] <= oracle["win_rate_ci"][1], bot
        assert oracle["win_rate"] >= fair["win_rate"], bot
    assert oracle["win_rate"] > clairvoyant["win_rate"]  # the search improves on its own rollout policy


def test_playtest_cli_plays_the_new_bots_and_rejects_bad_choices():
    r = cli("playtest", TRAINING, "--bot", "oracle", "--budget", "1", "--games", "1", "--json", "--jobs", "1")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert rep["bot"] == "oracle" and rep["budget"] == 1 and rep["games"] == 1
    r = cli("playtest", TRAINING, "--bot", "planner", "--budget", "1", "--games", "1", "--jobs", "1")
    assert r.exit_code == 0, r.output
    assert "bot planner" in r.output
    r = cli("playtest", TRAINING, "--bot", "nosuch")
    assert r.exit_code == 2
    assert len(r.output.strip().splitlines()) == 1 and "'nosuch' is not one of" in r.output and "oracle" in r.output
    r = cli("playtest", TRAINING, "--bot", "clairvoyant", "--budget", "2")
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "error: --budget: the clairvoyant bot has no search budget (--budget is for ismcts, oracle, planner, scout)"
    ]


def _figures(bot, wins, games):
    return BotFigures(bot, games, wins, {}, 3.0)


def test_play_figures_pick_the_best_fair_bot_and_flag_a_failed_bound():
    bots = {
        "heuristic": _figures("heuristic", 10, 100),
        "planner": _figures("planner", 20, 40),
        "clairvoyant": _figures("clairvoyant", 90, 100),  # not fair: never the "best fair bot"
        "oracle": _figures("oracle", 30, 40),
    }
    play = play_of(bots)
    assert play.fair.bot == "planner" and play.gap == pytest.approx(0.25) and not play.fair_above_oracle
    q = chapter_quality("fauna")
    assert not [f for f in flags_for("fauna", bots, None, q) if f.code == "oracle_below"]
    bots["oracle"] = _figures("oracle", 1, 40)
    bots["planner"] = _figures("planner", 35, 40)
    (flag,) = [f for f in flags_for("fauna", bots, None, q) if f.code == "oracle_below"]
    assert flag.reason.startswith("planner wins 87.5%, above the oracle's 2.5% outside the intervals")
    assert play_of({"heuristic": bots["heuristic"]}) is None


def test_grade_reports_play_difficulty_beside_the_deduction_grade():
    m = read_map(TRAINING)
    games = {"heuristic": 6, "clairvoyant": 4, "planner": 1, "oracle": 2}
    g = grade(m, "t", games=games, seed=2, deduce=False, budgets={"planner": 1, "oracle": 1})
    out = g.to_json()
    assert set(out) >= {"bots", "gap", "gap_bots", "play", "deduction", "flags"}
    assert set(out["bots"]) == set(games)
    play = out["play"]
    assert set(play) == {
        "fair_bot",
        "fair_win_rate",
        "fair_win_rate_ci",
        "oracle_win_rate",
        "oracle_win_rate_ci",
        "gap",
        "gap_ci",
        "fair_above_oracle",
    }
    lo, hi = play["gap_ci"]  # Newcombe's interval for a difference of two rates: about the gap, within [-1, 1]
    assert -1 <= lo <= play["gap"] <= hi <= 1 and hi - lo > 0.5  # 2 oracle games and 1 planner game: wide
    fair = max(("heuristic", "planner"), key=lambda b: (out["bots"][b]["win_rate"], b == "heuristic"))
    assert play["fair_bot"] == fair and out["gap_bots"] == ["oracle", fair]
    assert out["gap"] == play["gap"] == round(out["bots"]["oracle"]["win_rate"] - out["bots"][fair]["win_rate"], 4)
    # the figures are the playtest's for the same seed and budget
    s = Settings(bot="oracle", seed=2, budget=1)
    assert out["bots"]["oracle"]["wins"] == summarise(run_playtest(m, s, 2), m, s)["wins"]
    assert "play" in g.table() and g.row()["fair_bot"] == fair
    from mapgen.grade import report_text

    assert f"gap oracle − {fair} =" in report_text(g)
    # without the oracle, the older gap: clairvoyant minus deducer (none here)
    g2 = grade(m, "t", games={"heuristic": 4, "clairvoyant": 4}, seed=2, deduce=False)
    assert g2.play is None and g2.gap is None and g2.to_json()["play"] is None


def test_readme_correlations_speak_of_play():
    from maps.build import correlation

    m = read_map(TRAINING)
    from dataclasses import replace

    from mapgen.grade import Deduction, MapGrade

    grades = []
    for k, tier in enumerate(["Gentle", "Moderate", "Tricky", "Fiendish"]):
        d = Deduction(5, None, None, (), None, {"tier": tier, "guesses": 1, "largest_reason": 1, "deduced_share": 1.0})
        bots = {"planner": _figures("planner", 30 - 5 * k, 40), "oracle": _figures("oracle", 35, 40)}
        grades.append(MapGrade("m", m.chapter, 0, bots, d, chapter_quality(m.chapter)))
    assert correlation(grades, lambda g: g.play.fair.win_rate if g.play else None) == "-1.00"
    assert correlation(grades, lambda g: g.play.gap if g.play else None) == "+1.00"
    assert correlation([replace(g, bots={}) for g in grades], lambda g: g.play.gap if g.play else None) == "n/a"
    from mapgen.grade import play_correlations

    assert play_correlations(grades) == (
        "rank correlation (Spearman) over 4 training maps of the deduction grade with the best fair bot's win rate: -1.00; "
        "with the oracle gap: +1.00"
    )
    assert play_correlations(grades[:2]) is None


@pytest.mark.parametrize("bot", ["oracle", "planner"])
def test_the_same_games_on_one_process_or_two(bot):
    m = read_map(TRAINING)
    s = Settings(bot=bot, seed=9, budget=1)
    one = run_playtest(m, s, 4, jobs=1, keep_actions=True)
    two = run_playtest(m, s, 4, jobs=2, keep_actions=True)
    assert [r.actions for r in one] == [r.actions for r in two]


def _reference_search(values, n: int, candidates: list[int]) -> int:
    """The oracle's search before the cuts (issue 41): every live round for every candidate, the half-way
    stop, ties to the first: the choice the cut-down search must keep."""
    totals = [0.0] * len(candidates)
    wins = [0] * len(candidates)
    for r in range(1, n + 1):
        for k, a in enumerate(candidates):
            v = values[r - 1, a]
            totals[k] += v
            wins[k] += v > 0
        if 2 * r >= n and r < n and (max(wins) == 0 or min(wins) == r):
            break
    best = 0
    for k in range(1, len(candidates)):
        if totals[k] > totals[best] + 1e-9:
            best = k
    return candidates[best]


def _fake_rollouts(monkeypatch, values):
    """``oracle.rollout`` returning ``values[seed, action]`` (seed k is round k), and a state whose game's
    Challenge cards bound a return at 1 + (their times + 100) / 1000."""
    from types import SimpleNamespace

    from mapgen.engine.bots import oracle

    played = []

    def rollout(state, m, player, action, key, seed):
        played.append((seed, action))
        return values[seed, action]

    monkeypatch.setattr(oracle, "rollout", rollout)
    state = SimpleNamespace(game=SimpleNamespace(challenges=[SimpleNamespace(time=5)] * 6))
    return oracle, state, played


def test_a_search_that_drops_hopeless_candidates_chooses_as_the_full_search(monkeypatch):
    rng = random.Random(5)
    values: dict = {}
    oracle, state, played = _fake_rollouts(monkeypatch, values)
    cut = 0
    for _ in range(400):
        n, cands = rng.choice((2, 3, 4, 6)), list(range(rng.choice((2, 3, 4))))
        for r in range(n):
            for a in cands:  # a loss, or a win with a score of 10 to 40 (a few candidates win more often)
                values[r, a] = 0.0 if rng.random() < 0.3 + 0.15 * a else 1 + rng.randint(10, 40) / 1000
        played.clear()
        best, count = oracle.rollout_search([(state, None)] * n, list(range(n)), 0, cands, None)
        assert best == _reference_search(values, n, cands)
        assert count == len(played) <= n * len(cands)
        cut += count < n * len(cands)
    assert cut > 50  # the cut happens


def test_the_gate_plays_the_clairvoyant_choice_when_it_wins_its_first_rollout(monkeypatch):
    values = {(0, 7): 1.02, (0, 8): 1.04, (1, 7): 0.0, (1, 8): 1.04}
    oracle, state, played = _fake_rollouts(monkeypatch, values)
    assert oracle.rollout_search([(state, None)] * 2, [0, 1], 0, [7, 8], None, gate=True) == (7, 1)
    assert played == [(0, 7)]
    # without the gate the better candidate is found (both won the first round: the half-way stop)
    played.clear()
    assert oracle.rollout_search([(state, None)] * 2, [0, 1], 0, [7, 8], None) == (8, 2)
    # the clairvoyant choice loses its first rollout: the others are tried on the same seed; in the last round
    # 8 (won) goes first and wins again, and 7 (lost) could not catch up even winning at the top return: not played
    values[0, 7] = 0.0
    played.clear()
    assert oracle.rollout_search([(state, None)] * 2, [0, 1], 0, [7, 8], None, gate=True) == (8, 3)
    assert played == [(0, 7), (0, 8), (1, 8)]


def test_candidates_that_agree_on_the_first_round_stop_the_search(monkeypatch):
    values = {(r, a): v for r in range(4) for a, v in ((1, 0.0), (2, 0.0), (3, 0.0 if r == 0 else 1.03))}
    oracle, state, _ = _fake_rollouts(monkeypatch, values)
    worlds = [(state, None)] * 4
    assert oracle.rollout_search(worlds, [0, 1, 2, 3], 0, [1, 2, 3], None, agree=True) == (1, 3)
    assert oracle.rollout_search(worlds, [0, 1, 2, 3], 0, [1, 2, 3], None)[0] == 3  # the full search finds it


def test_a_search_handed_the_first_candidates_returns_chooses_as_the_full_search(monkeypatch):
    """The scout's gate plays the first candidate on every world before the search: the search then uses
    those returns (not playing them again) and chooses what it would have chosen playing them."""
    rng = random.Random(6)
    values: dict = {}
    oracle, state, played = _fake_rollouts(monkeypatch, values)
    for _ in range(200):
        n, cands = rng.choice((1, 2, 3)), list(range(rng.choice((2, 3, 4))))
        for r in range(n):
            for a in cands:
                values[r, a] = 0.0 if rng.random() < 0.4 else 1 + rng.randint(10, 40) / 1000
        worlds = [(state, None)] * n
        full = oracle.rollout_search(worlds, list(range(n)), 0, cands, None, agree=True)
        played.clear()
        first = [values[r, 0] for r in range(n)]
        best, count = oracle.rollout_search(worlds, list(range(n)), 0, cands, None, agree=True, first=first)
        assert best == full[0] and count <= full[1]
        assert all(a != 0 for _, a in played)  # the first candidate is never played again
        # the scout's gate stops at its first loss: the first candidate's returns on the worlds after it are
        # played by the search (only those, and only when it gets there), for the same choice
        j = next((r + 1 for r in range(n) if values[r, 0] <= 0), n)
        played.clear()
        best, _ = oracle.rollout_search(worlds, list(range(n)), 0, cands, None, agree=True, first=first[:j])
        assert best == full[0]
        assert all(r >= j for r, a in played if a == 0)


def test_the_last_round_skips_candidates_that_cannot_catch_the_leader(monkeypatch):
    """In the last round the leaders play first; a candidate behind by more than a win at the top return
    plays none (the same choice as the full search, fewer rollouts: over random searches, some are cut)."""
    rng = random.Random(8)
    values: dict = {}
    oracle, state, played = _fake_rollouts(monkeypatch, values)
    cut = 0
    for _ in range(300):
        n, cands = 2, list(range(rng.choice((2, 3, 4))))
        for r in range(n):
            for a in cands:
                values[r, a] = 0.0 if rng.random() < 0.5 else 1 + rng.randint(10, 40) / 1000
        played.clear()
        best, count = oracle.rollout_search([(state, None)] * n, list(range(n)), 0, cands, None)
        assert best == _reference_search(values, n, cands) and count == len(played)
        mixed = len({values[0, a] > 0 for a in cands}) == 2  # no half-way stop: the last round is played
        cut += mixed and count < n * len(cands)
    assert cut > 30
