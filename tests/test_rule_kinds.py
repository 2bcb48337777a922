"""A rule kind is one home: its class (with ``check`` and its traits) in constraints/rules.py, and one entry in each
encoder's table: CP-SAT (``cpsat._POSTERS``), CNF (``cnf.encode_rule``), CSP (``csp.post_csp``) and the heuristic's
local reading (``engine/bots/local_rules.READINGS``). These tests prove the tables complete for every kind of
``KINDS``, and follow ARCHITECTURE.md's "Adding a rule kind" once with a toy kind."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from typing import ClassVar

import pytest

import maps
from constraints import cpsat
from constraints.catalogue import CHAPTER_DIR, chapter_from_data, check_map, get_chapter
from constraints.cnf import Cnf, count_completions_cnf, encode_rule
from constraints.csp import CspModel, count_completions_csp, post_csp
from constraints.rules import KINDS, Rule, View
from mapgen.board import Board
from mapgen.engine.bots.local_rules import READINGS, LocalRules
from mapgen.generate import Generator
from mapgen.solving.bruteforce import count_completions_brute
from mapgen.terrain import Terrain
from tests.conftest import DATA

SHIPPED = sorted(KINDS.values(), key=lambda k: k.kind)


@pytest.mark.parametrize("kind", SHIPPED, ids=lambda k: k.kind)
def test_every_kind_is_in_every_encoder_s_table(kind):
    assert kind.check is not Rule.check, "a kind checks maps itself (plain Python, the reference)"
    assert kind in cpsat._POSTERS
    assert kind in encode_rule.registry
    assert kind in post_csp.registry
    assert kind.kind in READINGS


@pytest.mark.parametrize("kind", SHIPPED, ids=lambda k: k.kind)
def test_every_kind_has_a_counting_case(kind):
    """tests/data/count_cases.json: a state whose count changes with the kind (test_cnf.py, test_csp.py)."""
    cases = json.loads((DATA / "count_cases.json").read_text(encoding="utf-8"))["cases"]
    assert kind.__name__ in {c["kind"] for c in cases}


def test_the_readings_are_the_kinds():
    assert set(READINGS) == set(KINDS)


def test_traits_are_declared_on_the_kinds():
    assert {k.kind for k in KINDS.values() if k.one_cell} == {"terrain_set", "not_on_edge", "briefing_cell", "ring"}
    assert {k.kind for k in KINDS.values() if k.reads_briefing} == {"briefing_cell", "pattern"}
    assert KINDS["briefing_cell"].briefing_fields == ("peak", "start", "greek_fire")


# --- the guide, followed once: a toy kind "no TERRAIN in a corner" ------------------------------------------


def _corners(board: Board) -> list[int]:
    return [board.rows[r][c] for r in (0, -1) for c in (0, -1)]


# 1. the class: settings as fields, check, traits
@dataclass(frozen=True)
class NotInCorner(Rule):
    """No ``terrain`` on the board's four corner cells."""

    terrain: Terrain = Terrain.FOOD
    kind: ClassVar[str] = "not_in_corner"
    one_cell: ClassVar[bool] = True

    def check(self, view: View):
        corners = _corners(view.board)
        return [
            self.violation(view, [i], f"the {self.terrain.label} at {view.board.name(i)} is in a corner")
            for i in view.where.get(self.terrain, ())
            if i in corners
        ]

    def rules_out(self, board: Board, i: int, t: Terrain) -> bool:
        return t is self.terrain and i in _corners(board)


# 2. its encodings, one per encoder
def _post_not_in_corner(cm: cpsat.ChapterModel, rule: NotInCorner) -> None:
    cm.forbid(rule.label, [cm.lit(i, rule.terrain) for i in _corners(cm.board)])


def _encode_not_in_corner(rule: NotInCorner, cnf: Cnf) -> None:
    for i in _corners(cnf.state.board):
        cnf.fix(i, rule.terrain, False, rule)


