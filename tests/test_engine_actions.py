"""The action table: every action number has one kind that describes it, and a chapter adds actions as kinds."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind, ActionTable, words
from mapgen.engine.cards import FOOD
from mapgen.engine.chapters import Fauna
from mapgen.engine.game import CORE_ACTIONS, Game
from mapgen.engine.traitor import chapter_for_mode
from mapgen.mapfile import read_map

DATA = Path(__file__).parent / "data"
MAPS = [
    ("engine_training_201", None),
    ("engine_fauna_201", None),
    ("engine6_flora_201", None),
    ("engine6_vameter_201", None),
    ("engine6_maldonado_201", None),
    ("engine6_maldonado_201", "traitor"),
]


def random_decisions(game: Game, seeds: int):
    """(seed, state) at every decision of random games, one a seed (chance outcomes and actions drawn at
    random); the game moves on by a random legal action once the caller has looked."""
    for seed in range(seeds):
        rng = random.Random(seed)
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice(s.chance_outcomes())[0])
                continue
            yield seed, s
            s.apply_action(rng.choice(s.legal_actions()))


@pytest.mark.parametrize(("name", "mode"), MAPS)
def test_every_legal_action_has_a_kind_and_words(name, mode):
    m = read_map(DATA / f"{name}.toml")
    game = Game(m, chapter=chapter_for_mode(m.chapter, mode), players=2 if mode else 1)
    table = game.action_table
    for _seed, s in random_decisions(game, 5):
        for a in s.legal_actions():
            kind = table.kind(a)
            assert kind is not None, f"{a} has no kind"
            assert kind.lo <= a < kind.hi
            assert not s.action_to_string(a).startswith("chapter action")
            if s.agenda[-1][0] == "main":  # the main step plays its actions through the table
                assert kind.legal is not None and kind.apply is not None


def test_core_words_without_a_state():
    assert A.describe(A.END_TURN) == "end turn"
    assert A.describe(A.FIRE + 2) == "build Fire (Flint, Wo)"
    assert A.describe(A.SHELTER + 1) == "build Shelter (Wo+Sk)"
    assert A.describe(A.EXPLORE + 12) == "explore 12"
    assert A.describe(A.CHANCE + 3) == "chance outcome 3"
    assert A.describe(A.CHAPTER + 5) == "chapter action 605"


def test_overlapping_kinds_are_refused():
    with pytest.raises(ValueError, match="overlap"):
        ActionTable([*CORE_ACTIONS, ActionKind(A.END_TURN, A.END_TURN + 1, words("again"))])
    with pytest.raises(ValueError, match="outside"):
        ActionTable([ActionKind(A.CHANCE, A.CHANCE + 1, words("a card"))])


class Forage(Fauna):
    """Fauna with one more free action, added as the README's recipe says: once a day, take a Food."""

    FORAGE = A.CHAPTER + 7

    def actions(self) -> list[ActionKind]:
        return [*super().actions(), ActionKind(self.FORAGE, self.FORAGE + 1, words("forage"), self._legal, self._apply)]

    def _legal(self, state, out):
        if "forage" not in state.exhausted:
            out.append(self.FORAGE)

    def _apply(self, state, a):
        state.exhausted.add("forage")
        state.gain(FOOD)


def test_a_chapter_adds_a_free_action_as_a_kind():
    m = read_map(DATA / "engine_fauna_201.toml")
    s = Game(m, chapter=Forage()).new_initial_state()
    while s.is_chance_node():  # the first deal
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.agenda[-1][0] == "main"
    assert Forage.FORAGE in s.legal_actions()
    assert s.action_to_string(Forage.FORAGE) == "forage"
    food = s.pack[FOOD]
    s.apply_action(Forage.FORAGE)
    assert s.pack[FOOD] == food + 1
    assert Forage.FORAGE not in s.legal_actions()  # once a day: the day's refresh clears it
    kill = s.game.action_table.kind(A.KILL)  # the parent's kinds are kept (Fauna's Kill Minotaur cards)
    assert kill is not None and kill.apply is not None
