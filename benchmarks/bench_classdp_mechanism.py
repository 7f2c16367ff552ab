"""CPU seconds per phase of one classdp ``classdp_mechanism`` job (plain script; run from the repository root).

    PYTHONPATH=src python benchmarks/bench_classdp_mechanism.py [--model results/classdp/forecast/model.npz]
        [--rho 1.0] [--no-cache]

For the white and the proposed mechanism at one rho (what ``dpgrid.papers.classdp.stages.release_analysis.mechanism_job``
computes): the mechanism (Algorithm 1), the release's privacy losses, the delta(eps) curve (sup over edges), the
hockey-stick sup, the audit's delta at its eps, and the attack. With one ``EdgeTailCache`` per release (default, as
the job) the hockey stick and the audit reuse the curve's exact tails; ``--no-cache`` evaluates each without it.
Needs the pipeline's model file (results/classdp/forecast/model.npz); config from config/config.yaml.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dpgrid.core.config import load_config_file  # noqa: E402
from dpgrid.mechanisms.gaussian_class import bayes_classifier_accuracy, load_class_model  # noqa: E402
from dpgrid.papers.classdp.evaluation import Algorithm1Settings, make_mechanism  # noqa: E402
from dpgrid.papers.classdp.stages.release_analysis import epsilon_grid  # noqa: E402
from dpgrid.privacy.gaussian_loss import EdgeTailCache, delta_sup_over_edges, hockey_stick_sup_over_edges  # noqa: E402


def _phase(times: list, label: str, fn):
    t0 = time.process_time()
    out = fn()
    times.append(time.process_time() - t0)
    print(f"  {label:<28s} {times[-1]:8.2f} s", flush=True)
    return out


def bench_mechanism(name, model, rho, cd, alg1, eps, no_cache: bool) -> float:
    """Print CPU seconds per phase of one mechanism; return their sum."""
    tol = float(cd["delta_tolerance"])
    audit_eps = np.asarray(cd["audit"]["epsilons"], dtype=float)
    t: list = []
    print(name)
    mech = _phase(t, "mechanism", lambda: make_mechanism(name, model, rho, cd["accuracy_budget_rule"], alg1))
    rel = model.with_noise(mech.noise_covs)
    shared = EdgeTailCache(rel.means, rel.covs)
    _phase(t, "privacy losses", lambda: [shared.loss(i, j) for i, j in rel.edges])

    def cache():
        return EdgeTailCache(rel.means, rel.covs) if no_cache else shared

    args = (rel.means, rel.covs, rel.edges)
    sup = _phase(t, "delta curve", lambda: delta_sup_over_edges(*args, eps, tol=tol, cache=cache()))
    _phase(t, "hockey stick", lambda: hockey_stick_sup_over_edges(*args, eps, tol=tol, cache=cache()))
    aud = _phase(t, "audit delta", lambda: delta_sup_over_edges(*args, audit_eps, tol=tol, cache=cache()))
    n = int(cd["attack"]["samples_per_label"])
    _phase(t, "attack", lambda: bayes_classifier_accuracy(model, mech.noise_covs, n, np.random.default_rng(0)))
    print(
        f"  (curve: {sup.n_exact} of {sup.n_edges} edges past the Chernoff screen, {sup.n_bounded} bounded by "
        f"cached tails; audit: {aud.n_bounded} of {aud.n_exact} bounded)"
    )
    return float(sum(t))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="results/classdp/forecast/model.npz")
    ap.add_argument("--setting", default="forecast")
    ap.add_argument("--rho", type=float, default=1.0)
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--no-cache", action="store_true")
    args = ap.parse_args(argv)
    if not Path(args.model).exists():
        print(f"skip: {args.model} not built (run the pipeline's classdp_{args.setting}_model first)")
        return 0
    cd = load_config_file(args.config)["classdp"]
    eps = epsilon_grid(cd[args.setting]["epsilon_grid"])
    model = load_class_model(args.model)
    alg1 = Algorithm1Settings.from_config(cd["algorithm1"])
    print(
        f"{args.setting} model: {model.n} labels, {len(model.edges)} edges, k = {model.k}; rho = {args.rho}, "
        f"{eps.size} eps, cache {'off' if args.no_cache else 'on'}"
    )
    total = sum(bench_mechanism(name, model, args.rho, cd, alg1, eps, args.no_cache) for name in ("white", "proposed"))
    print(f"total {total:.2f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
