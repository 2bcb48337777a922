"""Issue 22, part 3: every sealed game says why (mapgen/engine/walls.py), and grade's Skull walls.

The rulebooks leave open what happens when no Path can be explored: "Every Path that you Explore after the first
must be orthogonally adjacent ... to a Path that has already been Explored" and "you cannot explore a Path adjacent
to: a Rock Path or a Path with a Monster Token on it. They both block progress unless you can access that Path from
another direction or remove the Monster." The engine ends such a game "sealed" (engine README, "The sealed trail").
"""

from __future__ import annotations

from pathlib import Path

from mapgen.engine import actions as A
from mapgen.engine.cards import RESOURCE_CODES, RESOURCE_NAMES
from mapgen.engine.game import SEALED_BY, Game
from mapgen.engine.playtest import Settings, report_text, run_playtest, summarise
from mapgen.engine.walls import explain_sealed, needs_words, sealed_words
from mapgen.mapfile import read_map
from tests.engine_support import cell, monsters_on, opened, settle

DATA = Path(__file__).parent / "data"


def test_walled_in_names_the_closing_cells_and_the_other_first_paths():
    """A Monster on the only explored Path (a Minotaur drawn on a Skull goes "If DAY: Explored Monster Lair"): the
    trail is walled in by that Path; a first Path elsewhere on column 7 would not meet this wall."""
    s = settle(Game(read_map(DATA / "engine_fauna_201.toml"), characters=("Clark",)).new_initial_state())
    opened(s, "D7")
    monsters_on(s, "D7")
    s.apply_action(A.END_TURN)
    assert s.outcome == "sealed"
    d = s.sealed_why
    assert (d["why"], d["closed_by"], d["first"]) == ("walled in", {"D7": "Monster"}, "D7")
    assert sorted(d["other_first"]) == ["A7", "B7", "C7", "E7", "F7", "G7"]
    assert all(n > 30 for n in d["other_first"].values())
    assert d["unexplored"] == 48
    assert sealed_words(d).startswith(
        "walled in by D7 Monster (first Path D7, 48 Paths unexplored); another first Path would have avoided"
    )


def test_walled_in_by_rocks_and_a_monster_counts_every_wall():
    """Rocks stop the trail as Monsters do ("They both block progress"): an explored Rock beside unexplored Paths is
    part of the wall, and so is an unexplored Path under a Monster."""
    s = settle(Game(read_map(DATA / "engine_fauna_201.toml"), characters=("Clark",)).new_initial_state())
    opened(s, "B7", "B6", "B5")  # Wo, Mu, Ro (row B: Mu Ro Ro Ro Ro Mu Wo)
    monsters_on(s, "A7")
    monsters_on(s, "C7")
    monsters_on(s, "A6")
    monsters_on(s, "C6")
    d = explain_sealed(s, "walled in")
    assert d["closed_by"] == {"A6": "Monster", "A7": "Monster", "B5": "Rock", "C6": "Monster", "C7": "Monster"}
    assert "B7" not in d["other_first"] and "A7" not in d["other_first"]  # explored, or under a Monster


def test_toll_unpaid_lists_the_open_paths_and_what_is_held():
    """MONSTER EXPLORE EFFECT: "you must discard any 1 Resource before you can Explore that Path": with nothing to
    discard, the open Paths cannot be explored."""
    s = settle(Game(read_map(DATA / "engine_fauna_201.toml"), characters=("Clark",)).new_initial_state())
    opened(s, "D7")
    monsters_on(s, "D1")  # row D
    monsters_on(s, "A7")  # column 7
    s.pack = [0] * len(s.pack)
    d = explain_sealed(s, "toll unpaid")
    assert d == {"why": "toll unpaid", "open": {"C7": 1, "D6": 1, "E7": 1}, "held": 0, "water_pays": True}
    assert sealed_words(d) == "toll unpaid: open C7 (toll 1), D6 (toll 1), E7 (toll 1); 0 Resources and Water held"
    one = {**d, "held": 1, "water_pays": False}
    assert sealed_words(one) == "toll unpaid: open C7 (toll 1), D6 (toll 1), E7 (toll 1); 1 Resource held"
    assert sealed_words({**d, "held": 1}).endswith("; 1 Resource or Water held")


