"""``mapgen generate``: new maps that keep every rule of their chapter and the design defaults."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager
from pathlib import Path

import click

from mapgen.cli.errors import BROKEN, BadInput, about, about_settings, exit_code
from mapgen.cli.grade import campaign_options, quality_options
from mapgen.cli.options import (
    InName,
    MapType,
    OutName,
    chapter_option,
    comments_note,
    force_option,
    force_unused,
    house_chapter,
    house_words,
    json_option,
    reject,
    rules_file,
    rules_for,
    rules_option,
    seed_option,
    time_limit_option,
    typed,
    variant_option,
)


@click.command()
@chapter_option(help="The chapter to generate maps for (with --from: the sketch's).")
@click.option(
    "--from",
    "sketch",
    metavar="SKETCH",
    type=MapType(),
    default=None,
    help="Fill a sketch: a map file whose placed cells are kept and whose '..' cells are generated.",
)
@seed_option(None, help="The first seed (default: a random one, recorded in the map). Same seed, same map.")
@click.option(
    "--count",
    "-n",
    type=click.IntRange(1, 100_000),
    default=1,
    show_default=True,
    help="How many maps (seeds N ... N+K-1); more than one needs --out.",
)
@click.option(
    "--out",
    "-o",
    "out_dir",
    metavar="DIR",
    type=OutName("folder"),
    default=None,
    help="Write CHAPTER-SEED.toml files into this folder (made if missing) instead of printing one map.",
)
@click.option(
    "--profile",
    "profile_file",
    metavar="FILE",
    type=InName(),
    default=None,
    help="A design profile (TOML) overriding the chapter's defaults; mapgen chapters CHAPTER --design -o FILE "
    "writes the default one, each setting explained, to change.",
)
@time_limit_option(
    None,
    help="Seconds allowed for each map (default 10); with a quality target, for the whole search (default 600).",
)
@quality_options
@click.option(
    "--candidates",
    type=click.IntRange(1, 1_000_000),
    default=200,
    show_default=True,
    help="With a quality target: most candidates to generate and grade.",
)
@variant_option("a quality target's candidates' grading games (--win-rate, --max-walled-in)")
@campaign_options
@rules_option
@force_option("the map files in --out", several=True)
@json_option
def generate(
    chapter_name,
    sketch,
    seed,
    count,
    out_dir,
    profile_file,
    time_limit,
    grade_tier,
    win_rate,
    max_walled_in,
    candidates,
    variants,
    jobs,
    ray_address,
    rules,
    force,
    as_json,
):
    """Generate new maps that keep every rule of their chapter and the design defaults.

    Without --out one map is printed as a map file on stdout. With --out, K files are written
    atomically; existing files are kept unless --force (checked before any map is made). With
    --from SKETCH the cells the designer placed are kept and the '..' cells are generated under the
    chapter's rules and the profile. Exit 1 when no map can meet the request (naming the rules,
    settings and sketch cells that conflict), 3 when the time limit runs out first.

    With a quality target (--grade, --win-rate, --max-walled-in, or the profile's [quality] table),
    candidates from --seed on are generated and graded (mapgen grade), and only those that pass are
    printed or written, each with its [grade] table; the report says how many were tried and why the
    others failed. Same seed, same maps, whatever --jobs or --ray. When fewer than --count pass
    within --candidates: exit 1, naming the closest candidates; when --time-limit runs out first (or a
    candidate's own generation or grading does): exit 3, keeping the maps that passed before it.

    With --rules FILE the maps keep that house-rule chapter file's rules instead of the chapter's
    (its chapter by default; its own profile key unless --profile); exit 1 when its rules admit no map.
    A quality target's candidates are then made and graded under them (as mapgen grade --rules and pack
    -c --rules), and each map's [generator] and [grade] tables name the file and the rules' fingerprint;
    the deduction tiers and the default bands stay calibrated on the shipped chapter, and the report says so.

    --variant plays a quality target's candidates' games under a named variant (repeatable, as mapgen grade
    --variant): only a target that plays games (--win-rate, --max-walled-in, or the profile's bands) takes it.

    \b
    Example:
        mapgen generate --chapter fauna --seed 7
        mapgen generate -c flora --seed 100 --count 20 --out new-maps/
        mapgen deduce fauna-1 --puzzle sketch.toml --no-profile
        mapgen generate --from sketch.toml --seed 3
        mapgen generate -c training --seed 1 --grade Gentle --win-rate heuristic:0.6-1
        mapgen chapters fauna --design -o my-profile.toml
        mapgen generate -c fauna --seed 7 --profile my-profile.toml
        mapgen chapters fauna -o house.toml
        mapgen generate --rules house.toml --seed 1 --count 2 --out house-maps/ --grade Moderate
    """
    from mapgen.batch import generate_batch  # deferred: ortools, only when the command runs

    if out_dir is not None and Path(out_dir).suffix.lower() == ".toml" and not Path(out_dir).is_dir():
        # `repair -o fixed.toml` writes a file; here it made a folder named fixed.toml, a map inside it
        raise BadInput(
            out_dir,
            "--out is a folder (maps are written in it as CHAPTER-SEED.toml), not a map file; "
            f"to write one map to this file: mapgen generate ... > {out_dir}",
        )
    if sketch is not None:
        if variants:
            _no_games("a sketch is filled once, not graded")
        if grade_tier or win_rate or max_walled_in is not None:
            reject(
                "--from", "a sketch is filled once; a quality target (--grade, --win-rate, --max-walled-in) needs -c"
            )
        _one_process(jobs, ray_address)
        time_limit = 10.0 if time_limit is None else time_limit
        force_unused(force, (out_dir,), "--out")
        _fill(sketch, chapter_name, seed, count, out_dir, profile_file, time_limit, force, as_json, rules)
        return
    if rules is not None:
        chapter_name = house_chapter(rules, chapter_name)  # exit 2: a file of another chapter, or of no shipped one
    if chapter_name is None:
        reject("--chapter", "required (--chapter CHAPTER, --from SKETCH, or --rules FILE)")
    from mapgen.cli.target import (  # deferred: ortools (mapgen.target), only when the command runs
        generate_to_target,
        wanted,
    )

    quality = wanted(profile_file, chapter_name.lower(), grade_tier, win_rate, max_walled_in)
    if variants and (quality is None or not quality.bots_needed()):
        _no_games("no quality target is asked" if quality is None else "this target (a deduction grade) plays none")
    if quality is not None:
        force_unused(force, (out_dir,), "--out")
        with _profile_named(profile_file), about_settings(chapter_name.lower()):  # --variant of another chapter
            generate_to_target(
                chapter_name.lower(),
                quality,
                seed=seed,
                count=count,
                out_dir=out_dir,
                profile_file=profile_file,
                time_limit=time_limit,
                candidates=candidates,
                jobs=jobs,
                ray_address=ray_address,
                force=force,
                as_json=as_json,
                rules=rules,
                variants=variants,
            )
        return
    if typed("candidates"):  # it was dropped without a word
        reject(
            "--candidates",
            "bounds the search of a quality target (--grade, --win-rate, --max-walled-in or the profile's [quality] "
            "table); none is asked",
        )

    _one_process(jobs, ray_address)
    force_unused(force, (out_dir,), "--out")
    with _profile_named(profile_file):
        summary = generate_batch(
            chapter_name.lower() if rules is None else rules,
            seed=seed,
            count=count,
            out_dir=out_dir,
            profile_file=profile_file,
            time_limit=10.0 if time_limit is None else time_limit,
            force=force,
            progress=not as_json and out_dir is not None,
            rules_file=rules_file() if rules is not None else None,
        )
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    elif out_dir is None:
        click.echo(summary[0]["text"], nl=False)
    else:
        for item in summary:
            click.echo(f"wrote {item['file']} (seed {item['seed']}, {item['seconds'] * 1000:.0f} ms)", err=True)


def _no_games(why: str) -> None:
    """--variant with no games to play it in (exit 2): said, never dropped."""
    reject(
        "--variant",
        "plays the games that grade a quality target's candidates (--win-rate, --max-walled-in or the profile's "
        f"bands); {why}",
    )


def _one_process(jobs: int, ray_address: str | None) -> None:
    """Without a quality target, maps are generated here, one after another: --ray and --jobs would be ignored."""
    target = "only a quality target's candidates (--grade, --win-rate, --max-walled-in, a profile's [quality] table)"
    if ray_address is not None:
        reject("--ray", f"{target} run on Ray; plain generation runs here, in one process")
    if typed("jobs") and jobs != 1:
        reject("--jobs", f"{target} run on several processes; plain generation runs here, in one process")


@contextmanager
def _profile_named(profile_file):
    """A request no map can meet (``GenerationError``, exit 1) with --profile: the profile is what is wrong, so it is
    the error line's FILE (`error: twenty-forts.toml: no fauna map can meet ...`). A time-out names no file (more
    time may do), nor does a quality target missed (``TargetMissed``: the search, not the profile). Without
    --profile, a --rules file whose rules admit no map is the line's FILE (`error: house.toml: no fauna map ...`)."""
    try:
        yield
    except Exception as e:
        from mapgen.generate import GenerationError  # deferred: ortools; loaded by the generation that raised

        subject = profile_file or rules_file()
        if (
            isinstance(e, GenerationError)
            and subject
            and exit_code(e) == BROKEN
            and not getattr(e, "mapgen_subject", None)
        ):
            e.mapgen_subject = subject  # type: ignore[attr-defined]
        raise


def _fill(sketch, chapter_name, seed, count, out_dir, profile_file, time_limit, force, as_json, rules):
    """``generate --from``: complete one sketch (its placed cells kept)."""
    from mapgen.batch import MapOutput  # deferred: ortools, only when the command runs
    from mapgen.profile import default_profile, load_profile  # deferred: the command's library, only when it runs
    from mapgen.repair import fill_sketch  # deferred: ortools, only when the command runs

    m = sketch.map
    if chapter_name is not None and chapter_name.lower() != m.chapter:
        reject("--chapter", f"the sketch {sketch.source} is a {m.chapter} map, not {chapter_name.lower()}")
    if count != 1:
        reject("--count", "a sketch is filled once (drop --count, or give --seed for another fill)")
    chapter = rules_for(sketch, rules)  # exit 2: a sketch of another chapter than the --rules file's
    seed = 0 if seed is None else seed
    profile = load_profile(profile_file, m.chapter) if profile_file else default_profile(chapter)
    profile.rules(chapter)  # a count of a terrain the chapter lacks: the profile's error (exit 2), before any work
    out = MapOutput(m.chapter, out_dir, force=force)
    out.check([seed])
    path = out.path(seed)
    started = time.perf_counter()
    # a sketch made under house rules, filled without them (or under others): the fill and its failure say so
    house = house_words(m, rules)[2]
    with about(sketch.source, time_limit, house):
        filled = fill_sketch(
            m,
            profile,
            seed=seed,
            time_limit=time_limit,
            chapter=chapter,
            rules_file=None if rules is None else rules_file(),
        )
    summary = [out.put(filled, seed, **{"from": sketch.source, "seconds": round(time.perf_counter() - started, 4)})]
    text = summary[0]["text"]
    if house:
        under = f"the house rules of {rules_file()}" if rules is not None else f"the shipped {chapter.name} rules"
        click.echo(f"note: {sketch.source}: filled under {under}{house}", err=True)
    if m.complete:  # a finished map given as a sketch: the same map back, which a user may take for a fill
        kept = "its Hill numbers filled in" if filled.hills != m.hills else "the map is written as it is"
        click.echo(f"note: {sketch.source}: the sketch has no '..' cell, nothing to fill: {kept}", err=True)
    if (lost := comments_note(sketch)) is not None:  # the sketch's notes: not in the filled map
        click.echo(lost, err=True)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    elif path is None:
        click.echo(text, nl=False)
    else:
        click.echo(f"wrote {path} (sketch {sketch.source}, seed {seed})", err=True)
