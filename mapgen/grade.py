"""Grading maps for print: how a map deduces and how it plays, with flags for maps not worth printing.

``grade(map)`` returns a ``MapGrade``: per bot the win rate with its 95% interval, the causes of loss,
the share of games sealed and why (as ``mapgen playtest`` counts them: no Path could be explored for a whole
round, walled in, toll unpaid or map explored), the mean days and the scores of won games; the play difficulty (``Play``:
the best fair bot's win rate, the ``oracle``'s, and the gap between them: what the hidden map costs a
strong player; without the oracle the gap is the older clairvoyant minus deducer); the minimal reveal set size, the step at which every
target is known and the targets found before they could be deduced; the deduction grade; and the
flags, each with its reason (``mapgen.quality`` says what passes). ``grade_maps`` grades many maps
in one campaign (``mapgen.campaign``): every game is a seeded task, so the report is the same on one
process, many, or a Ray cluster.
"""

from __future__ import annotations

import csv
import io
import math
import os
import time
from collections import Counter
from dataclasses import dataclass, field, replace

from constraints.catalogue import Chapter, get_chapter, load_chapter, misfit
from mapgen import deduce
from mapgen.campaign import Backend, Local, Ray, Task, run
from mapgen.engine.bots import BOTS, UNFAIR
from mapgen.engine.playtest import (
    Settings,
    _cause_order,
    cause_words,
    make_game,
    play_one,
    score_summary,
    score_words,
    wilson,
)
from mapgen.engine.rules import SEALED, SEALED_BY
from mapgen.engine.skull_walls import WALL_POCKET, skull_walls
from mapgen.inputs import a_kind, is_whole, seconds_problem
from mapgen.mapfile import dumps_map, parse_map
from mapgen.model import Map, WrongMapError, expect_map
from mapgen.quality import DEFAULT_GAMES, Quality, QualityError, chapter_quality, tier_index
from mapgen.solving.solve import Solver
from mapgen.terrain import quantity

#: the reason a sealed game had no Path open at all: Rocks and Monsters wall the trail in (mapgen.engine.rules.SEALED_BY)
WALLED_IN = SEALED_BY[0]

#: Games per task: small enough to spread over workers, large enough that a task is worth sending.
CHUNK = {"deducer": 20, "scout": 10, "planner": 2, "oracle": 5}
DEFAULT_CHUNK = 50


@dataclass(frozen=True)
class BotFigures:
    """One bot's games on one map. ``losses`` are the rulebooks' losses; the sealed games (the engine's outcome
    ``sealed``: no Path could be explored for a whole round) are counted apart, by reason, as ``mapgen playtest``
    counts them (``sealed_by``: walled in, toll unpaid, map explored)."""

    bot: str
    games: int
    wins: int
    losses: dict[str, int]
    mean_days: float
    sealed_by: dict[str, int] = field(default_factory=dict)
    win_scores: tuple[int, ...] = ()  # the scores of the won games (empty when read from a [grade] table)
    sealed_total: int | None = None  # read from a [grade] table: its sealed games (None: the sum of sealed_by)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def sealed(self) -> int | None:
        """Sealed games, every reason (playtest's ``sealed``); None for a [grade] table recorded before issue 41,
        which kept the walled-in share only."""
        if self.sealed_total is not None:
            return None if self.sealed_total < 0 else self.sealed_total
        return sum(self.sealed_by.values())

    @property
    def sealed_rate(self) -> float | None:
        """Sealed games as a share of all games (playtest's ``sealed_rate``)."""
        n = self.sealed
        return None if n is None else (n / self.games if self.games else 0.0)

    @property
    def walled_in_rate(self) -> float:
        """Games sealed walled in (no Path open at all: Rocks and Monsters close the trail) as a share of all
        games: what the quality check ``max_walled_in`` reads."""
        return self.sealed_by.get(WALLED_IN, 0) / self.games if self.games else 0.0

    @classmethod
    def from_games(cls, bot: str, games: list[tuple[str, int, int]]) -> BotFigures:
        """From (outcome, days, score) per game; a sealed game's outcome is ``sealed: WHY``."""
        n = len(games)
        losses = Counter(o for o, _, _ in games if o != "win" and not o.startswith(SEALED))
        sealed = Counter(
            o.removeprefix(SEALED).removeprefix(": ") or "unknown" for o, _, _ in games if o.startswith(SEALED)
        )
        return cls(
            bot=bot,
            games=n,
            wins=sum(o == "win" for o, _, _ in games),
            losses={c: losses[c] for c in sorted(losses, key=_cause_order)},
            mean_days=sum(d for _, d, _ in games) / n if n else 0.0,
            sealed_by={w: sealed[w] for w in (*SEALED_BY, "unknown") if sealed[w]},
            win_scores=tuple(sorted(s for o, _, s in games if o == "win")),
        )

    def to_json(self) -> dict:
        lo, hi = self.interval
        rate = self.sealed_rate
        return {
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "win_rate_ci": [round(lo, 4), round(hi, 4)],
            "sealed": self.sealed,
            "sealed_rate": None if rate is None else round(rate, 4),
            "sealed_by": dict(self.sealed_by),
            "losses": dict(self.losses),
            "mean_days": round(self.mean_days, 3),
            "win_scores": score_summary(list(self.win_scores)),
        }

    def sealed_words(self) -> str:
        """The sealed games and their reasons, as playtest words them: "sealed 7/20 = 35.0% (walled in 3, ...)"
        (games of each reason)."""
        n, rate = self.sealed, self.sealed_rate
        shown = "?" if n is None or rate is None else f"{n}/{self.games} = {100 * rate:.1f}%"
        if self.sealed_total is not None:  # read from a [grade] table: the shares only (before issue 41, walled in)
            return f"sealed {shown} (walled in {100 * self.walled_in_rate:.0f}% of games)"
        why = ", ".join(f"{w} {n}" for w, n in self.sealed_by.items())
        return f"sealed {shown}" + (f" ({why})" if why else "")


