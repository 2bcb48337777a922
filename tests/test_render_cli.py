"""``mapgen render`` through the real command: outputs, exit codes and exact error text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from mapgen.mapfile import read_map

DATA = Path(__file__).parent / "data"
FAUNA = str(DATA / "render_fauna.toml")
STATE = str(DATA / "render_fauna_state.toml")


def run(*args):
    return CliRunner().invoke(main, ["render", *map(str, args)])


def test_renders_a_png_and_reports_it(tmp_path):
    out = tmp_path / "fauna.png"
    result = run(FAUNA, "-o", out)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {out} (PNG, ")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_json_report(tmp_path):
    out = tmp_path / "fauna.svg"
    result = run(FAUNA, "-o", out, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["path"] == str(out) and report["format"] == "svg" and report["pages"] == 1
    assert report["seconds"] > 0


def test_sheet_on_letter(tmp_path):
    out = tmp_path / "sheet.pdf"
    result = run(FAUNA, "-o", out, "--sheet", "--paper", "letter", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["pages"] == 2
    assert out.read_bytes().count(b"/MediaBox [ 0 0 612 792 ]") == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "{tmp}/x.jpg"], "error: {tmp}/x.jpg: unsupported format 'jpg' (use .svg, .png or .pdf)"),
        (["-o", "{tmp}/x"], "error: {tmp}/x: cannot tell the format; name the file .svg, .png or .pdf"),
        (["-o", "{tmp}/x.png", "--sheet"], "error: {tmp}/x.png: a printable sheet is a PDF; name the file .pdf"),
        (["-o", "{tmp}/no/x.png"], "error: {tmp}/no/x.png: folder {tmp}/no does not exist"),
        (
            ["-o", "{tmp}/x.png", "--profile", "--sheet"],
            "error: --profile draws a chart; it cannot be combined with --reveal, --forced, --probabilities or --sheet",
        ),
        (
            ["-o", "{tmp}/x.png", "--probabilities", "Ft"],
            "error: {map}: the map is complete; --probabilities shades unexplored cells only (hide some: --reveal)",
        ),
        (
            ["-o", "{tmp}/x.png", "--forced"],
            "error: {map}: the map is complete; --forced marks unexplored cells only (hide some: --reveal)",
        ),
    ],
)
def test_bad_requests_get_one_line_and_exit_2(tmp_path, args, message):
    args = [a.format(tmp=tmp_path) for a in args]
    result = run(FAUNA, *args)
    assert result.exit_code == 2
    assert result.output == message.format(tmp=tmp_path, map=FAUNA) + "\n"
    assert list(tmp_path.iterdir()) == []


def test_unknown_terrain_code(tmp_path):
    result = run(STATE, "-o", tmp_path / "x.png", "--probabilities", "Qq")
    assert result.exit_code == 2
    assert (
        result.output
        == "error: --probabilities: unknown terrain code 'Qq' (Fauna's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft)\n"
    )


def test_missing_and_broken_map_files(tmp_path):
    result = run(tmp_path / "none.toml", "-o", tmp_path / "x.png")
    assert (result.exit_code, result.output) == (2, f"error: {tmp_path / 'none.toml'}: no such file\n")
    bad = tmp_path / "bad.toml"
    bad.write_text('chapter = "fauna"\n')
    result = run(bad, "-o", tmp_path / "x.png")
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {bad}: ") and result.output.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_profile_from_json(tmp_path):
    steps = [
        {"step": 0, "cell": None, "terrain": None, "count": 900, "exact": True, "forced": 1},
        {"step": 1, "cell": "E3", "terrain": "Wo", "count": 12, "exact": True, "forced": 5},
        {"step": 2, "cell": "B4", "terrain": "Ro", "count": 1, "exact": True, "forced": 46},
    ]
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"steps": steps}))
    out = tmp_path / "profile.svg"
    result = run(profile, "-o", out, "--profile", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["steps"] == 3
    assert b"profile-forced" in out.read_bytes()


def test_deduce_json_given_as_a_map_points_at_profile(tmp_path):
    """``mapgen deduce --json > t2.json; mapgen render t2.json -o t2.png`` said "not valid TOML (Invalid
    statement (at line 1, column 1))"; now it says the file is JSON and how to draw it (exit 2 still), and
    --profile reads it whatever its name."""
    steps = [
        {"step": 0, "cell": None, "terrain": None, "count": 900, "exact": True, "forced": 1},
        {"step": 1, "cell": "E3", "terrain": "Wo", "count": 1, "exact": True, "forced": 46},
    ]
    report = tmp_path / "t2.txt"
    report.write_text(json.dumps({"reveal_set": ["E3"], "depends_on": [], "profile": {"steps": steps}}, indent=2))
    result = run(report, "-o", tmp_path / "t2.png")
    assert result.exit_code == 2 and not (tmp_path / "t2.png").exists()
    assert result.output == (
        f"error: {report}: a JSON file, not a map file (a map file is TOML, as mapgen generate, repair or deduce "
        f"--puzzle write it); it looks like `mapgen deduce --json`'s report: `mapgen render {report} --profile -o "
        "profile.png` draws its reveal profile\n"
    )
    result = run(report, "-o", tmp_path / "t2.png", "--profile", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["steps"] == 2
    report.write_text('{"reveal_set": ["E3"], "depends_on": []}')
    result = run(report, "-o", tmp_path / "x.png")
    assert result.exit_code == 2 and "(made with --no-profile: it holds no reveal profile to draw)" in result.output


def test_profile_json_must_hold_steps(tmp_path):
    profile = tmp_path / "profile.json"
    profile.write_text('{"nothing": 1}')
    result = run(profile, "-o", tmp_path / "p.png", "--profile")
    assert result.exit_code == 2
    assert result.output == f"error: {profile}: expected a list of reveal steps (or an object with 'steps')\n"


def test_forced_cells_come_from_the_solver(tmp_path):
    # The forced cells of this partial map, from the worked examples (an independent implementation).
    expected = json.loads((DATA / "states" / "expected.json").read_text(encoding="utf-8"))["fauna-201-k34"]["forced"]
    out = tmp_path / "state.svg"
    result = run(STATE, "-o", out, "--forced", "--json", "--time-limit", "20")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["forced"] == expected
    text = out.read_text()
    for cell, code in expected.items():
        assert f'id="forced-{cell}-{code}"' in text


def test_probabilities_shade_every_unexplored_cell(tmp_path):
    pytest.importorskip("mapgen.solving.solve")
    out = tmp_path / "heat.svg"
    result = run(STATE, "-o", out, "--probabilities", "Ft", "--time-limit", "20")
    assert result.exit_code == 0, result.output
    text = out.read_text()
    # D5 and E5 are Forts in every completion; A5 is always Wood.
    assert 'id="heat-D5-100%"' in text and 'id="heat-E5-100%"' in text and 'id="heat-A5-0%"' in text
    assert len(re.findall(r'id="heat-[A-G][1-7]"', text)) == 15  # every unexplored cell is shaded


def test_a_state_without_completion_is_a_one_line_error(tmp_path):
    pytest.importorskip("mapgen.solving.solve")
    bad = tmp_path / "bad.toml"
    bad.write_text(Path(STATE).read_text().replace("A   Hi0  ..  Vi", "A   Hi0  Ro  Vi"))  # a Rock on the edge
    result = run(bad, "-o", tmp_path / "x.png", "--forced")
    assert result.exit_code == 1
    assert result.output == f"error: {bad}: no completion: rule C6 Rock conflicts with the revealed cell A2 (Ro)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_dpi_sets_the_png_size(tmp_path):
    small, large = tmp_path / "small.png", tmp_path / "large.png"
    assert run(FAUNA, "-o", small, "--dpi", "50").exit_code == 0
    assert run(FAUNA, "-o", large, "--dpi", "100").exit_code == 0

    def size(path):
        head = path.read_bytes()[16:24]
        return int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")

    (w1, h1), (w2, h2) = size(small), size(large)
    assert abs(w2 - 2 * w1) <= 2 and abs(h2 - 2 * h1) <= 2


@pytest.mark.slow
def test_a_map_without_number_or_name_is_titled_by_its_file(tmp_path):
    out = tmp_path / "fauna.svg"
    assert run(FAUNA, "-o", out).exit_code == 0
    assert 'id="briefing-number"' in out.read_text()


def test_a_shipped_map_by_name(tmp_path):
    import maps

    if "fauna-1" not in maps.names():
        pytest.skip("no shipped maps in this checkout")
    out = tmp_path / "fauna-1.svg"
    result = run("fauna-1", "-o", out)
    assert result.exit_code == 0, result.output
    assert 'id="cell-A1-' in out.read_text()


def test_profile_needs_a_complete_map(tmp_path):
    result = run(STATE, "-o", tmp_path / "p.png", "--profile")
    assert result.exit_code == 2
    assert (
        result.output
        == f"error: {STATE}: a partial map (15 unrevealed cells, first A2); --profile needs a complete map\n"
    )


def test_profile_out_of_time_is_a_one_line_error(tmp_path):
    pytest.importorskip("mapgen.deduce")
    result = run(FAUNA, "-o", tmp_path / "p.png", "--profile", "--time-limit", "0.2")
    assert result.exit_code == 3  # the convention: a time limit ran out
    assert re.fullmatch(
        rf"error: {re.escape(FAUNA)}: [^\n]* ran out[^\n]* \(0\.2 s; raise --time-limit\)\n", result.output
    )
    assert list(tmp_path.iterdir()) == []


def test_a_terrain_no_chain_met_is_drawn_with_the_bound_solve_prints(tmp_path, monkeypatch):
    """A terrain the cell can hold that no sampler chain met there has share 0 and an upper bound as its bar
    (``sampler.Odds.add_unseen``): ``solve`` prints ``Vi up to 31%``; the picture said "0%", as if the cell could not
    hold it. Now it says "≤31%", and the JSON gives the bound."""
    pytest.importorskip("mapgen.solving.solve")
    from mapgen.report import share_words
    from mapgen.solving.solve import ODDS_SAMPLER, Solver
    from mapgen.solving.unigen import Z95, OddsAnswer
    from mapgen.terrain import Terrain

    m = read_map(STATE)
    a2 = m.board.index("A2")  # may be a Hill or a Vine (50% each, exact)
    err = 0.31 / Z95

    def sampled(self, state, **kw):
        shares = {i: {} for i in state.unrevealed()}
        shares[a2] = {Terrain.HILL: 1.0, Terrain.VINE: 0.0}
        return OddsAnswer(shares, ODDS_SAMPLER, {a2: {Terrain.HILL: 0.0, Terrain.VINE: err}})

    monkeypatch.setattr(Solver, "odds_answer", sampled)
    out = tmp_path / "heat.svg"
    result = run(STATE, "-o", out, "--probabilities", "Vi", "--json")
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert share_words("Vi", 0.0, err) == "Vi up to 31%"
    assert 'id="heat-A2-upto31%"' in text and 'id="heat-A2-0%"' not in text
    got = json.loads(result.output)["probabilities"]
    assert got["method"] == "sampler" and got["cells"]["A2"] == 0.0 and got["bounds"] == {"A2": 0.31}
    assert 'id="heat-A5-0%"' in text  # a cell that cannot hold a Vine is still 0%, with no bound


def test_sampled_odds_are_drawn_with_their_error_and_the_chains_disagreement(tmp_path, monkeypatch):
    """`render flora-1 --reveal D7,D6,C7,E7,D5 --probabilities Sk` drew "~12%" with no error where ``solve`` said
    "Sk 12% ±14" and "NOT converged": the picture now draws "±14" under the estimate and says the chains disagree,
    and the JSON gives each estimate's 95% half-width and ``converged``."""
    pytest.importorskip("mapgen.solving.solve")
    from types import SimpleNamespace

    from mapgen.solving.solve import ODDS_SAMPLER, Solver
    from mapgen.solving.unigen import Z95, OddsAnswer
    from mapgen.terrain import Terrain

    m = read_map(STATE)
    a2 = m.board.index("A2")  # may be a Hill or a Vine

    def sampled(self, state, **kw):
        shares = {i: {} for i in state.unrevealed()}
        shares[a2] = {Terrain.HILL: 0.88, Terrain.VINE: 0.12}
        errors = {a2: {Terrain.HILL: 0.14 / Z95, Terrain.VINE: 0.14 / Z95}}
        return OddsAnswer(shares, ODDS_SAMPLER, errors, SimpleNamespace(converged=False))

    monkeypatch.setattr(Solver, "odds_answer", sampled)
    out = tmp_path / "heat.svg"
    result = run(STATE, "-o", out, "--probabilities", "Vi", "--json")
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert 'id="heat-A2-error"' in text and 'id="briefing-not-converged"' in text
    got = json.loads(result.output)["probabilities"]
    assert got["errors"] == {"A2": 0.14} and got["converged"] is False


