"""Build the graded map library: per chapter a folder of maps spanning the deduction grades, and its README table.

``python -m maps.build`` makes, for every chapter, ``maps/CHAPTER/CHAPTER-1.toml`` ... (8 maps; Training 2,
like the printed game): one pass over the candidates from the seed on, keeping for each tier of the
chapter's share the first whose deduction grade is that tier and which pass the chapter's quality
defaults (heuristic win-rate band, walled-in share; ``mapgen.quality``). Each kept map is then graded in full (deduction + 200 heuristic,
100 deducer, 200 clairvoyant, 100 scout and 100 oracle games: ``mapgen.quality.DEFAULT_GAMES``) and written with its ``[grade]`` table, numbered easiest first (tier,
then heuristic win rate, highest first). ``maps/README.md`` gets the table ``mapgen grade --markdown``
prints, the rank correlations between tier and the deducer's win rate, the best fair bot's (play difficulty)
and the oracle gap, and this command. Same seed, same library.

``--regrade`` grades the shipped maps again instead (after an engine or bot change): the same maps under the
same numbers (a map's name is how users know it), with new ``[grade]`` tables.

Options: ``--chapters training,fauna``, ``--seed S``, ``--jobs J`` or ``--ray ADDRESS``, ``--time-limit``
(seconds per chapter), ``--candidates`` (per chapter), ``--out DIR`` (default: this folder), ``--force`` (replace the library
and remove the flat ``CHAPTER-N.toml`` files of the chapters rebuilt).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

from constraints.catalogue import chapter_names
from mapgen.campaign import backend
from mapgen.errors import exit_code
from mapgen.grade import (  # noqa: F401 (spearman: the library table's statistic, tested here)
    GradeSettings,
    MapGrade,
    correlation,
    grade_maps,
    report_markdown,
    spearman,
)
from mapgen.mapfile import dumps_map, read_map, with_grade_table
from mapgen.output import check_files, prepare_folder, write_text
from mapgen.profile import default_profile
from mapgen.quality import DEFAULT_GAMES, SLOW_BOTS, chapter_quality, tier_index
from mapgen.target import TargetMissed, kept_map, search

FOLDER = Path(__file__).parent
#: maps per tier: 2 of each of the four tiers (8); Training 2 maps, Gentle and Moderate (a first game)
PER_TIER = {"training": {"Gentle": 1, "Moderate": 1}}
DEFAULT_PER_TIER = {"Gentle": 2, "Moderate": 2, "Tricky": 2, "Fiendish": 2}
COMMAND = "python -m maps.build --force --jobs 2"
#: after an engine or bot change: the same maps graded again under the same numbers, their [grade] tables refreshed
REGRADE = "python -m maps.build --regrade --force --jobs 2"


def maps_in(chapter: str) -> int:
    """How many maps the chapter's library folder holds (8; Training 2)."""
    return sum(PER_TIER.get(chapter, DEFAULT_PER_TIER).values())


def build_chapter(
    chapter: str, *, seed: int, where, time_limit: float, games: dict, candidates: int = 2000, log=print
) -> list:
    """(map, full grade) for the chapter's library, easiest first; TargetMissed when a tier cannot be filled."""
    profile = default_profile(chapter)
    per_tier = PER_TIER.get(chapter, DEFAULT_PER_TIER)
    q = replace(chapter_quality(chapter), guessed_targets=None, games={"heuristic": games["heuristic"]})
    res = search(
        chapter, profile, q, seed=seed, time_limit=time_limit, max_candidates=candidates, where=where, per_tier=per_tier
    )
    log(f"{chapter}: {res.summary()}")
    if not res.done:
        tiers = Counter(c.grade.tier for c in res.kept)
        short = ", ".join(f"{t} {tiers[t]}/{n}" for t, n in per_tier.items() if tiers[t] < n)
        raise TargetMissed(f"{chapter}: tiers not filled ({short}) after {res.tried} candidates", res)
    return grade_in_order(chapter, [kept_map(c) for c in res.kept], where=where, games=games)


def grade_all(chapter: str, chosen: list, *, where, games: dict) -> list:
    """(map, full grade) for each map, in the order given."""
    full = grade_maps(
        [(f"{chapter}-{m.briefing.number}", m) for m in chosen],
        GradeSettings(games=dict(games), seed=0),  # mapgen grade's default seed: the README table is its output
        quality=chapter_quality(chapter),
        where=where,
    )
    return list(zip(chosen, full))


def grade_in_order(chapter: str, chosen: list, *, where, games: dict) -> list:
    """(map, full grade) for each map, easiest first: deduction tier, then heuristic win rate, highest first."""
    graded = grade_all(chapter, chosen, where=where, games=games)
    return sorted(graded, key=lambda mg: (tier_index(mg[1].tier), -mg[1].bots["heuristic"].win_rate))


