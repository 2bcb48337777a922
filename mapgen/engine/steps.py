"""The agenda's step kinds as named values: the core rules' ``Step``, and ``StepKind``, the base of a chapter's own."""

from __future__ import annotations

from enum import StrEnum
from types import SimpleNamespace


class StepKind(StrEnum):
    """A kind of agenda step: the first item of a step tuple (``Step``), or the second of a ``("chapter", ...)`` or
    ``("chance_chapter", ...)`` step (a chapter's own subclass: ``FloraStep``, ``VameterStep``, ...).

    A member is its word as a ``str`` (equal to it, hashed like it, written by ``json`` and ``format`` as it), so
    replays, observation strings and their digests are the same words as ever; but a misspelt member is an
    ``AttributeError`` (and a mypy error) where a misspelt string was a branch never taken. ``repr`` is the
    word's too (``'main'``, not ``<Step.MAIN: 'main'>``): observation strings print steps with ``repr``.
    """

    __repr__ = str.__repr__


class Step(StepKind):
    """The core rules' step kinds (``mapgen/engine/game.py`` names the room function of each)."""

    # automatic steps
    EXPLORE = "explore"
    ACTIVATE = "activate"
    EFFECT = "effect"
    GAIN_SAMPLE = "gain_sample"
    CHECK_CHALLENGE = "check_challenge"
    RESOLVED = "resolved"
    AFTER_RESOLVE = "after_resolve"
    END_OF_DAY = "end_of_day"
    NIGHT = "night"
    DEAL_DAY = "deal_day"
    NEXT_TURN = "next_turn"
    # decisions
    MAIN = "main"
    PAY = "pay"
    GAIN = "gain"
    TRADE = "trade"
    BACKTRACK = "backtrack"
    DESTINY_PICK = "destiny_pick"
    RESOLVE = "resolve"
    FATIGUE = "fatigue"
    LIMITS = "limits"
    THREAT_DISCARD = "threat_discard"
    CHAPTER = "chapter"  # a chapter's decision (or automatic step): ("chapter", ChapterKind, ...)
    # chance steps
    CHANCE_CHALLENGE = "chance_challenge"
    CHANCE_THREAT = "chance_threat"
    CHANCE_DESTINY = "chance_destiny"
    CHANCE_HELD = "chance_held"
    CHANCE_CHAPTER = "chance_chapter"  # a chapter's draw: ("chance_chapter", ChapterKind, ...)


class ThreatDraw(StepKind):
    """When a ``("chance_threat", when, cell)`` step draws a Threat card (a Monster's placement depends on it)."""

    DAY = "day"  # a Threat icon on the Path just explored (cell), or a card's "reveal 1 threat"
    NIGHT = "night"
    ROW = "row"  # a row reward


class Payment(StepKind):
    """What a ``("pay", n, what)`` step may discard: Resources only, or Water too."""

    ANY = "any"
    ANY_WATER = "any_water"


#: the members of ``Step``, ``ThreatDraw`` and ``Payment`` as plain attributes, for code run at every step
#: (``S = STEP``, then ``kind == S.MAIN``): the same objects as ``Step.MAIN``, without Python 3.11's
#: ``EnumType.__getattr__`` hook, which makes each read of a member off its Enum class cost about three times
#: an attribute's (as ``rules.TERRAIN`` for ``Terrain``)
STEP = SimpleNamespace(**Step.__members__)
THREAT_DRAW = SimpleNamespace(**ThreatDraw.__members__)
PAYMENT = SimpleNamespace(**Payment.__members__)
