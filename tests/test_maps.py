"""The shipped maps: enough per chapter, all valid and playable, usable by name."""

from __future__ import annotations

from click.testing import CliRunner

import maps
from cli import main
from constraints.catalogue import chapter_names, check_map
from mapgen.design import check_design
from mapgen.profile import default_profile


def test_five_valid_playable_maps_per_chapter():
    for chapter in chapter_names():
        names = maps.names(chapter)
        assert len(names) >= 5, chapter
        for name in names:
            m = maps.load(name)
            assert m.chapter == chapter
            assert check_map(m) == [], name
            assert check_design(m, default_profile(chapter)) == [], name


def test_maps_are_usable_by_name_from_the_cli():
    r = CliRunner().invoke(main, ["validate", "fauna-1", "--json"])
    assert r.exit_code == 0, r.output
    assert '"file": "fauna-1"' in r.stdout
    r = CliRunner().invoke(main, ["solve", "training-1", "--json"])
    assert r.exit_code == 0 and '"unique": true' in r.stdout
    r = CliRunner().invoke(main, ["validate", "fauna-999"])
    assert r.exit_code == 2 and "error: fauna-999: no such file" in r.stderr
