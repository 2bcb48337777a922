"""``mapgen serve --rules FILE``: the web app answers a chapter's maps under a house-rule chapter file (validate,
the table helper, hint, generate, repair, playtest), the pages say so, and a file it cannot use stops the command
before anything listens."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

import maps
from cli import main
from constraints.catalogue import check_map, get_chapter, load_chapter
from mapgen.mapfile import dumps_map, parse_map
from mapgen.web import create_app
from mapgen.web.links import helper_url
from mapgen.web.rules import ServedRules

FAUNA = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
SHIPPED_F2 = "at_least = 3, at_most = 3"
#: the house map's 4 Forts and 5 Hills (``generate --rules`` of these rules, seed 7: tests/test_cli_rules.py)
FORTS = ("C6", "D4", "F2", "F5")
HIDDEN = (*FORTS, "A7", "C3", "G1", "G6", "G7")


def house_file(folder: Path, name: str = "house.toml") -> Path:
    """Fauna with exactly 4 Forts."""
    assert SHIPPED_F2 in FAUNA
    path = folder / name
    text = FAUNA.replace(SHIPPED_F2, "at_least = 4, at_most = 4").replace("Exactly 3 Forts", "Exactly 4 Forts")
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def house(tmp_path_factory) -> Path:
    return house_file(tmp_path_factory.mktemp("house"))


@pytest.fixture(scope="module")
def served(house):
    """The app of ``mapgen serve --rules house.toml``, its work in worker processes as served (the rules cross
    to them with every call)."""
    from mapgen.web import app as web_app

    rules = ServedRules.of([(str(house), load_chapter(house))])
    with pytest.MonkeyPatch.context() as m:  # its workers at this process's priority, as test_web_api's client's
        m.setattr(web_app, "NICE", dict.fromkeys(web_app.NICE, 0))
        app = create_app(rules=rules, quick_workers=1, slow_workers=1, draw_workers=1, hint_workers=1, job_workers=1)
        with TestClient(app, raise_server_exceptions=False) as c:
            yield c


@pytest.fixture(scope="module")
def shipped():
    with TestClient(create_app(processes=False), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def house_map(served) -> str:
    """A map the served app's studio generated: under the house rules, 4 Forts."""
    r = served.post("/api/generate", json={"chapter": "fauna", "seed": 7, "time_limit": 30})  # the largest: load 10
    assert r.status_code == 200, r.text
    return r.json()[0]["text"]


def state(text: str, hidden) -> str:
    m = parse_map(text)
    return dumps_map(m.hide(m.board.index(c) for c in hidden))


def test_generate_makes_maps_that_keep_the_house_rules_and_record_the_file(house, house_map):
    m = parse_map(house_map)
    assert sorted(m.board.name(i) for i in m.cells_of(m.cells[m.board.index("C6")])) == sorted(FORTS)
    assert check_map(m, load_chapter(house)) == []
    assert [v.rule for v in check_map(m)] == ["F2"]  # the shipped rules' 3 Forts
    assert m.meta["generator"]["rules"] == "house.toml"


def test_validate_judges_a_house_map_by_the_served_rules(served, shipped, house, house_map):
    r = served.post("/api/validate", json={"map": house_map, "file": "fauna-7.toml"})
    assert (r.status_code, r.headers["x-mapgen-exit"]) == (200, "0")
    assert r.json()[0]["valid"] and r.json()[0]["rules"] == str(house)
    r = shipped.post("/api/validate", json={"map": house_map})
    assert r.headers["x-mapgen-exit"] == "1" and r.json()[0]["violations"][0]["rule"] == "F2"
    assert "rules" not in r.json()[0]


