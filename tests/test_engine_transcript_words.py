"""The words of a game's transcript (``mapgen playtest --show``): each action and each card drawn named as the
rulebooks name them, so a player can follow a game turn by turn."""

from __future__ import annotations

import re

import maps
from mapgen.engine import actions as A
from mapgen.engine.game import CHANCE_PLAYER, Game


def start(name: str, **kw):
    """A new game of a shipped map, before its first card is drawn."""
    return Game(maps.load(name), **kw).new_initial_state()


def draw_words(state) -> list[str]:
    """The words of every card drawn until the first decision, each drawn lowest first."""
    out = []
    while state.current_player() == CHANCE_PLAYER:
        a = A.CHANCE + min(state._chance_pile())
        out.append(state.action_to_string(a))
        state.apply_action(a)
    return out


def test_a_challenge_card_drawn_is_named():
    """Setup N: "Place 1 Challenge Card from the deck face up in each of the remaining two empty spaces in the
    Challenge Row." The transcript read "chance outcome 9": it names the card drawn."""
    s = start("training-1")
    words = draw_words(s)
    names = [s.game.challenges[c].name for c, _, _ in s.row[1:]]
    assert words == [f"draw Challenge card: {n}" for n in names]


def test_destiny_cards_turned_up_are_named():
    """Setup K: "draw 2 cards and place them face up to the right of the Supply Board"."""
    s = start("fauna-2")
    words = draw_words(s)
    face = [s.game.destiny[k].name for k in s.de_face]
    assert words[:2] == [f"turn up Destiny card: {n}" for n in face]


def test_chapter_draws_are_named():
    """Flora Extra Setup 3: "Shuffle and deal 3 face up Search Cards in a row below the Map Board"."""
    s = start("flora-3")
    words = draw_words(s)
    trail = [s.game.chapter.search[k].name for k in s.data["trail"]]
    assert words[-3:] == [f"deal Search card: {n}" for n in trail]
    assert not any(w.startswith("chance outcome") for w in words)


def test_maldonado_face_down_cards_stay_unnamed():
    """Co-op Set-up: "Place 1 card face down on top of each Crew Member Card without looking at them": the
    transcript says where a hidden card goes, never which card it is."""
    s = start("maldonado-3")
    words = draw_words(s)
    assert not any(w.startswith("chance outcome") for w in words)
    crew = s.game.chapter.crew
    assert "remove an Influence card from the game unseen" in words
    assert any(w == f"an Influence card face down on {c.name}" for c in crew for w in words)
    assert not any(re.search(r"[+-]\d/-\d", w) for w in words)  # no Influence card's values