@dataclass(frozen=True)
class Deduction:
    """How the map deduces: minimal reveal set, when every target is known, and the deduction grade."""

    reveal_set: int
    target: str | None  # the chapter's counted terrain (Ft, Fc, Fz, Ma), None for Training
    targets_known_at: int | None  # the explorer's step at which every target is known (deduced or found)
    guessed_targets: tuple[str, ...]  # targets found before they could be deduced
    unique_at: int | None
    grade: dict | None  # {"tier", "guesses", "largest_reason", "deduced_share"}

    @property
    def tier(self) -> str | None:
        return self.grade["tier"] if self.grade else None

    def to_json(self) -> dict:
        return {
            "reveal_set": self.reveal_set,
            "target": self.target,
            "targets_known_at": self.targets_known_at,
            "guessed_targets": list(self.guessed_targets),
            "unique_at": self.unique_at,
            "grade": self.grade,
        }


@dataclass(frozen=True)
class Play:
    """How the map plays for a strong player: the best fair bot's win rate against the ``oracle``'s (the
    upper bound, the map in view), and the gap (oracle minus best fair bot: what the hidden map costs)."""

    fair: BotFigures  # the fair bot (not in ``mapgen.engine.bots.UNFAIR``) with the highest win rate
    oracle: BotFigures

    @property
    def gap(self) -> float:
        return self.oracle.win_rate - self.fair.win_rate

    @property
    def gap_interval(self) -> tuple[float, float]:
        """The gap's 95% interval: Newcombe's hybrid score interval for a difference of two independent
        proportions (Newcombe 1998, method 10), made of the two bots' Wilson intervals; within [-1, 1]."""
        p1, (l1, u1) = self.oracle.win_rate, self.oracle.interval
        p2, (l2, u2) = self.fair.win_rate, self.fair.interval
        d = p1 - p2
        lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
        hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
        return (max(-1.0, lo), min(1.0, hi))

    @property
    def fair_above_oracle(self) -> bool:
        """Whether the best fair bot beats the oracle outside the intervals (the bound failed on this map)."""
        return self.fair.interval[0] > self.oracle.interval[1]

    def to_json(self) -> dict:
        return {
            "fair_bot": self.fair.bot,
            "fair_win_rate": round(self.fair.win_rate, 4),
            "fair_win_rate_ci": [round(x, 4) for x in self.fair.interval],
            "oracle_win_rate": round(self.oracle.win_rate, 4),
            "oracle_win_rate_ci": [round(x, 4) for x in self.oracle.interval],
            "gap": round(self.gap, 4),
            "gap_ci": [round(x, 4) for x in self.gap_interval],
            "fair_above_oracle": self.fair_above_oracle,
        }


def play_of(bots: dict[str, BotFigures]) -> Play | None:
    """The play difficulty, when the oracle and a fair bot were played (ties: the first bot played)."""
    oracle = bots.get("oracle")
    fair = [f for b, f in bots.items() if b not in UNFAIR]
    if oracle is None or not fair:
        return None
    best = fair[0]
    for f in fair[1:]:
        if f.win_rate > best.win_rate:
            best = f
    return Play(best, oracle)


@dataclass(frozen=True)
class Flag:
    """A reason not to print a map: ``code`` for machines, ``reason`` in words."""

    code: str
    reason: str
    distance: float = 0.0  # how far from passing (0 to 1 per check): ranks the closest failures
    #: how sure the flag is, in words, when its figures could still pass (a win rate outside the band whose 95%
    #: interval reaches into it): the flag stands (``passes`` and every shipped map's [grade] table, which records
    #: ``reason`` alone, are unchanged) and the note says more games would settle it; None: nothing to add
    note: str | None = None
    #: the ``[quality]`` key the figures were checked against (``win_rate``; the reason names it too, so a designer
    #: knows which setting of the profile's table, or which option, to change); None: no setting (``oracle_below``)
    setting: str | None = None

    @property
    def text(self) -> str:
        """The reason and its note, as the text, CSV and Markdown reports give the flag."""
        return f"{self.reason}; {self.note}" if self.note else self.reason

    def to_json(self) -> dict:
        return {"code": self.code, "reason": self.reason, "note": self.note, "setting": self.setting}