def test_odds_that_ran_out_of_time_are_drawn_and_exit_3(tmp_path, monkeypatch):
    """`mapgen render flora-1 --reveal D7,D6,C7 --probabilities Fc -o x.png` on a busy machine: no odds came in time,
    every Path was drawn "?", and the command said only "wrote x.png" and exited 0, as if the odds were drawn. Now
    the picture is still written, and stderr says what is missing and how to get it (exit 3, as solve)."""
    pytest.importorskip("mapgen.solving.solve")
    from mapgen.solving.solve import Solver, SolveTimeout

    def runs_out(self, state, **kw):
        raise SolveTimeout("the time limit ran out while the sampler ran (chain 3 of 12)")

    monkeypatch.setattr(Solver, "odds_answer", runs_out)
    out = tmp_path / "heat.svg"
    result = run(STATE, "-o", out, "--probabilities", "Hi", "--time-limit", "20")
    assert result.exit_code == 3, result.output
    assert out.exists() and result.stdout.startswith(f"wrote {out} (SVG")
    assert result.stderr == (
        f'error: {STATE}: no odds of a Hill in time (--time-limit 20); drew what was found ("?" where it may be), '
        "missing: probabilities\n"
    )
    result = run(STATE, "-o", out, "--probabilities", "Hi", "--json", "--force")
    assert result.exit_code == 3 and json.loads(result.stdout)["probabilities"]["method"] == "none"


