"""mapgen generate to a target: only passing maps, same seed same maps, an impossible target ends with exit 1."""

from __future__ import annotations

import json
import tomllib

import pytest
from click.testing import CliRunner

from cli import main
from mapgen.campaign import Local
from mapgen.output import OutputExistsError
from mapgen.profile import default_profile
from mapgen.quality import NO_CHECKS
from mapgen.target import generate_to_target, search

BAND = "heuristic:0.95-1"  # about half of the Training candidates from seed 1 pass


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.slow
def test_only_maps_in_the_band_are_written_with_their_grade_and_they_validate(tmp_path):
    r = cli("generate", "-c", "training", "--seed", "1", "--count", "2", "--out", tmp_path, "--win-rate", BAND)
    assert r.exit_code == 0, r.output
    files = sorted(tmp_path.glob("*.toml"))
    assert len(files) == 2
    for f in files:
        table = tomllib.loads(f.read_text(encoding="utf-8"))["grade"]
        assert table["heuristic"]["games"] == 200 and table["heuristic"]["win_rate"] >= 0.95 and table["flags"] == []
    assert cli("validate", *files).exit_code == 0  # validate ignores the [grade] table
    assert r.stderr.startswith("tried ") and " kept 2 of 2 asked" in r.stderr


@pytest.mark.slow
def test_the_same_seed_gives_the_same_maps_on_one_process_or_two(tmp_path):
    runs = []
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        args = ["generate", "-c", "training", "--seed", "1", "--count", "2", "--out", out, "--win-rate", BAND]
        assert cli(*args, "--jobs", jobs).exit_code == 0
        runs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert runs[0] == runs[1]


@pytest.mark.slow
def test_search_reports_tries_and_failures_and_keeps_the_first_passing_seeds():
    from dataclasses import replace

    q = replace(NO_CHECKS, win_rate=(0.95, 1.0), games={"heuristic": 200})
    one = search("training", default_profile("training"), q, seed=1, count=2, where=Local(1))
    two = search("training", default_profile("training"), q, seed=1, count=2, where=Local(2))
    assert [c.seed for c in one.kept] == [c.seed for c in two.kept]
    assert one.tried == one.kept[-1].seed and one.stopped == "enough"  # seeds 1 .. the last kept, no more
    assert sum(one.failures.values()) == one.tried - 2 == one.failures["win_rate"]


@pytest.mark.slow
def test_an_impossible_target_ends_with_exit_1_and_the_closest_candidates(tmp_path):
    r = cli("generate", "-c", "training", "--seed", "1", "--win-rate", "heuristic:0-0.05", "--candidates", "3")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert r.stderr.startswith(
        "error: only 0 of 1 training map met the target (all 3 candidates tried); closest: seed "
    )
    assert r.stdout.startswith("tried 3 candidates in ")
    assert r.stdout.count("closest: seed ") == 3


def test_the_time_limit_bounds_the_search():
    r = cli(
        "generate", "-c", "training", "--seed", "1", "--win-rate", "heuristic:0-0.05", "--time-limit", "0.5", "--json"
    )
    assert r.exit_code == 3  # a time limit (it was exit 1, which says no map can meet the target)
    report = json.loads(r.stdout)
    assert report["stopped"] == "time" and report["kept"] == [] and report["tried"] >= 1
    assert "the time limit of 0.5 s ran out" in r.stderr


@pytest.mark.slow
def test_generate_to_target_is_the_library_call_behind_the_command(tmp_path):
    from dataclasses import replace

    q = replace(NO_CHECKS, win_rate=(0.0, 0.05), games={"heuristic": 20})
    (tmp_path / "training-3.toml").write_text("taken", encoding="utf-8")
    with pytest.raises(OutputExistsError):  # every file a candidate could become is checked before the work
        generate_to_target("training", q, seed=1, candidates=3, out_dir=str(tmp_path))
    run = generate_to_target("training", q, seed=1, time_limit=0.5, out_dir=str(tmp_path / "new"))
    assert not run.done and run.put == [] and run.files == [] and run.to_json()["stopped"] == "time"
    assert str(run.missed()).startswith("only 0 of 1 training map met the target (the time limit of 0.5 s ran out)")


def test_a_profile_quality_table_is_a_target(tmp_path):
    p = tmp_path / "p.toml"
    p.write_text('chapter = "training"\n[quality]\nwin_rate = [0.0, 0.05]\n', encoding="utf-8")
    r = cli("generate", "-c", "training", "--seed", "1", "--profile", p, "--candidates", "2")
    assert r.exit_code == 1 and "map met the target (all 2 candidates tried)" in r.stderr
    p.write_text('chapter = "training"\n', encoding="utf-8")  # no [quality]: plain generation
    assert cli("generate", "-c", "training", "--seed", "1", "--profile", p).stdout.startswith('chapter = "training"')


