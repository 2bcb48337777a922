"""``mapgen playtest``: play a map many times with a bot and report how games are won or lost."""

from __future__ import annotations

import json
import os
import sys

import click

from mapgen.cli.errors import RuleBroken, about, about_settings
from mapgen.cli.grade import progress_bar
from mapgen.cli.options import (
    InName,
    Listed,
    NearChoice,
    OutName,
    bot_option,
    checked_map,
    force_option,
    force_unused,
    jobs_option,
    json_option,
    map_argument,
    out_file,
    reject,
    rules_file,
    rules_option,
    seed_option,
    typed,
    variant_option,
)
from mapgen.errors import TimeLimitError


def _team(characters: str | None, gear: str | None):
    chars = tuple(c.strip() for c in characters.split(",")) if characters else None
    gears = tuple(tuple(x.strip() for x in part.split(",") if x.strip()) for part in gear.split(";")) if gear else None
    return chars, gears


def _play_back(path: str, step: bool) -> None:
    from mapgen.engine.playtest import (  # deferred: ortools, only when the command runs
        load_replay,
        play_back,
        rules_words,
    )

    with about(path):
        game, actions, data = load_replay(path)
        variants = f", variants {', '.join(data['variants'])}" if data.get("variants") else ""  # as the report says
        budget = f", budget {data['budget']}" if data.get("budget") is not None else ""
        click.echo(
            f"Replay of game {data.get('game')} (seed {data['seed']}, bot {data.get('bot')}{budget}): "
            f"{game}{variants}{rules_words(data)}"
        )
        interactive = step and sys.stdin.isatty()
        for k, (text, state) in enumerate(play_back(game, actions)):
            if text is None:
                click.echo(str(state))
                continue
            click.echo(f"\n#{k} {text}")
            if step or state.is_terminal():
                click.echo(str(state))
            if interactive and not state.is_terminal():
                click.pause("(press any key for the next step)")


