"""``mapgen playtest`` through click's CliRunner: the JSON contract, seeds, errors, replays; and card files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from mapgen.engine.cards import CardError, load_card_file, load_cards
from mapgen.engine.game import Game
from mapgen.mapfile import read_map

DATA = Path(__file__).parent / "data"
FAUNA = str(DATA / "engine_fauna_201.toml")
TRAINING = str(DATA / "engine_training_201.toml")


def run(*args):
    return CliRunner().invoke(main, ["playtest", *args])


def test_json_contract():
    r = run(FAUNA, "--games", "12", "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    for key, kind in [
        ("games", int),
        ("wins", int),
        ("win_rate", float),
        ("mean_score", float),
        ("mean_days", float),
        ("losses", dict),
        ("sealed", int),
        ("sealed_by", dict),
        ("win_rate_ci", list),
    ]:
        assert isinstance(rep[key], kind), key
    assert rep["games"] == 12 and 0 <= rep["wins"] <= 12
    assert rep["win_rate"] == pytest.approx(rep["wins"] / 12, abs=1e-4)
    lo, hi = rep["win_rate_ci"]
    assert 0 <= lo <= rep["win_rate"] <= hi <= 1
    # every game is won, lost to a rulebook cause, or sealed (issue 12: a sealed game is no loss)
    assert sum(rep["losses"].values()) + rep["sealed"] == 12 - rep["wins"] and "sealed" not in rep["losses"]
    assert sum(rep["sealed_by"].values()) == rep["sealed"]
    assert all(isinstance(v, int) for v in rep["losses"].values())
    assert rep["bot"] == "heuristic" and len(rep["scores"]) == 12 and sum(rep["levels"].values()) == rep["wins"]


def test_same_seed_same_report_whatever_the_jobs():
    a = json.loads(run(TRAINING, "--games", "16", "--seed", "3", "--json").output)
    b = json.loads(run(TRAINING, "--games", "16", "--seed", "3", "--json", "--jobs", "2").output)
    c = json.loads(run(TRAINING, "--games", "16", "--seed", "4", "--json").output)
    assert a == b
    assert a["scores"] != c["scores"]


def test_readable_report_names_causes_and_events():
    r = run(FAUNA, "--games", "10", "--bot", "clairvoyant", "--players", "2")
    assert r.exit_code == 0, r.output
    assert "wins" in r.output and "95% interval" in r.output and "mean days" in r.output
    assert "first fort" in r.output and "2 player(s)" in r.output


def test_bad_maps_get_one_line_errors(tmp_path):
    r = run(str(tmp_path / "nope.toml"))
    assert r.exit_code == 2 and r.stderr == f"error: {tmp_path / 'nope.toml'}: no such file\n"
    r = run("fauna-99")
    assert r.exit_code == 2 and r.stderr.startswith("error: fauna-99: no such file, and no shipped map of that name")
    bad = tmp_path / "bad.toml"
    bad.write_text("chapter = 'fauna'\nthis is not toml", encoding="utf-8")
    r = run(str(bad))
    assert r.exit_code == 2 and r.output.startswith(f"error: {bad}: not valid TOML") and r.output.count("\n") == 1
    assert "Traceback" not in r.output
    text = Path(FAUNA).read_text(encoding="utf-8")
    broken = tmp_path / "broken.toml"
    broken.write_text(text.replace("A   Hi0  Hi0  Vi", "A   Hi0  Hi0  Ro"), encoding="utf-8")
    r = run(str(broken))
    assert r.exit_code == 1 and r.output.startswith(f"error: {broken}: not a valid fauna map: it breaks ")
    assert "mapgen validate" in r.output
    partial = tmp_path / "partial.toml"
    partial.write_text(text.replace("A   Hi0  Hi0  Vi", "A   ..  Hi0  Vi"), encoding="utf-8")
    r = run(str(partial))
    assert r.exit_code == 2 and r.output == (
        f"error: {partial}: a partial map (1 unrevealed cell, first A1); mapgen playtest needs a complete map\n"
    )


def test_team_errors_and_unplayable_chapters():
    r = run(FAUNA, "--characters", "Collins")
    assert r.exit_code == 1 and "Collins cannot be used in a solo game" in r.output
    r = run(FAUNA, "--players", "2", "--gear", "Compass;Flint")
    assert r.exit_code == 1 and "2 Gear card(s)" in r.output
    flora = DATA / "valid" / "flora-201.toml"
    if flora.exists():
        r = run(str(flora), "--games", "2", "--json")  # Flora plays now (mapgen/engine/flora.py)
        assert r.exit_code == 0 and json.loads(r.output)["chapter"] == "flora"
    r = run()
    assert r.exit_code == 2


def test_a_played_back_game_says_none_where_no_destiny_card_is_face_up(tmp_path):
    """`playtest --show` printed "Destiny: held none; face up " (nothing after it) before any Destiny card was
    turned: it says none, as the held cards do."""
    out = tmp_path / "runs"
    assert run("fauna-1", "--games", "1", "--replay", str(out)).exit_code == 0
    r = CliRunner().invoke(main, ["playtest", "--show", str(out / "game-00000.json")])
    assert r.exit_code == 0, r.output
    destiny = [line for line in r.output.splitlines() if line.startswith("Destiny: ")]
    assert destiny[0] == "Destiny: held none; face up none"
    assert not [line for line in destiny if line.endswith("face up ")]


def test_replay_saved_and_played_back(tmp_path):
    out = tmp_path / "runs"
    r = run(TRAINING, "--games", "3", "--replay", str(out), "--json")
    assert r.exit_code == 0, r.output
    files = sorted(out.glob("game-*.json"))
    assert len(files) == 3
    data = json.loads(files[1].read_text())
    assert data["actions"] and data["seed"] is not None
    r = CliRunner().invoke(main, ["playtest", "--show", str(files[1])])
    assert r.exit_code == 0, r.output
    assert "Game over" in r.output and f"#{len(data['actions'])}" in r.output
    r = CliRunner().invoke(main, ["playtest", "--show", str(files[1]), "--step"])
    assert r.output.count("Backpack:") == len(data["actions"]) + 1
    data["actions"][5] = 999
    files[1].write_text(json.dumps(data))
    r = CliRunner().invoke(main, ["playtest", "--show", str(files[1])])
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {files[1]}: the recorded action 999 (")
    assert "cannot be played here" in r.stderr and r.stderr.count("\n") == 1
    r = CliRunner().invoke(main, ["playtest", "--show", str(tmp_path / "none.json")])
    assert r.exit_code == 2 and r.stderr == f"error: {tmp_path / 'none.json'}: no such file\n"


@pytest.mark.parametrize(
    ("given", "named"),
    [(["--json"], "--json"), ([TRAINING], "MAP"), (["--games", "5"], "--games"), (["--plot", "p.png"], "--plot")],
)
def test_a_setting_show_would_ignore_is_refused(tmp_path, monkeypatch, given, named):
    """--show plays a saved game back as text: --json, a MAP, --games or --plot beside it were silently ignored."""
    monkeypatch.chdir(tmp_path)
    assert run(TRAINING, "--games", "1", "--replay", "runs").exit_code == 0
    r = run("--show", "runs/game-00000.json", *given)
    assert r.exit_code == 2 and r.stdout == ""
    assert (
        r.stderr
        == f"error: {named}: not used with --show, which plays the saved game back as it was played (as text)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]


def test_shipped_cards_match_the_rulebook_counts():
    cards = load_cards()
    box = ("core", "fauna", "flora")  # the core box; the expansions' cards are counted in their own tests
    for kind in ("challenges", "destiny", "threats", "kills"):
        setattr(cards, kind, [c for c in getattr(cards, kind) if c.chapter in box])
    assert (
        len(cards.challenges) == 24 and len(cards.destiny) == 13 and len(cards.threats) == 6 and len(cards.kills) == 4
    )
    assert cards.all_approximate
    assert [c.name for c in cards.challenges if c.first] == ["Approach the Arch"]
    assert "Make Ammo" in [k.name for k in cards.kills if k.training]
    school = next(c for c in cards.challenges if c.name == "School of Fish")
    assert school.bonus_if == "fire"


def test_a_typed_in_card_file_replaces_the_designed_cards(tmp_path):
    f = tmp_path / "printed.toml"
    f.write_text(
        'chapter = "core"\n'
        '[[challenge]]\nname = "Approach the Arch"\nfirst = true\ntime = 2\nrequires = ["Wa"]\n'
        'pass = ["gain 1 Fo"]\nfail = ["lose 2 Wa"]\n'
        '[[challenge]]\nname = "Only Card"\ntime = 1\noptional = ["Fo"]\nfail = ["lose 1 any"]\n'
        '[[threat]]\nname = "Injured"\nkind = "injured"\ntime = 2\n',
        encoding="utf-8",
    )
    cards = load_card_file(f)
    assert not cards.all_approximate
    g = Game(read_map(FAUNA), cards=cards)
    assert [c.name for c in g.challenges] == ["Approach the Arch", "Only Card"] and not g.destiny
    bad = tmp_path / "bad.toml"
    bad.write_text('[[challenge]]\nname = "X"\ntime = 3\nrequires = ["Qq"]\n', encoding="utf-8")
    with pytest.raises(CardError, match="unknown resource 'Qq'"):
        load_card_file(bad)
    bad.write_text('[[challenge]]\nname = "X"\ntime = 3\npass = ["steal 1 Fo"]\n', encoding="utf-8")
    with pytest.raises(CardError, match="expected one of"):
        load_card_file(bad)


def test_help_describes_every_bot_and_every_budget():
    """Each bot --bot offers is described in the help, and --budget's help names each bot that takes one
    (the scout was offered but described nowhere)."""
    import re

    from mapgen.engine.bots import BOTS, HAS_BUDGET

    text = " ".join(CliRunner().invoke(main, ["playtest", "--help"], terminal_width=1000).output.split())
    bots = text.split("Bots: ", 1)[1].split("Example:", 1)[0]
    budget = text.split("--budget INTEGER RANGE", 1)[1].split("[1<=x", 1)[0]
    for bot in BOTS:
        assert re.search(rf"\b{bot}\b( \(|,)", bots), bot
    for bot in HAS_BUDGET:
        assert re.search(rf"\b{bot}\b", budget), bot


def test_characters_and_gear_are_read_in_any_case():
    """`--characters clark --gear compass,FLINT,jar` is Clark with the Compass, Flint and Jar, as chapter names and
    terrain codes are read in any case (it was 'unknown character', exit 2)."""
    lower = run(FAUNA, "--games", "3", "--characters", "clark", "--gear", "compass,FLINT,jar", "--json")
    spelt = run(FAUNA, "--games", "3", "--characters", "Clark", "--gear", "Compass,Flint,Jar", "--json")
    assert (lower.exit_code, spelt.exit_code) == (0, 0), lower.output
    assert json.loads(lower.output) == json.loads(spelt.output)
    assert json.loads(lower.output)["team"] == [{"character": "Clark", "gear": ["Compass", "Flint", "Jar"]}]


def test_a_report_without_wins_gives_no_mean_over_wins():
    """Random play won none of its games, and the report said "0.0 over wins", as if won games scored nothing."""
    r = run(TRAINING, "--bot", "random", "--games", "5")
    assert r.exit_code == 0, r.output
    assert "wins         0/5 = 0.0%" in r.output
    assert "over wins" not in r.output and "scores 0); no wins" in r.output
    won = run(TRAINING, "--bot", "clairvoyant", "--games", "5")
    assert " over wins" in won.output


def test_maldonado_finale_says_how_many_crew_members_were_saved():
    """The finale's event "saved 0" stood beside "kill 1" in the report and read as an event of Crew Member 0:
    it counts the Crew Members saved at the finale. The JSON keeps the event's name."""
    r = run("maldonado-4", "--bot", "clairvoyant", "--games", "3")
    assert r.exit_code == 0, r.output
    lines = [x.strip() for x in r.output.splitlines()]
    finales = [x for x in lines if "Crew saved" in x]
    assert finales and all(x.split()[0].isdigit() and x.split()[1:3] == ["Crew", "saved"] for x in finales)
    assert not any(x.startswith("saved ") for x in lines)
    events = json.loads(run("maldonado-4", "--bot", "clairvoyant", "--games", "3", "--json").output)["events"]
    assert any(e.startswith("saved ") for e in events)


def test_help_and_readme_say_where_the_scout_starts_to_search():
    """`playtest --help` (twice) and the README's --budget said the scout searches "once (about) half the board is
    explored": 26 of 49 cells until 2026-12-07, 35 (``LATE``, 71%) since. They now give its share."""
    from mapgen.engine.bots.scout import LATE

    share = f"once {round(LATE * 100)}% of the board is explored"
    text = " ".join(run("playtest", "--help").output.split())
    readme = " ".join((Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8").split())
    for where, said in (("help", text), ("README", readme)):
        assert "half the board" not in said, where
    assert text.count(share) == 2
    assert f"scout: worlds per Path {share}" in readme
