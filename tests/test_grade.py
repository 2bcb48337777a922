"""mapgen grade: figures equal to the playtest's, flags with reasons, the same report wherever it runs, the CLI."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import maps
from cli import main
from mapgen.campaign import Local, Task, run
from mapgen.engine.bots import BOTS
from mapgen.engine.playtest import Settings, run_playtest, summarise
from mapgen.engine.playtest import report_text as playtest_text
from mapgen.grade import BotFigures, Deduction, MapGrade, deduce_map, flags_for, grade, report_markdown, report_text
from mapgen.mapfile import dumps_map, read_map
from mapgen.quality import QualityError, chapter_quality, load_quality

DATA = Path(__file__).parent / "data"
TRAINING = DATA / "valid" / "training-201.toml"
WALLED = DATA / "grade_walled_in_vameter.toml"  # a Vameter map whose heuristic games end walled in 2 times in 3


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.slow
def test_bot_figures_are_the_playtest_report_for_the_same_seed():
    m = read_map(TRAINING)
    g = grade(m, "t", games={"heuristic": 30, "clairvoyant": 20}, seed=5, deduce=False)
    for bot, n in (("heuristic", 30), ("clairvoyant", 20)):
        s = Settings(bot=bot, seed=5)
        rep = summarise(run_playtest(m, s, n), m, s)
        got = g.to_json()["bots"][bot]
        assert (got["games"], got["wins"], got["win_rate_ci"], got["losses"]) == (
            n,
            rep["wins"],
            rep["win_rate_ci"],
            rep["losses"],
        )
        assert got["mean_days"] == round(rep["mean_days"], 3)


@pytest.mark.slow
def test_the_same_seed_gives_the_same_report_on_one_process_or_two():
    m = read_map(TRAINING)
    games = {"heuristic": 60, "deducer": 3, "clairvoyant": 60}
    one = grade(m, "t", games=games, seed=3, where=Local(1)).to_json()
    two = grade(m, "t", games=games, seed=3, where=Local(2)).to_json()
    assert one == two
    assert one["deduction"]["reveal_set"] > 0
    assert one["gap"] == round(one["bots"]["clairvoyant"]["win_rate"] - one["bots"]["deducer"]["win_rate"], 4)


def test_sealed_games_are_counted_as_the_playtest_counts_them():
    """Issue 41: grade said "blocked 10%" (walled in only) where playtest said 35% sealed (every reason): grade's
    sealed games, their reasons, the losses and the won games' scores are the playtest's for the same seed."""
    m = read_map(WALLED)
    g = grade(m, "v", games={"heuristic": 30}, deduce=False)
    s = Settings(bot="heuristic")
    rep = summarise(run_playtest(m, s, 30), m, s)
    got = g.to_json()["bots"]["heuristic"]
    keys = ("sealed", "sealed_rate", "sealed_by", "losses", "win_scores")
    assert {k: got[k] for k in keys} == {k: rep[k] for k in keys}
    f = g.bots["heuristic"]
    assert f.walled_in_rate == rep["sealed_by"].get("walled in", 0) / 30
    line = next(x for x in report_text(g).splitlines() if x.startswith("  heuristic"))
    why = ", ".join(f"{w} {n}" for w, n in rep["sealed_by"].items())
    shown = f"{rep['sealed']}/30 = {100 * rep['sealed_rate']:.1f}%"
    assert f"sealed {shown} ({why})" in line and "blocked" not in report_text(g)


def test_the_causes_of_loss_are_named_as_the_playtest_names_them():
    """The grade text's "lost:" printed the JSON keys ("lost: hunger 6, crew_died 154" for maldonado-1) where
    mapgen playtest's "losses" line, counting the same games, says "a Crew Member not saved 154"."""
    m = maps.load("maldonado-1")
    g = grade(m, "maldonado-1", games={"heuristic": 12}, deduce=False)
    s = Settings(bot="heuristic")
    rep = summarise(run_playtest(m, s, 12), m, s)
    assert rep["losses"].get("crew_died")  # the seed's games lose a Crew Member: the test reads that cause
    line = next(x for x in report_text(g).splitlines() if x.startswith("  heuristic"))
    theirs = next(x for x in playtest_text(rep).splitlines() if x.startswith("  losses"))
    assert line.split("; lost: ")[1] == theirs.removeprefix("  losses       ")
    assert "crew_died" not in line and f"a Crew Member not saved {rep['losses']['crew_died']}" in line