def test_table_and_hint_follow_the_house_rules(served, shipped, house, house_map, slow_clock):
    # slow_clock: the shipped app answers in threads of this process, whose wall clock runs 50 times slower here; on a
    # busy machine (load 10 on 2 cores) its 15 s ran out before the forced cells came (a 504, nothing to compare)
    body = {"map": state(house_map, HIDDEN), "count": "full", "time_limit": 15}
    mine = served.post("/api/table", json=body)
    assert mine.status_code == 200, mine.text
    assert {c: mine.json()["forced"][c] for c in FORTS} == dict.fromkeys(FORTS, "Ft")
    assert mine.json()["rules"] == str(house)
    theirs = shipped.post("/api/table", json=body)
    assert theirs.status_code == 200, theirs.text
    assert not set(FORTS) & set(theirs.json()["forced"])  # 3 Forts among 4 cells: none forced
    assert "rules" not in theirs.json()

    solve = served.post("/api/solve", json={"map": state(house_map, HIDDEN), "time_limit": 15})
    assert solve.status_code == 200 and solve.json()["forced"]["C6"] == "Ft" and solve.json()["rules"] == str(house)

    hint = {"map": state(house_map, (*HIDDEN, "D5", "E5")), "time_limit": 15}
    got = served.post("/api/hint", json=hint)
    assert got.status_code == 200, got.text
    assert got.json()["explanation"]["terrain"] == "Ft" and "exactly 4 Forts" in got.json()["explanation"]["text"]
    assert shipped.post("/api/hint", json=hint).json()["explanation"]["terrain"] != "Ft"


def test_a_shipped_map_breaks_the_house_rules_and_its_state_has_no_completion(served, shipped, slow_clock):
    m = maps.load("fauna-1")  # 3 Forts: valid as shipped, one Fort short of the house rules
    body = {"map": dumps_map(m)}
    assert shipped.post("/api/validate", json=body).headers["x-mapgen-exit"] == "0"
    r = served.post("/api/validate", json=body)
    assert r.headers["x-mapgen-exit"] == "1" and r.json()[0]["violations"][0]["rule"] == "F2"
    table = {"map": dumps_map(m.hide([m.board.index("A1")])), "time_limit": 15}  # its Skull hidden
    mine = served.post("/api/table", json=table)
    assert (mine.status_code, mine.headers["x-mapgen-exit"]) == (200, "1"), mine.text  # the answer: none
    assert "F2" in mine.json()["conflict"]["rules"]
    theirs = shipped.post("/api/table", json=table)
    assert theirs.status_code == 200 and theirs.json()["forced"] == {"A1": "Sk"}


def test_the_pages_say_which_chapters_run_under_house_rules(served, shipped, house):
    chapters = {c["chapter"]: c for c in served.get("/api/chapters").json()}
    note = chapters["fauna"]["house_rules"]
    assert note["file"] == str(house) and "grade" in note["note"]
    assert chapters["flora"]["house_rules"] is None
    f2 = next(r for r in chapters["fauna"]["rules"] if r["id"] == "F2")
    assert f2["text"].startswith("Exactly 4 Forts")  # the studio's rule list: the house rules' words
    assert all(c["house_rules"] is None for c in shipped.get("/api/chapters").json())
    fauna_maps = [m for m in served.get("/api/maps").json() if m["name"].startswith("fauna")]
    assert fauna_maps and all("not the house rules of" in m["graded_under"] for m in fauna_maps)
    assert "house rules: ${house.file}" in served.get("/static/common.js").text  # the briefing's line says so


def test_a_house_maps_helper_link_names_its_rules_and_a_shipped_maps_does_not(house_map):
    made = parse_map(house_map).meta["generator"]["rules_fingerprint"]
    assert parse_qs(urlsplit(helper_url(parse_map(house_map))).fragment)["rf"] == [made]
    assert "rf" not in parse_qs(urlsplit(helper_url(maps.load("fauna-1"))).fragment)


