"""The ``mapgen playtest`` command: a thin click layer over ``engine.playtest``."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click


def _load_map(spec: str):
    """A complete, valid map from a path or a shipped map's name; ClickException otherwise."""
    import maps
    from constraints.catalogue import check_map
    from mapgen.mapfile import MapFileError, read_map

    path = Path(maps.resolve(spec))
    if not path.exists():
        shipped = ", ".join(maps.names()) or "none"
        raise click.ClickException(f"{spec}: no such map file, and no shipped map of that name (shipped: {shipped})")
    try:
        m = read_map(path)
    except MapFileError as e:
        raise click.ClickException(str(e)) from None
    if not m.complete:
        raise click.ClickException(
            f"{spec}: the map is partial ({len(m.unrevealed())} cells unrevealed); a playtest needs a complete map"
        )
    violations = check_map(m)
    if violations:
        n = len(violations)
        raise click.ClickException(
            f"{spec}: not a valid {m.chapter} map ({n} violation{'s' if n != 1 else ''}, "
            f"first: {violations[0]}); see mapgen validate"
        )
    return m, str(spec)


def _team(characters: str | None, gear: str | None):
    chars = tuple(c.strip() for c in characters.split(",")) if characters else None
    gears = tuple(tuple(x.strip() for x in part.split(",") if x.strip()) for part in gear.split(";")) if gear else None
    return chars, gears


def _play_back(path: str, step: bool) -> None:
    from mapgen.engine.playtest import ReplayError, load_replay, play_back

    try:
        game, actions, data = load_replay(path)
        click.echo(f"Replay of game {data.get('game')} (seed {data['seed']}, bot {data.get('bot')}): {game}")
        interactive = step and sys.stdin.isatty()
        for k, (text, state) in enumerate(play_back(game, actions)):
            if text is None:
                click.echo(str(state))
                continue
            if state.is_chance_node() or text.startswith("chance"):
                pass
            click.echo(f"\n#{k} {text}")
            if step or state.is_terminal():
                click.echo(str(state))
            if interactive and not state.is_terminal():
                click.pause("(press any key for the next step)")
    except ReplayError as e:
        raise click.ClickException(str(e)) from None


@click.command()
@click.argument("map_spec", metavar="MAP", required=False)
@click.option(
    "--games", "-n", default=200, show_default=True, type=click.IntRange(1, 10_000_000), help="Number of games to play."
)
@click.option(
    "--bot",
    "-b",
    default="heuristic",
    show_default=True,
    type=click.Choice(["random", "heuristic", "deducer", "clairvoyant"]),
    help="Who plays.",
)
@click.option("--players", "-p", default=1, show_default=True, type=click.IntRange(1, 4), help="Players (1 to 4).")
@click.option(
    "--characters", help="Characters, one per player, comma-separated (default: Lewis, Clark, York, Collins)."
)
@click.option(
    "--gear", help="Gear per player: comma-separated, players separated by ';' (e.g. 'Compass,Flint;Jar,Satchel')."
)
@click.option("--medicine", is_flag=True, help="Add the Training Gear Medicine to the first player.")
@click.option(
    "--mode",
    type=click.Choice(["coop", "traitor"]),
    help="Maldonado: co-operative (default) or Hidden Traitor mode (reports traitor_wins and traitor_caught).",
)
@click.option("--seed", "-s", default=0, show_default=True, type=int, help="Seed: same seed, same report.")
@click.option(
    "--jobs",
    "-j",
    default=1,
    show_default=True,
    type=click.IntRange(0, 256),
    help="Processes to play in (0: one per core).",
)
@click.option(
    "--replay",
    "replay_dir",
    type=click.Path(file_okay=False),
    help="Save every game as (seed, actions) to DIR/game-NNNNN.json.",
)
@click.option(
    "--show",
    "show_file",
    type=click.Path(dir_okay=False),
    help="Play back one saved game (a file written by --replay) instead of playtesting.",
)
@click.option(
    "--step", is_flag=True, help="With --show: print the whole state after every action (and wait on a terminal)."
)
@click.option(
    "--plot", "plot_file", type=click.Path(dir_okay=False), help="Also draw the report to a PNG/SVG/PDF file."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON for machines.")
def playtest(
    map_spec,
    games,
    bot,
    players,
    characters,
    gear,
    medicine,
    mode,
    seed,
    jobs,
    replay_dir,
    show_file,
    step,
    plot_file,
    as_json,
):
    """Play a map many times with a bot and report how often, how well and why games are won or lost.

    MAP is a map file or the name of a shipped map. The report gives the win rate with a 95%
    interval, the mean score and the levels of success, the causes of loss, the mean number of
    days and the turn of each goal event (first Fort, each kill). Same seed, same report, whatever
    --jobs. Bots: random, heuristic (revealed cells only), deducer (the heuristic plus the solver's
    possible terrains), clairvoyant (sees the map: an upper bound).

    \b
    Example:
        mapgen playtest maps/fauna-1.toml --games 1000 --jobs 2
        mapgen playtest my-map.toml --bot clairvoyant --players 2 --json
        mapgen playtest my-map.toml --games 5 --replay runs/
        mapgen playtest --show runs/game-00003.json --step
    """
    if show_file:
        _play_back(show_file, step)
        return
    if not map_spec:
        raise click.UsageError("give a MAP to playtest (or --show FILE to play back a saved game)")
    from mapgen.engine.game import GameError
    from mapgen.engine.playtest import Settings, report_text, run_playtest, save_replays, summarise

    m, source = _load_map(map_spec)
    chars, gears = _team(characters, gear)
    s = Settings(bot=bot, players=players, characters=chars, gear=gears, medicine=medicine, seed=seed, mode=mode)
    jobs = jobs or os.cpu_count() or 1
    show_bar = not as_json and sys.stderr.isatty()
    try:
        if show_bar:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            with Progress(
                TextColumn("playtest"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=True
            ) as bar:
                task = bar.add_task("games", total=games)
                records = run_playtest(
                    m, s, games, jobs, keep_actions=bool(replay_dir), progress=lambda k: bar.update(task, completed=k)
                )
        else:
            started = time.perf_counter()
            records = run_playtest(m, s, games, jobs, keep_actions=bool(replay_dir))
            _ = time.perf_counter() - started
    except GameError as e:
        raise click.ClickException(str(e)) from None
    rep = summarise(records, m, s, source)
    if replay_dir:
        try:
            save_replays(replay_dir, m, s, records)
        except OSError as e:
            raise click.ClickException(f"{replay_dir}: cannot write replays ({e.strerror or e})") from None
        rep["replays"] = str(replay_dir)
    if plot_file:
        try:
            from mapgen.render import plot_playtest
        except ImportError:
            raise click.ClickException("--plot needs mapgen.render.plot_playtest, which this install lacks") from None
        try:
            plot_playtest([rep], plot_file, title=f"{source}: {bot}")
        except (OSError, ValueError) as e:
            raise click.ClickException(f"{plot_file}: {e}") from None
    if as_json:
        click.echo(json.dumps(rep, indent=2))
    else:
        click.echo(report_text(rep))
        if replay_dir:
            click.echo(
                f"  replays      {replay_dir}/game-NNNNN.json (play one back: mapgen playtest --show FILE --step)"
            )