@dataclass(frozen=True)
class MapGrade:
    """Everything ``mapgen grade`` says about one map."""

    map: str
    chapter: str
    seed: int
    bots: dict[str, BotFigures]
    deduction: Deduction | None
    quality: Quality
    flags: tuple[Flag, ...] = field(default=())
    #: graded under house rules (``mapgen grade --rules``): {"rules": the file's name, "rules_fingerprint": its
    #: ``chapter_fingerprint``} (``mapgen.generate.rules_record``, as a map made under them records them in its
    #: ``[generator]`` table); None: under the map's shipped chapter
    rules: dict | None = None
    #: the named variants every bot's games were played under (``mapgen grade --variant``, sorted); none: the
    #: rulebooks' literal reading
    variants: tuple[str, ...] = ()

    @property
    def passes(self) -> bool:
        return not self.flags

    @property
    def play(self) -> Play | None:
        """The play difficulty (best fair bot, oracle, gap) when the oracle was played."""
        return play_of(self.bots)

    @property
    def gap_pair(self) -> Play | None:
        """The two bots the gap compares, as a Play: the oracle and the best fair bot when the oracle was played;
        else the clairvoyant (as the bound) and the deducer, the older, cheaper figure; None without either pair."""
        play = self.play
        if play is not None:
            return play
        c, d = self.bots.get("clairvoyant"), self.bots.get("deducer")
        return None if c is None or d is None else Play(d, c)

    @property
    def gap(self) -> float | None:
        """Oracle minus the best fair bot's win rate (what the hidden map costs a strong player) when the
        oracle was played; else clairvoyant minus deducer (``gap_pair``)."""
        pair = self.gap_pair
        return None if pair is None else pair.gap

    @property
    def gap_bots(self) -> tuple[str, str] | None:
        """The two bots the gap compares (upper bound, fair bot)."""
        pair = self.gap_pair
        return None if pair is None else (pair.oracle.bot, pair.fair.bot)

    @property
    def tier(self) -> str | None:
        return self.deduction.tier if self.deduction else None

    @property
    def head_bot(self) -> BotFigures | None:
        """The bot whose sealed share and mean days the tables show: the band's (``quality.bot``), else the first
        bot played."""
        return self.bots.get(self.quality.bot) or next(iter(self.bots.values()), None)

    def shipped_calibration(self) -> list[str]:
        """Under house rules (``rules``): what in the grade is the shipped chapter's measure, in words (the
        deduction tier's cuts, the default win-rate band and walled-in cap: ``mapgen.quality.CHAPTER_DEFAULTS``,
        measured on shipped maps); [] under the shipped rules. The skull-wall, guessed-target and oracle checks
        are the map's own figures against no calibration."""
        if not self.rules and not self.variants:
            return []
        out = []
        d = self.deduction
        if d is not None and d.grade and d.grade.get("calibrated_on"):
            out.append(
                f"the deduction tier, cut at the quartiles of maps generated under shipped {self.chapter}'s rules"
            )
        q, shipped = self.quality, chapter_quality(self.chapter)
        bands = []
        if q.bot in self.bots:  # a band given (--win-rate, a profile) is the designer's, not a calibration
            if q.win_rate is not None and q.win_rate == shipped.win_rate:
                lo, hi = q.win_rate
                bands.append(f"the {q.bot} win-rate band {100 * lo:.0f}% to {100 * hi:.0f}%")
            if q.max_walled_in is not None and q.max_walled_in == shipped.max_walled_in:
                bands.append(f"the walled-in cap {100 * q.max_walled_in:.0f}%")
        if bands:
            out.append(f"{' and '.join(bands)} (measured on shipped maps: mapgen/quality.py)")
        return out

    def calibration_words(self) -> str:
        """What ``shipped_calibration`` is measured on, not these figures': "shipped fauna, not these house rules",
        "the rulebooks' reading, not the variants relaunch" (both, joined)."""
        on, not_these = [], []
        if self.rules:
            on.append(f"shipped {self.chapter}")
            not_these.append("these house rules")
        if self.variants:
            on.append("the rulebooks' reading")
            not_these.append(f"the variants {', '.join(self.variants)}")
        return f"{' and '.join(on)}, not {' and '.join(not_these)}"

    @property
    def distance(self) -> float:
        """How far from passing: the sum over the flags (0 when it passes)."""
        return sum(f.distance for f in self.flags)

    def to_json(self) -> dict:
        gap = self.gap
        return {
            "map": self.map,
            "chapter": self.chapter,
            "seed": self.seed,
            "passes": self.passes,
            "flags": [f.to_json() for f in self.flags],
            "deduction": self.deduction.to_json() if self.deduction else None,
            "bots": {b: f.to_json() for b, f in self.bots.items()},
            "gap": None if gap is None else round(gap, 4),
            "gap_bots": list(self.gap_bots) if self.gap_bots else None,
            "play": self.play.to_json() if self.play else None,
            "quality": self.quality.to_json(),
            "variants": list(self.variants),
            **(self.rules or {}),
            # under house rules, what is still the shipped chapter's measure (the tier's cuts, default bands)
            **(
                {"calibrated_on": {"chapter": self.chapter, "what": cal}} if (cal := self.shipped_calibration()) else {}
            ),
        }

    @classmethod
    def from_table(cls, name: str, m: Map, t: dict) -> MapGrade:
        """The grade a map file's ``[grade]`` table records (``table``), read back: its headline figures, so a
        library table can be made from the files without playing them again (a bot's figures keep only the
        sealed and walled-in shares the table records; a table written before issue 41 has the walled-in share
        only, there ``blocked_share``)."""
        bots = {}
        for b, f in t.items():
            if isinstance(f, dict) and "games" in f and "win_rate" in f:
                n = int(f["games"])
                walled = round(float(f.get("walled_in_rate", f.get("blocked_share", 0.0))) * n)
                bots[b] = BotFigures(
                    b,
                    n,
                    round(float(f["win_rate"]) * n),
                    {},
                    f["mean_days"],
                    sealed_by={WALLED_IN: walled} if walled else {},
                    sealed_total=round(float(f["sealed_rate"]) * n) if "sealed_rate" in f else -1,
                )
        deduction = None
        if "reveal_set" in t:
            tiers = {k: t[k] for k in ("tier", "guesses", "largest_reason", "deduced_share") if k in t}
            counted = get_chapter(m.chapter).counted
            deduction = Deduction(
                reveal_set=int(t["reveal_set"]),
                target=counted.code if counted is not None else None,
                targets_known_at=t.get("targets_known_at"),
                guessed_targets=tuple(t.get("guessed_targets", ())),
                unique_at=None,
                grade=tiers or None,
            )
        flags = tuple(Flag("recorded", str(r)) for r in t.get("flags", ()))
        quality = replace(chapter_quality(m.chapter), games={b: f.games for b, f in bots.items()})
        variants = tuple(str(v) for v in t.get("variants", ()))
        return cls(name, m.chapter, int(t.get("seed", 0)), bots, deduction, quality, flags, variants=variants)

    def table(self) -> dict:
        """The ``[grade]`` table of a graded map file (``validate`` ignores it): the headline figures."""
        t: dict = {"seed": self.seed}
        d = self.deduction
        if d is not None:
            if d.grade:
                t.update({k: d.grade[k] for k in ("tier", "guesses", "largest_reason", "deduced_share")})
            t["reveal_set"] = d.reveal_set
            if d.targets_known_at is not None:
                t["targets_known_at"] = d.targets_known_at
            if d.target:
                t["guessed_targets"] = list(d.guessed_targets)
        for b, f in self.bots.items():
            lo, hi = f.interval
            t[b] = {
                "games": f.games,
                "win_rate": round(f.win_rate, 4),
                "win_rate_ci": [round(lo, 4), round(hi, 4)],
                **({"sealed_rate": round(f.sealed_rate, 4)} if f.sealed_rate is not None else {}),
                "walled_in_rate": round(f.walled_in_rate, 4),
                "mean_days": round(f.mean_days, 3),
            }
        if self.gap is not None:
            t["gap"] = round(self.gap, 4)
        if self.play is not None:
            t["play"] = {k: v for k, v in self.play.to_json().items() if k != "fair_above_oracle"}
        t["flags"] = [f.reason for f in self.flags]
        if self.rules:  # figures of house rules: a table that says which, never one read as the shipped rules'
            t.update(self.rules)
        if self.variants:  # figures of a variant's games, likewise
            t["variants"] = list(self.variants)
        return t

    def row(self) -> dict:
        """One flat row (CSV, Markdown): the headline figures."""
        d = self.deduction
        g = d.grade if d and d.grade else {}
        out = {
            "map": self.map,
            "chapter": self.chapter,
            "tier": g.get("tier", ""),
            "guesses": g.get("guesses", ""),
            "largest_reason": g.get("largest_reason", ""),
            "deduced_share": g.get("deduced_share", ""),
            "reveal_set": d.reveal_set if d else "",
            "targets_known_at": (d.targets_known_at or "") if d else "",
            "guessed_targets": len(d.guessed_targets) if d else "",
        }
        for b, f in self.bots.items():
            lo, hi = f.interval
            out[f"{b}_games"] = f.games  # the games behind the rate, as the text's "wins 6/10"
            out[f"{b}_wins"] = f.wins
            out[f"{b}_win"] = round(f.win_rate, 4)
            out[f"{b}_ci_low"] = round(lo, 4)
            out[f"{b}_ci_high"] = round(hi, 4)
        out["gap"] = "" if self.gap is None else round(self.gap, 4)
        play = self.play
        # the gap's 95% interval, as the text gives it (a gap on a few games is no finding without it)
        pair = self.gap_pair
        out["gap_ci_low"], out["gap_ci_high"] = (round(x, 4) for x in pair.gap_interval) if pair else ("", "")
        out["gap_bots"] = " − ".join(self.gap_bots or ())  # which gap: "oracle − scout" or "clairvoyant − deducer"
        out["fair_bot"] = play.fair.bot if play else ""
        out["fair_win"] = round(play.fair.win_rate, 4) if play else ""
        out["oracle_gap"] = round(play.gap, 4) if play else ""
        # the band bot's games (the heuristic's, unless the quality names another or it was not played): its
        # name heads these columns, as the win rates' ("heuristic_sealed_rate")
        head = self.head_bot
        if head is not None:
            sealed = head.sealed_rate
            out[f"{head.bot}_sealed_rate"] = "" if sealed is None else round(sealed, 4)
            out[f"{head.bot}_walled_in_rate"] = round(head.walled_in_rate, 4)
            out[f"{head.bot}_sealed_by"] = "; ".join(f"{w} {n}" for w, n in head.sealed_by.items())
            out[f"{head.bot}_mean_days"] = round(head.mean_days, 3)
            out[f"{head.bot}_losses"] = "; ".join(f"{c} {n}" for c, n in head.losses.items())
        out["flags"] = "; ".join(f.text for f in self.flags)
        if self.rules:
            out.update(self.rules)
        if self.variants:
            out["variants"] = "; ".join(self.variants)
        return out


