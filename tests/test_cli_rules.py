"""``--rules FILE`` on ``generate``, ``solve`` and ``hint``: a house-rule chapter file, not the shipped chapter's rules,
through the real commands (the shipped and the house chapter asked in one process, in either order)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main
from constraints.catalogue import check_map, load_chapter
from mapgen.mapfile import dumps_map, parse_map, read_map
from mapgen.solving.compiled import chapter_fingerprint

FAUNA = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
SHIPPED_F2 = "at_least = 3, at_most = 3"
#: the cells of the house map's 4 Forts and 5 Hills, hidden in the partial map below
FORTS = ("C6", "D4", "F2", "F5")
HIDDEN = (*FORTS, "A7", "C3", "G1", "G6", "G7")


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


def house_file(folder: Path, name: str, f2: str) -> Path:
    assert SHIPPED_F2 in FAUNA
    path = folder / name
    path.write_text(FAUNA.replace(SHIPPED_F2, f2).replace("Exactly 3 Forts", "Exactly 4 Forts"), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def house(tmp_path_factory) -> Path:
    """Fauna with exactly 4 Forts."""
    return house_file(tmp_path_factory.mktemp("house"), "house.toml", "at_least = 4, at_most = 4")


@pytest.fixture(scope="module")
def house_map(house, tmp_path_factory) -> Path:
    r = run("generate", "--rules", house, "--seed", 7)
    assert r.exit_code == 0, r.output
    path = tmp_path_factory.mktemp("maps") / "fauna-7.toml"
    path.write_text(r.stdout, encoding="utf-8")
    return path


def reveal_all_but(path: Path, hidden) -> str:
    board = read_map(path).board
    return ",".join(board.name(i) for i in range(board.size) if board.name(i) not in hidden)


# --- generate ----------------------------------------------------------------------------------------


def test_generate_keeps_the_house_rules_not_the_shipped_ones(house, house_map):
    m = read_map(house_map)
    assert len(m.cells_of(m.cells[m.board.index("C6")])) == 4  # 4 Forts
    assert check_map(m, load_chapter(house)) == []
    assert run("validate", "--rules", house, house_map).exit_code == 0
    shipped = run("validate", house_map)
    assert shipped.exit_code == 1
    assert "F2 Fort pattern: the map has 4 Forts" in shipped.stdout


def test_generate_with_rules_is_reproducible(house, house_map):
    again = run("generate", "--rules", house, "--seed", 7)
    assert again.exit_code == 0
    assert again.stdout == house_map.read_text(encoding="utf-8")
    assert run("generate", "-c", "fauna", "--seed", 7).stdout != again.stdout  # the shipped chapter's is another map


def test_generate_under_impossible_house_rules_names_the_file_and_the_rule(tmp_path):
    impossible = house_file(tmp_path, "impossible.toml", "at_least = 50, at_most = 50")
    r = run("generate", "--rules", impossible, "--seed", 1)
    assert r.exit_code == 1
    assert r.stderr.startswith(
        f"error: {impossible}: no fauna map can meet all of these together: rule F2 Fort pattern"
    )
    assert len(r.stderr.splitlines()) == 1


def test_pack_under_impossible_house_rules_names_the_file_and_the_rule(tmp_path):
    """As generate --rules does: the rules file is what is wrong, not the PDF not yet written."""
    impossible = house_file(tmp_path, "impossible.toml", "at_least = 50, at_most = 50")
    out = tmp_path / "folder.pdf"
    r = run("pack", "-c", "fauna", "--rules", impossible, "-n", 1, "-s", 1, "--out", tmp_path / "maps", "-o", out)
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1].startswith(
        f"error: {impossible}: no fauna map can meet all of these together: rule F2 Fort pattern"
    ), r.stderr
    assert not out.exists()


def test_generate_with_rules_refuses_what_it_cannot_do(house, tmp_path):
    r = run("generate", "-c", "flora", "--rules", house)
    assert (r.exit_code, r.stderr) == (2, "error: --rules: a chapter file of fauna, but --chapter is flora\n")
    named = tmp_path / "mine.toml"  # a name no map file can carry
    named.write_text(FAUNA.replace('name = "fauna"', 'name = "mine"').replace('profile = "fauna.toml"\n', ""))
    r = run("generate", "--rules", named)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: --rules: a generated map names its chapter, and 'mine' is no shipped chapter")
    r = run("generate", "-c", "flora", "--rules", house, "--grade", "Gentle")  # with a target too, before any work
    assert (r.exit_code, r.stderr) == (2, "error: --rules: a chapter file of fauna, but --chapter is flora\n")
    boarded = tmp_path / "small.toml"  # fauna on Training's board: its maps would not read back as fauna maps
    boarded.write_text(FAUNA.replace('board = "7x7"', 'board = "5x5"'), encoding="utf-8")
    r = run("generate", "--rules", boarded, "--seed", 1)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f'error: {boarded}: board: fauna maps are drawn on the 7x7 board, not 5x5: keep board = "7x7" '
        "(a map names its chapter and is read on that chapter's board)\n"
    )


def test_generate_to_a_target_under_house_rules_makes_and_grades_the_maps_under_them(tmp_path):
    """It was refused (grading "played the shipped chapter"); now the search pack -c --rules runs does it."""
    training = (Path(__file__).parent.parent / "constraints" / "chapters" / "training.toml").read_text(encoding="utf-8")
    assert '"C5", "C6"]' in training
    house = tmp_path / "no-c6.toml"  # Training without C6 Rock
    house.write_text(training.replace('"C5", "C6"]', '"C5"]', 1), encoding="utf-8")
    out = tmp_path / "maps"
    # seed 2 is a Gentle map at once (each candidate's deduction compiles the house rules' circuits: CPU seconds)
    r = run("generate", "--rules", house, "--seed", 2, "--grade", "Gentle", "--out", out, "--json")
    assert r.exit_code == 0, r.output
    assert "\ntried 1 candidate in " in r.stderr
    assert (
        f"\ngraded under the house rules of {house}; calibrated on shipped training, not these house rules: "
        "the deduction tier, cut at the quartiles of maps generated under shipped training's rules\n"
    ) in r.stderr
    record = {"rules": house.name, "rules_fingerprint": chapter_fingerprint(load_chapter(house))}
    report = json.loads(r.stdout)
    assert report["rules"] == record
    assert report["kept"][0]["grade"]["calibrated_on"]["chapter"] == "training"
    path = out / "training-2.toml"
    m = read_map(path)
    assert report["kept"][0]["file"] == str(path)
    assert check_map(m, load_chapter(house)) == []  # made under the house rules, and they are recorded
    assert {k: m.meta["generator"][k] for k in record} == record
    # graded under them too: the [grade] table names them, as grade --rules and pack -c --rules do
    assert {k: m.meta["grade"][k] for k in record} == record and m.meta["grade"]["tier"] == "Gentle"
    assert "C6" in {v.rule for v in check_map(m)}  # a house map: the shipped chapter's C6 Rock is broken


# --- solve and hint: no answer of one chapter handed to the other ------------------------------------------


def solve_json(house_map, rules):
    r = run("solve", house_map, "--reveal", reveal_all_but(house_map, HIDDEN), "--json", *rules)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("house_first", [True, False])
def test_solve_house_and_shipped_rules_in_one_process_in_either_order(house, house_map, house_first):
    order = [["--rules", house], []] if house_first else [[], ["--rules", house]]
    got = {bool(rules): solve_json(house_map, rules) for rules in order}
    for _ in range(2):  # and again, with both chapters' circuits, solvers and models now made
        got = {bool(rules): solve_json(house_map, rules) for rules in reversed(order)}
    mine, shipped = got[True], got[False]
    assert {c: mine["forced"][c] for c in FORTS} == dict.fromkeys(FORTS, "Ft")
    assert not set(FORTS) & set(shipped["forced"])  # 3 Forts among 4 cells: none forced
    assert mine["count"] != shipped["count"] and mine["exact"] and shipped["exact"]


def test_solve_out_writes_the_completion_that_keeps_the_house_rules(house, house_map, tmp_path):
    out = tmp_path / "done.toml"
    r = run("solve", house_map, "--reveal", reveal_all_but(house_map, FORTS), "--rules", house, "-o", out)
    assert r.exit_code == 0, r.output
    assert read_map(out).cells == read_map(house_map).cells
    assert run("validate", "--rules", house, out).exit_code == 0


def test_solve_under_impossible_house_rules_has_no_completion(house_map, tmp_path):
    impossible = house_file(tmp_path, "impossible.toml", "at_least = 50, at_most = 50")
    r = run("solve", house_map, "--reveal", reveal_all_but(house_map, HIDDEN), "--rules", impossible)
    assert r.exit_code == 1
    assert r.stderr.startswith(f"error: {house_map}: no completion: rule F2 Fort pattern")


@pytest.mark.parametrize("args", [["solve"], ["solve", "--json"], ["hint"], ["hint", "--steps"]])
def test_a_house_map_solved_without_its_rules_says_which_rules_it_was_made_under(house, house_map, args):
    """Its 4 Forts break the shipped F2: "no completion" alone left the user guessing why, where validate,
    deduce and grade name the house rules the map records."""
    r = run(*args, house_map)
    assert r.exit_code == 1
    assert r.stderr.startswith(f"error: {house_map}: no completion: rule F2 Fort pattern")
    assert r.stderr.endswith(f"(it was made under the house rules of {house.name}: give --rules FILE)\n")
    assert "made under" not in run(*args, house_map, "--rules", house).stderr


def test_a_house_puzzle_trimmed_without_its_rules_says_which_rules_it_was_made_under(house, house_map, tmp_path):
    """solve, hint and render said of a house-rule puzzle given without its rules "(it was made under the house
    rules of house.toml: give --rules FILE)"; deduce --puzzle, which trims a puzzle maker's puzzle, said only that
    it has more than one completion (under the shipped rules)."""
    puzzle = tmp_path / "puzzle.toml"
    r = run("deduce", house_map, "--rules", house, "--no-profile", "--puzzle", puzzle)
    assert r.exit_code == 0, r.output
    hint = f"(it was made under the house rules of {house.name}: give --rules FILE)\n"
    for args in (["deduce", puzzle, "--no-profile", "--puzzle", "-"],):
        r = run(*args)
        assert r.exit_code == 1 and r.stdout == ""
        assert r.stderr.startswith(f"error: {puzzle}: ") and r.stderr.endswith(hint), r.stderr
        assert "made under" not in run(*args, "--rules", house).stderr


def test_a_house_sketch_filled_without_its_rules_says_so(house, house_map, tmp_path):
    """generate --from a sketch made under house rules, without --rules, filled it under the shipped rules (another
    map, recording no house rules) without a word; solve, hint, render and deduce name the rules it was made under."""
    sketch = tmp_path / "sketch.toml"
    r = run("deduce", house_map, "--rules", house, "--no-profile", "--puzzle", sketch)
    assert r.exit_code == 0, r.output
    r = run("generate", "--from", sketch, "--seed", 1)
    if r.exit_code == 0:  # filled under the shipped rules: said, with the option that fills it as it was made
        assert r.stderr == (
            f"note: {sketch}: filled under the shipped fauna rules "
            f"(it was made under the house rules of {house.name}: give --rules FILE)\n"
        )
    else:  # none fits the shipped rules: the error names them
        assert r.exit_code == 1 and r.stderr.endswith(
            f"(it was made under the house rules of {house.name}: give --rules FILE)\n"
        )
    r = run("generate", "--from", sketch, "--seed", 1, "--rules", house)
    assert r.exit_code == 0 and "made under" not in r.stderr


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_a_map_of_another_chapter_than_the_rules_is_refused_as_validate_refuses_it(house, command):
    r = run(command, "flora-1", "--rules", house)
    assert r.exit_code == 2
    assert r.stderr == run("validate", "--rules", house, "flora-1").stderr
    r = run(command, "training-1", "--rules", house)
    assert (r.exit_code, r.stderr) == (2, "error: training-1: a training map does not fit the board of chapter fauna\n")


@pytest.mark.parametrize("house_first", [True, False])
def test_hint_follows_the_house_rules(house, house_map, house_first):
    reveal = reveal_all_but(house_map, (*HIDDEN, "D5", "E5"))
    asks = [["--rules", house], []] if house_first else [[], ["--rules", house]]
    got = {}
    for rules in asks:
        r = run("hint", house_map, "--reveal", reveal, "--json", *rules)
        assert r.exit_code == 0, r.output
        got[bool(rules)] = json.loads(r.stdout)["explanation"]
    assert got[True]["terrain"] == "Ft" and "exactly 4 Forts" in got[True]["text"]
    assert got[False]["terrain"] != "Ft"


# --- repair ------------------------------------------------------------------------------------------------


def test_repair_mends_a_map_to_the_house_rules(house, house_map):
    text = house_map.read_text(encoding="utf-8")
    head, terrain = text.split('terrain = """')
    three = house_map.parent / "three-forts.toml"  # C6's Fort made a Food: 3 Forts, as shipped fauna wants
    three.write_text(head + 'terrain = """' + terrain.replace("Ft ", "Fo ", 1), encoding="utf-8")
    r = run("repair", three, "--rules", house, "--json")
    assert r.exit_code == 0, r.output
    fixed = parse_map(json.loads(r.stdout)["text"])
    assert fixed.cells == read_map(house_map).cells and json.loads(r.stdout)["distance"] == 1
    assert check_map(fixed, load_chapter(house)) == [] and check_map(fixed) != []
    mine = run("repair", house_map, "--rules", house)
    assert mine.exit_code == 0 and mine.stderr == f"{house_map}: valid; nothing to repair\n"
    assert run("repair", "flora-1", "--rules", house).stderr == run("validate", "--rules", house, "flora-1").stderr


