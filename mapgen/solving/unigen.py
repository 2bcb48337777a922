"""Almost-uniform samples from UniGen (pyunigen) where no compiled circuit answers a state.

Odds over completions found by a SAT solver under random preferences are biased (whichever completions
the solver finds first); UniGen draws each completion with probability within a factor
``1 + UNIGEN_EPSILON`` of uniform, a stated guarantee, when the exact circuit is out of reach.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from constraints.catalogue import Chapter
from constraints.cnf import CountError, CountTimeout, _in_child, cnf_for_state
from mapgen.model import Map
from mapgen.solving.sat import SolveTimeout
from mapgen.terrain import Terrain, clipped_range, percent

#: UniGen's uniformity parameter kappa (pyunigen's default) and the tolerance it gives: every completion is
#: drawn with probability within a factor (1 + UNIGEN_EPSILON) of 1/count (UniGen3, Soos, Gocht and Meel,
#: CAV 2020: epsilon = (1 + kappa)(7.44 + 0.392 / (1 - kappa)^2) - 1).
UNIGEN_KAPPA = 0.638
UNIGEN_EPSILON = (1 + UNIGEN_KAPPA) * (7.44 + 0.392 / (1 - UNIGEN_KAPPA) ** 2) - 1


#: How a state's odds were had (``Solver.odds``, ``explain``'s target odds): exact shares; shares over
#: ``ODDS_SAMPLES`` of UniGen's almost-uniform samples; or none in time, only where the terrain is known (0 or 1).
#: Completions a solver finds first under random preferences are no fair sample: no odds are made of them.
ODDS_EXACT, ODDS_UNIGEN, ODDS_NONE = "exact", "unigen", "none"
#: The block heat-bath sampler's odds (``mapgen.solving.sampler``), each share with its standard error.
ODDS_SAMPLER = "sampler"
#: Exact where an exact route answers in time, else the sampler (``Solver.odds_answer``'s default).
ODDS_AUTO = "auto"
#: The routes a caller may ask for (``mapgen solve --method``).
ODDS_METHODS = (ODDS_AUTO, ODDS_SAMPLER, ODDS_UNIGEN)
#: z for a two-sided 95% interval: ± on an estimated share is Z95 standard errors.
Z95 = 1.959963984540054
#: Two-sided 95% Student t quantiles by degrees of freedom; 1.96 past the table (``t95``).
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 19: 2.093, 24: 2.064, 29: 2.045}  # fmt: skip
#: R-hat at or below this: a sampler's chains agree (Vehtari et al. 2021 use 1.01 for final inference; 1.05 is
#: the odds issue's goal for a table-side answer). Here, beside the odds' names, so that the web's server reads
#: it without loading numba.
RHAT_OK = 1.05


def t95(df: int) -> float:
    """The two-sided 95% Student t quantile for ``df`` degrees of freedom (the next smaller tabled one)."""
    if df <= 0:
        return math.inf
    return _T95[max(d for d in _T95 if d <= df)] if df <= 29 else 1.96


def rhat_json(rhat: float) -> float | None:
    """R-hat as JSON can hold it: rounded, None where it is infinite (a pair that never moved within a chain but
    differs between chains; JSON has no infinity)."""
    return round(rhat, 4) if math.isfinite(rhat) else None


def converged(rhat: float) -> bool:
    return math.isfinite(rhat) and rhat <= RHAT_OK


ODDS_SAMPLES = 400
#: Why there are no odds, for the reports (``ODDS_NONE``).
NO_ODDS = "no compiled circuit, and the sampler did not finish within the time limit"
#: why ``--method unigen`` gave no odds: UniGen's samples (``ODDS_SAMPLES``) not all drawn within the odds' budget
NO_UNIGEN = f"UniGen did not draw its {ODDS_SAMPLES} samples within the time limit"


@dataclass
class OddsAnswer:
    """A state's odds: per unrevealed cell the share of each terrain, how they were had (``ODDS_*``), and for
    the sampler the standard error of each share and the run's summary (``mapgen.solving.sampler.Odds``)."""

    shares: dict[int, dict[Terrain, float]]
    method: str
    errors: dict[int, dict[Terrain, float]] | None = None
    sampled: Any = None  # mapgen.solving.sampler.Odds: typed loosely so this module never imports numba


@dataclass
class HeatAnswer:
    """One terrain's chance per unrevealed cell, as a picture shades it (``Solver.heat_answer``): ``heat`` (None where
    it may be and no odds came), how it was had (``ODDS_*``), the sampler's 95% upper ``bounds`` where its share is 0
    but the cell may hold the terrain, each other estimated share's 95% half-width (``errors``: ``solve``'s ``±14``),
    and whether the sampler's chains agreed (``converged``; None where no sampler answered)."""

    heat: dict[int, float | None]
    method: str
    bounds: dict[int, float] = field(default_factory=dict)
    errors: dict[int, float] = field(default_factory=dict)
    converged: bool | None = None