# ----- the tasks (module level: they run in worker processes and on Ray) -----
_CACHE: dict = {}


def _game_for(map_text: str, bot: str, rules: Chapter | None = None, variants: tuple[str, ...] = ()):
    """Parse a map and build its Game once per worker process (one per rules the bots reason with and variants
    played: a Game of house rules is never handed to the shipped rules' games, nor the reverse)."""
    key = (map_text, bot, rules, variants)
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 16:
            _CACHE.clear()
        m = parse_map(map_text)
        s = Settings(bot=bot, reference=rules, variants=variants)
        hit = _CACHE[key] = (m, make_game(m, s, 0))
    return hit


def play_games(
    map_text: str,
    bot: str,
    seed: int,
    start: int,
    count: int,
    budget: int | None = None,
    rules: Chapter | None = None,
    variants: tuple[str, ...] = (),
) -> list[tuple[str, int, int]]:
    """Games start..start+count-1 of a playtest with this seed: (outcome, days, score) each, exactly as
    ``mapgen playtest --seed SEED`` (``--budget BUDGET`` for a search bot, ``--rules`` for ``rules``: a house
    chapter the bots reason with, ``--variant`` for each of ``variants``) plays them."""
    m, game = _game_for(map_text, bot, rules, variants)
    s = Settings(bot=bot, seed=seed, budget=budget, reference=rules, variants=variants)
    out = []
    for k in range(start, start + count):
        rec = play_one(m, s, k, False, game)
        outcome = rec.outcome
        if outcome == "sealed":  # a game that could not go on: say why ("sealed: walled in", ...)
            outcome = next((e for e in rec.events if e.startswith("sealed: ")), outcome)
        out.append((outcome, rec.days, rec.score))
    return out


def deduce_map(map_text: str, seed: int, time_limit: float, rules: Chapter | None = None) -> Deduction:
    """The deduction half of a grade: minimal reveal set, the logical explorer's path and its grade. ``rules``:
    a house chapter everything is deduced under (``mapgen deduce --rules``); the grade's tier is then placed by
    the shipped chapter's cuts, and says so (``calibrated_on``)."""

    m = parse_map(map_text)
    shipped = get_chapter(m.chapter)
    chapter = rules or shipped
    solver = Solver(chapter)
    t0 = time.monotonic()
    cells = deduce.minimal_reveal_set(m, seed=seed, time_limit=time_limit, solver=solver)
    left = max(1.0, time_limit - (time.monotonic() - t0))
    # its own deterministic solver: one grade per map
    profile = deduce.reveal_profile(m, time_limit=left, chapter=chapter)
    g = deduce.grade(profile, m.chapter)
    if chapter != shipped:  # the house rules' path, placed among shipped maps' scores (as deduce --rules says)
        g["calibrated_on"] = m.chapter
    guessed = tuple(
        cell
        for cell, ev in profile["targets"].items()
        if ev["deduced"] is None or (ev["revealed"] is not None and ev["revealed"] < ev["deduced"])
    )
    return Deduction(
        reveal_set=len(cells),
        target=profile["target"],
        targets_known_at=profile["all_targets_known_at"],
        guessed_targets=guessed,
        unique_at=profile["unique_at"],
        grade={k: g[k] for k in ("tier", "guesses", "largest_reason", "deduced_share", "calibrated_on") if k in g},
    )