def test_one_path_is_one_path_in_the_sealed_words():
    d = {"why": "walled in", "closed_by": {"D7": "Monster"}, "first": "D7", "unexplored": 1, "other_first": {"C7": 1}}
    assert sealed_words(d) == (
        "walled in by D7 Monster (first Path D7, 1 Path unexplored); "
        "another first Path would have avoided these walls: C7 (1 Path beyond)"
    )


def test_every_sealed_game_of_a_playtest_says_why():
    """The report lists each sealed game with its reason, and the text groups games by reason."""
    m = read_map(DATA / "engine_fauna_201.toml")
    # seed 10, 4 sealed games of 20 for two reasons (seed 3 sealed 4 before issue 41's heuristic rules and 1 after;
    # seed 4 sealed 4 for two reasons until their second round, 3 for one after)
    s = Settings(bot="heuristic", seed=10)
    rep = summarise(run_playtest(m, s, 20), m, s, "engine_fauna_201")
    games = rep["sealed_games"]
    assert rep["sealed"] == len(games) == 4
    assert all(g["why"] in SEALED_BY for g in games)
    assert sum(rep["sealed_by"].values()) == 4 and len(rep["sealed_by"]) == 2
    text = report_text(rep)
    assert sum(int(line.split(" x ")[0]) for line in text.splitlines() if " x " in line) == 4


def test_the_text_shows_the_ten_most_frequent_sealed_reasons_and_counts_the_rest():
    """`mapgen playtest fauna-1 --games 1000` printed one line per different sealed reason, about 180 of them. The
    text now shows the 10 most frequent and one line for the rest; --json's sealed_games still holds every game."""
    m = read_map(DATA / "engine_fauna_201.toml")
    s = Settings(bot="heuristic", seed=3)
    rep = summarise(run_playtest(m, s, 2), m, s, "engine_fauna_201")

    def toll(game: int, t: int) -> dict:
        return {"game": game, "seed": game, "turn": 9, "why": "toll unpaid", "open": {"C7": t}, "held": 0}

    # 14 different reasons over 17 games: toll 0 in 3 games, toll 1 in 2, the other twelve in one game each
    games = [toll(g, t) for g, t in enumerate([0, 0, 0, 1, 1, *range(2, 14)])]
    text = report_text({**rep, "sealed_games": games})
    reasons = [line for line in text.splitlines() if " x toll unpaid" in line]
    assert len(reasons) == 10
    assert reasons[0] == "       3 x toll unpaid: open C7 (toll 0); 0 Resources held (games 0, 1, 2)"
    assert reasons[1].startswith("       2 x toll unpaid: open C7 (toll 1);")
    more = "    and 4 more reasons (4 games): --json lists them all (sealed_games)"
    assert text.splitlines()[text.splitlines().index(reasons[-1]) + 1] == more
    assert sum(int(r.split(" x ")[0]) for r in reasons) + 4 == len(games)
    # a frequent reason lists its first 8 games and counts the rest (fauna-1's first line of 1000 games listed 116)
    many = report_text({**rep, "sealed_games": [toll(g, 0) for g in range(30)]})
    assert "  30 x toll unpaid: open C7 (toll 0); 0 Resources held (games 0, 1, 2, 3, 4, 5, 6, 7 and 22 more)" in many
    # ten reasons or fewer: each has its line, and no line counts the rest
    text = report_text({**rep, "sealed_games": games[:13]})
    assert sum(" x toll unpaid" in line for line in text.splitlines()) == 10 and "more reason" not in text


