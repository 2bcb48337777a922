"""Kept proofs (mapgen/solving/proofs.py): answers read from them are the answers of a fresh session."""

from __future__ import annotations

import random

import pytest

from constraints.catalogue import get_chapter
from mapgen.mapfile import read_map
from mapgen.solving.proofs import Proofs
from mapgen.solving.solve import Solver
from tests.conftest import DATA


def _states(m, other, n: int, seed: int):
    """Partial states of two maps of one briefing, a quarter to four fifths of the cells revealed, interleaved."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        full = m if k % 2 == 0 else other
        shown = set(rng.sample(range(full.board.size), rng.randint(full.board.size // 4, 4 * full.board.size // 5)))
        out.append(full.hide(i for i in range(full.board.size) if i not in shown))
    return out


@pytest.mark.parametrize("name", ["fauna-201", "vameter-201", "training-201"])
def test_possible_on_kept_proofs_equals_a_fresh_session(name):
    """On states of two maps that share a briefing, in one run of questions: what the kept completions and
    cores answer is what a session that has seen no other question answers; asked again, the same states
    need no solve at all."""
    m = read_map(DATA / "valid" / f"{name}.toml")
    rules = get_chapter(m.chapter)
    solver = Solver(rules, time_limit=5.0, deterministic=True)
    w = solver.other_completion(m.hide(range(m.board.size)), m.cells)  # another map of the briefing
    assert w is not None
    other = m.with_cells(w, hills=rules.hill_numbers(m.with_cells(w)))
    assert other.cells != m.cells
    states = _states(m, other, 24, seed=5)
    shared, proofs = solver.session(m.briefing), Proofs(rules)
    kept = []
    for state in states:
        cells = state.unrevealed()[:10]
        fresh = solver.possible(state, cells=cells, session=solver.session(m.briefing))
        assert solver.possible(state, cells=cells, session=shared, proofs=proofs) == fresh
        kept.append(fresh)
    assert proofs.completions > 0 and proofs.cores > 0
    calls = shared.sat.calls
    for state, fresh in zip(states, kept):
        assert solver.possible(state, cells=state.unrevealed()[:10], session=shared, proofs=proofs) == fresh
    assert shared.sat.calls == calls


def test_a_full_store_replaces_its_oldest_completions():
    """Past its cap the store forgets the oldest completion: a state only it agreed with has no stored one."""
    m = read_map(DATA / "valid" / "fauna-201.toml")
    rules = get_chapter("fauna")
    solver = Solver(rules, time_limit=5.0, deterministic=True)
    proofs = Proofs(rules, cap=2)
    proofs.add(m.cells)
    assert proofs.agreeing(m) == 1
    for _ in range(2):
        other = solver.completion(m.hide(range(10, 49)))  # agrees with m on its first ten cells only
        assert other is not None
        proofs.add(other)
    assert proofs.completions == 2 and proofs.agreeing(m) == 0
    assert proofs.agreeing(m.hide(range(10, 49))) != 0


def test_cores_apply_to_states_that_include_them():
    rules = get_chapter("fauna")
    proofs = Proofs(rules)
    proofs.learn([101, 102], frozenset({1, 2, 3}))
    assert proofs.refutes(proofs.within(frozenset({1, 2, 3, 4})), 101)
    assert not proofs.refutes(proofs.within(frozenset({1, 2, 4})), 101)  # 3 missing: the core does not apply
    assert not proofs.refutes(proofs.within(frozenset({1, 2, 3})), 103)  # a pair it never ruled out


def test_sort_keeps_the_pairs_no_completion_shows_and_no_core_rules_out():
    """A pair a stored completion of the state shows is seen; one a core within the state's assumptions rules
    out is settled; every other pair is left for the solver, in the order asked."""
    m = read_map(DATA / "valid" / "fauna-201.toml")
    proofs = Proofs(get_chapter(m.chapter))
    proofs.add(m.cells)
    state = m.hide([0, 1])
    a, b, c = [t for t in get_chapter(m.chapter).terrains if t is not m.cells[0]][:3]
    pairs = [{m.cells[0]: 100, a: 101, b: 102, c: 103}, {m.cells[1]: 200}] + [{}] * (m.board.size - 2)
    proofs.learn([102], frozenset({7, 8}))
    proofs.learn([103], frozenset({7, 9}))  # 9 is not among the state's assumptions: does not apply
    seen, rest = proofs.sort(state, [0, 1], pairs, frozenset({7, 8}))
    assert seen == {0: {m.cells[0]}, 1: {m.cells[1]}}
    assert rest == [(0, a, 101), (0, c, 103)]