# ----- flags -----
def flags_for(
    chapter: str, bots: dict[str, BotFigures], deduction: Deduction | None, quality: Quality
) -> tuple[Flag, ...]:
    """Each check of ``quality`` that the figures fail, with its reason."""
    out = []
    play = play_of(bots)
    if play is not None and play.fair_above_oracle:
        lo, _ = play.fair.interval
        _, hi = play.oracle.interval
        out.append(
            Flag(
                "oracle_below",
                f"{play.fair.bot} wins {100 * play.fair.win_rate:.1f}%, above the oracle's {100 * play.oracle.win_rate:.1f}% "
                f"outside the intervals ({100 * lo:.1f}% > {100 * hi:.1f}%): the upper bound failed",
                min(1.0, lo - hi),
            )
        )
    head = bots.get(quality.bot)
    if head is not None and quality.max_walled_in is not None and head.walled_in_rate > quality.max_walled_in:
        out.append(
            Flag(
                "walled_in",
                f"{100 * head.walled_in_rate:.0f}% of {quality.bot} games sealed walled in (no Path left open; "
                f"at most {100 * quality.max_walled_in:.0f}%: [quality] max_walled_in)",
                min(1.0, head.walled_in_rate - quality.max_walled_in),
                setting="max_walled_in",
            )
        )
    if head is not None and quality.win_rate is not None:
        lo, hi = quality.win_rate
        if not lo <= head.win_rate <= hi:
            ci_lo, ci_hi = head.interval
            out.append(
                Flag(
                    "win_rate",
                    f"{quality.bot} wins {100 * head.win_rate:.1f}% (95% interval {100 * ci_lo:.1f}% to "
                    f"{100 * ci_hi:.1f}%), outside the band {100 * lo:.0f}% to {100 * hi:.0f}% ([quality] win_rate)",
                    min(1.0, max(lo - head.win_rate, head.win_rate - hi)),
                    # the point estimate decides (as the shipped maps were graded); an interval that reaches into the
                    # band says the games are too few to call it
                    (f"on {head.games} games that interval reaches into the band: more --games to be sure")
                    if ci_lo <= hi and ci_hi >= lo
                    else None,
                    "win_rate",
                )
            )
    if deduction is not None and quality.guessed_targets is not None and deduction.target:
        n = len(deduction.guessed_targets)
        if n > quality.guessed_targets:
            cells = ", ".join(deduction.guessed_targets)
            allowed = f"at most {quality.guessed_targets}" if quality.guessed_targets else "none allowed"
            out.append(
                Flag(
                    "guessed_target",
                    f"{n} target{'s' if n > 1 else ''} ({deduction.target} at {cells}) never deduced before "
                    f"found ({allowed}: [quality] guessed_targets = {quality.guessed_targets})",
                    min(1.0, (n - quality.guessed_targets) / 4),
                    setting="guessed_targets",
                )
            )
    if quality.grade is not None:
        tier = deduction.tier if deduction else None
        if tier is None:
            asked = f'[quality] grade = "{quality.grade}"'
            out.append(
                Flag("grade", f"no deduction grade to compare with {asked} (see mapgen deduce)", 1.0, setting="grade")
            )
        else:
            off = abs(tier_index(tier) - tier_index(quality.grade))
            if off > quality.grade_within:
                out.append(
                    Flag(
                        "grade",
                        f"deduction grade {tier}, {off} tier{'s' if off > 1 else ''} from the {quality.grade} asked "
                        f'([quality] grade = "{quality.grade}", grade_within = {quality.grade_within})',
                        off / 3,
                        setting="grade",  # with grade_within, which the reason names too
                    )
                )
    return tuple(out)


# ----- grading -----
@dataclass(frozen=True)
class GradeSettings:
    """How to grade: games per bot (0 or missing: not played), the seed, whether to deduce, its time limit,
    and the search bots' budgets (``budgets``: bot -> budget; missing: the bot's default)."""

    games: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_GAMES))
    seed: int = 0
    deduce: bool = True
    time_limit: float = 120.0
    budgets: dict[str, int] = field(default_factory=dict)
    #: a house chapter (``constraints.catalogue.load_chapter``) the map is deduced under and the bots reason with
    #: (``mapgen grade --rules``); None: the map's shipped chapter
    rules: Chapter | None = None
    #: the named variants every bot's games are played under (``mapgen grade --variant``; ``mapgen/engine/
    #: variants.py``), each once, sorted; none: the rulebooks' literal reading
    variants: tuple[str, ...] = ()

    def __post_init__(self):
        check_games(self.games, self.budgets)
        if not is_whole(self.seed, 0):  # a str or a float failed inside the games; -1 was played as given
            raise QualityError(f"a grade's seed is a whole number from 0, not {self.seed!r}")
        problem = seconds_problem(self.time_limit)
        if problem is not None:
            raise QualityError(f"a grade's {problem}")
        given = self.variants
        if not isinstance(given, tuple | list | set | frozenset) or not all(isinstance(v, str) for v in given):
            raise QualityError(f"variants is a tuple of variant names, not {self.variants!r}")
        object.__setattr__(self, "variants", tuple(sorted(set(self.variants))))


def check_games(games: object, budgets: object = None) -> None:
    """QualityError (invalid input, exit 2) unless ``games`` is a dict of known bots' names to whole numbers from 0,
    and ``budgets`` (when given) one of known bots' names to whole numbers from 1 (None: the bot's default)."""
    for name, given, what in (
        ("games", games, "games per bot ({'heuristic': 100})"),
        ("budgets", budgets, "its search budget ({'scout': 2})"),
    ):
        if given is None and name == "budgets":
            continue
        if not isinstance(given, dict):
            raise QualityError(f"{name} is a dict of bot name to {what}, not {a_kind(given)}")
        unknown = [bot for bot in given if bot not in BOTS]
        if unknown:  # a bare ValueError from the bots' table, once the first game of that bot was played
            raise QualityError(f"unknown bot {unknown[0]!r} in {name} (expected one of {', '.join(BOTS)})")
    assert isinstance(games, dict)
    bad = {bot: n for bot, n in games.items() if not is_whole(n, 0)}
    if bad:  # a negative count played no game and reported a 0.0 win rate as if measured
        shown = ", ".join(f"{bot}={n!r}" for bot, n in bad.items())
        raise QualityError(f"games per bot are whole numbers from 0 (0: not played), not {shown}")
    given = budgets if isinstance(budgets, dict) else {}
    bad = {bot: n for bot, n in given.items() if n is not None and not is_whole(n, 1)}
    if bad:  # a str failed inside the search bot's first decision
        shown = ", ".join(f"{bot}={n!r}" for bot, n in bad.items())
        raise QualityError(f"budgets per bot are whole numbers from 1, not {shown}")