def test_a_bot_whose_games_not_won_were_all_sealed_is_not_said_to_have_lost_none_alone():
    """The line "wins 5/6, sealed 1/6, ...; lost: none" read as if the sixth game was won too: it says the games not won
    were sealed, not lost by the rulebook (and "lost: none" stays for a bot that won every game)."""
    import dataclasses

    from mapgen.grade import BotFigures

    g = grade(maps.load("fauna-1"), "fauna-1", games={"heuristic": 2}, deduce=False)
    games = [("win", 3, 30)] * 5
    for outcomes, said in (
        ([("sealed: walled in", 2, 0)], "; lost: none by the rulebook (the games not won were sealed)"),
        ([("win", 3, 30)], "; lost: none"),
        ([("thirst", 2, 0)], "; lost: thirst 1"),
    ):
        figures = BotFigures.from_games("heuristic", games + outcomes)
        text = report_text(dataclasses.replace(g, bots={"heuristic": figures}))
        line = next(x for x in text.splitlines() if x.startswith("  heuristic"))
        assert line.endswith(said), line


def test_every_figure_of_the_grade_text_says_what_it_is():
    """The grade text gave bare intervals ("(25.8% to 65.8%)"), a sealed share whose reasons were counts of games
    ("sealed 35% (walled in 3, ...)") and a gap whose win rates stood on no stated number of games. Each interval
    now says it is the 95% one, each rate its games (wins/games, sealed/games), as playtest's text does."""
    from mapgen.grade import MapGrade, Play
    from mapgen.quality import NO_CHECKS

    fair = BotFigures("scout", 10, 6, {"hunger": 2}, 3.6, {"walled in": 1, "map explored": 1})
    oracle = BotFigures("oracle", 10, 10, {}, 3.5)
    deducer = BotFigures("deducer", 20, 10, {}, 3.0)
    clairvoyant = BotFigures("clairvoyant", 20, 13, {}, 3.0, {"map explored": 3})
    g = MapGrade("m", "fauna", 0, {"scout": fair, "oracle": oracle}, None, NO_CHECKS)
    text = report_text(g)
    lo, hi = fair.interval
    assert f"wins 6/10 = 60.0% (95% interval {100 * lo:.1f}% to {100 * hi:.1f}%)" in text
    assert "sealed 2/10 = 20.0% (walled in 1, map explored 1)" in text and "sealed 0/10 = 0.0%," in text
    glo, ghi = Play(fair, oracle).gap_interval
    assert (
        "scout (best fair bot) wins 6/10 = 60.0%, oracle 10/10 = 100.0%: gap oracle − scout = +40.0 points "
        f"(95% interval {100 * glo:+.1f} to {100 * ghi:+.1f})"
    ) in text
    older = report_text(MapGrade("m", "fauna", 0, {"deducer": deducer, "clairvoyant": clairvoyant}, None, NO_CHECKS))
    glo, ghi = Play(deducer, clairvoyant).gap_interval
    assert f"clairvoyant − deducer = +15.0 points (95% interval {100 * glo:+.1f} to {100 * ghi:+.1f})" in older


def test_a_map_walled_in_most_of_the_time_is_flagged_with_its_share():
    m = read_map(WALLED)
    g = grade(m, "v", games={"heuristic": 30}, deduce=False)
    share = g.bots["heuristic"].walled_in_rate
    assert share > 0.6 and not g.passes
    (flag,) = [f for f in g.flags if f.code == "walled_in"]
    assert flag.reason == (
        f"{100 * share:.0f}% of heuristic games sealed walled in (no Path left open; at most 45%: [quality] max_walled_in)"
    )
    # (skull_walls off: its B7 start is a Skull, which issue 22's check flags; see the test below)
    looser = replace(chapter_quality("vameter"), max_walled_in=0.95, win_rate=None, skull_walls=None)
    assert grade(m, "v", games={"heuristic": 30}, deduce=False, quality=looser).passes


def test_a_win_rate_outside_the_band_is_flagged():
    m = read_map(TRAINING)
    q = replace(chapter_quality("training"), win_rate=(0.0, 0.05))
    g = grade(m, "t", games={"heuristic": 20}, deduce=False, quality=q)
    f = g.bots["heuristic"]
    lo, hi = f.interval
    assert [fl.reason for fl in g.flags] == [
        (
            f"heuristic wins {100 * f.win_rate:.1f}% (95% interval {100 * lo:.1f}% to {100 * hi:.1f}%), "
            "outside the band 0% to 5% ([quality] win_rate)"
        )
    ]