def test_a_request_naming_rules_the_server_does_not_serve_is_refused(served, shipped, house, house_map):
    made = parse_map(house_map).meta["generator"]["rules_fingerprint"]
    chapters = {c["chapter"]: c for c in served.get("/api/chapters").json()}
    assert chapters["fauna"]["rules_fingerprint"] == made  # what the helper page compares the link's with
    plain = {c["chapter"]: c["rules_fingerprint"] for c in shipped.get("/api/chapters").json()}
    assert plain["fauna"] != made and chapters["flora"]["rules_fingerprint"] == plain["flora"]

    body = {"map": state(house_map, HIDDEN), "count": "quick", "time_limit": 15, "rules_fingerprint": made}
    mine = served.post("/api/table", json=body)
    assert mine.status_code == 200 and mine.json()["forced"]["C6"] == "Ft", mine.text
    for endpoint in ("table", "hint", "solve"):  # a server without --rules: no answer under the shipped rules
        r = shipped.post(
            f"/api/{endpoint}", json={k: v for k, v in body.items() if k != "count" or endpoint == "table"}
        )
        assert (r.status_code, r.headers["x-mapgen-exit"]) == (409, "1"), r.text
        assert r.json()["rules_mismatch"] == {"asked": made, "served": plain["fauna"], "rules": None}
        assert f"fingerprint {made}" in r.json()["error"] and "the shipped fauna rules" in r.json()["error"]
        assert "mapgen serve --rules FILE" in r.json()["error"] and "forced" not in r.json()
    other = served.post("/api/table", json={**body, "rules_fingerprint": plain["fauna"]})  # another house file
    assert other.status_code == 409 and f"the house rules of {house} (fingerprint {made})" in other.json()["error"]
    bad = served.post("/api/table", json={**body, "rules_fingerprint": "house.toml"})
    assert bad.status_code == 400 and "16 hex digits" in bad.json()["error"]


def test_repair_mends_to_the_house_rules(served, house, house_map):
    head, terrain = house_map.split('terrain = """')
    three = head + 'terrain = """' + terrain.replace("Ft ", "Fo ", 1)  # C6's Fort a Food: shipped fauna's 3
    r = served.post("/api/repair", json={"map": three})
    assert r.status_code == 200, r.text
    fixed = parse_map(r.json()["text"])
    assert fixed.cells == parse_map(house_map).cells and r.json()["rules"] == str(house)
    assert fixed.meta["generator"]["rules"] == "house.toml"


def test_a_playtest_job_plays_under_the_house_rules(served, shipped, house, house_map):
    body = {"map": house_map, "games": 2}
    refused = shipped.post("/api/playtest", json=body)
    assert refused.status_code == 409 and "F2" in refused.json()["error"]
    r = served.post("/api/playtest", json=body)
    assert r.status_code == 202, r.text
    job = r.json()["id"]
    for _ in range(600):
        status = served.get(f"/api/jobs/{job}").json()
        if status["status"] not in ("queued", "running"):
            break
        time.sleep(0.2)
    assert status["status"] == "done", status
    assert status["result"]["rules"] == str(house) and status["result"]["house_rules"] == "fauna"


# --- the command ------------------------------------------------------------------------------------------


def test_serve_passes_the_rules_to_the_app_and_says_so(house, monkeypatch):
    import uvicorn

    import mapgen.cli.options

    got = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: got.setdefault("app", app))
    monkeypatch.setattr(mapgen.cli.options, "kernels_ready", lambda timed=True: None)
    r = CliRunner().invoke(main, ["serve", "--rules", str(house), "--port", "8799"])
    assert r.exit_code == 0, r.output
    assert f"house rules: {house} for every fauna map" in r.output
    rules = got["app"].state.rules
    assert rules.file("fauna") == str(house) and rules.chapter("fauna") == load_chapter(house)
    assert rules.file("flora") is None and rules.chapter("flora") == get_chapter("flora")


def test_a_rules_file_serve_cannot_use_exits_2_before_serving(house, tmp_path, monkeypatch):
    import mapgen.web

    def never(*a, **kw):
        raise AssertionError("the server started")

    monkeypatch.setattr(mapgen.web, "serve", never)
    twice = house_file(tmp_path, "again.toml")
    mine = tmp_path / "mine.toml"
    mine.write_text(FAUNA.replace('name = "fauna"', 'name = "mine"').replace('profile = "fauna.toml"\n', ""))
    cases = {
        str(tmp_path / "none.toml"): f"error: {tmp_path / 'none.toml'}: no such file\n",
        str(twice): f"error: {twice}: a second house-rule file for fauna ({house} gives its rules already): "
        "give at most one --rules file per chapter\n",
        str(mine): f"error: {mine}: a map names its chapter, and 'mine' is no shipped chapter",
    }
    for file, words in cases.items():
        r = CliRunner().invoke(main, ["serve", "--rules", str(house), "--rules", file])
        assert r.exit_code == 2, (file, r.output)
        assert r.stderr.startswith(words) and len(r.stderr.splitlines()) == 1
        assert r.stderr.startswith("error: " + file + ": ")
