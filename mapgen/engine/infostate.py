"""What one player knows of a whole game (an information state), and worlds resampled from it.

A player's *information state* is every observation they had (perfect recall), in order: the
observation after each action (``mapgen/engine/observation.py``, written as text by ``obs_text``),
and the actions as far as that player saw them. A ``Tracker`` follows a game and keeps, per player,
the actions with the chance outcomes hidden from that player masked (``None``) and a key of each
observation (``obs_key``: its parts as values, equal exactly when the texts are, at a fraction of the
text's cost). ``information_state(state, player)`` hands a player an ``InfoState``: no reference
to the state, the map or a hidden card.

``resample(info, rng)`` makes a state the player cannot tell apart from the real one: a completion
of the revealed cells drawn by the solver (``CompletionSampler``), a ``Game`` on it, and the
player's history replayed onto it with every chance outcome hidden from the player drawn afresh
from the pile it came from (the other players' hands, face-down cards, Identity cards). A world is
kept only if the player's observation matches at every step (rejection: the Minotaurs' Night
placement or a Loyalist's face-down play may contradict a drawn world).

How close to uniform: when the revealed cells leave at most ``ENUMERATION_CAP`` completions,
they are enumerated and one is picked uniformly; otherwise, when the revealed cells compile to a
d-DNNF circuit (from the chapter's ``compile_from`` reveals, within ``CIRCUIT_CPU`` CPU seconds: Fauna
from 5 revealed cells, Training from none), each completion is drawn exactly uniformly from it
(``Circuit.sample``; the circuit, kept in memory, also answers the states after it); otherwise a
completion is drawn by CP-SAT with a random seed and random terrain hints (varied, not uniform: the
solver's search biases it). Hidden
cards are drawn uniformly at each draw, then filtered by the rejection above (uniform over the
consistent deals when each draw is independent of later observations, which holds for hands that
are never shown; cards shown later are conditioned by rejection, which is exact but may need
many tries). The map and the cards are drawn independently, then filtered together.

When every whole world is rejected (Hidden Traitor mode: another player's plays constrain their hidden hand, long
after it was dealt), worlds are drawn step by step (``_filtered``, a particle filter: near the exact distribution,
not it); given the real state (``resample_near``: OpenSpiel's ``resample_from_infostate``), that draw is
conditioned on it, so that a world is always found.
"""

from __future__ import annotations

import hashlib
import random
import time
from itertools import chain
from typing import Any

from constraints.catalogue import Chapter, cache_key, get_chapter
from mapgen.engine.actions import CHANCE
from mapgen.engine.game import Game, State
from mapgen.engine.maldonado import MaldonadoStep
from mapgen.engine.observation import observe
from mapgen.engine.steps import Step
from mapgen.model import Map
from mapgen.terrain import TERRAINS

ENUMERATION_CAP = 400  # enumerate the completions (uniform pick) when there are at most this many
#: CP-SAT's deterministic seconds (``max_deterministic_time``) for one enumeration; past them the circuit or the
#: draws answer. It was 0.3 wall-clock seconds: on a busy machine an enumeration ran out and the world came from
#: elsewhere (another move, another playtest result, nothing said). Measured (2026-12-06, fauna-1..7, flora-1..2,
#: training-1, 10-24 cells hidden): at most 0.02 (0.05 CPU s); 0.15 is about the old 0.3 s on an idle machine
ENUMERATION_WORK = 0.15
ENUMERATION_HIDDEN = 24  # try to enumerate only when at most this many cells are unrevealed (else: far too many)
#: deterministic seconds for one completion drawn by CP-SAT (it was 2 wall-clock seconds; measured: at most 0.023)
DRAW_WORK = 1.0
#: CPU seconds the revealed cells may take to compile (a budget: whether it lands does not depend on the load;
#: a base that did not is not tried again)
CIRCUIT_CPU = 2.0
#: the wall clock's safety net of each of these (a machine far too busy): past it SolveTimeout (exit 3), never
#: a world drawn otherwise
ENUMERATION_WALL = CIRCUIT_WALL = DRAW_WALL = 30.0


class ResampleError(Exception):
    """No world consistent with the player's information state was found in the tries allowed."""


def hidden_from(step: tuple, player: int) -> bool:
    """Whether the card drawn at a chance ``step`` is hidden from ``player``.

    Challenge, Threat, Destiny and Kill cards and every chapter token are drawn face up. Maldonado
    deals hands (seen by their holder), Identity cards (Hidden Traitor mode), face-down setup cards
    (the Traitor card's Crew Member is public: its card shows as not an Influence card), removes 5 Influence cards unseen, and a Command card is seen
    only by the player who drew it.
    """
    if step[0] != Step.CHANCE_CHAPTER:
        return False
    kind = step[1]
    if kind in (MaldonadoStep.REMOVE, MaldonadoStep.SETUP):
        return True
    if kind in (MaldonadoStep.DRAW, MaldonadoStep.IDENTITY):
        return step[2] != player
    if kind == MaldonadoStep.COMMAND:
        return step[3] != player
    return False