def test_a_win_rate_flag_says_when_its_interval_reaches_into_the_band():
    """1 win in 10 is outside a 15% to 60% band on the point estimate, but its 95% interval (1.8% to 40.4%) reaches
    well into the band: the flag stays (what passes is unchanged, as the shipped maps record it), and its note says
    the games are too few to be sure. An interval wholly outside the band gets no note."""
    q = replace(chapter_quality("fauna"), win_rate=(0.15, 0.6))
    few = {"heuristic": BotFigures("heuristic", 10, 1, {"hunger": 9}, 3.0)}
    (flag,) = flags_for("fauna", few, None, q)
    assert (flag.code, flag.reason) == (
        "win_rate",
        "heuristic wins 10.0% (95% interval 1.8% to 40.4%), outside the band 15% to 60% ([quality] win_rate)",
    )
    assert flag.note == "on 10 games that interval reaches into the band: more --games to be sure"
    assert flag.text == f"{flag.reason}; {flag.note}"
    assert flag.to_json() == {"code": "win_rate", "reason": flag.reason, "note": flag.note, "setting": "win_rate"}
    many = {"heuristic": BotFigures("heuristic", 400, 4, {"hunger": 396}, 3.0)}
    (sure,) = flags_for("fauna", many, None, q)
    assert (sure.note, sure.text, sure.to_json()["note"]) == (None, sure.reason, None)


def test_the_win_rate_note_is_in_the_text_json_csv_and_markdown():
    args = [TRAINING, "--games", "6", "--bots", "heuristic", "--no-deduction", "--win-rate", "0-0.8"]
    note = "on 6 games that interval reaches into the band: more --games to be sure"
    reason = "heuristic wins 100.0% (95% interval 61.0% to 100.0%), outside the band 0% to 80% ([quality] win_rate)"
    text = cli("grade", *args)
    assert text.exit_code == 0 and f"  flag         {reason}; {note}\n" in text.stdout
    (flag,) = json.loads(cli("grade", *args, "--json").stdout)[0]["flags"]
    assert flag == {"code": "win_rate", "reason": reason, "note": note, "setting": "win_rate"}
    (row,) = csv.DictReader(io.StringIO(cli("grade", *args, "--csv").stdout))
    assert row["flags"] == f"{reason}; {note}"
    assert f"| {reason}; {note} |" in cli("grade", *args, "--markdown").stdout


def _deduction(tier="Gentle", guessed=()):
    grade_ = {"tier": tier, "guesses": 1, "largest_reason": 3, "deduced_share": 0.8}
    return Deduction(12, "Ft", 20, tuple(guessed), 25, grade_)


def test_targets_found_before_deduced_and_a_grade_far_from_the_one_asked_are_flagged():
    bots = {"heuristic": BotFigures("heuristic", 10, 5, {"hunger": 5}, 3.0)}
    q = replace(chapter_quality("fauna"), grade="Fiendish", grade_within=1)
    flags = flags_for("fauna", bots, _deduction("Moderate", ["B4", "F5"]), q)
    assert [(f.code, f.reason) for f in flags] == [
        (
            "guessed_target",
            "2 targets (Ft at B4, F5) never deduced before found (none allowed: [quality] guessed_targets = 0)",
        ),
        (
            "grade",
            'deduction grade Moderate, 2 tiers from the Fiendish asked ([quality] grade = "Fiendish", grade_within = 1)',
        ),
    ]
    assert flags_for("fauna", bots, _deduction("Tricky"), q) == ()  # one tier away: within 1


def test_each_flag_names_the_quality_setting_it_was_checked_against():
    """A flag said "outside the band 15% to 60%" or "(none allowed)" without naming the [quality] setting behind it, so
    a designer could not tell which key of the profile's table (or which option) to change. Each flag of a setting now
    names it in its reason (which text, CSV, Markdown and a [grade] table give) and in ``setting`` (JSON)."""
    bots = {"heuristic": BotFigures("heuristic", 400, 4, {"hunger": 396}, 3.0, {"walled in": 300})}
    q = replace(chapter_quality("fauna"), grade="Fiendish", grade_within=1, skull_walls=None)
    flags = flags_for("fauna", bots, _deduction("Moderate", ["B4", "F5"]), q)
    assert [(f.code, f.setting) for f in flags] == [
        ("walled_in", "max_walled_in"),
        ("win_rate", "win_rate"),
        ("guessed_target", "guessed_targets"),
        ("grade", "grade"),  # and grade_within, named in the reason
    ]
    for f in flags:
        assert f"[quality] {f.setting}" in f.reason, f.reason
        assert f.to_json()["setting"] == f.setting
    assert (
        flags[2].reason
        == "2 targets (Ft at B4, F5) never deduced before found (none allowed: [quality] guessed_targets = 0)"
    )
    assert flags[3].reason == (
        'deduction grade Moderate, 2 tiers from the Fiendish asked ([quality] grade = "Fiendish", grade_within = 1)'
    )
    (none,) = flags_for("fauna", {}, None, replace(q, win_rate=None, max_walled_in=None))
    assert (none.setting, none.reason) == (
        "grade",
        'no deduction grade to compare with [quality] grade = "Fiendish" (see mapgen deduce)',
    )


