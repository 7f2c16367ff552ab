"""spdp: black-box privacy audit of the correlated Gaussian mechanism (Proposition 2), Algorithm 1's released
PSD and the TrDP releases (Proposition 1) of Parker, Hale, Barooah, *Spectral Differential Privacy*.

Each mechanism claims (eps, delta)-DP for inputs at L2 distance at most B, with B computed from the home's data
(eqs. (12)-(13)). The auditor recomputes B itself, by brute force over every pair of PSD windows (eq. (12)) and
every pair of non-overlapping K-sample trajectories (eq. (13)), without the calibration code, and builds the
neighbours at that distance:

* correlated Gaussian (the Proposition 2 release phi + eta): d = the sensitive PSD, d' = d + B v, v searched:
  the least-variance direction of the released noise estimated from pilot releases, a hill climb over the unit
  sphere on the same estimate, the direction of the farthest window pair; Gaussian projection bound and
  threshold attack;
* Algorithm 1 (the filtered, clipped PSD P(z)[(phi + eta)^+]): the same candidates, clipped at 0 (a clipped
  neighbour is no farther); threshold attack only (the release is not Gaussian);
* TrDP (4 h, 1 week): the farthest trajectory pair, d + B r for a random unit r, and d + B v for directions v of
  the released noise's pilot (co)variance (:func:`_trajectory_directions`: the least-variance sample; for short
  trajectories also the least-variance direction and a hill climb); each release projected on a vector fixed
  before sampling (the pair's difference, or v whitened by the pilot), Gaussian projection bound.

Algorithm 2 (the streaming release) is not audited: its privacy is Algorithm 1's by post-processing only for the
noise path c = H w; the released x^F + c contains the filtered data itself (docs/privacy_audits.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpgrid.core.io import read_json, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.spectral import spdp_mechanism
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
from dpgrid.papers.spdp.home_series import HOURS_PER_WEEK, load_series, samples_in
from dpgrid.papers.spdp.paper import PAPER
from dpgrid.papers.spdp.pipeline import SpDPParams
from dpgrid.privacy import blackbox_audit as ba


def _max_pair(rows: np.ndarray) -> tuple[float, int, int]:
    """The largest L2 distance between two rows and its pair (brute force over all pairs)."""
    sq = (rows**2).sum(1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * rows @ rows.T, 0.0)
    i, j = np.unravel_index(int(np.argmax(d2)), d2.shape)
    return float(np.linalg.norm(rows[i] - rows[j])), int(i), int(j)


def window_psds(x: np.ndarray, fs: float, cfg: dict, est) -> np.ndarray:
    """PSD estimates of every window of eq. (12): lengths of ``spdp_window_weeks`` weeks, starts every
    ``window_step_days`` days."""
    c = cfg["calibration"]
    step = samples_in(24 * c["window_step_days"], fs)
    out = []
    for w in range(c["spdp_window_weeks"][0], c["spdp_window_weeks"][1] + 1):
        n = samples_in(w * HOURS_PER_WEEK, fs)
        out += [est.estimate(x[s : s + n]) for s in range(0, x.size - n + 1, step)]
    if len(out) < 2:
        raise ValueError(f"spdp privacy audit: the series ({x.size} samples) holds fewer than two PSD windows")
    return np.vstack(out)


def _stack(fn, n: int) -> np.ndarray:
    return np.stack([fn() for _ in range(n)])


def _noise_directions(pilot: np.ndarray, budget: int, rng) -> tuple[list[tuple[str, np.ndarray]], np.ndarray]:
    """From pilot releases of one input: the least-variance direction of the released noise and a hill climb over
    the unit sphere on the same estimate (``budget`` evaluations), with the pilot's (ridged) precision matrix."""
    cov = np.cov(pilot, rowvar=False)
    w, v = np.linalg.eigh(cov)
    prec = np.linalg.pinv(cov + 1e-9 * w.mean() * np.eye(w.size), hermitian=True)

    def score(u):
        u = u / np.linalg.norm(u)
        return float(u @ prec @ u)

    def propose(u, r, step):
        y = u + step * r.standard_normal(u.size)
        return y / np.linalg.norm(y)

    starts = [s / np.linalg.norm(s) for s in rng.standard_normal((2, w.size))]
    hc, _, _ = ba.hill_climb(score, starts, propose, budget=budget, rng=rng)
    return [("least pilot variance", v[:, 0]), ("hill climb", hc / np.linalg.norm(hc))], prec