def test_a_backtracked_path_does_not_seal_the_trail():
    """Backtrack: "Simply replace the Path Token on top of that Path ... You then must Explore a different Path."
    When the Path put back is the only one the player can pay for, the turn ends without an explore, but the
    Path is open again next turn: no round passed in which no Path could be explored, so the game goes on
    (before: a solo game ended "sealed: toll unpaid" listing that Path at toll 0; fauna-1, random bot, game 521)."""
    s = settle(Game(read_map(DATA / "engine_fauna_201.toml"), characters=("Clark",)).new_initial_state())
    opened(s, "D7")
    monsters_on(s, "A7")  # column 7: C7 and E7 cost 1, D6 nothing
    s.pack = [0] * len(s.pack)
    s.fires = 2
    d6 = cell(s, "D6")
    assert A.EXPLORE + d6 in s.legal_actions()
    s.apply_action(A.EXPLORE + d6)
    assert A.BACKTRACK in s.legal_actions()
    s.apply_action(A.BACKTRACK)
    la = s.legal_actions()
    assert A.END_TURN in la and not any(a < A.DISCARD for a in la)  # D6 banned this turn, C7 and E7 unpaid
    s.apply_action(A.END_TURN)
    assert s.outcome is None and "sealed: toll unpaid" not in s.events
    settle(s)
    while s.agenda[-1][0] != "main":  # the Challenge Row's decisions
        s.apply_action(s.legal_actions()[0])
        settle(s)
    assert s.outcome is None and A.EXPLORE + d6 in s.legal_actions()


def test_a_map_explored_game_says_what_was_still_needed_to_win():
    """Every Path explored and the game not won: the record says what the team lacked (issue 41: before, only
    {"why": "map explored"}): Fauna's kills left, the Minotaurs in play and what each face-up Kill card lacks."""
    s = settle(Game(read_map(DATA / "engine_fauna_201.toml"), characters=("Clark",)).new_initial_state())
    g = s.game
    opened(s, *(g.board.name(i) for i in range(g.board.size)))
    monsters_on(s, "A1")
    card = s.data["kill_pile"].pop(0)
    s.data["kill_face"].append(card)
    s.data["kills"] = 1
    s.pack = [0] * len(s.pack)
    s.apply_action(A.END_TURN)
    assert s.outcome == "sealed" and "sealed: map explored" in s.events
    d = s.sealed_why
    kill = g.kills[card]
    lacks = [RESOURCE_CODES[r] for r in range(len(kill.requires)) for _ in range(kill.requires[r])]
    lack_words = ", ".join(
        f"{kill.requires[r]} {RESOURCE_NAMES[r]}" if kill.requires[r] > 1 else RESOURCE_NAMES[r]
        for r in range(len(kill.requires))
        if kill.requires[r]
    )
    assert d == {
        "why": "map explored",
        "needs": {"kills_left": 2, "monsters_in_play": 1, "kill_cards": {kill.name: lacks}},
    }
    assert sealed_words(d) == (
        "map explored: every Path is explored; still needed: 2 kills (1 Monster in play; "
        f"Kill cards: {kill.name} lacks {lack_words})"
    )


def test_what_a_sealed_game_lacked_names_the_items_and_counts_them():
    """A designer read "Make Ammo lacks Wo Ro Ro" and "at the Fight: Mu Mu Sk": the Resource codes, one per item.
    The words name each item once, with its count; the record keeps the codes."""
    n = {"kills_left": 1, "monsters_in_play": 2, "kill_cards": {"Make Ammo": ["Wo", "Ro", "Ro"]}}
    assert needs_words(n) == "1 kill (2 Monsters in play; Kill cards: Make Ammo lacks Wood, 2 Rock)"
    assert needs_words({"fight_needs": ["Mu", "Mu", "Sk", "Mf", "Greek Fire"]}) == (
        "at the Fight: 2 Mud, Skull, Mushroom, Greek Fire"
    )