@pytest.mark.slow
def test_deduce_map_reports_the_minimal_reveal_set():
    from mapgen.deduce import minimal_reveal_set

    m = read_map(TRAINING)
    d = deduce_map(dumps_map(m), 0, 60.0)
    assert d.reveal_set == len(minimal_reveal_set(m, seed=0))
    assert d.target is None and d.guessed_targets == ()


def test_campaign_results_come_back_in_task_order_and_errors_surface():
    tasks = [Task(pow, (k, 2)) for k in range(12)]
    assert run(tasks, Local(2)) == [k * k for k in range(12)]
    with pytest.raises(ValueError):
        run([Task(int, ("x",))], Local(1))


# --- the command ---------------------------------------------------------------------------------------------------


def test_grade_json_csv_and_markdown_give_one_row_per_map():
    args = [TRAINING, "training-2", "--games", "8", "--bots", "heuristic,clairvoyant", "--no-deduction"]
    r = cli("grade", *args, "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [x["map"] for x in rows] == [str(TRAINING), "training-2"]
    assert all(set(x["bots"]) == {"heuristic", "clairvoyant"} and x["bots"]["heuristic"]["games"] == 8 for x in rows)
    table = list(csv.DictReader(io.StringIO(cli("grade", *args, "--csv").stdout)))
    assert [t["map"] for t in table] == [str(TRAINING), "training-2"]
    assert float(table[0]["heuristic_win"]) == rows[0]["bots"]["heuristic"]["win_rate"]
    md = cli("grade", *args, "--markdown").stdout.splitlines()
    assert md[0].startswith("| map | grade |") and md[3].startswith("| training-2 |")
    assert md[4:5] == [""] and md[5].startswith("grade: the deduction tier")  # what each column counts
    assert md[6:7] == [""] and md[7].startswith("gap: ") and len(md) == 8  # the legend: no oracle, no gap


def test_a_markdown_gap_column_says_which_bots_it_compares_and_what_a_dash_means():
    """The header said "gap" and the cells "–" with heuristic and clairvoyant: not which two bots the gap compares,
    nor why there was none. The header names them; a legend under the table says what "–" means."""
    args = [TRAINING, "--games", "4", "--no-deduction", "--markdown"]
    md = cli("grade", *args, "--bots", "heuristic,clairvoyant").stdout.splitlines()
    head = [h.strip() for h in md[0].strip("|").split("|")]
    assert "gap (oracle − best fair)" in head and "gap" not in head
    assert md[2].split(" | ")[head.index("gap (oracle − best fair)")] == "–"
    assert md[-1] == (
        "gap: the oracle's win rate minus the best fair bot's, in points (what the hidden map costs a strong "
        "player); –: not measured, as --bots did not play the oracle and a fair bot (random, heuristic, deducer, "
        "ismcts, planner, scout)"
    )
    # graded without the oracle, the gap is the older clairvoyant − deducer: the header says so, no legend needed
    md = cli("grade", *args, "--bots", "deducer,clairvoyant").stdout.splitlines()
    assert "| gap (clairvoyant − deducer) |" in md[0] and len(md) == 5 and md[-1].startswith("grade: ")


def test_grade_json_quality_games_are_the_games_played():
    """`--games 20` played 20 heuristic games but quality.games said 200 (the defaults): it says what was played."""
    r = cli("grade", TRAINING, "--games", "20", "--bots", "heuristic,scout", "--no-deduction", "--json")
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)
    assert row["quality"]["games"] == {"heuristic": 20, "scout": 10}
    assert {b: f["games"] for b, f in row["bots"].items()} == row["quality"]["games"]


def test_grade_tables_name_the_bot_whose_sealed_share_and_days_they_show():
    """The "sealed (walled in)" and "mean days" columns are one bot's (the band's: the heuristic) and said not
    which: the headers name it."""
    args = [TRAINING, "--games", "6", "--bots", "clairvoyant,heuristic", "--no-deduction"]
    md = cli("grade", *args, "--markdown").stdout.splitlines()
    head = [h.strip() for h in md[0].strip("|").split("|")]
    assert head[-3:] == ["heuristic sealed (walled in)", "heuristic mean days", "flags"], md[0]
    table = list(csv.DictReader(io.StringIO(cli("grade", *args, "--csv").stdout)))
    assert {"heuristic_sealed_rate", "heuristic_walled_in_rate", "heuristic_mean_days", "heuristic_losses"} <= set(
        table[0]
    )
    assert "sealed_rate" not in table[0] and "clairvoyant_mean_days" not in table[0]
    # the band's bot not played: the first bot's games, named so
    md = cli("grade", TRAINING, "--games", "6", "--bots", "clairvoyant", "--no-deduction", "--markdown").stdout
    assert "| clairvoyant sealed (walled in) | clairvoyant mean days |" in md