def _fake_candidate(chapter, profile, seed, quality, settings, gen_time, rules_file=None):
    """A candidate whose deduction tier cycles with its seed (Moderate, Tricky, Fiendish, Gentle, ...)."""
    from mapgen.grade import Deduction, MapGrade
    from mapgen.quality import TIERS
    from mapgen.target import Candidate

    d = Deduction(
        10, None, None, (), 20, {"tier": TIERS[seed % 4], "guesses": 1, "largest_reason": 1, "deduced_share": 0.5}
    )
    return Candidate(seed, "", MapGrade(f"{chapter}-{seed}", chapter, seed, {}, d, quality), None, 0.0)


def test_per_tier_fills_each_tier_in_one_pass_over_the_seeds(monkeypatch):
    from mapgen import target

    monkeypatch.setattr(target, "candidate", _fake_candidate)
    res = search("training", default_profile("training"), NO_CHECKS, seed=1, per_tier={"Gentle": 1, "Tricky": 2})
    assert [c.seed for c in res.kept] == [2, 4, 6] and res.tried == 6 and res.stopped == "enough"
    assert res.failures == {"tier_full": 3}
    # a passing map whose tier was full did not fail; the line read "failed: passed, but its tier was full 3"
    assert res.summary().endswith("; none failed; 3 others passed but their tier was full")
    one = search("training", default_profile("training"), NO_CHECKS, seed=1, per_tier={"Tricky": 1})
    assert one.failures == {"tier_full": 1}
    assert one.summary().endswith("; none failed; 1 other passed but its tier was full")
    short = search("training", default_profile("training"), NO_CHECKS, seed=1, per_tier={"Gentle": 5}, max_candidates=8)
    assert [c.seed for c in short.kept] == [4, 8] and short.stopped == "candidates" and not short.done


@pytest.mark.slow
def test_generate_grade_returns_only_maps_of_that_grade(tmp_path):
    r = cli("generate", "-c", "training", "--seed", "1", "--count", "2", "--grade", "Moderate", "--out", tmp_path)
    assert r.exit_code == 0, r.output
    files = sorted(tmp_path.glob("*.toml"))
    assert len(files) == 2
    for f in files:
        table = tomllib.loads(f.read_text(encoding="utf-8"))["grade"]
        assert table["tier"] == "Moderate"
        deduced = json.loads(cli("deduce", f, "--json").stdout)
        assert deduced["grade"]["tier"] == "Moderate"  # what mapgen deduce says of the written map
    assert (
        "failed: deduction grade " in r.stderr
        or "checks): deduction grade " in r.stderr
        or " kept 2 of 2 asked; 1.0 candidates" in r.stderr
    )


def test_the_summary_counts_failed_candidates_and_says_one_can_fail_several_checks():
    """ "tried 7 candidates, kept 2; failed: deduction grade 5, win rate outside the band 1" read as six failures of
    five candidates: a candidate is counted under every check it fails, and the line now says how many failed."""
    from collections import Counter

    from mapgen.target import SearchResult

    several = SearchResult("fauna", NO_CHECKS, 2, kept=[object(), object()], tried=7)  # type: ignore[list-item]
    several.failures = Counter({"grade": 5, "win_rate": 1})
    assert several.summary().endswith(
        "; 5 failed (a candidate can fail several checks): deduction grade 5, win rate outside the band 1"
    )
    one_each = SearchResult("fauna", NO_CHECKS, 1, kept=[object()], tried=3)  # type: ignore[list-item]
    one_each.failures = Counter({"grade": 2})
    assert one_each.summary().endswith("; 2 failed: deduction grade 2")


def _busy_clock_for_seed(monkeypatch, busy_seed: int) -> None:
    """The generator's clock as a machine far too busy shows it, for ``busy_seed`` only: 1000 s pass between two of
    its readings (no real work is timed)."""
    import time
    import types

    from mapgen import generate as gen_mod

    clock = {"t": 0.0, "busy": False}

    def perf_counter() -> float:
        clock["t"] += 1000.0 if clock["busy"] else 0.001
        return clock["t"]

    monkeypatch.setattr(gen_mod, "time", types.SimpleNamespace(perf_counter=perf_counter, monotonic=time.monotonic))
    real = gen_mod.Generator.generate

    def generate(self, seed):
        clock["busy"] = seed == busy_seed
        return real(self, seed)

    monkeypatch.setattr(gen_mod.Generator, "generate", generate)


