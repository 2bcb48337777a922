"""The heuristic bot's decision rules at decisions that do not depend on hidden terrain (issue 41: blunders that
every fair bot and the clairvoyant rollouts inherit). Each test sets up the situation and asserts the choice a
player would make, from the rulebook's words."""

from __future__ import annotations

import random
from pathlib import Path

from mapgen.engine import actions as A
from mapgen.engine.bots import make_bot
from mapgen.engine.cards import FOOD, ROCK, SKULL, VINE, WATER, WOOD, ThreatKind
from mapgen.engine.game import Game
from mapgen.engine.steps import PAYMENT, STEP
from mapgen.mapfile import read_map
from tests.engine_support import cell, monsters_on, opened, settle

DATA = Path(__file__).parent / "data"


def _start(**kw):
    return settle(Game(read_map(DATA / "engine_fauna_201.toml"), **kw).new_initial_state())


def _bot():
    return make_bot("heuristic", random.Random(1))


def _explored_this_turn(characters=("Clark",)):
    """A solo game on its first Path, explored this turn: the main step's free actions and the end of the turn."""
    s = _start(characters=characters)
    opened(s, "D7")
    s.explored_now = True
    s._legal = None
    return s


def test_a_sample_is_dropped_paying_a_resource_the_team_does_not_need():
    """The rulebook: "Sample Tokens ... take up 1 space. As a Free Action you can discard 1 Resource to also discard the Sample
    Token." A Sample only fills the backpack (Fatigue at 5 carried): with a Rock beyond what the row's Challenges
    ask, the bot pays it to drop the Sample before it ends its turn (it kept every Sample: 30.4% of fauna-1..4 won,
    40.1% dropping them, 500 games a map)."""
    s = _explored_this_turn()
    s.samples = 1
    s.pack[ROCK] = 2
    s._legal = None
    bot = _bot()
    obs = s.observation()
    assert bot.needs(obs)[ROCK] < 2  # the second Rock is spare
    assert A.DROP_SAMPLE + ROCK in obs.legal and A.END_TURN in obs.legal
    assert bot.step(obs) == A.DROP_SAMPLE + ROCK
    s.apply_action(A.DROP_SAMPLE + ROCK)
    assert s.samples == 0 and s.pack[ROCK] == 1
    assert _bot().step(s.observation()) != A.DROP_SAMPLE + ROCK  # nothing left to drop


def test_a_sample_is_kept_when_dropping_it_costs_a_needed_resource_and_the_backpack_is_light():
    s = _explored_this_turn()
    s.samples = 1
    s.pack[ROCK] = 1  # the row asks for it
    s._legal = None
    bot = _bot()
    obs = s.observation()
    assert bot.needs(obs)[ROCK] >= 1 and obs.slots() < 5
    assert bot.step(obs) == A.END_TURN


def test_a_fatigued_backpack_drops_its_sample_even_paying_a_needed_resource():
    """Fatigued (5 or 6 carried): the Sample costs a Water at each Challenge resolved, a Resource once."""
    s = _explored_this_turn()
    s.samples = 1
    s.pack[FOOD] = 2
    s.pack[ROCK] = 1
    s.pack[1] = 1  # Wood
    s._legal = None
    obs = s.observation()
    assert obs.slots() == 5
    a = _bot().step(obs)
    assert A.DROP_SAMPLE <= a < A.USE_DESTINY


def _collins_walled_by_tolls():
    """Collins and York; Collins's turn on D7 with every open Path under a Monster's toll and nothing to pay it."""
    s = _start(players=2, characters=("Collins", "York"))
    opened(s, "D7")
    for name in ("A7", "D5"):  # tolls row 7 and column A, row 5 and column D: C7, E7 and D6
        card = next(k for k in s.th_pile if s.game.threats[k].monster)
        s.th_pile.remove(card)
        s.threats.append(card)
        s.monsters[cell(s, name)] = card
    s.pack[:] = [0] * len(s.pack)
    s._legal = None
    return s


