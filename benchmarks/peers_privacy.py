"""delta(eps) side by side with what a user would otherwise call (issue 27, benchmarks/peers.md).

Three comparisons, each one run, CPU seconds (``time.process_time``, this process only):

1. the class mechanism's delta(eps) = Pr(L > eps) of one release pair (k = 24, classdp eq. 29) by dpgrid's exact
   evaluator (``delta_exact_with_error``, tol 1e-8) vs Monte Carlo of L with 10^6 draws. Monte Carlo's standard
   error there is ~5e-4; the time it would need for dpgrid's stated error is extrapolated (se ~ n^{-1/2}) in the note;
2. the same at equal accuracy 1e-3: dpgrid with tol = 1e-3 vs Monte Carlo with the draws whose standard error is
   at most 1e-3 (2.5e5);
3. the one-dimensional Gaussian mechanism's (hockey-stick) delta(eps) (sensitivity 1, sigma 1.5; Balle and Wang
   2018): dpgrid's ``hockey_stick_pair`` (k = 1) vs dp_accounting's privacy-loss distribution
   (``from_gaussian_mechanism``, its defaults: pessimistic, discretisation 1e-4, add-or-remove neighbours); agreement against the
   closed form ``Phi(D/(2 s) - eps s/D) - e^eps Phi(-D/(2 s) - eps s/D)``.

``measure()`` returns one dict per comparison (keys comparison, dpgrid, library, dpgrid_s, library_s, ratio
(library_s / dpgrid_s: > 1 means dpgrid is faster), agreement, note); ``python benchmarks/peers_privacy.py`` prints
the Markdown table. About 10-20 s of CPU.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dpgrid.privacy.gaussian_loss import (  # noqa: E402
    delta_exact_with_error,
    delta_monte_carlo,
    hockey_stick_pair,
    privacy_loss,
)

EPS = np.linspace(0.1, 3.0, 12)
SEED = 2027


def _class_pair(k: int = 24):
    """Two classes of a class-mechanism release: AR(1) covariances (rho 0.6 and 0.8) plus the same white noise,
    means 0.6 apart in the first coordinates (a forecast-like pair: k = 24 hourly values)."""
    lag = np.abs(np.subtract.outer(np.arange(k), np.arange(k)))
    cov_x = 0.6**lag + 0.5 * np.eye(k)
    cov_xp = 0.8**lag + 0.5 * np.eye(k)
    mu_xp = np.zeros(k)
    mu_xp[:6] = 0.6
    return np.zeros(k), cov_x, mu_xp, cov_xp


def _cpu(fn, repeat: int = 1):
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return out, best


def _class_vs_monte_carlo() -> list[dict]:
    loss = privacy_loss(*_class_pair())
    rows = []
    (exact, err, how), t_exact = _cpu(lambda: delta_exact_with_error(loss, EPS, tol=1e-8), repeat=3)
    n = 1_000_000
    (mc, _), t_mc = _cpu(lambda: delta_monte_carlo(loss, EPS, n, np.random.default_rng(SEED)))
    se = np.sqrt(np.maximum(mc * (1 - mc), 1.0 / n) / n)
    z = float(np.max(np.abs(exact - mc) / se))
    target = float(np.max(err))
    extrapolated = t_mc * (float(np.max(se)) / target) ** 2
    rows.append(
        {
            "comparison": f"class mechanism delta(eps), k = {loss.k}, {EPS.size} eps",
            "dpgrid": f"delta_exact ({how}), error <= {target:.1e}",
            "library": f"Monte Carlo, {n:.0e} draws (se <= {np.max(se):.1e})",
            "dpgrid_s": t_exact,
            "library_s": t_mc,
            "ratio": t_mc / t_exact,
            "agreement": f"max |exact - MC| = {z:.2f} se",
            "note": f"Monte Carlo would need ~{extrapolated:.1e} CPU s for dpgrid's error {target:.0e} (se ~ n^-1/2)",
        }
    )
    tol = 1e-3
    (exact3, err3, how3), t3 = _cpu(lambda: delta_exact_with_error(loss, EPS, tol=tol), repeat=3)
    n3 = int(math.ceil(0.25 / tol**2))
    (mc3, _), t_mc3 = _cpu(lambda: delta_monte_carlo(loss, EPS, n3, np.random.default_rng(SEED + 1)))
    se3 = np.sqrt(np.maximum(mc3 * (1 - mc3), 1.0 / n3) / n3)
    rows.append(
        {
            "comparison": f"class mechanism delta(eps) at equal accuracy {tol:g}",
            "dpgrid": f"delta_exact ({how3}), tol {tol:g} (error <= {np.max(err3):.1e})",
            "library": f"Monte Carlo, {n3:.1e} draws (se <= {tol:g})",
            "dpgrid_s": t3,
            "library_s": t_mc3,
            "ratio": t_mc3 / t3,
            "agreement": f"max |exact - MC| = {np.max(np.abs(exact3 - mc3)) / np.max(se3):.2f} se; exact at tol 1e-3 "
            f"vs 1e-8: {np.max(np.abs(exact3 - exact)):.1e}",
            "note": "Monte Carlo's error is statistical (1 se); the exact evaluator's is a bound",
        }
    )
    return rows


def _gaussian_vs_pld() -> dict:
    from dp_accounting.pld import privacy_loss_distribution
    from scipy import special

    sens, sigma = 1.0, 1.5
    (hs, _), t_dp = _cpu(
        lambda: hockey_stick_pair(np.zeros(1), np.array([[sigma**2]]), np.array([sens]), np.array([[sigma**2]]), EPS),
        repeat=3,
    )

    def pld_curve():
        pld = privacy_loss_distribution.from_gaussian_mechanism(standard_deviation=sigma, sensitivity=sens)
        return np.array([pld.get_delta_for_epsilon(float(e)) for e in EPS])

    lib, t_lib = _cpu(pld_curve, repeat=3)
    r = sens / sigma
    closed = special.ndtr(0.5 * r - EPS / r) - np.exp(EPS) * special.ndtr(-0.5 * r - EPS / r)
    return {
        "comparison": f"1-D Gaussian mechanism (D = {sens:g}, sigma = {sigma:g}) hockey-stick delta, {EPS.size} eps",
        "dpgrid": "hockey_stick_pair (two exact tails)",
        "library": "dp_accounting PLD from_gaussian_mechanism (pessimistic, 1e-4)",
        "dpgrid_s": t_dp,
        "library_s": t_lib,
        "ratio": t_lib / t_dp,
        "agreement": f"vs closed form: dpgrid {np.max(np.abs(hs - closed)):.1e}, PLD {np.max(np.abs(lib - closed)):.1e}",
        "note": "PLD's delta is a pessimistic (upper) estimate from its discretisation; dpgrid's is exact to 1e-8",
    }


def measure() -> list[dict]:
    return [*_class_vs_monte_carlo(), _gaussian_vs_pld()]


def markdown(rows: list[dict]) -> str:
    head = "| comparison | dpgrid | library | dpgrid CPU s | library CPU s | library/dpgrid | agreement | note |"
    lines = [head, "|" + "---|" * 8]
    for r in rows:
        lines.append(
            f"| {r['comparison']} | {r['dpgrid']} | {r['library']} | {r['dpgrid_s']:.3f} | {r['library_s']:.3f} | "
            f"{r['ratio']:.1f} | {r['agreement']} | {r['note']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(measure()))
