"""ARMA(6,5) household fits of the classdp forecast setting: CPU time per fit, convergence and the
change of likelihood and forecast, the fit code of a git revision (``--before``, default 82ebeed: exact_ls with
finite-difference Jacobians through statsmodels' innovations recursion, css start only) vs the current one
(plain script; run from the repository root with PYTHONPATH=src).

The series are those of ``forecast_arma_job``: the default synthetic households of
``config/config.yaml`` (regenerated in memory from the configured seed), x = log p minus the weekly
seasonal mean (classdp eq. 61), the ``train_samples`` samples before the forecast origin; the
forecast distribution (eq. 57) conditions on the last ``conditioning_samples``. Time is process CPU
time per fit, the two fits of a household run back to back (the machine is shared; wall time is not
comparable between runs). Log-likelihoods are the exact ones (innovations algorithm) for both.

    PYTHONPATH=src python benchmarks/bench_arma.py [--households N] [--before REV] [--out results.csv]

``--eval-only``: instead, the CPU time of one evaluation of the exact_ls residuals by the compiled kernel of
``dpgrid.models.arma``, alone and as one batch of 1 + p + q points (a forward-difference Jacobian), against
statsmodels' public calls (``transform_params`` + ``arma_innovations``; agreement checked on every point).
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

from dpgrid.core.seeds import job_rng  # noqa: E402
from dpgrid.data.sources import load_experiment_data  # noqa: E402
from dpgrid.models.arma import forecast_distribution, seasonal_log_mean  # noqa: E402
from dpgrid.models.arma_fit import fit_arma  # noqa: E402
from dpgrid.papers.classdp.household_forecast import ARMA_FIT_KEYS  # noqa: E402


def module_at(rev: str):
    """The ARMA fit code as it was at git revision ``rev``: ``dpgrid.models.arma_fit`` where it exists (its import of
    the model and likelihood, ``dpgrid.models.arma``, resolves to the working tree), else the self-contained
    ``dpgrid.models.arma`` of the revisions before the split (numpy, scipy, statsmodels)."""
    import importlib.util
    import subprocess
    import tempfile

    for name in ("arma_fit", "arma"):
        shown = subprocess.run(
            ["git", "show", f"{rev}:src/dpgrid/models/{name}.py"], cwd=ROOT, capture_output=True, text=True
        )
        if shown.returncode == 0:
            break
    shown.check_returncode()
    src = shown.stdout
    path = Path(tempfile.mkdtemp(prefix="bench_arma_")) / f"arma_{rev}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"arma_{rev}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def household_series(cfg: dict, similarity: float | None = None):
    """Training and conditioning windows of every household, as forecast_arma_job builds them; with
    ``similarity``, those of that point of the within-cluster-similarity sweep (the stand-in's data with the
    similarity replaced, as ``similarity_sweep_data_job`` makes them)."""
    fc = cfg["classdp"]["forecast"]
    name = fc["data_source"]
    spec = cfg["data"]["experiments"][name]
    kw = {}
    if similarity is not None:
        from dpgrid.papers.classdp import standin

        spec, kw = dict(spec, within_cluster_similarity=float(similarity)), {"module": standin}
    md = load_experiment_data(spec, job_rng(cfg["seed"], "data", name), name=name, **kw)
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


def run(cfg: dict, n_households: int | None, before: str):
    from statsmodels.tsa.innovations.arma_innovations import arma_loglike

    ac = cfg["classdp"]["forecast"]["arma"]
    new = {k: ac[k] for k in ARMA_FIT_KEYS if k in ac}  # the pipeline's fit settings
    new["fallback_order"] = tuple(ac["fallback_order"])
    old = dict(new, start=new["start"][0] if isinstance(new["start"], list) else new["start"])
    old_fit = module_at(before).fit_arma
    ids, train, cond, H = household_series(cfg)
    m = len(ids) if n_households is None else min(n_households, len(ids))
    fit_arma(train[:200, 0], (1, 1))  # compiled kernel loaded (numba cache) before timing
    rows = []
    for j in range(m):
        row = {"meter_id": ids[j]}
        fc_ = {}
        for label, fn, kw in (("before", old_fit, old), ("new", fit_arma, new)):
            t0 = time.process_time()
            fit = fn(train[:, j], tuple(ac["order"]), name=ids[j], **kw)
            row[f"cpu_s_{label}"] = time.process_time() - t0
            row[f"status_{label}"], row[f"converged_{label}"] = fit.status, fit.converged
            row[f"llf_{label}"] = arma_loglike(train[:, j], ar_params=fit.ar, ma_params=fit.ma, sigma2=fit.sigma2)
            row[f"iterations_{label}"] = fit.iterations
            fc_[label] = forecast_distribution(fit, cond[:, j], H) if fit.usable else None
            if label == "new":
                for s_, v in getattr(fit, "start_llfs", {}).items():
                    row[f"start_llf_{s_}"] = v
        if fc_["before"] is not None and fc_["new"] is not None:
            (m0, c0), (m1, c1) = fc_["before"], fc_["new"]
            row["mean_change_max"] = float(np.max(np.abs(m1 - m0)))
            row["mean_change_over_sd"] = float(np.max(np.abs(m1 - m0) / np.sqrt(np.diag(c0))))
            row["cov_change_rel"] = float(np.linalg.norm(c1 - c0) / np.linalg.norm(c0))
        rows.append(row)
        print(
            f"{ids[j]}: before {row['cpu_s_before']:.2f} s {row['status_before']}, "
            f"new {row['cpu_s_new']:.2f} s {row['status_new']}, llf {row['llf_new'] - row['llf_before']:+.4f}",
            flush=True,
        )
    return pd.DataFrame(rows)


def eval_timing(cfg: dict, n_households: int | None, points: int = 200) -> None:
    """CPU time per evaluation of the exact_ls residuals: compiled kernel (alone, and in batches of 1 + p + q
    points as the Jacobian evaluates them) vs statsmodels' transform_params + arma_innovations."""
    from statsmodels.tsa.arima.model import ARIMA
    from statsmodels.tsa.innovations.arma_innovations import arma_innovations

    from dpgrid.models.arma import _exact_residuals

    ac = cfg["classdp"]["forecast"]["arma"]
    p, q = ac["order"]
    rho = 1.0 + float(ac["root_margin"])
    shrink = np.r_[rho ** -np.arange(1.0, p + 1), rho ** -np.arange(1.0, q + 1)]
    ids, train, _, _ = household_series(cfg)
    m = len(ids) if n_households is None else min(n_households, len(ids))
    rng = np.random.default_rng(0)
    t_ref = t_one = t_batch = 0.0
    worst = 0.0
    _exact_residuals(train[:, 0].copy(), np.zeros((1, p + q)), p, shrink, np.empty((1, train.shape[0])))
    for j in range(m):
        y = np.ascontiguousarray(train[:, j])
        model = ARIMA(y, order=(p, 0, q), trend="n", concentrate_scale=True)
        rs = rng.uniform(-1.0, 1.0, (points, p + q)) * 0.9
        t0 = time.process_time()
        ref = []
        for r in rs:
            c = np.asarray(model.transform_params(r / np.sqrt(1.0 - r * r)), dtype=float) * shrink
            e, v = arma_innovations(y, ar_params=c[:p], ma_params=c[p:], sigma2=1.0)
            ref.append(e / np.sqrt(v) * np.exp(0.5 * np.mean(np.log(v))))
        t1 = time.process_time()
        one = np.empty((points, y.size))
        for i, r in enumerate(rs):
            _exact_residuals(y, r[None, :], p, shrink, one[i : i + 1])
        t2 = time.process_time()
        nb = 1 + p + q
        batch = np.empty((points, y.size))
        for i in range(0, points - nb + 1, nb):
            _exact_residuals(y, rs[i : i + nb], p, shrink, batch[i : i + nb])
        t3 = time.process_time()
        n_b = (points // nb) * nb
        t_ref, t_one, t_batch = t_ref + t1 - t0, t_one + t2 - t1, t_batch + (t3 - t2) * points / n_b
        for i, r0 in enumerate(ref):
            worst = max(worst, float(np.max(np.abs(one[i] - r0)) / np.max(np.abs(r0))))
            if i < n_b:
                worst = max(worst, float(np.max(np.abs(batch[i] - r0)) / np.max(np.abs(r0))))
    n = m * points
    print(
        f"{n} evaluations ({m} households x {points} PACF points in [-0.9, 0.9]), max relative difference "
        f"{worst:.1e}: statsmodels calls {1e6 * t_ref / n:.0f} us, kernel {1e6 * t_one / n:.0f} us per point alone, "
        f"{1e6 * t_batch / n:.0f} us per point in batches of {1 + p + q}"
    )


def summary(df: pd.DataFrame) -> None:
    q = [0.0, 0.1, 0.5, 0.9, 1.0]
    print(f"\n{len(df)} households")
    for label in ("before", "new"):
        t = df[f"cpu_s_{label}"]
        print(
            f"{label:6s}: CPU per fit mean {t.mean():.3f} s, median {t.median():.3f} s, p90 {t.quantile(0.9):.3f} s, "
            f"max {t.max():.3f} s, total {t.sum():.1f} s; converged {int(df[f'converged_{label}'].sum())}; "
            f"status {df[f'status_{label}'].value_counts().to_dict()}"
        )
    d = df["llf_new"] - df["llf_before"]
    print(
        f"llf new - before: quantiles {np.round(d.quantile(q).to_numpy(), 3).tolist()}, "
        f"worse (< -1e-6): {int((d < -1e-6).sum())}"
    )
    starts = [c for c in df.columns if c.startswith("start_llf_")]
    if len(starts) > 1:
        first = df[starts[0]]
        best = df[starts].max(axis=1)
        gain = best - first
        won = df[starts].idxmax(axis=1).str.replace("start_llf_", "")
        print(
            f"global safeguard: best first attempt from {won.value_counts().to_dict()}; a start other than "
            f"{starts[0][10:]} higher for {int((gain > 1e-6).sum())} households, by "
            f"{np.round(np.sort(gain[gain > 1e-6].to_numpy())[::-1], 4).tolist()} (log-likelihood)"
        )
    t_b, t_n = df["cpu_s_before"].sum(), df["cpu_s_new"].sum()
    print(f"CPU total: before {t_b:.1f} s, new {t_n:.1f} s, new/before {t_n / t_b:.3f}")
    for col in ("mean_change_max", "mean_change_over_sd", "cov_change_rel"):
        if col in df:
            print(f"{col}: quantiles {np.round(df[col].quantile(q).to_numpy(), 4).tolist()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--households", type=int, default=None, help="only the first N households")
    ap.add_argument("--before", default="82ebeed", help="git revision of the fit code to compare with")
    ap.add_argument("--out", default=None, help="write the per-household table (CSV) here")
    ap.add_argument("--eval-only", action="store_true", help="time one objective evaluation (fast path vs statsmodels)")
    args = ap.parse_args()
    cfg = yaml.safe_load(Path(args.config).read_text())
    if args.eval_only:
        eval_timing(cfg, args.households)
        return
    df = run(cfg, args.households, args.before)
    summary(df)
    if args.out:
        df.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
