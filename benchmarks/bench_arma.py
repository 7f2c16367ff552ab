"""ARMA(6,5) household fits of the classdp forecast setting: CPU time per fit, convergence and the
change of likelihood and forecast, former method (statsmodels state space, L-BFGS, 50 iterations)
vs the configured one (plain script; run from the repository root with PYTHONPATH=src).

The series are those of ``forecast_arma_job``: the default synthetic households of
``config/config.yaml`` (regenerated in memory from the configured seed), x = log p minus the weekly
seasonal mean (classdp eq. 61), the ``train_samples`` samples before the forecast origin; the
forecast distribution (eq. 57) conditions on the last ``conditioning_samples``. Time is process CPU
time per fit (the machine is shared; wall time is not comparable between runs).

    PYTHONPATH=src python benchmarks/bench_arma.py [--households N] [--out results.csv]

``--eval-only``: instead, the CPU time of one evaluation of the exact_ls objective's terms (PACF transform and
innovations) by the fast path of ``dpgrid.models.arma`` and by statsmodels' public calls it replicates (bit for
bit; checked here on every point), at random PACF points of the households' ARMA(6,5).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dpgrid.data.sources import load_experiment_data  # noqa: E402
from dpgrid.models.arma import fit_arma, forecast_distribution, seasonal_log_mean  # noqa: E402
from dpgrid.models.household_forecast import ARMA_FIT_KEYS  # noqa: E402
from dpgrid.seeds import job_rng  # noqa: E402

#: The former configuration (config.yaml before the exact_ls method): statsmodels ARIMA.fit, 50 L-BFGS iterations.
FORMER = {"method": "statespace", "maxiter": 50, "retry_maxiter": 0}


def household_series(cfg: dict):
    """Training and conditioning windows of every household, as forecast_arma_job builds them."""
    fc = cfg["classdp"]["forecast"]
    name = fc["data_source"]
    md = load_experiment_data(cfg["data"]["experiments"][name], job_rng(cfg["seed"], "data", name), name=name)
    wide = md.wide()
    spd = int(pd.Timedelta("1D") / md.step)
    log_p = np.log(np.maximum(wide.to_numpy(dtype=float), float(fc["log_floor_kw"])))
    n = log_p.shape[0]
    o = (n // spd - 1) * spd + round(fc["origin_hour"] * spd / 24)  # as _forecast_origin
    period = int(fc["seasonal_period_days"]) * spd
    mu = seasonal_log_mean(log_p[:o], period)
    x = log_p[:o] - mu[np.arange(o) % period]
    T, K = int(fc["train_samples"]), int(fc["conditioning_samples"])
    return [str(c) for c in wide.columns], x[o - T : o], x[o - K : o], int(fc["horizon"])


def run(cfg: dict, n_households: int | None):
    ac = cfg["classdp"]["forecast"]["arma"]
    new = {k: ac[k] for k in ARMA_FIT_KEYS if k != "nonconverged_rule"}  # the pipeline's fit settings
    common = {"nonconverged_rule": ac["nonconverged_rule"], "fallback_order": tuple(ac["fallback_order"])}
    ids, train, cond, H = household_series(cfg)
    m = len(ids) if n_households is None else min(n_households, len(ids))
    rows = []
    for j in range(m):
        row = {"meter_id": ids[j]}
        fc_ = {}
        for label, kw in (("former", FORMER), ("new", new)):
            t0 = time.process_time()
            fit = fit_arma(train[:, j], tuple(ac["order"]), name=ids[j], **common, **kw)
            row[f"cpu_s_{label}"] = time.process_time() - t0
            row[f"status_{label}"], row[f"llf_{label}"] = fit.status, fit.llf
            row[f"converged_{label}"], row[f"iterations_{label}"] = fit.converged, fit.iterations
            fc_[label] = forecast_distribution(fit, cond[:, j], H) if fit.usable else None
        if fc_["former"] is not None and fc_["new"] is not None:
            (m0, c0), (m1, c1) = fc_["former"], fc_["new"]
            row["mean_change_max"] = float(np.max(np.abs(m1 - m0)))
            row["mean_change_over_sd"] = float(np.max(np.abs(m1 - m0) / np.sqrt(np.diag(c0))))
            row["cov_change_rel"] = float(np.linalg.norm(c1 - c0) / np.linalg.norm(c0))
        rows.append(row)
        print(
            f"{ids[j]}: former {row['cpu_s_former']:.2f} s {row['status_former']}, "
            f"new {row['cpu_s_new']:.2f} s {row['status_new']}, llf {row['llf_new'] - row['llf_former']:+.3f}",
            flush=True,
        )
    return pd.DataFrame(rows)


def eval_timing(cfg: dict, n_households: int | None, points: int = 200) -> None:
    """CPU time per objective evaluation: fast path vs statsmodels' transform_params + arma_innovations."""
    from statsmodels.tsa.arima.model import ARIMA
    from statsmodels.tsa.innovations.arma_innovations import arma_innovations

    from dpgrid.models.arma import _arma_innovations_unit, _pacf_to_params

    ac = cfg["classdp"]["forecast"]["arma"]
    p, q = ac["order"]
    rho = 1.0 + float(ac["root_margin"])
    shrink = np.r_[rho ** -np.arange(1.0, p + 1), rho ** -np.arange(1.0, q + 1)]
    ids, train, _, _ = household_series(cfg)
    m = len(ids) if n_households is None else min(n_households, len(ids))
    rng = np.random.default_rng(0)
    t_ref = t_fast = 0.0
    for j in range(m):
        y = np.ascontiguousarray(train[:, j])
        model = ARIMA(y, order=(p, 0, q), trend="n", concentrate_scale=True)
        rs = rng.uniform(-1.0, 1.0, (points, p + q)) * float(ac["pacf_bound"])
        t0 = time.process_time()
        ref = []
        for r in rs:
            c = np.asarray(model.transform_params(r / np.sqrt(1.0 - r * r)), dtype=float) * shrink
            ref.append(arma_innovations(y, ar_params=c[:p], ma_params=c[p:], sigma2=1.0))
        t1 = time.process_time()
        fast = []
        for r in rs:
            c = _pacf_to_params(r, p, shrink)
            fast.append(_arma_innovations_unit(y, c[:p], c[p:]))
        t2 = time.process_time()
        t_ref, t_fast = t_ref + t1 - t0, t_fast + t2 - t1
        for (e0, v0), (e1, v1) in zip(ref, fast):
            if np.asarray(e0).tobytes() != e1.tobytes() or np.asarray(v0).tobytes() != v1.tobytes():
                raise AssertionError(f"{ids[j]}: fast path differs from statsmodels")
    n = m * points
    print(
        f"{n} evaluations ({m} households x {points} PACF points), identical: statsmodels calls "
        f"{1e6 * t_ref / n:.0f} us, fast path {1e6 * t_fast / n:.0f} us per evaluation ({t_ref / t_fast:.2f}x)"
    )


