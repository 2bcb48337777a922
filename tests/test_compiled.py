"""Compiled briefings (mapgen.solving.compiled): exact counts, odds and uniform samples from a d-DNNF,
cross-checked against Ganak, brute force, ddnnife and the worked examples; the cache never gives a
wrong answer."""

from __future__ import annotations

import json
import math
import random
import re
import time
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

import maps
from cli import main
from constraints.catalogue import chapter_names, get_chapter
from constraints.cnf import cnf_for_state, count_completions_cnf
from mapgen.mapfile import read_map
from mapgen.solving import compiled as C
from mapgen.solving.bruteforce import completions_brute
from mapgen.solving.solve import CircuitStore, Solver
from tests.conftest import DATA

STATES = sorted(p.stem for p in (DATA / "states").glob("*.toml"))
EXPECTED = json.loads((DATA / "states" / "expected.json").read_text(encoding="utf-8"))


def compiled(state, chapter=None):
    return C.Circuit.compile(chapter or get_chapter(state.chapter), state, time_limit=60)


def hidden_from(m, k: int, seed: int):
    """A state of complete map ``m`` with ``k`` random cells hidden."""
    cells = random.Random(seed).sample(range(m.board.size), k)
    return m.hide(cells)


@pytest.mark.parametrize("name", STATES)
def test_the_worked_examples_count_and_force_exactly(name):
    state = read_map(DATA / "states" / f"{name}.toml")
    total, tallies = compiled(state).tallies(state)
    want = EXPECTED[name]
    assert total == want["count"]
    forced = {state.board.name(i): next(iter(d)).code for i, d in tallies.items() if len(d) == 1}
    assert forced == want["forced"]
    # per cell the terrains' counts add up to the count: probabilities times the count are integers
    assert all(sum(d.values()) == total for d in tallies.values())


# brute force over 4 hidden cells in 6 states: 6 x 13^4 candidate maps in Flora, 6.5 times fewer than the
# 3 states of 5 hidden cells this took before (which gave the same counts or smaller ones: 1 to 8, where
# these give 1 to 24 and at least one count above 1 in every chapter)
@pytest.mark.slow
@pytest.mark.parametrize("chapter", chapter_names())
def test_counts_equal_brute_force_and_ganak(chapter):
    m = maps.load(f"{chapter}-1")
    counts = []
    for seed in range(6):
        state = hidden_from(m, 4, seed)
        circuit = compiled(state)
        brute = [w.cells for w in completions_brute(state)]
        assert circuit.count(state) == len(brute) == count_completions_cnf(state, time_limit=60)
        _total, tallies = circuit.tallies(state)
        for i, d in tallies.items():
            assert d == dict(Counter(w[i] for w in brute))
        counts.append(len(brute))
    assert max(counts) > 1  # not only states with one completion: the tallies are compared on real choices


@pytest.mark.parametrize("chapter", chapter_names())
def test_a_base_circuit_answers_later_states_like_a_fresh_compile(chapter):
    """Conditioning: the circuit of a state answers every state that reveals more of the same map."""
    m = maps.load(f"{chapter}-2")
    rng = random.Random(5)
    # Hills too: one the base hides is summed over its placements (Circuit.patterns)
    order = rng.sample(range(m.board.size), m.board.size)
    base = m.hide(order[:18])
    circuit = compiled(base)
    for k in (14, 9, 4):
        later = m.hide(order[:k])
        assert circuit.applies(later)
        assert circuit.tallies(later) == compiled(later).tallies(later)
        # conditioned on the later state and pruned: the same answers for it and for the states after it
        narrower = circuit.condition(later)
        assert (
            narrower is not None and narrower.base.cells == later.cells and narrower.stats.nodes <= circuit.stats.nodes
        )
        # (its base keeps only the base's Hill numbers: a newly shown one stays a sum over placements)
        assert narrower.base.hills.keys() <= circuit.base.hills.keys() | later.hills.keys()
        assert narrower.stats.count == circuit.count(narrower.base)
        for j in (k, k - 2):
            assert narrower.applies(m.hide(order[:j]))
            assert narrower.tallies(m.hide(order[:j])) == circuit.tallies(m.hide(order[:j]))
        assert all(narrower.applies(later.with_cells(w)) for w in narrower.sample(later, 20, seed=k))


def test_the_solver_answers_a_later_state_from_its_large_circuit_conditioned(monkeypatch, tmp_path):
    """A large base circuit is conditioned on a later state's reveals (kept in memory, not on disk), and
    that narrower circuit answers the state and the ones after it: the same tallies as the base's."""
    from mapgen.solving import solve

    monkeypatch.setattr(solve, "LARGE_CIRCUIT_EDGES", 0)  # every circuit counts as large here
    monkeypatch.setattr(solve, "CONDITION_KEEPS", 1.0)  # and any narrowing is worth it
    m = maps.load("fauna-1")
    rng = random.Random(2)
    order = rng.sample(range(m.board.size), m.board.size)
    base, later, last = (m.hide(order[:k]) for k in (38, 34, 31))
    store = CircuitStore(C.CircuitCache(tmp_path))
    solver = Solver(get_chapter("fauna"), circuits=store)
    first = store.compile(get_chapter("fauna"), base, 60)
    assert first is not None
    narrower = solver.circuit(later)
    assert (
        narrower is not None
        and narrower.base.cells == later.cells
        and len(narrower.dnnf.parent) <= len(first.dnnf.parent)
    )
    assert narrower.tallies(later) == first.tallies(later)
    assert solver.circuit(last).tallies(last) == first.tallies(last)
    assert len(list(tmp_path.rglob("*.circuit"))) <= 1  # only the compiled base went to the disk


def test_a_declined_conditioning_is_not_made_again(monkeypatch, tmp_path):
    """When a large circuit declines to condition itself on a state (it would keep too much), the next
    question on that state goes straight to the circuit: the pass is not made twice, and the answers stay
    the circuit's own."""
    from mapgen.solving import solve

    monkeypatch.setattr(solve, "LARGE_CIRCUIT_EDGES", 0)  # every circuit counts as large here
    monkeypatch.setattr(solve, "CONDITION_KEEPS", 0.0)  # and no narrowing is worth it
    m = maps.load("fauna-1")
    order = [i for i in random.Random(3).sample(range(m.board.size), m.board.size) if m.cells[i].code != "Hi"]
    base, later = m.hide(order[:38]), m.hide(order[:36])
    store = CircuitStore(C.CircuitCache(tmp_path))
    solver = Solver(get_chapter("fauna"), circuits=store)
    first = store.compile(get_chapter("fauna"), base, 60)
    passes = []
    real = C.Dnnf.condition
    monkeypatch.setattr(C.Dnnf, "condition", lambda self, *a, **k: passes.append(1) or real(self, *a, **k))
    answers = [solver.circuit(later) for _ in range(3)]
    assert all(a is first for a in answers) and len(passes) == 1
    assert first.tallies(later)[0] == count_completions_cnf(later, time_limit=60)


