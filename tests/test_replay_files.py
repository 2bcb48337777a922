"""Replay files (``mapgen playtest --replay DIR``, ``--show FILE``) edited, cut or of the wrong shape: one line, exit 2.

A replay is a game's settings and its actions; ``--show`` plays it back. What a user relies on: a file it
cannot play back as recorded says so in one line naming the file and what is wrong (never a traceback, never a
silent exit 0 on a game that is not the one recorded), and a good file plays back to the recorded end.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli import main


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


@pytest.mark.parametrize("version", [0, 2])
def test_a_replay_of_another_format_version_says_so(tmp_path, recorded, version):
    """Found by an audit: a file of another format version read "not a replay file written by mapgen playtest
    --replay", as if it were some other JSON."""
    f = edited(tmp_path, recorded, version=version)
    fails(
        run("playtest", "--show", f),
        f"error: {f}: a replay file of format version {version}; this mapgen plays back version 1 "
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
