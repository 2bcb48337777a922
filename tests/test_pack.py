"""mapgen pack: the folder PDF read back (pages, sizes, the briefing named on each map page, the QR code decoded
to the helper's address, the log's form fields), the written maps valid and the same seed giving the same bytes,
and bad requests refused in one line before any work."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner

import maps
from cli import main
from constraints.catalogue import check_map, load_chapter
from mapgen.mapfile import read_map
from mapgen.render.folder import MM, PAPERS
from mapgen.terrain import Terrain
from mapgen.web.links import helper_url

pypdf = pytest.importorskip("pypdf")
zxingcpp = pytest.importorskip("zxingcpp")

DATA = Path(__file__).parent / "data"
CHAPTERS = Path(__file__).parent.parent / "constraints" / "chapters"
#: a cheap folder: Training's two maps, one Gentle and one Moderate, 20 heuristic games per candidate
TRAINING = ["pack", "-c", "training", "--seed", "1", "--grade-spread", "--games", "20"]


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_fails(result, code: int, line: str) -> None:
    assert (result.exit_code, result.stderr) == (code, line + "\n"), result.output
    assert "Traceback" not in result.output


def qr_texts(page) -> list[str]:
    """Every QR code in the page's pictures, decoded."""
    return [b.text for img in page.images for b in zxingcpp.read_barcodes(img.image)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The Training folder made twice from the same seed, in two places."""
    made = []
    for run in ("a", "b"):
        base = tmp_path_factory.mktemp(f"pack-{run}")
        r = cli(*TRAINING, "-o", base / "folder.pdf", "--out", base / "maps", "--json")
        assert r.exit_code == 0, r.output
        made.append((base, json.loads(r.stdout)))
    return made


def test_the_folder_has_a_cover_each_map_with_a_blank_back_and_the_log_on_a4(folder):
    base, report = folder[0]
    reader = pypdf.PdfReader(base / "folder.pdf")
    assert report["pages"] == len(reader.pages) == 2 + 2 * 2 + 1  # cover and back, two maps and backs, the log
    w, h = PAPERS["a4"]
    for page in reader.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx((w * MM, h * MM), abs=0.01)
    cover = reader.pages[0].extract_text()
    assert "Corps of Discovery · Chapter 0: Training Mission" in cover and "Gentle" in cover and "Moderate" in cover
    for back in (1, 3, 5):  # nothing printed behind the cover or a map
        assert reader.pages[back].extract_text().strip() == "" and not reader.pages[back].images
    fields = reader.get_fields()
    assert len(fields) == 20 * 6 and {"log_01_players", "log_20_score", "log_07_gear"} <= set(fields)


def test_each_map_page_names_its_briefing_and_its_qr_code_opens_the_helper_on_it(folder):
    base, report = folder[0]
    reader = pypdf.PdfReader(base / "folder.pdf")
    assert [m["number"] for m in report["maps"]] == [1, 2]
    for k, entry in enumerate(report["maps"]):
        m = read_map(entry["file"])
        assert m.briefing.number == k + 1
        text = reader.pages[2 + 2 * k].extract_text()
        assert f"Map {k + 1}" in text and f"Rock Peak: {m.board.name(m.briefing.peak)}" in text
        assert "Start: column 7 (the river)" in text
        url = helper_url(m)
        assert qr_texts(reader.pages[2 + 2 * k]) == [url] == [entry["url"]]
        assert url.replace("\n", "") in text.replace("\n", "")  # the address is printed beside its code
        parts = urlsplit(url)
        assert (parts.scheme, parts.netloc, parts.path) == ("http", "localhost:8000", "/helper")
        assert parse_qs(parts.fragment) == {"ch": ["training"], "peak": [m.board.name(m.briefing.peak)]}


def test_every_written_map_is_valid_graded_and_the_tiers_are_spread(folder):
    base, _ = folder[0]
    files = sorted((base / "maps").glob("*.toml"))
    assert [f.name for f in files] == ["training-1.toml", "training-2.toml"]
    tiers = []
    for f in files:
        m = read_map(f)
        assert check_map(m) == []
        table = tomllib.loads(f.read_text(encoding="utf-8"))["grade"]
        assert table["heuristic"]["games"] == 20 and table["flags"] == []
        tiers.append(table["tier"])
    assert tiers == ["Gentle", "Moderate"]  # one of each, easiest first
    assert cli("validate", *files).exit_code == 0


def test_the_same_seed_gives_byte_identical_maps_and_pdf(folder):
    (a, _), (b, _) = folder
    names = sorted(p.name for p in (a / "maps").iterdir())
    assert names == sorted(p.name for p in (b / "maps").iterdir())
    for name in names:
        assert (a / "maps" / name).read_bytes() == (b / "maps" / name).read_bytes()
    assert (a / "folder.pdf").read_bytes() == (b / "folder.pdf").read_bytes()


def test_packing_given_maps_on_letter_in_black_and_white(tmp_path):
    out = tmp_path / "fauna.pdf"
    base = "http://192.168.1.20:8000/"
    r = cli("pack", "fauna-1", "fauna-3", "-o", out, "--paper", "letter", "--bw", "--url-base", base, "--json")
    assert r.exit_code == 0, r.output
    reader = pypdf.PdfReader(out)
    assert len(reader.pages) == 2 + 2 * 2 + 1
    w, h = PAPERS["letter"]
    assert (float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)) == pytest.approx(
        (w * MM, h * MM), abs=0.01
    )
    for k, name in enumerate(["fauna-1", "fauna-3"]):
        m = maps.load(name)
        page = reader.pages[2 + 2 * k]
        text = page.extract_text()
        assert f"Map {k + 1}" in text and f"Rock Peak: {m.board.name(m.briefing.peak)}" in text
        assert "Mini map: 3 Forts" in text
        url = helper_url(m, "http://192.168.1.20:8000")
        assert qr_texts(page) == [url]
        rows = m.briefing.fort_pattern.text().splitlines()
        assert parse_qs(urlsplit(url).fragment)["fp"] == ["/".join("-".join(r.split()) for r in rows)]
    cover = reader.pages[0].extract_text()
    assert maps.load("fauna-1").meta["grade"]["tier"] in cover  # the shipped maps' [grade] tables fill the cover


def test_the_cover_names_the_bot_of_its_sealed_and_days_columns():
    """The cover's "Sealed (walled in)" and "Days" columns named no bot, while mapgen grade's tables name theirs
    ("heuristic sealed (walled in)"); with maps whose first graded bot differs, each cell names its own."""
    import dataclasses

    from mapgen.render.folder import FolderMap, cover_rows

    shipped = [FolderMap(k, maps.load(f"fauna-{k}"), "") for k in (1, 2)]
    head, rows = cover_rows(shipped)
    assert head[-3:] == ["Heuristic sealed (walled in)", "Heuristic days", "Seed"]
    grade = maps.load("fauna-1").meta["grade"]
    heuristic = grade["heuristic"]
    assert rows[0][-3:-1] == [
        f"{100 * heuristic['sealed_rate']:.0f}% ({100 * heuristic['walled_in_rate']:.0f}%)",
        f"{heuristic['mean_days']:.1f}",
    ]
    # without fauna-1's fingerprint ("map"), which would mark the table as another map's and leave it off the cover
    deducer_only = {k: v for k, v in grade.items() if k not in ("heuristic", "clairvoyant", "map")}
    m = shipped[1].map
    other = dataclasses.replace(shipped[1], map=dataclasses.replace(m, meta={**m.meta, "grade": deducer_only}))
    head, rows = cover_rows([shipped[0], other])
    assert head[-3:-1] == ["First bot sealed (walled in)", "First bot days"]
    assert rows[0][-2].startswith("heuristic: ") and rows[1][-2] == f"deducer: {grade['deducer']['mean_days']:.1f}"


def test_flora_briefing_names_its_start_and_greek_fire():
    m = maps.load("flora-1")
    q = parse_qs(urlsplit(helper_url(m)).fragment)
    assert q == {
        "ch": ["flora"],
        "peak": [m.board.name(m.briefing.peak)],
        "start": [m.board.name(m.briefing.start)],
        "gf": [m.board.name(m.briefing.greek_fire)],
    }


def test_the_calibration_pages(tmp_path):
    out = tmp_path / "cal.pdf"
    r = cli("pack", "--calibrate", "-o", out, "--cell-mm", "23.5", "--offset-mm", "9,7.5")
    assert r.exit_code == 0, r.output
    reader = pypdf.PdfReader(out)
    assert len(reader.pages) == 3
    assert "--cell-mm 23.5 --offset-mm 9,7.5" in reader.pages[0].extract_text()
    ruler = reader.pages[1].extract_text()
    assert "10,10" in ruler and "100,150" in ruler  # labelled crossings, readable through a hole
    check = reader.pages[2].extract_text()
    assert "A1" in check and "G7" in check


# ----- bad requests -----
def _refuse_work(monkeypatch):
    def refuse(*a, **kw):
        raise AssertionError("the work started before the request was checked")

    monkeypatch.setattr("mapgen.pack.make_folder", refuse)
    monkeypatch.setattr("mapgen.render.folder.write_folder", refuse)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--cell-mm", "30"],
            "error: --cell-mm: a map at 30 mm cells and a 8,8 mm offset is 226.0 x 272.0 mm; A4 holds 188.3 x 270.3 mm ",
        ),
        (["--offset-mm", "8,x"], "error: --offset-mm: expected X,Y in millimetres"),
        (["--offset-mm", "50"], "error: --offset-mm: offsets between 0 and 40 mm, not 50,50"),
        (["--cell-mm", "5"], "error: --cell-mm: a cell pitch between 10 and 40 mm, not 5"),
        (["--grade", "Tricky"], "error: --grade-spread: spreads the maps over every grade"),
        (["--url-base", "localhost:8000"], "error: --url-base: expected the address of mapgen serve"),
        # found by an audit: these were printed in every QR code, which then opened nothing
        (["--url-base", "http://exa mple.com"], "error: --url-base: expected the address of mapgen serve"),
        (["--url-base", "http://host:99999"], "error: --url-base: expected the address of mapgen serve"),
        (["--url-base", "http://host:port"], "error: --url-base: expected the address of mapgen serve"),
        (["--url-base", "http://:8000"], "error: --url-base: expected the address of mapgen serve"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(tmp_path, monkeypatch, args, line):
    _refuse_work(monkeypatch)
    r = cli(*TRAINING, "-o", tmp_path / "f.pdf", "--out", tmp_path / "maps", *args)
    assert r.exit_code == 2 and r.stderr.startswith(line) and r.stderr.count("\n") == 1, r.output
    assert list(tmp_path.iterdir()) == []


def test_requests_that_mix_modes_are_refused(tmp_path, monkeypatch):
    _refuse_work(monkeypatch)
    out = tmp_path / "f.pdf"
    assert_fails(cli("pack", "fauna-1", "-c", "fauna", "-o", out), 2, "error: -c: give MAPS or -c CHAPTER, not both")
    assert_fails(
        cli("pack", "fauna-1", "--grade-spread", "-o", out),
        2,
        "error: --grade-spread: makes new maps with -c CHAPTER; MAPS are packed as they are",
    )
    assert_fails(
        cli("pack", "fauna-1", "flora-1", "-o", out),
        2,
        "error: MAPS: a folder holds one chapter's maps, not fauna, flora",
    )
    assert_fails(
        cli("pack", "-c", "training", "-o", out),
        2,
        "error: --out: a new folder's maps are written to --out DIR as well (to print one again, or check it)",
    )
    assert_fails(
        cli("pack", "fauna-1", "-o", tmp_path / "f.png"),
        2,
        f"error: {tmp_path / 'f.png'}: -o is the PDF to write: name it {tmp_path / 'f.pdf'} "
        "(the maps of -c go to --out DIR)",
    )
    (tmp_path / "folder").mkdir()  # "a map folder is a PDF" read as if -o were the folder of maps
    assert_fails(
        cli("pack", "fauna-1", "-o", f"{tmp_path / 'folder'}/"),
        2,
        f"error: {tmp_path / 'folder'}/: -o is the PDF to write: name it {tmp_path / 'folder.pdf'} "
        "(the maps of -c go to --out DIR)",
    )
    (tmp_path / "folder").rmdir()
    assert_fails(
        cli("pack", "fauna-1", "-o", tmp_path / "somedir"),
        2,
        f"error: {tmp_path / 'somedir'}: -o is the PDF to write: name it {tmp_path / 'somedir.pdf'} "
        "(the maps of -c go to --out DIR)",
    )
    assert_fails(  # the calibration pages are no map folder (it said they were)
        cli("pack", "--calibrate", "-o", tmp_path / "c.txt"),
        2,
        f"error: {tmp_path / 'c.txt'}: -o is the PDF of the calibration pages: name it {tmp_path / 'c.pdf'}",
    )
    assert_fails(
        cli("pack", "--calibrate", "--rules", CHAPTERS / "fauna.toml", "-o", out),
        2,
        "error: --calibrate: writes the ruler pages only; drop --rules",
    )
    assert_fails(
        cli("pack", "--calibrate", "fauna-1", "-o", out),
        2,
        "error: --calibrate: writes the ruler pages only; drop MAPS",
    )
    assert list(tmp_path.iterdir()) == []


def test_existing_outputs_are_kept_without_force_and_checked_before_the_work(tmp_path, monkeypatch):
    pdf, maps_dir = tmp_path / "f.pdf", tmp_path / "maps"
    maps_dir.mkdir()
    (maps_dir / "training-2.toml").write_text("mine", encoding="utf-8")
    with monkeypatch.context() as mp:
        _refuse_work(mp)
        r = cli(*TRAINING, "-o", pdf, "--out", maps_dir)
        assert_fails(r, 2, f"error: {maps_dir / 'training-2.toml'}: already exists; use --force to overwrite")
        pdf.write_text("mine", encoding="utf-8")
        assert_fails(
            cli(*TRAINING, "-o", pdf, "--out", maps_dir), 2, f"error: {pdf}: already exists; use --force to overwrite"
        )
        assert_fails(
            cli("pack", "--calibrate", "-o", pdf), 2, f"error: {pdf}: already exists; use --force to overwrite"
        )
    assert (
        pdf.read_text(encoding="utf-8") == "mine"
        and (maps_dir / "training-2.toml").read_text(encoding="utf-8") == "mine"
    )
    assert sorted(p.name for p in maps_dir.iterdir()) == ["training-2.toml"]


def test_a_given_map_that_breaks_a_rule_exits_1(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text((DATA / "valid" / "training-201.toml").read_text(encoding="utf-8").replace("Mu", "Ro", 1))
    r = cli("pack", bad, "-o", tmp_path / "f.pdf")
    assert r.exit_code == 1 and r.stderr.startswith(f"error: {bad}: not a valid training map: it breaks C6 Rock")
    assert not (tmp_path / "f.pdf").exists()


def test_a_puzzle_given_to_pack_is_refused_naming_the_command_that_prints_one(tmp_path):
    """A puzzle maker packing `deduce --puzzle` files into one printable file was told only "mapgen pack needs a
    complete map": a folder holds maps hidden under Path tokens; a puzzle prints with render --sheet."""
    puzzle = tmp_path / "puzzle.toml"
    assert cli("deduce", "training-1", "--no-profile", "--puzzle", puzzle).exit_code == 0
    r = cli("pack", "training-2", puzzle, "-o", tmp_path / "f.pdf")
    hidden = read_map(puzzle).unrevealed()
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {puzzle}: a partial map ({len(hidden)} unrevealed cells, first {read_map(puzzle).board.name(hidden[0])}); "
        "mapgen pack needs a complete map (a folder's maps hide under Path tokens; a puzzle prints on its own sheet: "
        "mapgen render PUZZLE -o PUZZLE.pdf --sheet)\n"
    )
    assert not (tmp_path / "f.pdf").exists()