def test_hill_numbers_are_part_of_the_base():
    m = maps.load("fauna-1")
    b = m.board
    hill = next(i for i, t in enumerate(m.cells) if t.code == "Hi")
    others = [i for i in range(b.size) if i != hill]
    base = m.hide(others[:30])  # the Hill shown with its number
    circuit = compiled(base)
    no_number = base.with_cells(base.cells, hills={})
    assert not circuit.applies(no_number)
    assert circuit.applies(base) and circuit.count(base) == count_completions_cnf(base, time_limit=60)


def test_placements_pick_each_lines_number_and_shared_cells_alike():
    # cells 1, 2, 3 hold one; cells 3, 4 hold one (cell 3 is on both lines)
    got = C._placements([([1, 2, 3], 1), ([3, 4], 1)], cap=10)
    assert sorted(map(sorted, got)) == sorted(map(sorted, [[1, -2, -3, 4], [-1, 2, -3, 4], [-1, -2, 3, -4]]))
    assert C._placements([([1, 2], 3)], cap=10) == []  # more than the line has
    assert C._placements([([1, 2, 3, 4], 2)], cap=5) is None  # 6 placements, past the cap
    assert len(C._placements([([1, 2, 3, 4], 2)], cap=6)) == 6


HILL_CHAPTERS = [c for c in chapter_names() if get_chapter(c).counted is not None]


@pytest.mark.parametrize("chapter", HILL_CHAPTERS)
def test_a_hill_number_the_base_lacks_is_summed_over_its_placements(chapter):
    """A circuit compiled with the Hills hidden answers states that show their numbers exactly as a compile of
    that state does (counts, every cell's tallies), and its samples are completions that honour the numbers."""
    m = maps.load(f"{chapter}-3")
    ch = get_chapter(chapter)
    b = m.board
    hills = [i for i, t in enumerate(m.cells) if t.code == "Hi"]
    counting = next(h for h in hills if m.hills.get(h))  # a Hill that counts some: several placements
    line = {*b.rows[b.rc(counting)[0]], *b.cols[b.rc(counting)[1]]}
    others = [i for i in range(b.size) if i not in hills]
    random.Random(1).shuffle(others)
    others.sort(key=lambda i: i not in line)  # its row and column hidden first
    hidden = set(others[:16]) | set(hills)
    circuit = compiled(m.hide(hidden))
    several = 0
    for shown in [*([h] for h in hills), hills[:2], hills]:
        state = m.hide(hidden - set(shown))
        assert state.hills  # the numbers are shown
        assert circuit.applies(state)
        several += len(circuit.patterns(state)) > 1
        assert circuit.tallies(state) == compiled(state).tallies(state)
        drawn = circuit.sample(state, 25, seed=2)
        assert len(drawn) == 25 and all(not ch.check(state.with_cells(w)) for w in drawn)
        assert drawn == circuit.sample(state, 25, seed=2)
    assert several  # some state needed more than one placement
    # a state whose Hill number no placement can give: no completion, from the circuit as from a compile
    h = hills[0]
    wrong = m.hide(hidden - {h}).with_cells(m.hide(hidden - {h}).cells, hills={h: 13})
    assert circuit.count(wrong) == 0 and circuit.sample(wrong, 3) == []


def test_samples_over_several_placements_are_uniform_chi_square():
    """Each draw falls in a placement in proportion to its exact count (chi-square against the counts; seeded).
    flora-1's C7 (a 2) with its row and column hidden: 36 placements, thinned by one pass first."""
    m = maps.load("flora-1")
    b = m.board
    hills = [i for i, t in enumerate(m.cells) if t.code == "Hi"]
    hill = b.index("C7")
    line = {*b.rows[b.rc(hill)[0]], *b.cols[b.rc(hill)[1]]} - {hill}
    others = [i for i in range(b.size) if i not in line and i not in hills]
    random.Random(2).shuffle(others)
    hidden = line | set(hills) | set(others[:6])
    circuit = compiled(m.hide(hidden))
    state = m.hide(hidden - {hill})
    pats = circuit.patterns(state)
    assert m.hills[hill] == 2 and len(pats) > C.HILL_PATTERNS_UNPRUNED
    assert circuit.tallies(state) == compiled(state).tallies(state)
    counts = [circuit.dnnf.count(p) for p in pats]
    total = sum(counts)
    assert total == circuit.count(state) == count_completions_cnf(state, time_limit=60)
    n = 4000
    got: Counter = Counter()
    for w in circuit.sample(state, n, seed=5):
        lits = {v for i, t in enumerate(w) for u, v in circuit.x[i].items() if u is t and isinstance(v, int)}
        got[next(k for k, p in enumerate(pats) if all((abs(v) in lits) == (v > 0) for v in p))] += 1
    live = [k for k, c in enumerate(counts) if c]
    chi2 = sum((got[k] - n * counts[k] / total) ** 2 / (n * counts[k] / total) for k in live)
    df = len(live) - 1
    limit = df * (1 - 2 / (9 * df) + 3.09 * math.sqrt(2 / (9 * df))) ** 3
    assert chi2 < limit and sum(got.values()) == n


def test_too_many_placements_mean_the_state_is_compiled(monkeypatch, tmp_path):
    """Past ``HILL_PATTERNS`` placements the circuit declines the state, and the solver compiles it with its Hill."""
    monkeypatch.setattr(C, "HILL_PATTERNS", 0)
    monkeypatch.setattr(C, "HILL_PATTERNS_UNPRUNED", 0)
    m = maps.load("fauna-3")
    hill = next(i for i, t in enumerate(m.cells) if t.code == "Hi" and m.hills.get(i))
    others = [i for i in range(m.board.size) if i != hill]
    random.Random(4).shuffle(others)
    hidden = set(others[:14]) | {hill}
    store = CircuitStore(C.CircuitCache(tmp_path))
    solver = Solver(get_chapter("fauna"), circuits=store)
    base = store.compile(get_chapter("fauna"), m.hide(hidden), 60)
    state = m.hide(hidden - {hill})
    assert base is not None and not base.applies(state)
    got = solver.circuit(state, 30.0)
    assert got is not None and got is not base and got.base.hills == state.hills
    assert got.count(state) == count_completions_cnf(state, time_limit=60)


