"""Batches of generated maps: seeds, files written atomically, progress on a terminal."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from mapgen.generate import GenerationError, Generator
from mapgen.mapfile import dumps_map, write_map
from mapgen.profile import default_profile, load_profile


class BatchError(Exception):
    """A batch request that cannot be carried out (one line, for the CLI)."""


def map_filename(chapter: str, seed: int) -> str:
    return f"{chapter}-{seed}.toml"


def generate_batch(
    chapter: str,
    *,
    seed: int | None = None,
    count: int = 1,
    out_dir: str | None = None,
    profile_file: str | None = None,
    time_limit: float = 10.0,
    force: bool = False,
    progress: bool = False,
) -> list[dict]:
    """Generate ``count`` maps for seeds seed..seed+count-1; print (one) or write them.

    Returns one summary per map: chapter, seed, file (or None), seconds, text (the map file).
    Nothing existing is overwritten without ``force``; the check happens before any work.
    An unusable profile file raises ProfileError (invalid input), anything else BatchError.
    """
    if out_dir is None and count != 1:
        raise BatchError("--count above 1 needs --out DIR (only one map can be printed)")
    profile = load_profile(profile_file, chapter) if profile_file else default_profile(chapter)
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    seeds = range(seed, seed + count)
    paths = []
    if out_dir is not None:
        folder = Path(out_dir)
        if folder.exists() and not folder.is_dir():
            raise BatchError(f"{folder}: not a folder")
        paths = [folder / map_filename(chapter, s) for s in seeds]
        if not force:
            clash = [p for p in paths if p.exists()]
            if clash:
                more = f" (and {len(clash) - 1} more of the {len(paths)} files)" if len(clash) > 1 else ""
                raise BatchError(f"{clash[0]} already exists{more}; use --force to overwrite")
        folder.mkdir(parents=True, exist_ok=True)
    generator = Generator(chapter, profile, time_limit=time_limit)
    summary = []
    bar = _progress(len(seeds)) if progress and sys.stderr.isatty() else None
    try:
        for k, s in enumerate(seeds):
            try:
                made = generator.generate(s)
            except GenerationError as e:
                raise BatchError(str(e)) from None
            text = dumps_map(made.map)
            path = None
            if paths:
                path = paths[k]
                try:
                    write_map(made.map, path, overwrite=force)
                except FileExistsError as e:
                    raise BatchError(str(e)) from None
                except OSError as e:
                    raise BatchError(f"{path}: cannot write ({e.strerror or e})") from None
            summary.append(
                {
                    "chapter": chapter,
                    "seed": s,
                    "file": None if path is None else str(path),
                    "seconds": round(made.seconds, 4),
                    "attempts": made.attempts,
                    "text": text,
                }
            )
            if bar:
                bar[0].update(bar[1], advance=1)
    finally:
        if bar:
            bar[0].stop()
    return summary


def _progress(total: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    p = Progress(
        "generating",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=__import__("rich.console", fromlist=["Console"]).Console(stderr=True),
    )
    p.start()
    return p, p.add_task("maps", total=total)
