"""``mapgen repair``, ``mapgen generate --from`` and ``mapgen serve`` through the real commands."""

from __future__ import annotations

import json
import socket
from dataclasses import replace

import pytest
from click.testing import CliRunner

import maps
from cli import main
from constraints.catalogue import check_map
from mapgen.mapfile import dumps_map, parse_map
from mapgen.terrain import Terrain


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def broken(tmp_path):
    m = maps.load("fauna-1")
    i = m.board.index("B2")
    f = tmp_path / "broken.toml"
    f.write_text(
        dumps_map(m.with_cells(Terrain.FORT if k == i else t for k, t in enumerate(m.cells))), encoding="utf-8"
    )
    return f


def test_repair_prints_the_nearest_map_and_lists_the_change(broken):
    r = run("repair", broken)
    assert r.exit_code == 0, r.output
    assert parse_map(r.stdout).cells == maps.load("fauna-1").cells
    n = len(check_map(parse_map(broken.read_text(encoding="utf-8"))))
    assert r.stderr.splitlines() == [
        f"{broken}: {n} violations; repaired by changing 1 cell (the fewest possible):",
        (
            "  B2: Ft -> Wa (mends F2, C1: the map has 4 Forts (B2, B4, B6, F5), expected exactly 3; "
            "the Wood at B3 has no Water orthogonally next to it)"
        ),
    ]


def test_repair_counts_hill_numbers_and_blank_cells_apart_from_the_changed_cells(broken, tmp_path):
    # a designer saw "repaired by changing 1 cell" over two or fifteen listed lines: each kind is counted
    text = broken.read_text(encoding="utf-8")
    m = parse_map(text)
    hill = m.board.name(next(i for i in m.hills if m.hills[i] == 0))
    wrong = tmp_path / "wrong-hill.toml"
    wrong.write_text(dumps_map(m.with_cells(m.cells, {**m.hills, m.board.index(hill): 3})), encoding="utf-8")
    r = run("repair", wrong)
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0].endswith(
        "repaired by changing 1 cell (the fewest possible); 1 Hill number set right:"
    )
    assert len(r.stderr.splitlines()) == 3
    partial = tmp_path / "partial.toml"
    partial.write_text(dumps_map(maps.load("fauna-1").hide(m.board.index(c) for c in ("A1", "C3"))), encoding="utf-8")
    r = run("repair", partial)
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines()[0] == (
        f"{partial}: a partial map; repaired by changing 0 cells (the fewest possible); 2 blank cells filled:"
    )


def test_repair_json_of_a_partial_map_judges_no_validity_before(tmp_path):
    """A partial map is neither valid nor invalid as a complete map: valid_before said true for one."""
    m = maps.load("fauna-1")
    partial = tmp_path / "partial.toml"
    partial.write_text(dumps_map(m.hide(m.board.index(c) for c in ("A1", "C3"))), encoding="utf-8")
    report = json.loads(run("repair", partial, "--json").stdout)
    assert report["valid_before"] is None and report["violations_before"] == []
    assert json.loads(run("repair", "training-1", "--json").stdout)["valid_before"] is True