#: The sampler's work per second of the time limit asked: ``sampler.Budget.for_seconds(SAMPLE_SECONDS * limit)``,
#: a number of sweeps that depends on the limit given, never on the clock. One constant for ``solve``, ``hint``,
#: ``render --probabilities`` and the web, so that one state at one time limit gets the same odds from each (it
#: was 0.5 of the budget in ``render`` and the web, all of it in ``hint``: three answers to one question).
SAMPLE_SECONDS = 0.4


def known_chance(possible: frozenset[Terrain], terrain: Terrain) -> float | None:
    """The chance a cell with these possible terrains holds ``terrain`` when no odds are had: 0.0 where it
    cannot, 1.0 where it must, None where it may."""
    if terrain not in possible:
        return 0.0
    return 1.0 if possible == {terrain} else None


def share_words(code: str, p: float, err: float | None) -> str:
    """One terrain's share for people: ``Wa 40%``, with the sampler's ``±6``, or the range its interval holds where
    that reaches past 0% or 100% (``Sk 5% (0–19%)``, ``clipped_range``); a terrain the cell can hold that no chain met
    (share 0, ``Odds.add_unseen``) as ``Sk up to 31%``."""
    if err is None:
        return f"{code} {percent(p)}"
    if p == 0:
        return f"{code} up to {100 * Z95 * err:.0f}%"
    held = clipped_range(p, Z95 * err)
    return f"{code} {percent(p)} ({held})" if held else f"{code} {percent(p)} ±{100 * Z95 * err:.0f}"


def _unigen_here(clauses, nvars: int, sampling: list[int], n: int, seed: int) -> list[list[int]]:
    from pyunigen import Sampler  # deferred: loaded only where no circuit answers (often a child process)

    sampler = Sampler(seed=seed, kappa=UNIGEN_KAPPA)
    for c in clauses:
        sampler.add_clause(c)
    if nvars:
        sampler.add_clause([nvars, -nvars])
    return sampler.sample(num=n, sampling_set=sampling)[2]


def unigen_samples(
    state: Map, chapter: Chapter, n: int, time_limit: float, seed: int = 0, *, cpu_limit: float | None = None
) -> list[tuple[Terrain, ...]] | None:
    """``n`` completions from UniGen, almost uniform (``UNIGEN_EPSILON``), in a child process bounded by
    ``time_limit`` seconds (SolveTimeout past it) and, when given, ``cpu_limit`` CPU seconds; None when that
    budget runs out first or the sampler fails."""
    cnf = cnf_for_state(state, chapter)
    if cnf.broken:
        return []
    args = (cnf.clauses, cnf.nvars, cnf.sampling, n, seed)
    try:
        raw = _in_child(_unigen_here, args, time_limit, "sampler", cpu_limit)
    except CountTimeout as e:
        raise SolveTimeout(str(e)) from None
    except CountError:  # its CPU budget spent, or the sampler failed
        return None
    out = []
    for model in raw:
        true = {v for v in model if v > 0}
        w = []
        for i, t in enumerate(state.cells):
            if t is not None:
                w.append(t)
                continue
            w.append(next(u for u, v in cnf.x[i].items() if v is True or (v is not False and v in true)))
        out.append(tuple(w))
    return out


#: The chains' starts assumed independent where none met a terrain a cell can hold (``unseen_bound``): two a run,
#: as when each run gave two (starts of one run share ancestors).
UNSEEN_PER_RUN = 2


def unseen_bound(chains: int, rhat: float, ess: float) -> float:
    """A 95% upper bound on the share of a terrain a cell can hold (known exactly) that no chain met.

    Where the chains do not agree (R-hat above ``unigen.RHAT_OK``: islands they cannot leave, Fauna's Forts,
    Maldonado's tied corners) a terrain may lie on an island none of them started on: with each start an
    independent near-uniform draw, an island of weight w holds no start of ``chains`` with chance (1 - w) ** chains,
    so w <= 1 - 0.05 ** (1 / chains) (0.31 for 8 chains). Where they agree, the draws are as ``ess`` independent
    ones, and a share unseen in them is below 3 / ess (the rule of three: -ln 0.05 = 3.0), never above the island
    bound."""
    island = 1.0 - 0.05 ** (1.0 / max(1, chains))
    if converged(rhat) and ess > 0:
        return min(island, -math.log(0.05) / ess)
    return island
