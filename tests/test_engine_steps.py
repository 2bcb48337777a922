"""The agenda's step kinds are enums (``mapgen/engine/steps.py``) that read as their words."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import pytest

from mapgen.engine.bots import make_bot
from mapgen.engine.game import APPLY, CHANCE, CHANCE_PLAYER, LEGAL, NEEDED, RUN, Game
from mapgen.engine.observation import observe
from mapgen.engine.steps import Payment, Step, StepKind, ThreatDraw
from mapgen.engine.traitor import chapter_for_mode
from mapgen.mapfile import read_map

DATA = Path(__file__).parent / "data"
MAPS = [
    ("engine_training_201", None, 1),
    ("engine_fauna_201", None, 2),
    ("engine6_flora_201", None, 1),
    ("engine6_vameter_201", None, 2),
    ("engine6_maldonado_201", None, 1),
    ("engine6_maldonado_201", "traitor", 3),
]


def test_every_core_step_has_its_tables():
    assert set(RUN).isdisjoint(LEGAL) and set(RUN).isdisjoint(CHANCE) and set(LEGAL).isdisjoint(CHANCE)
    assert set(RUN) | set(LEGAL) | set(CHANCE) == set(Step)
    assert set(APPLY) == set(LEGAL) and set(NEEDED) <= set(LEGAL)
    assert all(type(k) is Step for table in (RUN, LEGAL, APPLY, NEEDED, CHANCE) for k in table)


def test_a_step_kind_reads_as_its_word():
    step = (Step.PAY, 2, Payment.ANY_WATER)
    assert step == ("pay", 2, "any_water") and hash(Step.PAY) == hash("pay")
    assert repr(step) == "('pay', 2, 'any_water')" and f"{Step.CHANCE_THREAT}" == "chance_threat"
    assert json.dumps([Step.MAIN, ThreatDraw.NIGHT]) == '["main", "night"]'
    assert pickle.loads(pickle.dumps(step)) == step and pickle.loads(pickle.dumps(Step.MAIN)) is Step.MAIN
    with pytest.raises(AttributeError):
        _ = Step.MIAN  # a misspelt kind is an error, not a branch never taken


@pytest.mark.parametrize(("name", "mode", "players"), MAPS)
def test_every_step_pushed_is_typed(name, mode, players):
    m = read_map(DATA / f"{name}.toml")
    for seed in range(3):
        state = Game(m, chapter=chapter_for_mode(m.chapter, mode), players=players, seed=seed).new_initial_state()
        bots = [make_bot("heuristic", random.Random(seed * 8 + p + 1)) for p in range(players)]
        rng = random.Random(seed)
        while state.outcome is None:
            for step in state.agenda:
                assert type(step[0]) is Step, step
                if step[0] in (Step.CHAPTER, Step.CHANCE_CHAPTER):
                    assert isinstance(step[1], StepKind) and type(step[1]) is not Step, step
                if step[0] == Step.CHANCE_THREAT:
                    assert type(step[1]) is ThreatDraw, step
                if step[0] == Step.PAY:
                    assert type(step[2]) is Payment, step
            p = state.current_player()
            if p == CHANCE_PLAYER:
                pile = state._chance_pile()
                state.apply_action(1000 + pile[rng.randrange(len(pile))])
            else:
                state.apply_action(bots[p].step(observe(state, p)))