def test_the_needs_of_every_chapter_in_words():
    assert needs_words({"challenges_left": 1}) == "1 Challenge card to resolve"
    assert needs_words({"hearts_left": 2, "vameter_in_play": True}) == "2 Hearts left on the Vameter"
    assert needs_words({"trail": [7, 6], "greek_fire": True, "fight_needs": ["Mu", "Ro"]}) == "at the Fight: Mud, Rock"
    assert needs_words({"trail": [3, 6], "greek_fire": False}) == (
        "the Expedition Trail (S past 3 of its 6 icons); the Greek Fire"
    )
    assert needs_words({"kills_left": 1, "monsters_in_play": 0, "kill_cards": {}}) == (
        "1 kill (0 Monsters in play; no Kill card face up)"
    )
    assert needs_words({"kills_left": 1, "monsters_in_play": 2, "kill_cards": {"Spear Trap": []}}) == (
        "1 kill (2 Monsters in play; Kill cards: Spear Trap payable)"
    )


def test_the_kill_cards_a_sealed_game_lacked_are_told_apart():
    """Two face-up Kill cards read "Poisoned Bait lacks Mud, Skull, Spear Trap lacks Wood, Rock, Vine": the
    items and the cards both apart by commas, so "Spear Trap" read as one more thing the Bait lacked."""
    n = {
        "kills_left": 1,
        "monsters_in_play": 2,
        "kill_cards": {"Poisoned Bait": ["Mu", "Sk"], "Spear Trap": ["Wo", "Ro", "Vi"], "Make Ammo": []},
    }
    assert needs_words(n) == (
        "1 kill (2 Monsters in play; Kill cards: Poisoned Bait lacks Mud, Skull; Spear Trap lacks Wood, Rock, Vine; "
        "Make Ammo payable)"
    )


def test_walled_in_with_only_the_walls_unexplored_says_what_was_still_needed():
    """Vameter: "you cannot explore the Path it occupies". A game that explored every other Path and stopped with
    Hearts left on the Vameter read "walled in by A1 Vameter (first Path E7, 1 Path unexplored); no other first Path
    avoids these walls", a wall a designer would move, when the map was explored and the Hearts were what it lacked
    (12 of vameter-4's 16 walled-in games, heuristic, seed 0). When the walls are all that is unexplored, the record
    and the words say what the team still needed, as for a map explored."""
    import maps
    from mapgen.engine.playtest import play_one

    m = maps.load("vameter-4")
    # game 4 (game 27 before issue 41's heuristic rules, which changed its play: now won)
    rec = play_one(m, Settings(bot="heuristic", seed=0), 4)
    d = rec.sealed
    assert rec.outcome == "sealed" and d["why"] == "walled in" and d["unexplored"] == 1  # the game described
    assert d["needs"] == {"hearts_left": d["needs"]["hearts_left"], "vameter_in_play": True}
    assert d["needs"]["hearts_left"] > 0
    (vam,) = [c for c, k in d["closed_by"].items() if k == "Vameter"]
    hearts = d["needs"]["hearts_left"]
    assert sealed_words(d) == (
        f"walled in by {vam} Vameter; the rest of the map explored (1 Path left); "
        f"still needed: {hearts} Heart{'s' if hearts > 1 else ''} left on the Vameter"
    )


def test_walled_in_early_keeps_its_words_without_the_needs():
    """A trail walled in with Paths still beyond the walls: the walls are the reason, said as before (games walled
    in alike stay on one line of the report)."""
    s = settle(Game(read_map(DATA / "engine_fauna_201.toml"), characters=("Clark",)).new_initial_state())
    opened(s, "D7")
    monsters_on(s, "D7")
    d = explain_sealed(s, "walled in")
    assert "needs" not in d


