"""Atomic output files (mapgen.output.writing): no temp file left whatever happens, no file clobbered."""

import os

import pytest

from mapgen import output
from mapgen.output import OutputExistsError, write_text


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
