"""The "compile" style of the CNF (constraints/cnf.py) and the d4 settings: the circuit's count over all
variables equals Ganak's count projected on the terrain variables, the default style's count and brute
force, on small states of every chapter (so every auxiliary variable is a function of the terrain)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from constraints.catalogue import get_chapter
from constraints.cnf import case_split, cnf_for_state, compile_settings, count_cnf, d4_solver
from mapgen.model import Map
from mapgen.solving.bruteforce import count_completions_brute
from mapgen.terrain import Terrain

MAPS = [f"{c}-{n}" for c in ("training", "fauna", "flora", "vameter", "maldonado") for n in (201, 202)]


def circuit_count(cnf) -> int:
    """Compile with d4 (tiny states: milliseconds, in this process) and count the circuit's models."""
    if cnf.broken:
        return 0
    return int(d4_solver(cnf).compile().count([]))


def rocks_and_more(m: Map, extra: int, seed: str) -> list[int]:
    """Every Rock cell of ``m`` plus ``extra`` other cells: states where connectivity decides."""
    rocks = m.cells_of(Terrain.ROCK)
    others = [i for i in range(m.board.size) if i not in rocks]
    return [*rocks, *random.Random(seed).sample(others, extra)]


@pytest.mark.parametrize("name", MAPS)
def test_circuit_ganak_and_brute_force_agree_on_tiny_states(name, example):
    m = example(name)
    rng = random.Random(name + "/compile")
    state = m.hide(rng.sample(range(m.board.size), 5 if m.chapter == "training" else 3))
    cnf = cnf_for_state(state, style="compile")
    brute = count_completions_brute(state)
    assert brute >= 1
    assert circuit_count(cnf) == count_cnf(cnf) == brute


@pytest.mark.slow  # brute force over every hidden Rock cell's terrains: 1-6 s a map
@pytest.mark.parametrize("name", MAPS)
def test_circuit_ganak_and_brute_force_agree_when_rocks_are_hidden(name, example):
    """The Rocks unrevealed (up to 7 cells on Training's 5 terrains, 4 on a 7x7 chapter's 11 or more: brute
    force tries every terrain in every hidden cell): the row-by-row connectivity encoding is what counts."""
    m = example(name)
    hidden = rocks_and_more(m, 1, name)[: 7 if m.chapter == "training" else 4]
    state = m.hide(hidden)
    cnf = cnf_for_state(state, style="compile")
    assert any(n.startswith("conn_") for n in cnf.names.values())
    assert circuit_count(cnf) == count_cnf(cnf) == count_completions_brute(state) >= 1


@pytest.mark.parametrize("name", MAPS)
def test_both_styles_count_the_same_on_larger_states(name, example):
    """Some 14 to 18 cells unrevealed, the Rocks among them: the circuit of the compile style, Ganak on
    it, and Ganak on the default style give one number."""
    m = example(name)
    state = m.hide(rocks_and_more(m, 6 if m.chapter == "training" else 10, name + "/large"))
    compiled = cnf_for_state(state, style="compile")
    counted = count_cnf(cnf_for_state(state), 60)
    assert counted >= 1
    assert circuit_count(compiled) == count_cnf(compiled, 60) == counted


def test_the_default_style_also_compiles_to_the_projected_count(example):
    """Every auxiliary of the default style is defined both ways too: d4's count over all variables is
    the projected count."""
    m = example("flora-201")
    state = m.hide(random.Random(3).sample(range(m.board.size), 4))
    cnf = cnf_for_state(state)
    assert circuit_count(cnf) == count_cnf(cnf) == count_completions_brute(state)


def test_connected_without_a_sure_cell_in_the_compile_style(example):
    """A house chapter with no Peak: the first Rock (board order) is the root of the sweep."""
    m = example("training-202")  # Rocks D4 D5 D6 E4
    chapter = get_chapter("training")
    no_peak = dataclasses.replace(chapter, rules=tuple(r for r in chapter.rules if r.kind != "briefing_cell"))
    state = m.hide(m.board.index(c) for c in ("D4", "D5", "D6", "E4", "E5", "C5"))
    cnf = cnf_for_state(state, no_peak, style="compile")
    assert any(name.startswith("root_") for name in cnf.names.values())
    assert circuit_count(cnf) == count_cnf(cnf) == count_completions_brute(state, chapter=no_peak) >= 1


def test_a_rock_joined_through_a_hidden_cell_in_the_compile_style(example):
    """D6 (a Rock) joins the Peak's group only through D5: D5 unrevealed, with its neighbours."""
    m = example("training-202")  # Rocks D4 D5 D6 E4
    state = m.hide(m.board.index(c) for c in ("D5", "C5", "E5", "C6"))
    cnf = cnf_for_state(state, style="compile")
    brute = count_completions_brute(state)
    assert circuit_count(cnf) == count_cnf(cnf) == brute >= 1
    rock_at_d5 = count_completions_brute(
        state.with_cells(Terrain.ROCK if i == m.board.index("D5") else t for i, t in enumerate(state.cells))
    )
    assert rock_at_d5 == brute  # every completion joins D6 through D5


def test_unknown_style_is_refused(example):
    with pytest.raises(ValueError, match="unknown CNF style 'fast'"):
        cnf_for_state(example("training-201"), style="fast")


def test_compile_settings_are_the_ones_d4_uses(example):
    """d4 silently replaces option values it does not know by its defaults: check ours survive."""
    import py_d4

    cnf = cnf_for_state(example("training-201-k16", "states"), style="compile")
    settings = compile_settings(cnf)
    assert len(settings["order"]) == cnf.nvars
    solver = d4_solver(cnf, settings)
    used = py_d4.dump_options_to_dict(solver.getOptions())
    assert used["branching"]["partialOrder"]["partialOrderMethod"] == "given"
    assert used["cache"]["bucket"]["sizeFirstPage"] == str(64 << 20)
    assert int(solver.compile().count([])) == count_cnf(cnf) == 54


def test_case_split_parts_add_up_to_the_whole(example):
    m = example("vameter-202")
    state = m.hide(rocks_and_more(m, 8, "split"))
    cnf = cnf_for_state(state, style="compile")
    cell = state.unrevealed()[0]
    parts = case_split(cnf, cell)
    assert len(parts) == len(get_chapter("vameter").terrains)
    counts = {t: circuit_count(part) for t, part in parts}
    assert sum(counts.values()) == circuit_count(cnf) == count_cnf(cnf) >= 1
    assert counts[m.cells[cell]] >= 1  # the map itself is a completion with its own terrain there


@pytest.mark.parametrize("heuristic", ["classic", "mom", "tree-decomposition"])
def test_other_d4_heuristics_are_honoured_and_count_the_same(heuristic, example):
    import py_d4

    cnf = cnf_for_state(example("training-201-k16", "states"), style="compile")
    solver = d4_solver(cnf, compile_settings(cnf, heuristic))
    used = py_d4.dump_options_to_dict(solver.getOptions())["branching"]
    classic = heuristic in ("classic", "mom")
    assert used["branchingHeuristicType"] == ("classic" if classic else "hybrid-partial-classic")
    assert used["scoringMethodType"] == ("mom" if heuristic == "mom" else "vsads")
    assert used["partialOrder"]["partialOrderMethod"] == "tree-decomposition"
    assert int(solver.compile().count([])) == 54
    with pytest.raises(ValueError, match="unknown d4 heuristic 'tree'"):
        compile_settings(cnf, "tree")
