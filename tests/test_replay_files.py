"""Replay files (``mapgen playtest --replay DIR``, ``--show FILE``) edited, cut or of the wrong shape: one line, exit 2.

A replay is a game's settings and its actions; ``--show`` plays it back. What a user relies on: a file it
cannot play back as recorded says so in one line naming the file and what is wrong (never a traceback, never a
silent exit 0 on a game that is not the one recorded), and a good file plays back to the recorded end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from constraints.catalogue import chapter_from_data, get_chapter, load_chapter
from mapgen.engine.playtest import load_replay
from mapgen.solving.compiled import chapter_fingerprint


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One Training game saved by ``mapgen playtest --replay``: its file's data."""
    runs = tmp_path_factory.mktemp("runs")
    r = run("playtest", "training-1", "--games", "1", "--replay", runs, "--json")
    assert r.exit_code == 0, r.output
    return json.loads((runs / "game-00000.json").read_text(encoding="utf-8"))


def edited(tmp_path, data: dict, **changes):
    f = tmp_path / "game.json"
    f.write_text(json.dumps({**data, **changes}), encoding="utf-8")
    return f


def fails(r, line: str) -> None:
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert r.stderr == line + "\n", r.stderr
    assert "Traceback" not in r.output


def test_a_recorded_game_plays_back_to_its_recorded_end(tmp_path, recorded):
    r = run("playtest", "--show", edited(tmp_path, recorded))
    assert r.exit_code == 0, r.output
    assert f"Game over: {recorded['outcome']}, score {recorded['score']}" in r.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    "bad, why",
    [
        ("x", "'x'"),
        (None, "null"),
        (1.5, "1.5"),
        (True, "true"),
        ("3", "'3'"),
    ],
)
def test_an_action_that_is_not_a_whole_number_is_named(tmp_path, recorded, bad, why):
    """Found by an audit: "x" or null was a ValueError/TypeError traceback (exit 1); 1.5 and true were read as
    action 1 and reported as an illegal "explore B4"; "3" was read as 3."""
    actions = list(recorded["actions"])
    actions[5] = bad
    f = edited(tmp_path, recorded, actions=actions)
    fails(run("playtest", "--show", f), f"error: {f}: actions: item 6 is {why}, not an action number")


@pytest.mark.parametrize(
    "field, value, problem",
    [
        ("players", "1", "players: a whole number of players (1 to 4), not '1'"),
        ("players", True, "players: a whole number of players (1 to 4), not true"),
        ("seed", "x", "seed: a whole number, not 'x'"),
        ("characters", "Lewis", "characters: a list of character names, not 'Lewis'"),
        ("gear", 5, "gear: a list of each player's Gear (lists of names), not 5"),
        ("gear", ["Compass"], "gear: a list of each player's Gear (lists of names), not ['Compass']"),
        ("medicine", "yes", "medicine: true or false, not 'yes'"),
        ("mode", 3, "mode: coop, traitor or null, not 3"),
        ("variants", "relaunch", "variants: a list of variant names, not 'relaunch'"),
        ("map", 5, "map: a map file's text, not 5"),
        ("outcome", 7, "outcome: the game's end as text, not 7"),
        ("score", "17", "score: a whole number, not '17'"),
    ],
)
def test_a_field_of_the_wrong_kind_is_named(tmp_path, recorded, field, value, problem):
    """Found by an audit: these read "players must be 1 to 4, not 1", "no character 'L'", "unknown variant 'r'",
    "'int' object is not iterable", "parse_map takes a map file's text ...", or were accepted (a seed "x")."""
    f = edited(tmp_path, recorded, **{field: value})
    fails(run("playtest", "--show", f), f"error: {f}: {problem}")


