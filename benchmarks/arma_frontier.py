"""The ARMA fit's CPU against the optimum it reaches, for several settings of ``fit_arma`` on the same series.

Each setting (:data:`SETTINGS`: an optimiser and a list of start methods of ``dpgrid.models.arma_fit.fit_arma``; the
other fit settings are the pipeline's) fits every series of ``bench_arma_optima.fitted_series`` (the forecast
households and every point of the similarity sweep). Printed per setting:

- the CPU time of its fits (process time, one BLAS thread recommended);
- against the pipeline's setting: on how many series its exact log-likelihood is higher, and lower, by more than 1e-3;
- against the best known optimum of each series (the highest over every setting and over statsmodels' optima from
  the starts that do not depend on the fit, read from ``bench_arma_optima``'s cache; series missing from the cache
  are compared with the settings only): on how many series it is more than 1e-3 below, and by how much at worst;
- the same against statsmodels' cached optima alone (``gap``: statsmodels' best feasible optimum minus the fit's).

The last row, "every setting", is the highest optimum over all the settings per series (its CPU the sum of theirs):
what running them all would reach.

    PYTHONPATH=src OMP_NUM_THREADS=1 python benchmarks/arma_frontier.py [--config config/quick.yaml] \\
        [--households N] [--no-sweep] [--cache FILE] [--only NAME ...]

The cache is made by ``bench_arma_optima.py --cache FILE`` on the same configuration.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent / "src"))

from bench_arma_optima import (  # noqa: E402
    GAP,
    best_feasible,
    config_files,
    decoded,
    fit_settings,
    fitted_series,
    series_key,
)
from peers_arma import _exact_llf as exact_llf  # noqa: E402

from dpgrid.core.config import load_config  # noqa: E402
from dpgrid.models.arma_fit import fit_arma  # noqa: E402

#: name -> fit settings replacing the pipeline's (``--set`` syntax of bench_arma_optima); "pipeline" keeps them all
SETTINGS = {
    "pipeline": [],
    "projected_lm, css + HR": ["optimizer=projected_lm", "retry_optimizer=projected_lm"],
    "projected_lm, css + HR + zeros": [
        "optimizer=projected_lm",
        "retry_optimizer=projected_lm",
        "start=css,hannan_rissanen,zeros",
    ],
    "projected_lm, css + HR + zeros + best_x0.8": [
        "optimizer=projected_lm",
        "retry_optimizer=projected_lm",
        "start=css,hannan_rissanen,zeros,best_x0.8",
    ],
    "trf, css + HR + zeros + best_x0.8": ["start=css,hannan_rissanen,zeros,best_x0.8"],
    "trf, all six starts": ["start=css,hannan_rissanen,innovations_mle,zeros,best_x0.8,best_x0.5"],
}


def cached_best(cache: dict, key: str, y: np.ndarray, p: int, q: int, kw: dict) -> float:
    """The best feasible statsmodels optimum of a series in the cache (-inf: none feasible; nan: not cached)."""
    if key not in cache:
        return float("nan")
    return best_feasible(decoded(cache[key], p, q), y, kw.get("pacf_bound", 0.999), kw.get("root_margin", 1e-4))[0]


def measure(config: list[Path], households, sweep: bool, cache_file, only) -> tuple[dict, dict, list]:
    cfg = load_config(config)
    cache = json.loads(Path(cache_file).read_text()) if cache_file else {}
    names = [n for n in SETTINGS if not only or n in only or n == "pipeline"]
    kws = {n: fit_settings(cfg, SETTINGS[n]) for n in names}
    orders = {n: tuple(kws[n].pop("order")) for n in names}
    llf = {n: [] for n in names}
    cpu = dict.fromkeys(names, 0.0)
    sm = []
    for label, ids, train in fitted_series(cfg, sweep):
        fit_arma(np.ascontiguousarray(train[:200, 0]), (1, 1))  # compiled kernel loaded before timing
        for j in range(len(ids) if households is None else min(households, len(ids))):
            y = np.ascontiguousarray(train[:, j])
            for n in names:
                t0 = time.process_time()
                fit = fit_arma(y, orders[n], name=ids[j], **kws[n])
                cpu[n] += time.process_time() - t0
                llf[n].append(exact_llf(y, fit.ar, fit.ma, fit.sigma2))
                if n == "pipeline":  # bench_arma_optima keys the cache by the pipeline fit's order
                    p, q = fit.order
            sm.append(cached_best(cache, series_key(f"{label}/{ids[j]}", y, p, q), y, p, q, kws["pipeline"]))
    return llf, cpu, sm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, default=ROOT.parent / "config" / "quick.yaml")
    ap.add_argument("--households", type=int, default=None, help="the first N households of each point")
    ap.add_argument("--no-sweep", dest="sweep", action="store_false", help="the forecast households only")
    ap.add_argument("--cache", type=Path, default=None, help="bench_arma_optima's cache of statsmodels' optima")
    ap.add_argument("--only", action="append", default=[], help="a setting to run (and the pipeline's)")
    args = ap.parse_args()
    llf, cpu, sm = measure(config_files(args.config), args.households, args.sweep, args.cache, set(args.only))
    sm = np.array(sm)
    table = {n: np.array(v) for n, v in llf.items()}
    best = np.nanmax(np.vstack([*table.values(), np.where(np.isnan(sm), -np.inf, sm)]), axis=0)
    cached = ~np.isnan(sm)
    print(f"{len(sm)} series ({int(cached.sum())} with statsmodels' cached optima); thresholds {GAP:g}\n")
    print(
        "| setting | fit CPU (s) | vs pipeline: higher / lower | below the best known: series, worst | "
        "statsmodels gap: series, worst |"
    )
    print("|---|---:|---|---|---|")
    base = table["pipeline"]
    cpu["every setting"] = sum(cpu.values())
    table["every setting"] = np.max(np.vstack(list(table.values())), axis=0)
    for n, v in table.items():
        below = best - v
        gap = (sm - v)[cached]
        print(
            f"| {n} | {cpu[n]:.1f} | {int(np.sum(v - base > GAP))} / {int(np.sum(base - v > GAP))} | "
            f"{int(np.sum(below > GAP))}, {below.max():.3f} | "
            f"{int(np.sum(gap > GAP))}, {gap.max() if gap.size else float('nan'):+.3f} |"
        )


if __name__ == "__main__":
    main()
