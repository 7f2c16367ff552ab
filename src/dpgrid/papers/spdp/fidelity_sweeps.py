"""The SpDP release of the spdp paper under construction choices, protected durations and data
(workflow/papers/spdp/spdp.md, "Fidelity"; Parker, Hale, Barooah, *Spectral Differential Privacy*, Algorithms 1-2, Sec.
IV-A). Every function returns plain rows (lists of dicts) so that a job can write them as a table:

- :func:`spdp_variant_rows`: the SpDP release (Algorithm 1 + 2) under the construction variants of
  :func:`spdp_params_variants`, averaged over mechanism seeds;
- :func:`duration_sweep_rows`: TrDP vs SpDP across protected durations, for several B readings;
- :func:`data_sweep_rows`: the SpDP release on stand-in series of other HVAC shares and heatings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from dpgrid.mechanisms.spectral import SpectralMechanismError, release_metrics
from dpgrid.mechanisms.spectral_adjacency import (
    b_spdp_reading,
    b_trdp_reading,
)
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.papers.spdp.pipeline import SpDPParams, run_spdp

RngFactory = Callable[..., np.random.Generator]


# --------------------------------------------------------------------------- SpDP construction sweep


def spdp_variant_rows(
    x,
    fs_per_hour: float,
    variants: dict[str, SpDPParams],
    b: float,
    eval_slice: slice,
    rng_for: RngFactory,
    n_seeds: int,
    tag: str = "",
) -> list[dict]:
    """Mean and s.d. over ``n_seeds`` mechanism/stream seeds of the SpDP release's Table II/III metrics.

    Also records how often Table I's reduction filter survived the adaptation (final cutoff and gain equal
    to the configured ones) and the number of bins where gamma had to be clipped or adapted.

    A variant whose release cannot be built on these data (:class:`SpectralMechanismError`, e.g. ``causal_p``
    at 30-minute steps: the privatised PSD is not strictly positive) gets a row with a ``failure`` column naming
    the seed and the reason and no metrics; the column exists only when some variant failed, so a sweep
    without failures writes the same table as before.
    """
    x = np.asarray(x, dtype=float)
    rows = []
    for vname, p in variants.items():
        vals = []
        failure = ""
        for s in range(n_seeds):
            try:
                run = run_spdp(x, fs_per_hour, p, b, rng_for(tag, vname, s, "psd"), rng_for(tag, vname, s, "stream"))
            except SpectralMechanismError as exc:
                # a construction the data do not admit (e.g. causal_p at 30-minute steps: the privatised PSD is
                # not strictly positive) is a row of the sweep, not the end of the paper's claims
                failure = f"seed {s}: {type(exc).__name__}: {exc}"
                break
            m = release_metrics(x[eval_slice], run.released[eval_slice])
            red = run.design.reduction
            kept = math.isclose(red.cutoff_per_hour, p.cutoff_hz * 3600.0) and math.isclose(red.gain, p.kf)
            vals.append(
                [
                    m["mean_kw"],
                    m["std_kw"],
                    m["noise_std_kw"],
                    m["correlation"],
                    m["snr_db_paper"],
                    red.cutoff_per_hour / 3600.0,
                    red.gain,
                    float(kept),
                    red.steps[0]["n_bins_not_positive"],
                    run.mechanism.marginal_std,
                ]
            )
        row = {"variant": vname, "tag": tag, "b_spdp": b, "n_seeds": n_seeds}
        if failure:
            rows.append({**row, "failure": failure})
            continue
        v = np.asarray(vals)
        keys = [
            "mean_kw",
            "std_kw",
            "noise_std_kw",
            "correlation",
            "snr_db_paper",
            "cutoff_hz",
            "gain_kf",
            "table1_filter_kept",
            "bins_gamma_not_positive_at_table1",
            "noise_marginal_std",
        ]
        for i, k in enumerate(keys):
            row[k] = float(v[:, i].mean())
            if k in ("std_kw", "noise_std_kw", "correlation"):
                row[f"{k}_sd"] = float(v[:, i].std(ddof=1)) if n_seeds > 1 else math.nan
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- duration sweep


def duration_sweep_rows(
    x,
    fs_per_hour: float,
    hours: Iterable[float],
    *,
    readings: Iterable[str],
    calibrations: Iterable[tuple[str, float]],
    eps: float,
    eval_slice: slice,
    rng_for: RngFactory,
) -> list[dict]:
    """TrDP added-noise std and correlation vs protected duration K, for each B reading and calibration.

    B(K) from the series under each reading of eq. (13); the release is the TrDP mechanism
    (:class:`~dpgrid.mechanisms.trajectory_gaussian.TrajectoryGaussianMechanism`, sigma by the named calibration)
    with the random stream ``rng_for("trdp", hours, reading, formula, delta)``.
    """
    x = np.asarray(x, dtype=float)
    rows = []
    for h in hours:
        k = round(h * fs_per_hour)
        if x.size // k < 2:
            continue
        for reading in readings:
            b = b_trdp_reading(x, k, reading)
            for name, delta in calibrations:
                mech = TrajectoryGaussianMechanism(b, eps, delta, calibration=name)
                xr = mech.release(x, rng_for("trdp", h, reading, name, delta))
                m = release_metrics(x[eval_slice], xr[eval_slice])
                rows.append(
                    {
                        "hours": float(h),
                        "reading": reading,
                        "calibration": f"{name}@{delta:g}",
                        "b": b,
                        "sigma": mech.sigma,
                        "noise_std_kw": m["noise_std_kw"],
                        "correlation": m["correlation"],
                    }
                )
    return rows


def spdp_params_variants(base: SpDPParams, names: Iterable[str]) -> dict[str, SpDPParams]:
    """Named construction variants around ``base`` for :func:`spdp_variant_rows`.

    Names: ``base``, ``one_sided``, ``marginal`` (Sigma = lambda_bar C_beta, not private), ``adapt``,
    ``clip`` (Table I's F kept), ``order2``, ``causal_p``, ``beta0`` (i.i.d. PSD noise), ``equicorrelated``,
    ``delta1e-3``, ``nfft288`` (N = 144: a 288-point FFT), and ``+``-joined combinations, e.g.
    ``one_sided+clip``.
    """
    edits = {
        "base": {},
        "one_sided": {"onesided": True},
        "two_sided": {"onesided": False},
        "marginal": {"noise_scaling": "marginal"},
        "adapt": {"gamma_handling": "adapt"},
        "clip": {"gamma_handling": "clip"},
        "order2": {"order": 2},
        "causal_p": {"positive_filter_mode": "causal"},
        "beta0": {"beta": 0.0},
        "equicorrelated": {"structure": "equicorrelated"},
        "delta1e-3": {"delta": 1e-3},
        "nfft288": {"n_points": 144},
    }
    out = {}
    for name in names:
        p = base
        for part in name.split("+"):
            if part not in edits:
                raise ValueError(f"unknown SpDP variant {part!r}; use one of {sorted(edits)}")
            p = replace(p, **edits[part])
        out[name] = p
    return out


def data_sweep_rows(
    make_series: Callable[[float, str], np.ndarray],
    fs_per_hour: float,
    params: SpDPParams,
    b: float,
    *,
    shares,
    heatings,
    eval_slice: slice,
    rng_for: RngFactory,
    n_seeds: int,
) -> list[dict]:
    """The stand-in's free properties (HVAC energy share, heating fuel) against the paper-B SpDP release and the
    data-derived B readings. ``make_series(share, heating)`` returns the stand-in series (or raises ValueError
    when the share cannot give the stated statistics: the row is then skipped)."""
    rows = []
    est = params.estimator(fs_per_hour)
    w = round(168 * fs_per_hour)
    for heating in heatings:
        for share in shares:
            try:
                x = make_series(float(share), heating)
            except ValueError as exc:
                rows.append(
                    {"heating": heating, "hvac_energy_share": float(share), "feasible": False, "note": str(exc)}
                )
                continue
            r = spdp_variant_rows(
                x, fs_per_hour, {"paper_b": params}, b, eval_slice, rng_for, n_seeds, tag=f"data/{heating}/{share:g}"
            )[0]
            if "failure" in r:
                rows.append(
                    {"heating": heating, "hvac_energy_share": float(share), "feasible": False, "note": r["failure"]}
                )
                continue
            row = {
                "heating": heating,
                "hvac_energy_share": float(share),
                "feasible": True,
                "note": "",
                "winter_std_kw": float(np.std(x[: 12 * w])) if x.size >= 12 * w else math.nan,
                **{
                    k: r[k]
                    for k in (
                        "std_kw",
                        "noise_std_kw",
                        "correlation",
                        "correlation_sd",
                        "snr_db_paper",
                        "bins_gamma_not_positive_at_table1",
                    )
                },
            }
            for name, k in (("4h", round(4 * fs_per_hour)), ("1week", w)):
                for reading in ("first_pair", "min_all_pairs", "max_all_pairs"):
                    row[f"b_trdp_{name}_{reading}"] = b_trdp_reading(x, k, reading)
            lengths = [wk * w for wk in range(7, 13)]
            for reading in ("nested", "sliding"):
                try:
                    row[f"b_spdp_{reading}"] = b_spdp_reading(x, est, lengths=lengths, step=w, reading=reading)
                except ValueError:
                    row[f"b_spdp_{reading}"] = math.nan
            rows.append(row)
    return rows