@pytest.mark.parametrize("field", ["map", "players", "seed", "actions"])
def test_a_missing_field_is_named(tmp_path, recorded, field):
    """Found by an audit: a file without "map" said only `error: FILE: 'map'` (a KeyError's text)."""
    data = {k: v for k, v in recorded.items() if k != field}
    f = edited(tmp_path, data)
    expected = (
        "not a replay file written by mapgen playtest --replay" if field == "actions" else f"missing field {field!r}"
    )
    fails(run("playtest", "--show", f), f"error: {f}: {expected}")


def test_a_replay_cut_short_is_refused_before_it_plays(tmp_path, recorded):
    """Found by an audit: a file whose actions stop before the game's end played back the first part and exited 0,
    as if the game had stopped there."""
    f = edited(tmp_path, recorded, actions=recorded["actions"][:20])
    r = run("playtest", "--show", f)
    fails(
        r,
        f"error: {f}: the game is not over after its 20 recorded actions, but the file records its end "
        f"({recorded['outcome']}, score {recorded['score']}): the file was cut short or edited",
    )
    assert r.stdout == ""  # checked before the playback starts


def test_a_replay_that_ends_otherwise_than_recorded_is_refused(tmp_path, recorded):
    """Found by an audit: the recorded outcome and score were never compared with the game played back (a file made
    by another version of the engine, or edited, showed another game and exited 0)."""
    f = edited(tmp_path, recorded, outcome="thirst", score=3)
    fails(
        run("playtest", "--show", f),
        f"error: {f}: the recorded actions end the game in {recorded['outcome']}, score {recorded['score']}, but the "
        "file records thirst, score 3 (an edited file, or one recorded by another version of mapgen)",
    )


def test_an_illegal_action_is_refused_before_the_playback_starts(tmp_path, recorded):
    actions = list(recorded["actions"])
    actions[5] = 99999
    f = edited(tmp_path, recorded, actions=actions)
    r = run("playtest", "--show", f)
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: {f}: the recorded action 99999 (chance outcome 98999) cannot be played here")
    assert r.stdout == ""


@pytest.mark.parametrize("version", [0, 3])
def test_a_replay_of_another_format_version_says_so(tmp_path, recorded, version):
    """Found by an audit: a file of another format version read "not a replay file written by mapgen playtest
    --replay", as if it were some other JSON."""
    f = edited(tmp_path, recorded, version=version)
    fails(
        run("playtest", "--show", f),
        f"error: {f}: a replay file of format version {version}; this mapgen plays back versions 1 and 2 "
        "(record the game again with this mapgen's playtest --replay)",
    )


def test_a_replay_names_the_variants_it_was_played_with(tmp_path):
    """Found by an audit: a game played with --variant relaunch played back under a header that named no variant
    (the playtest report names them: "..., seed 0, variants relaunch")."""
    runs = tmp_path / "runs"
    r = run("playtest", "training-1", "--games", "1", "--variant", "relaunch", "--replay", runs, "--json")
    assert r.exit_code == 0, r.output
    r = run("playtest", "--show", runs / "game-00000.json")
    assert r.exit_code == 0, r.output
    head = r.stdout.splitlines()[0]
    assert head.startswith("Replay of game 0 (seed 0, bot heuristic): ")
    assert head.endswith(", variants relaunch")


# ----- format version 2: house rules and the search budget -----

