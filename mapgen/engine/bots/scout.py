"""The ``scout`` bot: a fast fair player that searches the late game on worlds drawn from what it knows.

It never reads the hidden map: it sees its observation and, at the decisions it searches, its
information state (``decides_on = "infostate_when"``: ``play_game`` hands it the ``InfoState`` when
``wants_infostate(obs)`` says so, else the observation).

Every decision is the deducer's (``mapgen/engine/bots/deducer.py``: the heuristic, with each reachable cell's
possible terrains from exact deduction) but the choice of a Path once a share ``LATE`` of the board is
explored (35 of Fauna's 49 cells; 26 until 2026-12-07: ``LATE``'s notes). There it weighs the deducer's cell and the ``ALTERNATIVES`` cells
it values next as the planner does (``mapgen/engine/bots/planner.py``: determinized rollouts): on
``budget`` worlds the player cannot tell
from the real game, every candidate is played to the end once per world by the clairvoyant bot of that
world (``oracle.rollout_search``: common seeds, ties to the deducer's choice; a first round where every
candidate returns the same stops there). First the gate (``GATE``): the deducer's cell is played out on
every world, and when it wins on every one it is played without trying the others (they could only win
by more points there; fauna-1, 4 and 7, 45 games: 135 of 475 searches ended at the gate, 3.1 rollouts a
search where the full one plays up to 4). A world is a completion
of the seen cells with the game so far replayed onto it (``infostate.world_on``: dropped when it
contradicts what the player saw); the worlds of one search are carried to the next while they agree
with what is seen since, and topped up with completions drawn by ``Solver.sample`` in the game's private
session (a deterministic budget, so the same seed plays the same game on a busy machine). Late in a
game those draws are cheap (about a millisecond with 20 cells revealed, against 20 at the start) and
so are the rollouts (a few turns), while the early searches are dear and pay little.

Measured (issue 41; seed 0, 20 games a map of fauna-1..4, pooled): the planner searching every explore
wins 55% (budget 2); searching only its first 4 or 8 explores, 33-34%; only from the 8th or 14th
explored cell on, 55% and 64%. So the scout searches late: from the 26th (the speed goal's 10
games per CPU-second; the strength is the same within the intervals), from the 35th since the heuristic's rules made
the search worth fewer points (``LATE``). What it does not use: the
sampler's pool of draws of the start state (``mapgen.solving.sampler``, as the web's pool of draws filters it by each
reveal). Tried as the heuristic's terrain odds and as the first Paths' worlds, it lost: its draws
(chains from SAT starts that mix slowly on early Fauna states) rated the true terrain of a cell about
the heuristic's local weights (mean log-likelihood -1.72 against -1.65), were all contradicted after
about three reveals, and the scout searching from the 14th cell won 30-33% on its odds against 58-64% on
the local weights (budgets 1 and 2).

Measured since (issue 41; seed 0, 40 games a map, 160 pooled on fauna-1..4, load 8-12), every variant
won the same within the intervals, about 50%: the gate 49.4% (the same 79 of 160 as without it) at 12.0
games per CPU-second on fauna-7 (10.3 without it); searching from the 14th cell 48.1% with the gate (6.3
games/s) and 50.6% without (4.7); budget 2 from the 14th cell 50.0%, from the 8th with the gate 49.4%
(2.6); also searching every decision of at most 4 actions, as the oracle does, 50.0% (7.5); rollouts
by the heuristic instead of the clairvoyant bot 50.0% (8.3); 6 cells weighed instead of 4, 51.2% (7.0);
the first Path searched too 52.5% (7.1), the first three 45.6% (6.0); a fresh world at every search
instead of the carried one 47.5% (8.3); every explore searched, the planner's reach, 49.4% without the gate
(2.1) and 46.9% with it (2.5). The 57.5% once measured from the
14th cell (80 games) was luck: the scout stays about 8 points below the planner's 58%.

Where the planner's edge comes from (seed 0, the same 160 games of fauna-1..4, load 4-7): the planner at budget 2
57.5% (49.8-64.9, 1.9 games per CPU-second), at budget 1 49.4% (41.7-57.0, 2.8); the scout at budget 1 49.4%, 2
50.0% (9.9 games/s), 4 48.1% (6.3); at budget 2 without the gate and the agreeing first round 50.0% (11.0);
searching every explore at budget 2, with them, 52.5% (2.0). More worlds late buy nothing; two worlds at every
explore from the first are the planner's edge, and they cost its speed (the early searches' draws and full-game
rollouts), so no budget of this design is both at 58% and at 10 games per CPU-second. The intervals of 160 games are
±8 points wide: the differences between 48% and 53% are within them. Worlds drawn near-uniformly by sequential
Monte Carlo (``smc.draws``, 100 particles, SAT completions where its runs die: 55% of the worlds came from SMC) in
place of the SAT session's: 47.5% (39.9-55.2) at 5.8 games per CPU-second: no stronger, half the speed.

Its first Path is the heuristic's (blind: the deducer asks nothing before 18 cells are seen). Weighing it only among the start Paths least likely to be a Skull by the
sampler's odds (``first_path``, as the planner does) was measured, and won the scout nothing over the sampler's
seeds: 100 games a map of fauna-1..4, paired, game seed 7: 46.2% without, 52.0%, 44.5%, 48.5%, 38.5% and 40.0% with
the odds of sampler seeds 0 to 4 (mean 44.7%); game seed 11: 45.5% without, 49.8%, 50.2%, 46.5% and 42.2% with seeds
0 to 3 (mean 47.2%). The odds of a board so early move with the seed and miss the exact ones (fauna-1, seeds 0 to 2:
A7 0.16 to 0.43, D7 0.00 to 0.01, against 0.16 and 0.15 exact: the chains cannot cross Fauna's Fort sets), and even
the exact ones miss the Skulls that matter: fauna-1's compiled
board gives its start Paths 0.09 to 0.16 (G7 0.30) and B7, a Skull, 0.13, inside the margin (17 of 50 won with
them, against 56 of 100 blind). What a first Path is worth on these maps, forced, 50 games each (seed 7): fauna-1
B7 9 wins, the others 24-31; fauna-4 B7 6 and E7 9 (its Skulls), F7 27; fauna-3 C7 17, E7 37. The choice matters,
but the odds before the first reveal cannot make it, and cost 2.3-2.9 CPU s a map. The planner keeps the rule: its
search after the first Path made the gain hold over sampler seeds (``planner``).

**Where the planner's lead lies** (twelfth session, 2026-12-06; the same 1,200 games, 100 a map of fauna-1..4 at
game seeds 7, 11 and 13, one process a map): the planner (budget 2) 765 won (63.7%), 1.4 games per CPU-second; the
scout at budget 1 580 (48.3%), 11.5; at budget 2 594 (49.5%), 9.1. Walled in at the first Path: the planner 18, the
scout 145 at either budget (its first Path is the heuristic's); of the games not walled in, the planner won 64.7%,
the scout 55.0% and 56.3%. So about 10 of the 15 points are the first Path, the rest the planner's searches from
the first explore. The first Path's Skull odds do not settle with more of the sampler's work (fauna-1, 4 sampler
seeds each, the seeds' spread of a start Path's odds: 0.02-0.11 at 1.5 CPU s, 0.03-0.08 at 4, 0.03-0.10 at 10.4;
D7 0.02 to 0.26 at 10.4 CPU s, against 0.15 exact): Fauna's Fort sets again (``mapgen.solving.sampler``).

**On the deducer, not the heuristic** (eighth session of 2026-12-05): the same search on the deducer's choices wins
more, at the same speed. Paired games (the same game seeds; 100 a map, the scout's default budget, one process):
fauna-1..4 pooled, game seed 7: 185 -> 205 of 400 (46.2% -> 51.2%), seed 11: 182 -> 192 (45.5% -> 48.0%), seed 13:
157 -> 183 (39.2% -> 45.8%), over the three 43.7% -> 48.3%, at 16-17 games per CPU-second either way; vameter-1
and -2, seed 11: 128 -> 154 of 200 (64% -> 77%); flora-1 and -2 (50 each, seed 7) 90 -> 92 of 100; maldonado-1
and -2 (seed 11) 72 -> 72 of 200. Where the deducer knows a cell's terrain the heuristic guesses from its
neighbours, and the search's candidates are the deducer's best cells. The first-Path rule measured again on the
deducer, game seed 7: 51.2% without, 55.0%, 47.8% and 53.0% with the odds of sampler seeds 0, 1 and 2 (mean 51.9%;
sampler seed 1 sent fauna-4's games to a Skull, 7 wins of 100), seed 11 with sampler seed 0 48.0% -> 51.2%: still a
gamble on the sampler's seed, at 2.3-2.9 CPU s a map; the scout still goes without it.

**Skipping the replay's observation keys, not done** (thirteenth session, 2026-12-06; issue 41's lever: a replay that
read only cells the player has seen is the real game's, so its keys need not be compared). The most it can buy,
measured with an unsound stand-in (solo games, no hidden outcome, the world agreeing with every seen cell: every key
of the replay taken from the player's, none made), fauna-7 at budget 2, 40 games a run, alternating: 9.22, 9.46, 9.40
games per CPU-second without (mean 9.36), 10.06, 10.29, 9.73 with (mean 10.03): +7%, the same games. A sound version
costs more than the stand-in, and the audit found what it would need. The engine reads the hidden map through the
``Game``'s tables made from the whole map (``cells``, ``cell_indices``, ``terrain_res``, ``not_rock``,
``field_cells``, ``hills``, ``start_cells``, ``map``; ``Table`` keeps none of them), so a read can be recorded only by
a wrapper per table in place during the replay (and taken off before the rollouts, 49% of the time), which must also
count iteration and search as a read of every cell. Three sites read whole tables, and the result depends only on seen
cells at each one: ``ChapterRules.shelter_cells`` iterates ``field_cells``, ``frontier``'s first explore iterates
``start_cells`` (Flora's are counted on the whole map) and the observation's seen Hills run over ``g.hills.items()``.
A probe of 20 games (743 replays, 100 rejected: carried worlds that a newly seen cell contradicts) found such a read
in 229 (31%), mostly the Fields (1,021 reads). So the sound version needs ``shelter_cells`` to read ``ex_list`` cell
by cell (the same cells in the same order: ``explored`` and ``ex_list`` change together everywhere), the base start
cells taken as public (the briefing's and the board's), the world's ``State`` and ``Tracker`` made under the wrappers
(the first key reads ``hills.items()``), a flag per world that its state so far is the real game's, the keys again
from the first read of a cell that is unseen or that the world gives another terrain or Hill number, and a test that
no other ``Game`` attribute differs between two maps of a chapter. (The audit found that ``world_game`` passed
neither the variants nor the cards nor the Reference Board: a world of a game played with ``toll-no-water`` had
``game.variants`` empty; fixed since, the world's ``Game`` differing from the real one's in its map only.) For a gain
of at most 7%, 0.6 game per CPU-second, and less after the wrappers, none of that was built.

**Where its time goes** (fourteenth session, 2026-12-06; py-spy, fauna-7, budget 2, 40 games): of the games' CPU time
the rollouts take 52%, the worlds 29% (fresh worlds' replays, ``world_on``, 16%; carried worlds' 3%; the game's private
session, a fork loading 21,000 clauses, 6%; ``Solver.sample`` 4%), the referee's tracker (``information_state``) 5%,
the deducer's questions 5%. ``obs_key`` is 14% (the replays' and the tracker's), but 6.6 of those points are the
observation's legal actions, which a key must hold (a world's legal actions are checked against the player's), and
``_frozen`` is 2.5. No change that keeps the games was found worth 2% (``oracle``'s notes list the pieces timed).

**After the heuristic's five decision rules** (twentieth session, 2026-12-07; ``mapgen/engine/bots/heuristic.py``:
Samples dropped, the day's last Challenge failed rather than starve, Collins on tolled Paths, the Kill chosen, a
tolling Minotaur discarded at Fauna's row reward), the figures above are the old heuristic's: paired on fauna-1..4
(game seed 7, 100 games a map) the scout went 51.2% -> 67.0%, and to 71.0% with three more rules (the Kill cards'
Resources valued and kept at Fatigue, the most tolling Minotaur discarded first); ``python -m bench.bench_engine
--bots scout`` after the first five (seed 0,
100 games a map) 62.0% at budget 1 and 62.8% at budget 2 pooled on fauna-1..4 (66.1% and 65.4% on the 8 Fauna maps),
above issue 41's 58%, at the same games per CPU-second as before on fauna-7 side by side (budget 1 8.2 -> 8.7,
budget 2 6.1 -> 6.2 on that slower machine). The searches' own levers above were measured on the old heuristic.

``budget``: worlds per searched decision (``DEFAULT_BUDGET``); a search costs ``budget`` times the
candidates rollouts. Seeded by its RNG: same seed, same play.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from mapgen.engine import actions as A
from mapgen.engine.bots.common import between, share_geometry
from mapgen.engine.bots.oracle import AimedDeducer, rollout, rollout_search, turn_key
from mapgen.engine.steps import Step

if TYPE_CHECKING:
    from mapgen.solving.solve import Solver, _Slot

DEFAULT_BUDGET = 1
#: the share of the board explored from which every explore decision with a choice is searched (35 of a Fauna
#: board's 49 cells). First measured on fauna-1..4 at budget 1, 20 games a map, before the heuristic's decision
#: rules: from 14 cells 57.5% at 5.7 games per CPU-second, from 22 45% at 8.5, from 26 54% at 11, from 30 49% at
#: 17: the intervals overlap, and 26 (0.53) was the first at the speed goal. With the heuristic's rules (twentieth
#: session) every game the scout plays between searches is stronger, and the search is worth fewer points: measured
#: again (twenty-first session, 2026-12-07; 100 games on each of the 8 Fauna maps, game seeds 7 and 11, two runs
#: side by side, load about 2), fauna-1..4 pooled and the slowest map's games per CPU-second:
#:   from 26 (0.53): budget 1 71.0% (seed 7), 8.3; budget 2 72.0% and 71.8% (seeds 7, 11), 5.7 and 5.8
#:   from 30 (0.61): budget 1 71.0%, 11.1; budget 2 70.8%, 8.5
#:   from 33 (0.67): budget 1 68.0%, 13.6; budget 2 67.5% and 69.3%, 10.4 and 11.7
#:   from 35 (0.71): budget 1 68.0% and 67.3%, 17.8 and 14.3; budget 2 68.8% and 66.5%, 14.5 and 13.7
#: over all 8 maps 74.3% (budget 2, seed 7) at 0.53 against 69.9% at 0.71, and on flora-1, vameter-1 and -4,
#: maldonado-1 and -2 (100 games each, budget 1, seed 7) 296 against 291 wins of 500 at 1.7-2 times the speed. So
#: from 35 cells: both of issue 41's goals (10 games per CPU-second on every Fauna map, at both budgets, and the
#: planner's 58% pooled) with a margin, for about 4 points of strength.
LATE = 0.71
#: deterministic seconds (SAT propagations) for one search's fresh completions
SAMPLE_BUDGET = 0.5
#: the gate: the deducer's cell is played out on every world first, and played without a further search when
#: it wins on every one (the other candidates could only win by more points there)
GATE = True


class ScoutBot(AimedDeducer):
    """The deducer, whose late explores are chosen by rollouts on worlds drawn from what it knows."""

    name = "scout"
    decides_on = "infostate_when"  # play_game hands it the InfoState when wants_infostate(obs), else obs

    def __init__(self, rng: random.Random, budget: int | None = None):
        super().__init__(rng)
        self.budget = budget or DEFAULT_BUDGET
        self.search_rng = random.Random(rng.randrange(1 << 30))
        self.worlds: list = []  # the last search's worlds (infostate Trackers), carried to the next
        self._solver: Solver | None = None  # the rules the game's bots reason with
        self._session: _Slot | None = None  # this game's private session of the solver, made at its first draw
        self.searches = 0
        self.gated = 0  # searches ended by the gate (the deducer's cell won on every world)
        self.rollouts = 0
        self.departures = 0
        self.drawn = 0  # completions drawn from the solver
        self.rejected = 0  # drawn completions that contradicted what the player saw
        self.twins = 0  # drawn completions a kept world already held (copied, not replayed)

    # ----- the search -----
    def wants_infostate(self, obs) -> bool:
        """Whether this decision is searched (then ``play_game`` hands over the information state)."""
        if obs.step is None or obs.step[0] != Step.MAIN or len(obs.legal) < 2:
            return False
        if obs.n_explored < LATE * len(obs.explored):
            return False
        aim = self.aim
        if aim is not None and aim[0] == turn_key(obs) and aim[1] in obs.legal:
            return False
        return len(between(obs.legal, A.EXPLORE, A.DISCARD)) >= 2

    def step(self, x) -> int:
        info = x if hasattr(x, "obs") else None
        obs = info.obs if info is not None else x
        if info is None or len(obs.legal) == 1:
            return super().step(obs)
        return self._searched_step(info, obs)

    def _search(self, info, obs, cells: list[int]) -> int:
        from mapgen.engine.infostate import world_view  # deferred: the searched decisions only

        worlds = self._worlds(info, obs)
        self.searches += 1
        if not worlds:
            return cells[0]
        rng = self.search_rng
        seeds = [rng.randrange(1 << 30) for _ in worlds]
        views = [world_view(w) for w in worlds]
        key = turn_key(obs)
        first = None
        if GATE:
            first = []
            for (s, m), seed in zip(views, seeds):
                v = rollout(s, m, obs.player, cells[0], key, seed)
                first.append(v)
                if v <= 0:  # the gate is shut: the search plays the cell's other worlds if it needs them
                    break
            self.rollouts += len(first)
            if len(first) == len(views) and all(v > 0 for v in first):
                self.gated += 1
                return cells[0]
        best, played = rollout_search(views, seeds, obs.player, cells, key, agree=True, first=first)
        self.rollouts += played
        if best != cells[0]:
            self.departures += 1
        return best

    def _worlds(self, info, obs) -> list:
        """``budget`` worlds: those of the last search carried forward (while they agree with what was seen
        since), topped up with completions of the seen cells drawn by ``Solver.sample`` in this game's private
        session, each with the game so far replayed onto it."""
        from mapgen.engine.deduce import solver_for  # deferred: the solver, at the first search
        from mapgen.engine.infostate import (  # deferred: the world replay, at the first search
            carried,
            twin_on,
            world_on,
        )
        from mapgen.engine.observation import table  # deferred: at the first search
        from mapgen.solving.solve import NoCompletion  # deferred: ortools, at the first search

        rng = self.search_rng
        kept = carried(self.worlds, info, rng)
        want = self.budget - len(kept)
        if want > 0:
            if self._solver is None or self._session is None:
                self._solver = solver_for(info.table.reference).solver  # the rules the game's bots reason with
                self._session = self._solver.session(info.known.briefing)
            solver = self._solver
            try:
                drawn = solver.sample(
                    info.known, want, SAMPLE_BUDGET, seed=rng.randrange(1 << 30), session=self._session
                )
            except NoCompletion:  # (SolveTimeout: the wall clock's safety net passed, never fewer worlds in silence)
                drawn = []
            for cells in drawn:
                self.drawn += 1
                twin = twin_on(kept, info, cells)  # a kept world on these cells: copied, not replayed
                if twin is not None:
                    self.twins += 1
                    kept.append(twin)
                    continue
                world = world_on(info, cells, solver.chapter, rng)
                if world is None:
                    self.rejected += 1
                    continue
                share_geometry(table(world.state.game), obs.game)  # the rollouts' bots: no per-world tables
                kept.append(world)
        self.worlds = kept
        return kept


__all__ = ["ScoutBot"]
