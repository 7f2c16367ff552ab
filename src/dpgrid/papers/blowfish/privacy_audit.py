"""blowfish: black-box privacy audit of the released real-time rates (GhoddousiBoroujeni et al., Theorem 1).

Algorithm 1 (Blowfish) and the naive Laplace baseline claim eps-DP per step (delta = 0) for neighbouring
consumption data that differ in one household h at one step t, h in either occupancy state, both states with
non-zero prior (the Blowfish policy, Sec. II-B; the naive baseline protects every household). The auditor
rebuilds that relation from the population model alone -- which states are possible (its own propagation of
the marginal occupancy probabilities, not :func:`dpgrid.models.occupancy.prior_support`) and the largest change
the consumption bounds allow, X_h = max(u_h^(0), u_h^(1)) against X_h = 0 -- and never reads the mechanism's
sensitivity or lambda. Search: for every step the household with the largest allowed change, plus random
(step, household) pairs; screened by the coupled shift, the best piloted, the final test on fresh samples
(:mod:`dpgrid.privacy.blackbox_audit`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.seeds import job_rng
from dpgrid.models import occupancy as occ
from dpgrid.papers.blowfish.day import MECHANISMS, Settings, draw_day_population, release_sampler, settings_from_config
from dpgrid.papers.blowfish.paper import PAPER
from dpgrid.privacy import blackbox_audit as ba


def possible_states(pop: occ.HouseholdPopulation) -> np.ndarray:
    """(T, N, 2) bool: state s of household h has positive marginal probability at step t (the chain's own
    law propagated from the initial prior; eq. (2))."""
    p1 = np.asarray(pop.initial, dtype=float).copy()
    out = np.zeros((pop.n_steps, pop.n_households, 2), dtype=bool)
    for t in range(pop.n_steps):
        if t > 0:
            a = pop.transitions[:, pop.step_period[t]]
            p1 = p1 * a[:, 1, 1] + (1.0 - p1) * a[:, 0, 1]
        out[t, :, 1] = p1 > 0.0
        out[t, :, 0] = p1 < 1.0
    return out


def neighbour_candidates(
    s: Settings, pop: occ.HouseholdPopulation, consumption: np.ndarray, mechanism: str, n_random: int, rng
) -> list[ba.Candidate]:
    """The searched pairs: per step the household with the largest allowed change, then ``n_random`` random
    (step, household) pairs of the relation."""
    sample = release_sampler(s, pop, mechanism)
    states = possible_states(pop)
    both = states.all(axis=2) if mechanism == "blowfish" else np.ones(states.shape[:2], dtype=bool)
    change = np.asarray(pop.bounds, dtype=float).max(axis=1)
    pairs = []
    for t in range(s.steps):
        if both[t].any():
            pairs.append((t, int(np.argmax(np.where(both[t], change, -np.inf)))))
    ts, hs = np.nonzero(both)
    if ts.size:
        pick = rng.choice(ts.size, size=min(n_random, ts.size), replace=False)
        pairs += [(int(ts[i]), int(hs[i])) for i in np.sort(pick)]
    out = []
    for t, h in dict.fromkeys(pairs):
        low, high = consumption.copy(), consumption.copy()
        low[t, h], high[t, h] = 0.0, change[h]
        out.append(
            ba.Candidate(
                f"step {t}, household {h}: X = {change[h]:.4g} vs 0",
                lambda r, n, c=high: sample(c, r, n),
                lambda r, n, c=low: sample(c, r, n),
            )
        )
    return out


def audit_rows(s: Settings, cfg: dict, rng: np.random.Generator, level: float) -> list[dict]:
    """One row per mechanism: a day drawn from the model (population, occupancy, consumption), the search, the
    final test at the claimed (eps, 0)."""
    pop = draw_day_population(s, rng)
    occupancy = occ.simulate_occupancy(pop, rng)
    consumption = occ.simulate_consumption(pop, occupancy, rng)
    rows = []
    for mech in MECHANISMS:
        cands = neighbour_candidates(s, pop, consumption, mech, int(cfg["random_pairs"]), rng)
        kept = ba.screen_by_coupled_shift(
            cands, pilot_samples=int(cfg["pilot_samples"]), keep=int(cfg["keep"]), rng=rng
        )
        res = ba.search_and_audit(
            kept,
            s.epsilon,
            pilot_samples=int(cfg["pilot_samples"]),
            samples=int(cfg["samples"]),
            level=level,
            rng=rng,
            fitted=("fisher",),
        )
        res = ba.SearchAudit(res.pair, res.chosen, len(cands), res.pilot_estimate)
        rows.append(
            ba.audit_row(
                paper="blowfish",
                mechanism=f"{mech}_pricing" if mech == "blowfish" else "naive_laplace",
                setting=f"{s.households} households, eps per step {s.epsilon:g}",
                epsilon=s.epsilon,
                claimed_delta=0.0,
                result=res,
                level=level,
            )
        )
    return rows


def privacy_audit_job(job) -> None:
    """Rule ``blowfish_privacy_audit``: results/blowfish/privacy_audit.csv."""
    s = settings_from_config(job.params.cfg)
    rows = audit_rows(s, job.params.audit, job_rng(job.params.seed, PAPER, "privacy_audit"), float(job.params.level))
    write_table(pd.DataFrame(rows, columns=list(ba.AUDIT_COLUMNS)), job.output.table)
