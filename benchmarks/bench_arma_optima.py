"""Does dpgrid's ARMA fit find the best optimum that other starts find? The gap to statsmodels' MLE from five starts.

For every series the classdp rules fit (the training windows of ``forecast_arma_job``: the forecast households and,
with ``--sweep`` (default), the households of every point of the within-cluster-similarity sweep; regenerated from the
configuration's seed, as ``bench_arma.household_series``), dpgrid's fit (``dpgrid.models.arma_fit.fit_arma`` with the
pipeline's settings) is compared with statsmodels' ``ARIMA(y, order=(p, 0, q), trend="n").fit(method_kwargs=
{"maxiter": 1000})`` (state-space MLE, L-BFGS) run to convergence from five starts: statsmodels' default, its
``innovations_mle`` estimate, zeros, and dpgrid's optimum scaled by 0.8 and by 1.2. A statsmodels optimum counts only
when it lies in dpgrid's feasible set: with rho = 1 + root_margin, the coefficients scaled to ``c_i rho^i`` (AR: phi;
MA: -theta, statsmodels' invertibility convention) have partial autocorrelations within ``pacf_bound`` (so every root
has ``|z| >= rho``). Both optima are scored with one exact Gaussian log-likelihood (innovations algorithm, statsmodels
``arma_loglike``).

Printed: per series, dpgrid's log-likelihood, the best feasible statsmodels optimum and its start, and the gap
(statsmodels - dpgrid; > 0: a better optimum dpgrid missed); then the worst gap and how many series have a gap above
1e-3. CPU time, one BLAS thread recommended (``OMP_NUM_THREADS=1``).

    PYTHONPATH=src OMP_NUM_THREADS=1 python benchmarks/bench_arma_optima.py [--config config/quick.yaml] \
        [--households N] [--no-sweep] [--cache FILE] [--set optimizer=projected_lm --set start=css,zeros ...]

``--cache FILE`` keeps the optima of the three starts that do not depend on dpgrid's fit (default, innovations_mle,
zeros) in a JSON file, keyed by the series' label, order and a hash of its values: a second run (another fit setting)
recomputes only the two starts derived from the fit. ``--set KEY=VALUE`` replaces one of the pipeline's fit settings
(``classdp.forecast.arma``; a comma makes a list) for dpgrid's side, to measure other start sets or optimisers; the
``dpgrid x0.8`` / ``x1.2`` starts of statsmodels follow the fit so made. The column ``won`` is the start whose first
attempt the fit continued (``ArmaFit.start``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent / "src"))

from bench_arma import household_series  # noqa: E402
from peers_arma import _exact_llf as exact_llf  # noqa: E402

from dpgrid.core.config import load_config  # noqa: E402
from dpgrid.models.arma_fit import fit_arma  # noqa: E402
from dpgrid.papers.classdp.household_forecast import ForecastSettings  # noqa: E402

#: statsmodels' starts, in the order tried
STARTS = ("default", "innovations_mle", "zeros", "dpgrid x0.8", "dpgrid x1.2")
#: the starts that do not depend on dpgrid's fit (cached by ``--cache``)
FIT_FREE = STARTS[:3]
#: a gap above this is a better optimum missed
GAP = 1e-3


def max_abs_pacf(coef: np.ndarray, rho: float) -> float:
    """max |partial autocorrelation| of the AR polynomial 1 - sum c_i rho^i z^i (inf if not stationary)."""
    from statsmodels.tsa.statespace.tools import unconstrain_stationary_univariate

    if coef.size == 0:
        return 0.0
    scaled = coef * rho ** np.arange(1, coef.size + 1)
    if np.any(np.abs(np.roots(np.r_[-scaled[::-1], 1.0])) <= 1.0):
        return float("inf")
    u = unconstrain_stationary_univariate(scaled)
    return float(np.max(np.abs(u / np.sqrt(1.0 + u * u))))


def feasible(ar: np.ndarray, ma: np.ndarray, pacf_bound: float, root_margin: float) -> bool:
    rho = 1.0 + root_margin
    return max(max_abs_pacf(ar, rho), max_abs_pacf(-ma, rho)) <= pacf_bound + 1e-12


def statsmodels_optima(y: np.ndarray, p: int, q: int, fit, starts=STARTS) -> dict:
    """statsmodels' optimum (ar, ma, sigma2) from each of ``starts`` (of :data:`STARTS`); a start statsmodels refuses
    (not stationary) gives the exception instead."""
    from statsmodels.tsa.arima.model import ARIMA

    model = ARIMA(y, order=(p, 0, q), trend="n")
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        points = {
            "default": lambda: None,
            "innovations_mle": lambda: np.asarray(
                ARIMA(y, order=(p, 0, q), trend="n").fit(method="innovations_mle").params
            ),
            "zeros": lambda: np.r_[np.zeros(p + q), np.var(y)],
            "dpgrid x0.8": lambda: np.r_[0.8 * fit.ar, 0.8 * fit.ma, fit.sigma2],
            "dpgrid x1.2": lambda: np.r_[1.2 * fit.ar, 1.2 * fit.ma, fit.sigma2],
        }
        for name in starts:
            try:
                res = model.fit(start_params=points[name](), method_kwargs={"maxiter": 1000})
            except (ValueError, np.linalg.LinAlgError) as exc:  # a start statsmodels refuses (not stationary)
                out[name] = exc
                continue
            par = np.asarray(res.params)
            out[name] = (par[:p], par[p : p + q], float(par[-1]))
    return out


def series_key(label: str, y: np.ndarray, p: int, q: int) -> str:
    """The cache key of a series: its label, the order and a hash of its values."""
    return f"{label}|{p},{q}|{hashlib.sha256(np.ascontiguousarray(y, dtype=float).tobytes()).hexdigest()[:16]}"


def cached_optima(cache: dict, key: str, y: np.ndarray, p: int, q: int, fit) -> dict:
    """statsmodels' optima from :data:`STARTS`: the fit-free ones from ``cache`` (computed and stored when missing),
    the two derived from ``fit`` computed."""
    if key not in cache:
        got = statsmodels_optima(y, p, q, fit, FIT_FREE)
        cache[key] = {
            s: None if isinstance(v, Exception) else [*map(float, v[0]), *map(float, v[1]), v[2]]
            for s, v in got.items()
        }
    out = decoded(cache[key], p, q)
    out.update(statsmodels_optima(y, p, q, fit, STARTS[3:]))
    return out


def decoded(entry: dict, p: int, q: int) -> dict:
    """A cache entry as :func:`statsmodels_optima` returns it: (ar, ma, sigma2) per start, an exception if refused."""
    return {
        s: ValueError("refused") if v is None else (np.array(v[:p]), np.array(v[p : p + q]), float(v[-1]))
        for s, v in entry.items()
    }


def best_feasible(optima: dict, y: np.ndarray, pacf_bound: float, root_margin: float) -> tuple[float, str, int, int]:
    """The highest exact log-likelihood over the optima inside the feasible set: (llf, its start, how many starts
    statsmodels refused, how many optima lie outside the set); -inf and "-" when none is inside."""
    best, best_start, refused, outside = -np.inf, "-", 0, 0
    for name, got in optima.items():
        if isinstance(got, Exception):
            refused += 1
            continue
        ar, ma, s2 = got
        if not feasible(ar, ma, pacf_bound, root_margin):
            outside += 1
            continue
        llf = exact_llf(y, ar, ma, s2)
        if llf > best:
            best, best_start = llf, name
    return best, best_start, refused, outside


def config_files(config: Path) -> list[Path]:
    """config/config.yaml, then ``config`` as an overlay unless it is that file."""
    files = [ROOT.parent / "config" / "config.yaml"]
    return files if config.resolve() == files[0].resolve() else [*files, config]


def fit_settings(cfg: dict, overrides: list[str]) -> dict:
    """The pipeline's fit settings, with ``KEY=VALUE`` overrides (a comma-separated VALUE is a list)."""
    kw = ForecastSettings.from_config(cfg["classdp"]["forecast"]).arma_kwargs
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep or key not in kw:
            raise SystemExit(f"--set {item!r}: expected KEY=VALUE with KEY one of {sorted(kw)}")
        current = kw[key]
        if isinstance(current, (tuple, list)) or "," in value:
            kw[key] = tuple(value.split(","))
        elif isinstance(current, (bool, str)) or current is None:
            kw[key] = value
        else:
            kw[key] = type(current)(value)
    return kw


