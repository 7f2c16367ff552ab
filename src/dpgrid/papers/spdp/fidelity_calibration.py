"""Which calibration and which sensitivity reproduce the spdp paper's printed numbers (workflow/papers/spdp/spdp.md,
"Fidelity").

Parker, Hale, Barooah, *Spectral Differential Privacy*, Tables I-III. Every function returns plain rows (lists of
dicts) so that a job can write them as a table:

- :func:`trdp_expected_metrics` / :func:`trdp_printed_check`: the TrDP rows of Tables II-III are, to the
  printed digit, the expected values of x + N(0, sigma^2) for the stated mean/std of the home and a sigma;
  this identifies which calibration produced the paper's sigma (Table III: eq. (2) at delta = 1e-3);
- :func:`window_evidence`: how plausible the printed TrDP-1-week correlation and mean are if Tables II-III
  were computed over n samples (a day, a week, a year);
- :func:`b_reading_rows`: B_TrDP(K) and B_SpDP under every reading of eqs. (12)-(13), with the analytic
  bound that excludes eq. (13)'s max for the printed values;
- :func:`delta_audit_rows`: the exact hockey-stick delta of every calibrated mechanism.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from dpgrid.mechanisms.spectral_adjacency import (
    SPDP_READINGS,
    TRDP_READINGS,
    b_spdp_reading,
    b_trdp_reading,
    block_profile_share,
    required_profile_share,
    trdp_max_lower_bound,
)
from dpgrid.models.psd import PSDEstimator
from dpgrid.papers.spdp.calibration_sweep import exact_delta_row, sigma_formula
from dpgrid.papers.spdp.pipeline import SpDPParams

#: Table III's printed TrDP numbers (value, decimals in kW; 0.18 MW = 180 kW to the tens).
PRINTED_TRDP = {
    "4h": {"sigma_kw": (0.92, 2), "std_kw": (1.97, 2), "correlation": (0.88, 2), "snr_db_paper": (9.07, 2)},
    "1week": {"sigma_kw": (180.0, -1), "std_kw": (180.0, 0)},
}
#: Calibrations tried against the printed digits: (formula, delta).
TRDP_CALIBRATIONS = (
    ("classical", 0.01),
    ("proposition1", 0.01),
    ("proposition1", 0.001),
    ("classical_ln2", 0.01),
    ("analytic", 0.01),
    ("quantile", 0.01),
)


# --------------------------------------------------------------------------- TrDP rows of Tables II-III


def trdp_expected_metrics(mean: float, std: float, sigma: float) -> dict:
    """Expected Table II/III values of the TrDP release x + w, w ~ N(0, sigma^2) i.i.d., independent of x.

    std(x~) = sqrt(std^2 + sigma^2); corr(x, x~) = std / std(x~); SNR (paper's definition, released power
    over noise power) = 10 log10((mean^2 + std^2 + sigma^2) / sigma^2).
    """
    s2 = std * std + sigma * sigma
    return {
        "sigma_kw": sigma,
        "mean_kw": mean,
        "std_kw": math.sqrt(s2),
        "correlation": std / math.sqrt(s2),
        "snr_db_paper": 10.0 * math.log10((mean * mean + s2) / (sigma * sigma)),
    }


def _rounds_to(value: float, printed: float, decimals: int) -> bool:
    """``value`` prints as ``printed`` with ``decimals`` decimals (negative: tens, hundreds, ...)."""
    return abs(value - printed) <= 0.5 * 10.0 ** (-decimals) * (1.0 + 1e-9)


def trdp_printed_check(
    mean: float, std: float, b: float, printed: dict, *, eps: float, calibrations: Iterable[tuple[str, float]]
) -> list[dict]:
    """For each (formula, delta): the expected TrDP metrics for adjacency ``b`` and whether each rounds to
    the paper's printed digits. ``printed``: {metric: (value, decimals)} for metrics of
    :func:`trdp_expected_metrics` (e.g. {"sigma_kw": (0.92, 2), "std_kw": (1.97, 2), ...})."""
    rows = []
    for name, delta in calibrations:
        exp = trdp_expected_metrics(mean, std, sigma_formula(name, b, eps, delta))
        row = {"formula": name, "delta": delta, "b": b}
        n_ok = 0
        for metric, (value, dec) in printed.items():
            ok = _rounds_to(exp[metric], value, dec)
            row[metric] = exp[metric]
            row[f"{metric}_paper"] = value
            row[f"{metric}_matches"] = ok
            n_ok += ok
        row["n_matching"] = n_ok
        row["n_printed"] = len(printed)
        rows.append(row)
    return rows


def window_evidence(
    std_x: float, sigma: float, mean_x: float, printed_corr: float, printed_mean: float, sample_sizes: Iterable[int]
) -> list[dict]:
    """z-scores and two-sided p-values of the printed TrDP correlation and released mean for n samples.

    corr: Fisher z, atanh(r) ~ N(atanh(rho), 1 / (n - 3)) with rho = std_x / sqrt(std_x^2 + sigma^2);
    mean: the released mean is mean_x + mean(w), mean(w) ~ N(0, sigma^2 / n).
    """
    from scipy import stats

    rho = std_x / math.sqrt(std_x**2 + sigma**2)
    rows = []
    for n in sample_sizes:
        zc = (math.atanh(printed_corr) - math.atanh(rho)) * math.sqrt(n - 3)
        zm = (printed_mean - mean_x) / (sigma / math.sqrt(n))
        rows.append(
            {
                "n_samples": int(n),
                "expected_corr": rho,
                "corr_z": zc,
                "corr_p": float(2 * stats.norm.sf(abs(zc))),
                "mean_z": zm,
                "mean_p": float(2 * stats.norm.sf(abs(zm))),
            }
        )
    return rows


# --------------------------------------------------------------------------- B readings


def b_reading_rows(
    x,
    fs_per_hour: float,
    *,
    trdp_samples: dict,
    spdp_weeks: tuple[int, int],
    spdp_step_days: float,
    estimators: dict[str, PSDEstimator],
    paper_b: dict,
) -> list[dict]:
    """B_TrDP(K) under every reading of eq. (13) and B_SpDP under every reading of eq. (12).

    ``trdp_samples``: {name: K in samples}; ``paper_b``: {name: printed value} for the same names and for
    "spdp". Each TrDP row also carries the analytic lower bound of eq. (13)'s max from the series' std and
    block-profile share, and the profile share the printed value would need.
    """
    x = np.asarray(x, dtype=float)
    std = float(np.std(x))
    rows = []
    for name, k in trdp_samples.items():
        if x.size // k < 2:  # fewer than two trajectories of this length: no reading
            continue
        share = block_profile_share(x, k)
        for reading in TRDP_READINGS:
            rows.append(
                {
                    "parameter": f"b_trdp_{name}",
                    "k_samples": int(k),
                    "reading": reading,
                    "value": b_trdp_reading(x, k, reading),
                    "paper": paper_b.get(name, math.nan),
                    "max_lower_bound": trdp_max_lower_bound(std, k, share),
                    "profile_share": share,
                    "profile_share_needed": required_profile_share(paper_b.get(name, math.nan), std, k),
                }
            )
    w = round(168 * fs_per_hour)
    lengths = [wk * w for wk in range(spdp_weeks[0], spdp_weeks[1] + 1)]
    step = round(24 * spdp_step_days * fs_per_hour)
    for conv, est in estimators.items():
        for reading in SPDP_READINGS:
            try:
                v = b_spdp_reading(x, est, lengths=lengths, step=step, reading=reading)
            except ValueError:
                v = math.nan
            rows.append(
                {
                    "parameter": "b_spdp",
                    "k_samples": max(lengths),
                    "reading": f"{reading}/{conv}",
                    "value": v,
                    "paper": paper_b.get("spdp", math.nan),
                }
            )
    return rows


# --------------------------------------------------------------------------- exact delta audit


def delta_audit_rows(params: SpDPParams, b_spdp: float, trdp: Iterable[tuple[str, float, str, float]]) -> list[dict]:
    """Exact hockey-stick delta of every calibrated spdp mechanism at the stated eps.

    SpDP: the correlated mechanism built by ``params`` for B = ``b_spdp``; its worst-case whitened shift is
    B / sqrt(lambda_min(Sigma)) (eigenvector of lambda_min, :meth:`worst_case_shift`). TrDP: ``trdp`` lists
    (name, B, formula, delta): sigma = formula(B, eps, delta), whitened shift B / sigma. The exact delta
    does not depend on B (sigma scales with B); it is reported for the configured values.
    """
    mech = params.mechanism(b_spdp)
    rows = [
        exact_delta_row(
            f"SpDP correlated Gaussian (Prop. 2, beta = {params.beta:g}, {params.structure}, {params.noise_scaling})",
            "proposition2 eq. (7)",
            params.eps,
            params.delta,
            mech.whitened_shift_norm(mech.worst_case_shift()),
        )
    ]
    for name, b, formula, delta in trdp:
        sigma = sigma_formula(formula, b, params.eps, delta)
        rows.append(
            exact_delta_row(
                f"TrDP i.i.d. Gaussian ({name}, B = {b:g} kW)", f"{formula}@{delta:g}", params.eps, delta, b / sigma
            )
        )
    return rows