def test_a_candidate_that_ran_out_of_time_ends_the_search_it_is_never_skipped(monkeypatch):
    """Seed 2's generation ran out of the wall clock (a busy machine): the search went on to seeds 3 and 4 and kept
    1, 3, 4 as "enough" (exit 0), where an idle machine keeps 1, 2, 3. Now it stops there: the seeds before it are
    kept (decided by work, not the clock) and the search says the time ran out (exit 3)."""
    _busy_clock_for_seed(monkeypatch, 2)
    res = search("training", default_profile("training"), NO_CHECKS, seed=1, count=3, where=Local(1))
    assert [c.seed for c in res.kept] == [1] and res.stopped == "time" and not res.done
    assert res.tried == 2 and res.failures == {"generation": 1} and res.out_of_time.seed == 2


def test_generate_to_a_target_whose_time_ran_out_exits_3(monkeypatch):
    """The search's time ran out (here: seed 2's generation on a busy machine): exit 3 (a time limit), not exit 1
    (no map can meet the target), with the report on stdout and the one error line saying so."""
    _busy_clock_for_seed(monkeypatch, 2)
    r = cli("generate", "-c", "training", "--seed", "2", "--max-walled-in", "1", "--candidates", "2", "--json")
    assert r.exit_code == 3, r.output
    report = json.loads(r.stdout)
    assert report["stopped"] == "time" and report["kept"] == [] and report["tried"] == 1
    assert report["failures"] == {"generation": 1}
    assert r.stderr.startswith("error: only 0 of 1 training map met the target (seed 2: no map generated in time)")
    assert r.stderr.count("\n") == 1


MAX_SEED = 2**63 - 1


@pytest.mark.parametrize(
    "args",
    [
        ["generate", "-c", "training", "--grade", "gentle", "--candidates", "30"],
        ["pack", "-c", "training", "-o", "{tmp}/f.pdf", "--out", "{tmp}/maps", "--candidates", "30"],
    ],
)
def test_a_seed_range_past_the_last_seed_names_candidates_not_count(tmp_path, args):
    """Found by an audit: a search's seeds span --candidates, yet `--seed MAX --grade gentle` said "--seed MAX with
    --count 200 reaches seed ..." (the user gave no --count, and --count 1 is not what overflows)."""
    r = cli(*(a.replace("{tmp}", str(tmp_path)) for a in args), "--seed", MAX_SEED - 10)
    assert r.exit_code == 2, r.output
    assert r.stderr == (
        f"error: --seed {MAX_SEED - 10} with --candidates 30 reaches seed {MAX_SEED + 19}, beyond what a map file "
        f"can record (0 to {MAX_SEED}, TOML's largest integer)\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_generate_to_a_target_plays_the_candidates_games_under_a_variant(tmp_path):
    """`generate --win-rate ...` grades candidates by playing them but had no --variant, which grade and playtest
    have: the candidates' games are now played under it (grade's option: same names and checks), the [grade]
    table says so, and the figures are grade --variant's for the same map and seed."""
    args = ("generate", "-c", "training", "--seed", 1, "--win-rate", "heuristic:0-1", "--candidates", 1)
    r = cli(*args, "--variant", "relaunch", "--variant", "toll-no-water")
    assert r.exit_code == 0, r.output
    table = tomllib.loads(r.stdout)["grade"]
    assert table["variants"] == ["relaunch", "toll-no-water"]
    path = tmp_path / "training-1.toml"
    path.write_text(r.stdout, encoding="utf-8")
    g = cli(
        "grade",
        path,
        "--seed",
        1,
        "--bots",
        "heuristic",
        "--games",
        200,
        "--no-deduction",
        "--json",
        "--variant",
        "relaunch",
        "--variant",
        "toll-no-water",
    )
    assert g.exit_code == 0, g.output
    assert json.loads(g.stdout)[0]["bots"]["heuristic"]["win_rate"] == table["heuristic"]["win_rate"]
    # grade's checks: a variant of another chapter names --variant (exit 1), an unknown name is exit 2
    other = cli(*args, "--variant", "flora-minotaurs")
    assert (other.exit_code, other.stderr) == (
        1,
        "error: --variant: the variant 'flora-minotaurs' is for flora, not training\n",
    )
    assert cli(*args, "--variant", "relaunc").exit_code == 2
    # no games to play it in: said, not dropped
    for target in ((), ("--grade", "Gentle")):
        r = cli("generate", "-c", "training", "--seed", 1, *target, "--variant", "relaunch")
        assert r.exit_code == 2 and r.stderr.startswith("error: --variant: "), r.output
