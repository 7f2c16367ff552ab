"""classdp: black-box privacy audit of the class-based Gaussian mechanism (Algorithm 1 + eq. (50)) and its white
baseline (Ramakrishna et al., *Differential Privacy for Class-based Data*, Definition 1, Sec. IV).

The release of label X is q~ = q + eta, q ~ N(mu_X, Sigma_X) (the class data), eta ~ N(0, Sigma_eta|X); the
claim is the delta(eps) of the mechanism's accounting (the sup over the edges of the class graph, Definition 1)
at the audited eps. The auditor samples the releases through the pipeline's release code
(:func:`dpgrid.mechanisms.gaussian_class.release`) and searches every directed edge of the class graph, both
orientations of each stored edge (brute force), never the accounting's worst edge. Each edge is piloted with
its own Gaussian likelihood-ratio and Fisher attacks fitted on the samples (not the claimed densities); the
best is tested on fresh samples (:mod:`dpgrid.privacy.blackbox_audit`). The hockey-stick delta bounded here is
at most the PDP delta of the claim, so a bound above the claim is a violation of either.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.gaussian_class import ClassGaussianModel, load_class_model, release
from dpgrid.papers.classdp.paper import PAPER
from dpgrid.privacy import blackbox_audit as ba


def label_sampler(model: ClassGaussianModel, noise_covs: np.ndarray, i: int):
    """Releases of label ``i``: class data drawn from its Gaussian, then the mechanism's noise."""

    def sample(rng, n):
        q = rng.multivariate_normal(model.means[i], model.covs[i], size=n, method="cholesky")
        return release(q, noise_covs[i], rng)

    return sample


def directed_edges(model: ClassGaussianModel) -> list[tuple[int, int]]:
    """Every edge of the class graph in both orientations (the neighbour relation is symmetric, eq. (3))."""
    pairs = {(int(a), int(b)) for a, b in model.edges.tolist()}
    pairs |= {(b, a) for a, b in pairs}
    return sorted(pairs)


def audit_rows(
    model: ClassGaussianModel,
    noise_covs: np.ndarray,
    claims: list[tuple[float, float]],
    *,
    mechanism: str,
    setting: str,
    audit: dict,
    rng,
    level: float,
) -> list[dict]:
    """One row per claimed (eps, delta) of ``mechanism`` (noise covariances ``noise_covs``)."""
    edges = directed_edges(model)
    if not edges:
        return []
    rows = []
    pilot = int(audit["pilot_samples"])
    if pilot == int(audit["samples"]):
        raise ValueError(
            f"classdp privacy audit: samples ({pilot}) must differ from pilot_samples (the pilot is shared)"
        )
    pool: dict[int, np.ndarray] = {}

    def pooled(i):
        """Label i's sampler; its pilot draws are drawn once and shared by every edge and eps."""
        fresh = label_sampler(model, noise_covs, i)

        def sample(r, n):
            if n != pilot:
                return fresh(r, n)
            if i not in pool:
                pool[i] = fresh(r, n)
            return pool[i]

        return sample

    for eps, delta in claims:
        cands = [ba.Candidate(f"{model.label(i)} -> {model.label(j)}", pooled(i), pooled(j)) for i, j in edges]
        res = ba.search_and_audit(
            cands,
            eps,
            pilot_samples=pilot,
            samples=int(audit["samples"]),
            level=level,
            rng=rng,
            fitted=("fisher", "gaussian_llr"),
        )
        rows.append(
            ba.audit_row(
                paper="classdp",
                mechanism=mechanism,
                setting=setting,
                epsilon=eps,
                claimed_delta=delta,
                result=res,
                level=level,
            )
        )
    return rows


def privacy_audit_job(job) -> None:
    """Rule ``classdp_privacy_audit``: results/classdp/privacy_audit.csv, both settings, the proposed and white
    mechanisms at every rho, at the audited eps (``classdp.audit.epsilons``); the claimed delta of each is the
    ``claimed_delta`` of the setting's accounting table (results/classdp/<setting>/audit.csv)."""
    level = float(job.params.level)
    rows = []
    for setting in job.params.settings:
        model = load_class_model(job.input[f"model_{setting}"])
        claims = read_table(job.input[f"audit_{setting}"])
        rng = job_rng(job.params.seed, PAPER, "privacy_audit", setting)
        for path in job.input[f"mechanisms_{setting}"]:
            z = np.load(path)
            rho = float(z["rho"])
            for mech in ("proposed", "white"):
                c = claims[(claims["mechanism"] == mech) & np.isclose(claims["rho"].astype(float), rho)]
                pairs = [(float(e), float(d)) for e, d in zip(c["epsilon"], c["claimed_delta"], strict=True)]
                rows += audit_rows(
                    model,
                    z[mech],
                    pairs,
                    mechanism=mech,
                    setting=f"{setting}, rho {rho:g}",
                    audit=job.params.audit,
                    rng=rng,
                    level=level,
                )
    write_table(pd.DataFrame(rows, columns=list(ba.AUDIT_COLUMNS)), job.output.table)