def test_collins_opens_the_tolled_paths_instead_of_ending_the_turn():
    """COLLINS: "EXHAUST: You don't pay the Resource to Explore Paths protected by Monsters." With every open Path
    tolled and nothing to pay, ending the turn wastes it (and a round of such turns seals the game "toll unpaid"
    with ``collins_ready``): the bot uses Collins, then explores."""
    s = _collins_walled_by_tolls()
    legal = s.legal_actions()
    assert not [a for a in legal if a < A.DISCARD] and A.COLLINS in legal and s.frontier()
    bot = _bot()
    assert bot.step(s.observation()) == A.COLLINS
    s.apply_action(A.COLLINS)
    a = bot.step(s.observation())
    assert a < A.DISCARD and a in (cell(s, "C7"), cell(s, "E7"), cell(s, "D6"))


def _last_challenge_to_resolve(food: int):
    """The day's last Challenge at its time limit: Settlers' Rumour (discard 2 Food; Pass: a Destiny card; Fail:
    draw a Threat), with ``food`` Food held."""
    s = _start(characters=("Clark",))
    g = s.game
    k = next(i for i, c in enumerate(g.challenges) if c.name == "Settlers' Rumour")
    s.row[:] = [[k, g.challenges[k].time, None]]
    s.pack[FOOD] = food
    s.pack[WATER] = 5
    s.push((STEP.RESOLVE,), (STEP.FATIGUE,), (STEP.AFTER_RESOLVE,))
    s._legal = None
    return s


def test_the_days_last_challenge_is_failed_when_passing_it_would_starve_the_crew():
    """The rulebook: "You can choose to NOT pass a challenge even if you can meet the requirements. This is usually done to keep
    the Resources for something else." The End of Day follows the day's last Challenge: "If you do not have a Food
    Token to discard you Fail the Challenge and the players starve". Passing would take both Food: the bot fails
    the Challenge (a Threat drawn) and feeds the crew."""
    s = _last_challenge_to_resolve(2)
    obs = s.observation()
    assert obs.step[0] == STEP.RESOLVE and A.PASS in obs.legal
    assert _bot().step(obs) == A.FAIL


def test_the_days_last_challenge_is_passed_when_food_is_left_for_the_end_of_day():
    s = _last_challenge_to_resolve(3)
    assert _bot().step(s.observation()) == A.PASS


def test_the_kill_uses_the_card_the_team_can_spare_on_the_monster_in_the_way():
    """Two Kill Minotaur cards can be played: Poisoned Bait (Food, Mud, Skull: the row's Challenges and the End of Day
    want the Food and the Mud) and Vine Snare (Wood, 2 Vines: spare). The bot plays Vine Snare (it played the first
    card), and on the Minotaur whose row tolls the open Path D6 rather than the one in a corner."""
    s = _start(characters=("Clark",))
    opened(s, "D7")
    s.data["kill_pile"] = [0, 3]
    s.data["kill_face"] = [2, 1]  # Poisoned Bait, Vine Snare
    monsters_on(s, "A1", "G6")
    s.pack[:] = [1, 3, 1, 0, 1, 2, 0, 0, 0, 6]  # Food, Wood, Mud, Rock, Skull, Vine, ..., Water
    s._legal = None
    legal = s.legal_actions()
    on_g6 = sorted(s.monsters).index(cell(s, "G6"))
    assert A.KILL + 0 in legal and A.KILL + 8 + on_g6 in legal
    a = _bot().step(s.observation())
    assert a == A.KILL + 8 + on_g6
    s.apply_action(a)
    assert s.data["kills"] == 1 and cell(s, "G6") not in s.monsters and s.pack[0] == 1


def _row_reward(*minotaurs):
    """Fauna's row reward ("discard a Threat card"), D7 explored, with Minotaurs on ``minotaurs``."""
    s = _start(characters=("Clark",))
    opened(s, "D7")
    monsters_on(s, *minotaurs)
    s.push((STEP.THREAT_DISCARD,))
    s._legal = None
    return s


def test_the_row_reward_discards_a_minotaur_that_tolls_an_open_path():
    """A Minotaur on G6 tolls D6, an open Path: the row reward discards its card (it left every Minotaur in play)."""
    s = _row_reward("A1", "G6")
    obs = s.observation()
    assert obs.step[0] == STEP.THREAT_DISCARD
    g6 = s.monsters[cell(s, "G6")]
    assert _bot().step(obs) == A.THREAT_DISCARD + s.threats.index(g6)


