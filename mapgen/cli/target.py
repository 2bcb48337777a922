"""``mapgen generate`` with a quality target (``--grade``, ``--win-rate``, ``--max-blocked`` or a profile's
``[quality]`` table): candidates are generated and graded, and only those that pass are printed or written."""

from __future__ import annotations

import json

import click

from mapgen.cli.grade import progress_bar, qualities, where

#: the whole search's default time limit, when --time-limit is not given
SEARCH_TIME = 600.0


def wanted(profile_file, chapter: str, grade_tier, win_rate, max_blocked):
    """The target asked (the profile's [quality] table and the options, no chapter defaults), or None."""
    q = qualities(profile_file, [chapter], grade_tier, win_rate, max_blocked, defaults=False)[chapter]
    return q if q.checks else None


def generate_to_target(
    chapter: str,
    quality,
    *,
    seed: int | None,
    count: int,
    out_dir: str | None,
    profile_file: str | None,
    time_limit: float | None,
    candidates: int,
    jobs: int,
    ray_address: str | None,
    force: bool,
    as_json: bool,
) -> None:
    from mapgen.batch import MapOutput, start_batch
    from mapgen.target import TargetMissed, kept_map, search

    seed, profile = start_batch(chapter, seed, count, candidates, out_dir, profile_file)
    out = MapOutput(chapter, out_dir, force=force)
    out.check(range(seed, seed + candidates))  # every file a candidate could become, checked before the work
    backend = where(jobs, ray_address)
    if ray_address:
        backend.connect()
    limit = SEARCH_TIME if time_limit is None else time_limit
    with progress_bar(f"candidates for {count} {chapter} map(s)", candidates, not as_json) as bar:
        result = search(
            chapter,
            profile,
            quality,
            seed=seed,
            count=count,
            time_limit=limit,
            max_candidates=candidates,
            where=backend,
            progress=(lambda tried, kept: bar(tried)) if bar else None,
        )
    report = result.to_json()
    files = []
    for c in result.kept:
        put = out.put(kept_map(c), c.seed)
        if put["file"] is not None:
            files.append(put["file"])
        elif not as_json:
            click.echo(put["text"], nl=False)
        report_kept = next(k for k in report["kept"] if k["seed"] == c.seed)
        report_kept["file"] = put["file"]
        report_kept["text"] = put["text"]
    if as_json:
        click.echo(json.dumps(report, indent=2))
    if result.done:
        click.echo(result.summary(), err=True)  # stdout holds the map
        for path in files:
            click.echo(f"wrote {path}", err=True)
    else:  # the report is the output; stderr gets the one error line
        if not as_json:
            click.echo(result.summary())
            for path in files:
                click.echo(f"wrote {path}")
            for c in result.closest:
                click.echo(f"closest: seed {c.seed}: {'; '.join(c.reasons())}")
        first = result.closest[0] if result.closest else None
        near = f"; closest: seed {first.seed} ({'; '.join(first.reasons())})" if first else ""
        stop = {"time": f"the time limit of {limit:g} s ran out", "candidates": f"all {candidates} candidates tried"}
        raise TargetMissed(
            f"only {len(result.kept)} of {count} {chapter} maps met the target ({stop.get(result.stopped, '')}){near}",
            result,
        )