def test_render_refuses_a_bound_on_a_cell_whose_chance_is_not_zero():
    from mapgen.render import RenderError, render_map

    m = read_map(STATE)
    a2 = m.board.index("A2")
    with pytest.raises(RenderError, match="only a shaded cell whose chance is 0"):
        render_map(m, "x.svg", heat={a2: 0.5}, heat_label="Vine", heat_bounds={a2: 0.3})


def test_reveal_shades_the_board_as_the_table_sees_it(tmp_path):
    """`render MAP --reveal` draws the map with only the named cells shown and shades the others by their odds,
    as `solve --reveal` answers; --profile (a chart of the whole map) refuses it."""
    out = tmp_path / "odds.svg"
    r = run("training-1", "--reveal", "B7,C7", "-o", str(out), "--probabilities", "Wo", "--json")
    assert r.exit_code == 0, r.output
    cells = json.loads(r.stdout)["probabilities"]["cells"]
    assert len(cells) == 23 and "B7" not in cells and "C7" not in cells and out.is_file()
    r = run("training-1", "--reveal", "B7", "-o", str(tmp_path / "p.png"), "--profile")
    assert r.exit_code == 2 and "cannot be combined with --reveal" in r.stderr
    assert not (tmp_path / "p.png").exists()


def test_a_map_that_breaks_rules_is_drawn_with_a_note_naming_them(tmp_path):
    # a designer drew a hand-made map for print and learnt nothing of its broken rules
    broken = tmp_path / "my-map.toml"
    broken.write_text((Path(__file__).parent.parent / "examples" / "my-map.toml").read_text(encoding="utf-8"))
    result = run(broken, "-o", tmp_path / "my-map.png")
    assert result.exit_code == 0 and result.stdout.startswith(f"wrote {tmp_path / 'my-map.png'} (PNG, ")
    assert (
        result.stderr
        == f"note: {broken}: the map breaks rules C9, F2 (4 violations; mapgen validate {broken} lists them)\n"
    )
    valid = run("fauna-1", "-o", tmp_path / "fauna-1.png")
    assert valid.exit_code == 0 and valid.stderr == ""