def test_repair_writes_out_and_reports_json(broken, tmp_path):
    out = tmp_path / "fixed.toml"
    r = run("repair", broken, "-o", out, "--json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["distance"] == 1 and report["optimal"] and report["out"] == str(out)
    assert report["valid_before"] is False
    assert report["changes"] == [
        {
            "cell": "B2",
            "from": "Ft",
            "to": "Wa",
            "rules": ["F2", "C1"],
            "message": (
                "the map has 4 Forts (B2, B4, B6, F5), expected exactly 3; "
                "the Wood at B3 has no Water orthogonally next to it"
            ),
        }
    ]
    assert check_map(parse_map(out.read_text(encoding="utf-8"))) == []


def test_repair_out_lists_its_changes_on_stderr_and_prints_nothing(broken, tmp_path):
    out = tmp_path / "fixed.toml"
    r = run("repair", broken, "-o", out)
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert r.stderr.splitlines()[1] == (
        "  B2: Ft -> Wa (mends F2, C1: the map has 4 Forts (B2, B4, B6, F5), expected exactly 3; "
        "the Wood at B3 has no Water orthogonally next to it)"
    )
    assert check_map(parse_map(out.read_text(encoding="utf-8"))) == []


def test_repair_out_dash_prints_the_map_as_without_out(broken):
    """``-o -`` was refused as a file not named .toml; it means stdout, as leaving out -o does."""
    r = run("repair", broken, "-o", "-")
    assert r.exit_code == 0, r.output
    assert parse_map(r.stdout).cells == maps.load("fauna-1").cells
    assert r.stderr.splitlines()[0].endswith("repaired by changing 1 cell (the fewest possible):")


def test_repair_marks_a_generator_seed_that_no_longer_makes_the_map_and_says_so(broken, tmp_path):
    """fauna-1 with 30 cells erased (the studio's eraser), repaired: the blanks filled with another map, and its
    [generator] table still said seed 1, as if `generate -c fauna --seed 1` made it (it makes fauna-1). The table
    is now marked ``edited = true``, as the studio marks a map edited by hand (and deduce --puzzle then makes no
    claim about the seed), with a note; a repair back to the map the seed makes (B2 mistyped on fauna-1) keeps it."""
    m = maps.load("fauna-1")
    erased = tmp_path / "erased.toml"
    erased.write_text(dumps_map(m.hide(range(30))), encoding="utf-8")
    r = run("repair", erased)
    assert r.exit_code == 0, r.output
    fixed = parse_map(r.stdout)
    assert fixed.cells != m.cells and fixed.meta["generator"] == {**m.meta["generator"], "edited": True}
    assert r.stderr.splitlines()[-1] == (
        f"note: {erased}: [generator] seed 1 does not make the repaired map (mapgen generate -c fauna --seed 1 makes "
        "another): its table now says edited = true"
    )
    as_json = json.loads(run("repair", erased, "--json").stdout)
    assert as_json["seed_note"] == r.stderr.splitlines()[-1].removeprefix(f"note: {erased}: ")
    back = run("repair", broken)  # mended back to fauna-1: seed 1 makes it
    assert back.exit_code == 0 and "note:" not in back.stderr
    assert parse_map(back.stdout).meta["generator"] == m.meta["generator"]


def test_repair_knows_the_seed_makes_its_map_on_a_busy_machine(broken, monkeypatch):
    """Whether a [generator] seed still makes the repaired map was checked within 5 s of the wall clock: on a busy
    machine the map was not made again in time and the seed "is not known to make the repaired map" (its table marked
    edited). The check is now counted work (CP-SAT's deterministic time), the wall clock only a safety net: here the
    generator's clock shows 6 s gone at each look, as a machine too busy to build the model in 5 s would."""
    import itertools
    import time
    import types

    from mapgen import generate

    real, looks = time.perf_counter, itertools.count()
    busy = types.SimpleNamespace(perf_counter=lambda: real() + 6.0 * next(looks), monotonic=time.monotonic)
    monkeypatch.setattr(generate, "time", busy)
    back = run("repair", broken)  # mended back to fauna-1: seed 1 makes it
    assert back.exit_code == 0 and "note:" not in back.stderr, back.stderr
    assert parse_map(back.stdout).meta["generator"] == maps.load("fauna-1").meta["generator"]


def test_repair_of_a_valid_map_changes_nothing():
    r = run("repair", "training-1")
    assert r.exit_code == 0 and r.stderr == "training-1: valid; nothing to repair\n"
    assert parse_map(r.stdout) == maps.load("training-1")


def test_repair_of_a_valid_map_without_a_hill_number_fills_it_in(tmp_path):
    m = maps.load("fauna-1")
    hill = next(iter(m.hills))
    f = tmp_path / "bare.toml"
    f.write_text(dumps_map(m.with_cells(m.cells, {i: n for i, n in m.hills.items() if i != hill})), encoding="utf-8")
    r = run("repair", f)
    assert r.exit_code == 0 and parse_map(r.stdout).hills == m.hills
    name = m.board.name(hill)
    assert r.stderr.splitlines() == [
        f"{f}: valid; 1 Hill number filled in:",
        f"  {name}: Hi -> Hi{m.hills[hill]} (Hill number filled in: the Hill at {name} counts {m.hills[hill]})",
    ]


def test_repair_with_an_impossible_briefing_exits_1_naming_the_rule(tmp_path):
    f = tmp_path / "edge-peak.toml"
    f.write_text(
        maps.path("fauna-1").read_text(encoding="utf-8").replace('peak = "F2"', 'peak = "A1"'), encoding="utf-8"
    )
    r = run("repair", f)
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith(f"error: {f}: no valid fauna map has this briefing: ") and "C6 Rock" in r.stderr
    assert r.stderr.count("\n") == 1


def _sketch(tmp_path, name="fauna-2", keep=lambda i: i % 7 in (0, 6)):
    m = maps.load(name)
    f = tmp_path / "sketch.toml"
    f.write_text(dumps_map(m.hide(i for i in range(m.board.size) if not keep(i))), encoding="utf-8")
    return f, parse_map(f.read_text(encoding="utf-8"))


def test_generate_from_a_sketch_keeps_its_cells(tmp_path):
    f, sketch = _sketch(tmp_path)
    r = run("generate", "--from", f, "--seed", "3")
    assert r.exit_code == 0, r.output
    m = parse_map(r.stdout)
    assert check_map(m) == [] and all(m.cells[i] is t for i, t in enumerate(sketch.cells) if t is not None)
    again = run("generate", "--from", f, "--seed", "3", "--json")
    summary = json.loads(again.stdout)
    assert summary[0]["text"] == r.stdout and summary[0]["from"] == str(f) and summary[0]["seed"] == 3


def test_generate_from_a_complete_map_notes_that_there_was_nothing_to_fill(tmp_path):
    """A finished map given as a sketch came back unchanged without a word, as if it had been filled."""
    m = maps.load("fauna-1")
    f = tmp_path / "done.toml"
    f.write_text(dumps_map(m), encoding="utf-8")
    r = run("generate", "--from", f)
    assert r.exit_code == 0, r.output
    assert parse_map(r.stdout).cells == m.cells
    assert r.stderr == f"note: {f}: the sketch has no '..' cell, nothing to fill: the map is written as it is\n"
    f.write_text(dumps_map(m.with_cells(m.cells, {})), encoding="utf-8")  # its Hills without their numbers
    r = run("generate", "--from", f, "--json")
    assert r.exit_code == 0 and parse_map(json.loads(r.stdout)[0]["text"]).hills == m.hills
    assert r.stderr == f"note: {f}: the sketch has no '..' cell, nothing to fill: its Hill numbers filled in\n"
    sketch, _ = _sketch(tmp_path)
    assert run("generate", "--from", sketch).stderr == ""  # a real sketch: no note


def test_repair_and_fill_say_that_the_files_comments_are_not_kept(broken, tmp_path):
    """A designer's notes in a draft (`# draft 3: Fezron pair on the north edge`) vanished from the repaired or
    filled map without a word: mapgen writes a map file afresh from its fields. Now a note names their lines."""
    text = broken.read_text(encoding="utf-8")
    noted = tmp_path / "noted.toml"
    noted.write_text(
        '# draft 3, by Ann\nname = "Map #3"  # working title\n' + text,
        encoding="utf-8",
    )
    said = f"note: {noted}: its comments (lines 1, 2) are not kept in the map written: copy them over by hand\n"
    r = run("repair", noted, "-o", tmp_path / "fixed.toml")
    assert r.exit_code == 0, r.output
    written = (tmp_path / "fixed.toml").read_text(encoding="utf-8")
    assert r.stderr.endswith(said) and 'name = "Map #3"\n' in written and "draft" not in written
    sketch, _ = _sketch(tmp_path)
    noted.write_text("# my sketch\n" + sketch.read_text(encoding="utf-8"), encoding="utf-8")
    r = run("generate", "--from", noted, "--seed", "3")
    assert r.exit_code == 0, r.output
    assert r.stderr == f"note: {noted}: its comment (line 1) is not kept in the map written: copy it over by hand\n"
    assert run("repair", broken).stderr.count("note:") == 0  # no comments, no note
    assert "note:" not in run("generate", "--from", sketch, "--seed", "3").stderr


def test_generate_from_an_impossible_sketch_names_the_rules_and_cells(tmp_path):
    m = maps.load("fauna-1")
    f = tmp_path / "forts.toml"
    forts = {m.board.index(c) for c in ("A1", "A3", "A5", "A7")}
    f.write_text(
        dumps_map(
            m.hide(range(m.board.size)).with_cells(Terrain.FORT if i in forts else None for i in range(m.board.size))
        ),
        encoding="utf-8",
    )
    r = run("generate", "--from", f)
    assert r.exit_code == 1 and r.stdout == ""
    line = r.stderr
    assert line.startswith(f"error: {f}: the sketch cannot be completed; these cannot all hold: ")
    assert line.count("\n") == 1 and "rule F2 Fort pattern" in line and "the placed cell" in line


def test_generate_from_checks_its_options(tmp_path):
    f, _ = _sketch(tmp_path)
    r = run("generate", "--from", f, "-c", "flora")
    assert r.exit_code == 2 and r.stderr == f"error: --chapter: the sketch {f} is a fauna map, not flora\n"
    r = run("generate", "--from", f, "--count", "2")
    assert r.exit_code == 2 and r.stderr.startswith("error: --count: a sketch is filled once")
    r = run("generate")
    assert r.exit_code == 2 and r.stderr == (
        "error: --chapter: required (--chapter CHAPTER, --from SKETCH, or --rules FILE)\n"
    )


def test_serve_listens_on_loopback_by_default(monkeypatch):
    import uvicorn

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = run("serve", "--port", port)
    assert r.exit_code == 0 and r.stderr == ""
    assert r.stdout.startswith(f"mapgen serve: http://127.0.0.1:{port}/")
    assert seen["host"] == "127.0.0.1" and seen["port"] == port


def test_serve_on_a_fresh_install_compiles_the_loops_once_before_it_gives_its_address(monkeypatch):
    """Each worker compiled numba's loops on its own (about 15 s each on 2 cores), and the first requests waited
    about a minute behind "working…": `serve` compiles them once, says so, then gives its address."""
    import uvicorn

    from mapgen.solving import solve

    warmed = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    monkeypatch.setattr(solve, "_WARM", False)
    monkeypatch.setattr(solve, "kernels_on_disk", lambda: False)
    monkeypatch.setattr(solve, "warm_kernels", lambda: warmed.append(1))
    r = run("serve", "--port", "18766")
    assert r.exit_code == 0 and warmed == [1]
    assert r.stderr.startswith("first use: compiling the sampler's loops") and "mapgen serve: http" in r.stdout
    assert "--time-limit" not in r.stderr  # serve has none: the note says so only where a question is timed


def test_serve_warns_when_it_listens_beyond_this_machine(monkeypatch):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    r = run("serve", "--host", "0.0.0.0", "--port", "18765")
    assert r.exit_code == 0
    assert r.stderr.startswith("warning: listening on 0.0.0.0: anyone who can reach this machine can use the app")


def test_serve_on_a_port_in_use_is_one_line_exit_2():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = run("serve", "--port", port)
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: 127.0.0.1:{port}: cannot listen there (") and r.stderr.count("\n") == 1


@pytest.mark.parametrize("sketch", [False, True])
def test_the_conflict_question_running_out_of_wall_clock_is_a_time_out(monkeypatch, sketch):
    """The question that names the rules a briefing or a sketch conflicts with ran on the wall clock's seconds left:
    on a busy machine it ran out and the answer was "no valid map found within the time limit" with exit 1 (a rule
    broken), not exit 3. The clock running out is now SolveTimeout; with the time it needs, the rules are named."""
    from mapgen import repair
    from mapgen.mapfile import parse_map as parse
    from mapgen.repair import RepairError, fill_sketch, repair_map
    from mapgen.solving.solve import SolveTimeout

    m = parse(maps.path("fauna-1").read_text(encoding="utf-8").replace('peak = "F2"', 'peak = "A1"'))
    ask = (lambda: fill_sketch(m.hide(range(20)), seed=1)) if sketch else (lambda: repair_map(m))
    with pytest.raises(RepairError) as calm:
        ask()
    assert "C6" in str(calm.value)
    made, calls = repair.make_solver, []

    def busy(time_limit, **kw):  # the search itself in time, the conflict's question not
        calls.append(time_limit)
        return made(time_limit if len(calls) == 1 else 1e-6, **kw)

    monkeypatch.setattr(repair, "make_solver", busy)
    with pytest.raises(SolveTimeout):
        ask()


def test_json_commands_print_the_unmet_request_as_json_on_exit_1(tmp_path):
    """A script reading ``--json`` gets one document on exit 1 too, in the web's 409 shape: the error, the rules
    and the cells that conflict; stderr keeps its one line."""
    m = maps.load("fauna-1")
    edge = tmp_path / "edge.toml"  # a Peak typed on the board's edge: no map has this briefing
    edge.write_text(dumps_map(replace(m, briefing=replace(m.briefing, peak=m.board.index("A1")))), encoding="utf-8")
    r = run("repair", edge, "--json")
    assert r.exit_code == 1, r.output
    body = json.loads(r.stdout)
    assert set(body) == {"error", "rules", "cells"}
    assert body["rules"] and body["error"] in r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"error: {edge}: ")
    r = run("generate", "--from", "examples/four-forts.toml", "--json")
    assert r.exit_code == 1, r.output
    body = json.loads(r.stdout)
    assert "F2" in body["rules"] and "A1" in body["cells"] and body["error"] in r.stderr
