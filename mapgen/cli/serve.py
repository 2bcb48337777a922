"""``mapgen serve``: the table helper and the map studio in the browser, over a JSON API."""

from __future__ import annotations

import click

from mapgen.cli.errors import INTERRUPTED, Failure, interrupted
from mapgen.cli.options import HouseRulesType


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Anything but this machine (127.0.0.1, ::1) lets others in: a warning.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option(
    "--rules",
    "rules",
    type=HouseRulesType(),
    multiple=True,
    help="A house-rule chapter file (TOML, same shape as constraints/chapters/*.toml): its chapter is served under "
    "it. Repeat for other chapters (one file per chapter).",
)
def serve(host, port, rules):
    """Start a local web app and print its URL: a table helper for players and a map studio for designers.

    The table helper (/helper) takes the Paths revealed at the table and shows the forced cells, the
    number of maps left, the chance of a terrain and a hint. The studio (/studio) paints maps with
    broken rules shown as you paint, and repairs, fills, generates, deduces, playtests and downloads
    them. The JSON API under /api mirrors the commands (see the README). Ctrl+C stops it (exit 130).
    Exit 2 when the address cannot be used, or a --rules file cannot be (checked before serving).

    With --rules FILE every answer about a map of that file's chapter (validate, the helper's forced cells,
    counts, odds and hints, solve, repair, render, generate, deduce, playtest) follows its house rules, and
    the pages say so; other chapters keep their shipped rules. One file per chapter: repeat --rules for
    several. The shipped maps' grades and a deduction's grade tier stay measured on the shipped rules.

    \b
    Example:
        mapgen serve
        mapgen serve --port 8080
        mapgen chapters fauna -o my-fauna.toml
        mapgen serve --rules my-fauna.toml
    """
    from mapgen.cli.options import kernels_ready  # deferred: the solver's modules, only when the command runs
    from mapgen.web import serve as run  # deferred: the command's library, only when it runs
    from mapgen.web import url_of  # deferred: the command's library, only when it runs
    from mapgen.web.rules import ServedRules  # deferred: the command's library, only when it runs

    served = ServedRules.of(rules)  # ChapterError (exit 2, one line) before anything listens: two for one chapter

    try:
        # prepare: on a fresh install the sampler's loops are compiled once here, said so, once the address is known
        # to be usable and before the workers start (each compiled them on its own, the first requests waiting about
        # a minute behind "working…" with no word why)
        run(
            host,
            port,
            announce=lambda line: click.echo(line, err=line.startswith("warning")),
            prepare=lambda: kernels_ready(timed=False),
            rules=served,
        )
    except KeyboardInterrupt:
        pass
    except SystemExit:
        # uvicorn exits 3 (its "startup failure") when Ctrl-C lands before the server has started: the command ran out
        # of no time limit, it was interrupted (exit 3 and a traceback under a busy test run)
        if not interrupted():
            raise
    if interrupted():  # Ctrl+C stopped the server: exit 130 like every command, naming the address
        raise Failure(f"{url_of(host, port)}: interrupted", INTERRUPTED)