def test_a_map_that_breaks_rules_shows_them_in_the_picture(tmp_path):
    # the picture of a broken map looked sound: only stderr named the rules, and a printed sheet has no stderr
    import xml.etree.ElementTree as ET

    broken = Path(__file__).parent.parent / "examples" / "my-map.toml"
    out = tmp_path / "my-map.svg"
    assert run(broken, "-o", out).exit_code == 0
    root = ET.parse(out).getroot()
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    # each cell of a broken rule carries the rule's id; the panel names every violation as validate does
    assert {"broken-C9-C7", "broken-C9-G5", "broken-F2-D5", "broken-F2-G7", "broken-rules", "legend-broken"} <= ids
    assert {f"broken-rule-{k}" for k in range(4)} <= ids
    svg = out.read_text(encoding="utf-8")
    assert "<!-- C9 Hill numbers: the Hill at C7 shows 0 but its row and column hold 1 -->" in svg
    valid = tmp_path / "fauna-1.svg"
    assert run("fauna-1", "-o", valid).exit_code == 0
    assert not any((el.get("id") or "").startswith("broken") for el in ET.parse(valid).getroot().iter())


def test_a_printed_sheet_of_a_map_that_breaks_rules_shows_them_on_paper(tmp_path):
    # the plain picture framed and listed a hand-made map's broken rules; the sheet printed to try it looked sound
    pypdf = pytest.importorskip("pypdf")
    broken = Path(__file__).parent.parent / "examples" / "my-map.toml"
    out = tmp_path / "my-map.pdf"
    result = run(broken, "-o", out, "--sheet")
    assert result.exit_code == 0 and "breaks rules C9, F2" in result.stderr
    page1, page2 = (" ".join(p.extract_text().split()) for p in pypdf.PdfReader(out).pages)
    assert "✗ BREAKS RULES C9, F2 (4 violations)" in page1
    assert "F2 Fort pattern: the map has 4 Forts (D5, E5, F3, G7), expected exactly 3" in page1
    assert page1.count("✗ C9") == 2 and page1.count("✗ F2") == 4  # the badges on C7, G5 and D5, E5, F3, G7
    assert "Breaks a rule: the rule's id" in page2
    valid = tmp_path / "fauna-1.pdf"
    assert run("fauna-1", "-o", valid, "--sheet").exit_code == 0
    assert "✗" not in " ".join(p.extract_text() for p in pypdf.PdfReader(valid).pages)


