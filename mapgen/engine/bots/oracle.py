"""The ``oracle`` bot: a search with the map in view, the playtests' upper bound.

It is handed the state itself (``decides_on = "state"``: ``play_game`` gives it the ``State``, which
holds the map and the cards dealt, never a deck's order: a draw is uniform over the cards left when it
is made). At each decision that matters it runs a rollout search (Bertsekas's rollout algorithm, a
one-step Monte Carlo lookahead): candidate actions are tried on clones of the state, each played to
the end by the ``clairvoyant`` bot (the heuristic with the map in view), the chance outcomes of each
rollout drawn from the oracle's own seeded RNG; the candidate with the best total return is played.
Rollout k of every candidate draws from the same seed (common random numbers), so candidates are
compared on the same luck as far as their games run alike.

The candidates are those of ``ismcts.candidates`` with the clairvoyant bot: its own choice first and,
when it is about to explore, the ``ALTERNATIVES`` cells it values next (a candidate cell is played as
the clairvoyant's whole turn aimed at that cell: Lewis, Collins, a guess, then the explore); every
legal action of a small decision (``SMALL`` or fewer). Ties go to the clairvoyant's choice, so the
search only departs from it on evidence.

Where the time goes (issue 41): nearly all of it is rollouts, about a clairvoyant game each. So a
search spends them where they can change the play:

- the gate: the clairvoyant's own choice is played out first; when it wins, it is played (no other
  candidate could do better than win on that luck but by score);
- the carry: after a won gate, the decisions up to the next chance outcome (a card drawn) are not
  searched: nothing the search does not know yet has happened since, and the clairvoyant's play from
  there is the play that won;
- otherwise every candidate is played out ``budget`` times in rounds; a first round that gives every
  candidate the same return stops there (they agree on that luck), and a candidate that can no longer
  reach the leader's total plays no more rollouts (the same choice, for less).

Measured (CPU seconds, 2 shared cores under load 8-14): the search before these, budget 4: 0.8 games
per CPU second on the Fauna maps (grade's pooled figures on fauna-1 to 4: 76%), 0.19 on maldonado-1.
Now, budget 1: fauna-1 to 4, 100 games each, seed 0: 87.5% won (83.9-90.4%), 4.5 (fauna-4) to 12
games/s; the 8 Fauna maps, 25 games each: 90%, 7.7 games/s; maldonado-1, 60 games: 48% (36-61%),
1.3 games/s. Budget 2 on the 8 Fauna maps: 91%, 6.3 games/s.

Cuts that change the games, measured and not kept (issue 41, 2026-12-06, load 1-3, two variants at a time on the 2
cores): fauna-1..8, 100 games a map at game seeds 0 and 1 (1,600 games; lost-carry seed 0 only), budget 1, each
variant against this search on the same game seeds (the oracle's own draws differ once a play does, so the pairing
is loose; a control that only shifts the oracle's RNG by one draw: 87.2% against 88.2% on seed 0, fauna-4 5.0
games/s against 4.3: the speed figures alone move 10-15% with luck and load):

- as shipped: 87.9% (86.3-89.4%), 8.6 games per CPU second; fauna-4 72.5%, 4.6 games/s;
- 2 ``ALTERNATIVES`` instead of 3: 85.0% (83.2-86.7%), 9.5; fauna-4 70.0%, 5.3 (below on 7 of 8 maps);
- no search at a small pay, fatigue or limits decision (the clairvoyant's choice): 85.7% (83.9-87.3%), 9.3;
  fauna-4 70.5%, 5.2 (though only 0.3-0.8 searches a game there depart from the clairvoyant's choice);
- after a search every candidate lost, no search until the next card drawn (the carry's mirror): 78.1%
  (75.1-80.9%, 800 games), 14.2; fauna-4 67.0%, 10.9.

The first two buy about 15% on fauna-4 (within the speed's own noise) for 2-3 points pooled, the lost carry 2.4
times the speed for 10 points, each beyond the control's 1: none keeps the bound, so the budget-1 search above
stays the oracle. On Maldonado (twenty-first session, 2026-12-07; 60 games a map, game seed 0, budget 1,
where the oracle costs ``mapgen grade`` 109 of maldonado-1's 146 CPU s: 220 rollouts a game, its clairvoyant
choice losing most gates): the lost carry 2.6 times the speed on maldonado-1 (0.87 -> 2.31 games/s) for 26 -> 24
wins, but 31 -> 18 on maldonado-2; lost rollouts ranked by the share of Crew Members their piles would save (a loss
worth 0.001 times it, every win still above every loss) 26 -> 14 wins on maldonado-1 (one rollout's Crew count is
luck, and the search departed from the clairvoyant on it). Neither kept. Per game on fauna-4 (seed 0) the search spends
77 of its 106 rollouts at the main step (explores), 12 at pay, 6 at fatigue, 3 at limits; fauna-1 31 of 42.

Speed-ups that keep every game, looked for and not found (fourteenth session, 2026-12-06; py-spy and cProfile on
fauna-4 oracle, fauna-7 scout at budget 2 and deducer, then each piece timed alone on 3,968 recorded decisions of 30
clairvoyant games of fauna-4, old and new in one process, load 8-10). Rollouts are 97% of the oracle's time and a
rollout is about 80 decisions of 24 us each: the legal actions 6-8 (at a main step ``legal_explore`` 3.2, ``legal_kill``
1.4-1.9, the other ten kinds 0.2-1.0 each), the bot 10.7 (a main step 17-22; ``needs`` 1.9 of it, its key 0.9, 72% of
its asks answered from the key; ``_cell_values`` 9.4 a call of 11 cells, its three line counts 5.2 of that), applying
4.7, the observation 2.5 (``public_data`` 0.7). Built, measured and dropped: ``legal_kill`` over each card's non-zero
requirements instead of ``all(map(ge, ...))``, 2.2-2.4 us a main step either way (the oracle 3.63 against 3.64 games
per CPU-second, A/B, 20 games x 3); ``_cell_values``' column and row counts once per line instead of once per cell,
5.6-6.1 -> 6.2-6.6 us (slower: more lines than cells). Measured, not built: ``gc.freeze()`` before the games (the young
collections cost 0.04 of 5.5 CPU s, no change); numba's compiled entry point for ``kernels.weights`` (5.0 -> 4.5 us a
call, 41 calls a deducer game: 0.3%); no observation at a decision with one legal action (3.8% of decisions, 3 us
each: 0.5%); a faster ``needs`` key (at most 0.6 us a decision, 2.5% of a rollout, inside the A/B noise of +-5% on a
shared machine). Not a saving: a tighter bound on a world's return in ``rollout_search`` (at budgets 1 and 2 no
candidate is more than one win behind the leader, which any bound on a win lets play).

What it knows: the map, the cards dealt (the Challenge Row, a Maldonado hand, face-down setup cards:
whatever the state holds). What it does not: every card still to come, which is drawn at random in its
rollouts as in the game. Seeded by its RNG: same seed, same play. ``budget`` rollouts per candidate
(``DEFAULT_BUDGET``).
"""