def summary(df: pd.DataFrame) -> None:
    q = [0.0, 0.1, 0.5, 0.9, 1.0]
    print(f"\n{len(df)} households")
    for label in ("former", "new"):
        t = df[f"cpu_s_{label}"]
        print(
            f"{label:6s}: CPU per fit mean {t.mean():.3f} s, median {t.median():.3f} s, p90 {t.quantile(0.9):.3f} s, "
            f"max {t.max():.3f} s, total {t.sum():.1f} s; converged {int(df[f'converged_{label}'].sum())}; "
            f"status {df[f'status_{label}'].value_counts().to_dict()}"
        )
    d = df["llf_new"] - df["llf_former"]
    print(
        f"llf new - former: quantiles {np.round(d.quantile(q).to_numpy(), 3).tolist()}, "
        f"worse (< -1e-6): {int((d < -1e-6).sum())}"
    )
    for col in ("mean_change_max", "mean_change_over_sd", "cov_change_rel"):
        if col in df:
            print(f"{col}: quantiles {np.round(df[col].quantile(q).to_numpy(), 4).tolist()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--households", type=int, default=None, help="only the first N households")
    ap.add_argument("--out", default=None, help="write the per-household table (CSV) here")
    ap.add_argument("--eval-only", action="store_true", help="time one objective evaluation (fast path vs statsmodels)")
    args = ap.parse_args()
    cfg = yaml.safe_load(Path(args.config).read_text())
    if args.eval_only:
        eval_timing(cfg, args.households)
        return
    df = run(cfg, args.households)
    summary(df)
    if args.out:
        df.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