def _directions(sample_base, b: float, pair_dir: np.ndarray, cfg: dict, rng) -> list[tuple[str, np.ndarray]]:
    """Searched unit directions of d' - d: least variance of the noise (``direction_samples`` releases of d), a
    hill climb on the same estimate, the farthest window pair."""
    pilot = sample_base(rng, int(cfg["direction_samples"]))
    found, _ = _noise_directions(pilot, int(cfg["hill_climb_budget"]), rng)
    return [*found, ("farthest window pair", pair_dir)]


#: trajectories up to this many samples get the full-covariance direction search; longer ones (a week of 5-min
#: samples: 2016) the per-sample variances only
FULL_COVARIANCE_SAMPLES = 512
#: pilot releases of a trajectory for its per-sample variances (at most; ``direction_samples`` otherwise)
TRAJECTORY_PILOT = 2000


def _trajectory_directions(mech, d0: np.ndarray, audit: dict, rng) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Directions v of d' = d0 + B v for a TrDP release, from pilot releases of d0 (independently of the calibration):
    the sample whose released noise varies least (a trajectory's samples released with less noise than the others);
    for trajectories of at most :data:`FULL_COVARIANCE_SAMPLES` samples also the least-variance direction of the
    pilot covariance and a hill climb on it (correlated noise). Each comes with the statistic's projection vector w,
    the direction whitened by the pilot (co)variance (the likelihood-ratio direction of a Gaussian release)."""
    k = d0.size
    n = min(int(audit["direction_samples"]), TRAJECTORY_PILOT) if k > FULL_COVARIANCE_SAMPLES else None
    pilot = _stack(lambda: mech.release(d0, rng), n or int(audit["direction_samples"]))
    var = pilot.var(axis=0)
    j = int(np.argmin(var))
    e = np.zeros(k)
    e[j] = 1.0
    out = [(f"sample {j}, the least pilot variance", e, e)]
    if n is None:
        found, prec = _noise_directions(pilot, int(audit["hill_climb_budget"]), rng)
        for label, u in found:
            wu = prec @ u
            out.append((label, u, wu / np.linalg.norm(wu)))
    return out


def audit_rows(x: np.ndarray, fs: float, cfg: dict, cal: dict, audit: dict, rng, level: float) -> list[dict]:
    """The rows of the four audited releases (claimed eps, delta of ``spdp.privacy``)."""
    params = SpDPParams.from_config(cfg)
    eps, delta = params.eps, params.delta
    est = params.estimator(fs)
    phi = est.estimate(x[: round(24 * params.psd_window_days * fs)])
    mech = params.mechanism(cal["b_spdp"])
    psds = window_psds(x, fs, cfg, est)
    b, i, j = _max_pair(psds)
    n_windows = len(psds)
    rows = []
    kw = {"pilot_samples": int(audit["pilot_samples"]), "samples": int(audit["samples"]), "level": level, "rng": rng}

    def gauss(d):
        return lambda r, n: _stack(lambda: mech.release(d, r), n)

    def alg1(d):
        return lambda r, n: _stack(
            lambda: (
                spdp_mechanism(
                    d, mech, omega_n=params.omega_n, gain=params.kp, rng=r, mode=params.positive_filter_mode
                ).phi_tilde
            ),
            n,
        )

    dirs = _directions(gauss(phi), b, (psds[j] - psds[i]) / b, audit, rng)
    setting = f"B = {b:.4g} (brute force over {n_windows} windows)"
    cands = [
        ba.Candidate(f"d = sensitive PSD, d' = d + B v, v: {name}", gauss(phi), gauss(phi + b * u), shift=-b * u)
        for name, u in dirs
    ]
    res = ba.search_and_audit(cands, eps, fitted=("fisher",), gaussian=True, **kw)
    rows.append(
        _row("correlated_gaussian", setting, eps, delta, res, level, len(cands) + n_windows * (n_windows - 1) // 2)
    )
    cands = [
        ba.Candidate(f"d = sensitive PSD, d' = (d + B v)^+, v: {name}", alg1(phi), alg1(np.maximum(phi + b * u, 0.0)))
        for name, u in dirs
    ]
    cands.append(ba.Candidate(f"windows {i} and {j} (the farthest pair)", alg1(psds[i]), alg1(psds[j])))
    res = ba.search_and_audit(
        cands, eps, fitted=("fisher", "gaussian_llr"), **{**kw, "samples": int(audit["samples_alg1"])}
    )
    rows.append(_row("spdp_algorithm1", setting, eps, delta, res, level, len(cands) + n_windows * (n_windows - 1) // 2))
    for name, hours in cfg["calibration"]["trdp_durations_hours"].items():
        k = samples_in(hours, fs)
        m = x.size // k
        blocks = x[: m * k].reshape(m, k)
        bt, p, q = _max_pair(blocks)
        trdp = TrajectoryGaussianMechanism(cal["trdp"][name]["b"], eps, delta, calibration=cfg["trdp"]["calibration"])
        r_dir = rng.standard_normal(k)
        r_dir /= np.linalg.norm(r_dir)
        pairs = [
            (f"trajectories {p} and {q} (the farthest pair)", blocks[p], blocks[q], None),
            ("d = first trajectory, d' = d + B r, r random", blocks[0], blocks[0] + bt * r_dir, None),
        ]
        for label, u, w in _trajectory_directions(trdp, blocks[0], audit, rng):
            pairs.append((f"d = first trajectory, d' = d + B v, v: {label}", blocks[0], blocks[0] + bt * u, w))
        cands = []
        for label, d0, d1, w in pairs:
            u = (d1 - d0) / max(np.linalg.norm(d1 - d0), 1e-300) if w is None else w

            def proj(d, u=u, mech=trdp):
                return lambda r, n: _stack(lambda: mech.release(d, r) @ u, n)[:, None]

            cands.append(ba.Candidate(label, proj(d0), proj(d1)))
        res = ba.search_and_audit(cands, eps, fitted=("fisher",), gaussian=True, **kw)
        rows.append(
            _row(
                f"trdp_{name}",
                f"K = {k}, B = {bt:.4g} (brute force over {m} trajectories)",
                eps,
                delta,
                res,
                level,
                m * (m - 1) // 2,
            )
        )
    return rows


def _row(mechanism, setting, eps, delta, res, level, searched):
    return ba.audit_row(
        paper="spdp",
        mechanism=mechanism,
        setting=setting,
        epsilon=eps,
        claimed_delta=delta,
        result=ba.SearchAudit(res.pair, res.chosen, searched, res.pilot_estimate),
        level=level,
    )


def privacy_audit_job(job) -> None:
    """Rule ``spdp_privacy_audit``: results/spdp/privacy_audit.csv."""
    cfg = job.params.cfg
    series, fs, _ = load_series(job.input.readings, job.input.meters, cfg)
    cal = read_json(job.input.calibration)
    rng = job_rng(job.params.seed, PAPER, "privacy_audit")
    rows = audit_rows(series.to_numpy(), fs, cfg, cal, job.params.audit, rng, float(job.params.level))
    write_table(pd.DataFrame(rows, columns=list(ba.AUDIT_COLUMNS)), job.output.table)