def fitted_series(cfg: dict, sweep: bool) -> list[tuple[str, list, np.ndarray]]:
    """(label, household ids, training windows) of the forecast and, with ``sweep``, of every sweep point (the rules
    have sweep points only when the forecast data are the stand-in's)."""
    from dpgrid.papers.classdp.paper import STANDIN_SOURCE

    fc = cfg["classdp"]["forecast"]
    points = [("forecast", None)]
    if sweep and cfg["data"]["experiments"][fc["data_source"]].get("source") == STANDIN_SOURCE:
        points += [(f"similarity{s:g}", float(s)) for s in fc.get("similarity_sweep", {}).get("similarities", [])]
    out = []
    for label, similarity in points:
        ids, train, _, _ = household_series(cfg, similarity)
        out.append((label, ids, train))
    return out


def measure(
    config: list[Path], households: int | None, overrides: list[str] = (), sweep: bool = True, cache_file=None
) -> list[dict]:
    cfg = load_config(config)
    kw = fit_settings(cfg, list(overrides))
    order = tuple(kw.pop("order"))
    cache = json.loads(Path(cache_file).read_text()) if cache_file and Path(cache_file).exists() else {}
    rows = []
    for label, ids, train in fitted_series(cfg, sweep):
        fit_arma(np.ascontiguousarray(train[:200, 0]), (1, 1))  # compiled kernel loaded before timing
        for j in range(len(ids) if households is None else min(households, len(ids))):
            y = np.ascontiguousarray(train[:, j])
            t0 = time.process_time()
            fit = fit_arma(y, order, name=ids[j], **kw)
            t_dp = time.process_time() - t0
            p, q = fit.order
            own = exact_llf(y, fit.ar, fit.ma, fit.sigma2)
            t0 = time.process_time()
            key = series_key(f"{label}/{ids[j]}", y, p, q)
            new = key not in cache
            optima = cached_optima(cache, key, y, p, q, fit)
            if cache_file and new:
                Path(cache_file).write_text(json.dumps(cache, indent=0, sort_keys=True))
            best, best_start, refused, outside = best_feasible(
                optima, y, kw.get("pacf_bound", 0.999), kw.get("root_margin", 1e-4)
            )
            rows.append(
                {
                    "series": f"{label}/{ids[j]}",
                    "order": f"({p},{q})",
                    "status": fit.status,
                    "won": fit.start or "-",
                    "dpgrid_llf": own,
                    "best_other_llf": best,
                    "best_start": best_start,
                    "gap": best - own,
                    "outside": outside,
                    "refused": refused,
                    "dpgrid_s": t_dp,
                    "statsmodels_s": time.process_time() - t0,
                }
            )
            r = rows[-1]
            print(
                f"| {r['series']} | {r['order']} | {r['status']} | {r['won']} | {r['dpgrid_llf']:.4f} | "
                f"{r['best_other_llf']:.4f} | {r['best_start']} | {r['gap']:+.4f} | {r['outside']} | {r['refused']} | "
                f"{r['dpgrid_s']:.2f} | {r['statsmodels_s']:.2f} |",
                flush=True,
            )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, default=ROOT.parent / "config" / "quick.yaml")
    ap.add_argument("--households", type=int, default=None, help="the first N households of each point")
    ap.add_argument("--no-sweep", dest="sweep", action="store_false", help="the forecast households only")
    ap.add_argument("--cache", type=Path, default=None, help="JSON file of the fit-free statsmodels optima")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="replace one fit setting")
    args = ap.parse_args()
    files = config_files(args.config)
    print(
        "| series | order | status | won | dpgrid llf | best statsmodels llf (feasible) | start | gap | "
        "outside the set | refused | dpgrid s | statsmodels s |"
    )
    print("|---|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
    rows = measure(files, args.households, args.set, args.sweep, args.cache)
    gaps = np.array([r["gap"] for r in rows])
    print(
        f"\nworst gap {gaps.max():+.4f} ({rows[int(np.argmax(gaps))]['series']}); series with a gap above "
        f"{GAP:g}: {int(np.sum(gaps > GAP))} of {len(rows)}; dpgrid CPU {sum(r['dpgrid_s'] for r in rows):.1f} s, "
        f"statsmodels CPU {sum(r['statsmodels_s'] for r in rows):.1f} s"
    )


if __name__ == "__main__":
    main()