def test_a_markdown_table_of_maps_with_different_band_bots_names_the_bot_in_each_cell():
    ms = [maps.load(n) for n in ("training-1", "fauna-1")]
    gs = [MapGrade.from_table(f"{m.chapter}-{m.briefing.number}", m, m.meta["grade"]) for m in ms]
    gs[1] = replace(gs[1], quality=replace(gs[1].quality, bot="deducer"))
    lines = report_markdown(gs).splitlines()
    assert "| band bot sealed (walled in) | band bot mean days |" in lines[0]
    assert "| heuristic: 0% (0%) | heuristic: 2.0 |" in lines[2]
    d = ms[1].meta["grade"]["deducer"]
    assert f"| deducer: {100 * d['sealed_rate']:.0f}% ({100 * d['walled_in_rate']:.0f}%) | deducer: " in lines[3]


def test_grade_text_names_each_flag():
    r = cli("grade", WALLED, "--games", "30", "--bots", "heuristic", "--no-deduction", "--win-rate", "heuristic:0-1")
    assert r.exit_code == 0
    assert "FLAGGED" in r.stdout and "games sealed walled in (" in r.stdout and "outside the band" not in r.stdout


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--bots", "heuristic,wizard"],
            f"error: --bots: unknown bot 'wizard' (expected some of {', '.join(BOTS)})",
        ),
        (  # a misspelt bot is named, as a misspelt map is
            ["--bots", "heuristc"],
            f"error: --bots: unknown bot 'heuristc': did you mean heuristic? (expected some of {', '.join(BOTS)})",
        ),
        (
            ["--win-rate", "oracel:0.1-0.2"],
            f"error: --win-rate: unknown bot 'oracel': did you mean oracle? (expected one of {', '.join(BOTS)})",
        ),
        (
            ["--win-rate", "0.6-0.2"],
            "error: --win-rate: a band of shares between 0 and 1 with the least first, not '0.6-0.2'",
        ),
        (
            ["--win-rate", "wizard:0.1-0.2"],
            f"error: --win-rate: unknown bot 'wizard' (expected one of {', '.join(BOTS)})",
        ),
    ],
)
def test_bad_options_are_one_line_exit_2(args, line):
    r = cli("grade", TRAINING, "--games", "1", "--no-deduction", *args)
    assert (r.exit_code, r.stderr) == (2, line + "\n")


