"""``mapgen grade``: how each map deduces and plays, with flags for maps not worth printing.

Also the quality options shared with ``mapgen generate`` (``--grade``, ``--win-rate``, ``--max-walled-in``,
``--jobs``, ``--ray``) and the progress bar of a campaign.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from dataclasses import replace

import click

from mapgen.cli.errors import about, about_settings
from mapgen.cli.options import (
    InName,
    Share,
    checked_map,
    jobs_option,
    json_option,
    map_argument,
    reject,
    rules_file,
    rules_option,
    seed_option,
    time_limit_option,
    typed,
    variant_option,
)
from mapgen.deduce_text import TIERS
from mapgen.inputs import did_you_mean


def parse_win_rate(value: str | None) -> tuple[str | None, tuple[float, float]] | None:
    """``[BOT:]LO-HI`` with shares (0.25-0.6) or percentages (25%-60%)."""
    if value is None:
        return None
    bot, _, band = value.rpartition(":")
    bot = bot.strip().lower()  # any case, as --bot takes it
    from mapgen.engine.bots import BOTS  # deferred: ortools, only when the command runs

    if bot and bot not in BOTS:
        reject("--win-rate", f"unknown bot {bot!r}{did_you_mean(bot, BOTS)} (expected one of {', '.join(BOTS)})")
    try:
        lo_s, hi_s = band.split("-")
        lo, hi = (float(x.strip().rstrip("%")) / (100 if x.strip().endswith("%") else 1) for x in (lo_s, hi_s))
    except ValueError:
        reject("--win-rate", f"expected [BOT:]LEAST-MOST, like heuristic:0.25-0.6 or 25%-60%, not {value!r}")
    if not (0 <= lo <= hi <= 1):
        reject("--win-rate", f"a band of shares between 0 and 1 with the least first, not {value!r}")
    return bot or None, (lo, hi)


def quality_options(f):
    """--grade, --win-rate, --max-walled-in: targets that override a profile's [quality] table."""
    f = click.option(
        "--max-walled-in",
        type=Share(),
        default=None,
        help="Largest share of games sealed walled in: no Path left open (the band's bot); 0.2 or 20%.",
    )(f)
    f = click.option(
        "--win-rate",
        "win_rate",
        metavar="[BOT:]LO-HI",
        default=None,
        help="Win-rate band for a bot (default heuristic), e.g. heuristic:0.25-0.6 or 25%-60%.",
    )(f)
    f = click.option(
        "--grade",
        "grade_tier",
        type=click.Choice(TIERS, case_sensitive=False),
        default=None,
        help="The deduction grade asked.",
    )(f)
    return f


def campaign_options(f):
    f = click.option(
        "--ray",
        "ray_address",
        metavar="ADDRESS",
        default=None,
        help='Run on Ray: "auto" (this machine\'s cluster, or a new local one), "local" (a new local one) or a '
        'cluster address (pip install ".[ray]").',
    )(f)
    f = jobs_option()(f)
    return f


def qualities(
    profile_file: str | None, chapters, grade_tier, win_rate, max_walled_in, *, defaults: bool = True
) -> dict:
    """Per chapter: the profile's [quality] table over the chapter's defaults (with ``defaults``; else over
    no check), with the options over both."""
    from mapgen.quality import canonical_tier, load_quality  # deferred: the command's library, only when it runs

    band = parse_win_rate(win_rate)
    out = {}
    for ch in chapters:
        q = load_quality(profile_file, ch, defaults=defaults)
        changes: dict = {}
        if grade_tier:
            changes["grade"] = canonical_tier(grade_tier)
        if band:
            bot, (lo, hi) = band
            changes["win_rate"] = (lo, hi)
            if bot:
                changes["bot"] = bot
        if max_walled_in is not None:
            changes["max_walled_in"] = max_walled_in
        out[ch] = replace(q, **changes)
    return out


def where(jobs: int, ray_address: str | None):
    """The campaign backend the options ask for; an empty --ray, or --jobs beside --ray, is refused (either was
    dropped without a word)."""
    from mapgen.campaign import backend  # deferred: the command's library, only when it runs

    if ray_address is not None:
        if not ray_address.strip():
            reject("--ray", f"an address (auto, local, HOST:PORT or ray://HOST:PORT), not {ray_address!r}")
        if typed("jobs"):
            reject("--jobs", "not used with --ray, whose cluster's CPUs run the tasks")
    return backend(jobs, ray_address)


