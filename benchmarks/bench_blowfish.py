"""Benchmark of the blowfish part (GhoddousiBoroujeni et al.): every rule body on the full config, one core.

    PYTHONPATH=src python benchmarks/bench_blowfish.py [--config config/config.yaml]

Runs the same functions as the Snakemake rules (runs, tables, zero sweep, audit, three figures,
claims) in one process, writing into a temporary folder, and prints the time of each and the total.
Target (issue): the whole part under 30 s on one core. Snakemake adds about 1-2 s of process start-up
per job on top (28 jobs: one per seed and per zero-sweep threshold, plus 8).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import yaml  # noqa: E402

from dpgrid.core.seeds import job_rng  # noqa: E402
from dpgrid.core.sweeps import sweep_label  # noqa: E402
from dpgrid.papers.blowfish import claims as bf_claims  # noqa: E402
from dpgrid.papers.blowfish import day as bf_day  # noqa: E402
from dpgrid.papers.blowfish import figures as bf_figures  # noqa: E402
from dpgrid.papers.blowfish.day import simulate_day  # noqa: E402
from dpgrid.papers.blowfish.stages import audit as bf_audit  # noqa: E402
from dpgrid.papers.blowfish.stages import runs as bf_runs
from dpgrid.papers.blowfish.stages import tables as bf_tables
from dpgrid.papers.blowfish.stages import zero_sweep as bf_zero_sweep


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=str(REPO / "config" / "config.yaml"))
    args = ap.parse_args()
    config = yaml.safe_load(Path(args.config).read_text())
    ns = SimpleNamespace
    timings = []
    with tempfile.TemporaryDirectory() as tmp:
        o = lambda name: str(Path(tmp) / name)  # noqa: E731
        c = config["blowfish"]
        # jobs see the blowfish section (a superset of each rule's slice) and the root seed as params
        p = ns(cfg=c, seed=config["seed"])
        seeds = [str(k) for k in range(int(c["seeds"]))]
        ths = [sweep_label(th) for th in c["zero_sweep"]["thresholds"]]
        seed_out = {key: [o(f"{key}_seed{k}.csv") for k in seeds] for key in ("runs", "profiles", "adversary")}
        th_out = {key: [o(f"sweep_{key}_th{th}.csv") for th in ths] for key in ("runs", "table")}
        jobs = [
            (
                f"run_seed {k}",
                bf_runs.run_seed_job,
                ns(params=p, wildcards=ns(seed=k), output=ns(**{key: v[i] for key, v in seed_out.items()})),
            )
            for i, k in enumerate(seeds)
        ]
        jobs += [
            (
                f"zero_sweep_th {th}",
                bf_zero_sweep.zero_sweep_threshold_job,
                ns(
                    params=ns(cfg=c, seed=config["seed"], threshold=float(th)),
                    wildcards=ns(threshold=th),
                    output=ns(**{key: v[i] for key, v in th_out.items()}),
                ),
            )
            for i, th in enumerate(ths)
        ]
        jobs += [
            (
                "runs (merge)",
                bf_runs.runs_job,
                ns(
                    params=p,
                    input=ns(**seed_out),
                    output=ns(runs=o("runs.csv"), profiles=o("profiles.csv"), adversary=o("adv.csv")),
                ),
            ),
            (
                "tables",
                bf_tables.tables_job,
                ns(
                    params=p,
                    input=ns(runs=o("runs.csv"), adversary=o("adv.csv")),
                    output=ns(rmsre=o("t1.csv"), adversary=o("t2.csv")),
                ),
            ),
            (
                "zero_sweep (merge)",
                bf_zero_sweep.zero_sweep_job,
                ns(
                    params=p,
                    input=ns(**th_out),
                    output=ns(runs=o("sweep_runs.csv"), table=o("sweep.csv"), example=o("example.csv")),
                ),
            ),
            ("audit", bf_audit.audit_job, ns(params=p, output=ns(table=o("audit.csv")))),
            (
                "fig2",
                bf_figures.figure_job,
                ns(
                    params=p,
                    wildcards=ns(fig="fig2"),
                    input=ns(profiles=o("profiles.csv")),
                    output=ns(pdf=o("fig2.pdf")),
                ),
            ),
            (
                "fig_lambda",
                bf_figures.figure_job,
                ns(
                    params=p,
                    wildcards=ns(fig="fig_lambda"),
                    input=ns(profiles=o("profiles.csv"), example=o("example.csv")),
                    output=ns(pdf=o("fl.pdf")),
                ),
            ),
            (
                "fig_zero_sweep",
                bf_figures.figure_job,
                ns(
                    params=p,
                    wildcards=ns(fig="fig_zero_sweep"),
                    input=ns(table=o("sweep.csv")),
                    output=ns(pdf=o("fz.pdf")),
                ),
            ),
            (
                "claims",
                bf_claims.claims_job,
                ns(
                    params=p,
                    input=ns(
                        runs=o("runs.csv"), sweep=o("sweep_runs.csv"), audit=o("audit.csv"), adversary=o("adv.csv")
                    ),
                    output=[o("c.csv")],
                ),
            ),
        ]
        for name, func, smk in jobs:
            t0 = time.perf_counter()
            func(smk)
            timings.append((name, time.perf_counter() - t0))
    s = bf_day.settings_from_config(config["blowfish"])
    t0 = time.perf_counter()
    for k in range(20):
        simulate_day(s, job_rng(0, "bench", k))
    per_day = (time.perf_counter() - t0) / 20
    c = config["blowfish"]
    print(
        f"blowfish benchmark (N = {c['households']}, T = {c['steps_per_day']}, {c['seeds']} seeds, "
        f"{len(c['zero_sweep']['thresholds']) * len(c['zero_sweep']['initial_distributions']) * c['zero_sweep']['seeds']} sweep days)"
    )
    for name, t in timings:
        print(f"  {name:22s} {t:7.2f} s")
    total = sum(t for _, t in timings)
    print(f"  {'total':22s} {total:7.2f} s   (target < 30 s: {'met' if total < 30 else 'NOT met'})")
    print(f"  one simulated day (population, chains, Algorithm 1, naive): {1000 * per_day:.1f} ms")


if __name__ == "__main__":
    main()