def _csp_not_in_corner(rule: NotInCorner, model: CspModel) -> None:
    for i in _corners(model.state.board):
        model.restrict(i, lambda t: t is not rule.terrain, rule)


def _read_not_in_corner(lr: LocalRules, r: NotInCorner, board, present, pairs, briefing) -> None:
    for i in _corners(board):
        lr.zero[i].append(r.terrain.index)


@pytest.fixture
def toy_kind(monkeypatch):
    """3. its registration: KINDS and each encoder's table."""
    monkeypatch.setitem(KINDS, NotInCorner.kind, NotInCorner)
    monkeypatch.setitem(cpsat._POSTERS, NotInCorner, _post_not_in_corner)
    monkeypatch.setitem(READINGS, NotInCorner.kind, _read_not_in_corner)
    encode_rule.register(NotInCorner, _encode_not_in_corner)  # singledispatch: no unregister; the class is the test's
    post_csp.register(NotInCorner, _csp_not_in_corner)
    return NotInCorner


@pytest.fixture
def house(toy_kind):
    """Training with a house rule of the toy kind, written as a chapter file would write it."""
    data = tomllib.loads((CHAPTER_DIR / "training.toml").read_text(encoding="utf-8"))
    rule = {
        "id": "H1",
        "title": "No corner Food",
        "text": "No Food in a corner.",
        "checks": [{"kind": "not_in_corner"}],
    }
    data.setdefault("rule", []).append(rule)
    return chapter_from_data(data)


def test_the_toy_kind_is_complete_like_the_shipped_ones(toy_kind):
    test_every_kind_is_in_every_encoder_s_table(toy_kind)


def test_the_toy_kind_checks_maps(house):
    m = maps.load("training-1")
    broken = [v for v in check_map(m, house) if v.rule == "H1"]
    corners = {m.board.name(i) for i in _corners(m.board) if m.cells[i] is Terrain.FOOD}
    assert corners and {v.cells[0] for v in broken} == corners
    assert not [v for v in check_map(m, get_chapter("training")) if v.rule == "H1"]


def test_cp_sat_generates_maps_that_keep_the_toy_rule(house):
    for seed in range(3):
        m = Generator(house).generate(seed).map
        assert check_map(m, house) == []
        assert all(m.cells[i] is not Terrain.FOOD for i in _corners(m.board))


def test_the_counters_agree_with_the_toy_rule_and_it_counts(house):
    m = maps.load("training-1")
    state = m.hide([*_corners(m.board), m.board.index("D5"), m.board.index("C4")])
    counts = {
        "cnf": count_completions_cnf(state, chapter=house),
        "csp": count_completions_csp(state, chapter=house),
        "brute": count_completions_brute(state, chapter=house),
    }
    assert len(set(counts.values())) == 1, counts
    assert counts["cnf"] < count_completions_brute(state, chapter=get_chapter("training"))


def test_the_heuristic_reads_the_toy_rule(house):
    m = maps.load("training-1")
    lr = LocalRules(house.rules, m.board, m.briefing, house.terrains)
    assert all(Terrain.FOOD.index in lr.zero[i] for i in _corners(m.board))
    plain = LocalRules(get_chapter("training").rules, m.board, m.briefing, house.terrains)
    assert not any(Terrain.FOOD.index in plain.zero[i] for i in _corners(m.board))


def test_a_kind_without_a_local_reading_is_refused(house, monkeypatch):
    monkeypatch.delitem(READINGS, NotInCorner.kind)
    m = maps.load("training-1")
    with pytest.raises(ValueError, match="no local reading of rule kind 'not_in_corner'"):
        LocalRules(house.rules, m.board, m.briefing, house.terrains)


def test_the_cp_sat_model_refuses_a_kind_without_a_poster(house, monkeypatch):
    monkeypatch.delitem(cpsat._POSTERS, NotInCorner)
    with pytest.raises(TypeError, match="no CP-SAT compilation for rule kind NotInCorner"):
        cpsat.ChapterModel(house, None)
