"""The words of a game's transcript (``mapgen playtest --show``): each action and each card drawn named as the
rulebooks name them, so a player can follow a game turn by turn."""

from __future__ import annotations

import re

import maps
from mapgen.engine import actions as A
from mapgen.engine.game import CHANCE_PLAYER, Game
from mapgen.engine.maldonado import KILL_M


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


def test_a_kill_names_the_minotaur_path_and_the_kill_card():
    """Fauna, Kill a Minotaur: "You can kill a revealed Minotaur by discarding all of the Resources listed on any
    revealed Kill Minotaur Card." The transcript read "kill Minotaur 0 with Kill card 0"."""
    s = start("training-1")
    draw_words(s)
    s.pack = list(s.pack)
    for r, n in enumerate(s.game.kills[s.data["kill_face"][0]].requires):
        s.pack[r] += n
    s._legal = None
    kill = next(a for a in s.legal_actions() if A.KILL <= a < A.GUESS)
    assert s.action_to_string(kill) == "kill the Minotaur on D4 with Kill Minotaur card: Make Ammo"


def test_a_destiny_pick_and_a_row_rewards_threat_discard_name_their_cards():
    """Exploration Reward: "you choose one of the face up Destiny Cards ... You can also draw the top card of the
    Destiny Deck instead"; Fauna's row reward: "you MAY discard any 1 revealed Threat Card in play". The
    transcript read "take face-up Destiny 1" and "row reward: discard Threat 1"."""
    s = start("fauna-2")
    draw_words(s)
    first, second = (s.game.destiny[k].name for k in s.de_face)
    assert s.action_to_string(A.DESTINY_PICK) == f"take face-up Destiny card: {first}"
    assert s.action_to_string(A.DESTINY_PICK + 1) == f"take face-up Destiny card: {second}"
    assert s.action_to_string(A.DESTINY_PICK + 2) == "draw the top Destiny card"
    injured = next(k for k, t in enumerate(s.game.threats) if t.name == "Injured")
    s.threats.append(injured)
    assert s.action_to_string(A.THREAT_DISCARD) == "row reward: discard Threat card: Injured"


def test_a_maldonado_kill_names_the_monster_path_and_the_kill_card():
    """Maldonado: "To kill a Monster, resolve a Kill Monster Card by discarding any 2 different Resources or Items
    it shows on the card." The transcript read "kill Monster 1 with Kill Monster card 1"."""
    s = start("maldonado-3")
    draw_words(s)
    s.data["kill_face"].append(0)
    vipera = next(k for k, t in enumerate(s.game.threats) if t.name.startswith("Vipera"))
    s.monsters[s.game.board.index("C7")] = vipera
    words = s.action_to_string(KILL_M)  # Kill Monster card 1 on Monster 1
    assert words == f"kill the Monster on C7 with Kill Monster card: {s.game.kills[0].name}"


def test_destiny_cards_under_chased_are_shown():
    """Skull Terrain Found, B: "If the Chased Threat Card is revealed, place any gained Destiny Cards in your Supply
    under the Chased card ... You can reclaim Destiny Cards and use them again after you Kill a Monster". The
    state's words read "Destiny: held none" and the card vanished from the transcript until the kill."""
    s = start("fauna-2")
    draw_words(s)
    card = s.de_pile.pop()
    s.chased, s.chased_pile = True, [card]
    assert f"under Chased: {s.game.destiny[card].name}" in str(s)


def test_a_sealed_game_says_why():
    """A game no Path can be explored in for a whole round ends "sealed" (a house rule: the rulebooks are silent).
    The transcript's last line read "Game over: sealed": it now says why, as the playtest report does."""
    s = start("fauna-2")
    draw_words(s)
    c7 = s.game.board.index("C7")
    s.apply_action(A.EXPLORE + c7)
    minotaur = next(k for k, t in enumerate(s.game.threats) if t.name.startswith("Minotaur"))
    s.monsters[c7] = minotaur  # the only explored Path, under a Monster: nothing can be explored from it
    for _ in range(50):  # the turn's other decisions (a Tipi's trade, ...) skipped, then turns ended
        s._legal = None
        if s.is_terminal():
            break
        if s.current_player() == CHANCE_PLAYER:
            s.apply_action(A.CHANCE + min(s._chance_pile()))
            continue
        legal = s.legal_actions()
        s.apply_action(A.END_TURN if A.END_TURN in legal else A.SKIP if A.SKIP in legal else legal[0])
    assert s.outcome == "sealed"
    last = str(s).splitlines()[-1]
    assert last.startswith("Game over: sealed (no Path could be explored for a whole round: walled in by ")


def test_resources_york_placed_on_a_challenge_card_are_named():
    """York: "When you find a Resource that's needed for any of today's challenges, place it on the Challenge Card
    instead of in your Backpack." The Challenge Row read "holds [9, 2]" (the engine's numbers for Water and Mud)."""
    from mapgen.engine.cards import MUD, WATER

    s = start("fauna-2", characters=("York",))
    draw_words(s)
    s.row[0][2] = [WATER, MUD]
    line = next(x for x in str(s).splitlines() if x.startswith("Challenges: "))
    assert "holds Wa Mu" in line and "holds [" not in line


def test_the_decision_waited_on_is_said_in_the_rulebooks_words():
    """The state's last line read "Waiting on: chance_challenge", "Waiting on: limits": the engine's step names.
    It now says what the players do, as the rulebook calls it (the step's name kept in brackets)."""
    s = start("training-1")
    assert str(s).splitlines()[-1] == "Waiting on: a Challenge card drawn (chance_challenge)"
    draw_words(s)
    assert str(s).splitlines()[-1] == "Waiting on: player 1 (Lewis): Explore a Path or take a Free Action (main)"
    s.agenda.append(("limits",))
    assert str(s).splitlines()[-1] == ("Waiting on: end of turn: discard down to 6 Resources and 10 Water (limits)")
