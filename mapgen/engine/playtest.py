"""Playtests: many seeded games of one map with one bot, in parallel, summed up in one report."""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import random
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from constraints.catalogue import Chapter, ChapterError, chapter_from_data, checked_chapter, is_shipped
from mapgen.engine.bots import BOTS, heuristic, make_bot
from mapgen.engine.game import LEVELS, LOSS_CAUSES, SEALED, SEALED_BY, Game, level_name
from mapgen.engine.play import play_game, replay
from mapgen.engine.traitor import chapter_for_mode
from mapgen.engine.walls import sealed_words
from mapgen.errors import InputError
from mapgen.inputs import Unreadable, a_kind, is_whole, read_json
from mapgen.mapfile import MapFileError, dumps_map, parse_map
from mapgen.model import Map, expect_map
from mapgen.output import Series, prepare_folder
from mapgen.terrain import quantity
from mapgen.workers import ctrl_c_held, start_worker

#: the width of a bin of the won games' score histogram (``score_summary``), in points
SCORE_BIN = 5


@dataclass(frozen=True)
class Settings:
    """Everything that decides a playtest's games apart from the map."""

    bot: str = "heuristic"
    players: int = 1
    characters: tuple | None = None
    gear: tuple | None = None
    medicine: bool = False
    seed: int = 0
    mode: str | None = None  # Maldonado: "coop" (default) or "traitor" (Hidden Traitor)
    budget: int | None = None  # search bots (ismcts, planner, oracle): their --budget (None: the bot's default)
    variants: tuple[str, ...] = ()  # named variants (mapgen/engine/variants.py); none: the rulebooks' reading
    reference: object = None  # a house-rule chapter (constraints.catalogue.Chapter) the bots reason with


@dataclass
class GameRecord:
    index: int
    seed: int
    outcome: str
    score: int
    days: int
    turns: int
    events: dict[str, int] = field(default_factory=dict)
    actions: list[int] = field(default_factory=list)
    sealed: dict | None = None  # why a sealed game was sealed (mapgen/engine/walls.py: explain_sealed)

    @property
    def won(self) -> bool:
        return self.outcome == "win"


def game_seed(seed: int, k: int) -> int:
    """The seed of game k of a playtest: fixed, whatever the number of processes."""
    return (seed * 1_000_003 + k) & 0x7FFFFFFF


class SettingsError(InputError, ValueError):
    """Playtest settings that cannot be used (an unknown bot, a seed or budget that is no whole number): exit 2."""


def _expect(m: Map, s: Settings, who: str) -> None:
    """TypeError that says what to pass when ``m`` is not a Map (a shipped map's name, a path) or ``s`` is not a
    Settings (a bot's name): an AttributeError from inside the game otherwise. A partial map is a WrongMapError (exit
    2, as ``mapgen playtest`` and ``grade`` report it), not the game's GameError (exit 1)."""
    expect_map(m, who, complete=True)
    if not isinstance(s, Settings):
        raise TypeError(
            f"{who} takes a Settings, not {a_kind(s)}: "
            "mapgen.engine.playtest.Settings(bot='heuristic', players=1, seed=0)"
        )
    if s.bot not in BOTS:  # a bare ValueError from the bots' table at the first game
        raise SettingsError(f"unknown bot {s.bot!r} (expected one of {', '.join(BOTS)})")
    if not is_whole(s.seed, 0):  # "can only concatenate str (not "int") to str" from game_seed
        raise SettingsError(f"a playtest's seed is a whole number from 0, not {s.seed!r}")
    if s.budget is not None and not is_whole(s.budget, 1):  # a str was handed to the search bot as it was
        raise SettingsError(f"a search bot's budget is a whole number from 1 (None: its default), not {s.budget!r}")


def make_game(m: Map, s: Settings, seed: int) -> Game:
    return Game(
        m,
        chapter=chapter_for_mode(m.chapter, s.mode),
        players=s.players,
        characters=s.characters,
        gear=s.gear,
        medicine=s.medicine,
        seed=seed,
        variants=s.variants,
        reference=s.reference,
    )