def test_layout_tall_draws_the_briefing_under_the_board_for_a_phone(tmp_path):
    # at --dpi 50 the only picture was wide (647 px) with 6 px words; --layout tall puts the panel under the board
    wide = run(FAUNA, "-o", tmp_path / "wide.png", "--dpi", "50", "--json")
    tall = run(FAUNA, "-o", tmp_path / "tall.png", "--dpi", "50", "--layout", "tall", "--json")
    assert wide.exit_code == 0 and tall.exit_code == 0, tall.output
    w, t = json.loads(wide.stdout), json.loads(tall.stdout)
    assert w["width_px"] > w["height_px"] and 400 <= t["width_px"] <= 700 < t["height_px"]
    r = run(FAUNA, "-o", tmp_path / "s.pdf", "--sheet", "--layout", "tall")
    assert r.exit_code == 2 and r.stderr == (
        "error: --layout: arranges a picture of a map; --sheet and --profile have layouts of their own\n"
    )


def test_probabilities_alone_shades_the_counted_terrain_as_solve_s_flag_does(tmp_path):
    """`mapgen render MAP --probabilities -o odds.png` (solve's --probabilities is a flag) took "-o" for the terrain
    and then said "--output: required": alone, it now shades the chapter's counted terrain (Fauna's Forts); a chapter
    that counts none (Training) is asked to name one."""
    alone, named = tmp_path / "alone.svg", tmp_path / "named.svg"
    r = run(STATE, "--probabilities", "-o", alone, "--json")
    assert r.exit_code == 0, r.output
    s = run(STATE, "--probabilities", "Ft", "-o", named, "--json")
    assert json.loads(r.stdout)["probabilities"] == json.loads(s.stdout)["probabilities"]
    assert alone.read_text() == named.read_text()
    r = run("training-1", "--reveal", "B7", "-o", tmp_path / "t.png", "--probabilities")
    assert (r.exit_code, r.stderr) == (
        2,
        "error: --probabilities: the training chapter has no counted terrain; name one: --probabilities CODE\n",
    )
    assert not (tmp_path / "t.png").exists()


