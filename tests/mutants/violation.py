"""How far a mutant (catalog.py) breaks its paper's privacy claim, computed from the unmutated quick run, never
from the mutated accounting's own claim.

The audits are required to detect (issue "privacy audits that a broken mechanism cannot pass") a true delta at the
claimed eps of 2x the claim or more, and for pure eps-DP mechanisms a true eps of 1.25x the claim or more
(:data:`REQUIREMENT`). :func:`measure` returns the mutant's ratio true / claimed on the release the mutated code
makes; a mutant the audit misses is excused only when that ratio is below the requirement (run_mutant.py).

- classdp (claim: the PDP delta(eps) of the accounting table, Definition 1): the true delta is the exact PDP delta
  of the released Gaussians, the sup over *every* edge of the class graph in both orientations (unmutated
  :func:`dpgrid.privacy.gaussian_loss.delta_sup_over_edges` on the directed edge list the auditor builds). The
  release's noise is the covariance the mutated ``release`` passes on; the claim is the mutated
  ``delta_sup_over_edges`` on the pipeline's edges, or, for mutants of the release, the unmutated run's claim.
  Ratio: the largest over the audited rows (setting, rho, mechanism, eps).
- blowfish (claim: eps-DP per step): the true eps of step t is eps * alpha max_h X_h / lambda_eff^t, X_h =
  max(u_h^(0), u_h^(1)) over the households of the Blowfish policy at t (both occupancy states possible, the
  auditor's own propagation of the chain) or over every household (naive baseline), lambda_eff the Laplace scale
  times eps that the mutated code draws. The population is the audit job's (config + root seed). Ratio: the
  largest over the steps and both mechanisms.
- spdp, dpkmeans: not computed (``None``): a miss there is never excused.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The detection requirement per measure: the ratio true / claimed at and above which a mutant must be caught.
REQUIREMENT = {"delta": 2.0, "eps": 1.25}


@dataclass(frozen=True)
class Violation:
    ratio: float  # true / claimed (delta at the claimed eps, or eps)
    measure: str  # "delta" | "eps"
    detail: str

    @property
    def requirement(self) -> float:
        return REQUIREMENT[self.measure]

    @property
    def required(self) -> bool:
        """The audit is required to catch the mutant (ratio at or above the requirement)."""
        return self.ratio >= self.requirement

    def __str__(self) -> str:
        rel = ">=" if self.required else "<"
        return f"true/claimed {self.measure} {self.ratio:.4g} {rel} {self.requirement:g} ({self.detail})"


def _mutated(m, module: str, attribute: str, orig):
    """``orig`` with the mutant applied when the mutant replaces ``module.attribute`` (else ``orig``)."""
    return m.make(orig) if (m.module, m.attribute) == (module, attribute) else orig


def _directed(edges) -> np.ndarray:
    pairs = {(int(a), int(b)) for a, b in np.asarray(edges).reshape(-1, 2).tolist()}
    pairs |= {(b, a) for a, b in pairs}
    return np.array(sorted(pairs), dtype=int)


#: the classdp functions whose mutants :func:`classdp` models: the release (the noise it adds, from the noise
#: covariance passed on) and the claim's sup over edges. A mutant of anything else (the model, its edges, the noise
#: design, an evaluator of the claims) changes the run in ways the unmutated run's files do not show: not computed,
#: so a miss fails instead of being excused.
CLASSDP_MODELLED = {
    ("dpgrid.mechanisms.gaussian_class", "release"),
    ("dpgrid.privacy.gaussian_loss", "delta_sup_over_edges"),
}


def classdp(m, base: Path) -> Violation | None:
    from dpgrid.mechanisms.gaussian_class import load_class_model
    from dpgrid.privacy import gaussian_loss as gl

    def passed_on(q, noise_cov, rng):
        return np.asarray(noise_cov, dtype=float)

    if (m.module, m.attribute) not in CLASSDP_MODELLED:
        return None
    noise_of = _mutated(m, "dpgrid.mechanisms.gaussian_class", "release", passed_on)
    mutates_sup = (m.module, m.attribute) == ("dpgrid.privacy.gaussian_loss", "delta_sup_over_edges")
    claim_sup = m.make(gl.delta_sup_over_edges) if mutates_sup else None
    worst = (0.0, "")
    for setting in ("synthetic", "forecast"):
        model = load_class_model(base / f"results/quick/classdp/{setting}/model.npz")
        claims = _read_claims(base, setting)
        for path in sorted(glob.glob(str(base / f"results/quick/classdp/{setting}/mechanisms_rho*.npz"))):
            z = np.load(path)
            rho = float(z["rho"])
            for mech in ("proposed", "white"):
                c = claims[(claims["mechanism"] == mech) & np.isclose(claims["rho"].astype(float), rho)]
                eps = c["epsilon"].to_numpy(dtype=float)
                noise = np.array([noise_of(None, s, None) for s in z[mech]])
                rel = model.with_noise(noise)
                true = gl.delta_sup_over_edges(rel.means, rel.covs, _directed(rel.edges), eps).delta
                if claim_sup is None:
                    claimed = c["claimed_delta"].to_numpy(dtype=float)
                else:
                    rel0 = model.with_noise(z[mech])
                    claimed = claim_sup(rel0.means, rel0.covs, rel0.edges, eps).delta
                for e, t, cl in zip(eps, true, claimed, strict=True):
                    r = t / cl if cl > 0 else (np.inf if t > 0 else 1.0)
                    if r > worst[0]:
                        worst = (float(r), f"{setting} rho {rho:g} {mech} eps {e:g}: {t:.4g} vs claim {cl:.4g}")
    return Violation(worst[0], "delta", worst[1])


def _read_claims(base: Path, setting: str):
    import pandas as pd

    files = sorted(glob.glob(str(base / f"results/quick/classdp/{setting}/audit_rho*.csv")))
    if not files:
        raise FileNotFoundError(f"{base}/results/quick/classdp/{setting}/audit_rho*.csv: no finished quick run there")
    return pd.concat([pd.read_csv(f) for f in files], ignore_index=True)


def blowfish_population(base: Path):
    """The audit job's settings and population: the quick configuration of ``base`` and its root seed."""
    from dpgrid.core.config import load_config
    from dpgrid.core.seeds import job_rng
    from dpgrid.papers.blowfish.day import draw_day_population, settings_from_config
    from dpgrid.papers.blowfish.paper import PAPER

    cfg = load_config([base / "config/config.yaml", base / "config/quick.yaml"])
    s = settings_from_config(cfg["blowfish"])
    return s, draw_day_population(s, job_rng(cfg["seed"], PAPER, "privacy_audit"))


