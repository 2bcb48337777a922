"""Cards as data: Challenge, Destiny, Threat and Kill Minotaur cards loaded from TOML files.

The rulebook prints only a few cards, so the shipped files (``mapgen/engine/cards/*.toml``) hold a designed,
plausible set marked ``approximate = true``. Any card file in the same shape can be loaded instead,
so the printed cards can be typed in and used (``load_cards([...])``).

Effects are short strings: ``"gain 1 Wa"``, ``"lose 2 Wo"``, ``"lose 1 any"`` (the players choose),
``"gain 1 any"``, ``"gain 1 fire"``, ``"lose 1 fire"``, ``"lose shelter"``, ``"gain 1 sample"``,
``"gain 1 destiny"``, ``"draw threat"``, ``"remove 1 path"`` (take Path tokens off the leftmost
Challenge card), ``"refresh all"``, ``"reveal kill"`` (Fauna: reveal a Kill Minotaur card).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from constraints.catalogue import chapter_names, get_chapter
from mapgen.errors import InputError
from mapgen.inputs import Unreadable, read_toml

#: Resources in the rulebook's Resource Priority Order (Water last of the tokens that are carried).
RESOURCE_CODES = ("Fo", "Wo", "Mu", "Ro", "Sk", "Vi", "Mf", "Fw", "Pf", "Wa")
RESOURCE_NAMES = ("Food", "Wood", "Mud", "Rock", "Skull", "Vine", "Mushroom", "Flower", "Petrified Fossil", "Water")
NRES = len(RESOURCE_CODES)
FOOD, WOOD, MUD, ROCK, SKULL, VINE, MUSHROOM, FLOWER, FOSSIL, WATER = range(NRES)
RES_INDEX = {c.lower(): i for i, c in enumerate(RESOURCE_CODES)}

CARD_DIR = Path(__file__).parent / "cards"


class ThreatKind(StrEnum):
    """The Threat kinds the rules name (a card's ``kind`` is its file's word: any other kind is a Monster's)."""

    INJURED = "injured"
    CHASED = "chased"
    MISFORTUNE = "misfortune"  # Vameter's Hunting Grounds
    MINOTAUR = "minotaur"


#: Threat kinds that are no Monster.
NOT_MONSTERS = (ThreatKind.INJURED, ThreatKind.CHASED, ThreatKind.MISFORTUNE)
EFFECT_TARGETS = ("any", "fire", "shelter", "sample", "destiny", "threat", "path", "all", "kill")
#: Targets that only chapter plug-ins run (``lose 1 crew``, ``gain 1 power``): see ChapterRules.run_effect.
CHAPTER_TARGETS = ("crew", "power", "fezron", "range", "heart", "cyclops", "monster")


class CardError(InputError, ValueError):
    """A card file that cannot be used; the message names the file and the card."""


@dataclass(frozen=True)
class Effect:
    """One effect: a verb (gain, lose, draw, remove, refresh, reveal), a count, and a target.

    ``target`` is a resource index (0..9) or one of ``EFFECT_TARGETS``.
    """

    verb: str
    n: int
    target: int | str

    def __str__(self) -> str:
        what = RESOURCE_CODES[self.target] if isinstance(self.target, int) else self.target
        return f"{self.verb} {self.n} {what}"


_VERBS = {"gain", "lose", "draw", "remove", "refresh", "reveal"}


def parse_effect(text: str) -> Effect:
    """``"gain 2 Wa"`` -> Effect('gain', 2, WATER); raises CardError with the reason."""
    parts = str(text).split()
    if not parts or parts[0].lower() not in _VERBS:
        raise CardError(f"effect {text!r}: expected one of {', '.join(sorted(_VERBS))} first")
    verb = parts[0].lower()
    n = 1
    rest = parts[1:]
    if rest and rest[0].isdigit():
        n = int(rest[0])
        rest = rest[1:]
    if len(rest) != 1:
        raise CardError(f"effect {text!r}: expected '{verb} [count] what'")
    what = rest[0].lower()
    if what in RES_INDEX:
        return Effect(verb, n, RES_INDEX[what])
    if what in EFFECT_TARGETS or what in CHAPTER_TARGETS:
        return Effect(verb, n, what)
    raise CardError(f"effect {text!r}: unknown target {rest[0]!r}")


def _counts(codes, where: str) -> tuple[int, ...]:
    out = [0] * NRES
    for c in codes or ():
        key = str(c).lower()
        if key not in RES_INDEX:
            raise CardError(f"{where}: unknown resource {c!r} (expected one of {', '.join(RESOURCE_CODES)})")
        out[RES_INDEX[key]] += 1
    return tuple(out)


@dataclass(frozen=True)
class ChallengeCard:
    """A Challenge card: a time limit in Path tokens, requirements, and Pass/Fail effects.

    ``requires`` are plain resource icons (must discard), ``optional`` bracketed ones (discard if you
    have them), ``fire``/``shelter`` the symbols that need only be present.
    """

    name: str
    time: int
    chapter: str = "core"
    requires: tuple[int, ...] = (0,) * NRES
    optional: tuple[int, ...] = (0,) * NRES
    fire: bool = False
    shelter: bool = False
    passes: tuple[Effect, ...] = ()
    fails: tuple[Effect, ...] = ()
    bonus_if: str | None = None
    bonus: tuple[Effect, ...] = ()
    first: bool = False
    text: str = ""
    approximate: bool = False

    def describe(self) -> str:
        req = [RESOURCE_CODES[r] for r in range(NRES) for _ in range(self.requires[r])]
        req += [f"({RESOURCE_CODES[r]})" for r in range(NRES) for _ in range(self.optional[r])]
        req += ["Fire"] * self.fire + ["Shelter"] * self.shelter
        return f"{self.name} [{self.time}] needs {' '.join(req) or 'nothing'}"


@dataclass(frozen=True)
class DestinyCard:
    name: str
    effects: tuple[Effect, ...]
    chapter: str = "core"
    text: str = ""
    approximate: bool = False


@dataclass(frozen=True)
class ThreatCard:
    """A Threat card. ``kind`` is ``injured``, ``chased`` or a monster (``minotaur``).

    A monster's ``direction`` (north, south, east, west) places it at Night and as a row reward.
    ``time`` is the Injured card's time limit once it moves into the Challenge Row.
    """

    name: str
    kind: str
    chapter: str = "core"
    direction: str | None = None
    time: int = 0
    text: str = ""
    approximate: bool = False

    @property
    def monster(self) -> bool:
        return self.kind not in NOT_MONSTERS


@dataclass(frozen=True)
class KillCard:
    """A Kill Minotaur card: discard every listed Resource to kill one revealed Minotaur."""

    name: str
    requires: tuple[int, ...]
    chapter: str = "fauna"
    training: bool = False
    text: str = ""
    approximate: bool = False


@dataclass
class CardSet:
    """Every card known to the engine; a chapter takes the cards whose ``chapter`` it plays."""

    challenges: list[ChallengeCard] = field(default_factory=list)
    destiny: list[DestinyCard] = field(default_factory=list)
    threats: list[ThreatCard] = field(default_factory=list)
    kills: list[KillCard] = field(default_factory=list)

    def extend(self, other: CardSet) -> None:
        self.challenges += other.challenges
        self.destiny += other.destiny
        self.threats += other.threats
        self.kills += other.kills

    @property
    def all_approximate(self) -> bool:
        cards: list[ChallengeCard | DestinyCard | ThreatCard | KillCard] = [
            *self.challenges,
            *self.destiny,
            *self.threats,
            *self.kills,
        ]
        return bool(cards) and all(c.approximate for c in cards)


def _effects(values, where: str) -> tuple[Effect, ...]:
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values or ():
        try:
            out.append(parse_effect(v))
        except CardError as e:
            raise CardError(f"{where}: {e}") from None
    return tuple(out)


def _str(d: dict, key: str, where: str, default=None) -> str:
    v = d.get(key, default)
    if v is None:
        raise CardError(f"{where}: missing field '{key}'")
    if not isinstance(v, str):
        raise CardError(f"{where}: '{key}' must be text")
    return v


def _int(d: dict, key: str, where: str, lo: int, hi: int) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise CardError(f"{where}: '{key}' must be a whole number from {lo} to {hi}")
    return v


def cards_from_data(data: dict, source: str = "cards") -> CardSet:
    """A CardSet from parsed TOML; raises CardError naming the card and field."""
    chapter = data.get("chapter", "core")
    approx = bool(data.get("approximate", False))
    cs = CardSet()
    for k, d in enumerate(data.get("challenge", [])):
        where = f"{source}: challenge {d.get('name', k + 1)!r}"
        bonus_if = d.get("bonus_if")
        if bonus_if not in (None, "fire", "shelter"):
            raise CardError(f"{where}: 'bonus_if' must be fire or shelter")
        cs.challenges.append(
            ChallengeCard(
                name=_str(d, "name", where),
                time=_int(d, "time", where, 1, 9),
                chapter=d.get("chapter", chapter),
                requires=_counts(d.get("requires"), where),
                optional=_counts(d.get("optional"), where),
                fire=bool(d.get("fire", False)),
                shelter=bool(d.get("shelter", False)),
                passes=_effects(d.get("pass"), where),
                fails=_effects(d.get("fail"), where),
                bonus_if=bonus_if,
                bonus=_effects(d.get("bonus"), where),
                first=bool(d.get("first", False)),
                text=d.get("text", ""),
                approximate=bool(d.get("approximate", approx)),
            )
        )
    for k, d in enumerate(data.get("destiny", [])):
        where = f"{source}: destiny {d.get('name', k + 1)!r}"
        effects = _effects(d.get("effects"), where)
        if not effects:
            raise CardError(f"{where}: a Destiny card needs 'effects'")
        cs.destiny.append(
            DestinyCard(
                _str(d, "name", where),
                effects,
                d.get("chapter", chapter),
                d.get("text", ""),
                bool(d.get("approximate", approx)),
            )
        )
    for k, d in enumerate(data.get("threat", [])):
        where = f"{source}: threat {d.get('name', k + 1)!r}"
        kind = _str(d, "kind", where)
        direction = d.get("direction")
        if kind not in NOT_MONSTERS and direction not in ("north", "south", "east", "west"):
            raise CardError(f"{where}: a monster needs 'direction' (north, south, east or west)")
        time = _int(d, "time", where, 1, 9) if kind == ThreatKind.INJURED else 0
        cs.threats.append(
            ThreatCard(
                _str(d, "name", where),
                kind,
                d.get("chapter", chapter),
                direction,
                time,
                d.get("text", ""),
                bool(d.get("approximate", approx)),
            )
        )
    for k, d in enumerate(data.get("kill", [])):
        where = f"{source}: kill card {d.get('name', k + 1)!r}"
        req = _counts(d.get("requires"), where)
        if not any(req):
            raise CardError(f"{where}: a Kill Minotaur card needs 'requires'")
        cs.kills.append(
            KillCard(
                _str(d, "name", where),
                req,
                d.get("chapter", chapter),
                bool(d.get("training", False)),
                d.get("text", ""),
                bool(d.get("approximate", approx)),
            )
        )
    return cs


def load_card_file(path: str | Path) -> CardSet:
    try:
        data = read_toml(path, "card file")
    except Unreadable as e:
        raise CardError(f"{path}: {e}") from None
    return cards_from_data(data, str(path))


def own_card_file(chapter: str) -> Path:
    """The chapter's own card file (its chapter-specific decks): the one of the registry's ``cards`` that
    no other shipped chapter lists too."""
    shared = {f for n in chapter_names() if n != chapter for f in card_files(n)}
    own = [f for f in card_files(chapter) if f not in shared]
    if len(own) != 1:
        raise CardError(f"the {chapter} chapter names {len(own)} card files of its own, not 1 (constraints/chapters)")
    return own[0]


def card_files(chapter: str | None = None) -> list[Path]:
    """The card files the chapter registry names (``cards = [...]``, files in ``mapgen/engine/cards/``):
    one chapter's, or (None) every shipped chapter's, each once, in file-name order."""
    names = [chapter] if chapter is not None else chapter_names()
    return sorted({CARD_DIR / f for n in names for f in get_chapter(n).cards})


def load_cards(paths=None) -> CardSet:
    """The shipped cards (every card file of the chapter registry), or the given card files."""
    files = card_files() if paths is None else [Path(p) for p in paths]
    cs = CardSet()
    for p in files:
        cs.extend(load_card_file(p))
    return cs


_SHIPPED: CardSet | None = None


def shipped_cards() -> CardSet:
    global _SHIPPED
    if _SHIPPED is None:
        _SHIPPED = load_cards()
    return _SHIPPED