_PLAIN = frozenset((int, str, bool, float, type(None)))
_SEQ = frozenset((list, tuple))
_LIST = frozenset((list,))


def _canon(x):
    """A value with its sets sorted and its byte arrays as bytes, so that ``repr`` is one text per value."""
    t = type(x)
    if t in _PLAIN:  # the common case first (no isinstance chain); a subclass takes the checks below
        return x
    if t is list or t is tuple:
        if _PLAIN.issuperset(map(type, x)):  # plain values only (checked in C): the list as it is, or as a list
            return x if t is list else list(x)
        if _SEQ.issuperset(map(type, x)):
            flat = list(chain.from_iterable(x))
            if _PLAIN.issuperset(map(type, flat)):  # lists and tuples of plain values (Maldonado's log): in C
                return list(map(list, x))
            if (
                t is list
                and _LIST.issuperset(map(type, x))
                and _LIST.issuperset(map(type, flat))
                and _PLAIN.issuperset(map(type, chain.from_iterable(flat)))
            ):
                return x  # lists of lists of lists of plain values (Maldonado's piles): as they are
        return [v if type(v) in _PLAIN else _canon(v) for v in x]  # (a plain value without a call: the row's entries)
    if t is dict:  # (a plain value as it is, without a call: a chapter's data is mostly numbers)
        return {k: v if type(v) in _PLAIN else _canon(v) for k, v in x.items()}
    if isinstance(x, (set, frozenset)):
        return sorted(x, key=repr)
    if isinstance(x, dict):
        return {k: _canon(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_canon(v) for v in x]
    if isinstance(x, bytearray):
        return bytes(x)
    return x


_TERR = [chr(65 + k) for k in range(128)]  # a seen cell's terrain index as a letter (obs_text)
_EXPLORED = bytes([46] + [120] * 255)  # a byte 0 as ".", any other as "x"


def _explored_text(explored) -> str:
    """The explored flags as text: "x" explored, "." not."""
    if isinstance(explored, (bytes, bytearray)):
        return explored.translate(_EXPLORED).decode()
    return "".join(["x" if e else "." for e in explored])


_last_map_text: list = [None, None, None, "", ""]  # obs_text's (terrain, hills, board, map line, board's ends)


def _map_part(o) -> list:
    """``_last_map_text`` for observation ``o``: the map's part of ``obs_text`` (and of ``obs_key``), the same text
    while nothing is newly seen (the same lists), made again when something is."""
    b = o.game.board
    last = _last_map_text
    if last[0] is not o.terrain or last[1] is not o.hills or last[2] is not b:
        terr = "".join([_TERR[k] if k >= 0 else "." for k in o.terrain])
        last[:] = (
            o.terrain,
            o.hills,
            b,
            f"map {terr} hills {sorted(o.hills.items())!r}\n",
            f"({b.name(0)}..{b.name(b.size - 1)})",
        )
    return last


def obs_text(state: State, player: int) -> str:
    """``player``'s observation now, as text (the OpenSpiel observation string).

    Made from ``observe(state, player)``: the seen cells and Hill numbers, the public tokens, the
    chapter's data as that player sees it; the decision and its legal actions only for the player
    who takes it (another player sees only which kind of step is being decided).
    """
    o = observe(state, player)
    last = _map_part(o)
    step = o.step
    if step is None:
        step_text = "end"
    elif o.current == player and not state.is_chance_node():
        step_text = f"{_canon(step)!r} legal {o.legal!r}"
    else:
        step_text = repr(step[:2] if len(step) > 1 and isinstance(step[1], str) else step[:1])
    return (
        f"p{player} moves {o.moves} day {o.day} turn {o.turn} current {o.current}\n"
        f"{last[3]}"
        f"explored {_explored_text(o.explored)} trail {o.ex_list!r}\n"
        f"pack {o.pack!r} fires {o.fires} shelter {o.shelter} samples {o.samples} slots+ {o.extra_slots}\n"
        f"row {_canon(o.row)!r} left {o.challenges_left} monsters {sorted(o.monsters.items())!r} "
        f"threats {o.threats!r} injured {o.injured} chased {o.chased}\n"
        f"destiny {o.de_face!r} held {o.de_held!r} exhausted {_canon(o.exhausted)!r}\n"
        f"flags {int(o.lewis_on)}{int(o.collins_on)}{int(o.explored_now)} banned {o.banned} last {o.last_gain}\n"
        f"data {_canon(o.data)!r}\n"
        f"step {step_text} {last[4]}"
    )


_DICT = "\x00dict"  # the first item of a dict's frozen form (``_frozen``): no value of the engine starts so
#: the types ``_frozen`` keeps as they are: the plain ones and the str subclasses written as a str (the step kinds,
#: ``StrEnum``: equal to their word and written as it), added as they are met
_ATOMS = set(_PLAIN)


def _frozen(x):
    """``_canon(x)`` as nested tuples, a snapshot (nothing in it is the state's own list): equal exactly when
    ``repr(_canon(x))`` is, for the engine's values (lists and tuples alike, as ``_canon`` makes them; sets in
    ``_canon``'s order; a dict's items in its order), numbers aside: a bool equals its int where the texts differ
    (``True``, ``1``), and so would ``-0.0`` equal ``0.0``, and a NaN nothing where the texts agree; an observation
    holds no floats, and the engine gives each field one type (``tests/test_engine_observation.py`` checks the
    keys against the texts)."""
    t = type(x)
    if t in _ATOMS:
        return x
    if t is list or t is tuple:
        if _ATOMS.issuperset(map(type, x)):  # atoms only (checked in C)
            return x if t is tuple else tuple(x)
        if _SEQ.issuperset(map(type, x)) and _ATOMS.issuperset(map(type, chain.from_iterable(x))):
            return tuple(map(tuple, x))  # lists and tuples of atoms (a Challenge Row, a log): in C
        return tuple([v if type(v) in _ATOMS else _frozen(v) for v in x])
    if t is dict:
        return (_DICT, *[(k, v if type(v) in _ATOMS else _frozen(v)) for k, v in x.items()])
    if isinstance(x, str) and all(getattr(t, f) is getattr(str, f) for f in ("__repr__", "__eq__", "__hash__")):
        _ATOMS.add(t)  # a str subclass equal to and written as its str (a step kind): kept as it is from now on
        return x
    if isinstance(x, (set, frozenset)):
        return tuple(sorted(x, key=repr))
    if isinstance(x, dict):
        return (_DICT, *[(k, _frozen(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return tuple([_frozen(v) for v in x])
    if isinstance(x, bytearray):
        return bytes(x)
    return x


def obs_key(state: State, player: int) -> tuple:
    """``player``'s observation now as a tuple of its parts, what a ``Tracker`` keeps per step: two keys are
    equal exactly when the two ``obs_text`` are, and a key costs about three fifths of the text and its digest.

    Each part is the value ``obs_text`` writes, made immutable (a snapshot: none is the state's own list): the
    numbers as they are (the flags as the ints the text writes), the lists of numbers (trail, pack, Threats,
    Destiny cards, legal actions) as tuples, the Challenge Row, the chapter's data, the exhausted set and the
    decision as ``_frozen`` makes them (``_canon``'s values as tuples), the Monsters sorted as the text sorts
    them, the map's line and the explored flags as the text's own strings. Change it with ``obs_text`` (a test checks
    that both read the same parts of the observation, and that their equality agrees).
    Measured (issue 41): 15 us a step on Fauna for the text and its digest, 9-10 for the key; over
    35,000 comparisons of worlds' keys with the player's (the scout on the Fauna maps and maldonado-1,
    the planner on Training, Flora, Vameter and Maldonado, Hidden Traitor mode too), the keys were equal
    exactly when the texts were.
    """
    o = observe(state, player)
    last = _map_part(o)
    step = o.step
    if step is None:
        step_key: Any = None
    elif o.current == player and not state.is_chance_node():
        step_key = (_frozen(step), tuple(o.legal))
    else:
        step_key = tuple(step[:2] if len(step) > 1 and isinstance(step[1], str) else step[:1])
    return (
        player,
        o.moves,
        o.day,
        o.turn,
        o.current,
        last[3],
        _explored_text(o.explored),
        tuple(o.ex_list),
        tuple(o.pack),
        o.fires,
        o.shelter,
        o.samples,
        o.extra_slots,
        _frozen(o.row),
        o.challenges_left,
        tuple(sorted(o.monsters.items())),
        tuple(o.threats),
        o.injured,
        o.chased,
        tuple(o.de_face),
        tuple(o.de_held),
        _frozen(o.exhausted),
        int(o.lewis_on),
        int(o.collins_on),
        int(o.explored_now),
        o.banned,
        o.last_gain,
        _frozen(o.data),
        step_key,
        last[4],
    )


class _CardSources:
    """Maldonado's hidden cards followed from the draw that dealt them: into a hand (in hand order),
    onto a Crew Member's pile; a card turned face up or discarded (face up) shows its draw to all."""

    __slots__ = ("hands", "piles")

    def __init__(self, state=None, hands=None, piles=None):
        d: dict = state.data if state is not None else {}  # from a state: no source known yet for its cards
        self.hands = hands if hands is not None else [[] for _ in d["hands"]]
        self.piles = piles if piles is not None else [[] for _ in d["piles"]]

    def clone(self):
        return _CardSources(hands=[list(h) for h in self.hands], piles=[list(p) for p in self.piles])

    @staticmethod
    def snapshot(state):
        d = state.data
        return [list(h) for h in d["hands"]], [len(p) for p in d["piles"]], len(d["inf_discard"])

    def follow(self, before, state, k: int, chance_step) -> list[int]:
        """Update the sources after action ``k``; the positions of draws now shown to everyone."""
        d = state.data
        hands_before, piles_before, discards_before = before
        shown: list[int] = []
        moved: dict[int, int] = {}  # card -> source of a card that left a hand
        for q, (old, new) in enumerate(zip(hands_before, d["hands"])):
            src = self.hands[q]
            if chance_step is not None and len(new) == len(old) + 1 and chance_step[1] == MaldonadoStep.DRAW:
                src.append(k)
                continue
            if len(new) < len(old):
                keep, left = [], []
                j = 0
                for s_, card in enumerate(old):
                    if j < len(new) and new[j] == card:
                        keep.append(src[s_] if s_ < len(src) else -1)
                        j += 1
                    else:
                        left.append((card, src[s_] if s_ < len(src) else -1))
                self.hands[q] = keep
                for card, pos in left:
                    moved[card] = pos
        new_discards = d["inf_discard"][discards_before:] if len(d["inf_discard"]) >= discards_before else []
        for card in new_discards:  # discarded face up
            pos = moved.pop(card, -1)
            if pos >= 0:
                shown.append(pos)
        for c, (n_before, pile) in enumerate(zip(piles_before, d["piles"])):
            src = self.piles[c]
            for e in pile[n_before:]:
                if chance_step is not None and chance_step[1] == MaldonadoStep.SETUP:
                    src.append(k)
                else:
                    src.append(moved.pop(e[0], -1))
            for e, pos in zip(pile, src):
                if e[1] and pos >= 0:  # face up: shown
                    shown.append(pos)
            self.piles[c] = [pos if not e[1] else -1 for e, pos in zip(pile, src)]
        return shown


def pile_tag(state: State) -> str:
    """The name of the deck the chance node of ``state`` draws from (public: which deck, not its cards)."""
    kind = state.agenda[-1][0]
    if kind != Step.CHANCE_CHAPTER:
        return "destiny" if kind == Step.CHANCE_HELD else kind
    pile = state._chance_pile()
    for k, v in state.data.items():
        if v is pile:
            return k
    return repr(state.agenda[-1][:2])


class Tracker:
    """A game followed step by step: per player, the actions as seen (hidden outcomes ``None``) and
    the key of each observation (``obs_key``; the first one before any action)."""

    __slots__ = ("cards", "masked", "state", "tags", "trace")

    def __init__(self, state: State, masked=None, trace=None, tags=None, cards=None):
        self.state = state
        n = state.game.n
        if masked is None:
            masked = [[] for _ in range(n)]
            trace = [[obs_key(state, p)] for p in range(n)]
            tags = []
            cards = _CardSources(state) if "hands" in state.data else None
        self.masked = masked
        self.trace = trace
        self.tags = tags  # per action: the deck a chance outcome came from (public), None for a player's action
        self.cards = cards  # Maldonado: where each hidden card came from, to unmask it when it is shown

    def apply(self, action: int) -> None:
        s = self.state
        chance = s.is_chance_node()
        step = s.agenda[-1]
        tag = pile_tag(s) if chance else None
        cards = self.cards
        before = cards.snapshot(s) if cards is not None else None
        s.apply_action(action)  # first: an illegal action (ValueError) leaves the tracker as it was
        self.tags.append(tag)
        k = len(s.history) - 1
        for p in range(s.game.n):
            self.masked[p].append(None if chance and hidden_from(step, p) else action)
        if cards is not None:
            for j in cards.follow(before, s, k, step if chance else None):
                for p in range(s.game.n):  # shown to everyone now: the draw is no longer hidden
                    self.masked[p][j] = s.history[j]
        for p in range(s.game.n):
            self.trace[p].append(obs_key(s, p))

    def clone(self) -> Tracker:
        return Tracker(
            self.state.clone(),
            [list(m) for m in self.masked],
            [list(t) for t in self.trace],
            list(self.tags),
            self.cards.clone() if self.cards is not None else None,
        )

    def catch_up(self, real: State) -> None:
        """Apply the actions ``real`` played since this tracker's state (a replay of the same game)."""
        for a in real.history[len(self.state.history) :]:
            self.apply(a)

    def chain(self, player: int) -> str:
        """One digest of all of ``player``'s observations so far (of their keys' texts)."""
        h = hashlib.blake2b(digest_size=12)
        for key in self.trace[player]:
            h.update(repr(key).encode())
        return h.hexdigest()


class InfoState:
    """What ``player`` knows of a game: the public table, the settings, the seen map, the actions as
    seen (hidden chance outcomes ``None``), the observations' keys (``obs_key``), and the last observation."""

    __slots__ = ("history", "known", "obs", "player", "settings", "table", "tags", "trace")

    def __init__(self, player, table, settings, known, history, trace, obs, tags):
        self.player = player
        self.table = table
        self.settings = settings  # (characters, gear as chosen, medicine)
        self.known = known
        self.history = history
        self.trace = trace
        self.obs = obs
        self.tags = tags


def team_settings(g: Game) -> tuple:
    """The arguments a ``Game`` was made with, apart from the map: (characters, gear, medicine)."""
    gear = [tuple(x) for x in g.gear]
    if g.medicine:
        gear[0] = tuple(gear[0][:-1])  # Game appended the Medicine: give it back as the flag
    return tuple(g.characters), tuple(gear), g.medicine


def tracker_for(state: State) -> Tracker:
    """The referee's tracker of ``state``'s game (kept on the state, caught up to it)."""
    t = getattr(state, "_tracker", None)
    h = state.history
    if t is None or t.state.game is not state.game or t.state.history != h[: len(t.state.history)]:
        t = Tracker(state.game.new_initial_state())
    t.catch_up(state)
    state._tracker = t
    return t


def information_state(state: State, player: int, tracker: Tracker | None = None) -> InfoState:
    """``player``'s information state at ``state`` (made by the referee: a bot never holds the state);
    ``tracker``: the one following this state, when there is one."""
    if not 0 <= player < state.game.n:
        raise ValueError(f"no player {player} in a {state.game.n}-player game")
    t = tracker if tracker is not None else tracker_for(state)
    obs = observe(state, player)
    return InfoState(
        player,
        obs.game,
        team_settings(state.game),
        state.known_map(),
        list(t.masked[player]),
        list(t.trace[player]),
        obs,
        list(t.tags),
    )


class CompletionSampler:
    """Completions of partial maps of one chapter: uniform when few, else varied draws by CP-SAT. ``chapter``: a
    shipped chapter's name, or the rules to complete under (a game's Reference Board: a house-rule chapter)."""

    def __init__(self, chapter: str | Chapter):
        self.chapter = get_chapter(chapter) if isinstance(chapter, str) else chapter
        self._models: dict = {}
        self._enumerated: dict = {}  # (cells, hills) -> list of completions, or None (too many)
        self._drawing: dict = {}  # (cells, hills) -> the model with those cells fixed, for draws
        self.uniform = 0  # completions picked uniformly from an enumeration
        self.exact = 0  # completions drawn exactly uniformly from a compiled circuit
        self.drawn = 0  # completions drawn by the solver
        self._solver: Any = (
            None  # circuits of the revealed cells (in memory only: a bot's states are not cached on disk)
        )

    def _model(self, briefing):
        from constraints.cpsat import ChapterModel  # deferred: ortools, only when worlds are enumerated or drawn

        cm = self._models.get(briefing)
        if cm is None:
            if len(self._models) > 8:
                self._models.clear()
            cm = self._models[briefing] = ChapterModel(self.chapter, briefing)
        return cm

    def _fixed(self, known: Map):
        cm = self._model(known.briefing)
        lits = cm.given_literals(known)
        if lits is None:
            raise ResampleError("a revealed terrain is not of this chapter")
        model = cm.model.clone()
        model.add_bool_and(lits)
        return cm, model

    def _enumerate(self, known: Map) -> list | None:
        from ortools.sat.python import cp_model  # deferred: ortools, only when worlds are enumerated or drawn

        from constraints.cpsat import make_solver  # deferred: ortools, only when worlds are enumerated or drawn

        cm, model = self._fixed(known)
        hidden = known.unrevealed()
        index = []  # per hidden cell, an integer holding its terrain's index: one read per cell
        for i in hidden:
            v = model.new_int_var(0, len(TERRAINS) - 1, f"terrain_{i}")
            model.add(v == sum(t.index * lit for t, lit in cm.x[i].items()))
            index.append(v)

        class Collect(cp_model.CpSolverSolutionCallback):
            def __init__(self):
                super().__init__()
                self.out: list = []

            def on_solution_callback(self):
                self.out.append(tuple(TERRAINS[self.value(v)] for v in index))
                if len(self.out) > ENUMERATION_CAP:
                    self.stop_search()

        cb = Collect()
        solver = make_solver(ENUMERATION_WALL, work=ENUMERATION_WORK)
        solver.parameters.enumerate_all_solutions = True
        solver.parameters.linearization_level = 0
        status = solver.status_name(solver.solve(model, cb))
        _by_work(solver, status, len(cb.out) > ENUMERATION_CAP, "an enumeration of the revealed cells' completions")
        if status not in ("OPTIMAL", "INFEASIBLE") or len(cb.out) > ENUMERATION_CAP or not cb.out:
            return None
        out = []
        for values in sorted(cb.out, key=lambda v: [t.index for t in v]):  # the solver's order: not part of it
            cells = list(known.cells)
            for i, t in zip(hidden, values):
                cells[i] = t
            out.append(tuple(cells))
        return out

    def _draw(self, key, known: Map, rng: random.Random):
        from constraints.cpsat import make_solver  # deferred: ortools, only when worlds are enumerated or drawn

        fixed = self._drawing.get(key)
        if fixed is None:
            if len(self._drawing) > 4:
                self._drawing.clear()
            fixed = self._drawing[key] = self._fixed(known)
        cm, model = fixed
        model.clear_hints()
        for i in known.unrevealed():
            ts = [t for t in cm.x[i] if cm.possible(i, t)]
            if ts:
                model.add_hint(cm.x[i][rng.choice(ts)], True)
        solver = make_solver(DRAW_WALL, seed=rng.randrange(1 << 30), presolve=False, work=DRAW_WORK)
        p = solver.parameters
        p.linearization_level = 0
        p.use_sat_inprocessing = False
        p.cp_model_probing_level = 0  # measured: 0.04 s a draw on Fauna instead of 0.1 s
        p.symmetry_level = 0
        status = solver.status_name(solver.solve(model))
        _by_work(solver, status, status == "FEASIBLE", "a completion of the revealed cells drawn")
        if status not in ("OPTIMAL", "FEASIBLE"):
            raise ResampleError(
                f"no completion of the revealed cells drawn in {DRAW_WORK:g} deterministic s ({status})"
            )
        return cm.decode(solver.boolean_value)

    def sample(self, known: Map, rng: random.Random) -> Map:
        """A complete map agreeing with every revealed cell and Hill number of ``known``."""
        key = (known.briefing, known.cells, tuple(sorted(known.hills.items())))
        if key not in self._enumerated:
            if len(self._enumerated) > 64:
                self._enumerated.clear()
            few = len(known.unrevealed()) <= ENUMERATION_HIDDEN
            self._enumerated[key] = self._enumerate(known) if few else None
        choices = self._enumerated[key]
        circuit = None if choices else self._circuit(known)
        drawn = circuit.sample(known, 1, rng.randrange(1 << 30)) if circuit is not None else []
        if choices:
            cells = choices[rng.randrange(len(choices))]
            self.uniform += 1
        elif drawn:
            cells = drawn[0]
            self.exact += 1
        else:
            cells = self._draw(key, known, rng)
            self.drawn += 1
        full = known.with_cells(cells, hills={})
        return Map(known.chapter, known.briefing, full.cells, self.chapter.hill_numbers(full), board=known.board)

    def _circuit(self, known: Map):
        """A compiled circuit of ``known``'s revealed cells (or of fewer, kept from before), or None."""
        from mapgen.solving.solve import CircuitStore, Solver  # deferred: the solver, on first use

        if self._solver is None:
            self._solver = Solver(self.chapter, circuits=CircuitStore(None, max_edges=5_000_000))
        # past the wall clock's safety net (a machine far too busy) SolveTimeout: never a world drawn otherwise
        return self._solver.circuit(known, CIRCUIT_CPU, deadline=time.monotonic() + CIRCUIT_WALL, fixed=True)


def _by_work(solver, status: str, capped: bool, what: str) -> None:
    """SolveTimeout when the wall clock, not CP-SAT's deterministic work (nor a cap of the search's own), ended it."""
    from constraints.cpsat import clock_stopped  # deferred: ortools, as make_solver
    from mapgen.solving.solve import SolveTimeout  # deferred: the solver, on first use

    if status in ("OPTIMAL", "INFEASIBLE") or capped:
        return
    if clock_stopped(solver):
        raise SolveTimeout(f"the wall clock's {solver.parameters.max_time_in_seconds:g} s ran out before {what}")


_SAMPLERS: dict[str | int, CompletionSampler] = {}


def sampler_for(chapter: str | Chapter) -> CompletionSampler:
    """One per chapter and process: a shipped chapter by name or as its registry object, or a house-rule chapter
    (``load_chapter``: a game's Reference Board), never the shipped sampler of the same name (as
    ``deduce.solver_for``)."""
    key = cache_key(chapter)
    if key not in _SAMPLERS:
        _SAMPLERS[key] = CompletionSampler(chapter)
    return _SAMPLERS[key]


def world_game(info: InfoState, m: Map) -> Game:
    """The game of ``info`` played on map ``m``: everything the players know of the real one (team, card set,
    rule variants, Reference Board) but the map."""
    chars, gear, medicine = info.settings
    t = info.table
    return Game(
        m,
        chapter=t.chapter,
        players=t.n,
        characters=chars,
        gear=gear,
        medicine=medicine,
        cards=t.cards,
        variants=t.variants,
        reference=t.reference,
    )


def extend(world: Tracker, info: InfoState, rng: random.Random) -> bool:
    """Replay the rest of ``info``'s history onto ``world`` (drawing the hidden outcomes afresh);
    False as soon as the player's observation differs from theirs."""
    if not _agrees(world, info):
        return False
    for j in range(len(world.state.history), len(info.history)):
        if not _replay_one(world, info, j, rng):
            return False
    return True


def _agrees(world: Tracker, info: InfoState) -> bool:
    """Whether ``world``'s observations so far are the player's (and then shares their keys' objects)."""
    k = len(world.state.history)
    mine = world.trace[info.player]
    if mine[: k + 1] != info.trace[: k + 1]:
        return False
    mine[: k + 1] = info.trace[: k + 1]  # the same keys as the same objects (below)
    return True


def _replay_one(world: Tracker, info: InfoState, j: int, rng: random.Random, drawn: int | None = None) -> bool:
    """Play ``info``'s action ``j`` on ``world`` (at step ``j``), a hidden outcome drawn afresh from its pile (or
    ``drawn``, the engine's action, when given); False when it cannot be played there or the player's observation
    after it differs from theirs."""
    s = world.state
    history = info.history
    a = history[j]
    if s.is_terminal():
        return False
    if s.is_chance_node():
        pile = s._chance_pile()
        if not pile:
            return False
        if a is None:
            if not hidden_from(s.agenda[-1], info.player):
                return False
            if drawn is not None:
                a = drawn
            else:
                # not a card the player sees drawn later from the same deck (reshuffles aside)
                tags = info.tags
                tag = tags[j]
                later = {history[i] - CHANCE for i in range(j + 1, len(history)) if tags[i] == tag and history[i]}
                cards = [c for c in pile if c not in later] or pile
                a = CHANCE + cards[rng.randrange(len(cards))]
        if a - CHANCE not in pile:  # seen when drawn, or shown since
            return False
    elif a is None or a not in s.legal_actions():
        return False
    world.apply(a)
    mine = world.trace[info.player]
    seen = info.trace[len(s.history)]
    if mine[-1] != seen:
        return False
    mine[-1] = seen  # the same key, as one object: a later comparison of the traces is by identity
    return True


#: the sequential draw (``_filtered``), once ``tries`` whole worlds were all rejected: its worlds replayed side by
#: side, and its rounds (each from fresh worlds) before ResampleError
PARTICLES = 64
ROUNDS = 4
#: ``resample_near``'s sweeps of the sequential draw conditioned on a world (each on the world the last one gave)
SWEEPS = 3


class _Drawer:
    """Fresh worlds of ``info`` (a completion of the seen map, a Game on it, its initial state), and the wall
    clock's safety net."""

    def __init__(self, info: InfoState, rng: random.Random, sampler: CompletionSampler | None, time_limit: float):
        self.info, self.rng, self.time_limit = info, rng, time_limit
        self.sampler = sampler or sampler_for(info.table.reference)  # the rules the players reason with (--rules)
        self.deadline = time.monotonic() + time_limit
        self.games: dict = {}

    def fresh(self) -> Tracker:
        m = self.sampler.sample(self.info.known, self.rng)
        g = self.games.get(m.cells)
        if g is None:
            g = self.games[m.cells] = world_game(self.info, m)
        return Tracker(g.new_initial_state())

    def check_clock(self) -> None:
        if time.monotonic() > self.deadline:
            from mapgen.solving.solve import SolveTimeout  # deferred: the solver, on first use

            raise SolveTimeout(
                f"no world consistent with player {self.info.player}'s information in {self.time_limit:g} s"
            )


def resample(
    info: InfoState,
    rng: random.Random,
    sampler: CompletionSampler | None = None,
    tries: int = 200,
    time_limit=60.0,
    rounds: int = ROUNDS,
) -> Tracker:
    """A world ``info.player`` cannot tell from the real one (a ``Tracker`` at the same point); see the
    module docstring. First up to ``tries`` whole worlds, the first that passes the whole history kept (exact);
    when every one is rejected, the sequential draw (``_filtered``, up to ``rounds`` rounds). ``ResampleError``
    when neither finds one (counts: the same on any load); ``time_limit`` wall-clock seconds are only a safety
    net (a machine far too busy), past which SolveTimeout. ``resample_near``, given the real game, never fails."""
    d = _Drawer(info, rng, sampler, time_limit)
    for _ in range(tries):
        world = d.fresh()
        if extend(world, info, rng):
            return world
        d.check_clock()
    for _ in range(rounds):
        drawn = _filtered(info, d)
        if drawn is not None:
            return drawn
    raise ResampleError(
        f"no world consistent with player {info.player}'s information in {tries} tries "
        f"and {rounds} rounds of {PARTICLES} worlds drawn step by step"
    )


def resample_near(
    info: InfoState,
    rng: random.Random,
    real: State,
    sampler: CompletionSampler | None = None,
    tries: int = 200,
    time_limit=60.0,
) -> Tracker:
    """``resample``'s world by ``tries`` whole worlds, or when they are all rejected, one drawn by ``SWEEPS`` sweeps of the
    sequential draw each conditioned on a world that passes the whole history (particle Gibbs): first ``real``,
    the real game's state (whose observations are the player's), then the world the last sweep gave. Never fails
    (the conditioning world always passes); the world is drawn near the exact distribution, and may be ``real``'s
    own deal when nothing else passes (a copy: a new Tracker on ``real``'s game)."""
    try:
        return resample(info, rng, sampler, tries, time_limit, rounds=0)
    except ResampleError:
        pass
    d = _Drawer(info, rng, sampler, time_limit)
    game, actions = real.game, list(real.history)
    world = None
    for _ in range(SWEEPS):
        world = _filtered(info, d, (game, actions))
        if world is None:  # the real state's observations are not the player's (not the same game)
            raise ResampleError(f"the state given is not one of player {info.player}'s information state")
        game, actions = world.state.game, list(world.state.history)
    assert world is not None
    return world


def _filtered(info: InfoState, d: _Drawer, reference: tuple[Game, list[int]] | None = None) -> Tracker | None:
    """A world drawn step by step (a particle filter): ``PARTICLES`` fresh worlds replay the history side by side;
    after each action those whose observation differs from the player's are dropped and the survivors copied (at
    random) back up to ``PARTICLES``. Whole worlds need every hidden draw of a long game to pass every later
    observation at once: in Hidden Traitor mode each play by another player constrains their hidden hand (a
    Loyalist's face-down card is a +2/+3 of the Crew Member's Resource, a Command card means no matching card, a
    play with one legal choice is made at once, unseen, and which slot it emptied shows only when a later play
    names a slot), and whole worlds rarely pass them all (in random 3-4 player games, about 1 resample in 6
    rejected 200). Here each observation filters only the draws made so far. Every world kept passes the whole
    history, as a whole world kept by rejection does; its distribution is close to the exact one, not it (copies
    share their earlier draws). ``reference``: a game and its actions (a world that passes the whole history),
    replayed among the others and never dropped (conditional SMC), so that some world always survives. None when
    every world is dropped at some step."""
    rng = d.rng
    worlds = [w for w in (d.fresh() for _ in range(PARTICLES - (reference is not None))) if _agrees(w, info)]
    ref = None
    if reference is not None:
        ref = Tracker(reference[0].new_initial_state())
        if not _agrees(ref, info):
            return None
    for j in range(len(info.history)):
        worlds = [w for w in worlds if _replay_one(w, info, j, rng)]
        pool = worlds
        if ref is not None:
            assert reference is not None
            if not _replay_one(ref, info, j, rng, reference[1][j]):
                return None
            pool = [*worlds, ref]
        if not pool:
            return None
        worlds += [pool[rng.randrange(len(pool))].clone() for _ in range(PARTICLES - len(pool))]
        d.check_clock()
    pool = worlds if ref is None else [*worlds, ref]
    return pool[rng.randrange(len(pool))]


def carried(worlds: list[Tracker], info: InfoState, rng: random.Random) -> list[Tracker]:
    """The earlier worlds carried forward by the actions since, without those that contradict the
    player's information."""
    return [
        w
        for w in worlds
        if w.state.game.n == info.table.n and len(w.state.history) <= len(info.history) and extend(w, info, rng)
    ]


def world_on(info: InfoState, cells, rules, rng: random.Random) -> Tracker | None:
    """A world on ``cells`` (a completion of ``info.known`` under ``rules``, a catalogue chapter, which
    gives the Hills' numbers): the game so far replayed onto it, or None when it contradicts what the
    player saw."""
    known = info.known
    full = known.with_cells(cells, hills={})
    m = Map(known.chapter, known.briefing, full.cells, rules.hill_numbers(full), board=known.board)
    world = Tracker(world_game(info, m).new_initial_state())
    return world if extend(world, info, rng) else None


def twin_on(worlds: list[Tracker], info: InfoState, cells) -> Tracker | None:
    """What ``world_on(info, cells, ...)`` would make, copied from one of ``worlds`` (those carried to this point of
    the game) that holds the same completion, or None. Only when every action of the game is seen (no hidden
    outcome): then ``extend`` draws nothing from its RNG, and a world on the same map (the same cells: the Hills'
    numbers follow from them) replays the same actions into the same state and observations, the kept one as the
    new one would (a fresh world on fauna-7, scout budget 2: 20 of 222 drawn completions, a replay each)."""
    history = info.history
    if None in history:
        return None
    full = info.known.with_cells(cells, hills={}).cells
    n = len(history)
    for w in worlds:
        s = w.state
        if len(s.history) == n and s.game.map.cells == full:
            return w.clone()
    return None


def world_view(world: Tracker) -> tuple[State, Map]:
    """A world's state and its map (a search plays rollouts on them)."""
    return world.state, world.state.game.map


def carry(worlds: list[Tracker], info: InfoState, rng: random.Random, want: int) -> tuple[list[Tracker], int]:
    """Worlds for a new decision: the earlier ones carried forward by the actions since (dropped when
    they contradict the player's information), topped up to ``want`` with fresh ones; and how many
    are fresh."""
    kept = carried(worlds, info, rng)
    fresh = 0
    for _ in range(2 * want):
        if len(kept) >= want:
            break
        try:
            kept.append(resample(info, rng, tries=20))
            fresh += 1
        except ResampleError:
            break
    return kept, fresh