def test_a_given_map_whose_file_omits_its_hill_numbers_is_printed_with_them(tmp_path):
    """RULES.md C9 lets a file write a Hill as plain `Hi`: the printed Map Board still shows every Hill's number,
    the page the same as the numbered file's (it showed a Hill symbol and no number)."""
    text = (Path(maps.__file__).parent / "maldonado" / "maldonado-1.toml").read_text(encoding="utf-8")
    pages = []
    for folder, terrain in (("numbered", text), ("bare", re.sub(r"\bHi\d+", "Hi ", text))):
        (tmp_path / folder).mkdir()
        given = tmp_path / folder / "maldonado-1.toml"
        given.write_text(terrain, encoding="utf-8")
        r = cli("pack", given, "-o", tmp_path / folder / "f.pdf")
        assert r.exit_code == 0, r.output
        pages.append(pypdf.PdfReader(tmp_path / folder / "f.pdf").pages[2].extract_text())
    assert "Hi " in terrain and pages[1] == pages[0]


def test_a_grade_table_of_a_map_edited_since_is_not_printed_for_it(tmp_path):
    """A folder's map tweaked by hand after it was graded (a Hill turned into Water, still valid) kept its [grade]
    table, and a later pack printed that tier on the cover as the edited map's. A [grade] table records the map it
    graded (``map``, a fingerprint of the briefing and cells); pack leaves a table of another map out and says so.
    A table without the record (the shipped maps', written before) is read as it was."""
    from mapgen.mapfile import dumps_map, map_fingerprint

    m = maps.load("maldonado-1")
    graded = replace(m, meta={**m.meta, "grade": {**m.meta["grade"], "map": map_fingerprint(m)}})
    i = m.board.index("B4")
    assert m.cells[i] is Terrain.HILL
    edited = graded.with_cells(Terrain.WATER if k == i else t for k, t in enumerate(m.cells))
    assert check_map(edited) == [] and map_fingerprint(edited) != map_fingerprint(m)
    tiers = []
    for name, mm in (("graded", graded), ("edited", edited), ("shipped", m)):
        f = tmp_path / f"{name}.toml"
        f.write_text(dumps_map(mm), encoding="utf-8")
        r = cli("pack", f, "-o", tmp_path / f"{name}.pdf", "--json")
        assert r.exit_code == 0, r.output
        tiers.append(json.loads(r.stdout)["maps"][0]["tier"])
        if name == "edited":
            assert r.stderr == (
                f"note: {f}: its [grade] table graded the map before it was edited: left off the cover "
                f"(mapgen grade {f} grades it as it is)\n"
            )
        else:
            assert "note:" not in r.stderr
    assert tiers == [m.meta["grade"]["tier"], None, m.meta["grade"]["tier"]]


