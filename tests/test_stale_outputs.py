"""A numbered series of files written into a folder (``pack --out DIR``'s CHAPTER-N.toml, ``playtest --replay DIR``'s
game-NNNNN.json): a rerun with fewer files and --force leaves no file of the earlier run behind to pass for part of
the new one. The files mapgen listed as its own (DIR/.mapgen-files.json) and that are unchanged are removed; a file
named like the series that mapgen did not write there, or that was edited since, is never removed: the run is
refused before any work, naming it. Without --force, the refusal before any work stays."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cli import main
from mapgen.output import MANIFEST

DATA = Path(__file__).parent / "data"
TRAINING_MAP = str(DATA / "engine_training_201.toml")
#: a cheap folder: Training, 20 heuristic games per candidate
PACK = ["pack", "-c", "training", "--seed", "1", "--games", "20"]


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _refuse_work(monkeypatch):
    """Any playing or searching fails the test: a refusal must come before the work."""

    def boom(*a, **k):
        raise AssertionError("the work started")

    monkeypatch.setattr("mapgen.engine.playtest.run_playtest", boom)
    monkeypatch.setattr("mapgen.pack.make_folder", boom)


# ----- playtest --replay -----
def test_a_smaller_replay_run_with_force_removes_the_earlier_runs_extra_files_and_keeps_the_users(tmp_path):
    runs = tmp_path / "runs"
    assert cli("playtest", TRAINING_MAP, "--games", "4", "--replay", runs, "--json").exit_code == 0
    (runs / "notes.txt").write_text("mine", encoding="utf-8")
    (runs / "game-1.json").write_text("mine", encoding="utf-8")  # not the series' name: a user's
    r = cli("playtest", TRAINING_MAP, "--games", "2", "--replay", runs, "--seed", "5", "--force", "--json")
    assert r.exit_code == 0, r.output
    assert names(runs) == [MANIFEST, "game-00000.json", "game-00001.json", "game-1.json", "notes.txt"]
    assert "removed 2 files of an earlier run" in r.stderr and "game-00002.json" in r.stderr
    assert json.loads(r.stdout)["games"] == 2
    listed = json.loads((runs / MANIFEST).read_text())
    assert sorted(listed["files"]["playtest --replay"]) == ["game-00000.json", "game-00001.json"]


def test_without_force_an_earlier_runs_extra_replay_is_refused_before_the_work(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    assert cli("playtest", TRAINING_MAP, "--games", "3", "--replay", runs, "--json").exit_code == 0
    (runs / "game-00000.json").unlink()  # only extra files left: no clash, yet the folder would mix two runs
    (runs / "game-00001.json").unlink()
    before = {p.name: p.read_bytes() for p in runs.iterdir()}
    _refuse_work(monkeypatch)
    r = cli("playtest", TRAINING_MAP, "--games", "2", "--replay", runs)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert r.stderr.startswith(f"error: {runs / 'game-00002.json'}: left by an earlier run") and "--force" in r.stderr
    assert {p.name: p.read_bytes() for p in runs.iterdir()} == before


def test_a_replay_file_mapgen_did_not_list_or_that_changed_is_never_removed_even_with_force(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    assert cli("playtest", TRAINING_MAP, "--games", "3", "--replay", runs, "--json").exit_code == 0
    edited = runs / "game-00002.json"
    edited.write_text(edited.read_text() + " ", encoding="utf-8")  # the user's now
    (runs / "game-00007.json").write_text("{}", encoding="utf-8")  # put there by the user (or an older mapgen)
    before = {p.name: p.read_bytes() for p in runs.iterdir()}
    with monkeypatch.context() as mp:
        _refuse_work(mp)
        for force in ([], ["--force"]):
            r = cli("playtest", TRAINING_MAP, "--games", "1", "--replay", runs, *force)
            assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
            assert r.stderr.startswith(f"error: {edited}: named like this run's files but not as mapgen wrote it")
            assert "(and 1 more)" in r.stderr
    assert {p.name: p.read_bytes() for p in runs.iterdir()} == before
    edited.unlink()
    (runs / "game-00007.json").unlink()  # the user cleared them: the run goes ahead
    assert cli("playtest", TRAINING_MAP, "--games", "1", "--replay", runs, "--force").exit_code == 0
    assert names(runs) == [MANIFEST, "game-00000.json"]


def test_a_foreign_file_list_is_not_replaced(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / MANIFEST).write_text("my notes", encoding="utf-8")
    _refuse_work(monkeypatch)
    r = cli("playtest", TRAINING_MAP, "--games", "1", "--replay", runs, "--force")
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {runs / MANIFEST}: not a list of files mapgen wrote")
    assert (runs / MANIFEST).read_text() == "my notes"


# ----- pack --out -----
def test_a_smaller_pack_with_force_removes_the_earlier_folders_extra_maps_and_keeps_the_users(tmp_path):
    maps_dir = tmp_path / "maps"
    r = cli(*PACK, "--grade-spread", "-o", tmp_path / "a.pdf", "--out", maps_dir)
    assert r.exit_code == 0, r.output
    assert names(maps_dir) == [MANIFEST, "training-1.toml", "training-2.toml"]
    (maps_dir / "fauna-2.toml").write_text("mine", encoding="utf-8")  # another chapter's name: not this series
    r = cli(*PACK, "--count", "1", "-o", tmp_path / "a.pdf", "--out", maps_dir, "--force")
    assert r.exit_code == 0, r.output
    assert names(maps_dir) == [MANIFEST, "fauna-2.toml", "training-1.toml"]
    assert f"removed 1 file of an earlier run from {maps_dir}: training-2.toml" in r.stderr
    assert (maps_dir / "fauna-2.toml").read_text() == "mine"


def test_pack_refuses_a_map_named_like_the_folders_that_mapgen_did_not_write(tmp_path, monkeypatch):
    maps_dir = tmp_path / "maps"
    maps_dir.mkdir()
    (maps_dir / "training-3.toml").write_text("mine", encoding="utf-8")
    _refuse_work(monkeypatch)
    for force in ([], ["--force"]):
        r = cli(*PACK, "--grade-spread", "-o", tmp_path / "a.pdf", "--out", maps_dir, *force)
        assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
        assert r.stderr.startswith(
            f"error: {maps_dir / 'training-3.toml'}: named like this run's files but not as mapgen wrote it here"
        )
    assert names(maps_dir) == ["training-3.toml"] and not (tmp_path / "a.pdf").exists()