def test_against_ddnnife():
    """ddnnife (the d-DNNF reasoner) reads d4's circuit and agrees on the count, the core and odds."""
    ddnnife = pytest.importorskip("ddnnife")
    py_d4 = pytest.importorskip("py_d4")
    state = read_map(DATA / "states" / "flora-202-k34.toml")
    cnf = cnf_for_state(state)
    res = py_d4.Solver([list(c) for c in cnf.clauses], cnf.nvars).compile()
    ours = C.Dnnf.from_d4(res.getNNFString(), cnf.nvars)
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/state.nnf"
        with open(path, "w") as f:
            f.write(res.getNNFString())
        theirs = ddnnife.Ddnnf.from_file(path, cnf.nvars).as_mut()
    total, per_lit = ours.literal_counts([])
    assert total == int(theirs.count([])) == 285
    core = {lit for lit in theirs.core([]) if abs(lit) in set(cnf.sampling) and lit > 0}
    assert core == {v for v in cnf.sampling if per_lit.get(v, 0) == total}
    counts = theirs.count_multiple([], list(cnf.sampling))
    assert [int(c) for c in counts] == [per_lit.get(v, 0) for v in cnf.sampling]


@pytest.mark.parametrize("mode", [C.FLOAT, C.INT, C.BIG])
def test_every_number_mode_gives_the_same_answers(mode):
    m = maps.load("training-1")
    state = hidden_from(m, 14, 1)
    circuit = compiled(state)
    want = circuit.tallies(state)
    circuit.dnnf.mode = mode
    circuit._memo.clear()
    assert circuit.tallies(state) == want
    assert circuit.count(state) == want[0]
    lits = circuit.assumptions(state)
    assert circuit.dnnf.count(lits) == want[0]


@pytest.mark.parametrize("chapter", chapter_names())
def test_the_compiled_walk_gives_the_level_passes_answers(monkeypatch, chapter):
    """The depth-first passes (mapgen.solving.kernels, what a large circuit asked again uses) against numpy's
    level passes: the same count, per-terrain tallies and seeded samples on later states of a base circuit,
    in both 64-bit number modes, for states with completions and states with none."""
    m = maps.load(f"{chapter}-2")
    rng = random.Random(11)
    order = [i for i in rng.sample(range(m.board.size), m.board.size) if m.cells[i].code != "Hi"]
    base = m.hide(order[:20])
    circuit = compiled(base)
    later = [m.hide(order[:k]) for k in (19, 16, 12, 8, 3)]
    wrong = later[1].with_cells(
        [next(t for t in circuit.x[i] if t != m.cells[i]) if i == order[0] else c for i, c in enumerate(later[1].cells)]
    )  # one cell revealed as another of its terrains: fewer completions, maybe none
    states = [*later, wrong]
    want = [(circuit.tallies(s), circuit.count(s)) for s in states]
    drawn = [circuit.sample(s, 5, seed=3) for s in later[:3]]
    walked = []
    monkeypatch.setattr(C, "KERNEL_EDGES", 0)
    monkeypatch.setattr(C, "KERNEL_FROM_QUERY", 1)
    monkeypatch.setattr(C, "KERNELS_PAID", True)  # as in a web app worker
    from mapgen.solving import kernels

    monkeypatch.setattr(kernels, "up", lambda *a, _up=kernels.up: walked.append(1) or _up(*a))
    for mode in (C.FLOAT, C.INT):
        circuit.dnnf.mode = mode
        circuit._memo.clear()
        assert [(circuit.tallies(s), circuit.count(s)) for s in states] == want
        assert [circuit.sample(s, 5, seed=3) for s in later[:3]] == drawn  # the same seeded draws
    assert len(walked) == 2 * (2 * len(states) + 3)  # every question went to the walk (two modes)


def test_a_few_questions_keep_to_numpy_until_they_cost_what_loading_numba_does(monkeypatch):
    """A command asking a mid-size circuit a few questions (``mapgen deduce``) does not load numba for them:
    numpy answers until its passes have gone over ``KERNEL_RENT_EDGES`` edges of the circuit (a count once per
    edge, the odds 4 times), then the walk does; once a walk has run in the process, the next circuit walks
    from its second question. The answers are the same either way."""
    m = maps.load("training-1")
    order = random.Random(4).sample(range(m.board.size), m.board.size)
    circuit = compiled(m.hide(order))
    states = [m.hide(order[:k]) for k in (22, 20, 18, 16, 14)]
    want = [circuit.dnnf.count(circuit.assumptions(s)) for s in states]
    from mapgen.solving import kernels

    walked = []
    monkeypatch.setattr(kernels, "up", lambda *a, _up=kernels.up: walked.append(1) or _up(*a))
    edges = circuit.stats.edges
    monkeypatch.setattr(C, "KERNEL_EDGES", 0)
    monkeypatch.setattr(C, "KERNEL_FROM_QUERY", 2)
    monkeypatch.setattr(C, "KERNEL_RENT_EDGES", 6 * edges)
    monkeypatch.setattr(C, "KERNELS_PAID", False)
    fresh = C.Dnnf(circuit.dnnf.a)
    got = [fresh.count(circuit.assumptions(s)) for s in states[:2]]
    fresh.literal_counts(circuit.assumptions(states[2]))  # 4 passes: 6 edges' worth of rent in all
    assert walked == [] and got == want[:2]
    got += [fresh.count(circuit.assumptions(s)) for s in states[3:]]
    assert walked == [1, 1] and got == want[:2] + want[3:]  # the rent is spent: the walk answers
    again = C.Dnnf(circuit.dnnf.a)
    assert again.count(circuit.assumptions(states[0])) == want[0] and len(walked) == 2  # a first question: numpy
    assert again.count(circuit.assumptions(states[1])) == want[1] and len(walked) == 3  # numba is loaded: walks