def regrade_chapter(chapter: str, folder: Path, *, where, games: dict, log=print) -> list:
    """The chapter's shipped maps graded again (after an engine or bot change): the same maps under the same
    numbers, new ``[grade]`` tables. A map's name is how users know it (``mapgen playtest fauna-1``, a printed
    sheet's "Map 1"), so a regrade keeps it: the deduction tier, which orders the library, does not change with
    the bots, and within a tier the order stays the one the build gave (measured 2026-12-07: the heuristic's
    decision rules would have swapped flora-1 with flora-2, 95.5% against 95.0%, and maldonado-5 with -6)."""
    paths = sorted((folder / chapter).glob(f"{chapter}-*.toml"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    if not paths:
        raise ValueError(f"{folder / chapter}: no {chapter}-N.toml maps to grade again")
    log(f"{chapter}: grading {len(paths)} maps again")
    return grade_all(chapter, [read_map(p) for p in paths], where=where, games=games)


def write_library(out: Path, built: dict[str, list], *, force: bool) -> list[Path]:
    """Write CHAPTER/CHAPTER-K.toml for every chapter built (with its [grade] table and ``number = K``: one
    numbering, the file's, which the map's picture shows as "Map K")."""
    paths = {ch: [out / ch / f"{ch}-{k}.toml" for k in range(1, len(pairs) + 1)] for ch, pairs in built.items()}
    check_files([p for ps in paths.values() for p in ps], force=force)
    written = []
    for ch, pairs in built.items():
        prepare_folder(out / ch)
        for k, (p, (m, g)) in enumerate(zip(paths[ch], pairs), start=1):
            m = replace(m, briefing=replace(m.briefing, number=k))
            m = with_grade_table(m, g.table())  # the table records the map it graded
            written.append(write_text(p, dumps_map(m), force=force))
        if force:  # the flat files of the old layout would shadow nothing but confuse: remove them
            for old in out.glob(f"{ch}-*.toml"):
                old.unlink()
    return written


def readme(grades: list) -> str:
    corr = correlation(grades, lambda g: g.bots["deducer"].win_rate if "deducer" in g.bots else None)
    fair = correlation(grades, lambda g: g.play.fair.win_rate if g.play else None)
    gap = correlation(grades, lambda g: g.play.gap if g.play else None)

    def scout(g):
        return g.bots["scout"].win_rate if "scout" in g.bots else None

    chapters = list(dict.fromkeys(g.chapter for g in grades))
    per_chapter = ", ".join(f"{ch} {correlation([g for g in grades if g.chapter == ch], scout)}" for ch in chapters)
    return f"""# Shipped maps: the graded library

A folder per chapter (`fauna/fauna-1.toml` ...): 8 maps per chapter (Training: 2, like the printed game),
from the gentlest deduction grade to the most fiendish, numbered easiest first (deduction grade, then
the heuristic bot's win rate when the library was built, highest first; a regrade keeps the numbers). Use
them by name: `mapgen render fauna-1 -o fauna-1.png`, `mapgen playtest fauna-1`, or `maps.load("fauna-1")`.
Each file records its grade and playtest figures in a `[grade]` table (which `mapgen validate` ignores);
every map passes `mapgen validate maps/*/*.toml`.

The one command that rebuilds the library (same seed, same maps; it takes a while: each candidate is
deduced and played):

```bash
{COMMAND}
```

After a change to the engine or the bots, the same maps graded again (new `[grade]` tables; each map keeps
its number, the name users know it by: the deduction tiers that order the library do not change with the
bots):

```bash
{REGRADE}
```

With `--chapters flora,vameter` only those are graded again and the table keeps the others' figures as their
files record them; `python -m maps.build --readme` writes this table from the files alone.

The table below is what `mapgen grade maps/*/*.toml --markdown` prints (run from the repository). Rank correlation (Spearman)
between the deduction grade and the deducer's win rate over the library: {corr}.

Play difficulty: the best fair bot's win rate (the `scout`'s, unless another fair bot does better), the
`oracle`'s (a search with the map in view: the upper bound) and the gap between them (the "gap" column: what
the hidden map costs a strong player). Rank correlation (Spearman) over the library between the deduction
grade and the best fair bot's win rate: {fair}; between the deduction grade and the gap: {gap}. Between the
deduction grade and the fast fair player's (`scout`) win rate: {correlation(grades, scout)} over the library, and
within each chapter (whose maps span the grades; the chapters' win rates differ far more than the grades'):
{per_chapter}.

"heuristic sealed (walled in)": the share of the heuristic's games (the band bot's: the quality checks read
its games) in which no Path could be explored for a whole round (as `mapgen playtest` counts them: walled in,
toll unpaid or map explored) and, in brackets, those walled in (no Path left open: what the quality check
`max_walled_in` reads); "heuristic mean days": the mean days of its games. "–" marks a figure the map has not:
no targets (Training's "targets known at"), no flags, or, in "heuristic sealed (walled in)", a `[grade]` table
written before issue 41 that records the walled-in share only (`python -m maps.build --regrade` refreshes it).

{report_markdown(grades)}"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chapters", default="training,fauna,flora,vameter,maldonado")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--ray", default=None)
    ap.add_argument("--time-limit", type=float, default=3600.0, help="seconds per chapter (default 3600)")
    ap.add_argument("--candidates", type=int, default=2000, help="most candidates per chapter (default 2000)")
    ap.add_argument(
        "--games",
        type=int,
        default=None,
        help="games per bot (default: mapgen.quality.DEFAULT_GAMES; N given: half of N for the scout and the oracle)",
    )
    ap.add_argument("--out", default=str(FOLDER))
    ap.add_argument("--force", action="store_true")
    ap.add_argument(
        "--regrade",
        action="store_true",
        help="grade the shipped maps again (same maps, same numbers): new [grade] tables",
    )
    ap.add_argument(
        "--readme",
        action="store_true",
        help="only write README.md's table from the [grade] tables the map files record (no map is played)",
    )
    args = ap.parse_args(argv)
    if args.readme:
        return write_readme(Path(args.out), [], {})
    games = dict(DEFAULT_GAMES)
    if args.games:
        games = {b: -(-args.games // SLOW_BOTS.get(b, 1)) for b in DEFAULT_GAMES}
    where = backend(args.jobs, args.ray)
    out = Path(args.out)
    chapters = args.chapters.split(",")
    built = {}
    try:
        # the destination first, before hours of work: the files this run writes, and the README
        sizes = {ch: len(list((out / ch).glob(f"{ch}-*.toml"))) if args.regrade else maps_in(ch) for ch in chapters}
        check_files([out / ch / f"{ch}-{k}.toml" for ch in chapters for k in range(1, sizes[ch] + 1)], force=args.force)
        for ch in chapters:
            if args.regrade:
                built[ch] = regrade_chapter(ch, out, where=where, games=games)
            else:
                built[ch] = build_chapter(
                    ch, seed=args.seed, where=where, time_limit=args.time_limit, games=games, candidates=args.candidates
                )
        write_library(out, built, force=args.force)
    except Exception as e:  # noqa: BLE001 (a script: one line and the CLI's exit codes)
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        code = exit_code(e)
        return 2 if isinstance(e, ValueError) and code is None else code or 1
    # the rows `mapgen grade maps/*/*.toml --markdown` prints: the shell's order, each map by its path
    rows = [(f"maps/{ch}/{ch}-{k}.toml", g) for ch, pairs in built.items() for k, (_, g) in enumerate(pairs, 1)]
    return write_readme(out, rows, built)


def write_readme(out: Path, rows: list, built: dict) -> int:
    """README.md's table: the grades of the chapters built this run (``rows``), the others' as their files
    record them (a regrade of some chapters refreshes the whole table); a chapter with no graded files in the
    folder leaves the README as it was."""
    n = sum(len(p) for p in built.values())
    recorded = [recorded_grades(out, ch) for ch in chapter_names() if ch not in built]
    if not all(recorded):  # the README's table covers the whole library
        print(f"wrote {n} maps; {out / 'README.md'} left as it was (its table needs every chapter's graded maps)")
        return 0
    rows = rows + [row for found in recorded for row in found]
    grades = [replace(g, map=name) for name, g in sorted(rows, key=lambda r: r[0])]
    (out / "README.md").write_text(readme(grades), encoding="utf-8")
    print(f"wrote {n} maps and {out / 'README.md'}")
    return 0


def recorded_grades(out: Path, chapter: str) -> list:
    """(path as the README names it, MapGrade) for a chapter's map files with a ``[grade]`` table, in order;
    empty when the folder has none, or when one of them is not graded."""
    paths = sorted((out / chapter).glob(f"{chapter}-*.toml"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    found = []
    for p in paths:
        m = read_map(p)
        if "grade" not in m.meta:
            return []
        found.append((f"maps/{chapter}/{p.name}", MapGrade.from_table(f"maps/{chapter}/{p.name}", m, m.meta["grade"])))
    return found


if __name__ == "__main__":
    sys.exit(main())