def test_probabilities_alone_is_asked_as_a_named_terrain_is(tmp_path):
    """`--probabilities` alone (the counted terrain) read as "nothing asked" in three checks: `--time-limit` beside it
    was refused (exit 2: "none is asked"), `--profile` beside it drew the chart and dropped the shading without a word,
    and a complete map was drawn unshaded (exit 0) where `--probabilities Ft` says it has no unexplored cell."""
    out = tmp_path / "odds.svg"
    r = run(STATE, "--probabilities", "-o", out, "--time-limit", "20", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["probabilities"]["terrain"] == "Ft"
    r = run(STATE, "--profile", "--probabilities", "-o", tmp_path / "p.png")
    assert r.exit_code == 2 and "--profile draws a chart; it cannot be combined with" in r.stderr
    for given in ([], ["Ft"]):
        r = run("fauna-1", "--probabilities", *given, "-o", tmp_path / "c.svg")
        assert (r.exit_code, r.stderr) == (
            2,
            "error: fauna-1: the map is complete; --probabilities shades unexplored cells only (hide some: --reveal)\n",
        ), given
    assert not (tmp_path / "p.png").exists() and not (tmp_path / "c.svg").exists()


def test_a_share_of_one_in_200_is_not_drawn_or_printed_as_impossible(tmp_path):
    """A cell that holds the terrain in 1 of 200 completions (share 0.005) was drawn "0%" with the id of a cell that
    cannot hold it, and ``solve`` printed "Vi 0%" (half-even rounding): both now say "<1%", and 199 in 200 ">99%"."""
    from mapgen.render import render_map
    from mapgen.terrain import percent

    assert (percent(0.005), percent(0.995), percent(0.0), percent(1.0)) == ("<1%", ">99%", "0%", "100%")
    m = read_map(STATE)
    a2, b6, g5 = (m.board.index(n) for n in ("A2", "B6", "G5"))
    out = tmp_path / "heat.svg"
    render_map(m, out, heat={a2: 0.005, b6: 0.995, g5: 0.0}, heat_label="Vine")
    text = out.read_text()
    assert 'id="heat-A2-&lt;1%"' in text and 'id="heat-B6-&gt;99%"' in text and 'id="heat-G5-0%"' in text


@pytest.mark.parametrize("suffix", ["png", "svg", "pdf"])
def test_a_name_the_font_cannot_draw_is_one_note_not_a_page_of_warnings(tmp_path, suffix):
    """A map named in CJK (or a file named so) drew its name in matplotlib's LastResort boxes and printed 10-30 lines
    of "UserWarning: Glyph 35895 (...) missing from font(s) DejaVu Sans" on stderr: now one note naming the
    characters, as pack says it."""
    import maps

    text = maps.path("fauna-1").read_text(encoding="utf-8").replace("number = 1\n", 'number = 1\nname = "谷の道"\n', 1)
    named = tmp_path / "地図.toml"
    named.write_text(text, encoding="utf-8")
    out = tmp_path / f"map.{suffix}"
    result = run(named, "-o", out)
    assert result.exit_code == 0, result.output
    assert "Warning" not in result.stderr and "Glyph" not in result.stderr, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert notes == [f"note: {out}: the picture's font (DejaVu Sans) has no glyph for 谷, の, 道: drawn as boxes"]
    result = run(FAUNA, "-o", tmp_path / f"plain.{suffix}")  # nothing missing: no note
    assert result.exit_code == 0 and "note:" not in result.stderr


def test_a_puzzle_made_under_house_rules_is_not_drawn_under_the_shipped_ones_without_a_word(tmp_path):
    """A puzzle made under house rules (C7 dropped) and printed with ``render --sheet`` without ``--rules`` listed
    the shipped rules, C7 among them, without a word: on paper it had no solution. ``--forced`` said "no
    completion" without the hint solve gives. Now both say it was made under the house rules and to give them."""
    from mapgen.mapfile import dumps_map

    def mapgen(*args):
        return CliRunner().invoke(main, [str(a) for a in args])

    house = tmp_path / "house.toml"
    assert mapgen("chapters", "fauna", "-o", house).exit_code == 0
    house.write_text(house.read_text(encoding="utf-8").replace('"C7", ', ""), encoding="utf-8")
    made = tmp_path / "made.toml"
    r = mapgen("generate", "--rules", house, "--seed", 3)
    assert r.exit_code == 0, r.output
    made.write_text(r.stdout, encoding="utf-8")
    puzzle = tmp_path / "puzzle.toml"
    assert mapgen("deduce", made, "--rules", house, "--no-profile", "--puzzle", puzzle).exit_code == 0
    assert "rules = " in puzzle.read_text(encoding="utf-8")
    hint = "(it was made under the house rules of house.toml: give --rules FILE)"
    r = run(puzzle, "-o", tmp_path / "sheet.pdf", "--sheet")
    assert r.exit_code == 0, r.output
    # under the shipped rules no map completes it: the note says so, and which rules it was made under
    assert r.stderr.startswith(f"note: {puzzle}: no map completes this partial map: no completion: ")
    assert r.stderr.endswith(f" {hint}\n") and r.stderr.count("\n") == 1
    r = run(puzzle, "-o", tmp_path / "forced.png", "--forced")
    assert r.exit_code == 1 and r.stderr.startswith(f"error: {puzzle}: no completion: ")
    assert r.stderr.endswith(f" {hint}\n")
    r = run(puzzle, "-o", tmp_path / "house.pdf", "--sheet", "--rules", house)  # as made: no note
    assert r.exit_code == 0 and r.stderr == ""
    assert dumps_map(read_map(puzzle))  # the puzzle itself is untouched


def test_forced_hills_are_drawn_with_their_number_where_every_completion_gives_it(tmp_path):
    """Audit: ``render --forced`` drew every forced Hill without its number, even on a unique state, though ``solve``
    shows it (``Hi1*``). A forced Hill whose number every completion gives alike is drawn with it, as a revealed Hill
    shows its own (``--json``: ``"hill_numbers"``, as ``solve --json``); one numbered differently is drawn without,
    and the key says which is which."""
    import maps
    from mapgen.mapfile import dumps_map

    m = maps.load("flora-4")
    for cells, numbers in ((("G2", "G3", "G5"), {"G5": 1}), (("B5", "C5", "C6"), {})):
        state = tmp_path / "state.toml"
        state.write_text(dumps_map(m.hide([m.board.index(c) for c in cells])), encoding="utf-8")
        for out in (tmp_path / "state.svg", tmp_path / "sheet.pdf"):
            extra = ["--sheet"] if out.suffix == ".pdf" else []
            result = run(state, "-o", out, "--forced", "--json", "--force", *extra)
            assert result.exit_code == 0, result.output
            data = json.loads(result.output)
            assert data["forced"][cells[-1] if numbers else "C5"] == "Hi" and data["hill_numbers"] == numbers
        text = (tmp_path / "state.svg").read_text()
        hill = "G5" if numbers else "C5"
        assert f'id="forced-{hill}-Hi"' in text
        assert ('id="forced-hill-G5-1"' in text) == bool(numbers) and 'id="forced-hill-C5' not in text
    # the key says when a forced Hill's number shows (the picture's words are glyphs: read the figure's texts)
    from mapgen.render.board import map_figure
    from mapgen.solving.solve import Solver
    from mapgen.terrain import Terrain

    state_map = m.hide([m.board.index(c) for c in ("G2", "G3", "G5")])
    forced = Solver.for_chapter("flora").forced(state_map)
    fig = map_figure(state_map, forced=forced, hill_numbers={m.board.index("G5"): 1})
    words = " ".join(t.get_text().replace("\n", " ") for ax in fig.axes for t in ax.texts)
    assert "a Hill shows its number where every completion gives it the same one" in words
    drawn = {t.get_gid(): t.get_text() for t in fig.axes[0].texts}
    assert drawn["forced-hill-G5-1"] == "1"  # on G5's token, in place of the Hill's symbol
    plain = map_figure(state_map, forced={i: t for i, t in forced.items() if t is not Terrain.HILL})
    assert "a Hill shows its number" not in " ".join(t.get_text() for ax in plain.axes for t in ax.texts)
    # the unique state's Hills too (the answer key's numbers)
    unique = tmp_path / "unique.toml"
    key = maps.load("fauna-1")
    unique.write_text(dumps_map(key.hide([key.board.index("A5")])), encoding="utf-8")
    result = run(unique, "-o", tmp_path / "u.svg", "--forced", "--json")
    assert result.exit_code == 0 and json.loads(result.output)["hill_numbers"] == {
        "A5": key.hills[key.board.index("A5")]
    }
    assert f'id="forced-hill-A5-{key.hills[key.board.index("A5")]}"' in (tmp_path / "u.svg").read_text()


@pytest.mark.parametrize("sheet", [False, True], ids=["picture", "sheet"])
def test_a_puzzle_no_map_completes_is_drawn_with_a_note_naming_the_conflict(tmp_path, sheet):
    """A puzzle maker printing a hand-made partial map that cannot be solved is told so (it was drawn with no
    word; only --forced said it): drawn all the same, as a complete map that breaks rules is, with a note."""
    sketch = "examples/four-forts.toml"  # a Fort at A1 no rotation of the mini map fits
    out = tmp_path / ("p.pdf" if sheet else "p.svg")
    r = run(sketch, "-o", out, *(["--sheet"] if sheet else []), "--json")
    assert r.exit_code == 0, r.output
    assert out.exists()
    assert r.stderr.startswith(f"note: {sketch}: no map completes this partial map: no completion: rule F2")
    assert json.loads(r.stdout)["conflict"] == {
        "rules": ["F2"],
        "cells": ["A1"],
        "message": "no completion: rule F2 Fort pattern conflicts with the revealed cell A1 (Ft)",
    }


def test_a_solvable_puzzle_is_drawn_without_a_note(tmp_path):
    r = run(STATE, "-o", tmp_path / "s.svg", "--json")
    assert r.exit_code == 0 and r.stderr == "", r.output
    assert "conflict" not in json.loads(r.stdout)
