"""Side by side (issue 27): dpgrid's exact delta(eps) vs what a user would otherwise compute (for bench_peers.py).

1. **Class mechanism vs Monte Carlo, at equal accuracy.** For a pair of neighbouring labels released as
   ``N(mu_X, Sigma_X)`` and ``N(mu_X', Sigma_X')`` (classdp Sec. IV), dpgrid evaluates the PDP delta
   ``Pr_X(L > eps)`` (Definition 1 after eq. 7) by inverting the characteristic function of Proposition 1's
   generalised chi-square (:func:`dpgrid.privacy.gaussian_loss.delta_exact_with_error`, error estimate <= tol)
   and the hockey-stick delta ``E_X[(1 - e^{eps - L})_+]`` of the same release
   (:func:`dpgrid.privacy.gaussian_loss.hockey_stick_pair`). The user's alternative is Monte Carlo: draw
   ``q ~ N(mu_X, Sigma_X)``, evaluate ``L = ln f_X(q) - ln f_X'(q)`` with scipy's ``multivariate_normal.logpdf``
   and average ``1{L > eps}`` and ``(1 - e^{eps - L})_+`` over the draws (every eps from the same draws).
   Equal accuracy: the sample count n is chosen so that the 95 % CI half-width
   ``1.96 sqrt(p (1 - p) / n)`` of the PDP estimate at the worst eps of the curve equals the target. Two targets:
   ``HALF_WIDTH_RUN`` (1e-3), where both sides are run, and the pipeline's ``classdp.delta_tolerance`` (1e-8, the
   error dpgrid's evaluator guarantees), where Monte Carlo would need ~1e10 times more draws: its time there is
   extrapolated from its measured CPU time per draw (variance known, so n is exact; the time is linear in n).

   Pairs: the worst edge (largest eq. 41 surrogate, the edge that decides delta) of the proposed mechanism's
   release at rho = 1 in the synthetic (Sec. VI-A, k = 2) and forecast (Sec. VI-B, k = 12 = the horizon)
   settings of a finished run (``results/classdp/{setting}/model.npz`` and ``mechanisms_rho1.npz`` of this
   checkout or of ``DPGRID_RUN_DIR``; skipped if absent), and forecast-shaped pairs generated here at longer
   horizons (:func:`forecast_shaped_pair`, k = 24, 96). Without a run, generated pairs of both shapes stand in
   (:func:`synthetic_shaped_pair`, k = 2; forecast-shaped, k = 12).

2. **One-dimensional Gaussian mechanism vs dp_accounting's PLD.** The hockey-stick curve delta(eps) of
   ``N(0, sigma^2)`` vs ``N(Delta, sigma^2)`` from dpgrid's closed form (Balle and Wang 2018, Thm. 8,
   :func:`dpgrid.privacy.gaussian.hockey_stick_delta`) and from the class-mechanism code with k = 1
   (:func:`dpgrid.privacy.gaussian_loss.hockey_stick_pair`), against Google's ``dp_accounting``
   privacy-loss distribution (``dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism``, its defaults:
   pessimistic, connect-the-dots, value discretisation 1e-4) built and queried for the whole curve.

Times are CPU seconds (``time.process_time``, one BLAS thread: bench_peers.py sets it), mean over repeats of at
least ``MIN_CPU_S``; the note gives wall seconds too. Every random draw comes from a seeded numpy Generator.

    PYTHONPATH=src python benchmarks/peers_privacy.py
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("comparison", "dpgrid", "library", "dpgrid_s", "library_s", "ratio", "agreement", "note")
#: two-sided 95 % normal quantile
Z95 = 1.959963984540054
#: 95 % CI half-width at which both dpgrid and Monte Carlo are run
HALF_WIDTH_RUN = 1e-3
#: forecast-shaped pairs generated at these horizons (the pipeline's own horizon, 12, comes from the run)
GENERATED_K = (24, 96)
#: repeat a dpgrid evaluation until this much CPU time is spent (the per-call mean is reported)
MIN_CPU_S = 0.3
#: Monte Carlo draws per batch
BATCH = 100_000
#: 1-D Gaussian mechanism: whitened sensitivities Delta / sigma compared with the PLD
SENSITIVITIES_1D = (0.5, 1.0, 2.0)
EPS_1D = np.round(np.linspace(0.0, 4.0, 81), 12)


@dataclass(frozen=True)
class Pair:
    """A directed label pair (X, X') of a Gaussian release and the eps grid of its delta curve."""

    name: str
    mu_x: np.ndarray
    cov_x: np.ndarray
    mu_xp: np.ndarray
    cov_xp: np.ndarray
    eps: np.ndarray

    @property
    def k(self) -> int:
        return self.mu_x.size


def _config() -> dict:
    import yaml

    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["classdp"]


def _grid(spec: dict) -> np.ndarray:
    return np.round(np.linspace(spec["start"], spec["stop"], int(spec["num"])), 12)


def _timed(fn, min_cpu: float = MIN_CPU_S):
    """(result, CPU s per call, wall s per call), repeating ``fn`` until ``min_cpu`` CPU seconds are spent."""
    n, c0, w0 = 0, time.process_time(), time.perf_counter()
    while True:
        out = fn()
        n += 1
        if time.process_time() - c0 >= min_cpu or n >= 100:
            return out, (time.process_time() - c0) / n, (time.perf_counter() - w0) / n


# ------------------------------------------------------------------------------------------------
# pairs


def run_pairs(run_dir: Path, cfg: dict, rho: str = "1") -> list[Pair]:
    """The worst edge (largest surrogate, eq. 41) of the proposed mechanism's release at ``rho`` per classdp setting
    of a finished run; settings whose files are absent are left out."""
    from dpgrid.mechanisms.gaussian_class import load_class_model
    from dpgrid.privacy.gaussian_loss import privacy_loss

    out = []
    for setting in ("synthetic", "forecast"):
        base = run_dir / "results" / "classdp" / setting
        if not (base / "model.npz").exists() or not (base / f"mechanisms_rho{rho}.npz").exists():
            continue
        model = load_class_model(base / "model.npz")
        with np.load(base / f"mechanisms_rho{rho}.npz") as z:
            covs = model.covs + z["proposed"]
        i, j = max(
            model.edges.tolist(),
            key=lambda e: privacy_loss(model.means[e[0]], covs[e[0]], model.means[e[1]], covs[e[1]]).surrogate,
        )
        name = f"{setting} worst edge {model.label(i)}->{model.label(j)}, rho={rho}"
        out.append(Pair(name, model.means[i], covs[i], model.means[j], covs[j], _grid(cfg[setting]["epsilon_grid"])))
    return out


def synthetic_shaped_pair(rng: np.random.Generator, eps: np.ndarray, *, rho: float = 1.0) -> Pair:
    """Two neighbouring labels of the classdp synthetic setting's shape (Sec. VI-A, k = 2): means 1 apart on the
    diagonal, covariances Wishart(I, 2), released with white noise of trace ``rho`` (used when no run is at hand)."""
    from scipy import stats

    k = 2
    covs = [stats.wishart(df=k, scale=np.eye(k)).rvs(random_state=rng) + rho / k * np.eye(k) for _ in range(2)]
    mu_xp = np.ones(k) / math.sqrt(k)
    return Pair("synthetic-shaped pair (generated)", np.zeros(k), covs[0], mu_xp, covs[1], eps)


def forecast_shaped_pair(k: int, rng: np.random.Generator, eps: np.ndarray, *, rho: float = 1.0) -> Pair:
    """Two neighbouring labels shaped like the classdp forecast setting (Sec. V, eqs. 55-60) at horizon ``k``.

    Each label's query is a k-step forecast of a log load with the forecast-error covariance of an ARMA(1, 1)
    model, ``s2 Psi Psi^T`` (Psi lower-triangular Toeplitz of the psi weights ``1, (phi + theta) phi^{h-1}``); the
    two households are similar (phi, theta, s2 within a few per cent), their forecasts decay from different
    levels to a common mean, and the mean difference is scaled to whitened length 1 (the pipeline's worst
    forecast edge has D ~ 1). Released with white noise of trace ``rho`` (the white mechanism, trace rule total).
    """
    phi, theta, s2 = rng.uniform(0.6, 0.9), rng.uniform(0.0, 0.4), rng.uniform(0.05, 0.2)
    h = np.arange(k)
    covs, means = [], []
    for f in (1.0, 1.0 + 0.03 * rng.standard_normal(3)):
        p, t, s = (phi, theta, s2) * np.broadcast_to(f, 3)
        psi = np.concatenate([[1.0], (p + t) * p ** np.arange(k - 1)])
        toeplitz = np.array([[psi[r - c] if r >= c else 0.0 for c in range(k)] for r in range(k)])
        covs.append(s * toeplitz @ toeplitz.T + rho / k * np.eye(k))
        means.append(rng.normal(0.0, 0.3) * p**h)
    v = means[1] - means[0]
    white = np.linalg.solve(np.linalg.cholesky(covs[0]), v)
    mu_xp = v / np.linalg.norm(white)
    return Pair("forecast-shaped pair (generated)", np.zeros(k), covs[0], mu_xp, covs[1], eps)


# ------------------------------------------------------------------------------------------------
# the two sides


def exact_curves(pair: Pair, tol: float) -> dict:
    """dpgrid: PDP delta with its per-eps error estimate, and the hockey-stick delta (both to ``tol``)."""
    from dpgrid.privacy.gaussian_loss import delta_exact_with_error, hockey_stick_pair, privacy_loss

    def pdp():
        return delta_exact_with_error(privacy_loss(pair.mu_x, pair.cov_x, pair.mu_xp, pair.cov_xp), pair.eps, tol=tol)

    (delta, err, method), cpu, wall = _timed(pdp)
    (hs, _), hs_cpu, hs_wall = _timed(
        lambda: hockey_stick_pair(pair.mu_x, pair.cov_x, pair.mu_xp, pair.cov_xp, pair.eps, tol=tol)
    )
    return dict(pdp=delta, err=err, method=method, hs=hs, cpu=cpu, wall=wall, hs_cpu=hs_cpu, hs_wall=hs_wall)


def monte_carlo_curves(pair: Pair, n: int, rng: np.random.Generator, batch: int = BATCH) -> dict:
    """The user's Monte Carlo: n draws q ~ N(mu_X, Sigma_X), L from scipy's log-densities, both deltas per eps.

    Returns the estimates, their 95 % CI half-widths (PDP: binomial ``p (1 - p)`` from the estimate; hockey stick:
    the sample variance), and CPU / wall seconds.
    """
    from scipy import linalg, stats

    c0, w0 = time.process_time(), time.perf_counter()
    f_x = stats.multivariate_normal(pair.mu_x, pair.cov_x)
    f_xp = stats.multivariate_normal(pair.mu_xp, pair.cov_xp)
    root = linalg.cholesky(pair.cov_x, lower=True)
    count = np.zeros(pair.eps.size)
    s1 = np.zeros(pair.eps.size)
    s2 = np.zeros(pair.eps.size)
    done = 0
    while done < n:
        m = min(batch, n - done)
        q = pair.mu_x + rng.standard_normal((m, pair.k)) @ root.T
        loss = np.atleast_1d(f_x.logpdf(q) - f_xp.logpdf(q))
        count += np.sum(loss[:, None] > pair.eps[None, :], axis=0)
        hs = np.maximum(0.0, -np.expm1(pair.eps[None, :] - loss[:, None]))
        s1 += hs.sum(axis=0)
        s2 += (hs * hs).sum(axis=0)
        done += m
    pdp, hs_mean = count / n, s1 / n
    hs_var = np.maximum(s2 / n - hs_mean**2, 0.0) * n / max(n - 1, 1)
    return dict(
        pdp=pdp,
        pdp_half=Z95 * np.sqrt(pdp * (1.0 - pdp) / n),
        hs=hs_mean,
        hs_half=Z95 * np.sqrt(hs_var / n),
        cpu=time.process_time() - c0,
        wall=time.perf_counter() - w0,
        n=n,
    )


def deviations(mc: dict, exact: dict) -> dict:
    """Largest |Monte Carlo - exact| over eps, absolute and in units of the 95 % CI half-width (PDP: from the exact
    p, so an eps where p is 0 or 1 does not divide by zero; hockey stick: from the sample variance)."""
    n = mc["n"]
    pdp_half = Z95 * np.sqrt(exact["pdp"] * (1.0 - exact["pdp"]) / n)
    # where no draw reached the hockey stick's support its sample variance is 0: bound it by hs (1 - hs), the
    # largest variance of a [0, 1] variable with mean hs
    hs_half = np.where(
        mc["hs_half"] > 0, mc["hs_half"], Z95 * np.sqrt(np.clip(exact["hs"] * (1.0 - exact["hs"]), 0.0, None) / n)
    )
    d_pdp, d_hs = np.abs(mc["pdp"] - exact["pdp"]), np.abs(mc["hs"] - exact["hs"])
    with np.errstate(divide="ignore", invalid="ignore"):
        z_pdp = np.where(d_pdp > 0, d_pdp / pdp_half, 0.0)
        z_hs = np.where(d_hs > 0, d_hs / hs_half, 0.0)
    return dict(pdp=float(np.max(z_pdp)), hs=float(np.max(z_hs)), pdp_abs=float(d_pdp.max()), hs_abs=float(d_hs.max()))


def draws_for_half_width(p: np.ndarray, half_width: float) -> int:
    """Draws n with 95 % CI half-width ``1.96 sqrt(p (1 - p) / n)`` <= ``half_width`` at every entry of ``p``."""
    var = float(np.max(np.asarray(p) * (1.0 - np.asarray(p))))
    return max(1, math.ceil(var * (Z95 / half_width) ** 2))


def compare_pair(pair: Pair, tol: float, rng: np.random.Generator, half_width: float = HALF_WIDTH_RUN) -> list[dict]:
    """Two rows: both sides run at ``half_width``, and at ``tol`` (dpgrid run, Monte Carlo extrapolated)."""
    loose = exact_curves(pair, half_width)
    tight = exact_curves(pair, tol)
    n = draws_for_half_width(tight["pdp"], half_width)
    mc = monte_carlo_curves(pair, n, rng)
    dev = deviations(mc, tight)
    n_tol = draws_for_half_width(tight["pdp"], tol)
    per_draw = mc["cpu"] / n
    mc_tol_cpu = per_draw * n_tol
    # the half-width at which Monte Carlo would cost what dpgrid's tol-accurate curve costs
    var = float(np.max(tight["pdp"] * (1.0 - tight["pdp"])))
    break_even = Z95 * math.sqrt(var * per_draw / tight["cpu"])
    n_eps = pair.eps.size
    head = f"PDP delta(eps), {n_eps} eps in [{pair.eps[0]:g}, {pair.eps[-1]:g}], {pair.name}, k={pair.k}"
    lib = "Monte Carlo: numpy draws, scipy multivariate_normal.logpdf"
    return [
        {
            "comparison": f"{head}; equal accuracy: 95% half-width {half_width:g} (both run)",
            "dpgrid": f"delta_exact_with_error tol={half_width:g} ({loose['method']})",
            "library": f"{lib}, n={n:,} draws",
            "dpgrid_s": loose["cpu"],
            "library_s": mc["cpu"],
            "ratio": loose["cpu"] / mc["cpu"],
            "agreement": f"max over eps of |MC - exact (tol {tol:g})| in MC 95% half-widths: PDP "
            f"{dev['pdp']:.2f}, hockey stick {dev['hs']:.2f} (max |diff| {dev['pdp_abs']:.2g}, {dev['hs_abs']:.2g}); "
            f"max |tol {half_width:g} - tol {tol:g}| {np.max(np.abs(loose['pdp'] - tight['pdp'])):.2g}",
            "note": f"CPU s; wall s: dpgrid {loose['wall']:.3g}, MC {mc['wall']:.3g}; n from the exact p(1-p) at the "
            "worst eps; the MC draws also give the hockey stick (dpgrid: two tails, see the next row); the eps share "
            f"the draws, so their deviations are correlated; MC costs what dpgrid's {tol:g} curve costs at a 95% "
            f"half-width of {break_even:.2g}",
        },
        {
            "comparison": f"{head}; equal accuracy: {tol:g} (classdp.delta_tolerance; MC extrapolated)",
            "dpgrid": f"delta_exact_with_error tol={tol:g} ({tight['method']})",
            "library": f"{lib}, n={n_tol:.2e} draws (extrapolated)",
            "dpgrid_s": tight["cpu"],
            "library_s": mc_tol_cpu,
            "ratio": tight["cpu"] / mc_tol_cpu,
            "agreement": f"exact values as in the row above; dpgrid's error estimate {float(np.max(tight['err'])):.2g}",
            "note": f"MC at 95% half-width {tol:g} infeasible: n = 1.96^2 max p(1-p) / tol^2 = {n_tol:.2e} draws, CPU "
            f"extrapolated linearly from the measured {mc['cpu'] / n * 1e6:.3g} us per draw ({mc_tol_cpu / 3.15e7:.2g} "
            f"CPU years); dpgrid wall s {tight['wall']:.3g}; hockey stick (two tails) CPU s {tight['hs_cpu']:.3g}",
        },
    ]


# ------------------------------------------------------------------------------------------------
# one-dimensional Gaussian mechanism vs dp_accounting's PLD


def pld_curve(sensitivity: float, sigma: float, eps: np.ndarray, interval: float = 1e-4) -> np.ndarray:
    """dp_accounting's PLD of the Gaussian mechanism (its defaults but ``value_discretization_interval``), queried
    at every eps: an upper bound on the hockey-stick curve (pessimistic estimate)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    dist = pld.from_gaussian_mechanism(
        standard_deviation=sigma, sensitivity=sensitivity, value_discretization_interval=interval
    )
    return np.asarray(dist.get_delta_for_epsilon(eps), dtype=float)


def class_code_curve(sensitivity: float, sigma: float, eps: np.ndarray, tol: float) -> np.ndarray:
    """The hockey-stick curve by the class-mechanism code with k = 1: N(0, sigma^2) vs N(Delta, sigma^2)."""
    from dpgrid.privacy.gaussian_loss import hockey_stick_pair

    cov = np.array([[sigma * sigma]])
    return hockey_stick_pair(np.zeros(1), cov, np.array([sensitivity]), cov, eps, tol=tol)[0]


def gaussian_1d_rows(tol: float, sigma: float = 1.0) -> list[dict]:
    import dp_accounting

    from dpgrid.privacy.gaussian import hockey_stick_delta

    version = getattr(dp_accounting, "__version__", None)
    if version is None:
        from importlib.metadata import version as _v

        version = _v("dp-accounting")
    rows = []
    for d in SENSITIVITIES_1D:
        delta = d * sigma
        closed, c_cpu, c_wall = _timed(lambda: hockey_stick_delta(EPS_1D, d))  # noqa: B023
        klass, k_cpu, k_wall = _timed(lambda: class_code_curve(delta, sigma, EPS_1D, tol))  # noqa: B023
        pld, p_cpu, p_wall = _timed(lambda: pld_curve(delta, sigma, EPS_1D), min_cpu=0.0)  # noqa: B023
        coarse, q_cpu, _ = _timed(lambda: pld_curve(delta, sigma, EPS_1D, 1e-3), min_cpu=0.0)  # noqa: B023
        head = f"1-D Gaussian mechanism, hockey-stick delta(eps), {EPS_1D.size} eps in [0, {EPS_1D[-1]:g}], Delta/sigma={d:g}"
        lib = (
            f"dp_accounting {version} PLD from_gaussian_mechanism (pessimistic, connect-the-dots, discretisation 1e-4)"
        )
        pld_note = (
            f"CPU s per curve (PLD: build + query); wall s: PLD {p_wall:.3g}, closed form {c_wall:.2g}, class code "
            f"{k_wall:.3g}; PLD at discretisation 1e-3: {q_cpu:.3g} CPU s, max |PLD - closed form| "
            f"{np.max(np.abs(coarse - closed)):.2g}"
        )
        for name, ours, cpu, note in (
            ("closed form hockey_stick_delta (Balle-Wang Thm. 8)", closed, c_cpu, ""),
            (
                f"class-mechanism code, k=1: hockey_stick_pair (two delta_exact tails, tol {tol:g})",
                klass,
                k_cpu,
                f"; max |class code - closed form| {np.max(np.abs(klass - closed)):.2g}",
            ),
        ):
            rows.append(
                {
                    "comparison": head,
                    "dpgrid": name,
                    "library": lib,
                    "dpgrid_s": cpu,
                    "library_s": p_cpu,
                    "ratio": cpu / p_cpu,
                    "agreement": f"max |PLD - dpgrid| {np.max(np.abs(pld - ours)):.2g} (PLD - dpgrid in "
                    f"[{np.min(pld - ours):.2g}, {np.max(pld - ours):.2g}]){note}",
                    "note": pld_note,
                }
            )
    return rows


def measure() -> list[dict]:
    cfg = _config()
    tol = float(cfg["delta_tolerance"])
    run = Path(os.environ.get("DPGRID_RUN_DIR", ROOT))
    rng = np.random.default_rng(27)
    pairs = run_pairs(run, cfg)
    forecast_eps = _grid(cfg["forecast"]["epsilon_grid"])
    if not any(p.name.startswith("synthetic") for p in pairs):  # no finished run: the settings' shapes, generated
        pairs.insert(0, synthetic_shaped_pair(np.random.default_rng(2), _grid(cfg["synthetic"]["epsilon_grid"])))
    generated = GENERATED_K if any(p.name.startswith("forecast") for p in pairs) else (12, *GENERATED_K)
    pairs += [forecast_shaped_pair(k, np.random.default_rng(k), forecast_eps) for k in generated]
    rows = [row for pair in pairs for row in compare_pair(pair, tol, rng)]
    try:
        rows += gaussian_1d_rows(tol)
    except ImportError as exc:  # the MC comparison stands on its own
        rows.append(dict.fromkeys(KEYS, "-") | {"comparison": "1-D Gaussian vs dp_accounting PLD", "note": str(exc)})
    return rows


if __name__ == "__main__":
    for row in measure():
        print(row)
