"""``mapgen generate`` with a quality target (``--grade``, ``--win-rate``, ``--max-walled-in`` or a profile's
``[quality]`` table): the words around ``mapgen.target.generate_to_target``, which generates and grades the
candidates and prints or writes those that pass."""

from __future__ import annotations

import json

import click

from mapgen.cli.grade import progress_bar, qualities, where


def wanted(profile_file, chapter: str, grade_tier, win_rate, max_walled_in):
    """The target asked (the profile's [quality] table and the options, no chapter defaults), or None."""
    q = qualities(profile_file, [chapter], grade_tier, win_rate, max_walled_in, defaults=False)[chapter]
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
    """Run the search and report it: the map (or ``--json``'s report) on stdout, the summary on stderr; a
    missed target's summary and closest candidates on stdout, then its error (``TargetMissed``, exit 1)."""
    from mapgen import target  # deferred: ortools, only when the command runs

    with progress_bar(f"candidates for {count} {chapter} map(s)", candidates, not as_json) as bar:
        run = target.generate_to_target(
            chapter,
            quality,
            seed=seed,
            count=count,
            out_dir=out_dir,
            profile_file=profile_file,
            time_limit=time_limit,
            candidates=candidates,
            where=where(jobs, ray_address),
            force=force,
            progress=(lambda tried, kept: bar(tried)) if bar else None,
        )
    if not as_json:
        for put in run.put:
            if put["file"] is None:
                click.echo(put["text"], nl=False)
    else:
        click.echo(json.dumps(run.to_json(), indent=2))
    if run.done:
        click.echo(run.result.summary(), err=True)  # stdout holds the map
        for path in run.files:
            click.echo(f"wrote {path}", err=True)
        return
    if not as_json:  # the report is the output; stderr gets the one error line
        click.echo(run.result.summary())
        for path in run.files:
            click.echo(f"wrote {path}")
        for c in run.result.closest:
            click.echo(f"closest: seed {c.seed}: {'; '.join(c.reasons())}")
    raise run.missed()