@contextlib.contextmanager
def progress_bar(label: str, total: int, enabled: bool, *, where=None):
    """A rich progress bar on stderr when it is a terminal; yields the callback (done so far) or None. On a backend
    that takes a while to start (``where.starting``: Ray), the bar says so after its label until the first task is
    done."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console  # deferred: rich, only for a progress bar
    from rich.progress import (  # deferred: rich, only for a progress bar
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    starting = getattr(where, "starting", None)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=Console(stderr=True),
    ) as bar:
        task = bar.add_task(f"{label}: {starting}" if starting else label, total=total)

        def update(done: int) -> None:
            if done > 0:  # the first task done: the backend is up
                bar.update(task, completed=done, description=label)

        yield update


def parse_bots(value: str) -> list[str]:
    from mapgen.engine.bots import BOTS  # deferred: ortools, only when the command runs

    names = [b.strip().lower() for b in value.split(",") if b.strip()]  # any case, as --bot takes it
    bad = [b for b in names if b not in BOTS]
    if bad or not names:
        hint = did_you_mean(bad[0], BOTS) if bad else ""
        reject("--bots", f"unknown bot {bad[0]!r}{hint} (expected some of {', '.join(BOTS)})" if bad else "name a bot")
    return list(dict.fromkeys(names))


def games_per_bot(bots: list[str], games: int | None, table: dict[str, int] | None = None) -> dict[str, int]:
    """--games N: N games per bot, fewer (rounded up) for the search bots (``SLOW_BOTS``): half for the scout
    and the oracle, a tenth for the planner and ismcts. Without it: ``table`` (a profile's ``quality.games``
    over the defaults), else the defaults."""
    from mapgen.quality import DEFAULT_GAMES, SLOW_BOTS  # deferred: the command's library, only when it runs

    if games is None:
        table = DEFAULT_GAMES if table is None else table
        return {b: table.get(b, DEFAULT_GAMES.get(b, 200)) for b in bots}
    return {b: -(-games // SLOW_BOTS.get(b, 1)) for b in bots}


@click.command()
# valid: checked in the body, against the --rules file's rules when given (as playtest: a map made under house rules
# breaks the shipped ones)
@map_argument("maps_in", complete=True, nargs=-1, required=True)
@click.option(
    "--games",
    "-n",
    type=click.IntRange(1, 10_000_000),
    default=None,
    help="Games per bot (default: the --profile's [quality] games, else 200 heuristic and clairvoyant, 100 deducer, "
    "scout and oracle: every win rate "
    "within about 10 points at 95%; when given, N each, half of N for the scout and the oracle, a tenth for the "
    "planner and ismcts).",
)
@click.option(
    "--bots",
    default="heuristic,deducer,clairvoyant,scout,oracle",
    show_default=True,
    help="Bots to play each map with, comma-separated.",
)
@quality_options
@click.option(
    "--profile",
    "profile_file",
    metavar="FILE",
    type=InName(),
    default=None,
    help="A profile whose [quality] table says what passes and, unless --games, how many games each bot plays "
    "(default: the chapter's defaults).",
)
@click.option("--no-deduction", is_flag=True, help="Play only: skip the reveal set and the deduction grade.")
@variant_option("every bot's games")
@rules_option
@seed_option(0, help="Seed: same seed, same report, wherever it runs.")
@campaign_options
@time_limit_option(120.0, help="Seconds allowed for each map's deduction.")
@functools.partial(json_option, help="Print JSON for machines: a list, one object per map.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV: one row per map.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print a Markdown table: one row per map.")
def grade(
    maps_in,
    games,
    bots,
    grade_tier,
    win_rate,
    max_walled_in,
    profile_file,
    no_deduction,
    variants,
    rules,
    seed,
    jobs,
    ray_address,
    time_limit,
    as_json,
    as_csv,
    as_markdown,
):
    """Grade maps for print: how each deduces and plays, with flags for maps a designer should not print.

    Per map: the deduction grade and its measures, the minimal reveal set size, the step at which
    every target is known and the targets found before they could be deduced; per bot the win rate
    with its 95% interval, the share of games sealed (no Path could be explored for a whole round, as
    mapgen playtest counts them) and why (walled in, toll unpaid, map explored), the causes of loss, the
    mean days and the scores of won games (quartiles); the play difficulty: the best fair bot's win rate (the scout's, unless another
    does better), the oracle's (a search with the map in view: the upper bound) and the gap between them
    with its 95% interval (without the oracle: clairvoyant minus deducer). Flags, each with its reason: sealed walled in
    too often, a target never deduced before it is found, a win rate outside the band, a fair bot above
    the oracle outside the intervals, a start Path that a Monster drawn on one Skull walls in within 5 Paths
    (the profile's skull_walls), a deduction grade far from the one asked (--grade, or the profile's
    [quality] table). With 3 maps or more of a chapter, the rank correlation of their deduction grades with
    their play difficulty closes the text report. Same seed, same report, whatever --jobs or --ray. Exit 0
    when every map was graded, flagged or not.

    With --rules FILE each map is checked against that house-rule chapter file's rules (exit 1 when it breaks
    them, 2 for a map of another chapter), deduced under them (as mapgen deduce --rules) and played by bots that
    reason with them (as mapgen playtest --rules). The deduction tier and the chapter's default bands stay the
    shipped chapter's measures (the only calibration there is), and the report says so.

    --variant plays every bot's games under a named variant (repeatable, as mapgen playtest --variant): another
    reading of an ambiguous rule, or a house rule such as relaunch. The default win-rate band and walled-in cap stay
    measured on the rulebooks' reading, and the report says so.

    \b
    Example:
        mapgen grade fauna-1 --games 100 --bots heuristic,clairvoyant
        mapgen grade training-1 training-2 --markdown --jobs 2
        mapgen grade fauna-1 --variant relaunch --games 40 --bots heuristic --no-deduction
    """
    from mapgen.grade import (  # deferred: ortools, only when the command runs
        GradeSettings,
        games_total,
        grade_maps,
        play_correlations,
        report_csv,
        report_markdown,
        report_text,
    )

    for mi in maps_in:  # exit 2 for another chapter's rules, 1 naming the rules a map breaks
        checked_map(mi, valid=True, command="mapgen grade", chapter=rules)
    formats = [f for f, given in (("json", as_json), ("csv", as_csv), ("markdown", as_markdown)) if given]
    if len(formats) > 1:  # before, the last one given won, silently
        reject(" and ".join(f"--{f}" for f in formats), "one format at a time (give one of --json, --csv, --markdown)")
    fmt = formats[0] if formats else None
    bot_list = parse_bots(bots)
    chapters = sorted({mi.map.chapter for mi in maps_in})
    quality = qualities(profile_file, chapters, grade_tier, win_rate, max_walled_in)
    given = "--win-rate" if win_rate else "--max-walled-in" if max_walled_in is not None else None
    unplayed = sorted({q.bot for q in quality.values() if q.bot not in bot_list})
    if given and unplayed:  # else the band was never checked and every map passed
        reject(
            given, f"is a check on the {unplayed[0]} bot's games, which --bots does not play ({', '.join(bot_list)})"
        )
    settings = GradeSettings(
        # the profile's [quality] games unless --games: one profile file, so the same table for every chapter
        games=games_per_bot(bot_list, games, next(iter(quality.values())).games),
        seed=seed,
        deduce=not no_deduction,
        time_limit=time_limit,
        rules=rules,
        variants=variants,
    )
    backend = where(jobs, ray_address)
    if ray_address:
        backend.connect()  # CampaignError (exit 2) before any work
    items = [(mi.source, mi.map) for mi in maps_in]
    with (
        about(maps_in[0].source if len(maps_in) == 1 else "grade", time_limit),
        progress_bar("grading (games)", games_total(len(items), settings), fmt is None, where=backend) as progress,
        about_settings(maps_in[0].source if len(maps_in) == 1 else "grade"),  # a variant of another chapter: --variant
    ):
        # under --rules every grade records them (the file's name and the rules' fingerprint)
        grades = grade_maps(items, settings, quality=quality, where=backend, progress=progress, rules_file=rules_file())
    if fmt == "json":
        click.echo(json.dumps([g.to_json() for g in grades], indent=2))
    elif fmt == "csv":
        click.echo(report_csv(grades), nl=False)
    elif fmt == "markdown":
        click.echo(report_markdown(grades), nl=False)
    else:
        click.echo("\n\n".join(report_text(g) for g in grades))
        corr = play_correlations(grades)
        if corr:
            click.echo(f"\n{corr}")
