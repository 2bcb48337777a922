"""Action numbers and the action table: every move is one int (OpenSpiel style), one ``ActionKind`` per range.

An ``ActionKind`` declares a range of action numbers and how to ``describe`` them; a kind played at
the main step (a free action, an explore, ending the turn) also says when it is ``legal`` and how to
``apply`` it. Answers to other steps (Pass, Fail, a trade, a chapter's decision) are described
here and answered by their step. The ``ActionTable`` of a game holds the core kinds and the
chapter's own (``Chapter.actions()``); ``describe(action, state)`` goes through it for every action.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

EXPLORE = 0  # + cell index (< 64)
DISCARD = 64  # + resource: a free discard, or the resource paid when a choice asks for one
GAIN = 80  # + resource: the resource taken when a choice offers any
TRADE = 100  # + give * 10 + take (Tipi)
FIRE = 200  # + 0: 2 Wood, 1: 2 Rock, 2: Flint and 1 Wood, 3: Flint and 1 Rock
SHELTER = 210  # + 0: Wood and Mud, 1: Wood and Skull, 2: Mud and Skull
CURE_INJURED = 220  # pay 1 Mud to discard Injured
DROP_SAMPLE = 230  # + resource paid to discard 1 Sample token
USE_DESTINY = 240  # + index into the held Destiny cards
KILL = 260  # + kill-card slot * 8 + monster slot
GUESS = 330  # + gear (0 Compass, 1 Tracking Guide) * 20 + terrain index
LEWIS = 380
COLLINS = 381
BOX_OF_GOODS = 382
MORTAR = 383
SATCHEL = 384
JAR_STORE = 390  # + resource
JAR_TAKE = 400
MEDICINE = 410  # + player * 8 + slot (0 the character, 1.. the gear)
CLARK = 450  # + own gear slot * 10 + reserve gear kind
BACKTRACK = 530
ACTIVATE = 531
END_TURN = 532
PASS = 533
FAIL = 534
SKIP = 535
FATIGUE_WATER = 536
DESTINY_PICK = 540  # + 0/1 a face-up card, 2 the top of the deck
THREAT_DISCARD = 550  # + index into the Threat cards in play
CHAPTER = 600  # chapter plug-ins own 600..999
CHANCE = 1000  # + card index in the deck being drawn from

GEAR_KINDS = ("Box of Goods", "Compass", "Flint", "Jar", "Mortar and Pestle", "Satchel", "Tracking Guide", "Medicine")
CHARACTERS = ("Clark", "Collins", "Lewis", "York")
GUESS_GEAR = ("Compass", "Tracking Guide")
SHELTER_PAIRS = ((1, 2), (1, 4), (2, 4))  # Wood+Mud, Wood+Skull, Mud+Skull


@dataclass(frozen=True, slots=True)
class ActionKind:
    """One range of action numbers, ``lo`` to ``hi`` (exclusive), and what the engine does with it.

    - ``describe(action, state)``: words for logs and replays (``state`` may be None for core kinds);
    - ``legal(state, out)``: at the main step, append this kind's legal actions to ``out``
      (``out`` already holds those of the kinds with lower numbers); None for answers to other steps;
    - ``apply(state, action)``: play one of them (the main step stays on the agenda unless it pops it);
    - ``needs``: names of characters or Gear; when given, the kind is offered only in games where
      a player is one of those characters or may hold one of those Gear (a speed filter, not a rule).
    """

    lo: int
    hi: int
    describe: Callable[..., str]
    legal: Callable[..., None] | None = None
    apply: Callable[..., None] | None = None
    needs: tuple[str, ...] = ()


class ActionTable:
    """Every action kind of one game, looked up by number; the main step's legal actions and effects."""

    def __init__(self, kinds):
        self.kinds = tuple(sorted(kinds, key=lambda k: k.lo))
        for k, kind in enumerate(self.kinds):
            if not 0 <= kind.lo < kind.hi <= CHANCE:
                raise ValueError(f"action kind {kind.lo}..{kind.hi} lies outside 0..{CHANCE}")
            if k and self.kinds[k - 1].hi > kind.lo:
                raise ValueError(f"action kinds {self.kinds[k - 1].lo}.. and {kind.lo}.. overlap")
        self._los = [kind.lo for kind in self.kinds]
        # each action number's ``apply`` (None where no main-step kind is): apply() indexes it, no bisection
        self._applies: list[Callable[..., None] | None] = [None] * CHANCE
        for kind in self.kinds:
            if kind.apply is not None:
                self._applies[kind.lo : kind.hi] = [kind.apply] * (kind.hi - kind.lo)

    def kind(self, action: int) -> ActionKind | None:
        """The kind an action number belongs to (None for a chance outcome or an unused number)."""
        i = bisect_right(self._los, action) - 1
        if i < 0:
            return None
        kind = self.kinds[i]
        return kind if action < kind.hi else None

    def main_legal(self, present=None) -> tuple:
        """The ``legal`` functions of the main-step kinds, in number order; with ``present`` (the names of
        the game's characters and of the Gear its players may hold), only the kinds that can come up."""
        return tuple(
            k.legal
            for k in self.kinds
            if k.legal is not None and (present is None or not k.needs or any(n in present for n in k.needs))
        )

    def apply(self, state, action: int) -> None:
        """Play a main-step action (already checked legal)."""
        apply = self._applies[action]
        if apply is None:
            raise ValueError(f"{action} is no main-step action")
        apply(state, action)

    def describe(self, action: int, state=None) -> str:
        if action >= CHANCE:
            said = state.describe_draw(action - CHANCE) if state is not None else None
            return said or f"chance outcome {action - CHANCE}"
        kind = self.kind(action)
        if kind is None:
            return f"chapter action {action}"
        return kind.describe(action, state)


def describe(a: int, state=None) -> str:
    """Words for an action number; with a state, through its game's table (cells, cards and chapter actions named)."""
    if state is not None:
        return state.game.action_table.describe(a, state)
    if _core_table is None:
        raise RuntimeError("no action table: import mapgen.engine.game (it hands over the core rules' table)")
    return _core_table().describe(a)


#: the core rules' action table, for words without a game at hand; set by mapgen.engine.game, which assembles
#: it from the rooms' action kinds (this module sits below them all)
_core_table: Callable[[], ActionTable] | None = None


def use_core_table(table: Callable[[], ActionTable]) -> None:
    global _core_table
    _core_table = table


def words(text: str) -> Callable[..., str]:
    """A ``describe`` for a kind whose actions all read the same (``words("end turn")``)."""
    return lambda action, state=None: text


SKIP_KIND = ActionKind(SKIP, SKIP + 1, words("skip"))  # the answer that declines an optional step