from __future__ import annotations

import random

from mapgen.engine import actions as A
from mapgen.engine.bots.clairvoyant import ClairvoyantBot
from mapgen.engine.bots.common import between
from mapgen.engine.bots.deducer import DeducerBot
from mapgen.engine.bots.heuristic import HeuristicBot
from mapgen.engine.observation import observe
from mapgen.engine.play import play_game
from mapgen.engine.steps import Step
from mapgen.model import Map

DEFAULT_BUDGET = 1
ALTERNATIVES = 3  # cells weighed besides the clairvoyant's choice when it explores
SMALL = 4  # decisions with at most this many legal actions weigh them all
MAX_ROLLOUT_STEPS = 20000


class AimedClairvoyant(ClairvoyantBot):
    """The clairvoyant bot, whose explore this turn may be fixed to one cell (``aim``)."""

    def __init__(self, rng: random.Random, map: Map):
        super().__init__(rng, map)
        self.aim: tuple | None = None  # (turn key, cell): explore that cell on that turn

    def best_cell(self, obs, explores: list[int], need) -> int:
        aim = self.aim
        if aim is not None and aim[0] == turn_key(obs) and aim[1] in explores:
            return aim[1]
        return super().best_cell(obs, explores, need)


class AimedDeducer(DeducerBot):
    """The deducer (the heuristic with the exact possible terrains of the cells it may explore), whose explore this
    turn may be fixed to one cell (``aim``), and which names the cells a search weighs (``_cells``): the base of the
    fair searchers, the ``planner`` and the ``scout``. On the deducer rather than the heuristic (eighth session of
    2026-12-05) both win more at the same speed: paired, 100 games a map of fauna-1..4, the planner 59.2% -> 65.5%
    (game seed 7), the scout 46.2% -> 51.2%."""

    #: a game's first Path among the start Paths least likely to be a Skull (``first_path.safest_starts``)
    first_path_by_odds = False

    def __init__(self, rng: random.Random):
        super().__init__(rng)
        self.aim: tuple | None = None  # (turn key, cell) chosen by the search

    def _weighed(self, obs, explores: list[int]) -> list[int]:
        """The explores this bot weighs: all, or a first Path's safest (``first_path_by_odds``)."""
        if self.first_path_by_odds and obs.n_explored == 0:
            from mapgen.engine.bots.first_path import safest_starts  # deferred: the sampler, at a first Path

            return safest_starts(obs, explores)
        return explores

    def best_cell(self, obs, explores: list[int], need) -> int:
        aim = self.aim
        if aim is not None and aim[0] == turn_key(obs) and aim[1] in explores:
            return aim[1]
        return super().best_cell(obs, self._weighed(obs, explores), need)

    def _searched_step(self, info, obs) -> int:
        """The deducer's action; when it is about to explore, the turn aimed at the cell ``_search`` (the
        subclass's) chooses among ``_cells``."""
        first = super().step(obs)
        cells = self._cells(obs, first)
        if not cells:
            return first
        self.aim = (turn_key(obs), self._search(info, obs, cells))
        return super().step(obs)

    def _search(self, info, obs, cells: list[int]) -> int:
        raise NotImplementedError

    def _cells(self, obs, first: int) -> list[int]:
        """The deducer's cell and the ``ALTERNATIVES`` it values next, when it is about to explore."""
        explores = self._weighed(obs, between(obs.legal, A.EXPLORE, A.DISCARD))
        if len(explores) < 2:
            return []
        need = self.needs(obs)
        chosen = HeuristicBot.best_cell(self, obs, explores, need)  # past the aim (and the deducer asked already)
        if first != chosen and first not in (A.LEWIS, A.COLLINS) and not A.GUESS <= first < A.LEWIS:
            return []  # a free action first: search when it explores
        lewis = obs.lewis_on or (obs.game.characters[obs.current] == "Lewis" and "Lewis" not in obs.exhausted)
        values = self._cell_values(obs, need, explores, self.value_vector(obs, need, lewis))
        ranked = sorted(zip(values, explores), key=lambda vc: (-vc[0], vc[1]))
        return [chosen] + [c for _, c in ranked if c != chosen][:ALTERNATIVES]


