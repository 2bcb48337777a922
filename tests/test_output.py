"""Atomic output files (mapgen.output.writing): no temp file left whatever happens, no file clobbered."""

import os
from pathlib import Path

import pytest

from mapgen import output
from mapgen.output import OutputError, OutputExistsError, check_file, prepare_folder, write_text


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_written_file_has_the_usual_mode_and_an_existing_one_is_kept_without_force(tmp_path):
    target = tmp_path / "map.toml"
    write_text(target, "one\n")
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    with pytest.raises(OutputExistsError, match="already exists; use --force"):
        write_text(target, "two\n")
    assert target.read_text() == "one\n"
    write_text(target, "two\n", force=True)
    assert target.read_text() == "two\n"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("where", ["open", "link", "replace", "unlink"])
def test_ctrl_c_right_after_any_file_operation_leaves_no_temp_file(tmp_path, monkeypatch, where, force):
    """A Ctrl-C that lands just after the temp file was made, published, or removed (once, and the removal is
    tried again) ends the write with KeyboardInterrupt and leaves no temp file; the target is whole or absent."""
    real = getattr(os, where)
    fired = []

    def then_ctrl_c(*args, **kwargs):
        result = real(*args, **kwargs)
        if not fired:
            fired.append(args[0])
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(output.os, where, then_ctrl_c)
    target = tmp_path / "map.toml"
    try:
        write_text(target, "whole\n", force=force)
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    assert _leftovers(tmp_path) == []
    assert not target.exists() or target.read_text() == "whole\n"
    if where == "unlink" and not force:
        assert fired  # the link's temp file is removed: the Ctrl-C came there, and it was removed all the same


def test_ctrl_c_during_the_write_itself_leaves_neither_file(tmp_path):
    target = tmp_path / "map.toml"
    with pytest.raises(KeyboardInterrupt), output.writing(target) as tmp:
        with open(tmp, "w") as f:
            f.write("half")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc (a folder that takes no new files)")
def test_a_folder_that_takes_no_files_is_not_said_to_be_missing():
    """/proc exists but refuses new files with ENOENT: the error said "(No such file or directory)", or that the
    folder does not exist; it says what is wrong, for the check before the work and for the write itself."""
    with pytest.raises(
        OutputError, match=r"^/proc/x\.png: cannot write in folder /proc \(nothing new can be created there\)$"
    ):
        check_file("/proc/x.png")
    with pytest.raises(
        OutputError, match=r"^/proc/x\.txt: cannot write in folder /proc \(nothing new can be created there\)$"
    ):
        write_text("/proc/x.txt", "x")
    with pytest.raises(
        OutputError, match=r"^/proc/a/b: cannot create the folder \(nothing new can be created in /proc\)$"
    ):
        prepare_folder("/proc/a/b")
