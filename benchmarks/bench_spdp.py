"""Timings of the spdp part (plain script; run: PYTHONPATH=src python benchmarks/bench_spdp.py).

1. Streaming release (Algorithm 2) of one year of 5-minute data (105,120 samples): one call, one-hour
   chunks, and sample by sample (the meter's on-line loop).
2. The spdp computations of the pipeline on one synthetic year: calibration (eq. 12-13), SpDP + TrDP
   releases, paper-B releases, duration sweep. (The Snakemake benchmark files under
   benchmarks/spdp/*.tsv hold the per-rule wall times of a pipeline run, figures included.)
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from dpgrid.core.config import load_config_file
from dpgrid.core.seeds import job_rng
from dpgrid.data.synthetic import synthesize_meter_data
from dpgrid.mechanisms.spectral_adjacency import b_trdp
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.papers.spdp.pipeline import SpDPParams
from dpgrid.papers.spdp.stages import fidelity as spdp_fidelity
from dpgrid.papers.spdp.stages.adjacency_calibration import calibration
from dpgrid.papers.spdp.stages.release import spdp_release
from dpgrid.papers.spdp.standin import StandinHome, standin_series

#: the pipeline's spdp config (config/config.yaml; gamma_handling clip, as the default pipeline runs it)
CFG = load_config_file(Path(__file__).resolve().parents[1] / "config" / "config.yaml")["spdp"]


def timed(label, fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    print(f"{label:<55s} {time.perf_counter() - t0:8.3f} s")
    return out


def main() -> None:
    md = timed(
        "synthesise one home-year at 5 min", synthesize_meter_data, 1, 0, "2019-01-07", 365, 5, np.random.default_rng(0)
    )
    x = md.wide().iloc[:, 0].to_numpy()
    fs = 12.0
    print(f"samples: {x.size}")
    t_all = time.perf_counter()
    cal = timed("calibration: B_SpDP (eq. 12) + B_TrDP (eq. 13)", calibration, x, fs, CFG)
    rel = timed(
        "SpDP: Algorithm 1 + design + streaming release (batch)",
        spdp_release,
        x,
        fs,
        CFG,
        cal["b_spdp"],
        np.random.default_rng(1),
        np.random.default_rng(2),
    )
    design = rel["design"]
    stream = design.new_stream(np.random.default_rng(3))
    timed(
        "streaming release, one-hour chunks",
        lambda: np.concatenate([stream.push(x[i : i + 12]) for i in range(0, x.size, 12)]),
    )
    stream = design.new_stream(np.random.default_rng(3))
    out = timed(
        "streaming release, sample by sample", lambda: np.array([stream.push(x[i : i + 1])[0] for i in range(x.size)])
    )
    assert out.shape == x.shape
    for name, b in (("4h", cal["trdp"]["4h"]["b"]), ("1week", cal["trdp"]["1week"]["b"])):
        timed(
            f"TrDP release {name}",
            TrajectoryGaussianMechanism(b, CFG["privacy"]["epsilon"], 0.01, calibration="classical").release,
            x,
            np.random.default_rng(4),
        )
    timed("paper-B SpDP release", spdp_release, x, fs, CFG, 0.12, np.random.default_rng(5), np.random.default_rng(6))
    timed(
        "duration sweep B_TrDP(K), 10 durations",
        lambda: [b_trdp(x, int(h * fs)) for h in (4, 8, 12, 24, 48, 96, 168, 336, 672, 1344)],
    )
    print(f"{'spdp computations total (excluding figures)':<55s} {time.perf_counter() - t_all:8.3f} s")
    xs = timed(
        "stand-in home-year at 5 min (dpgrid.papers.spdp.standin)",
        standin_series,
        StandinHome(),
        "2019-01-07",
        364,
        5,
        np.random.default_rng(0),
    )[0]
    timed(
        f"fidelity tables ({len(CFG['fidelity']['variants'])} variants x {CFG['fidelity']['n_seeds']} seeds, no data sweep)",
        spdp_fidelity.fidelity_tables,
        xs,
        fs,
        SpDPParams(gamma_handling="clip"),
        paper=CFG["paper_parameters"],
        b_ours={"b_spdp": 10.0, "b_trdp_4h": 40.0, "b_trdp_1week": 120.0},
        eval_slice=slice(576, xs.size),
        variants=CFG["fidelity"]["variants"],
        n_seeds=CFG["fidelity"]["n_seeds"],
        rng_for=lambda *k: job_rng(0, "bench", *k),
        trdp_calibration="proposition1",
    )


if __name__ == "__main__":
    main()
