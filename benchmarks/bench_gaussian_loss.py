"""Worst cases of the exact delta(eps) evaluator (dpgrid.privacy.gaussian_loss.delta_exact), before and after
the fallback method: time, peak memory, method, error estimate.

Each case runs in a child process with a wall-clock timeout (default 60 s) and an address-space limit
(default 8 GiB), so the old code's runaway cases (the near-equal covariances that needed 4.5e7
Gauss-Legendre panels: one took 1621 s, another was killed at 24 GB) are reported as "> 60 s" or
"MemoryError" instead of being run to completion. "before" is the module at a git revision (default:
the last commit before the fallback; a revision before the split into the package dpgrid/privacy/gaussian_loss/),
loaded from ``git show`` into a temporary file; "after" is this checkout's package. Run from the repository root (plain script):

    python benchmarks/bench_gaussian_loss.py                     # before and after, all cases
    python benchmarks/bench_gaussian_loss.py --impl after --timeout 30
    python benchmarks/bench_gaussian_loss.py --before <rev> --cases near_k2_1e-8,ill_k2_1e5

Peak memory is the child's maximum resident set size minus its size after the imports. Times
are CPU times of the calling process (time.process_time; best of --repeat runs for cases under 2 s, so the first
call's one-time imports drop out with --repeat >= 2).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
MODULE = "src/dpgrid/privacy/gaussian_loss.py"  # the single-file module of the "before" revisions
BEFORE_REV = "1ce4304"  # last commit with the primary method only
EPS = np.linspace(0.1, 3.0, 12)  # the synthetic delta-curve grid of config/quick.yaml


def _orth(rng, k):
    q, r = np.linalg.qr(rng.standard_normal((k, k)))
    return q * np.sign(np.diag(r))


def near_equal(k, rel, shift, seed=0):
    """Covariances R R^T and R Q (I + D) Q^T R^T with |D_jj| <= rel; means 0 and shift * N(0, I)."""
    rng = np.random.default_rng(seed)
    q = _orth(rng, k)
    c0 = q @ np.diag(np.exp(rng.uniform(-1, 1, k))) @ q.T
    r0 = np.linalg.cholesky(c0)
    d = rel * rng.uniform(-1, 1, k)
    q2 = _orth(rng, k)
    return np.zeros(k), c0, shift * rng.standard_normal(k), r0 @ q2 @ np.diag(1 + d) @ q2.T @ r0.T


def ill(k, cond, shift, seed=0):
    """Two covariances with eigenvalues geomspace(1, 1/cond) in independent random bases."""
    rng = np.random.default_rng(seed)
    covs = [(q := _orth(rng, k)) @ np.diag(np.geomspace(1, 1 / cond, k)) @ q.T for _ in range(2)]
    return np.zeros(k), covs[0], shift * rng.standard_normal(k), covs[1]


def wishart_pair(k, seed=0):
    from scipy import stats

    rng = np.random.default_rng(seed)
    s = [np.atleast_2d(stats.wishart(df=k + 8, scale=np.eye(k) / (k + 8)).rvs(random_state=rng)) for _ in range(2)]
    return np.zeros(k), s[0], 0.3 * rng.standard_normal(k), s[1]


# name -> (description, function returning (mu_x, cov_x, mu_x', cov_x') or ('loss', gamma, nu))
CASES = {
    "near_k1_1e-6": ("k=1, covariances differ by 1e-6, mean shift", lambda: near_equal(1, 1e-6, 0.3)),
    "near_k1_1e-10": ("k=1, 1e-10, mean shift", lambda: near_equal(1, 1e-10, 0.3)),
    "near_k2_1e-8": ("k=2, 1e-8, mean shift", lambda: near_equal(2, 1e-8, 0.3)),
    "near_k2_1e-4": ("k=2, 1e-4, mean shift", lambda: near_equal(2, 1e-4, 0.3)),
    "near_k6_1e-6": ("k=6, 1e-6, mean shift", lambda: near_equal(6, 1e-6, 0.3)),
    "near_k6_1e-3": ("k=6, 1e-3, mean shift", lambda: near_equal(6, 1e-3, 0.3)),
    "degen_k6_1e-12": ("k=6, 1e-12, equal means (L nearly degenerate)", lambda: near_equal(6, 1e-12, 0.0)),
    "degen_k2_1e-2": ("k=2, 1e-2, equal means", lambda: near_equal(2, 1e-2, 0.0)),
    "equal_cov_tiny_shift": (
        "k=3, equal covariances, |mean shift| = 1e-9 sd",
        lambda: ("loss", np.ones(3), 1e-9 * np.array([0.6, -0.8, 0.0])),
    ),
    "ill_k2_1e5": ("k=2, condition 1e5 (both covariances)", lambda: ill(2, 1e5, 0.0)),
    "ill_k6_1e5": ("k=6, condition 1e5", lambda: ill(6, 1e5, 0.0)),
    "ill_k6_1e8": ("k=6, condition 1e8", lambda: ill(6, 1e8, 0.0)),
    "synthetic_no_noise": (
        "classdp synthetic pair, no noise (gamma 180 and 0.052)",
        lambda: ("loss", np.array([179.59740354, 0.0522831291]), np.array([-0.49896509, -2.1036546])),
    ),
    "wishart_k12": ("k=12 Wishart pair (well conditioned; forecast-like)", lambda: wishart_pair(12)),
    "wishart_k24": ("k=24 Wishart pair (the forecast pairs' dimension)", lambda: wishart_pair(24)),
    "near_k24_1e-6": ("k=24, 1e-6, mean shift", lambda: near_equal(24, 1e-6, 0.3)),
    "wishart_k200": ("k=200 Wishart pair", lambda: wishart_pair(200)),
    "near_k200_1e-12": ("k=200, 1e-12, mean shift (tiny quadratic terms zeroed)", lambda: near_equal(200, 1e-12, 0.3)),
}


def load_module(rev: str | None):
    if rev is None:  # this checkout's package
        sys.path.insert(0, str(REPO / "src"))
        return importlib.import_module("dpgrid.privacy.gaussian_loss")
    src = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{rev}:{MODULE}"], check=True, capture_output=True, text=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "gaussian_loss_before.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("gaussian_loss_bench", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up
    spec.loader.exec_module(mod)
    return mod


def child(case: str, rev: str | None, repeat: int) -> dict:
    mod = load_module(rev)
    made = CASES[case][1]()
    loss = mod.GaussianPrivacyLoss(made[1], made[2]) if isinstance(made[0], str) else mod.privacy_loss(*made)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {"k": loss.k, "gamma_min": float(loss.gamma.min()), "gamma_max": float(loss.gamma.max())}
    best = np.inf
    for _ in range(repeat):
        t0 = time.process_time()
        if hasattr(mod, "delta_exact_with_error"):
            p, err, how = mod.delta_exact_with_error(loss, EPS, tol=1e-8)
            err, out["method"] = float(np.max(err)), how
        else:
            p, err = mod.delta_exact(loss, EPS, tol=1e-8, return_error=True)
            out["method"] = "primary"
        best = min(best, time.process_time() - t0)
        if best > 2.0:
            break
    out.update(
        seconds=best,
        peak_mb=(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024.0,
        error_estimate=float(err),
        delta=[float(v) for v in p],
    )
    return out


def run_case(case: str, impl: str, rev: str, timeout: float, mem_gb: float, repeat: int) -> dict:
    args = [sys.executable, __file__, "--child", case, "--impl", impl, "--before", rev, "--repeat", str(repeat)]

    def limit():  # in the child: cap its address space
        lim = int(mem_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))

    try:
        res = subprocess.run(args, capture_output=True, text=True, timeout=timeout, preexec_fn=limit, check=False)
    except subprocess.TimeoutExpired:
        return {"status": f"> {timeout:g} s"}
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["?"])[-1]
        return {"status": "MemoryError" if "MemoryError" in res.stderr else f"failed: {last[:80]}"}
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["status"] = "ok"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impl", choices=["both", "before", "after"], default="both")
    ap.add_argument("--before", default=BEFORE_REV, help="git revision of the 'before' module")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--mem-gb", type=float, default=8.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.child:
        print(json.dumps(child(ns.child, ns.before if ns.impl == "before" else None, ns.repeat)))
        return
    impls = ["before", "after"] if ns.impl == "both" else [ns.impl]
    print(
        f"delta_exact at {EPS.size} eps in [{EPS[0]:g}, {EPS[-1]:g}], tol 1e-8; timeout {ns.timeout:g} s, "
        f"memory limit {ns.mem_gb:g} GiB; before = {ns.before}"
    )
    print(f"{'case':<22} {'impl':<7} {'time':>10} {'peak MB':>8} {'method':>9} {'err est':>9}  max|after-before|")
    for case in ns.cases.split(","):
        res = {impl: run_case(case, impl, ns.before, ns.timeout, ns.mem_gb, ns.repeat) for impl in impls}
        for impl in impls:
            r = res[impl]
            if r["status"] != "ok":
                print(f"{case:<22} {impl:<7} {r['status']:>10}")
                continue
            diff = ""
            if impl == "after" and res.get("before", {}).get("status") == "ok":
                diff = f"{np.max(np.abs(np.subtract(r['delta'], res['before']['delta']))):.2g}"
            print(
                f"{case:<22} {impl:<7} {r['seconds']:>9.3f}s {r['peak_mb']:>8.1f} {r['method']:>9} "
                f"{r['error_estimate']:>9.2g}  {diff}"
            )
        print(f"{'':<22} ({CASES[case][0]})")


if __name__ == "__main__":
    main()