FAUNA = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def house(tmp_path_factory) -> Path:
    """Fauna's rules with 2 or 3 Forts (fauna-1, with 3, keeps them): another rule set, another fingerprint."""
    assert "at_least = 3, at_most = 3" in FAUNA
    path = tmp_path_factory.mktemp("house") / "house.toml"
    path.write_text(FAUNA.replace("at_least = 3, at_most = 3", "at_least = 2, at_most = 3"), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def house_replay(house, tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("house-runs")
    r = run("playtest", "fauna-1", "--rules", house, "--games", "1", "--jobs", "1", "--replay", runs, "--json")
    assert r.exit_code == 0, r.output
    return runs / "game-00000.json"


def test_a_replay_records_the_house_rules_the_bots_played_with(house, house_replay):
    """Found by a review: a game played under --rules house.toml was saved without them, and played back as a game
    of the shipped rules (its header said nothing of them; load_replay's Game reasoned with the shipped rules)."""
    data = json.loads(house_replay.read_text(encoding="utf-8"))
    assert data["version"] == 2
    fingerprint = chapter_fingerprint(load_chapter(house))
    assert fingerprint != chapter_fingerprint(get_chapter("fauna"))
    assert data["rules"]["file"] == "house.toml" and data["rules"]["fingerprint"] == fingerprint
    r = run("playtest", "--show", house_replay)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0].endswith(f", house rules house.toml (fingerprint {fingerprint})")
    game, _, _ = load_replay(house_replay)
    assert chapter_fingerprint(game.reference) == fingerprint


def test_a_house_rules_replay_plays_back_without_the_house_file(house, house_replay, tmp_path):
    """The replay holds the rules themselves (as it holds the map): it plays back on another machine, or after the
    house file was changed or removed."""
    moved = tmp_path / "game.json"
    moved.write_bytes(house_replay.read_bytes())
    house.write_text(FAUNA, encoding="utf-8")  # the house file now holds the shipped rules
    try:
        r = run("playtest", "--show", moved)
    finally:
        house.write_text(FAUNA.replace("at_least = 3, at_most = 3", "at_least = 2, at_most = 3"), encoding="utf-8")
    assert r.exit_code == 0, r.output
    assert "house rules house.toml" in r.stdout.splitlines()[0]


def test_edited_house_rules_in_a_replay_are_refused(tmp_path, house_replay):
    data = json.loads(house_replay.read_text(encoding="utf-8"))
    rules = data["rules"]
    own = [dict(r) for r in rules["chapter"]["rule"]]
    own[0]["title"] = "edited"  # a rule's title is part of the fingerprint (a map's helper link names it)
    chapter = {**rules["chapter"], "rule": own}
    f = edited(tmp_path, data, rules={**rules, "chapter": chapter})
    r = run("playtest", "--show", f)
    fails(
        r,
        f"error: {f}: rules: the house rules it holds have fingerprint "
        f"{chapter_fingerprint(chapter_from_data(chapter))}, but it records {rules['fingerprint']} (an edited file)",
    )
    f = edited(tmp_path, data, rules={**rules, "chapter": {**rules["chapter"], "board": "9x9"}})
    r = run("playtest", "--show", f)
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {f}: rules: ") and "board" in r.stderr, r.stderr
    f = edited(tmp_path, data, rules={**rules, "colour": "red"})
    fails(
        run("playtest", "--show", f),
        f"error: {f}: rules: unknown field 'colour' (rules has: file, fingerprint, chapter)",
    )


def test_a_replay_records_the_search_budget(tmp_path):
    runs = tmp_path / "runs"
    r = run("playtest", "training-1", "--bot", "scout", "--budget", "2", "--games", "1", "--replay", runs)
    assert r.exit_code == 0, r.output
    data = json.loads((runs / "game-00000.json").read_text(encoding="utf-8"))
    assert data["budget"] == 2 and data["rules"] is None
    r = run("playtest", "--show", runs / "game-00000.json")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("Replay of game 0 (seed 0, bot scout, budget 2): ")


def test_a_version_1_replay_still_plays_back(tmp_path, recorded):
    """Files written before version 2 (no rules, no budget) play back as they did."""
    v1 = {k: v for k, v in recorded.items() if k not in ("rules", "budget")}
    f = edited(tmp_path, v1, version=1)
    r = run("playtest", "--show", f)
    assert r.exit_code == 0, r.output
    assert f"Game over: {recorded['outcome']}, score {recorded['score']}" in r.stdout.splitlines()[-1]
    f = edited(tmp_path, v1, version=1, rules=None)  # a version-1 file has no rules field
    fails(
        run("playtest", "--show", f),
        f"error: {f}: unknown field 'rules' (replay files of version 1 have: version, map, bot, players, characters, "
        "gear, medicine, mode, variants, seed, game, outcome, score, actions)",
    )