def turn_key(obs) -> tuple:
    """One explore of one turn: it changes when a cell is explored (a right Tracking Guide guess explores again)."""
    return (obs.turn, obs.current, obs.n_explored, obs.banned)


class OracleBot:
    """Rollout search on the true state (see the module docstring): an upper bound, not a fair player."""

    name = "oracle"
    decides_on = "state"  # play_game hands it the State

    def __init__(self, rng: random.Random, map: Map, budget: int | None = None):
        self.rng = rng
        self.map = map
        self.budget = budget or DEFAULT_BUDGET
        self.base = AimedClairvoyant(random.Random(rng.randrange(1 << 30)), map)
        self.searches = 0  # decisions searched
        self.rollouts = 0  # games played to the end inside the search
        self.departures = 0  # searched decisions where another action than the clairvoyant's was played
        # the cuts (module docstring); all three off: the search of issue 22
        self.gate = True  # search only when the clairvoyant's own choice loses its first rollout
        self.carry = True  # a won gate holds until the next chance outcome: no search before it
        self.agree = True  # stop a search whose first round gives every candidate the same return
        self._won_at = -1  # state.draws (cards drawn) when the clairvoyant's own choice last won its gate rollout

    def step(self, state) -> int:
        obs = observe(state, state.current_player())
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        assert obs.step is not None  # asked at a decision
        base = self.base
        aim = base.aim
        if obs.step[0] == Step.MAIN and aim is not None and aim[0] == turn_key(obs) and aim[1] in legal:
            return base.step(obs)  # this turn's explore is chosen: play the turn aimed at it
        first = base.step(obs)
        cells = self._cells(obs, first)
        if cells:
            cell = self._search(state, obs, cells, aimed=True)
            base.aim = (turn_key(obs), cell)
            return base.step(obs)
        if len(legal) <= SMALL:
            others = [a for a in legal if a != first]
            return self._search(state, obs, [first, *others], aimed=False)
        return first

    def _cells(self, obs, first: int) -> list[int]:
        """At a main step where the clairvoyant bot is about to explore: its cell first, then the cells
        it values next (``ALTERNATIVES``); [] when it is not exploring now or has no other cell."""
        if obs.step[0] != Step.MAIN:
            return []
        explores = between(obs.legal, A.EXPLORE, A.DISCARD)
        if len(explores) < 2:
            return []
        base = self.base
        need = base.needs(obs)
        chosen = base.best_cell(obs, explores, need)
        if first != chosen and first not in (A.LEWIS, A.COLLINS) and not A.GUESS <= first < A.LEWIS:
            return []  # a free action first (a Fire, a Destiny card, ...): search when it explores
        lewis = obs.lewis_on or (obs.game.characters[obs.current] == "Lewis" and "Lewis" not in obs.exhausted)
        values = base._cell_values(obs, need, explores, base.value_vector(obs, need, lewis))
        ranked = sorted(zip(values, explores), key=lambda vc: (-vc[0], vc[1]))
        return [chosen] + [c for _, c in ranked if c != chosen][:ALTERNATIVES]

    def _search(self, state, obs, candidates: list[int], aimed: bool) -> int:
        """The candidate with the best total return over ``budget`` rollouts each (``rollout_search``); the
        clairvoyant's choice without a search while a won gate holds (``carry``)."""
        if self.carry and self._won_at >= 0:
            if state.draws == self._won_at:
                return candidates[0]
            self._won_at = -1
        self.searches += 1
        seeds = [self.rng.randrange(1 << 30) for _ in range(self.budget)]
        key = turn_key(obs) if aimed else None
        worlds = [(state, self.map)] * len(seeds)
        best, played = rollout_search(worlds, seeds, obs.player, candidates, key, agree=self.agree, gate=self.gate)
        self.rollouts += played
        if self.gate and played == 1:  # the gate won
            self._won_at = state.draws
        if best != candidates[0]:
            self.departures += 1
        return best


