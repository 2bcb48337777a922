"""``mapgen generate``: new maps that keep every rule of their chapter and the design defaults."""

from __future__ import annotations

import json

import click

from mapgen.cli.options import chapter_option, force_option, json_option, seed_option, time_limit_option


@click.command()
@chapter_option(required=True, help="The chapter to generate maps for.")
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
    default=None,
    help="Write CH-SEED.toml files into this folder (made if missing) instead of printing one map.",
)
@click.option(
    "--profile",
    "profile_file",
    metavar="FILE",
    default=None,
    help="A design profile (TOML) overriding the chapter's defaults (mapgen/profiles/).",
)
@time_limit_option(10.0, help="Seconds allowed for each map.")
@force_option("existing map files in --out")
@json_option
def generate(chapter_name, seed, count, out_dir, profile_file, time_limit, force, as_json):
    """Generate new maps that keep every rule of their chapter and the design defaults.

    Without --out one map is printed as a map file on stdout. With --out, K files are written
    atomically; existing files are kept unless --force (checked before any map is made). Exit 1
    when no map can meet the request, 3 when the time limit runs out first.

    \b
    Example:
        mapgen generate --chapter fauna --seed 7
        mapgen generate -c flora --seed 100 --count 20 --out new-maps/
    """
    from mapgen.batch import generate_batch

    summary = generate_batch(
        chapter_name.lower(),
        seed=seed,
        count=count,
        out_dir=out_dir,
        profile_file=profile_file,
        time_limit=time_limit,
        force=force,
        progress=not as_json and out_dir is not None,
    )
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    elif out_dir is None:
        click.echo(summary[0]["text"], nl=False)
    else:
        for item in summary:
            click.echo(f"wrote {item['file']} (seed {item['seed']}, {item['seconds'] * 1000:.0f} ms)", err=True)