#: the blowfish functions whose mutation :func:`blowfish` models; any other target is not computed
BLOWFISH_MODELLED = {
    ("dpgrid.models.occupancy", "HouseholdPopulation.sensitivity"),
    ("dpgrid.mechanisms.blowfish_pricing", "blowfish_noise_parameter"),
    ("dpgrid.mechanisms.blowfish_pricing", "naive_noise_parameter"),
    ("dpgrid.mechanisms.blowfish_pricing", "laplace_noise"),
}


def blowfish(m, base: Path) -> Violation | None:
    from dpgrid.mechanisms import blowfish_pricing as bp
    from dpgrid.models import occupancy as occ
    from dpgrid.papers.blowfish.privacy_audit import possible_states

    if (m.module, m.attribute) not in BLOWFISH_MODELLED:
        return None  # e.g. the Laplace draw inside release_rates or the naive bound's settings: not modelled here

    s, pop = blowfish_population(base)
    change = np.asarray(pop.bounds, dtype=float).max(axis=1)
    both = possible_states(pop).all(axis=2)
    sens_prop = _mutated(
        m, "dpgrid.models.occupancy", "HouseholdPopulation.sensitivity", occ.HouseholdPopulation.sensitivity
    )
    noise_param = _mutated(
        m, "dpgrid.mechanisms.blowfish_pricing", "blowfish_noise_parameter", bp.blowfish_noise_parameter
    )
    naive_param = _mutated(m, "dpgrid.mechanisms.blowfish_pricing", "naive_noise_parameter", bp.naive_noise_parameter)
    lap = _mutated(m, "dpgrid.mechanisms.blowfish_pricing", "laplace_noise", bp.laplace_noise)
    lam = {
        "blowfish": noise_param(occ.prior_support(pop), sens_prop.fget(pop), s.alpha)[0],
        "naive": naive_param(s.steps, s.alpha, s.u_max),
    }
    worst = (0.0, "")
    for mech, protected in (("blowfish", both), ("naive", np.ones_like(both))):
        need = s.alpha * np.where(protected, change[None, :], 0.0).max(axis=1)
        eff = s.epsilon * np.abs(lap(lam[mech], s.epsilon, np.ones(s.steps)))  # the drawn Laplace scale times eps
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(need > 0, need / eff, 1.0)
        t = int(np.argmax(r))
        if r[t] > worst[0]:
            worst = (float(r[t]), f"{mech} step {t}: lambda {eff[t]:.4g} vs alpha max X_h {need[t]:.4g}")
    return Violation(worst[0], "eps", worst[1])


MEASURES = {"classdp": classdp, "blowfish": blowfish}


def measure(m, base: Path) -> Violation | None:
    """The mutant's violation ratio on the unmutated quick run in ``base`` (None: not computed for its paper)."""
    f = MEASURES.get(m.paper)
    return None if f is None else f(m, Path(base))