@click.command()
# valid: checked in the body, against the --rules file's rules when given (a map made under house rules broke the
# shipped ones before --rules was read)
@map_argument("map_in", complete=True, required=False)
@click.option(
    "--games", "-n", default=200, show_default=True, type=click.IntRange(1, 10_000_000), help="Number of games to play."
)
@bot_option
@click.option("--players", "-p", default=1, show_default=True, type=click.IntRange(1, 4), help="Players (1 to 4).")
@click.option(
    "--characters",
    type=Listed(),
    help="Characters, one per player, comma-separated (default: Lewis, Clark, York, Collins).",
)
@click.option(
    "--gear",
    type=Listed(),
    help="Gear per player: comma-separated, players separated by ';' (e.g. 'Compass,Flint;Jar,Satchel').",
)
@click.option("--medicine", is_flag=True, help="Add the Training Gear Medicine to the first player.")
@click.option(
    "--mode",
    type=NearChoice(["coop", "traitor"]),
    help="Maldonado: co-operative (default) or Hidden Traitor mode (reports traitor_wins and traitor_caught).",
)
@click.option(
    "--budget",
    type=click.IntRange(1, 100_000),
    help="Search bots: ismcts simulations per decision (default 16), planner worlds per Path (default 2), "
    "scout worlds per Path once 71% of the board is explored (default 1), oracle rollouts per candidate action "
    "where it searches (default 1); more plays better and slower.",
)
@variant_option("the games")
@rules_option
@seed_option(0, help="Seed: same seed, same report.")
@jobs_option("Processes to play in (0: one per core).")
@click.option(
    "--replay",
    "replay_dir",
    metavar="DIR",
    type=OutName("folder"),
    help="Save every game as (seed, actions) to DIR/game-NNNNN.json (DIR is made if missing; with --force, an "
    "earlier, larger run's extra replays are removed), with its settings and any --rules file's house rules, whole: "
    "--show needs no other file.",
)
@click.option(
    "--show",
    "show_file",
    metavar="FILE",
    type=InName(),
    help="Play back one saved game (a file written by --replay) instead of playtesting; exit 2 when its actions "
    "do not play to the end it records.",
)
@click.option(
    "--step", is_flag=True, help="With --show: print the whole state after every action (and wait on a terminal)."
)
@click.option(
    "--plot", "plot_file", metavar="FILE", type=OutName("file"), help="Also draw the report to a PNG/SVG/PDF file."
)
@force_option("the --plot file and --replay files", several=True)
@json_option
def playtest(
    map_in,
    games,
    bot,
    players,
    characters,
    gear,
    medicine,
    mode,
    budget,
    variants,
    rules,
    seed,
    jobs,
    replay_dir,
    show_file,
    step,
    plot_file,
    force,
    as_json,
):
    """Play a map many times with a bot and report how often, how well and why games are won or lost.

    MAP is a map file or the name of a shipped map. The report gives the win rate with a 95%
    interval, the mean score, the levels of success and the spread of the won games' scores (quartiles,
    a histogram by 5 points), the causes of loss (the rulebooks' own), the sealed games (no Path could
    be explored for a whole round) and why each was sealed, the mean number of days and the turn of each goal event
    (first Fort, each kill). --variant plays another reading of an ambiguous rule or a house rule; --rules gives the
    bots a house-rule chapter file to reason with. Same seed, same report, whatever --jobs. Bots: random, heuristic
    (revealed cells only), deducer (the heuristic plus the solver's possible terrains), clairvoyant (the heuristic
    seeing the map: a cheap reference), ismcts (OpenSpiel's Information Set MCTS on worlds drawn from what the
    player knows, --budget simulations per decision; needs the openspiel extra), planner (the strong fair bot: the
    deducer, each Path it explores chosen by rollouts on --budget worlds drawn from what the player knows), scout
    (the fast fair bot `mapgen grade` plays: the deducer, each Path chosen by rollouts on --budget worlds once 71% of
    the board is explored), oracle (a rollout search with the map in view, chance drawn at random: the upper
    bound, --budget rollouts per candidate). --plot and --replay are checked before the first game.

    \b
    Example:
        mapgen playtest fauna-1 --games 1000 --jobs 2
        mapgen playtest fauna-2 --bot clairvoyant --players 2 --json
        mapgen playtest fauna-1 --bot ismcts --budget 32 --games 2
        mapgen playtest fauna-1 --bot oracle --games 20
        mapgen playtest fauna-1 --bot planner --budget 2 --games 20
        mapgen playtest flora-3 --variant flora-minotaurs
        mapgen chapters fauna -o my-fauna.toml
        mapgen playtest fauna-1 --rules my-fauna.toml
        mapgen playtest training-1 --games 5 --replay runs/
        mapgen playtest --show runs/game-00003.json --step
    """
    if show_file:
        # the game plays back as it was saved: a setting given beside --show would be ignored
        for param in click.get_current_context().command.params:
            if typed(param.name) and param.name not in ("show_file", "step"):
                what = "MAP" if param.name == "map_in" else param.opts[0]
                reject(what, "not used with --show, which plays the saved game back as it was played (as text)")
        _play_back(show_file, step)
        return
    if step:
        reject("--step", "only plays back a saved game: give --show FILE (a file written by --replay)")
    if map_in is None:
        raise click.UsageError("give a MAP to playtest (or --show FILE to play back a saved game)")
    map_in = checked_map(map_in, valid=True, command="playtest", chapter=rules)  # exit 2 for another chapter's rules
    from mapgen.engine.playtest import (  # deferred: ortools, only when the command runs
        Settings,
        check_replay_folder,
        report_text,
        run_playtest,
        save_replays,
        summarise,
    )

    if plot_file:
        from mapgen.render.output import output_format  # deferred: the command's library, only when it runs

        output_format(plot_file)  # RenderError (exit 2) for a suffix that is not .png, .svg or .pdf
    out_file(plot_file, force=force)
    if replay_dir:
        check_replay_folder(replay_dir, games, force=force)
    from mapgen.engine.bots import HAS_BUDGET  # deferred: ortools, only when the command runs

    if budget is not None and bot not in HAS_BUDGET:
        reject("--budget", f"the {bot} bot has no search budget (--budget is for {', '.join(sorted(HAS_BUDGET))})")
    if bot == "ismcts":
        from mapgen.engine.bots.ismcts import require_openspiel  # deferred: ortools, only when the command runs

        try:
            require_openspiel()
        except ImportError as e:
            raise RuleBroken("--bot ismcts", str(e)) from None
    force_unused(force, (plot_file, replay_dir), "--plot or --replay")
    m, source = map_in.map, map_in.source
    with about_settings(source):  # a setting no game can be made from names its option (the first game tells)
        chars, gears = _team(characters, gear)
        s = Settings(
            bot=bot,
            players=players,
            characters=chars,
            gear=gears,
            medicine=medicine,
            seed=seed,
            mode=mode,
            budget=budget,
            variants=tuple(dict.fromkeys(variants)),
            reference=rules,
        )
        jobs = jobs or os.cpu_count() or 1
        with progress_bar("playtest", games, not as_json) as progress:
            try:
                records = run_playtest(m, s, games, jobs, keep_actions=bool(replay_dir), progress=progress)
            except TimeLimitError as e:  # a bot's wall-clock safety net (its answers count work): no result, exit 3
                raise TimeLimitError(
                    f"{source}: a bot's wall clock ran out ({e}): its work is counted, so the machine is far too busy "
                    "(playtest has no --time-limit to raise: fewer --jobs, or a quieter machine)"
                ) from None
    rep = summarise(records, m, s, source)
    if rules is not None and rules_file():  # the house rules named as grade names them: the file, its fingerprint
        from mapgen.generate import rules_record  # deferred: the command's library, only for house rules

        rep.update(rules_record(rules_file(), rules))
    if replay_dir:
        from mapgen.output import removed_note  # deferred: the command's library, only when it runs

        _, removed = save_replays(replay_dir, m, s, records, force=force, rules_file=rules_file())
        if removed:
            click.echo(removed_note(replay_dir, removed), err=True)
        rep["replays"] = str(replay_dir)
    if plot_file:
        from mapgen.render import plot_playtest  # deferred: the command's library, only when it runs

        plot_playtest([rep], plot_file, title=f"{source}: {bot}", force=force)
    if as_json:
        click.echo(json.dumps(rep, indent=2))
    else:
        click.echo(report_text(rep))
        if replay_dir:
            click.echo(
                f"  replays      {replay_dir}/game-NNNNN.json (play one back: mapgen playtest --show FILE --step)"
            )