def test_walks_in_threads_at_once_do_not_share_their_scratch(monkeypatch):
    """The web app's threads ask one circuit at once; each thread walks with arrays of its own (the walk
    releases the GIL), so answers are those of the same questions asked one after another."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(C, "KERNEL_EDGES", 0)
    monkeypatch.setattr(C, "KERNEL_FROM_QUERY", 1)
    monkeypatch.setattr(C, "KERNELS_PAID", True)  # as in a web app worker
    m = maps.load("training-1")
    rng = random.Random(4)
    order = rng.sample(range(m.board.size), m.board.size)
    circuit = compiled(m.hide(order))
    states = [m.hide(order[:k]) for k in (24, 22, 20, 18, 16, 14, 12, 10)] * 4
    want = []
    for s in states:
        circuit._memo.clear()
        want.append(circuit.tallies(s))
    circuit._memo.clear()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda s: circuit.dnnf.literal_counts(circuit.assumptions(s)), states))
    assert [g[0] for g in got] == [w[0] for w in want]
    for s, g in zip(states, got, strict=True):
        assert g == circuit.dnnf.literal_counts(circuit.assumptions(s))


def test_samples_are_uniform_chi_square():
    """Samples against exact enumeration: a chi-square test of the completions' frequencies (seeded,
    so the test is deterministic; at p = 0.001 a correct sampler fails one seed in a thousand)."""
    m = maps.load("training-2")
    state = hidden_from(m, 7, 6)  # 160 completions: enough to see a bias, few enough to list
    circuit = compiled(state)
    brute = [w.cells for w in completions_brute(state)]
    k = len(brute)
    assert k == circuit.count(state)
    n = 60 * k
    got = Counter(circuit.sample(state, n, seed=11))
    assert set(got) <= set(brute)  # every sample is a completion
    chi2 = sum((got.get(w, 0) - n / k) ** 2 / (n / k) for w in brute)
    # the 0.999 quantile of chi-square with k - 1 degrees of freedom (Wilson-Hilferty)
    df = k - 1
    z = 3.09
    limit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    assert chi2 < limit
    # the same seed gives the same samples
    assert circuit.sample(state, 5, seed=4) == circuit.sample(state, 5, seed=4)


def test_the_cache_round_trips_and_survives_damage(tmp_path):
    cache = C.CircuitCache(tmp_path)
    m = maps.load("training-1")
    state = hidden_from(m, 12, 2)
    circuit = compiled(state)
    path = cache.store(circuit)
    assert path is not None and path.exists()
    later = m.hide(random.Random(2).sample(range(m.board.size), 12)[:6])
    loaded = cache.load(get_chapter("training"), later)
    assert loaded is not None and loaded.tallies(later) == circuit.tallies(later)
    # the arrays are the file mapped in memory (shared between processes), never written
    assert all(isinstance(a.base, np.memmap) or isinstance(a, np.memmap) for a in loaded.dnnf.a.values())
    assert not loaded.dnnf.child.flags.writeable
    # its own state's answer comes with the file: no pass over the circuit for it
    fresh = compiled(state).tallies(state)
    loaded = cache.load(get_chapter("training"), state)
    assert loaded is not None
    loaded.dnnf.literal_counts = None  # type: ignore[method-assign]  # a pass would fail here
    assert loaded.tallies(state) == fresh
    # truncated, then garbage: never a wrong answer, the file is dropped and the caller compiles again
    data = path.read_bytes()
    mid = len(data) // 2  # inside the arrays: only the CRC tells
    flipped = data[:mid] + bytes([data[mid] ^ 0xFF]) + data[mid + 1 :]
    for damaged in (data[: len(data) // 2], b"not a circuit", data[:-10] + b"0123456789", flipped):
        path.write_bytes(damaged)
        assert cache.load(get_chapter("training"), later) is None
        assert not path.exists()
        cache.store(circuit)
    solver = Solver(get_chapter("training"), circuits=CircuitStore(cache))
    path.write_bytes(b"junk")
    assert solver.count(later, time_limit=30).count == count_completions_cnf(later, time_limit=60)


def test_a_damaged_file_that_cannot_be_deleted_is_passed_over(tmp_path, monkeypatch):
    """A damaged circuit in a read-only cache folder (a shared cache, a read-only mount) was deleted
    unguarded: the ``OSError`` of that delete was a traceback in ``mapgen solve`` (exit 1) and a 500 in the
    helper. Now it is left there, never read as an answer, and the question is answered as without it."""
    import os
    import pathlib

    cache = C.CircuitCache(tmp_path)
    state = hidden_from(maps.load("training-1"), 10, 0)
    path = cache.store(compiled(state))
    path.write_bytes(path.read_bytes()[:-100])  # truncated
    real_unlink = pathlib.Path.unlink

    def read_only(self, missing_ok=False):
        if self.parent.parent == tmp_path:
            raise OSError(30, os.strerror(30), str(self))
        return real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(pathlib.Path, "unlink", read_only)
    assert cache.load(get_chapter("training"), state) is None and path.exists()
    store = CircuitStore(C.CircuitCache(tmp_path), compiles=False)
    assert Solver(get_chapter("training"), circuits=store).count(state, time_limit=30).count == compiled(state).count(
        state
    )
    monkeypatch.undo()
    # a folder where a circuit file should be: passed over alike
    path.unlink()
    path.mkdir()
    assert cache.load(get_chapter("training"), state) is None


def test_a_full_disk_says_so_and_leaves_no_half_file(tmp_path, monkeypatch):
    """On a full disk ``mapgen compile`` said the circuit was "too large for the cache" (a 2 MB circuit under
    a 2 GB cap): the user would raise ``--cache-size``. Now it names the system's error; no temporary file stays."""
    import errno
    import os

    def full(self, f):
        f.write(b"PK")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(C.Circuit, "write", full)
    cache = C.CircuitCache(tmp_path)
    assert cache.store(compiled(hidden_from(maps.load("training-1"), 10, 0))) is None
    assert cache.not_stored == f"not cached: No space left on device ({tmp_path})"
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []
    r = CliRunner().invoke(main, ["compile", "training-1", "--reveal", "B7,C7", "--cache-dir", str(tmp_path)])
    assert r.exit_code == 0 and "not cached: No space left on device" in r.stdout, r.output
    assert "too large" not in r.stdout
    r = CliRunner().invoke(main, ["compile", "training-1", "--reveal", "B7,C7", "--cache-dir", str(tmp_path), "--json"])
    assert json.loads(r.stdout)["cache"] is None
    assert r.stderr == f"note: training-1: not cached: No space left on device ({tmp_path})\n"


def test_another_encoder_version_is_never_used(tmp_path, monkeypatch):
    cache = C.CircuitCache(tmp_path)
    state = hidden_from(maps.load("training-1"), 10, 0)
    cache.store(compiled(state))
    monkeypatch.setattr(C, "ENCODER_VERSION", "cnf-test")
    assert cache.load(get_chapter("training"), state) is None


def test_the_cache_keeps_to_its_size_least_recently_used_first(tmp_path):
    cache = C.CircuitCache(tmp_path)
    m = maps.load("training-1")
    paths = []
    for seed in range(3):
        paths.append(cache.store(compiled(hidden_from(m, 10, seed))))
    one = paths[0].stat().st_size
    import os

    for k, p in enumerate(paths):  # the first is the oldest
        os.utime(p, (1000 + k, 1000 + k))
    cache.max_bytes = int(2.5 * one)
    cache.evict()
    assert not paths[0].exists() and paths[1].exists() and paths[2].exists()