def tasks_for(m: Map, settings: GradeSettings) -> list[Task]:
    """The campaign tasks that grade one map: its deduction (one long task, first) and its games in chunks."""
    text = dumps_map(m)
    tasks = []
    if settings.deduce:
        tasks.append(Task(deduce_map, (text, settings.seed, settings.time_limit, settings.rules), weight=0))
    for bot, n in settings.games.items():
        size = CHUNK.get(bot, DEFAULT_CHUNK)
        for start in range(0, n, size):
            count = min(size, n - start)
            args = (
                text,
                bot,
                settings.seed,
                start,
                count,
                settings.budgets.get(bot),
                settings.rules,
                settings.variants,
            )
            tasks.append(Task(play_games, args, weight=min(size, n - start)))
    return tasks


def assemble(source: str, m: Map, settings: GradeSettings, results: list, quality: Quality | None = None) -> MapGrade:
    """The grade from the results of ``tasks_for``'s tasks, in their order. Its quality's ``games`` are the games
    each bot played (``settings``), not the table's defaults: ``quality.games`` in the JSON says what was played."""
    played = {bot: n for bot, n in settings.games.items() if n}
    quality = replace(quality or chapter_quality(m.chapter), games=played)
    k = 0
    deduction = None
    if settings.deduce:
        deduction, k = results[0], 1
    bots: dict[str, BotFigures] = {}
    for bot, n in settings.games.items():
        games: list = []
        size = CHUNK.get(bot, DEFAULT_CHUNK)
        for _ in range(0, n, size):
            games.extend(results[k])
            k += 1
        if n:
            bots[bot] = BotFigures.from_games(bot, games)
    return MapGrade(
        map=source,
        chapter=m.chapter,
        seed=settings.seed,
        bots=bots,
        deduction=deduction,
        quality=quality,
        flags=flags_for(m.chapter, bots, deduction, quality) + skull_wall_flags(m, quality),
        variants=settings.variants,
    )


def skull_wall_flags(m: Map, quality: Quality) -> tuple[Flag, ...]:
    """With ``quality.skull_walls``: the start Paths a Monster on one Skull walls in (mapgen/engine/walls.py)."""
    if not quality.skull_walls:
        return ()
    walls = skull_walls(m)
    if not walls:
        return ()
    return (
        Flag(
            "skull_wall",
            f"{len(walls)} start Path{'s' if len(walls) > 1 else ''} one Skull's Monster walls in within "
            f"{WALL_POCKET} Paths: " + "; ".join(w.words() for w in walls) + " ([quality] skull_walls)",
            min(1.0, 0.1 * len(walls)),
            setting="skull_walls",
        ),
    )


def grade_maps(
    maps: list[tuple[str, Map]],
    settings: GradeSettings | None = None,
    *,
    quality: Quality | dict[str, Quality] | None = None,
    where: Backend | None = None,
    progress=None,
    rules_file: str | None = None,
) -> list[MapGrade]:
    """Grade several maps in one campaign (``where``: ``campaign.Local(jobs)`` or ``campaign.Ray(address)``).

    ``quality`` is one for every map, or one per chapter (missing chapters: the chapter's defaults).
    ``progress`` is called with the number of games played so far (total: ``games_total``). Under house rules
    (``settings.rules``) each grade records them (``MapGrade.rules``: ``rules_file``'s name, else the chapter's
    name, and their fingerprint), as ``mapgen grade --rules FILE`` does; WrongMapError for a map they do not fit.
    """
    bad = next((x for x in maps if not (isinstance(x, tuple) and len(x) == 2)), None)
    if bad is not None:  # a Map alone: "cannot unpack non-iterable Map object"
        raise TypeError(f"grade_maps takes a list of (name, Map) pairs ([('fauna-1', m)]), not {a_kind(bad)}")
    for _, m in maps:
        expect_map(m, "grade", complete=True)
    if where is not None and not isinstance(where, Local | Ray):  # an int: AttributeError 'int' ... 'run'
        raise TypeError(
            "grade's where is a campaign backend (mapgen.campaign.Local(jobs) or mapgen.campaign.Ray(address)), "
            f"not {a_kind(where, shown=True)}"
        )
    for q in quality.values() if isinstance(quality, dict) else (quality,):
        if q is not None and not isinstance(q, Quality):  # "replace() should be called on dataclass instances"
            raise TypeError(
                "grade's quality is a mapgen.quality.Quality (chapter_quality(name), or a profile's [quality] "
                f"table: load_quality(path, chapter)), not {a_kind(q, shown=True)}"
            )
    settings = settings or GradeSettings()
    if settings.rules is not None:
        for source, m in maps:
            problem = misfit(m, settings.rules)
            if problem:
                raise WrongMapError(f"{source}: {problem}")
    if any(settings.games.values()):  # a variant of another chapter (GameError) before any task, not in a game
        for _, m in maps:
            make_game(m, Settings(reference=settings.rules, variants=settings.variants), 0)
    per_map = [tasks_for(m, settings) for _, m in maps]
    flat = [t for ts in per_map for t in ts]
    results = run(flat, where, progress)
    out, k = [], 0
    for (source, m), ts in zip(maps, per_map):
        q = quality.get(m.chapter) if isinstance(quality, dict) else quality
        out.append(assemble(source, m, settings, results[k : k + len(ts)], q))
        k += len(ts)
    if settings.rules is not None:  # every figure says which rules it was had under, as a made map's [generator]
        from mapgen.generate import rules_record  # deferred: the generator's module, only under house rules

        record = rules_record(rules_file or settings.rules.name, settings.rules)
        out = [replace(g, rules=record) for g in out]
    return out


def games_total(n_maps: int, settings: GradeSettings) -> int:
    return n_maps * sum(settings.games.values())