def rollout_search(
    worlds: list,
    seeds: list[int],
    player: int,
    candidates: list[int],
    key,
    agree: bool = False,
    gate: bool = False,
    first: list[float] | None = None,
) -> tuple[int, int]:
    """The candidate with the best total return over the rollouts, ties to the first; and how many rollouts were played.

    Rollout k plays every candidate from ``worlds[k]`` (a (state, map) pair: the true state for the
    oracle, a world drawn from what the player knows for the planner) with chance drawn from
    Random(seeds[k]): common random numbers. ``key`` (a ``turn_key``): the candidates are cells, each
    played as the clairvoyant's whole turn aimed at it; None: they are actions, applied first.
    Rollouts go in rounds (one per candidate); after half of them, a search where every candidate
    lost every rollout, or won every one, stops (the decision is lost or won whatever it is; the
    scores so far break the tie). A candidate that can no longer reach the leader's total (the
    rounds left at the best return ``top_return`` each) plays no more rollouts: the same choice as
    playing them, for less. ``gate``: the first candidate's first rollout comes first, and when it
    wins, the search stops there (one rollout played). ``agree``: a search whose first round gave every
    candidate the same return stops there and plays the first (the candidates agree on that luck). The
    oracle sets both; the planner neither (its choice is the same as before the cut, only cheaper).
    ``first``: the first candidate's returns on the first ``len(first)`` worlds, played already (the scout's
    gate, which stops at its first loss): used as they are, not played again nor counted; on the worlds after
    them the first candidate is played as the others are, when the search gets there.
    In the last round the leaders go first and a candidate that could not reach the leader's total even by a
    win at the top return there plays no rollout: its total decides nothing (the same choice, for less)."""
    totals = [0.0] * len(candidates)
    wins = [0] * len(candidates)
    lost = [False] * len(candidates)
    live = list(range(len(candidates)))
    played = 0
    n = len(seeds)
    top = top_return(worlds[0][0]) if worlds else 1.0
    known = len(first) if first is not None else 0
    bound = max(top_return(w[0]) for w in worlds) if worlds else 1.0  # a bound on every world's rollout
    for r, ((state, m), seed) in enumerate(zip(worlds, seeds), 1):
        if gate and r == 1:
            v = rollout(state, m, player, candidates[0], key, seed)
            if v > 0:
                return candidates[0], 1
        order, lead, last = live, 0.0, r == n
        if last:
            # the last round: the leaders first (the first candidate first while its return is known), and a
            # candidate that cannot reach the leader's total even by winning this rollout at the top return
            # plays it not (its total only decides whom it could beat: the same choice, for less)
            order = sorted(live, key=lambda k: (not (k == 0 and r <= known), -totals[k], k))
            lead = max(totals[k] for k in live)
        for k in order:
            if last and totals[k] + bound < lead - 1e-6:
                continue
            if k == 0 and r <= known:
                assert first is not None
                v = first[r - 1]  # played already by the scout's gate
            elif gate and r == 1 and k == 0:
                played += 1  # the gate's rollout above, a loss
                lost[0] = True
                continue
            else:
                v = rollout(state, m, player, candidates[k], key, seed)
                played += 1
            totals[k] += v
            if v > 0:
                wins[k] += 1
            else:
                lost[k] = True
            if last:
                lead = max(lead, totals[k])
        if r == n:
            break
        if agree and r == 1 and len({round(totals[k], 9) for k in live}) == 1:
            break
        if 2 * r >= n and len(live) == len(candidates) and (max(wins) == 0 or min(wins) == r):
            break
        lead = max(totals[k] for k in live)
        reach = (n - r) * top
        # a candidate out of reach is dropped only after a loss: then "every candidate won every rollout"
        # can no longer stop the search, and a leader ahead of it has a win, so neither can "every one lost"
        live = [k for k in live if not (lost[k] and totals[k] + reach < lead - 1e-6)]
    best = 0
    for k in range(1, len(candidates)):
        if totals[k] > totals[best] + 1e-9:
            best = k
    return candidates[best], played


