"""Forecast error measures: the candidate readings of classdp's "normalized MSE".

classdp (Ramakrishna et al.), Sec. VI-B, prints the "normalized MSE of the released forecast" of
three houses (1.5953e-3, 1.2475e-3, 1.2453e-3; journal version) and, in the earlier version, the
"MSE" of their ARMA forecasts of x[k] (2.6986e-4, 2.3339e-4, 1.4769e-4) without defining either
(normaliser, unit, domain, per step or total). :func:`forecast_errors` computes every candidate
reading for one 12-step forecast so a sweep can tell which definition and unit gives those orders
of magnitude (workflow/papers/classdp/classdp.md, "Fidelity").

Candidates (``p`` the true load, ``q`` the forecast or release, kW unless stated, t = 1..T):

==================  ==============================================================
``nmse_sum_p2``     sum (q - p)^2 / sum p^2 (the pipeline's definition)
``mse_over_sum_p2`` mean (q - p)^2 / sum p^2  (= nmse_sum_p2 / T)
``nmse_mean2``      mean (q - p)^2 / mean(p)^2
``nmse_var``        sum (q - p)^2 / sum (p - mean p)^2
``mse_kw2``         mean (q - p)^2 in kW^2 (``mse_w2``, ``mse_mw2``: in W^2, MW^2)
``sse_kw2``         sum (q - p)^2 in kW^2
``mse_log``         mean (ln q - ln p)^2 (unit-free; equals the MSE of the x[k] forecast)
``nmse_log_kw``     sum (ln q - ln p)^2 / sum (ln p)^2 with p in kW
``nmse_log_w``      sum (ln q - ln p)^2 / sum (ln p)^2 with p in W
==================  ==============================================================

The log-domain measures use ``max(p, floor_kw)`` for the truth (a zero reading has no logarithm;
the forecast model floors the log the same way) and report how many values were floored.
"""

from __future__ import annotations

import numpy as np

__all__ = ["METRICS", "forecast_errors"]

METRICS = (
    "nmse_sum_p2",
    "mse_over_sum_p2",
    "nmse_mean2",
    "nmse_var",
    "mse_kw2",
    "mse_w2",
    "mse_mw2",
    "sse_kw2",
    "mse_log",
    "nmse_log_kw",
    "nmse_log_w",
)


def forecast_errors(pred_kw, truth_kw, *, floor_kw: float = 0.01) -> dict:
    """Every candidate error measure of ``pred_kw`` against ``truth_kw`` (vectors of one horizon).

    ``pred_kw`` may be a matrix (draws x horizon): each measure is then averaged over the draws
    (an expectation of the measure, not the measure of the mean forecast). Returns
    ``{metric: value, ..., "floored_truth": count}``; a measure whose normaliser is zero is NaN.
    """
    p = np.asarray(truth_kw, dtype=float)
    q = np.atleast_2d(np.asarray(pred_kw, dtype=float))
    if p.ndim != 1 or q.shape[1] != p.size:
        raise ValueError(f"truth must be a vector and pred (draws x {p.size}); got {p.shape} and {q.shape}")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(q))):
        raise ValueError("forecast errors need finite loads")
    if floor_kw <= 0:
        raise ValueError(f"floor_kw must be positive, got {floor_kw}")
    T = p.size
    err2 = (q - p[None, :]) ** 2
    sse = err2.sum(axis=1)

    def ratio(num, den):
        return float(np.mean(num / den)) if den > 0 else float("nan")

    lp = np.log(np.maximum(p, floor_kw))
    lq = np.log(np.maximum(q, floor_kw))
    lerr2 = ((lq - lp[None, :]) ** 2).sum(axis=1)
    lp_w = lp + np.log(1000.0)
    out = {
        "nmse_sum_p2": ratio(sse, float(np.sum(p**2))),
        "mse_over_sum_p2": ratio(sse / T, float(np.sum(p**2))),
        "nmse_mean2": ratio(sse / T, float(np.mean(p)) ** 2),
        "nmse_var": ratio(sse, float(np.sum((p - p.mean()) ** 2))),
        "mse_kw2": float(np.mean(sse / T)),
        "mse_w2": float(np.mean(sse / T)) * 1e6,
        "mse_mw2": float(np.mean(sse / T)) * 1e-6,
        "sse_kw2": float(np.mean(sse)),
        "mse_log": float(np.mean(lerr2 / T)),
        "nmse_log_kw": ratio(lerr2, float(np.sum(lp**2))),
        "nmse_log_w": ratio(lerr2, float(np.sum(lp_w**2))),
        "floored_truth": int(np.sum(p < floor_kw)),
    }
    return out