def grade(
    m: Map,
    source: str = "",
    *,
    games: dict[str, int] | None = None,
    seed: int = 0,
    deduce: bool = True,
    time_limit: float = 120.0,
    quality: Quality | None = None,
    where: Backend | None = None,
    progress=None,
    budgets: dict[str, int] | None = None,
    variants: tuple[str, ...] = (),
    rules: str | os.PathLike | Chapter | None = None,
    rules_file: str | None = None,
) -> MapGrade:
    """Grade one complete map: ``grade(maps.load("fauna-1")).to_json()``; returns a MapGrade.

    ``games``: bot name -> games (default ``DEFAULT_GAMES``), ``budgets``: bot name -> search budget, ``variants``:
    the named variants every game is played under (``mapgen grade --variant``). ``rules``: a house-rule chapter
    file (or a chapter loaded with ``constraints.catalogue.load_chapter``; ``rules_file``: the file it came from)
    the map is deduced and played under, recorded in the grade (``mapgen grade --rules FILE``). WrongMapError for a
    partial map or one the rules do not fit, ChapterError for a rules file that cannot be used, TypeError for what
    is not a Map, QualityError for games, budgets, a seed or a time limit it cannot use, GameError for a variant unknown or of another
    chapter."""
    expect_map(m, "grade", complete=True)
    if rules is not None and not isinstance(rules, Chapter):
        rules_file = os.fspath(rules)
        rules = load_chapter(rules_file)
    check_games(DEFAULT_GAMES if games is None else games, budgets)
    settings = GradeSettings(
        games=dict(DEFAULT_GAMES if games is None else games),
        seed=seed,
        deduce=deduce,
        time_limit=time_limit,
        budgets=dict(budgets or {}),
        variants=variants,
        rules=rules,
    )
    items = [(source or _name(m), m)]
    return grade_maps(items, settings, quality=quality, where=where, progress=progress, rules_file=rules_file)[0]


def _name(m: Map) -> str:
    number = m.briefing.number
    return f"{m.chapter}-{number}" if number is not None else m.chapter


