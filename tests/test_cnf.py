"""The CNF encoding counted by Ganak: exact counts on the worked examples, per rule kind, and against the other counters."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import random

import pytest
from pyganak import Counter

import constraints.cnf as cnf_module
from constraints.catalogue import get_chapter
from constraints.cnf import CountTimeout, cnf_for_state, count_cnf, count_completions_cnf
from constraints.csp import count_completions_csp
from mapgen.mapfile import read_map
from mapgen.solving.bruteforce import count_completions_brute
from mapgen.terrain import Terrain

STATES = [f"{c}-{n}-k{34 if c != 'training' else 16}" for c in ("fauna", "flora", "maldonado", "training", "vameter")
          for n in (201, 202)]  # fmt: skip
MAPS = [f"{c}-{n}" for c in ("training", "fauna", "flora", "vameter", "maldonado") for n in (201, 202)]


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


@pytest.fixture(scope="module")
def expected_states(data_dir):
    return json.loads((data_dir / "states" / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def kind_cases(data_dir):
    return json.loads((data_dir / "count_cases.json").read_text(encoding="utf-8"))["cases"]


def test_ganak_projects_auxiliary_variables_away():
    # x1 or x2 or x3, projected onto x1, x2: x3 is existential, so 4 models (7 without projection).
    counter = Counter()
    counter.add_clause([1, 2, 3])
    counter.set_sampling_set([1, 2])
    assert counter.count() == 4


@pytest.mark.parametrize("name", STATES)
def test_cnf_count_matches_the_worked_examples(name, example, expected_states):
    assert count_completions_cnf(example(name, "states"), time_limit=60) == expected_states[name]["count"]


@pytest.mark.parametrize("index", range(12))
def test_each_rule_kind_changes_the_cnf_count(index, kind_cases, data_dir):
    case = kind_cases[index]
    state, without = case_state(data_dir, case)
    assert count_completions_cnf(state) == case["count"]
    assert count_completions_cnf(state, chapter=without) == case["count_without_kind"]


@pytest.mark.parametrize("name", MAPS)
def test_cnf_equals_brute_force_on_tiny_states(name, example):
    m = example(name)
    rng = random.Random(name)
    k = 5 if m.chapter == "training" else 3
    state = m.hide(rng.sample(range(m.board.size), k))
    assert count_completions_cnf(state) == count_completions_brute(state) >= 1


@pytest.mark.parametrize("name", MAPS)
def test_cnf_equals_python_constraint_on_larger_states(name, example):
    m = example(name)
    rng = random.Random(name + "/10")
    state = m.hide(rng.sample(range(m.board.size), 10))
    assert count_completions_cnf(state) == count_completions_csp(state, time_limit=60) >= 1


def test_connected_without_a_sure_cell_uses_the_first_cell_as_root(example):
    """A house chapter with no Peak: no Rock is known, so the encoding picks the first Rock as the root."""
    m = example("training-202")  # Rocks D4 D5 D6 E4
    chapter = get_chapter("training")
    no_peak = dataclasses.replace(chapter, rules=tuple(r for r in chapter.rules if r.kind != "briefing_cell"))
    state = m.hide(m.board.index(c) for c in ("D4", "D5", "D6", "E4", "E5"))
    cnf = cnf_for_state(state, no_peak)
    assert any(name.startswith("root_") for name in cnf.names.values())
    assert count_cnf(cnf) == count_completions_brute(state, chapter=no_peak)
    assert count_completions_cnf(state) == count_completions_brute(state)


@pytest.mark.parametrize("name", ["fauna-201", "flora-202", "training-201", "vameter-202", "maldonado-201"])
def test_complete_maps_count_one_and_mutants_zero(name, example):
    assert count_completions_cnf(example(name)) == 1
    assert count_completions_cnf(example(f"{name}-m", "invalid")) == 0


def test_revealed_cells_that_break_a_rule_give_zero_without_counting(example):
    m = example("vameter-201")
    cells = list(m.cells)
    cells[0] = Terrain.VINE  # not a Vameter terrain (T1)
    cnf = cnf_for_state(m.with_cells(cells).hide([5, 6]))
    assert cnf.broken == ["T1"]
    assert count_cnf(cnf) == 0


def test_cnf_for_state_names_variables_and_projects_onto_terrains(example):
    state = example("fauna-201-k34", "states")
    cnf = cnf_for_state(state)
    chapter = get_chapter("fauna")
    assert len(cnf.sampling) == len(state.unrevealed()) * len(chapter.terrains)
    assert {cnf.names[v].split("_")[0] for v in cnf.sampling} == {"cell"}
    assert cnf.names[cnf.x[state.board.index("A2")][Terrain.WOOD]] == "cell_A2_Wo"
    assert any(name.startswith("reach_") for name in cnf.names.values())
    assert any(name.startswith("match_") for name in cnf.names.values())
    text = cnf.dimacs()
    assert text.startswith(f"p cnf {cnf.nvars} {len(cnf.clauses)}\nc p show ")


def test_counting_without_a_time_limit_runs_in_process(example):
    assert count_completions_cnf(example("training-201-k16", "states"), time_limit=None) == 54


def test_count_stops_at_its_time_limit_and_leaves_no_process(example):
    m = example("flora-201")
    state = m.hide(i for i in range(m.board.size) if i != m.briefing.peak)
    # processes an earlier test of this process left running (a pool's workers: under pytest-xdist the
    # tests before this one are others than in a run in one process) are not the count's
    before = set(multiprocessing.active_children())
    with pytest.raises(CountTimeout, match="did not finish within 0.5 s"):
        count_completions_cnf(state, time_limit=0.5)
    assert not set(multiprocessing.active_children()) - before


@pytest.mark.parametrize("encoding", ["counter", "pysat"])
@pytest.mark.parametrize("name", ["fauna-201-k34", "flora-201-k34", "flora-202-k34"])
def test_both_cardinality_encodings_give_the_same_counts(encoding, name, example, expected_states, monkeypatch):
    monkeypatch.setattr(cnf_module, "CARD_ENCODING", encoding)
    state = example(name, "states")
    cnf = cnf_for_state(state)
    prefix = "count_" if encoding == "counter" else "card_"
    assert any(n.startswith(prefix) for n in cnf.names.values())  # the encoding under test is in use
    assert count_cnf(cnf) == expected_states[name]["count"]


@pytest.mark.parametrize("encoding", ["counter", "pysat"])
def test_both_cardinality_encodings_count_maldonado_plenty(encoding, example, monkeypatch):
    """M2 ("at least 3 of each terrain") needs a counter once few cells are revealed."""
    monkeypatch.setattr(cnf_module, "CARD_ENCODING", encoding)
    m = example("maldonado-202")
    state = m.hide(random.Random(2).sample(range(m.board.size), 18))
    cnf = cnf_for_state(state)
    prefix = "count_M2" if encoding == "counter" else "card_M2"
    assert any(n.startswith(prefix) for n in cnf.names.values())
    assert count_cnf(cnf) == count_completions_csp(state, time_limit=60) == 55