def test_a_reader_never_opens_a_writers_temporary_file(tmp_path):
    """Issue 40: a reader listing the folder while a writer's ``.tmp-….circuit`` was there raised
    ``ValueError`` (``int('.tmp')``), a 500 in the helper. A thread stores circuits (each write held open
    a moment, as a large one is) while this one lists and loads; foreign names in the folder are passed
    over too, and eviction never deletes a writer's temporary file."""
    import threading
    import time

    chapter = get_chapter("training")
    m = maps.load("training-1")
    circuits = [compiled(hidden_from(m, 10, seed)) for seed in range(3)]
    later = m.hide(range(m.board.size))  # extends none of them: every candidate is looked at
    cache = C.CircuitCache(tmp_path)
    folder = tmp_path / C.briefing_folder(chapter, m.briefing)
    folder.mkdir(parents=True)
    for junk in ("notes.txt", "x-1.circuit", "-abc.circuit", "7.circuit", "12-ZZ.circuit", ".circuit"):
        (folder / junk).write_bytes(b"junk")
    (folder / "5-abcdef.circuit").mkdir()  # a finished file's name on a folder: never read, never evicted
    done = threading.Event()
    errors: list[BaseException] = []

    def slow(write):
        def held(f):
            write(f)
            time.sleep(0.01)  # the temporary file stays a while, complete or not

        return held

    for c in circuits:
        c.write = slow(c.write)  # type: ignore[method-assign]

    def writer():
        try:
            for _ in range(15):
                for c in circuits:
                    if cache.store(c) is None:
                        raise AssertionError("a store failed: its temporary file was taken")
        except BaseException as e:  # noqa: BLE001 - reported by the test below
            errors.append(e)
        finally:
            done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    seen_tmp = False
    try:
        while not done.is_set():
            seen_tmp = seen_tmp or any(p.name.startswith(".tmp-") for p in folder.iterdir())
            names = [p.name for p in cache.candidates(chapter, later)]
            assert all(not n.startswith(".") and n.split("-")[0].isdigit() for n in names)
            assert cache.load(chapter, later) is None
            cache.size()
    finally:
        thread.join()
    assert not errors, errors
    assert seen_tmp  # the race was run: the reader did meet a temporary file
    assert len([p for p in cache.candidates(chapter, later) if p.is_file()]) == len(circuits)
    cache.max_bytes = 0
    cache.evict()
    assert [p.name for p in cache.candidates(chapter, later)] == ["5-abcdef.circuit"]
    assert (folder / "notes.txt").exists() and cache.size() == 0


def test_compile_limits():
    cnf = cnf_for_state(maps.load("fauna-1").hide(range(49)))
    with pytest.raises(C.CompileTimeout):
        C.compile_cnf(cnf, time_limit=0.5)
    with pytest.raises(C.CompileError):
        C.compile_cnf(cnf, time_limit=60, memory_limit=150 << 20)


def _count_in_worker(state_text: str) -> int:
    from mapgen.mapfile import parse_map

    state = parse_map(state_text)
    d, _stats = C.compile_cnf(cnf_for_state(state), time_limit=60)
    return d.count()


def test_a_compile_runs_inside_a_daemonic_pool_worker():
    """playtest's workers (a multiprocessing.Pool: daemonic) compile as the command itself does, so what a bot
    that asks circuits plays does not depend on --jobs; no compiler process is left behind."""
    import multiprocessing

    from mapgen.mapfile import dumps_map

    state = hidden_from(maps.load("training-1"), 12, 4)
    want = count_completions_cnf(state, time_limit=60)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_count_in_worker, (dumps_map(state),)) == want


def test_the_forked_compiler_child_is_killed_and_reaped():
    """The compile's child (os.fork, as in a daemonic worker): killed past its budget, reaped (no zombie), its
    exit code the signal's; a child whose work raised exits 1."""
    import os
    import time

    from mapgen.workers import ForkedChild

    cnf = cnf_for_state(maps.load("fauna-1").hide(range(49)))
    with pytest.raises(C.CompileSpent):
        C.compile_cnf(cnf, time_limit=60, cpu_limit=0.3)
    child = ForkedChild(time.sleep, (30,))
    child.start()
    assert child.is_alive() and child.exitcode is None
    child.kill()
    child.join(5.0)
    assert child.exitcode == -9 and not child.is_alive()
    with pytest.raises(ChildProcessError):  # already reaped
        os.waitpid(child.pid, os.WNOHANG)
    failing = ForkedChild(int, ("not a number",))
    failing.start()
    failing.join()
    assert failing.exitcode == 1


@pytest.mark.slow  # 8 s: compiles and asks several states
def test_solver_answers_from_the_circuit(tmp_path):
    """count, probabilities, forced, possible, uniqueness and samples agree with brute force."""
    m = maps.load("vameter-1")
    state = hidden_from(m, 5, 9)
    brute = [w.cells for w in completions_brute(state)]
    solver = Solver(get_chapter("vameter"), circuits=CircuitStore(C.CircuitCache(tmp_path)))
    result = solver.count(state, time_limit=30)
    assert (result.count, result.exact, result.method) == (len(brute), True, "d-dnnf")
    shares, exact = solver.probabilities(state, time_limit=30)
    assert exact
    for i in state.unrevealed():
        freq = Counter(w[i] for w in brute)
        assert {t: round(p * len(brute)) for t, p in shares[i].items()} == dict(freq)
    assert solver.possible(state) == {i: frozenset(w[i] for w in brute) for i in state.unrevealed()}
    assert solver.is_unique(state) == (len(brute) == 1)
    assert all(w in set(brute) for w in solver.sample(state, 50, seed=1))


