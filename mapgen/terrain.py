"""Terrain types of Corps of Discovery maps and their two-letter file codes (RULES.md §2)."""

from __future__ import annotations

import sys
from decimal import Decimal
from enum import Enum

from mapgen.errors import InputError, MessageKeyError
from mapgen.inputs import a_kind


class Terrain(Enum):
    """A terrain type. The value is its file code; ``index`` is its fixed position in arrays."""

    FOOD = "Fo"
    WOOD = "Wo"
    WATER = "Wa"
    MUD = "Mu"
    ROCK = "Ro"
    SKULL = "Sk"
    TIPI = "Ti"
    FIELD = "Fi"
    HILL = "Hi"
    VINE = "Vi"
    FORT = "Ft"
    PETRIFIED_FOREST = "Pf"
    SACAGAWEA = "Sa"
    FLORA_CREATURE = "Fc"
    FEZRON_CAMP = "Fz"
    MUSHROOM_FIELD = "Mf"
    MALDONADO = "Ma"

    @property
    def code(self) -> str:
        """The two-letter file code: ``"Ft"``."""
        return self.value

    @property
    def label(self) -> str:
        """The terrain's name as the rulebooks write it: ``Petrified Forest``."""
        return _LABELS.get(self, self.name.replace("_", " ").title())

    @property
    def index(self) -> int:
        """The terrain's fixed position in arrays (its order in this enum)."""
        return _INDEX[self]

    @classmethod
    def from_code(cls, code: str) -> Terrain:
        """The terrain for a code, case-insensitively; raises KeyError for an unknown code (its message lists the
        codes)."""
        try:
            return _BY_CODE[code.lower()]
        except (KeyError, AttributeError):
            raise UnknownTerrainError(
                f"unknown terrain code {code!r} (the codes: {', '.join(t.value for t in cls)})"
            ) from None

    def __str__(self) -> str:
        return self.value


class UnknownTerrainError(MessageKeyError, InputError):
    """A code no terrain has (a KeyError, as ``Terrain.from_code`` always raised, and invalid input: exit 2), with a
    message that lists the codes."""


_LABELS = {
    Terrain.FLORA_CREATURE: "Flora creature",
    Terrain.FEZRON_CAMP: "Fezron Camp",
    Terrain.MUSHROOM_FIELD: "Mushroom Field",
}
_BY_CODE = {t.value.lower(): t for t in Terrain}
_INDEX = {t: i for i, t in enumerate(Terrain)}
TERRAINS: tuple[Terrain, ...] = tuple(Terrain)


def as_terrain(t: Terrain | str) -> Terrain:
    """A Terrain given as itself or by its code (``"Ft"``, any case); UnknownTerrainError (a KeyError) for an
    unknown code, TypeError for anything else: for the library's functions that take a terrain from a caller."""
    if isinstance(t, Terrain):
        return t
    if isinstance(t, str):
        return Terrain.from_code(t)
    raise TypeError(f"a terrain is a Terrain member or its code (like 'Ft'), not {a_kind(t)}")


def parse_terrain(code: str) -> Terrain:
    """Like ``Terrain.from_code`` but raises ``ValueError`` with a person's message."""
    try:
        return Terrain.from_code(code)
    except KeyError:
        raise ValueError(f"unknown terrain code {code!r}") from None


def quantity(n: int, noun: str, nouns: str | None = None) -> str:
    """A count for people, with its noun in the right number: ``1 cell``, ``2 cells``; ``nouns`` where the plural
    is not the noun with an ``s`` (``quantity(n, "guess", "guesses")``)."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def listed(words: list[str]) -> str:
    """Words as a list for people: "A", "A and B", "A, B and C" ("" for none)."""
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 2 else " and ".join(words)


def percent(p: float) -> str:
    """A chance for people: ``40%``; never ``0%`` or ``100%`` for a chance that is neither (``<1%``, ``>99%``)."""
    words = f"{p:.0%}"
    if 0 < p < 1 and words in ("0%", "100%"):  # 0.005 rounds to "0%" and 0.995 to "100%": say neither
        return "<1%" if p < 0.5 else ">99%"
    return words


def clipped_range(p: float, half: float) -> str | None:
    """The 95% interval ``p`` ± ``half`` (chances from 0 to 1) as the range it holds, ``0–19%``, where it reaches
    past 0% or 100% (``5% ±14`` read as if the chance could be below 0); None where it stays within them (``±``)."""
    if p - half >= 0 and p + half <= 1:
        return None
    return f"{max(0, round(100 * (p - half)))}–{min(100, round(100 * (p + half)))}%"


#: the words for a count's thousands from a million on ("11.9 million"); from 10^15 a power of ten
_BIG_WORDS = {6: "million", 9: "billion", 12: "trillion"}
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def big_count(n: int, plain: bool | None = None) -> str:
    """A count for people: ``9,876,543`` (digits with separators up to ten million), then three significant
    figures in words up to 10^15 (``11.9 million``, ``2.98 billion``, ``4.1 trillion``), beyond that a power of
    ten (``1.69 × 10²²``); never Python's ``1.69e+22``. Rounded before the words are chosen (999.96 million is
    ``1 billion``). ``plain`` writes ``1.69 x 10^22`` (ASCII); by default where stdout or stderr could not
    encode the ``×`` and the superscript digits (``PYTHONIOENCODING=latin-1``), so printing never fails. The
    web pages' ``MG.bigCount`` (mapgen/web/static/common.js) follows the same rule."""
    if n < 10_000_000:
        return f"{n:,}"
    mantissa, exp = f"{Decimal(n):.2e}".split("e")  # exact for any int: counts beyond a float's range too
    power = int(exp)
    if power < 15:
        unit = power - power % 3
        return f"{Decimal(mantissa).scaleb(power - unit).normalize():f} {_BIG_WORDS[unit]}"
    digits = f"{Decimal(mantissa).normalize():f}"
    if plain is None:
        plain = not all(_can_write(stream, "× ⁻⁰¹²³⁴⁵⁶⁷⁸⁹") for stream in (sys.stdout, sys.stderr))
    return f"{digits} x 10^{power}" if plain else f"{digits} × 10{str(power).translate(_SUPERSCRIPT)}"


def _can_write(stream: object, text: str) -> bool:
    """Whether ``stream``'s encoding holds ``text`` (a stream without one, or none at all, is taken to)."""
    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return True
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True
