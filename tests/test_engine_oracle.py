"""The oracle (a rollout search with the map in view: the upper bound) and the planner (the strong fair bot):
seeded play, the bound above the fair bots, what each is handed, the CLI, and grade's play figures."""

from __future__ import annotations

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
    state = make_game(m, Settings(), 11).new_initial_state()
    bot = OracleBot(random.Random(3), m, 2)
    play_game(state, [bot], random.Random(11))
    assert bot.searches > 10 and bot.rollouts >= 2 * bot.searches and bot.departures > 0


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
        "fair_above_oracle",
    }
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
        "rank correlation (Spearman) over 4 maps of the deduction grade with the best fair bot's win rate: -1.00; "
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