def test_mapgen_compile(tmp_path):
    r = CliRunner().invoke(main, ["compile", "training-1", "--cache-dir", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["count"] == 7_108_570 and out["base"] == "briefing" and not out["from_cache"]
    again = json.loads(
        CliRunner().invoke(main, ["compile", "training-1", "--cache-dir", str(tmp_path), "--json"]).stdout
    )
    assert again["from_cache"] and again["count"] == out["count"]
    # the text of a cached circuit does not read as a second compile ("compiled in 0.20 s; already cached")
    text = CliRunner().invoke(main, ["compile", "training-1", "--cache-dir", str(tmp_path)]).stdout
    assert text.rstrip().endswith("s)") and "already in the cache (compiled earlier in " in text
    revealed = CliRunner().invoke(
        main, ["compile", "training-1", "--reveal", "B7,C7", "--cache-dir", str(tmp_path), "--json"]
    )
    state = json.loads(revealed.stdout)  # the state as the table sees it, compiled on its own
    assert revealed.exit_code == 0 and state["revealed"] == 2, revealed.output
    slow = CliRunner().invoke(main, ["compile", "fauna-1", "--cache-dir", str(tmp_path), "--time-limit", "0.5"])
    assert slow.exit_code == 3
    assert slow.stderr.strip().startswith("error: fauna-1: the compile of the briefing (empty board) did not finish")


def test_a_complete_state_and_a_broken_one_need_no_compiler():
    """d4 dies on a formula without clauses: a complete state is decided before it is called."""
    m = maps.load("training-1")
    full = compiled(m)
    assert full.count(m) == 1 and full.sample(m, 2, seed=0) == [m.cells, m.cells]
    broken = m.with_cells((m.cells[1], *m.cells[1:]))
    if get_chapter("training").check(broken):
        assert compiled(broken).count(broken) == 0


def test_the_cache_opens_only_circuits_the_state_extends(tmp_path, monkeypatch):
    """Circuits of other games of the same briefing share its folder: loading reads their bases from the
    small meta.json and opens (and checks) only a circuit whose base the state extends."""
    m = maps.load("training-2")
    cache = C.CircuitCache(tmp_path)
    one = m.hide(range(18))
    others = [m.hide(range(2, 14)), m.hide(range(1, 13))]  # as many revealed (tried first), cell 0 or 1 among them
    for state in (one, *others):
        cache.store(compiled(state))
    opened = []
    real = C.Circuit.from_file
    monkeypatch.setattr(C.Circuit, "from_file", classmethod(lambda cls, p, ch: opened.append(p) or real(p, ch)))
    later = m.hide(range(12))
    got = cache.load(get_chapter("training"), later)
    assert got is not None and got.base.cells == one.cells and len(opened) == 1
    assert got.count(later) == compiled(later).count(later)


def test_a_larger_budget_compiles_from_fewer_reveals(monkeypatch, tmp_path):
    """A question's compile budget sets where it compiles from (``solve.COMPILE_LADDER``): a Maldonado state
    with 14 cells revealed (below ``COMPILE_FROM``'s 16) is compiled by ``mapgen solve`` and answered exactly,
    while a bot's worlds (``fixed``) and a budget below the ladder's seconds still leave it to the counters."""
    from mapgen.solving import solve

    ch = get_chapter("maldonado")
    fixed = solve.COMPILE_FROM["maldonado"]
    ladder = dict(solve.COMPILE_LADDER["maldonado"])
    assert solve.compile_from(ch) == solve.compile_from(ch, 0.0) == fixed
    assert solve.compile_from(ch, 1e9) == min(ladder) < fixed
    assert solve.compile_from(ch, ladder[14]) <= 14 < solve.compile_from(ch, ladder[14] / 2)
    m = maps.load("maldonado-8")
    shown = {
        m.board.index(n) for n in ["C7", "D3", "D4", "D5", "D6", "D7", "E4", "E5", "E6", "E7", "F3", "F4", "F5", "F7"]
    }
    state = m.hide(i for i in range(m.board.size) if i not in shown)
    solver = Solver(ch, circuits=CircuitStore(None))
    assert solver.circuit(state, 30.0, fixed=True) is None
    assert solver.circuit(state, ladder[14] / 2) is None
    got = solver.circuit(state, 30.0)
    assert got is not None and got.count(state) == count_completions_cnf(state, time_limit=60)
    monkeypatch.setenv("MAPGEN_CACHE_DIR", str(tmp_path))
    path = tmp_path / "maldonado-8-fourteen.toml"
    from mapgen.mapfile import write_map

    write_map(state, path)
    result = CliRunner().invoke(main, ["solve", str(path), "--probabilities", "--json", "--time-limit", "30"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    # exact: the compile (beside the counters) or, when the completions are few, their enumeration before it lands
    assert answer["method"] in ("d-dnnf", "enumeration") and answer["exact"] and answer["count"] == got.count(state)


def test_solve_with_probabilities_compiles_beside_the_estimates(slow_clock):
    """``solve --probabilities`` gives the count 0.45 of its time limit, so the count's compile share stays below a
    rung of ``COMPILE_LADDER`` that a plain ``solve`` reaches (Fauna at 3 revealed: it answered with the sampler's
    unconverged odds where ``--time-limit 30`` was exact). The whole question's share compiles beside the count and
    the sampler (``Solver.compile_aside``), and its exact count and odds replace the estimates. The compile's CPU
    budget decides; the wall clock, run 50 times slower here (``slow_clock``), ended it first on a busy machine (a
    time-out, exit 3, with nothing to compare)."""
    from mapgen.report import COUNT_SHARE_WITH_ODDS, solve_report
    from mapgen.solving import solve

    ch = get_chapter("fauna")
    m = maps.load("fauna-5")
    state = m.hide(i for i in range(m.board.size) if m.board.name(i) not in ("A7", "B7", "C7"))
    whole = solve.COMPILE_SHARE * 8.5  # a 10 s solve less its margin for printing
    assert solve.compile_from(ch, whole * COUNT_SHARE_WITH_ODDS) > 3 >= solve.compile_from(ch, whole)
    solver = Solver(ch, circuits=CircuitStore(None))
    out = solve_report(state, probabilities=True, solver=solver, time_limit=10.0)
    exact = compiled(state)
    assert out["method"] == "d-dnnf" and out["exact"] and out["count"] == exact.count(state)
    assert "estimate" not in out and "missing" not in out
    assert out["probabilities_method"] == "exact" and "probabilities_error" not in out
    total, tallies = exact.tallies(state)
    a1 = m.board.index("A1")
    assert out["probabilities"]["A1"] == {t.code: n / total for t, n in tallies[a1].items()}
    assert sum(out["probability_counts"]["A1"].values()) == total


def test_an_aside_compile_past_its_cpu_budget_leaves_the_estimates(monkeypatch):
    """A compile beside the counters starts only below ``COMPILE_FROM`` and where the budget reaches a rung of the
    ladder; one that does not land within its CPU seconds answers nothing (the estimates stand), and the state is
    not compiled again with a budget no larger."""
    from mapgen.solving import solve

    ch = get_chapter("fauna")
    m = maps.load("fauna-2")
    state = m.hide(i for i in range(m.board.size) if m.board.name(i) not in ("A7", "B7", "C7"))
    solver = Solver(ch, circuits=CircuitStore(None))
    rung = min(seconds for _, seconds in solve.COMPILE_LADDER["fauna"])
    soon = time.monotonic() + 60
    assert solver.compile_aside(state, rung / 2, soon) is None  # below every rung
    later = m.hide(i for i in range(m.board.size) if m.board.name(i) not in ("A7", "B7", "C7", "D7", "E7", "F7"))
    assert solver.compile_aside(later, rung, soon) is None  # from COMPILE_FROM on, compiles are quick: inline
    monkeypatch.setitem(solve.COMPILE_LADDER, "fauna", ((3, 0.01),))
    aside = solver.compile_aside(state, 0.05, soon)
    assert aside is not None and aside.wait(soon) is None  # d4 needs seconds here, not 0.05 CPU s
    assert solver.circuits.compile(ch, state, 30.0, cpu_limit=0.05) is None  # remembered: not run again
    assert solver.compile_aside(state, 0.05, soon) is not aside  # the finished one is not reused


def test_an_aside_compile_is_cancelled_once_its_state_is_answered_another_way():
    """A count whose completions are enumerated has every answer the circuit would give: the compile beside it is
    stopped (its child killed) instead of running on for its CPU budget."""

    ch = get_chapter("fauna")
    m = maps.load("fauna-2")
    state = m.hide(i for i in range(m.board.size) if m.board.name(i) not in ("A7", "B7", "C7"))
    solver = Solver(ch, circuits=CircuitStore(None))
    aside = solver.compile_aside(state, 60.0, time.monotonic() + 120)
    assert aside is not None and not aside.done()
    started = time.monotonic()
    aside.cancel()
    assert aside.wait(time.monotonic() + 30) is None and time.monotonic() - started < 5
    assert not aside.timed_out and solver.circuits.find(ch, state) is None


#: The CNF every cached circuit was compiled from, by ``ENCODER_VERSION``: a digest of five states' clauses,
#: terrain literals and projection set (``cnf_digest``).
ENCODINGS = {"cnf-2": "3696a074272b7bb7"}


def cnf_digest() -> str:
    import hashlib

    h = hashlib.sha256()
    for name, shown in (("training-1", 0), ("fauna-1", 5), ("flora-1", 20), ("vameter-1", 20), ("maldonado-1", 16)):
        m = maps.load(name)
        cnf = cnf_for_state(m.hide(range(shown, m.board.size)), get_chapter(m.chapter))
        x = [{t.code: v if type(v) is int else str(v) for t, v in lits.items()} for lits in cnf.x]
        h.update(json.dumps([cnf.nvars, sorted(map(sorted, cnf.clauses)), x, sorted(cnf.sampling)]).encode())
    return h.hexdigest()[:16]


def test_a_changed_encoding_changes_the_encoder_version():
    """The cache key holds ``ENCODER_VERSION``, not the encoding: a change to constraints/cnf.py that shipped without
    a new version would have the users' cached circuits answer, as exact, for the old encoding. Any change to the CNF
    fails here until the version is bumped (old circuits then go unused) and its digest recorded."""
    got = cnf_digest()
    assert ENCODINGS.get(C.ENCODER_VERSION) == got, (
        f"the CNF encoding's digest is {got}, not the one recorded for ENCODER_VERSION {C.ENCODER_VERSION!r}: "
        f"if the encoding changed, bump ENCODER_VERSION in mapgen/solving/compiled.py and record the new digest"
    )


def test_a_dead_writer_s_temporary_file_is_swept_and_a_live_one_s_kept(tmp_path):
    """A writer killed mid-write left its ``.tmp-….circuit`` (up to about 200 MB for a Fauna briefing) for ever,
    outside the cap: eviction now deletes one an hour old, and never a writer's that is younger."""
    import os

    folder = tmp_path / "some-briefing"
    folder.mkdir()
    dead, live = folder / ".tmp-dead.circuit", folder / ".tmp-live.circuit"
    for p in (dead, live):
        p.write_bytes(b"half a circuit")
    old = time.time() - C.TEMPORARY_AGE - 60
    os.utime(dead, (old, old))
    C.CircuitCache(tmp_path).evict()
    assert not dead.exists() and live.exists()


def test_compile_answers_from_a_cache_it_cannot_write_in_when_the_circuit_is_there(tmp_path, monkeypatch):
    """`mapgen compile` on a read-only cache that holds the circuit exited 2 "cannot write in folder" before it
    looked: a cached circuit needs no write (exit 0, as the help says); one to compile still fails before the work."""
    from mapgen.output import OutputError

    assert CliRunner().invoke(main, ["compile", "training-1", "--cache-dir", str(tmp_path)]).exit_code == 0

    def read_only(folder):
        raise OutputError(folder, "cannot write in folder (read-only file system)")

    monkeypatch.setattr("mapgen.output.prepare_folder", read_only)
    r = CliRunner().invoke(main, ["compile", "training-1", "--cache-dir", str(tmp_path), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["from_cache"], r.output
    r = CliRunner().invoke(main, ["compile", "training-1", "--reveal", "B7", "--cache-dir", str(tmp_path)])
    assert r.exit_code == 2 and "cannot write in folder" in r.stderr


def test_compile_says_it_dropped_a_damaged_cached_circuit_and_compiles_it_again(tmp_path):
    """A cached circuit with one byte flipped (or cut short) was dropped and compiled again without a word: the
    user who asked `mapgen compile` for a circuit it had cached saw "compiled in 0.4 s" and no reason. Now a
    note on stderr names the file and what was wrong (a truncated circuit file, a damaged one: its CRC); the
    answer is the fresh compile's, and it is cached again."""
    args = ["compile", "training-1", "--cache-dir", str(tmp_path), "--json"]
    first = json.loads(CliRunner().invoke(main, args).stdout)
    path = tmp_path / first["cache"]
    data = path.read_bytes()
    for damaged in (data[: len(data) // 2], data[:1000] + bytes([data[1000] ^ 0x5A]) + data[1001:]):
        path.write_bytes(damaged)
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 0, r.output
        out = json.loads(r.stdout)
        assert (out["count"], out["from_cache"], out["cache"]) == (7_108_570, False, str(path))
        note = rf"note: training-1: an? [a-z ]*circuit file( \(\w+\))? in the cache, {re.escape(str(path))}: deleted, not used\n"
        assert re.fullmatch(note, r.stderr), r.stderr
        assert path.read_bytes() != damaged
        again = CliRunner().invoke(main, args)
        assert json.loads(again.stdout)["from_cache"] and again.stderr == ""


def test_compile_from_the_cache_names_the_cached_file(tmp_path):
    """`--json` of a circuit found in the cache said `"cache": null`, as for one that could not be stored: where
    the circuit is (and so its size on disk) was said only when it was compiled now."""
    args = ["compile", "training-1", "--cache-dir", str(tmp_path), "--json"]
    made = json.loads(CliRunner().invoke(main, args).stdout)
    again = json.loads(CliRunner().invoke(main, args).stdout)
    assert again["from_cache"] and again["cache"] == made["cache"] and (tmp_path / made["cache"]).is_file()


@pytest.mark.parametrize(
    "how", [["training-1", "--reveal", "none"], [str(DATA.parent.parent / "examples" / "training-start.toml")]]
)
def test_a_state_with_nothing_revealed_is_compiled_as_the_briefing(tmp_path, how):
    """The board before the first reveal (`--reveal none`, or a partial map with no cell revealed) is the briefing:
    the same circuit and cache file as a complete map's briefing. It was reported as "the state as revealed
    (0 cells)", `"base": "state"`."""
    r = CliRunner().invoke(main, ["compile", *how, "--cache-dir", str(tmp_path), "--json"])
    out = json.loads(r.stdout)
    assert (out["base"], out["revealed"]) == ("briefing", 0), r.output
    text = CliRunner().invoke(main, ["compile", *how, "--cache-dir", str(tmp_path)]).stdout
    assert ": the briefing (empty board): " in text and "as revealed" not in text


def test_compile_of_a_state_with_no_completion_exits_1_and_says_why(tmp_path):
    """A state no map completes (two Woods in one row) compiled to "0 maps ... cached", exit 0, where every other
    command exits 1 and names the conflict (`mapgen solve` of the same state). The report still comes (0 maps);
    the error line is solve's."""
    args = ["compile", "training-1", "--reveal", "B3=Wo,B4=Wo", "--cache-dir", str(tmp_path)]
    for extra in ([], ["--json"], []):  # the second run: from the cache
        r = CliRunner().invoke(main, [*args, *extra])
        assert r.exit_code == 1, r.output
        assert r.stderr == (
            "error: training-1: no completion: rule C4 Wood lines conflicts with the revealed cells B3 (Wo), B4 (Wo)\n"
        )
        assert (
            json.loads(r.stdout)["count"] == 0 if extra else ": the state as revealed (2 cells): 0 maps, " in r.stdout
        )
    solved = CliRunner().invoke(main, ["solve", "training-1", "--reveal", "B3=Wo,B4=Wo"])
    assert solved.exit_code == 1 and solved.stderr == r.stderr


def test_compile_keeps_the_cache_to_its_cap_when_the_circuit_was_there(tmp_path):
    """`--cache-size` capped the cache only when a circuit was written: `mapgen compile` of a cached briefing with
    a smaller cap left a cache above it (the only way short of deleting the folder to shrink it). The least recently
    used circuits go; the one asked for, just used, stays."""
    import os

    base = ["--cache-dir", str(tmp_path), "--json"]
    kept = json.loads(CliRunner().invoke(main, ["compile", "training-1", *base]).stdout)["cache"]
    old = time.time() - 3600
    for n in range(3):  # older circuits of another briefing, 6 MB each (their size is all the cap reads)
        p = tmp_path / "0123456789abcdef01234567" / f"{n}-{n:032x}.circuit"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(b"\0" * (6 << 20))
        os.utime(p, (old + n, old + n))
    cache = C.CircuitCache(tmp_path)
    assert cache.size() > 18 << 20
    r = CliRunner().invoke(main, ["compile", "training-1", *base, "--cache-size", "0.01"])  # 10.7 MB
    assert r.exit_code == 0 and json.loads(r.stdout)["from_cache"], r.output
    assert cache.size() <= 0.01 * (1 << 30)
    assert sorted(p.name for p, _ in cache._files()) == sorted(["2-" + "0" * 31 + "2.circuit", os.path.basename(kept)])


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_solve_and_hint_say_when_the_circuit_they_compiled_could_not_be_cached(command, tmp_path, monkeypatch):
    """On a read-only (or full) cache folder `mapgen solve` answered and kept nothing, without a word: every later
    question compiled the same state again, and nothing said why it never got faster. The answer is the same; a
    note on stderr says the circuit was not cached and why, as `mapgen compile` does."""
    import errno
    import os

    from mapgen.solving import solve

    # a hint compiles for the odds of a target where nothing is forced (a forced cell is explained by SAT alone)
    args = [
        command,
        "training-1",
        *(["--reveal", "B7,C7"] if command == "solve" else ["--reveal", "none", "--target", "Wo"]),
    ]
    args.append("--json")
    monkeypatch.setattr(solve.Solver._shared, "solvers", {}, raising=False)  # no solver holding another store
    monkeypatch.setattr(solve, "_DEFAULT_STORE", solve.CircuitStore(C.CircuitCache(tmp_path / "ok")))
    fine = CliRunner().invoke(main, args)
    assert fine.exit_code == 0 and "not cached" not in fine.stderr, fine.output

    (tmp_path / "file").write_text("a file where the cache folder's parent should be")  # root writes read-only folders
    unwritable = tmp_path / "file" / "cache"
    monkeypatch.setattr(solve.Solver._shared, "solvers", {})
    monkeypatch.setattr(solve, "_DEFAULT_STORE", solve.CircuitStore(C.CircuitCache(unwritable)))
    r = CliRunner().invoke(main, args)
    got, want = json.loads(r.stdout), json.loads(fine.stdout)
    assert r.exit_code == 0 and {**got, "seconds": 0} == {**want, "seconds": 0}, r.output
    note = f"note: training-1: the compiled circuit was not cached: {os.strerror(errno.ENOTDIR)} ({unwritable})\n"
    assert r.stderr.endswith(note) and r.stderr.count("note:") == 1, r.stderr


def test_compile_of_a_state_never_opens_a_cached_circuit_it_would_not_use(tmp_path, monkeypatch):
    """`compile --reveal` wants the state's own circuit: it read (and checked) the cached briefing's, often the
    largest file of the cache, only to find it is not that one and compile the state all the same."""
    base = ["--cache-dir", str(tmp_path), "--json"]
    briefing = json.loads(CliRunner().invoke(main, ["compile", "training-1", *base]).stdout)["cache"]
    from mapgen.solving.compiled import Circuit

    opened: list[str] = []
    real = Circuit.from_file.__func__

    def spy(cls, path, *args, **kwargs):
        opened.append(str(path))
        return real(cls, path, *args, **kwargs)

    monkeypatch.setattr(Circuit, "from_file", classmethod(spy))
    state = json.loads(CliRunner().invoke(main, ["compile", "training-1", "--reveal", "B7,C7", *base]).stdout)
    assert not state["from_cache"] and opened == []
    again = json.loads(CliRunner().invoke(main, ["compile", "training-1", "--reveal", "B7,C7", *base]).stdout)
    assert again["from_cache"] and opened == [again["cache"]] and briefing not in opened
