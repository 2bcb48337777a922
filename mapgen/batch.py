"""Batches of generated maps: seeds, files written atomically, progress on a terminal."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable
from pathlib import Path

from constraints.catalogue import Chapter, get_chapter
from mapgen.errors import InputError, UnmetError
from mapgen.generate import Generator
from mapgen.inputs import seconds_problem
from mapgen.mapfile import dumps_map
from mapgen.model import Map
from mapgen.output import check_files, prepare_folder, write_text
from mapgen.profile import Profile, default_profile, load_profile

#: TOML integers are signed 64-bit: the largest seed a map file can record
MAX_SEED = 2**63 - 1


class BatchError(UnmetError):
    """A batch request that cannot be carried out (one line, for the CLI)."""


class BatchOptionError(InputError, BatchError, ValueError):
    """Options that cannot go together (``--count`` above 1 without ``--out``): a bad option value, exit 2."""


class SeedRangeError(InputError, BatchError, ValueError):
    """Seeds a map file cannot record (TOML integers are signed 64-bit)."""


def map_filename(chapter: str, seed: int) -> str:
    return f"{chapter}-{seed}.toml"


class MapOutput:
    """Where generated maps go, the one path for ``mapgen generate`` (a batch, a sketch, a quality target) and
    the web's generate: printed (no folder), or written to ``out_dir`` as ``CHAPTER-SEED.toml`` atomically,
    never over an existing file unless ``force``. ``check`` every destination before the work, then ``put``
    each map."""

    def __init__(self, chapter: str, out_dir: str | None = None, *, force: bool = False):
        self.chapter = chapter
        self.out_dir = out_dir
        self.force = force

    def path(self, seed: int) -> Path | None:
        return None if self.out_dir is None else Path(self.out_dir) / map_filename(self.chapter, seed)

    def check(self, seeds: Iterable[int]) -> None:
        """Every file these seeds could become can be written (OutputError otherwise); the folder is made."""
        if self.out_dir is not None:
            check_files([Path(self.out_dir) / map_filename(self.chapter, s) for s in seeds], force=self.force)
            prepare_folder(self.out_dir)

    def put(self, m: Map, seed: int, **fields) -> dict:
        """The map's file text, written when there is a folder; its summary: chapter, seed, file (or None),
        ``fields`` in their order, text."""
        text = dumps_map(m)
        path = self.path(seed)
        if path is not None:
            write_text(path, text, force=self.force)
        return {
            "chapter": self.chapter,
            "seed": seed,
            "file": None if path is None else str(path),
            **fields,
            "text": text,
        }


def check_seeds(seed: int, count: int, option: str = "--count") -> None:
    """SeedRangeError unless seeds seed..seed+count-1 all fit a TOML integer; ``option`` names the count."""
    if seed < 0 or seed + count - 1 > MAX_SEED:
        last = seed + count - 1
        raise SeedRangeError(
            f"--seed {seed} with {option} {count} reaches seed {last}, beyond what a map file can record "
            f"(0 to {MAX_SEED}, TOML's largest integer)"
        )


def check_seconds(value: object, who: str, name: str = "time_limit") -> None:
    """BatchOptionError (exit 2) for seconds given to ``who`` that are no number, below 0 or NaN (a time-out, exit 3,
    before the first candidate was tried)."""
    problem = seconds_problem(value, name)
    if problem is not None:
        raise BatchOptionError(f"{who}'s {problem}")


def start_batch(
    chapter: str | Chapter,
    seed: int | None,
    count: int,
    seeds: int,
    out_dir: str | None,
    profile_file: str | None,
    seeds_option: str = "--count",
) -> tuple[int, Profile]:
    """The checks before a batch of ``count`` maps drawn from ``seeds`` seeds: one map unless written to a
    folder, the first seed (random when None) with every seed in TOML's range, and the profile (without
    ``profile_file``: the one ``chapter`` names, a house-rule chapter's own ``profile`` key). ``seeds_option``
    is the option that set ``seeds`` (a search's ``--candidates``), named when they run past the last seed."""
    if out_dir is None and count != 1:
        raise BatchOptionError("--count above 1 needs --out DIR (only one map can be printed)")
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    check_seeds(seed, seeds, seeds_option)
    name = chapter.name if isinstance(chapter, Chapter) else chapter
    profile = load_profile(profile_file, name) if profile_file else default_profile(chapter)
    profile.rules(chapter if isinstance(chapter, Chapter) else get_chapter(name))  # its counts' terrains: now
    return seed, profile


def generate_batch(
    chapter: str | Chapter,
    *,
    seed: int | None = None,
    count: int = 1,
    out_dir: str | None = None,
    profile_file: str | None = None,
    time_limit: float = 10.0,
    force: bool = False,
    progress: bool = False,
    rules_file: str | None = None,
) -> list[dict]:
    """Generate ``count`` maps for seeds seed..seed+count-1; print (one) or write them.

    Returns one summary per map: chapter, seed, file (or None), seconds, text (the map file).
    Every check (seeds, profile, destination folder, existing files) happens before any work; nothing
    existing is overwritten without ``force``. Raises BatchError (SeedRangeError), ProfileError,
    mapgen.output.OutputError, GenerationError (GenerationTimeout). ``chapter``: a shipped chapter's name, or a
    ``Chapter`` (house rules: ``constraints.catalogue.load_chapter``) whose maps name the chapter it varies;
    ``rules_file``: the file that Chapter was loaded from, which each map's ``[generator]`` table names (with the
    rules' fingerprint).
    """
    check_seconds(time_limit, "generate_batch")
    seed, profile = start_batch(chapter, seed, count, count, out_dir, profile_file)
    seeds = range(seed, seed + count)
    out = MapOutput(chapter.name if isinstance(chapter, Chapter) else chapter, out_dir, force=force)
    out.check(seeds)
    generator = Generator(chapter, profile, time_limit=time_limit, rules_file=rules_file)
    summary = []
    bar = _progress(len(seeds)) if progress and sys.stderr.isatty() else None
    try:
        for s in seeds:
            made = generator.generate(s)
            summary.append(out.put(made.map, s, seconds=round(made.seconds, 4), attempts=made.attempts))
            if bar:
                bar[0].update(bar[1], advance=1)
    finally:
        if bar:
            bar[0].stop()
    return summary


def _progress(total: int):
    from rich.console import Console  # deferred: rich, only for a progress bar
    from rich.progress import (  # deferred: rich, only for a progress bar
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeRemainingColumn,
    )

    p = Progress(
        "generating",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=Console(stderr=True),
    )
    p.start()
    return p, p.add_task("maps", total=total)