def top_return(state) -> float:
    """An upper bound on a rollout's return from ``state`` (``rollout``): a win at the highest score the
    game allows (every Challenge card's time, the Box of Goods, a chapter's bonus: 100 is above any)."""
    g = state.game
    return 1.0 + (sum(c.time for c in g.challenges) + 100) / 1000


def rollout(state, m: Map, player: int, action: int, key, seed: int) -> float:
    """One game to the end from ``state`` after ``action`` (with ``key``: the turn aimed at that cell),
    the clairvoyant bot on map ``m`` for every player, chance drawn from Random(seed). A win is worth 1
    plus a thousandth of its score (wins first, then better wins), a loss 0; in Hidden Traitor mode the
    Traitor (of this world) is worth 1 when the Traitor wins."""
    s = state.clone()
    bots = [AimedClairvoyant(random.Random(seed + q), m) for q in range(s.game.n)]
    if key is not None:
        bots[player].aim = (key, action)
    else:
        s.apply_action(action)
    play_game(s, bots, random.Random(seed), max_steps=MAX_ROLLOUT_STEPS)
    chapter = s.game.chapter
    if getattr(chapter, "mode", "coop") == "traitor" and chapter.traitor(s) == player:
        return 1.0 if s.outcome == "traitor" else 0.0  # Hidden Traitor mode: the Traitor's own side
    return (1.0 + s.score / 1000) if s.outcome == "win" else 0.0