def test_toll_unpaid_says_when_collins_could_have_waived_the_tolls():
    """Collins: "EXHAUST: You don't pay the Resource to Explore Paths protected by Monsters". A 2-player fauna-4 game
    (Collins and York, heuristic, seed 3, game 12) ended "toll unpaid: open A1 (toll 2), ...; 0 Resources and Water
    held" with Collins ready on his own last turn ("Collins: ignore Monsters this explore" was legal; the bot ended
    the turn): the tolls were not what sealed it. The record and the words say Collins was ready."""
    s = settle(
        Game(read_map(DATA / "engine_fauna_201.toml"), players=2, characters=("Collins", "York")).new_initial_state()
    )
    opened(s, "D7")
    monsters_on(s, "D1")
    monsters_on(s, "A7")
    s.pack = [0] * len(s.pack)
    d = explain_sealed(s, "toll unpaid")
    assert d["collins_ready"] is True
    assert sealed_words(d) == (
        "toll unpaid: open C7 (toll 1), D6 (toll 1), E7 (toll 1); 0 Resources and Water held; "
        "but Collins was ready, whose ability waives every toll on his turn"
    )
    s.exhausted.add("Collins")
    assert "collins_ready" not in explain_sealed(s, "toll unpaid")


def test_the_sealed_line_counts_the_walled_in_games_that_explored_the_rest_of_the_map():
    """vameter-4's sealed line read "walled in 16" when 12 of them had explored every Path but the Vameter's: the
    count a designer compares with the walled-in cap. The line says how many of them explored the rest."""
    d = {"why": "walled in", "closed_by": {"A1": "Vameter"}, "first": "E7", "unexplored": 1, "other_first": {}}
    end = {**d, "needs": {"hearts_left": 2, "vameter_in_play": True}}
    early = {**d, "closed_by": {"C7": "Monster"}, "first": "C7", "unexplored": 48, "other_first": {"A7": 48}}
    rep = {
        "map": "m",
        "chapter": "vameter",
        "bot": "heuristic",
        "players": 1,
        "team": [{"character": "Lewis", "gear": []}],
        "seed": 0,
        "games": 4,
        "wins": 1,
        "win_rate": 0.25,
        "win_rate_ci": [0.05, 0.7],
        "mean_score": 10.0,
        "mean_score_wins": 40.0,
        "levels": {},
        "losses": {},
        "sealed": 3,
        "sealed_rate": 0.75,
        "sealed_by": {"walled in": 3},
        "sealed_games": [{"game": k, **x} for k, x in enumerate((end, end, early))],
        "mean_days": 3.0,
        "mean_turns": 30.0,
        "events": {},
    }
    sealed = next(line for line in report_text(rep).splitlines() if line.startswith("  sealed "))
    assert sealed.endswith("; walled in 3 (2 of them with the rest of the map explored))")
    one = {**rep, "sealed_games": [{"game": k, **x} for k, x in enumerate((end, early, early))]}
    sealed = next(line for line in report_text(one).splitlines() if line.startswith("  sealed "))
    assert sealed.endswith("; walled in 3 (1 of them with the rest of the map explored))")
    none = {**rep, "sealed_games": [{"game": k, **early} for k in range(3)]}
    sealed = next(line for line in report_text(none).splitlines() if line.startswith("  sealed "))
    assert sealed.endswith("; walled in 3)")


def test_a_hidden_traitor_report_says_whose_wins_it_counts():
    """In Hidden Traitor mode "wins 12/20" stood beside "losses ... the Traitor won 5" and "traitor wins 5/20": whose
    wins the first line counts (the Loyalists', 3 or more Crew Members saved) was left to guess."""
    import maps
    from mapgen.engine.playtest import GameRecord

    m = maps.load("maldonado-2")
    s = Settings(players=3, mode="traitor")
    recs = [GameRecord(0, 1, "win", 30, 4, 40, {"saved 3": 40}), GameRecord(1, 2, "traitor", 0, 4, 40, {})]
    wins = next(line for line in report_text(summarise(recs, m, s)).splitlines() if line.startswith("  wins "))
    assert wins.endswith(": the Loyalists' wins (3 or more Crew Members saved)")
    coop = summarise(recs[:1], m, Settings(players=3))
    assert "Loyalists" not in report_text(coop)
