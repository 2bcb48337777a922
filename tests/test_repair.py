"""Repair (the nearest valid map) and sketch filling: what a designer relies on."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import maps
from constraints.catalogue import chapter_names, check_map, get_chapter
from mapgen.profile import default_profile
from mapgen.repair import RepairError, SketchError, fill_sketch, repair_map
from mapgen.terrain import Terrain


def _mutant(m, i, t):
    return m.with_cells(t if k == i else c for k, c in enumerate(m.cells))


def _hamming(a, b) -> int:
    return sum(x is not y for x, y in zip(a.cells, b.cells))


def test_a_valid_map_comes_back_unchanged(example):
    m = example("fauna-201")
    r = repair_map(m)
    assert r.map == m and r.changes == () and r.distance == 0 and r.optimal


@pytest.mark.parametrize("chapter", chapter_names())
def test_one_cell_mutants_are_repaired_at_distance_one(chapter, example):
    m = example(f"{chapter}-201")
    ch = get_chapter(chapter)
    rng = random.Random(chapter)
    tried = 0
    while tried < 3:
        i = rng.randrange(m.board.size)
        t = rng.choice([t for t in ch.terrains if t is not m.cells[i]])
        broken = _mutant(m, i, t)
        if not check_map(broken):
            continue
        tried += 1
        r = repair_map(broken)
        assert check_map(r.map) == []
        assert r.map.briefing == m.briefing
        assert r.optimal and r.distance == 1 == _hamming(r.map, broken)
        (change,) = [c for c in r.changes if c.before[:2] != c.after[:2]]
        # the change names rules that really break again when it alone is undone
        undone = _mutant(r.map, m.board.index(change.cell), broken.cells[m.board.index(change.cell)])
        assert change.rules and set(change.rules) <= {v.rule for v in check_map(undone)}


def test_invalid_examples_are_repaired_with_each_change_explained(data_dir, expected_invalid):
    from mapgen.mapfile import read_map

    for name in expected_invalid:
        m = read_map(data_dir / "invalid" / f"{name}.toml")
        r = repair_map(m)
        assert check_map(r.map) == [], name
        assert r.map.briefing == m.briefing
        assert r.distance == _hamming(r.map, m) >= 1
        assert {v.rule for v in r.violations_before} == set(expected_invalid[name])
        for c in r.changes:
            assert c.rules, (name, c)


def test_a_change_names_every_rule_it_mends_with_each_rule_s_words():
    """A Wood painted over with Food (fauna-1's E5) breaks C4 in its row and column, C2 at E5 and C1 at E6 next
    to it. The one change back said "mends C2, C4" with C2's words alone: C1 (which names E6, not E5) was left
    out and what C4 was never said."""
    m = maps.load("fauna-1")
    i = m.board.index("E5")
    assert m.cells[i] is Terrain.WOOD
    broken = _mutant(m, i, Terrain.FOOD)
    r = repair_map(broken)
    assert r.map == replace(m, meta={k: v for k, v in m.meta.items() if k != "grade"})  # a grade is of the input
    (change,) = r.changes
    assert set(change.rules) == {v.rule for v in check_map(broken)} == {"C1", "C2", "C4"}
    assert change.rules[:2] == ("C2", "C4")  # the rules that name the cell first
    assert "row E has 0 Woods, expected exactly 1" in change.message
    assert "the Water at E6 has no Wood orthogonally next to it" in change.message


def test_a_wrong_hill_number_is_set_right_without_changing_terrain():
    m = maps.load("fauna-1")
    hill = next(iter(m.hills))
    wrong = replace(m, hills={**m.hills, hill: m.hills[hill] + 1})
    r = repair_map(wrong)
    assert r.map == m and r.distance == 0
    (change,) = r.changes
    assert change.rules == ("C9",) and change.cell == m.board.name(hill)


def test_a_hill_number_filled_in_mends_no_rule():
    """Issue 42 item 12: a Hill painted without its number broke no rule; filling the number in is said so,
    never "mends C9", and is no terrain changed (``distance``)."""
    m = maps.load("fauna-1")
    i = m.board.index("B2")
    painted = m.with_cells((Terrain.FORT if k == i else t for k, t in enumerate(m.cells)), hills={})
    r = repair_map(painted)
    assert r.distance == 1 and [c.cell for c in r.changes if c.rules] == ["B2"]
    hills = [c for c in r.changes if c.cell != "B2"]
    assert {c.cell for c in hills} == {m.board.name(h) for h in m.hills}
    assert all(c.rules == () and c.message.startswith("Hill number filled in: ") for c in hills)
    assert str(hills[0]) == f"{hills[0].cell}: Hi -> {hills[0].after} ({hills[0].message})"


def test_a_valid_map_without_a_hill_number_gets_it_filled_in():
    """A valid hand-made map whose Hill shows no number (``Hi``) came back "nothing to repair", still without it,
    where the README promises every Hill's number set right."""
    m = maps.load("fauna-1")
    hill = next(iter(m.hills))
    bare = replace(m, hills={i: n for i, n in m.hills.items() if i != hill})
    assert check_map(bare) == []
    r = repair_map(bare)
    assert r.map == m and r.distance == 0 and r.optimal
    (change,) = r.changes
    assert change.cell == m.board.name(hill) and change.rules == () and change.before == "Hi"
    assert change.message.startswith("Hill number filled in: ")


def test_a_changed_map_keeps_no_grade_of_the_map_it_came_from():
    """A repaired or filled map carried its source's [grade] table, which a folder's cover then printed for it;
    a fill also recorded the source's seed, not its own."""
    m = maps.load("fauna-1")
    assert "grade" in m.meta and m.meta["generator"]["seed"] == 1
    i = m.board.index("B2")
    fixed = repair_map(_mutant(m, i, Terrain.FORT)).map
    assert fixed.cells != _mutant(m, i, Terrain.FORT).cells
    assert "grade" not in fixed.meta and fixed.meta["generator"] == m.meta["generator"]
    assert repair_map(m).map.meta == m.meta  # nothing changed: the grade still describes it
    sketch = m.hide(range(0, m.board.size, 2))
    filled = fill_sketch(sketch, seed=3)
    assert "grade" not in filled.meta and filled.meta["generator"]["seed"] == 3
    assert filled.meta["generator"]["profile"] == "default"
    assert fill_sketch(m, seed=3).meta == m.meta  # a complete sketch: the same map, its record kept


def test_a_terrain_of_another_chapter_is_replaced_and_cited_as_t1():
    m = maps.load("vameter-1")
    i = next(i for i, t in enumerate(m.cells) if t is Terrain.WATER)
    r = repair_map(_mutant(m, i, Terrain.VINE))
    assert check_map(r.map) == []
    assert any("T1" in c.rules for c in r.changes if c.cell == m.board.name(i))


def test_a_briefing_no_map_can_have_is_reported_with_its_rule():
    m = maps.load("fauna-1")
    edge_peak = replace(m, briefing=replace(m.briefing, peak=m.board.index("A1")))
    with pytest.raises(RepairError) as e:
        repair_map(edge_peak)
    assert "C6" in e.value.rules
    # one rule in conflict with the briefing read "C6 Rock cannot all hold"; the briefing's cell is named (a
    # designer who typed peak = "A1" is told which cell, not only the rule)
    assert str(e.value) == (
        "no valid fauna map has this briefing: C6 Rock cannot hold with it (the briefing makes the Peak A1 a Rock)"
    )
    assert e.value.cells == ("A1",)


def test_free_cells_are_filled_at_no_cost():
    m = maps.load("training-1")
    state = m.hide(range(0, m.board.size, 2))
    r = repair_map(state)
    assert r.map.complete and check_map(r.map) == [] and r.distance == 0
    assert all(r.map.cells[i] is t for i, t in enumerate(state.cells) if t is not None)


@pytest.mark.parametrize("chapter", chapter_names())
def test_a_sketch_is_filled_keeping_every_placed_cell(chapter):
    from mapgen.design import check_design

    m = maps.load(f"{chapter}-1")  # generated under the default profile, so its cells can meet it
    sketch = m.hide(i for i in range(m.board.size) if i % 3)
    a = fill_sketch(sketch, seed=5)
    assert a.complete and check_map(a) == []
    assert check_design(a, default_profile(chapter)) == []
    assert all(a.cells[i] is t for i, t in enumerate(sketch.cells) if t is not None)
    assert a.briefing == sketch.briefing
    assert fill_sketch(sketch, seed=5) == a  # same sketch, seed and profile: same map


def test_a_sketch_with_four_forts_names_the_fort_rule_and_cells():
    m = maps.load("fauna-1")
    forts = m.cells_of(Terrain.FORT)
    spare = next(i for i, t in enumerate(m.cells) if t is Terrain.WATER)
    sketch = m.hide(range(m.board.size))
    sketch = sketch.with_cells(Terrain.FORT if i in (*forts, spare) else None for i in range(m.board.size))
    with pytest.raises(SketchError) as e:
        fill_sketch(sketch)
    assert "F2" in e.value.rules
    assert set(e.value.cells) <= {m.board.name(i) for i in (*forts, spare)} and e.value.cells
    assert str(e.value).startswith("the sketch cannot be completed; these cannot all hold: rule F2 ")


def test_a_sketch_against_its_profile_names_the_setting():
    from mapgen.profile import profile_from_data

    m = maps.load("fauna-1")
    sketch = m.hide(range(m.board.size))
    profile = profile_from_data({"counts": {"Ft": [5, 5]}}, "five-forts.toml", "fauna")
    with pytest.raises(SketchError) as e:
        fill_sketch(sketch, profile)
    assert "F2" in e.value.rules
    assert "five-forts.toml" in str(e.value)


def test_a_sketch_with_a_terrain_of_another_chapter_names_t1():
    m = maps.load("vameter-1")
    sketch = m.hide(range(1, m.board.size)).with_cells([Terrain.VINE, *[None] * (m.board.size - 1)])
    with pytest.raises(SketchError) as e:
        fill_sketch(sketch)
    assert e.value.rules == ("T1",) and e.value.cells == ("A1",)


def test_a_sketch_whose_hill_number_cannot_hold_names_the_hill_rule():
    """A Vameter sketch with a Fezron Camp beside a Hill that shows 0: `generate --from` named the placed cells
    alone ("these cannot all hold: the placed cells B6 (Fz), B7 (Hi0)"), not why, while `solve` of the same
    sketch named C9 Hill numbers. The Hill's shown number is C9's: the conflict names it."""
    m = maps.load("vameter-1")
    sketch = m.hide(range(m.board.size)).with_cells(
        [
            Terrain.FEZRON_CAMP if i == m.board.index("B6") else Terrain.HILL if i == m.board.index("B7") else None
            for i in range(m.board.size)
        ],
        hills={m.board.index("B7"): 0},
    )
    with pytest.raises(SketchError) as e:
        fill_sketch(sketch)
    assert e.value.rules == ("C9",) and e.value.cells == ("B6", "B7")
    assert str(e.value) == (
        "the sketch cannot be completed; these cannot all hold: rule C9 Hill numbers (A Hill may stand anywhere; "
        "its number is the count of the chapter's counted terrain in the Hill's row plus its column); "
        "the placed cells B6 (Fz), B7 (Hi0)"
    )


def test_a_conflict_names_the_briefing_s_cell_after_the_rule_s_words_in_one_sentence():
    """A Flora sketch whose Greek Fire is on the Peak: the conflict read "(No Rock on the outer rows or columns; ...;
    the Peak is a Rock., Peak C4); rule P3 ... (..., so the expedition can collect it., Greek Fire on C4)": a full
    stop inside the sentence, then a bare cell. The rule's words end without one, then what the briefing says."""
    m = maps.load("flora-1")
    b = m.board
    briefing = replace(m.briefing, greek_fire=m.briefing.peak)
    sketch = replace(m.hide(range(b.size)), briefing=briefing)
    with pytest.raises(SketchError) as e:
        fill_sketch(sketch)
    peak = b.name(m.briefing.peak)
    assert "., " not in str(e.value) and ".)" not in str(e.value)
    assert f"the Peak is a Rock; the Peak is {peak})" in str(e.value)
    assert f"so the expedition can collect it; the Greek Fire is on {peak})" in str(e.value)


def _far_from_valid():
    """A Maldonado map of random terrain: its nearest valid map is not proven within a few seconds of work."""
    m = maps.load("maldonado-1")
    rng = random.Random(1)
    return m.with_cells([rng.choice(list(get_chapter("maldonado").terrains)) for _ in m.cells])


def _busy_machine(monkeypatch) -> None:
    """CP-SAT as a machine far too busy runs it: its wall clock runs out right after the first valid map it finds
    (a solution callback stops the search there; no real work is timed)."""
    from ortools.sat.python import cp_model

    from mapgen import repair

    real = repair.make_solver

    class _First(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            self.StopSearch()

    def busy(*args, **kwargs):
        solver = real(*args, **kwargs)
        solve = solver.solve
        solver.solve = lambda model, callback=None: solve(model, _First())
        return solver

    monkeypatch.setattr(repair, "make_solver", busy)


def test_a_repair_not_proven_nearest_is_the_same_map_under_any_load(monkeypatch):
    """The search for the nearest map was bounded by the wall clock alone: a busy machine stopped it sooner and
    handed out another, farther map (exit 0, "optimal": false), as if that were the answer for this time limit.
    Now its work is counted (CP-SAT's deterministic time): the same map on any machine and load, or SolveTimeout
    (exit 3) when the wall clock runs out before that work is done."""
    from mapgen import repair
    from mapgen.solving.solve import SolveTimeout

    monkeypatch.setattr(repair, "WORK_PER_SECOND", 0.25)  # the work of a fraction of a second: not proven nearest
    m = _far_from_valid()
    calm = repair_map(m, time_limit=2.0)
    assert not calm.optimal and not check_map(calm.map, get_chapter("maldonado"))
    assert repair_map(m, time_limit=2.0).map == calm.map  # counted work: the same map again
    _busy_machine(monkeypatch)
    with pytest.raises(SolveTimeout, match="time limit"):
        repair_map(m, time_limit=2.0)


def test_a_sketch_filled_with_a_seed_past_cp_sat_s_takes_it_and_a_bad_seed_is_refused():
    """``mapgen generate --from sketch.toml --seed 2147483648`` (``--seed`` takes 0 to 2**63 - 1) ended in a
    traceback: the seed went to CP-SAT's random_seed, a 32-bit int. From Python ``fill_sketch(..., seed=-1)`` filled
    the sketch and ``seed="x"`` failed inside OR-Tools; now the TypeError and SeedError ``Generator.generate``
    raises. Seeds below 2**31 fill as before."""
    from click.testing import CliRunner

    from cli import main
    from mapgen.generate import SeedError
    from mapgen.mapfile import dumps_map

    m = maps.load("training-1")
    sketch = m.hide(range(0, m.board.size, 2))
    for seed in (2**31, 2**63 - 1):
        assert check_map(fill_sketch(sketch, seed=seed)) == []
    with pytest.raises(TypeError, match=r"a seed is a whole number from 0 to 2\*\*63 - 1, not 'x'"):
        fill_sketch(sketch, seed="x")
    with pytest.raises(SeedError, match=r"seed -1 is beyond what a map file can record"):
        fill_sketch(sketch, seed=-1)
    got = CliRunner().invoke(main, ["generate", "--from", "-", "--seed", str(2**31)], input=dumps_map(sketch))
    assert got.exit_code == 0, got.output
