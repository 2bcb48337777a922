"""``mapgen generate`` with a quality target (``--grade``, ``--win-rate``, ``--max-walled-in`` or a profile's
``[quality]`` table): the words around ``mapgen.target.generate_to_target``, which generates and grades the
candidates and prints or writes those that pass."""

from __future__ import annotations

import json

import click

from mapgen.cli.errors import printed
from mapgen.cli.grade import progress_bar, qualities, where
from mapgen.cli.options import rules_file


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
    rules=None,
    variants: tuple[str, ...] = (),
) -> None:
    """Run the search and report it: the map (or ``--json``'s report) on stdout, the summary on stderr; a
    missed target's summary and closest candidates on stdout, then its error (``TargetMissed``, exit 1; exit 3 when
    the time ran out).
    ``rules``: the --rules file's chapter, the candidates made and graded under it (``mapgen.target.search``, as
    pack -c --rules); the report names the file and says what stays calibrated on the shipped chapter.
    ``variants``: --variant, the candidates' games played under them (as grade --variant)."""
    from mapgen import target  # deferred: ortools, only when the command runs

    backend = where(jobs, ray_address)
    with progress_bar(f"candidates for {count} {chapter} map(s)", candidates, not as_json, where=backend) as bar:
        run = target.generate_to_target(
            chapter,
            quality,
            seed=seed,
            count=count,
            out_dir=out_dir,
            profile_file=profile_file,
            time_limit=time_limit,
            candidates=candidates,
            where=backend,
            force=force,
            progress=(lambda tried, kept: bar(tried)) if bar else None,
            rules=rules,
            rules_file=rules_file() if rules is not None else None,
            variants=variants,
        )
    under = _house_rules(run) if rules is not None else None
    if not as_json:
        for put in run.put:
            if put["file"] is None:
                click.echo(put["text"], nl=False)
    else:
        report = run.to_json()
        if rules is not None:  # as pack's --json: the file and the rules' fingerprint
            from mapgen.generate import rules_record  # deferred: the command's library, only when it runs

            report["rules"] = rules_record(rules_file(), rules)
        click.echo(json.dumps(report, indent=2))
    if run.done:
        click.echo(run.result.summary(), err=True)  # stdout holds the map
        if under:
            click.echo(under, err=True)
        for path in run.files:
            click.echo(f"wrote {path}", err=True)
        return
    if not as_json:  # the report is the output; stderr gets the one error line
        click.echo(run.result.summary())
        if under:
            click.echo(under)
        for path in run.files:
            click.echo(f"wrote {path}")
        for c in run.result.closest:
            click.echo(f"closest: seed {c.seed}: {'; '.join(c.reasons())}")
    raise printed(run.missed()) if as_json else run.missed()  # --json's report above says what was missed


def _house_rules(run) -> str:
    """Under house rules: the line saying the candidates were graded under them and what in the grade stays the
    shipped chapter's measure (``MapGrade.shipped_calibration``: the deduction tier's cuts, the default bands)."""
    graded = [c.grade for c in (*run.result.kept, *run.result.closest) if c.grade is not None]
    line = f"graded under the house rules of {rules_file()}"
    if not graded:
        return line
    shipped = graded[0].shipped_calibration()
    return (
        f"{line}; calibrated on shipped {graded[0].chapter}, not these house rules: {'; '.join(shipped)}"
        if shipped
        else line
    )
