"""The python-constraint model and brute force: counts and forced cells on the worked examples and on each other."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from constraints.catalogue import get_chapter
from constraints.csp import CspTimeout, completions_csp, count_completions_csp, forced_csp
from mapgen.mapfile import read_map
from mapgen.solving.bruteforce import completions_brute, count_completions_brute, forced_brute
from mapgen.terrain import Terrain

STATES = [f"{c}-{n}-k{34 if c != 'training' else 16}" for c in ("fauna", "flora", "maldonado", "training", "vameter")
          for n in (201, 202)]  # fmt: skip
MAPS = [f"{c}-{n}" for c in ("training", "fauna", "flora", "vameter", "maldonado") for n in (201, 202)]


@pytest.fixture(scope="module")
def expected_states(data_dir):
    return json.loads((data_dir / "states" / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def kind_cases(data_dir):
    return json.loads((data_dir / "count_cases.json").read_text(encoding="utf-8"))["cases"]


def case_state(data_dir, case):
    """The state of a count_cases.json case and its chapter without the case's rule kind."""
    m = read_map(data_dir / "valid" / f"{case['map']}.toml")
    cells = list(m.cells)
    for name, code in case["set"].items():
        cells[m.board.index(name)] = Terrain.from_code(code)
    state = m.with_cells(cells).hide(m.board.index(name) for name in case["hidden"])
    chapter = get_chapter(m.chapter)
    without = dataclasses.replace(chapter, rules=tuple(r for r in chapter.rules if type(r).__name__ != case["kind"]))
    return state, without


def hidden_states(m, count: int, k: int, seed: int):
    rng = random.Random(seed)
    return [m.hide(rng.sample(range(m.board.size), k)) for _ in range(count)]


@pytest.mark.slow
@pytest.mark.parametrize("name", STATES)
def test_csp_count_and_forced_cells_match_the_worked_examples(name, example, expected_states):
    state, expect = example(name, "states"), expected_states[name]
    assert count_completions_csp(state, time_limit=60) == expect["count"]
    forced = {state.board.name(i): t.code for i, t in forced_csp(state, time_limit=60).items()}
    assert forced == expect["forced"]


def test_count_limit_stops_early(example):
    state = example("flora-202-k34", "states")  # 285 completions
    assert count_completions_csp(state, limit=10) == 10
    assert count_completions_brute(example("fauna-201").hide([0, 1]), limit=1) == 1


@pytest.mark.parametrize("name", MAPS)
def test_csp_completions_equal_brute_force(name, example):
    m = example(name)
    k = 5 if m.chapter == "training" else 3
    for state in hidden_states(m, 2, k, seed=sum(map(ord, name))):
        brute = {full.cells for full in completions_brute(state)}
        csp = [full.cells for full in completions_csp(state)]
        assert len(csp) == len(set(csp)), "python-constraint returned a completion twice"
        assert set(csp) == brute
        assert m.cells in brute  # the map the state was made from is one of its completions


def test_forced_cells_agree_with_brute_force(example):
    state = example("maldonado-201").hide([8, 9, 15])
    forced = forced_csp(state)
    assert forced == forced_brute(state)
    assert forced  # this state has forced cells, so the comparison means something


@pytest.mark.parametrize("index", range(12))
def test_each_rule_kind_changes_the_csp_count(index, kind_cases, data_dir):
    case = kind_cases[index]
    state, without = case_state(data_dir, case)
    assert count_completions_csp(state) == case["count"]
    assert count_completions_csp(state, chapter=without) == case["count_without_kind"]


@pytest.mark.slow
@pytest.mark.parametrize("index", range(0, 12, 3))
def test_rule_kind_cases_hold_by_brute_force(index, kind_cases, data_dir):
    case = kind_cases[index]
    state, without = case_state(data_dir, case)
    assert count_completions_brute(state) == case["count"]
    assert count_completions_brute(state, chapter=without) == case["count_without_kind"]


def test_every_rule_kind_has_a_case(kind_cases):
    from constraints.rules import KINDS

    assert {c["kind"] for c in kind_cases} == {k.__name__ for k in KINDS.values()}


@pytest.mark.parametrize("name", ["fauna-201", "flora-202", "training-201", "vameter-202", "maldonado-201"])
def test_complete_maps_have_one_completion_and_mutants_none(name, example):
    assert count_completions_csp(example(name)) == 1
    assert count_completions_brute(example(name)) == 1
    mutant = example(f"{name}-m", "invalid")
    assert count_completions_csp(mutant) == 0
    assert count_completions_brute(mutant) == 0
    assert forced_csp(mutant) == {}


def test_a_revealed_terrain_outside_the_chapter_leaves_no_completion(example):
    m = example("vameter-201")
    cells = list(m.cells)
    cells[0] = Terrain.VINE  # Vameter has no Vine (T1)
    state = m.with_cells(cells).hide([5, 6])
    assert count_completions_csp(state) == 0


def test_brute_force_refuses_big_states(example):
    with pytest.raises(ValueError, match="at most 7 unrevealed cells"):
        count_completions_brute(example("fauna-201").hide(range(8)))


def test_csp_search_stops_at_its_time_limit(example):
    m = example("flora-201")
    state = m.hide(i for i in range(m.board.size) if i != m.briefing.peak)
    with pytest.raises(CspTimeout):
        count_completions_csp(state, time_limit=0.3)