def test_a_profile_quality_table_sets_what_passes(tmp_path):
    p = tmp_path / "q.toml"
    p.write_text('chapter = "training"\n[quality]\nwin_rate = [0.0, 0.01]\nmax_walled_in = 0.5\n', encoding="utf-8")
    q = load_quality(p, "training")
    assert (q.win_rate, q.max_walled_in, q.bot, q.source) == ((0.0, 0.01), 0.5, "heuristic", str(p))
    r = cli("grade", TRAINING, "--games", "6", "--bots", "heuristic", "--no-deduction", "--profile", p, "--json")
    assert [f["code"] for f in json.loads(r.stdout)[0]["flags"]] == ["win_rate"]
    p.write_text("[quality]\nwin_rate = [0.7, 0.2]\n", encoding="utf-8")
    with pytest.raises(QualityError):
        load_quality(p, "training")
    r = cli("grade", TRAINING, "--games", "1", "--no-deduction", "--profile", p)
    assert (r.exit_code, r.stderr) == (2, f"error: {p}: quality.win_rate: the least share 0.7 is above the most 0.2\n")
    p.write_text("[quality]\nwin_rat = [0.1, 0.2]\n", encoding="utf-8")
    r = cli("grade", TRAINING, "--games", "1", "--no-deduction", "--profile", p)
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {p}: unknown key quality.win_rat (known: ")


def test_a_profile_quality_games_are_played_unless_games_is_given(tmp_path):
    """`grade --profile P` played the default 200 heuristic games whatever P's `quality.games` said."""
    p = tmp_path / "q.toml"
    p.write_text('chapter = "training"\n[quality]\ngames = { heuristic = 7, clairvoyant = 3 }\n', encoding="utf-8")
    args = [TRAINING, "--bots", "heuristic,clairvoyant,deducer", "--no-deduction", "--profile", p, "--json"]
    r = cli("grade", *args)
    assert r.exit_code == 0, r.output
    played = {b: f["games"] for b, f in json.loads(r.stdout)[0]["bots"].items()}
    assert played == {"heuristic": 7, "clairvoyant": 3, "deducer": 100}  # a bot the table leaves out: the default
    r = cli("grade", *args, "--games", "2")
    assert {b: f["games"] for b, f in json.loads(r.stdout)[0]["bots"].items()} == dict.fromkeys(played, 2)


def test_the_tiers_named_here_are_the_deduction_grade_s():
    from cli import main
    from mapgen.deduce import TIERS as DEDUCE_TIERS
    from mapgen.quality import TIERS

    with main.make_context("mapgen", ["--help"], resilient_parsing=True) as ctx:
        commands = [main.get_command(ctx, name) for name in ("generate", "pack")]
    offered = [tuple(p.type.choices) for c in commands for p in c.params if p.name == "grade_tier"]
    assert len(offered) == 2 and all(c == TIERS for c in offered)  # the --grade choices the CLI offers
    assert TIERS == DEDUCE_TIERS


def test_the_deduction_half_is_mapgen_deduce_s_grade():
    from mapgen.deduce import deduce_report

    m = read_map(TRAINING)
    d = deduce_map(dumps_map(m), 0, 60.0)
    report = deduce_report(m, seed=0, time_limit=60.0)
    assert d.grade == {k: report["grade"][k] for k in ("tier", "guesses", "largest_reason", "deduced_share")}
    assert d.reveal_set == report["reveal_count"] and d.unique_at == report["profile"]["unique_at"]


def test_a_start_one_skull_can_wall_in_is_flagged_with_its_cells():
    """Issue 22: a Monster drawn on an explored Skull goes on it ("If DAY: Explored Monster Lair"), and "you cannot
    explore a Path adjacent to ... a Path with a Monster Token on it": a start Path that is a Skull walls the
    expedition in at once. grade says which start, and a profile can switch the check off."""
    m = read_map(WALLED)
    g = grade(m, "v", games={"heuristic": 2}, deduce=False)
    (flag,) = [f for f in g.flags if f.code == "skull_wall"]
    assert flag.reason == (
        "1 start Path one Skull's Monster walls in within 5 Paths: "
        "B7 is a Skull: a Monster drawn there walls the first Path in ([quality] skull_walls)"
    )
    off = replace(chapter_quality("vameter"), skull_walls=None)
    assert not [
        f for f in grade(m, "v", games={"heuristic": 2}, deduce=False, quality=off).flags if f.code == "skull_wall"
    ]
    assert not grade(read_map(TRAINING), "t", games={"heuristic": 2}, deduce=False).flags  # no Monster from a Skull


def test_a_skull_that_cuts_a_start_off_walls_it_in_a_pocket():
    """A Skull beside a start whose other ways on are Rocks: exploring the Skull puts its Monster there, the Rocks
    stop the trail, and the start is walled in with the Paths before the Skull."""
    from mapgen.engine.skull_walls import skull_walls
    from mapgen.terrain import Terrain

    m = read_map(WALLED)
    cells = list(m.cells)
    b = m.board
    cells[b.index("G7")] = Terrain.FOOD  # the start
    cells[b.index("F7")] = Terrain.SKULL  # the only way on
    cells[b.index("G6")] = Terrain.WATER  # then a dead end: Rock beyond it
    cells[b.index("F6")] = Terrain.ROCK
    cells[b.index("G5")] = Terrain.ROCK
    walls = [w for w in skull_walls(m.with_cells(tuple(cells))) if w.start == "G7"]
    assert [(w.skull, w.pocket) for w in walls] == [("F7", ("F6", "G5", "G6", "G7", "F7"))]


def test_won_games_scores_are_summed_up_by_quartiles_and_a_histogram():
    """Issue 41: nearly every win scores Master Explorer (28+), so the levels say little; the scores' spread does."""
    from mapgen.engine.playtest import score_summary, score_words

    d = score_summary([41, 29, 33, 35, 30, 52])
    assert d == {
        "games": 6,
        "min": 29,
        "q1": 30.75,
        "median": 34.0,
        "q3": 39.5,
        "max": 52,
        "histogram": {"25-29": 1, "30-34": 2, "35-39": 1, "40-44": 1, "45-49": 0, "50-54": 1},
    }
    assert score_words(d) == (
        "29 to 52, quartiles 30.75 / 34 / 39.5; by 5 points: 25-29 1, 30-34 2, 35-39 1, 40-44 1, 45-49 0, 50-54 1"
    )
    assert score_summary([]) == {} and score_summary([30])["median"] == 30
    f = BotFigures.from_games("heuristic", [("win", 3, 41), ("hunger", 2, 0), ("sealed: map explored", 4, 0)])
    assert f.to_json()["win_scores"]["games"] == 1 and f.sealed_by == {"map explored": 1} and f.losses == {"hunger": 1}


def test_the_play_gap_interval_is_newcombes_for_two_rates():
    """The gap's 95% interval (oracle minus the best fair bot) is Newcombe's hybrid score interval made of the two
    Wilson intervals: it holds the gap, narrows with more games, and stays within [-1, 1]."""
    from mapgen.grade import BotFigures, Play

    def figures(bot, wins, games):
        return BotFigures(bot, games, wins, {}, 3.0)

    small = Play(figures("scout", 50, 100), figures("oracle", 90, 100))
    lo, hi = small.gap_interval
    assert lo < small.gap < hi and small.gap == pytest.approx(0.40)
    assert (lo, hi) == pytest.approx((0.2784, 0.5061), abs=1e-4)  # Newcombe 1998, method 10, worked apart
    big = Play(figures("scout", 500, 1000), figures("oracle", 900, 1000))
    assert big.gap_interval[0] > lo and big.gap_interval[1] < hi
    assert Play(figures("scout", 0, 10), figures("oracle", 10, 10)).gap_interval[1] == 1.0


def test_the_header_says_the_seed_is_the_games_seed():
    """The header "fauna-5.toml: fauna, seed 0: FLAGGED" read as the map's seed (that map's own is 5): it is
    --seed, the seed of the games played, and the header says so."""
    from mapgen.quality import NO_CHECKS

    header = report_text(MapGrade("fauna-5.toml", "fauna", 7, {}, None, NO_CHECKS)).split("\n")[0]
    assert header == "fauna-5.toml: fauna, games seed 7: passes"


def test_the_deduction_line_says_what_its_figures_mean():
    """A designer read "Gentle: 9 guesses before every target is known, largest reason 0, 0% of steps deduced":
    "largest reason 0" meant nothing. The line now says it in mapgen deduce's words, and Training (no targets)
    reads up to where the map is unique."""
    from mapgen.quality import NO_CHECKS

    def line(target, largest, share):
        grade = {"tier": "Gentle", "guesses": 11, "largest_reason": largest, "deduced_share": share}
        d = Deduction(16, target, 16, (), None, grade)
        return report_text(MapGrade("m", "flora", 0, {}, d, NO_CHECKS)).split("\n")[1]

    assert line("Fc", 7, 0.3125) == (
        "  deduction    Gentle: 11 guesses before every target is known, 31% of those steps forced; the largest "
        "reason a forced step needed: 7 rules and cells"
    )
    assert (
        line("Fc", 0, 0.0) == "  deduction    Gentle: 11 guesses before every target is known, 0% of those steps forced"
    )
    assert line(None, 1, 0.5).startswith("  deduction    Gentle: 11 guesses before the map is unique, 50% of those")


def test_the_rank_correlation_line_ranks_maps_of_one_chapter_only():
    """`mapgen grade training-1 flora-3 vameter-2` ended with a rank correlation over the 3 maps, a Training
    map's win rate ranked against a Vameter map's: it now ranks the maps of each chapter apart, and says which."""
    from mapgen.grade import play_correlations

    def graded(name, chapter, tier, fair_wins):
        d = Deduction(5, None, None, (), None, {"tier": tier, "guesses": 1, "largest_reason": 1, "deduced_share": 1.0})
        bots = {"scout": BotFigures("scout", 40, fair_wins, {}, 3.0), "oracle": BotFigures("oracle", 40, 38, {}, 3.0)}
        return MapGrade(name, chapter, 0, bots, d, chapter_quality(chapter))

    mixed = [
        graded("t", "training", "Gentle", 38),
        graded("f", "flora", "Moderate", 36),
        graded("v", "vameter", "Gentle", 28),
    ]
    assert play_correlations(mixed) is None
    fauna = [graded(f"fauna-{k}", "fauna", t, 30 - 5 * k) for k, t in enumerate(["Gentle", "Moderate", "Tricky"])]
    assert play_correlations([*fauna, *mixed]) == (
        "rank correlation (Spearman) over 3 fauna maps of the deduction grade with the best fair bot's win rate: "
        "-1.00; with the oracle gap: +1.00"
    )


def test_help_names_every_flag_grade_raises():
    """grade fauna-1 flags its start Path B7 ("walls in within 5 Paths"), a flag --help did not list."""
    out = " ".join(cli("grade", "--help").output.split())
    assert "walls in within 5 Paths" in out and "rank correlation" in out


# ----- --variant: the games played under a named variant, as playtest --variant plays them -----


def test_grade_plays_every_bot_s_games_under_the_variants_asked():
    """Found by a review: grade had no --variant (playtest has), so a designer could not grade a map for a house
    variant. Each bot's figures are playtest --variant's for the same seed, and the report names the variants."""
    args = ["grade", "fauna-1", "--bots", "heuristic,clairvoyant", "--games", 40, "--no-deduction"]
    r = cli(*args, "--variant", "relaunch", "--variant", "toll-no-water", "--variant", "relaunch", "--json")
    assert r.exit_code == 0, r.output
    g = json.loads(r.stdout)[0]
    assert g["variants"] == ["relaunch", "toll-no-water"]
    plain = json.loads(cli(*args, "--json").stdout)[0]
    assert plain["variants"] == []
    for bot in ("heuristic", "clairvoyant"):
        played = json.loads(
            cli(
                "playtest",
                "fauna-1",
                "--bot",
                bot,
                "-n",
                40,
                "--variant",
                "relaunch",
                "--variant",
                "toll-no-water",
                "--json",
            ).stdout
        )
        mine = g["bots"][bot]
        assert (mine["wins"], mine["losses"], mine["sealed"]) == (played["wins"], played["losses"], played["sealed"])
    assert g["bots"] != plain["bots"]  # the variants changed the games
    text = cli(*args, "--variant", "relaunch").stdout
    assert text.splitlines()[0].startswith("fauna-1: fauna, games seed 0, variants relaunch: ")
    assert "on the rulebooks' reading, not the variants relaunch: the heuristic win-rate band" in text
    table = cli(*args, "--variant", "relaunch", "--markdown").stdout
    assert table.endswith("\n\ngames played under the variants relaunch\n")


def test_grade_refuses_the_variants_playtest_refuses_before_any_game():
    r = cli("grade", "fauna-1", "--games", 1, "--no-deduction", "--variant", "relaunc")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: --variant: 'relaunc' is not one of ") and "(did you mean relaunch?)" in r.stderr
    r = cli("grade", "fauna-1", "--games", 1, "--no-deduction", "--variant", "flora-minotaurs")
    assert (r.exit_code, r.stderr) == (1, "error: --variant: the variant 'flora-minotaurs' is for flora, not fauna\n")


def test_the_python_grade_takes_variants():
    m = maps.load("fauna-1")
    g = grade(m, games={"heuristic": 20}, deduce=False, variants=("relaunch",))
    s = Settings(bot="heuristic", variants=("relaunch",))
    rep = summarise(run_playtest(m, s, 20), m, s)
    assert g.to_json()["variants"] == ["relaunch"]
    assert g.to_json()["bots"]["heuristic"]["wins"] == rep["wins"]
    assert g.row()["variants"] == "relaunch"
    with pytest.raises(QualityError, match="variants is a tuple of variant names, not 'relaunch'"):
        grade(m, games={"heuristic": 1}, deduce=False, variants="relaunch")  # not the variants 'r', 'e', ...


def test_the_markdown_table_says_what_each_column_counts():
    """`mapgen grade --markdown` on a designer's own maps printed columns ("guesses", "reveal set", "targets known
    at", "heuristic sealed (walled in)", "mean days") with no word of their units: only maps/README.md, around the
    library's table, said what they count. The table says it under itself."""
    m = maps.load("fauna-1")
    g = MapGrade.from_table("fauna-1", m, m.meta["grade"])
    legend = report_markdown([g]).split("\n\n", 1)[1]
    for words in (
        "guesses: ",
        "reveal set: ",
        "targets known at: ",
        "win (95%): ",
        "sealed (walled in): ",
        "mean days: ",
    ):
        assert words in legend, words


def test_the_csv_row_holds_the_games_and_the_gap_interval_the_text_gives():
    """The text said "scout wins 6/10 ... gap oracle − scout = +40.0 points (95% interval ...)"; the CSV row had the
    rates (0.6, 1.0, gap 0.4) with no number of games and no interval for the gap: a +25-point gap on 8 games
    each (interval -17 to +58) read as a finding. The row gives each bot's games and wins, and the gap's interval."""
    from mapgen.grade import MapGrade, Play, report_csv
    from mapgen.quality import NO_CHECKS

    fair = BotFigures("scout", 10, 6, {"hunger": 2}, 3.6, {"walled in": 1, "map explored": 1})
    oracle = BotFigures("oracle", 10, 10, {}, 3.5)
    g = MapGrade("m", "fauna", 0, {"scout": fair, "oracle": oracle}, None, NO_CHECKS)
    (row,) = csv.DictReader(io.StringIO(report_csv([g])))
    assert (row["scout_games"], row["scout_wins"], row["oracle_games"], row["oracle_wins"]) == ("10", "6", "10", "10")
    glo, ghi = Play(fair, oracle).gap_interval
    assert (float(row["gap_ci_low"]), float(row["gap_ci_high"])) == (round(glo, 4), round(ghi, 4))
    assert row["gap_bots"] == "oracle − scout"  # which two bots the "gap" column compares, as --markdown's header
    deducer = BotFigures("deducer", 20, 10, {}, 3.0)
    clairvoyant = BotFigures("clairvoyant", 20, 13, {}, 3.0)
    older = MapGrade("m", "fauna", 0, {"deducer": deducer, "clairvoyant": clairvoyant}, None, NO_CHECKS)
    (row,) = csv.DictReader(io.StringIO(report_csv([older])))
    glo, ghi = Play(deducer, clairvoyant).gap_interval
    assert (float(row["gap"]), float(row["gap_ci_low"]), float(row["gap_ci_high"])) == (
        0.15,
        round(glo, 4),
        round(ghi, 4),
    )