def play_one(m: Map, s: Settings, k: int, keep_actions: bool = False, game: Game | None = None) -> GameRecord:
    """Play game k: chance draws from Random(seed), player p's bot from Random(seed, p)."""
    if game is None:
        _expect(m, s, "play_one")
    seed = game_seed(s.seed, k)
    game = game or make_game(m, s, seed)
    state = game.new_initial_state()
    bots = [make_bot(s.bot, random.Random(seed * 8 + p + 1), map=m, budget=s.budget) for p in range(s.players)]
    play_game(state, bots, random.Random(seed))
    assert state.outcome is not None  # play_game plays to the end
    return GameRecord(
        k,
        seed,
        state.outcome,
        state.score,
        state.day,
        state.turn,
        dict(state.events),
        list(state.history) if keep_actions else [],
        state.sealed_why,
    )


_WORKER: dict = {}


def _init_worker(map_text: str, s: Settings, keep: bool) -> None:
    start_worker()  # Ctrl-C: the parent stops the pool (Pool.terminate) and reports it
    m = parse_map(map_text)
    _WORKER.update(map=m, settings=s, keep=keep, game=make_game(m, s, 0))


def _work(k: int) -> GameRecord:
    w = _WORKER
    return play_one(w["map"], w["settings"], k, w["keep"], w["game"])