def test_the_row_reward_keeps_a_minotaur_out_of_the_way():
    s = _row_reward("A1")
    assert _bot().step(s.observation()) == A.SKIP


def test_the_row_reward_discards_a_minotaur_in_the_way_before_injured():
    """A Minotaur on G6 tolls D6, an open Path: every Path explored there costs a Resource, while Injured costs a
    Character's action. The row reward discards the Minotaur first (it discarded Injured or Chased first: 996 ->
    1,125 won of 2,000, fauna-1..4, 500 games a map); with no Minotaur in the way, Injured goes."""
    s = _row_reward("G6")
    injured = next(k for k, t in enumerate(s.game.threats) if t.kind == ThreatKind.INJURED)
    s.th_pile.remove(injured)
    s.threats.insert(0, injured)
    s._legal = None
    obs = s.observation()
    g6 = s.monsters[cell(s, "G6")]
    assert A.THREAT_DISCARD + s.threats.index(injured) in obs.legal
    assert _bot().step(obs) == A.THREAT_DISCARD + s.threats.index(g6)
    quiet = _row_reward("A1")
    quiet.th_pile.remove(injured)
    quiet.threats.insert(0, injured)
    quiet._legal = None
    assert _bot().step(quiet.observation()) == A.THREAT_DISCARD + 0


def _kill_cards_face_up(s, *names):
    g = s.game
    face = [next(k for k, c in enumerate(g.kills) if c.name == name) for name in names]
    s.data["kill_face"] = face
    s.data["kill_pile"] = [k for k in range(len(g.kills)) if k not in face]


def test_a_toll_is_paid_with_a_resource_no_face_up_kill_card_asks_for():
    """Make Ammo (Wood, 2 Rocks) and Vine Snare (Wood, 2 Vines) are face up; the team holds 2 Rocks, a Vine and a
    Skull and aims at Make Ammo. Neither the Vine nor the Skull is needed now, but the Vine is half of Vine Snare's
    Vines: the Monster's toll ("discard any 1 Resource") takes the Skull (it took the Vine, worth 0.1 to a
    Skull's 0.15)."""
    s = _start(characters=("Clark",))
    opened(s, "D7")
    _kill_cards_face_up(s, "Make Ammo", "Vine Snare")
    s.pack[:] = [0] * len(s.pack)
    s.pack[ROCK], s.pack[VINE], s.pack[SKULL] = 2, 1, 1
    s.push((STEP.PAY, 1, PAYMENT.ANY))
    s._legal = None
    bot = _bot()
    obs = s.observation()
    need = bot.needs(obs)
    assert need[ROCK] >= 2 and need[VINE] < 1 and need[SKULL] < 1  # both spare for the card aimed at
    assert A.DISCARD + VINE in obs.legal and A.DISCARD + SKULL in obs.legal
    assert bot.step(obs) == A.DISCARD + SKULL


def test_fatigue_costs_a_water_rather_than_a_resource_the_kill_needs():
    """Fatigued after a Challenge ("discard down to 4 Resource Tokens ... OR lose 1 Water Token"), with 3 Water and
    every Resource carried needed (Vine Snare's Wood and 2 Vines, Food for the End of Day): the bot loses the Water
    (it discarded a Vine whenever 3 Water or fewer were held); at 1 Water it discards."""
    s = _start(characters=("Clark",))
    opened(s, "D7")
    _kill_cards_face_up(s, "Vine Snare")
    s.pack[:] = [0] * len(s.pack)
    s.pack[FOOD], s.pack[WOOD], s.pack[VINE], s.pack[WATER] = 2, 1, 2, 3
    s.push((STEP.FATIGUE,))
    s._legal = None
    bot = _bot()
    obs = s.observation()
    need = bot.needs(obs)
    assert obs.slots() == 5 and need[FOOD] >= 2 and need[WOOD] >= 1 and need[VINE] >= 2
    assert A.FATIGUE_WATER in obs.legal and A.DISCARD + VINE in obs.legal
    assert bot.step(obs) == A.FATIGUE_WATER
    s.pack[WATER] = 1
    s._legal = None
    assert _bot().step(s.observation()) != A.FATIGUE_WATER
