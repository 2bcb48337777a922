"""The CP-SAT compilation agrees with the plain-Python checks (STYLE.md §7 level 1 and 3)."""

from __future__ import annotations

import random

import pytest

from constraints.catalogue import chapter_names, check_map, get_chapter
from constraints.cpsat import ChapterModel, make_solver
from mapgen.generate import Generator
from mapgen.terrain import Terrain

MAPS_PER_CHAPTER = 12
MUTANTS_PER_MAP = 4


def fixed_feasible(m, base: ChapterModel) -> bool:
    """Fix every cell (and shown Hill number) of a complete map in the chapter's model: is it feasible?"""
    cm = base.with_briefing(m.briefing)
    lits = cm.given_literals(m)
    if lits is None:  # a terrain the chapter has no variable for: T1
        return False
    cm.model.add_bool_and(lits)
    status = make_solver(10).solve(cm.model)
    name = make_solver(1).status_name(status)
    assert name in ("OPTIMAL", "INFEASIBLE"), name
    return name == "OPTIMAL"


@pytest.fixture(scope="module", params=chapter_names())
def chapter_maps(request):
    gen = Generator(request.param)
    return request.param, [gen.generate(seed).map for seed in range(MAPS_PER_CHAPTER)]


def test_model_accepts_valid_and_rejects_mutants_exactly_when_checks_do(chapter_maps):
    name, maps = chapter_maps
    chapter = get_chapter(name)
    base = ChapterModel(chapter, None)
    rng = random.Random(name)
    codes = list(Terrain)  # mutants may also use terrains foreign to the chapter (T1)
    agreed = broken = 0
    for m in maps:
        assert check_map(m) == []
        assert fixed_feasible(m, base)
        for _ in range(MUTANTS_PER_MAP):
            i = rng.randrange(m.board.size)
            t = rng.choice([c for c in codes if c is not m.cells[i]])
            mutant = m.with_cells(t if k == i else c for k, c in enumerate(m.cells))
            violations = check_map(mutant)
            assert fixed_feasible(mutant, base) == (not violations), (mutant, violations)
            agreed += 1
            broken += bool(violations)
    assert agreed == MAPS_PER_CHAPTER * MUTANTS_PER_MAP
    assert broken > agreed // 2  # most single-cell changes break a rule: the test has teeth


def test_examples_agree(data_dir):
    from mapgen.mapfile import read_map

    for path in sorted((data_dir / "valid").glob("*.toml")) + sorted((data_dir / "invalid").glob("*.toml")):
        m = read_map(path)
        base = ChapterModel(get_chapter(m.chapter), None)
        assert fixed_feasible(m, base) == (not check_map(m)), path.name


def test_wrong_hill_number_is_infeasible(example):
    m = example("fauna-201")
    hill = next(iter(m.hills))
    wrong = m.with_cells(m.cells, hills={**m.hills, hill: m.hills[hill] + 1})
    base = ChapterModel(get_chapter("fauna"), None)
    assert fixed_feasible(m, base)
    assert not fixed_feasible(wrong, base)


def test_guarded_model_names_the_conflicting_rule(example):
    """Assumptions on guard literals give the rules behind an infeasible request."""
    m = example("training-201")
    chapter = get_chapter("training")
    cm = ChapterModel(chapter, m.briefing, guarded=True)
    # Demand two Woods in row B: C4 (one Wood per row) must be in every explanation.
    b = m.board
    cm.model.add(sum(cm.x[i][Terrain.WOOD] for i in b.rows[0]) == 2)
    cm.model.add_assumptions([g.literal for g in cm.guards.values()])
    solver = make_solver(10)
    assert solver.status_name(solver.solve(cm.model)) == "INFEASIBLE"
    core = {
        g.label for g in cm.guards.values() if g.literal.index in set(solver.sufficient_assumptions_for_infeasibility())
    }
    assert core == {"C4"}