def run_playtest(m: Map, s: Settings, games: int, jobs: int = 1, keep_actions: bool = False, progress=None, stop=None):
    """Play ``games`` games (``jobs`` processes); returns the records in game order.

    ``progress`` is called with the number of games finished so far. ``stop`` (called with that number before a
    further game is played, or as each game finishes when ``jobs`` processes play) ends the run when it returns true:
    the records of the games played, in order, are what a run of that many games returns (a game's play depends on
    its number only).
    """
    _expect(m, s, "run_playtest")
    if not is_whole(games, 0):  # -1 returned no games as if played; "5" failed on games / jobs
        raise SettingsError(f"games is a whole number from 0, not {games!r}")
    make_game(m, s, 0)  # settings errors surface here, before any process starts
    if games / max(1, jobs) >= heuristic.COMPILED_FROM_GAMES:  # enough games a process to repay loading numba
        heuristic.prefer_compiled()  # the same games: only faster (the workers fork with it)
    if jobs <= 1 or games < 2:
        game = make_game(m, s, 0)
        out = []
        for k in range(games):
            if stop is not None and stop(k):
                break
            out.append(play_one(m, s, k, keep_actions, game))
            if progress:
                progress(k + 1)
        return out
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    out = []
    chunk = max(1, min(50, games // (jobs * 8) or 1))
    with ctrl_c_held():  # every worker is forked here; a Ctrl-C meanwhile waits for the parent
        pool = ctx.Pool(jobs, initializer=_init_worker, initargs=(dumps_map(m), s, keep_actions))
    with pool:
        for rec in pool.imap(_work, range(games), chunksize=chunk):
            out.append(rec)
            if progress:
                progress(len(out))
            if stop is not None and len(out) < games and stop(len(out)):
                break  # the games still running in the pool end with it (terminated)
    return out


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarise(records: list[GameRecord], m: Map, s: Settings, source: str = "") -> dict:
    """The playtest report: the JSON contract plus bot, scores, levels, events and settings."""
    n = len(records)
    wins = sum(r.won for r in records)
    lo, hi = wilson(wins, n)
    losses = Counter(r.outcome for r in records if not r.won and r.outcome != SEALED)
    sealed = [r for r in records if r.outcome == SEALED]
    sealed_by = Counter(e.removeprefix("sealed: ") for r in sealed for e in r.events if e.startswith("sealed: "))
    levels = Counter(level_name(r.score) for r in records if r.won)
    events: dict[str, dict] = {}
    names = sorted({e for r in records for e in r.events}, key=_event_order)
    for e in names:
        turns = [r.events[e] for r in records if e in r.events]
        events[e] = {"games": len(turns), "mean_turn": round(sum(turns) / len(turns), 2)}
    game = make_game(m, s, 0)
    return {
        "map": source,
        "chapter": m.chapter,
        "bot": s.bot,
        "players": s.players,
        "team": [{"character": c or None, "gear": list(g)} for c, g in zip(game.characters, game.gear)],
        "seed": s.seed,
        "variants": sorted(game.variants),
        **({"house_rules": game.reference.name} if s.reference is not None else {}),
        "games": n,
        "wins": wins,
        "win_rate": round(wins / n, 4) if n else 0.0,
        "win_rate_ci": [round(lo, 4), round(hi, 4)],
        "mean_score": round(sum(r.score for r in records) / n, 3) if n else 0.0,
        "mean_score_wins": round(sum(r.score for r in records if r.won) / wins, 3) if wins else 0.0,
        "scores": [r.score for r in records],
        "levels": {lv: levels[lv] for lv in _level_names() if levels[lv]},
        # the spread of won games' scores (a won game nearly always reaches the top level)
        "win_scores": score_summary([r.score for r in records if r.won]),
        "losses": {c: losses[c] for c in sorted(losses, key=_cause_order)},
        "sealed": len(sealed),
        "sealed_rate": round(len(sealed) / n, 4) if n else 0.0,
        "sealed_by": {w: sealed_by[w] for w in SEALED_BY if sealed_by[w]},
        # every sealed game's reason: the walls (and whether another first Path avoids them), the tolls, or a
        # map explored (mapgen/engine/walls.py)
        "sealed_games": [
            {"game": r.index, "seed": r.seed, "turn": r.turns, **(r.sealed or {"why": "unknown"})} for r in sealed
        ],
        "mean_days": round(sum(r.days for r in records) / n, 3) if n else 0.0,
        "mean_turns": round(sum(r.turns for r in records) / n, 3) if n else 0.0,
        "events": events,
        "cards_approximate": any(c.approximate for c in [*game.challenges, *game.destiny, *game.threats, *game.kills]),
        **_traitor_keys(records, s),
        **({"budget": s.budget} if s.budget is not None else {}),
    }


def score_summary(scores: list[int], width: int = SCORE_BIN) -> dict:
    """The scores of won games: how many, the least, the quartiles (inclusive method), the most, and a histogram
    in bins of ``width`` points (``"30-34": count``, every bin from the least to the most); empty without wins."""
    if not scores:
        return {}
    s = sorted(scores)
    q1, median, q3 = statistics.quantiles(s, n=4, method="inclusive") if len(s) > 1 else [float(s[0])] * 3
    bins = Counter(x // width * width for x in s)
    return {
        "games": len(s),
        "min": s[0],
        "q1": round(q1, 2),
        "median": round(median, 2),
        "q3": round(q3, 2),
        "max": s[-1],
        "histogram": {f"{lo}-{lo + width - 1}": bins[lo] for lo in range(s[0] // width * width, s[-1] + 1, width)},
    }


def score_words(d: dict) -> str:
    """``score_summary`` in words: "29 to 55, quartiles 34 / 38 / 43; by 5 points: 25-29 3, 30-34 20, ..."."""
    if not d:
        return "no wins"
    bins = ", ".join(f"{b} {n}" for b, n in d["histogram"].items())
    return f"{d['min']} to {d['max']}, quartiles {d['q1']:g} / {d['median']:g} / {d['q3']:g}; by {SCORE_BIN} points: {bins}"


def _traitor_keys(records: list[GameRecord], s: Settings) -> dict:
    """Hidden Traitor mode: how often the Traitor wins and how often the Loyalists catch them."""
    if s.mode != "traitor":
        return {}
    n = len(records)
    wins = sum(r.outcome == "traitor" for r in records)
    caught = sum("traitor caught" in r.events for r in records)
    return {
        "mode": "traitor",
        "traitor_wins": wins,
        "traitor_win_rate": round(wins / n, 4) if n else 0.0,
        "traitor_caught": caught,
        "traitor_caught_rate": round(caught / n, 4) if n else 0.0,
    }


def _level_scores(name: str) -> str:
    """A level's scores, as the rulebook's table gives them: "28+" for the top, "22-27" below it."""
    los = [lo for lo, _ in LEVELS]
    k = _level_names().index(name)
    return f"{los[k]}+" if k == 0 else f"{los[k]}-{los[k - 1] - 1}"


def _level_names():
    return [name for _, name in LEVELS]


def _event_order(e: str):
    return (0, e) if not e.startswith("kill") else (1, int(e.split()[-1]) if e.split()[-1].isdigit() else 0)


def _cause_order(c: str):
    return (LOSS_CAUSES.index(c), c) if c in LOSS_CAUSES else (len(LOSS_CAUSES), c)


def report_words(rep: dict) -> dict:
    """The report's figures as the text report says them, for another page to say alike (the studio's Playtest):
    ``wins`` ("11/12 = 91.7% (95% interval 64.6% to 98.5%)", from the counts, rounded once: the JSON's 4-digit
    figures rounded again read 20.6% where grade says 20.7%), ``losses`` ("a Crew Member not saved 79, hunger 1",
    the causes in words, not the JSON's keys; "" without a loss) and ``causes`` (each loss key's words)."""
    n = rep["games"]
    lo, hi = wilson(rep["wins"], n)
    win_rate = rep["wins"] / n if n else 0.0
    causes = {k: cause_words(k) for k in rep["losses"]}
    return {
        "wins": f"{rep['wins']}/{n} = {100 * win_rate:.1f}% (95% interval {100 * lo:.1f}% to {100 * hi:.1f}%)",
        "losses": ", ".join(f"{causes[k]} {v}" for k, v in rep["losses"].items()),
        "causes": causes,
    }


def _house_words(rep: dict) -> str:
    """The report's house rules: ", house rules house.toml (fingerprint 0123...)" as a replay's header names them
    where the file is known (``rules``, as ``mapgen playtest --rules`` adds it), else the chapter file's name."""
    if rep.get("rules"):
        return f", house rules {rep['rules']} (fingerprint {rep['rules_fingerprint']})"
    return f", house rules {rep['house_rules']}" if rep.get("house_rules") else ""


def report_text(rep: dict) -> str:
    """The report for people."""
    team = "; ".join(f"{t['character'] or '-'} ({', '.join(t['gear']) or 'no gear'})" for t in rep["team"])
    words = report_words(rep)
    sealed_rate = rep["sealed"] / rep["games"] if rep["games"] else 0.0
    lines = [
        (
            f"{rep['map']}: {rep['chapter']}, {quantity(rep['games'], 'game')}, bot {rep['bot']}, {rep['players']} player(s): {team}, "
            f"seed {rep['seed']}"
            + (f", variants {', '.join(rep['variants'])}" if rep.get("variants") else "")
            + _house_words(rep)
        ),
        (
            f"  wins         {words['wins']}"
            # Hidden Traitor: a win is the Loyalists' (the Traitor's wins are a loss cause, and the traitor line)
            + (": the Loyalists' wins (3 or more Crew Members saved)" if rep.get("mode") == "traitor" else "")
        ),
        (
            f"  mean score   {rep['mean_score']:.1f} over all games (a loss or a sealed game scores 0); "
            # without a win there is no mean over wins: "0.0 over wins" read as won games scoring nothing
            + (f"{rep['mean_score_wins']:.1f} over wins" if rep["wins"] else "no wins")
        ),
    ]
    if rep["levels"]:
        # the levels count won games only (a loss or a sealed game reaches none): say of how many
        won = quantity(rep["wins"], "won game")
        lines.append(
            f"  levels       of the {won}: "
            + ", ".join(f"{k} ({_level_scores(k)}) {v}" for k, v in rep["levels"].items())
        )
    if rep.get("win_scores"):
        lines.append("  win scores   " + score_words(rep["win_scores"]))
    if rep["losses"]:
        lines.append("  losses       " + words["losses"])
    # always shown, as grade shows it: games and share ("7/20 = 35.0%"), then the games of each reason
    # a game walled in with only the walls left unexplored (the Vameter's own Path at the end) explored the rest of
    # the map: said beside the count, which the walled-in cap reads, so that the count does not read as walls to move
    ended = sum(1 for d in rep.get("sealed_games", []) if d.get("why") == "walled in" and "needs" in d)
    why = ", ".join(
        f"{k} {v}" + (f" ({ended} of them with the rest of the map explored)" if k == "walled in" and ended else "")
        for k, v in rep["sealed_by"].items()
    )
    lines.append(
        f"  sealed       {rep['sealed']}/{rep['games']} = {100 * sealed_rate:.1f}% (no Path could be explored "
        "for a whole round: not a rulebook loss" + (f"; {why})" if why else ")")
    )
    lines += _sealed_lines(rep.get("sealed_games", []))
    lines.append(f"  mean days    {rep['mean_days']:.2f} (turns {rep['mean_turns']:.1f})")
    if rep.get("mode") == "traitor":
        lines.append(
            f"  traitor      wins {rep['traitor_wins']}/{rep['games']}, caught {rep['traitor_caught']}/{rep['games']}"
        )
    for e, d in rep["events"].items():
        if e.startswith("sealed: "):
            continue
        lines.append(
            f"  {_event_words(e):<12} turn {d['mean_turn']:.1f} on average, "
            f"in {d['games']} of {quantity(rep['games'], 'game')}"
        )
    if rep.get("cards_approximate", True):
        lines.append("  (cards: designed, approximate sets; see mapgen/engine/cards/*.toml)")
    return "\n".join(lines)


#: the sealed reasons the text report shows one by one, the most frequent first (a 1000-game fauna-1 run had 180),
#: and the game numbers a reason's line lists (the first line of that run listed 116)
SEALED_SHOWN, SEALED_GAMES_SHOWN = 10, 8


def _sealed_lines(games: list[dict], shown: int = SEALED_SHOWN) -> list[str]:
    """The sealed games' reasons, games with the same reason on one line (their numbers listed): the ``shown``
    most frequent, then one line counting the rest, which ``--json``'s ``sealed_games`` holds."""
    by: dict[str, list[int]] = {}
    for d in games:
        why = sealed_words(d) if d.get("why") != "unknown" else "no reason recorded"
        by.setdefault(why, []).append(d["game"])
    ranked = sorted(by.items(), key=lambda x: (-len(x[1]), x[0]))
    lines = []
    for why, ks in ranked[:shown]:
        listed = ", ".join(map(str, ks[:SEALED_GAMES_SHOWN]))
        if len(ks) > SEALED_GAMES_SHOWN:
            listed += f" and {len(ks) - SEALED_GAMES_SHOWN} more"
        lines.append(f"    {len(ks):>4} x {why} (game{'s' if len(ks) > 1 else ''} {listed})")
    rest = ranked[shown:]
    if rest:
        n = sum(len(ks) for _, ks in rest)
        lines.append(
            f"    and {quantity(len(rest), 'more reason')} ({quantity(n, 'game')}): --json lists them all (sealed_games)"
        )
    return lines


def _event_words(e: str) -> str:
    """An event's name for people: Maldonado's finale records "saved 3" (3 Crew Members saved), which the
    report showed as "saved 3" beside "kill 3" and read as the third Crew Member saved; the JSON keeps the name."""
    if e.startswith("saved ") and e.split()[-1].isdigit():
        return f"{e.split()[-1]} Crew saved"
    return e


def cause_words(c: str) -> str:
    return {
        "thirst": "thirst",
        "hunger": "hunger",
        "no_challenges": "no Challenge cards left",
        "crew_lost": "every Crew token lost",
        "crew_died": "a Crew Member not saved",
        "traitor": "the Traitor won",
    }.get(c, c)


# ----- replays -----
#: the format version ``save_replays`` writes; ``load_replay`` reads every version of ``REPLAY_FIELDS``
REPLAY_VERSION = 2
#: the fields of a replay file of each format version (``replay_record``), the only ones ``load_replay`` accepts.
#: Version 2 added the bot's search ``budget`` and the house ``rules`` the bots reasoned with (``playtest --rules``)
REPLAY_FIELDS: dict[int, tuple[str, ...]] = {
    1: (
        "version",
        "map",
        "bot",
        "players",
        "characters",
        "gear",
        "medicine",
        "mode",
        "variants",
        "seed",
        "game",
        "outcome",
        "score",
        "actions",
    ),
}
REPLAY_FIELDS[2] = (
    "version",
    "map",
    "bot",
    "players",
    "budget",
    "characters",
    "gear",
    "medicine",
    "mode",
    "variants",
    "rules",
    "seed",
    "game",
    "outcome",
    "score",
    "actions",
)
#: the keys of a replay's ``rules``: the house file's name as given (null: not read from a file), the rules'
#: ``chapter_fingerprint`` and the file's parsed TOML itself
RULES_KEYS = ("file", "fingerprint", "chapter")


def rules_entry(s: Settings, rules_file: str | None = None) -> dict | None:
    """A replay's ``rules``: None under the shipped rules, else the house rules the bots reasoned with, whole (the
    chapter file's parsed TOML: a replay plays back without the file, as it does without the map file), with its
    file's name and fingerprint. SettingsError for a house chapter that was not read from a chapter file (its
    ``data`` missing, or not the rules it holds: a profile's rules added)."""
    chapter = s.reference
    if chapter is None:
        return None
    assert isinstance(chapter, Chapter)  # as Game takes it
    if is_shipped(chapter):  # the registry's own chapter: the shipped rules, as Game's default
        return None
    from mapgen.generate import rules_record  # deferred: the command's library, only for house rules
    from mapgen.solving.compiled import chapter_fingerprint  # deferred: numpy's module, only for house rules

    data = getattr(chapter, "data", None)
    fingerprint = chapter_fingerprint(chapter)
    if not isinstance(data, dict) or chapter_fingerprint(chapter_from_data(data)) != fingerprint:
        raise SettingsError(
            "a replay holds the house rules as their chapter file holds them: give Settings(reference=...) a chapter "
            "read by constraints.catalogue.load_chapter"
        )
    name = rules_record(rules_file, chapter).get("rules") if rules_file else None
    return {"file": name, "fingerprint": fingerprint, "chapter": data}


def replay_record(m: Map, s: Settings, rec: GameRecord, rules: dict | None = None) -> dict:
    """A replay file's content (``rules``: ``rules_entry(s)``, made once for a run's files)."""
    return {
        "version": REPLAY_VERSION,
        "map": dumps_map(m),
        "bot": s.bot,
        "players": s.players,
        "budget": s.budget,
        "characters": list(s.characters) if s.characters else None,
        "gear": [list(g) for g in s.gear] if s.gear else None,
        "medicine": s.medicine,
        "mode": s.mode,
        "variants": list(s.variants),
        "rules": rules,
        "seed": rec.seed,
        "game": rec.index,
        "outcome": rec.outcome,
        "score": rec.score,
        "actions": rec.actions,
    }


def replay_paths(directory: str | Path, games: int) -> list[Path]:
    """The files ``save_replays`` writes for games 0..games-1: DIR/game-NNNNN.json."""
    return [Path(directory) / f"game-{k:05d}.json" for k in range(games)]


def replay_series(directory: str | Path, games: int, *, force: bool = False) -> Series:
    """The replay files of a run of ``games`` games in ``directory``: game-NNNNN.json, 0 to games - 1."""
    return Series(directory, "playtest --replay", r"game-(\d{5,})\.json", _replay_name, games, force=force)


def _replay_name(k: int) -> str:
    return f"game-{k:05d}.json"


def check_replay_folder(directory: str | Path, games: int, *, force: bool = False) -> None:
    """Before playing: the folder can be made and written, no replay file is in the way unless ``force``, and no
    replay of an earlier run would be left beside this run's (``Series.check``)."""
    replay_series(directory, games, force=force).check()
    prepare_folder(directory)


def save_replays(
    directory: str | Path,
    m: Map,
    s: Settings,
    records: list[GameRecord],
    *,
    force: bool = False,
    rules_file: str | None = None,
) -> tuple[list[Path], list[str]]:
    """Save each game as (seed, actions), atomically; an existing file is replaced only with ``force``, when the
    earlier run's other replay files (as listed by mapgen) are removed. Under house rules (``s.reference``) each file
    holds them, with ``rules_file``'s name (the --rules file as given). The paths written, the names removed."""
    rules = rules_entry(s, rules_file)
    series = replay_series(directory, len(records), force=force)
    series.check()  # again: the folder may have changed while the games were played
    d = prepare_folder(directory)
    paths = [
        series.write(d / _replay_name(rec.index), json.dumps(replay_record(m, s, rec, rules)) + "\n") for rec in records
    ]
    return paths, series.finish()


class ReplayError(InputError, ValueError):
    """A replay file that cannot be played back."""


def _shown(value) -> str:
    """A replay field's wrong value as the message repeats it: as JSON writes a scalar (a string quoted), a short
    list as written, anything longer by its kind."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, dict):
        return "an object"
    text = repr(value)
    if len(text) <= 40:
        return text
    return "a list" if isinstance(value, list) else text[:39] + "…"


def _is_names(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


#: each field a replay must or may hold: (required, its test, what it must be); None where the field may be null
_REPLAY_KINDS: dict = {
    "map": (True, lambda v: isinstance(v, str), "a map file's text"),
    "players": (True, is_whole, "a whole number of players (1 to 4)"),
    "seed": (True, is_whole, "a whole number"),
    "bot": (False, lambda v: v is None or isinstance(v, str), "a bot's name"),
    "characters": (False, lambda v: v is None or _is_names(v), "a list of character names"),
    "gear": (
        False,
        lambda v: v is None or (isinstance(v, list) and all(_is_names(g) for g in v)),
        "a list of each player's Gear (lists of names)",
    ),
    "medicine": (False, lambda v: isinstance(v, bool), "true or false"),
    "mode": (False, lambda v: v is None or isinstance(v, str), "coop, traitor or null"),
    "variants": (False, lambda v: v is None or _is_names(v), "a list of variant names"),
    "budget": (False, lambda v: v is None or is_whole(v, 1), "the search bot's budget, a whole number from 1, or null"),
    "rules": (False, lambda v: v is None or isinstance(v, dict), "the house rules' file, fingerprint and chapter"),
    "game": (False, lambda v: v is None or is_whole(v), "a whole number"),
    "outcome": (False, lambda v: v is None or isinstance(v, str), "the game's end as text"),
    "score": (False, lambda v: v is None or is_whole(v), "a whole number"),
}


def _check_fields(data: dict) -> str | None:
    """What is wrong with a replay's fields (a missing one, one of the wrong kind), or None."""
    for key, (required, ok, what) in _REPLAY_KINDS.items():
        if key not in data:
            if required:
                return f"missing field {key!r}"
        elif not ok(data[key]):
            return f"{key}: {what}, not {_shown(data[key])}"
    for k, a in enumerate(data["actions"]):
        if not is_whole(a):
            return f"actions: item {k + 1} is {_shown(a)}, not an action number"
    return None


def load_replay(path: str | Path) -> tuple[Game, list[int], dict]:
    """The game and its actions from a replay file written by ``save_replays``. Every action is played once here,
    so a file that cannot be played back as it was recorded (an illegal action, a game cut short, another end
    than the one recorded) is a ReplayError before the playback starts."""
    try:
        data = read_json(path, "replay file")
    except Unreadable as e:
        raise ReplayError(f"{path}: {e}") from None
    version = data.get("version") if isinstance(data, dict) else None
    if is_whole(version) and version not in REPLAY_FIELDS and isinstance(data.get("actions"), list):
        readable = " and ".join(map(str, REPLAY_FIELDS))
        raise ReplayError(
            f"{path}: a replay file of format version {version}; this mapgen plays back versions {readable} "
            "(record the game again with this mapgen's playtest --replay)"
        )
    if (
        not isinstance(data, dict)
        or not is_whole(version)
        or version not in REPLAY_FIELDS
        or not isinstance(data.get("actions"), list)
    ):
        raise ReplayError(f"{path}: not a replay file written by mapgen playtest --replay")
    known = REPLAY_FIELDS[version]
    unknown = next((k for k in data if k not in known), None)
    if unknown is not None:  # an edited file: a misspelt field would otherwise be ignored
        raise ReplayError(
            f"{path}: unknown field {unknown!r} (replay files of version {version} have: {', '.join(known)})"
        )
    problem = _check_fields(data)
    if problem is not None:
        raise ReplayError(f"{path}: {problem}")
    try:
        m = parse_map(data["map"])  # its problem alone: the line below names the file (once)
        gear = tuple(tuple(g) for g in data["gear"]) if data.get("gear") else None
        chars = tuple(data["characters"]) if data.get("characters") else None
        game = Game(
            m,
            chapter=chapter_for_mode(m.chapter, data.get("mode")),
            players=data["players"],
            characters=chars,
            gear=gear,
            medicine=data.get("medicine", False),
            seed=data["seed"],
            variants=tuple(data.get("variants") or ()),
            reference=_house_rules(path, data.get("rules")),
        )
    except ReplayError:
        raise
    except (MapFileError, KeyError, TypeError, ValueError) as e:
        raise ReplayError(f"{path}: {e}") from None
    actions = list(data["actions"])
    try:
        state = None
        for _, state in play_back(game, actions):
            pass
    except ReplayError as e:
        raise ReplayError(f"{path}: {e}") from None
    assert state is not None
    _check_end(path, state, data, len(actions))
    return game, actions, data


def _house_rules(path, rules: dict | None):
    """The house rules a replay holds (``rules_entry``), checked against the fingerprint it records; None: the
    shipped rules."""
    if rules is None:
        return None
    from mapgen.solving.compiled import chapter_fingerprint  # deferred: numpy's module, only for house rules

    unknown = next((k for k in rules if k not in RULES_KEYS), None)
    if unknown is not None:
        raise ReplayError(f"{path}: rules: unknown field {unknown!r} (rules has: {', '.join(RULES_KEYS)})")
    missing = next((k for k in RULES_KEYS if k not in rules), None)
    if missing is not None:
        raise ReplayError(f"{path}: rules: missing field {missing!r}")
    if not isinstance(rules["file"], str | None) or not isinstance(rules["fingerprint"], str):
        raise ReplayError(f"{path}: rules: the house file's name (or null) and the rules' fingerprint, as text")
    if not isinstance(rules["chapter"], dict):
        raise ReplayError(f"{path}: rules: chapter is a chapter file's content, not {_shown(rules['chapter'])}")
    try:
        chapter = checked_chapter(rules["chapter"])
    except ChapterError as e:
        raise ReplayError(f"{path}: rules: {e}") from None
    held = chapter_fingerprint(chapter)
    if held != rules["fingerprint"]:
        raise ReplayError(
            f"{path}: rules: the house rules it holds have fingerprint {held}, but it records {rules['fingerprint']} "
            "(an edited file)"
        )
    return chapter


def rules_words(data: dict) -> str:
    """A replay's house rules as its header names them: ", house rules house.toml (fingerprint 0123...)"; ""
    under the shipped rules."""
    rules = data.get("rules")
    if not rules:
        return ""
    return f", house rules {rules['file'] or rules['chapter'].get('name')} (fingerprint {rules['fingerprint']})"


def _check_end(path, state, data: dict, n: int) -> None:
    """ReplayError unless the actions end the game as the file records it (outcome and score)."""
    recorded = (data.get("outcome"), data.get("score"))
    if recorded == (None, None):
        return
    said = ", ".join(x for x in (recorded[0], None if recorded[1] is None else f"score {recorded[1]}") if x is not None)
    if not state.is_terminal():
        raise ReplayError(
            f"{path}: the game is not over after its {n} recorded actions, but the file records its end ({said}): "
            "the file was cut short or edited"
        )
    got = (state.outcome, state.score)
    if any(want is not None and want != have for want, have in zip(recorded, got)):
        raise ReplayError(
            f"{path}: the recorded actions end the game in {state.outcome}, score {state.score}, but the file "
            f"records {said} (an edited file, or one recorded by another version of mapgen)"
        )


def play_back(game: Game, actions: list[int]):
    """Yield (action, state after it) for each recorded action, checking each is legal."""
    state = game.new_initial_state()
    yield None, state
    for a in actions:
        try:
            text = state.action_to_string(a)
        except (IndexError, KeyError, ValueError):  # a number no action of this game has (an edited file)
            raise ReplayError(f"the recorded action {a} is not an action of this game") from None
        try:
            state.apply_action(a)
        except ValueError as e:
            raise ReplayError(f"the recorded action {a} ({text}) cannot be played here: {e}") from None
        yield text, state


__all__ = [
    "BOTS",
    "REPLAY_FIELDS",
    "REPLAY_VERSION",
    "GameRecord",
    "ReplayError",
    "Settings",
    "check_replay_folder",
    "load_replay",
    "play_back",
    "replay",
    "replay_paths",
    "report_text",
    "report_words",
    "rules_entry",
    "rules_words",
    "run_playtest",
    "save_replays",
    "score_summary",
    "score_words",
    "summarise",
    "wilson",
]