def test_too_few_passing_candidates_exit_1_and_write_nothing(tmp_path):
    args = ["pack", "-c", "training", "--seed", "1", "--count", "1", "--grade", "Fiendish", "--games", "5"]
    r = cli(*args, "--candidates", "1", "-o", tmp_path / "f.pdf", "--out", tmp_path / "maps")
    assert r.exit_code == 1, r.output
    made = f"created folder {tmp_path / 'maps'}\n"  # said, and removed again: it stayed empty (as any command's)
    assert r.stderr.startswith(f"{made}error: {tmp_path / 'f.pdf'}: only 0 of 1 training map met the target in 1 ")
    assert not (tmp_path / "f.pdf").exists() and not (tmp_path / "maps").exists()


def test_the_time_limit_running_out_exits_3(tmp_path, monkeypatch):
    # the search's clock moves 0.06 s at each look, so the limit runs out after the first batch on any machine
    # (seeds 1 and 2: neither is a Fiendish map); a real clock made this test depend on the machine's speed
    import itertools
    import time
    import types

    import mapgen.target

    clock = itertools.count(0.0, 0.06)
    fake = types.SimpleNamespace(monotonic=lambda: next(clock), perf_counter=time.perf_counter)
    monkeypatch.setattr(mapgen.target, "time", fake)
    args = ["pack", "-c", "training", "--seed", "1", "--count", "1", "--grade", "Fiendish", "--games", "5"]
    r = cli(*args, "--time-limit", "0.1", "-o", tmp_path / "f.pdf", "--out", tmp_path / "maps")
    assert r.exit_code == 3, r.output
    made = f"created folder {tmp_path / 'maps'}\n"
    assert r.stderr.startswith(f"{made}error: {tmp_path / 'f.pdf'}: only 0 of 1 training map met the target in 0.1 s")
    assert r.stderr.count("\n") == 2 and not (tmp_path / "f.pdf").exists()


