"""blowfish's empirical density-ratio audit of the released rate (Theorem 1) for neighbouring occupancy states of
one household, beside the exact privacy-loss sup."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms import blowfish_pricing as bp
from dpgrid.papers.blowfish.day import seeded_day, settings_from_config
from dpgrid.papers.blowfish.paper import PAPER
from dpgrid.privacy import uniform_laplace as ul
from dpgrid.privacy.audit import audit_density_ratio


def _audit_pair_row(s, a: Mapping[str, Any], day, t: int, mech: str, lam_t: float, h: int, pair: str, rng) -> dict:
    """One audited pair of household ``h`` at step ``t``: ``m`` releases of each neighbouring state (the model's
    uniform consumptions or the worst case of Theorem 1's proof), conditional on the other households' realised
    consumption, and their density-ratio audit beside the exact privacy-loss sup."""
    m = int(a["samples"])
    sens = day.population.sensitivity
    u0, u1 = day.population.bounds[h]
    z_rest = day.consumption[t].sum() - day.consumption[t, h]
    b = lam_t / s.epsilon
    if pair == "model":
        x1, x0 = rng.random(m) * u1, rng.random(m) * u0
        exact = ul.sup_household_privacy_loss(s.alpha * u1, s.alpha * u0, b)
    else:
        x1, x0 = np.full(m, sens[h]), np.zeros(m)
        exact = s.alpha * sens[h] / b
    r1 = bp.release_rates(s.alpha * (x1 + z_rest) + s.beta, lam_t, s.epsilon, rng)
    r0 = bp.release_rates(s.alpha * (x0 + z_rest) + s.beta, lam_t, s.epsilon, rng)
    res = audit_density_ratio(
        r1, r0, s.epsilon, bins=int(a["bins"]), min_count=int(a["min_count"]), confidence=float(a["confidence"])
    )
    return {
        "mechanism": mech,
        "step": t,
        "pair": pair,
        "household": h,
        "lambda": lam_t,
        "u_unoccupied": u0,
        "u_occupied": u1,
        "epsilon": s.epsilon,
        "exact_loss_sup": exact,
        "max_log_ratio": res.max_log_ratio,
        "max_log_ratio_lower": res.max_log_ratio_lower,
        "hockey_stick": res.hockey_stick,
        "hockey_stick_lower": res.hockey_stick_lower,
        "within_eps": bool(res.max_log_ratio_lower <= s.epsilon and not res.violation),
        "bins_used": res.n_bins_used,
        "note": "",
    }


def _audit_step_rows(s, a: Mapping[str, Any], day, t: int, rng) -> list[dict]:
    """The audit rows of step ``t``: per mechanism (blowfish, naive, the scaled control) the protected household
    with the largest bound, both pairs; an exact release (empty kappa or lambda 0) is one ``none`` row."""
    sens = day.population.sensitivity
    lam_ctrl = day.lam["blowfish"][t] * float(a["control_scale_factor"])
    cases = {
        "blowfish": (day.lam["blowfish"][t], day.kappa[t]),
        "naive": (day.lam["naive"][t], np.ones(s.households, dtype=bool)),
        "control": (lam_ctrl, day.kappa[t]),
    }
    rows = []
    for mech, (lam_t, protected) in cases.items():
        if not protected.any() or lam_t == 0:
            rows.append(
                {
                    "mechanism": mech,
                    "step": t,
                    "pair": "none",
                    "household": -1,
                    "lambda": lam_t,
                    "note": "no discriminative pair with non-zero prior (kappa empty): exact release",
                }
            )
            continue
        h = int(np.flatnonzero(protected)[np.argmax(sens[protected])])
        rows += [_audit_pair_row(s, a, day, t, mech, lam_t, h, pair, rng) for pair in ("model", "worst_case")]
    return rows


def audit_job(job) -> None:
    """Empirical density-ratio audit of the released rate for neighbouring occupancy states of one household.

    For each audited step and mechanism, the household with the largest bound among those the
    mechanism protects is audited, conditional on the other households' realised consumption (the
    worst case over Z_-h, which implies the marginal statement of eq. (5)). Two pairs: the model's
    (X_h ~ U(0, u^(1)) vs U(0, u^(0))) and the worst case the proof of Theorem 1 allows
    (X_h = u_h vs X_h = 0). A control with lambda scaled by ``control_scale_factor`` must be flagged.
    """
    c = job.params.cfg
    s = settings_from_config(c)
    a = c["audit"]
    day = seeded_day(s, job.params.data_seed, job.params.seed, (PAPER, "run", int(c["reference_seed"])))
    rng = job_rng(job.params.seed, PAPER, "audit", int(c["reference_seed"]))
    rows = []
    for t in a["steps"]:
        if not 0 <= int(t) < s.steps:
            raise ValueError(f"config: field blowfish.audit.steps contains {t!r}, outside 0..{s.steps - 1}")
        rows += _audit_step_rows(s, a, day, int(t), rng)
    write_table(pd.DataFrame(rows), job.output.table)