# --- deduce ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def no_f1(tmp_path_factory) -> Path:
    """Fauna without F1 (Vine–Rock columns): a shipped fauna map keeps these rules too, and deduces otherwise."""
    start, end = FAUNA.index('[[rule]]\nid = "F1"'), FAUNA.index('[[rule]]\nid = "F2"')
    path = tmp_path_factory.mktemp("no-f1") / "no-f1.toml"
    path.write_text(FAUNA[:start] + FAUNA[end:], encoding="utf-8")
    return path


def deduce_json(*args):
    r = run("deduce", *args, "--json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    # what the rules decide; a step's count may be exact sooner once a circuit of an earlier run is cached
    path = [(s["cell"], s["reason"], s["forced"], s["deduced"]) for s in report["profile"]["steps"]]
    return report["reveal_set"], report["depends_on"], path, report["grade"]


@pytest.mark.parametrize("house_first", [True, False])
def test_deduce_house_and_shipped_rules_in_one_process_in_either_order(no_f1, house_first):
    first, second = (["--rules", no_f1], []) if house_first else ([], ["--rules", no_f1])
    a, b, again = deduce_json("fauna-1", *first), deduce_json("fauna-1", *second), deduce_json("fauna-1", *first)
    assert again == a  # the other rules' solvers and circuits in between change nothing
    mine, shipped = (a, b) if house_first else (b, a)
    assert "F1" in shipped[1] and "F1" not in mine[1]  # uniqueness cannot rely on a rule the house dropped
    assert mine[0] != shipped[0] and mine[2] != shipped[2]  # another reveal set, another path
    assert mine[3]["score"] != shipped[3]["score"]
    assert mine[3]["calibrated_on"] == "fauna" and "calibrated_on" not in shipped[3]


def test_deduce_under_the_house_rules_says_the_tier_is_shipped_fauna_s(house, house_map):
    r = run("deduce", house_map, "--rules", house)
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(f"{house_map} under the house rules of {house}: a reveal set of ")
    assert "every Fort known by step 1" in r.stdout  # 4 Forts, each deduced after the first guess
    assert "cut at the quartiles of maps generated under shipped fauna's rules, not these house rules'" in r.stdout
    shipped = run("deduce", house_map)  # 4 Forts: not a shipped fauna map
    assert shipped.exit_code == 1
    assert shipped.stderr.startswith(f"error: {house_map}: not a valid fauna map: it breaks F2 Fort pattern")


def test_deduce_trims_a_puzzle_under_the_house_rules(house, house_map, tmp_path):
    m = read_map(house_map)
    forts = [m.board.index(c) for c in FORTS]
    puzzle = tmp_path / "puzzle.toml"
    puzzle.write_text(dumps_map(m.hide(forts)), encoding="utf-8")
    out = tmp_path / "trimmed.toml"
    r = run("deduce", puzzle, "--rules", house, "--no-profile", "--puzzle", out)
    assert r.exit_code == 0, r.output
    assert all(read_map(out).cells[i] is None for i in forts)  # the house rules place all 4 Forts: none given
    shipped = run("deduce", puzzle, "--no-profile", "--puzzle", tmp_path / "no.toml")
    assert shipped.exit_code == 1  # shipped fauna's 3 Forts among the 4 cells: more maps than one
    assert shipped.stderr.startswith(f"error: {puzzle}: a partial map with more than one completion")


def test_deduce_refuses_another_chapter_s_map_and_a_map_impossible_rules_break(house, house_map, tmp_path):
    r = run("deduce", "flora-1", "--rules", house, "--no-profile")
    assert r.exit_code == 2
    assert r.stderr == run("validate", "--rules", house, "flora-1").stderr
    impossible = house_file(tmp_path, "impossible.toml", "at_least = 50, at_most = 50")
    r = run("deduce", house_map, "--rules", impossible, "--no-profile")
    assert r.exit_code == 1
    assert r.stderr.startswith(f"error: {house_map}: not a valid fauna map under the house rules of {impossible}")


# --- which rules a made map was made under ----------------------------------------------------------------


def made_under(text: str) -> tuple:
    record = parse_map(text).meta.get("generator") or {}
    return record.get("rules"), record.get("rules_fingerprint")


def test_a_map_made_under_house_rules_says_so_and_validate_tells_it(house, house_map, no_f1):
    fingerprint = chapter_fingerprint(load_chapter(house))
    assert made_under(house_map.read_text(encoding="utf-8")) == ("house.toml", fingerprint)
    assert made_under(run("generate", "-c", "fauna", "--seed", 7).stdout) == (None, None)
    r = run("validate", house_map)
    assert r.exit_code == 1
    assert r.stdout.splitlines()[-1] == (
        f"  note: made under the house rules of house.toml (fingerprint {fingerprint}): "
        "check it with mapgen validate --rules house.toml"
    )
    assert json.loads(run("validate", "--json", house_map).stdout)[0]["made_under"] == {
        "rules": "house.toml",
        "fingerprint": fingerprint,
    }
    assert run("validate", "--rules", house, house_map).stdout == f"{house_map}: valid\n"
    other = run("validate", "--rules", no_f1, house_map)  # other rules than the map's: both named
    assert other.exit_code == 1
    assert other.stdout.splitlines()[-1] == (
        f"  note: made under the house rules of house.toml (fingerprint {fingerprint}), not those of {no_f1} "
        f"(fingerprint {chapter_fingerprint(load_chapter(no_f1))})"
    )
    assert "note:" not in run("validate", "training-1", "fauna-1").stdout


@pytest.mark.parametrize("args", [["solve"], ["hint"], ["deduce"], ["grade"], ["playtest"], ["pack"]])
def test_a_house_map_asked_under_other_house_rules_says_which_rules_it_was_made_under(house, house_map, no_f1, args):
    """As validate's note does: "no completion" or "not a valid map" under no-f1.toml (which keeps F2's 3 Forts)
    names the house rules the 4-Fort map records, and a copy of the map's own rules under another name is quiet."""
    fingerprint = chapter_fingerprint(load_chapter(house))
    other = chapter_fingerprint(load_chapter(no_f1))
    if args == ["pack"]:
        args = ["pack", "-o", house_map.parent / "other-rules.pdf"]
    r = run(*args, house_map, "--rules", no_f1)
    assert r.exit_code == 1
    assert r.stderr.endswith(
        f" (it was made under the house rules of house.toml (fingerprint {fingerprint}), not those of {no_f1} "
        f"(fingerprint {other}))\n"
    ), r.stderr
    copy = no_f1.parent / "copy.toml"
    copy.write_text(house.read_text(encoding="utf-8"), encoding="utf-8")
    if args[0] in ("solve", "hint"):
        assert "made under" not in run(*args, house_map, "--rules", copy).stderr


def test_sketch_fills_and_repairs_record_the_rules_they_keep(house, house_map):
    mine = ("house.toml", chapter_fingerprint(load_chapter(house)))
    head, terrain = house_map.read_text(encoding="utf-8").split('terrain = """')
    terrain = terrain.split("[generator]")[0]
    plain = head + 'terrain = """' + terrain  # the same map, made by hand
    sketch = house_map.parent / "plain-sketch.toml"
    sketch.write_text(head + 'terrain = """' + terrain.replace("Ft ", ".. ", 1), encoding="utf-8")
    filled = run("generate", "--from", sketch, "--rules", house, "--seed", 3)
    assert filled.exit_code == 0, filled.output
    assert made_under(filled.stdout) == mine
    by_hand = house_map.parent / "by-hand.toml"
    by_hand.write_text(plain, encoding="utf-8")
    assert made_under(json.loads(run("repair", by_hand, "--rules", house, "--json").stdout)["text"]) == mine
    shipped = json.loads(run("repair", house_map, "--json").stdout)  # mended to shipped fauna: 3 Forts
    assert shipped["distance"] >= 1 and made_under(shipped["text"]) == (None, None)
    assert parse_map(shipped["text"]).meta["generator"]["seed"] == 7  # the rest of the record is kept


# --- playtest ----------------------------------------------------------------------------------------------


def test_playtest_plays_a_map_made_under_house_rules_with_them(house, house_map):
    """`playtest house-map.toml --rules house.toml` refused the map against the shipped rules (4 Forts, "expected
    exactly 3") before it read --rules; it now checks the map against the house rules and plays it, and without
    --rules it says which rules the map was made under."""
    r = run("playtest", house_map, "--rules", house, "--games", 3, "--jobs", 1, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games"] == 3
    r = run("playtest", house_map, "--games", 3, "--jobs", 1)
    assert r.exit_code == 1
    assert "expected exactly 3" in r.output and f"made under the house rules of {house.name}" in r.output
    r = run("playtest", "fauna-1", "--rules", house, "--games", 3, "--jobs", 1)
    assert r.exit_code == 1 and "under the house rules of" in r.output and "expected exactly 4" in r.output
    r = run("playtest", "flora-1", "--rules", house, "--games", 3, "--jobs", 1)
    assert r.exit_code == 2 and "a flora map, but the rules are chapter fauna's" in r.output


def test_playtest_names_the_house_rules_file_it_played_under(tmp_path):
    """`playtest fauna-1 --rules house.toml` headed its report "..., house rules fauna": the name every Fauna house
    file must keep, so it named no file. It now names the file and its fingerprint, as the replays' header and
    `grade` do (`--json`: "rules" and "rules_fingerprint", grade's keys)."""
    house = house_file(tmp_path, "mine.toml", SHIPPED_F2)  # fauna's rules, under a file of one's own
    fingerprint = chapter_fingerprint(load_chapter(house))
    r = run("playtest", "fauna-1", "--rules", house, "--games", 2, "--jobs", 1)
    assert r.exit_code == 0, r.output
    first = r.stdout.splitlines()[0]
    assert first.endswith(f", house rules {house.name} (fingerprint {fingerprint})"), first
    rep = json.loads(run("playtest", "fauna-1", "--rules", house, "--games", 2, "--jobs", 1, "--json").stdout)
    assert (rep["rules"], rep["rules_fingerprint"]) == (house.name, fingerprint)
    rep = json.loads(run("playtest", "fauna-1", "--games", 2, "--jobs", 1, "--json").stdout)
    assert "rules" not in rep and "rules_fingerprint" not in rep


# --- grade -------------------------------------------------------------------------------------------------


def test_grade_deduces_plays_and_checks_under_the_house_rules(house, house_map):
    """`grade house-map.toml --rules house.toml` had no --rules: the map was refused against shipped fauna's 3 Forts.
    It is now checked, deduced (as deduce --rules) and played (as playtest --rules) under the house rules, and the
    report says which rules, and what is still shipped fauna's measure."""
    args = ("--bots", "heuristic", "--games", 3, "--jobs", 1)
    r = run("grade", house_map, "--rules", house, *args, "--json")
    assert r.exit_code == 0, r.output
    (g,) = json.loads(r.stdout)
    reveal_set, _, _, deduced = deduce_json(house_map, "--rules", house)
    assert g["deduction"]["reveal_set"] == len(reveal_set) and g["deduction"]["targets_known_at"] == 1
    assert g["deduction"]["grade"] == {k: deduced[k] for k in g["deduction"]["grade"]}
    assert g["deduction"]["grade"]["calibrated_on"] == "fauna"
    played = json.loads(run("playtest", house_map, "--rules", house, "--games", 3, "--jobs", 1, "--json").stdout)
    assert (g["bots"]["heuristic"]["wins"], g["bots"]["heuristic"]["mean_days"]) == (
        played["wins"],
        round(played["mean_days"], 3),
    )
    assert (g["rules"], g["rules_fingerprint"]) == ("house.toml", chapter_fingerprint(load_chapter(house)))
    assert g["calibrated_on"]["chapter"] == "fauna" and len(g["calibrated_on"]["what"]) == 2  # the tier, the bands
    text = run("grade", house_map, "--rules", house, *args).stdout
    assert text.startswith(f"{house_map} under the house rules of house.toml: fauna, games seed 0: ")
    assert "  calibrated   on shipped fauna, not these house rules: the deduction tier, cut at the quartiles" in text
    assert "the heuristic win-rate band 25% to 80% and the walled-in cap 25% (measured on shipped maps" in text


def test_grade_refuses_a_map_the_rules_do_not_fit_or_that_breaks_them(house, house_map):
    args = ("--bots", "heuristic", "--games", 2, "--no-deduction")
    shipped = run("grade", house_map, *args)
    assert shipped.exit_code == 1
    assert "expected exactly 3" in shipped.stderr and "made under the house rules of house.toml" in shipped.stderr
    r = run("grade", "fauna-1", "--rules", house, *args)
    assert r.exit_code == 1
    assert r.stderr.startswith(f"error: fauna-1: not a valid fauna map under the house rules of {house}: it breaks F2")
    r = run("grade", "flora-1", "--rules", house, *args)
    assert r.exit_code == 2 and r.stderr == run("validate", "--rules", house, "flora-1").stderr


def test_python_grade_takes_the_rules_as_grade_rules_does(house, house_map):
    """``mapgen.grade.grade`` had no rules argument although ``mapgen grade --rules FILE`` exists: it now takes the
    house-rule file (or a loaded chapter with ``rules_file``), and gives the command's figures and record."""
    from mapgen.errors import MapgenError
    from mapgen.grade import grade

    m = read_map(house_map)
    r = run("grade", house_map, "--rules", house, "--bots", "heuristic", "--games", 3, "--no-deduction", "--json")
    assert r.exit_code == 0, r.output
    (cli,) = json.loads(r.stdout)
    g = grade(m, str(house_map), games={"heuristic": 3}, deduce=False, rules=house).to_json()
    assert g == cli
    assert (g["rules"], g["rules_fingerprint"]) == ("house.toml", chapter_fingerprint(load_chapter(house)))
    loaded = grade(m, str(house_map), games={"heuristic": 3}, deduce=False, rules=load_chapter(house), rules_file=house)
    assert loaded.to_json() == cli
    with pytest.raises(MapgenError, match="flora-1: a flora map, but the rules are chapter fauna.s"):
        grade(read_map(Path(__file__).parent.parent / "maps" / "flora" / "flora-1.toml"), rules=house, deduce=False)


def grade_figures(*rules) -> tuple:
    r = run("grade", "fauna-1", *rules, "--bots", "heuristic", "--games", 5, "--no-deduction", "--json")
    assert r.exit_code == 0, r.output
    f = json.loads(r.stdout)[0]["bots"]["heuristic"]
    return f["wins"], f["mean_days"], f["sealed"]


@pytest.mark.parametrize("house_first", [True, False])
def test_grade_plays_with_the_house_rules_in_either_order(no_f1, house_first):
    """The bots of grade --rules reason with the house rules, as playtest --rules: a Game kept for the shipped
    rules' games is never handed to the house rules' games in one process, nor the reverse."""
    order = [["--rules", no_f1], []] if house_first else [[], ["--rules", no_f1]]
    got = {bool(rules): grade_figures(*rules) for rules in order}
    assert got[True] != got[False]  # fauna-1's first 5 heuristic games: 2 wins without F1 in mind, 1 with it
    for rules in order:
        p = json.loads(run("playtest", "fauna-1", *rules, "--games", 5, "--jobs", 1, "--json").stdout)
        assert got[bool(rules)] == (p["wins"], round(p["mean_days"], 3), p["sealed"])


def test_a_grade_table_of_house_rules_records_them():
    """No [grade] table of house-rule figures is read as the shipped rules': it names the file and fingerprint."""
    from mapgen.grade import MapGrade
    from mapgen.quality import chapter_quality

    g = MapGrade("fauna-1", "fauna", 0, {}, None, chapter_quality("fauna"))
    assert "rules" not in g.table() and "rules" not in g.to_json()
    mine = {"rules": "house.toml", "rules_fingerprint": "0123456789abcdef"}
    house = MapGrade("fauna-1", "fauna", 0, {}, None, chapter_quality("fauna"), rules=mine)
    assert {k: house.table()[k] for k in mine} == mine


# --- render ------------------------------------------------------------------------------------------------


def render_json(house_map, tmp_path, rules):
    out = tmp_path / "odds.svg"
    reveal = reveal_all_but(house_map, HIDDEN)
    asked = ("--forced", "--probabilities", "Ft", "-o", out, "--force", "--json")
    r = run("render", house_map, "--reveal", reveal, *asked, *rules)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("house_first", [True, False])
def test_render_forced_and_odds_under_the_house_rules(house, house_map, tmp_path, house_first):
    order = [["--rules", house], []] if house_first else [[], ["--rules", house]]
    got = {bool(rules): render_json(house_map, tmp_path, rules) for rules in order}
    mine, shipped = got[True], got[False]
    assert {c: mine["forced"][c] for c in FORTS} == dict.fromkeys(FORTS, "Ft")
    assert {c: mine["probabilities"]["cells"][c] for c in FORTS} == dict.fromkeys(FORTS, 1.0)
    assert not set(FORTS) & set(shipped["forced"])  # 3 Forts among 4 cells: none forced, none sure
    assert all(shipped["probabilities"]["cells"][c] < 1 for c in FORTS)


def test_render_judges_a_complete_map_by_the_house_rules(house, house_map, tmp_path):
    import xml.etree.ElementTree as ET

    out = tmp_path / "map.svg"

    def broken_ids():
        return {el.get("id") for el in ET.parse(out).getroot().iter() if (el.get("id") or "").startswith("broken")}

    r = run("render", house_map, "--rules", house, "-o", out)
    assert (r.exit_code, r.stderr) == (0, "")
    assert broken_ids() == set()  # its 4 Forts keep the house rules: nothing drawn broken
    r = run("render", house_map, "-o", out, "--force")
    assert r.exit_code == 0 and "F2" in r.stderr and "made under the house rules of house.toml" in r.stderr
    assert "broken-rules" in broken_ids()
    r = run("render", "fauna-1", "--rules", house, "-o", out, "--force")
    assert r.exit_code == 0
    assert r.stderr == (
        f"note: fauna-1: the map breaks rules F2 under the house rules of {house} (1 violation; "
        f"mapgen validate --rules {house} fauna-1 lists them)\n"
    )
    assert "broken-rules" in broken_ids()  # 3 Forts, where the house wants 4
    r = run("render", "flora-1", "--rules", house, "-o", tmp_path / "flora.svg")
    assert r.exit_code == 2 and r.stderr == run("validate", "--rules", house, "flora-1").stderr


def test_render_profile_deduces_under_the_house_rules(house, house_map, tmp_path):
    out = tmp_path / "profile.svg"
    r = run("render", house_map, "--profile", "--rules", house, "-o", out, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["steps"] > 0
    shipped = run("render", house_map, "--profile", "-o", tmp_path / "no.svg")  # 4 Forts: no shipped completion
    assert shipped.exit_code == 1 and "no completion: rule F2 Fort pattern" in shipped.stderr
    deduced = tmp_path / "deduced.json"
    deduced.write_text(run("deduce", house_map, "--rules", house, "--json").stdout, encoding="utf-8")
    r = run("render", deduced, "--profile", "--rules", house, "-o", tmp_path / "again.svg")
    assert r.exit_code == 2 and r.stderr.startswith("error: --rules: ")


# --- compile -----------------------------------------------------------------------------------------------


def test_compile_caches_the_house_rules_circuit_for_solve_rules_only(house, house_map, tmp_path, monkeypatch):
    """compile --rules compiled the shipped rules' circuit (it had no --rules); now it compiles the house rules',
    which a later solve --rules of the same state finds on disk, and a shipped solve does not."""
    from mapgen.solving import compiled, solve

    cache = tmp_path / "cache"
    reveal = reveal_all_but(house_map, HIDDEN)
    r = run("compile", house_map, "--reveal", reveal, "--rules", house, "--cache-dir", cache, "--json")
    assert r.exit_code == 0, r.output
    made = json.loads(r.stdout)
    assert made["rules"] == str(house) and not made["from_cache"]
    monkeypatch.setenv("MAPGEN_CACHE_DIR", str(cache))
    monkeypatch.setattr(solve, "_DEFAULT_STORE", None)  # a store over that folder, nothing in memory
    loaded, found = [], []
    real_load, real_find = compiled.CircuitCache.load, solve.CircuitStore.find
    monkeypatch.setattr(
        compiled.CircuitCache, "load", lambda self, *a: loaded.append(real_load(self, *a)) or loaded[-1]
    )
    monkeypatch.setattr(solve.CircuitStore, "find", lambda self, *a: found.append(real_find(self, *a)) or found[-1])
    key = Path(made["cache"]).stem.split("-")[1]
    assert solve_json(house_map, ["--rules", house])["count"] == made["count"]
    assert [c.key for c in loaded if c is not None] == [key]  # read from the disk cache, once
    found.clear()
    assert solve_json(house_map, [])["count"] != made["count"]
    assert found and key not in {c.key for c in found if c is not None}  # shipped fauna: never the house circuit