# ----- reports -----
def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rank correlation (average ranks for ties); None with fewer than 3 pairs or no spread."""
    if len(xs) < 3:
        return None

    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = sum((a - mx) ** 2 for a in rx) ** 0.5
    sy = sum((b - my) ** 2 for b in ry) ** 0.5
    return None if sx == 0 or sy == 0 else sxy / (sx * sy)


def correlation(grades: list[MapGrade], figure) -> str:
    """Spearman's rank correlation between the deduction tier and ``figure(grade)`` over the maps that have
    both, as text ("n/a" without enough of them)."""
    pairs = [(tier_index(g.tier), v) for g in grades if g.tier and (v := figure(g)) is not None]
    rho = spearman([a for a, _ in pairs], [b for _, b in pairs])
    return "n/a" if rho is None else f"{rho:+.2f}"


def play_correlations(grades: list[MapGrade]) -> str | None:
    """The rank correlations over the maps of the deduction grade with the play difficulty: with the best fair
    bot's win rate and with the oracle gap, one line per chapter that has 3 maps or more with both (None
    without one). Within a chapter only: graded together, training-1, flora-3 and vameter-2 gave a line that
    ranked a Training map's win rate against a Vameter map's, which says nothing about either deduction."""
    by: dict[str, list[MapGrade]] = {}
    for g in grades:
        if g.tier and g.play:
            by.setdefault(g.chapter, []).append(g)
    lines = [
        f"rank correlation (Spearman) over {len(gs)} {chapter} maps of the deduction grade with the best fair "
        f"bot's win rate: {correlation(gs, lambda g: g.play.fair.win_rate)}; "
        f"with the oracle gap: {correlation(gs, lambda g: g.play.gap)}"
        for chapter, gs in by.items()
        if len(gs) >= 3
    ]
    return "\n".join(lines) or None


def report_text(g: MapGrade) -> str:
    """A grade for people."""
    # the seed of the games (--seed), not the map's own: "fauna-5: fauna, seed 0" read as the map's seed
    under = f" under the house rules of {g.rules['rules']}" if g.rules else ""
    variants = f", variants {', '.join(g.variants)}" if g.variants else ""  # as playtest's report names them
    lines = [f"{g.map}{under}: {g.chapter}, games seed {g.seed}{variants}: {'passes' if g.passes else 'FLAGGED'}"]
    d = g.deduction
    if d is not None:
        if d.grade:
            gr = d.grade
            # in mapgen deduce's words: "largest reason 0" alone meant nothing to a designer
            until = "every target is known" if d.target else "the map is unique"
            reason = (
                f"; the largest reason a forced step needed: "
                f"{quantity(gr['largest_reason'], 'rule or cell', 'rules and cells')}"
                if gr["largest_reason"]
                else ""
            )
            lines.append(
                f"  deduction    {gr['tier']}: {quantity(gr['guesses'], 'guess', 'guesses')} before {until}, "
                f"{100 * gr['deduced_share']:.0f}% of those steps forced{reason}"
            )
        known = f"every target known at step {d.targets_known_at}" if d.target else "no targets"
        if d.target and d.targets_known_at is None:
            known = "some target never known"
        guessed = f", found before deduced: {', '.join(d.guessed_targets)}" if d.guessed_targets else ""
        lines.append(f"  reveal set   {quantity(d.reveal_set, 'cell')}; {known}{guessed}")
    for b, f in g.bots.items():
        lo, hi = f.interval
        # the causes in mapgen playtest's words ("a Crew Member not saved", not the JSON key "crew_died")
        losses = ", ".join(f"{cause_words(c)} {n}" for c, n in f.losses.items()) or "none"
        if not f.losses and f.sealed:  # "sealed 1/6 ...; lost: none" read as if every game not won was won
            losses = "none by the rulebook (the games not won were sealed)"
        lines.append(
            f"  {b:<12} wins {f.wins}/{f.games} = {100 * f.win_rate:.1f}% "
            f"(95% interval {100 * lo:.1f}% to {100 * hi:.1f}%), "
            f"{f.sealed_words()}, mean days {f.mean_days:.2f}; lost: {losses}"
        )
        if f.win_scores:
            lines.append(f"  {'':<12} win scores {score_words(score_summary(list(f.win_scores)))}")
    play = g.play
    if play is not None:
        fair, oracle = play.fair, play.oracle
        lines.append(
            f"  play         {fair.bot} (best fair bot) wins {fair.wins}/{fair.games} = {100 * fair.win_rate:.1f}%, "
            f"oracle {oracle.wins}/{oracle.games} = {100 * oracle.win_rate:.1f}%: gap oracle − {fair.bot} = "
            f"{100 * play.gap:+.1f} points (95% interval {100 * play.gap_interval[0]:+.1f} to "
            f"{100 * play.gap_interval[1]:+.1f})"
        )
    elif g.gap is not None:  # no oracle: the older figure, with the same interval (clairvoyant as the bound)
        lo, hi = g.gap_pair.gap_interval
        lines.append(
            f"  gap          clairvoyant − deducer = {100 * g.gap:+.1f} points "
            f"(95% interval {100 * lo:+.1f} to {100 * hi:+.1f})"
        )
    for fl in g.flags:
        lines.append(f"  flag         {fl.text}")
    shipped = g.shipped_calibration()
    if shipped:
        lines.append(f"  calibrated   on {g.calibration_words()}: {'; '.join(shipped)}")
    return "\n".join(lines)


def _sealed_cell(f: BotFigures) -> str:
    """The sealed share with the walled-in share in brackets: "35% (10%)" ("–" when the table kept no sealed share)."""
    rate = f.sealed_rate
    return f"{'–' if rate is None else f'{100 * rate:.0f}%'} ({100 * f.walled_in_rate:.0f}%)"


def _markdown_legend(who: str) -> str:
    """What each column of ``report_markdown``'s table counts, and in what unit (a designer grading their own maps
    has no maps/README.md around the table)."""
    return (
        "grade: the deduction tier (Gentle, Moderate, Tricky, Fiendish; mapgen deduce); guesses: the explorer's "
        "guesses before every target is known (Training: before the map is unique); reveal set: the fewest cells "
        "whose reveal leaves this map the only one, in cells; targets known at: the explorer's step (cells revealed) "
        "at which every target is known; BOT win (95%): the share of the bot's games won, in %, with its 95% "
        f"interval (Wilson); {who} sealed (walled in): the share of its games in which no Path could be explored "
        "for a whole round (walled in, toll unpaid or map explored, as mapgen playtest counts them), in brackets "
        f"those walled in (no Path left open), in %; {who} mean days: the days its games lasted, on average; "
        "–: a figure not measured, or none (no targets, no flags)"
    )


def report_csv(grades: list[MapGrade]) -> str:
    rows = [g.row() for g in grades]
    fields = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def report_markdown(grades: list[MapGrade]) -> str:
    """The table of maps/README.md: one row per map. The sealed share and the mean days are one bot's, the band's
    (``MapGrade.head_bot``), named in their headers ("heuristic sealed (walled in)"); when the maps' band bots
    differ, the headers say "band bot" and each cell names its bot."""
    bots = list(dict.fromkeys(b for g in grades for b in g.bots))
    head_bots = list(dict.fromkeys(h.bot for g in grades if (h := g.head_bot) is not None))
    who = head_bots[0] if len(head_bots) == 1 else "band bot"
    head = ["map", "grade", "guesses", "reveal set", "targets known at"]
    played = any(g.play for g in grades)
    # the gap's header names the two bots it compares: the oracle and the best fair bot, or (graded without the
    # oracle) the older clairvoyant − deducer; a row whose gap is the other figure names it in its cell
    older = not played and any(g.gap is not None for g in grades)
    gap_head = "gap (clairvoyant − deducer)" if older else "gap (oracle − best fair)"
    head += [f"{b} win (95%)" for b in bots] + [gap_head, f"{who} sealed (walled in)", f"{who} mean days", "flags"]
    if played:  # the play difficulty: which fair bot did best, and the oracle gap
        head[-4:-4] = ["best fair bot"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in grades:
        d = g.deduction
        gr = d.grade if d and d.grade else {}
        cells = [
            g.map,
            gr.get("tier", "–"),
            str(gr.get("guesses", "–")),
            str(d.reveal_set) if d else "–",
            (str(d.targets_known_at) if d.targets_known_at else "–") if d else "–",
        ]
        for b in bots:
            f = g.bots.get(b)
            if f is None:
                cells.append("–")
            else:
                lo, hi = f.interval
                cells.append(f"{100 * f.win_rate:.0f}% ({100 * lo:.0f}–{100 * hi:.0f})")
        head_bot = g.head_bot
        named = f"{head_bot.bot}: " if head_bot and len(head_bots) > 1 else ""
        if played:
            cells.append(g.play.fair.bot if g.play else "–")
        if g.gap is None:
            cells.append("–")
        else:
            cells.append(("clairvoyant − deducer: " if played and not g.play else "") + f"{100 * g.gap:+.0f}")
        cells.append(named + _sealed_cell(head_bot) if head_bot else "–")
        cells.append(named + f"{head_bot.mean_days:.1f}" if head_bot else "–")
        cells.append("; ".join(f.text for f in g.flags).replace("|", "/") or "–")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", _markdown_legend(who)]  # what each column counts, in what unit
    if any(g.gap is None for g in grades):  # say what the gap is, and why a row has none
        fair = ", ".join(b for b in BOTS if b not in UNFAIR)
        what = (
            "the clairvoyant's win rate minus the deducer's, in points (graded without the oracle)"
            if older
            else "the oracle's win rate minus the best fair bot's, in points (what the hidden map costs a strong player)"
        )
        lines += ["", f"gap: {what}; –: not measured, as --bots did not play the oracle and a fair bot ({fair})"]
    played_under = sorted({g.variants for g in grades if g.variants})
    if played_under:  # the table has no column for them (one --variant for every map): a line under it
        lines += ["", "games played under the variants " + "; ".join(", ".join(v) for v in played_under)]
    return "\n".join(lines) + "\n"


__all__ = [
    "BotFigures",
    "Deduction",
    "Flag",
    "GradeSettings",
    "MapGrade",
    "Play",
    "assemble",
    "correlation",
    "deduce_map",
    "flags_for",
    "games_total",
    "grade",
    "grade_maps",
    "play_correlations",
    "play_games",
    "play_of",
    "report_csv",
    "report_markdown",
    "report_text",
    "spearman",
    "tasks_for",
]