def test_ctrl_c_during_the_search_says_interrupted(tmp_path, monkeypatch):
    def ctrl_c(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr("mapgen.pack.search", ctrl_c)
    pdf = tmp_path / "f.pdf"
    made = f"created folder {tmp_path / 'maps'}\n"
    assert_fails(cli(*TRAINING, "-o", pdf, "--out", tmp_path / "maps"), 130, f"{made}error: {pdf}: interrupted")
    assert not pdf.exists()


# ----- house rules (--rules FILE) -----
def house_rules(folder: Path, chapter: str, kept: str, dropped: str) -> Path:
    """The shipped chapter file with one rule dropped from its list (``kept`` -> ``dropped``)."""
    text = (CHAPTERS / f"{chapter}.toml").read_text(encoding="utf-8")
    assert kept in text
    path = folder / f"house-{chapter}.toml"
    path.write_text(text.replace(kept, dropped, 1), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def house_map(tmp_path_factory):
    """Fauna without C7 (Skull sides), and its seed-1 map: it breaks C7, so only --rules packs it."""
    base = tmp_path_factory.mktemp("house")
    rules = house_rules(base, "fauna", '"C6", "C7", "C8"', '"C6", "C8"')
    r = cli("generate", "--rules", rules, "--seed", "1")
    assert r.exit_code == 0, r.output
    path = base / "h.toml"
    path.write_text(r.stdout, encoding="utf-8")
    assert [v.rule for v in check_map(read_map(path))][:1] == ["C7"]
    return rules, path


def test_a_map_made_under_house_rules_is_packed_with_rules_and_the_cover_names_them(tmp_path, house_map):
    rules, path = house_map
    pdf = tmp_path / "h.pdf"
    r = cli("pack", path, "-o", pdf)  # it told the user to give --rules, which pack did not take
    assert r.exit_code == 1 and r.stderr.startswith(f"error: {path}: not a valid fauna map: it breaks C7 "), r.output
    assert r.stderr.endswith(f"(it was made under the house rules of {rules.name}: give --rules FILE)\n")
    assert not pdf.exists()
    r = cli("pack", path, "--rules", rules, "-o", pdf, "--json")
    assert r.exit_code == 0, r.output
    made = tomllib.loads(path.read_text(encoding="utf-8"))["generator"]
    record = {"rules": rules.name, "rules_fingerprint": made["rules_fingerprint"]}
    assert json.loads(r.stdout)["rules"] == record
    cover = " ".join(pypdf.PdfReader(pdf).pages[0].extract_text().split())
    assert f"House rules: {rules.name} (rules fingerprint {made['rules_fingerprint']})" in cover
    # the map's QR code names the rules, so the helper opened on it can tell a server answering under others
    (url,) = qr_texts(pypdf.PdfReader(pdf).pages[2])  # after the cover and its back
    assert parse_qs(urlsplit(url).fragment)["rf"] == [made["rules_fingerprint"]]
    plain = tmp_path / "plain.pdf"  # a folder of shipped rules says none
    assert cli("pack", "fauna-1", "-o", plain).exit_code == 0
    assert "House rules" not in pypdf.PdfReader(plain).pages[0].extract_text()
    (url,) = qr_texts(pypdf.PdfReader(plain).pages[2])
    assert url == helper_url(maps.load("fauna-1")) and "rf" not in parse_qs(urlsplit(url).fragment)


def test_house_rules_that_do_not_fit_are_refused_and_existing_outputs_kept(tmp_path, monkeypatch, house_map):
    rules, path = house_map
    pdf, maps_dir = tmp_path / "h.pdf", tmp_path / "maps"
    pdf.write_text("mine", encoding="utf-8")
    _refuse_work(monkeypatch)
    flora = house_rules(tmp_path, "flora", "", "")
    assert_fails(
        cli("pack", path, "--rules", flora, "-o", pdf, "--force"),
        2,
        f'error: {path}: a fauna map, but the rules are chapter flora\'s (a house-rule file for fauna maps says name = "fauna")',
    )
    assert_fails(
        cli(*TRAINING, "--rules", rules, "-o", pdf, "--out", maps_dir, "--force"),
        2,
        "error: --rules: a chapter file of fauna, but --chapter is training",
    )
    bad = tmp_path / "bad.toml"  # breaks C6 Rock, which these house rules keep
    bad.write_text((DATA / "valid" / "training-201.toml").read_text(encoding="utf-8").replace("Mu", "Ro", 1))
    training = house_rules(tmp_path, "training", "", "")
    r = cli("pack", bad, "--rules", training, "-o", pdf, "--force")
    assert r.exit_code == 1 and r.stderr.startswith(
        f"error: {bad}: not a valid training map under the house rules of {training}: it breaks C6 Rock"
    ), r.output
    assert r.stderr.count("\n") == 1 and f"see `mapgen validate --rules {training}`" in r.stderr
    assert pdf.read_text(encoding="utf-8") == "mine" and not maps_dir.exists()


def test_a_new_folder_is_generated_and_graded_under_house_rules(tmp_path):
    rules = house_rules(tmp_path, "training", '"C5", "C6"]', '"C5"]')  # Training without C6 Rock
    pdf, maps_dir = tmp_path / "f.pdf", tmp_path / "maps"
    args = ["pack", "-c", "training", "--rules", rules, "--seed", "1", "--count", "1", "--games", "20"]
    r = cli(*args, "-o", pdf, "--out", maps_dir, "--json")
    assert r.exit_code == 0, r.output
    written = maps_dir / "training-1.toml"
    table = tomllib.loads(written.read_text(encoding="utf-8"))
    record = {"rules": rules.name, "rules_fingerprint": table["generator"]["rules_fingerprint"]}
    assert json.loads(r.stdout)["rules"] == record
    # made under the house rules and graded under them: both tables say so (a map without C6 breaks it here)
    assert {k: table["generator"][k] for k in record} == record and {k: table["grade"][k] for k in record} == record
    assert check_map(read_map(written), load_chapter(rules)) == []
    assert [v.rule for v in check_map(read_map(written))][:1] == ["C6"]
    cover = " ".join(pypdf.PdfReader(pdf).pages[0].extract_text().split())
    assert f"House rules: {rules.name} (rules fingerprint {record['rules_fingerprint']})" in cover


def _graded_folder(count: int):
    """``count`` maps with the shipped Fauna maps' [grade] tables (three bots: the widest cover table)."""
    from mapgen.render.folder import FolderMap

    return [FolderMap(k, maps.load(f"fauna-{(k - 1) % 8 + 1}"), "http://localhost:8000/") for k in range(1, count + 1)]


HOUSE = {"rules": "our-house-rules-for-the-fauna-chapter.toml", "rules_fingerprint": "0123456789abcdef"}


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("count", [1, 12, 40, 41, 60, 100])
@pytest.mark.parametrize("rules", [None, HOUSE])
def test_every_cover_page_stays_inside_the_margins(paper, count, rules):
    """40 maps on Letter drew the cover 0.3 mm past the bottom margin (with house rules the table gave up the
    line's room), the folder's line of 12 given maps ran off the page's right edge, Training's title passed A4's
    right margin. Every cover page's drawn box (text by its font's ascent, descent and width, strokes with their
    width) now stays inside the 1/4 inch margins, whatever the number of maps: the table continues on the next
    page, its rows never shorter than ROW_MIN_MM."""
    import io

    from reportlab.pdfgen.canvas import Canvas

    from mapgen.render.folder import MARGIN_MM, Layout, _Page, cover_plan, draw_cover_page

    layout = Layout(paper=paper)
    w, h = layout.page
    folder = _graded_folder(count)
    note = "maps given: " + ", ".join(f"fauna-{fm.number}" for fm in folder)
    canvas = Canvas(io.BytesIO(), pagesize=(w * MM, h * MM))
    plan = cover_plan(folder, "Chapter 0: Training Mission", layout, note, rules)  # the longest chapter title
    for blocks in plan:
        p = _Page(canvas, layout.page)
        draw_cover_page(p, blocks)
        canvas.showPage()
        left, top, right, bottom = p.drawn
        assert left >= MARGIN_MM and top >= MARGIN_MM, p.drawn
        assert right <= w - MARGIN_MM and bottom <= h - MARGIN_MM, (count, paper, h - bottom)
    assert len(plan) == 1 if count <= 12 else 2 <= len(plan) <= 3  # 40 maps on Letter: the instructions on the back


def test_a_folder_of_many_maps_continues_its_cover_and_counts_its_pages(tmp_path):
    """100 maps on Letter: the table continues on the next cover page under its header, the instructions on a
    third, the cover ends on a blank back (maps start on a front side), and write_folder counts every page it wrote."""
    from mapgen.render.folder import Layout, write_folder

    out = tmp_path / "many.pdf"
    folder = _graded_folder(100)
    pages = write_folder(folder, out, Layout(paper="letter"), title="Chapter 1: Fauna", note="maps given")
    reader = pypdf.PdfReader(out)
    assert pages == len(reader.pages) == 3 + 1 + 2 * 100 + 1  # three cover pages and a blank, maps and backs, log
    cover = [" ".join(reader.pages[k].extract_text().split()) for k in range(3)]
    assert "continued" not in cover[0] and "the folder's maps, continued" in cover[1]
    assert sum(len(re.findall(r"\d+% \(\d+%–\d+%\)", c)) for c in cover) == 3 * 100  # three bots' wins a row
    assert "How to use this folder" in cover[2] and reader.pages[3].extract_text().strip() == ""
    assert "Map 1" in reader.pages[4].extract_text() and "Play log" in reader.pages[-1].extract_text()


def test_forty_maps_on_letter_with_house_rules_put_the_instructions_on_the_cover_back(tmp_path, house_map):
    """The CLI's largest folder: 40 maps on Letter under house rules; the rows keep their readable height and the
    instructions move to the cover's back, so the page count stays 2 + 2 * 40 + 1 and is reported as such."""
    rules, path = house_map
    pdf = tmp_path / "forty.pdf"
    r = cli("pack", *[path] * 40, "--rules", rules, "-o", pdf, "--paper", "letter", "--json")
    assert r.exit_code == 0, r.output
    reader = pypdf.PdfReader(pdf)
    assert json.loads(r.stdout)["pages"] == len(reader.pages) == 2 + 2 * 40 + 1
    front, back = (" ".join(reader.pages[k].extract_text().split()) for k in (0, 1))
    assert f"House rules: {rules.name}" in front and "40 not graded" in front and "How to use" not in front
    assert back.startswith("How to use this folder") and "Map 1" in reader.pages[2].extract_text()


# ----- a map's name (the map file's name field) -----
def _named(folder: Path, shipped: str, name: str | None) -> Path:
    """A shipped map's file with ``name = ...`` (or as it is), written to ``folder``."""
    from mapgen.mapfile import dumps_map

    m = maps.load(shipped)
    path = folder / f"{shipped}.toml"
    path.write_text(dumps_map(replace_name(m, name)), encoding="utf-8")
    return path


def replace_name(m, name):
    import dataclasses

    return dataclasses.replace(m, briefing=dataclasses.replace(m.briefing, name=name))


def test_each_map_page_carries_the_maps_name_and_the_cover_lists_the_names(tmp_path):
    """A map's name appeared nowhere in the folder (render and render --sheet draw it): each map page now says
    "Map N: name" where it says "Map N", as render's briefing does, and the cover lists the names with the file
    each came from; the PDF stays the same bytes run after run."""
    ridge = _named(tmp_path, "fauna-1", "The Long Ridge")
    plain = _named(tmp_path, "fauna-3", None)
    long_name = "Where the Vipers Sleep Beside the Old Mud Flats, Below the Skull of the Northern Hills"
    far = _named(tmp_path, "fauna-5", long_name)
    pdfs = []
    for run in ("a", "b"):
        pdfs.append(tmp_path / f"{run}.pdf")
        r = cli("pack", ridge, plain, far, "-o", pdfs[-1])
        assert r.exit_code == 0, r.output
    assert pdfs[0].read_bytes() == pdfs[1].read_bytes()
    reader = pypdf.PdfReader(pdfs[0])
    pages = [" ".join(reader.pages[2 + 2 * k].extract_text().split()) for k in range(3)]
    assert "Map 1: The Long Ridge" in pages[0]
    assert "Map 2" in pages[1] and "Map 2:" not in pages[1]
    assert "Map 3: Where the Vipers Sleep" in pages[2]
    cover = " ".join(reader.pages[0].extract_text().split())
    assert "Map 1: The Long Ridge (fauna-1)" in cover and f"Map 3: {long_name} (fauna-5)" in cover
    assert "Map 2:" not in cover


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("name", ["Ridge", "The Long Ridge of the North", "W" * 200, "word " * 40])
def test_a_maps_name_stays_in_the_briefings_first_column_and_the_page_in_its_margins(paper, name):
    """The name is drawn in the band's left column (never over the mini map or the helper's text) and every map
    page stays inside the 1/4 inch margins, whatever the name's length (a map file's text is at most 200 chars)."""
    import io

    from reportlab.pdfgen.canvas import Canvas

    from mapgen.render.folder import MARGIN_MM, FolderMap, Layout, _Page, map_line, map_page

    layout = Layout(paper=paper)
    w, h = layout.page
    canvas = Canvas(io.BytesIO(), pagesize=(w * MM, h * MM))
    for chapter in ("fauna-1", "training-1", "flora-1"):
        fm = FolderMap(12, replace_name(maps.load(chapter), name.strip()), "http://localhost:8000/helper")
        p = _Page(canvas, layout.page)
        map_page(p, fm, "Chapter 0: Training Mission", layout)
        canvas.showPage()
        left, top, right, bottom = p.drawn
        edge = MARGIN_MM - 0.06  # the top crop marks end on the margin: half their 0.3 pt stroke lies past it
        assert left >= edge and top >= edge and right <= w - edge and bottom <= h - edge, (chapter, p.drawn)
        q = _Page(canvas, layout.page)
        map_line(q, fm, 20.0, 100.0, 55.0)
        canvas.showPage()
        left, top, right, bottom = q.drawn
        assert left >= 20.0 and right <= 75.0 and top >= 100.0 + 9.0 and bottom <= 100.0 + 19.5


def test_a_map_given_twice_is_packed_twice_with_a_note(tmp_path):
    """The same map given twice was packed twice without a word: two copies may be what the designer wants (a
    spare to cut), so it is packed as asked, with one line on stderr naming it; the folder's other maps say nothing."""
    out = tmp_path / "f.pdf"
    r = cli("pack", "fauna-1", "fauna-2", "fauna-1", "-o", out, "--json")
    assert r.exit_code == 0, r.output
    assert r.stderr == "note: fauna-1 is given twice; packed twice\n"
    assert [m["number"] for m in json.loads(r.stdout)["maps"]] == [1, 2, 3]
    path = tmp_path / "copy.toml"  # the same map in another file, given three times in all
    path.write_text(
        (Path(maps.__file__).parent / "fauna" / "fauna-1.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    r = cli("pack", "fauna-1", path, "fauna-1", "-o", out, "--force")
    assert r.exit_code == 0, r.output
    assert r.stderr == f"note: fauna-1 is given 3 times (as fauna-1 and {path}); packed 3 times\n"
    r = cli("pack", "fauna-1", "fauna-2", "-o", out, "--force")
    assert r.exit_code == 0 and r.stderr == ""


def test_pack_names_each_map_in_its_json_and_its_lines(tmp_path):
    """``pack --json`` and its lines gave each map's number, file, grade and link but not its name: a shipped map's
    (``name``, as ``mapgen maps --json``) and the ``name`` its file gives (``title``, as ``mapgen maps --json`` says
    it), the name the PDF prints on its page ("Map 2: The Long Ridge")."""
    text = (
        maps.path("fauna-2")
        .read_text(encoding="utf-8")
        .replace("number = 2\n", 'number = 2\nname = "The Long Ridge"\n')
    )
    titled = tmp_path / "ridge.toml"
    titled.write_text(text, encoding="utf-8")
    r = cli("pack", "fauna-1", titled, "-o", tmp_path / "a.pdf", "--json")
    assert r.exit_code == 0, r.output
    got = [{k: m[k] for k in ("number", "name", "title", "file")} for m in json.loads(r.stdout)["maps"]]
    assert got == [
        {"number": 1, "name": "fauna-1", "title": None, "file": "fauna-1"},
        {"number": 2, "name": None, "title": "The Long Ridge", "file": str(titled)},
    ]
    r = cli("pack", "fauna-1", titled, "-o", tmp_path / "b.pdf")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[:2] == ["map 1: fauna-1 (Gentle)", f'map 2: {titled} "The Long Ridge" (Gentle)']


def test_cjk_names_are_never_printed_blank_and_the_pdf_stays_the_same_bytes(tmp_path):
    """A map file named 地図.toml and a map named in CJK printed as blanks (DejaVu Sans has no CJK glyph): each
    character the font lacks is printed as a visible □, with one note on stderr naming the characters; the PDF
    stays the same bytes run after run."""
    from mapgen.mapfile import dumps_map

    named = tmp_path / "地図.toml"
    named.write_text(dumps_map(replace_name(maps.load("fauna-1"), "谷の道")), encoding="utf-8")
    pdfs = []
    for run in ("a", "b"):
        pdfs.append(tmp_path / f"{run}.pdf")
        r = cli("pack", named, "-o", pdfs[-1])
        assert r.exit_code == 0, r.output
        note = [line for line in r.stderr.splitlines() if line.startswith("note:")]
        assert note == [
            f"note: {pdfs[-1]}: the PDF's font (DejaVu Sans) has no glyph for 地, 図, 谷, の, 道: printed as □"
        ], r.stderr
    assert pdfs[0].read_bytes() == pdfs[1].read_bytes()
    reader = pypdf.PdfReader(pdfs[0])
    cover = " ".join(reader.pages[0].extract_text().split())
    assert "Map 1: □□□ (□□)" in cover
    assert "Map 1: □□□" in " ".join(reader.pages[2].extract_text().split())
    r = cli("pack", "fauna-1", "-o", tmp_path / "plain.pdf")  # nothing to replace: no note
    assert r.exit_code == 0 and "note:" not in r.stderr
