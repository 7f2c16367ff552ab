"""classdp: black-box privacy audit of the class-based Gaussian mechanism (Algorithm 1 + eq. (50)) and its white
baseline (Ramakrishna et al., *Differential Privacy for Class-based Data*, Definition 1, Sec. IV).

The release of label X is q~ = q + eta, q ~ N(mu_X, Sigma_X) (the class data), eta ~ N(0, Sigma_eta|X); the
claim is the delta(eps) of the mechanism's accounting (the sup over the edges of the class graph, Definition 1)
at the audited eps. The auditor samples the releases through the pipeline's release code
(:func:`dpgrid.mechanisms.gaussian_class.release`) and searches every directed edge of the class graph, rebuilt from
the paper's neighbour relation (:func:`neighbour_pairs`, not the model's stored edges; brute force), never the
accounting's worst edge. Each edge is piloted with
its own Gaussian likelihood-ratio and Fisher attacks fitted on the samples (not the claimed densities); the
best is tested on fresh samples (:mod:`dpgrid.privacy.blackbox_audit`). The hockey-stick delta bounded there is
at most the PDP delta of the claim, so a bound above the claim is a violation of either.

The claim is a PDP delta (Pr[L > eps]), which the hockey-stick bound can miss by a wide margin (noise with its
correlations dropped). Each row therefore also carries a *model-based* PDP bound (:mod:`dpgrid.privacy.pdp_audit`:
both releases modelled as Gaussian, checked on whitened marginals, means and covariances fitted to fresh samples of
the edge with the largest plug-in PDP estimate on the pilot draws, exact PDP delta of the fitted pair, parametric
bootstrap lower bound). The row's ``delta_lower_bound`` is the larger of the two bounds, both lower bounds on the
claimed PDP delta; they share the row's error probability (Bonferroni: (1 - level) / 2 each). ``attack`` names both.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpgrid.core.io import read_table, write_table
from dpgrid.core.seeds import job_rng
from dpgrid.mechanisms.gaussian_class import ClassGaussianModel, load_class_model, release
from dpgrid.papers.classdp.paper import PAPER
from dpgrid.privacy import blackbox_audit as ba
from dpgrid.privacy import pdp_audit


def label_sampler(model: ClassGaussianModel, noise_covs: np.ndarray, i: int):
    """Releases of label ``i``: class data drawn from its Gaussian, then the mechanism's noise."""

    def sample(rng, n):
        q = rng.multivariate_normal(model.means[i], model.covs[i], size=n, method="cholesky")
        return release(q, noise_covs[i], rng)

    return sample


def neighbour_pairs(n_labels: int, groups=None) -> list[tuple[int, int]]:
    """The paper's neighbour relation, rebuilt by the auditor from the labels' groups, never from the edges the
    mechanism's model stores: every ordered pair of distinct labels of one group (Sec. VI: the households of one
    cluster; Sec. V: the synthetic classes are all neighbours, one group). Both orientations: the relation is
    symmetric (eq. 3)."""
    g = np.zeros(n_labels, dtype=int) if groups is None else np.asarray(groups)
    if g.shape != (n_labels,):
        raise ValueError(f"classdp privacy audit: {g.size} groups for {n_labels} labels")
    return [(i, j) for i in range(n_labels) for j in range(n_labels) if i != j and g[i] == g[j]]


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
    groups=None,
) -> list[dict]:
    """One row per claimed (eps, delta) of ``mechanism`` (noise covariances ``noise_covs``), over the neighbours of
    :func:`neighbour_pairs` (``groups``: the labels' groups; None: all labels are neighbours)."""
    edges = neighbour_pairs(len(model.means), groups)
    if not edges:
        return []
    rows = []
    pilot = int(audit["pilot_samples"])
    if pilot in (int(audit["samples"]), int(audit.get("pdp_samples", audit["samples"]))):
        raise ValueError(
            f"classdp privacy audit: samples and pdp_samples must differ from pilot_samples ({pilot}; the pilot is "
            "shared)"
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

    half_level = 1.0 - 0.5 * (1.0 - level)  # Bonferroni: hockey-stick and model-based PDP bound share 1 - level
    results = []
    for eps, _ in claims:
        cands = [ba.Candidate(f"{model.label(i)} -> {model.label(j)}", pooled(i), pooled(j)) for i, j in edges]
        results.append(
            ba.search_and_audit(
                cands,
                eps,
                pilot_samples=pilot,
                samples=int(audit["samples"]),
                level=half_level,
                rng=rng,
                fitted=("fisher", "gaussian_llr"),
            )
        )
    pdp = pdp_bounds(
        model,
        edges,
        [e for e, _ in claims],
        {i: pooled(i) for i in {k for e in edges for k in e}},
        audit,
        rng,
        half_level,
        pilot,
    )
    for (eps, delta), res, (pair, bound, normal_p) in zip(claims, results, pdp, strict=True):
        row = ba.audit_row(
            paper="classdp",
            mechanism=mechanism,
            setting=setting,
            epsilon=eps,
            claimed_delta=delta,
            result=res,
            level=level,
        )
        hs_lb = row["delta_lower_bound"]
        pdp_text = f"{pdp_audit.METHOD}, normality p {normal_p:.2g}: " + (
            f"{bound:.4g} on {pair}"
            if np.isfinite(bound)
            else "not applied ("
            + ("Gaussian model rejected" if normal_p < 1e-3 else "bootstrap bias above its sd: non-regular")
            + ")"
        )
        row["attack"] = f"hockey-stick {row['attack']}: {hs_lb:.4g}; {pdp_text}"
        if np.isfinite(bound) and bound > hs_lb:
            row["delta_lower_bound"] = float(bound)
            row["pair"] = pair
            row["attack"] = f"{pdp_text}; hockey-stick {res.pair.attack_name}: {hs_lb:.4g} on {res.chosen}"
        row["verdict"] = ba.verdict(row["delta_lower_bound"], delta)
        rows.append(row)
    return rows


def pdp_bounds(model, edges, eps_list, samplers, audit, rng, level, pilot) -> list[tuple[str, float, float]]:
    """Model-based PDP bound at each eps of ``eps_list``: (pair, lower bound, normality p-value) per eps.

    The directed edge (i, j) of each eps is the one with the largest plug-in estimate of Pr_i[L_ij > eps] on the
    pilot draws (Gaussians fitted to each label's pilot draws, L_ij evaluated at label i's own draws: a ranking
    only); the bound then comes from ``pdp_samples`` fresh draws per label of that edge
    (:func:`dpgrid.privacy.pdp_audit.pdp_lower_bound`, ``pdp_bootstrap`` parametric replicates)."""
    from scipy import stats

    labels = sorted(samplers)
    draws = {i: np.asarray(samplers[i](rng, pilot), dtype=float).reshape(pilot, -1) for i in labels}
    fits = {i: pdp_audit.fit_gaussian(draws[i]) for i in labels}
    loglik = {}
    for i in labels:
        for j in labels:
            m, c = fits[j]
            loglik[i, j] = stats.multivariate_normal(m, c, allow_singular=True).logpdf(draws[i])
    eps_arr = np.asarray(eps_list, dtype=float)
    est = np.array([((loglik[i, i] - loglik[i, j])[:, None] > eps_arr).mean(0) for i, j in edges])
    best = [edges[int(k)] for k in np.argmax(est, axis=0)]
    out: list[tuple[str, float, float] | None] = [None] * len(eps_arr)
    n = int(audit.get("pdp_samples", audit["samples"]))
    for edge in dict.fromkeys(best):
        idx = [k for k, e in enumerate(best) if e == edge]
        i, j = edge
        res = pdp_audit.pdp_lower_bound(
            samplers[i](rng, n),
            samplers[j](rng, n),
            eps_arr[idx],
            level=level,
            rng=rng,
            bootstrap=int(audit.get("pdp_bootstrap", 50)),
        )
        for k, lb in zip(idx, res.delta_lower_bound, strict=True):
            out[k] = (f"{model.label(i)} -> {model.label(j)}", float(lb), res.normal_p)
    return out


def privacy_audit_job(job) -> None:
    """Rule ``classdp_privacy_audit``: results/classdp/privacy_audit.csv, both settings, the proposed and white
    mechanisms at every rho, at the audited eps (``classdp.audit.epsilons``); the claimed delta of each is the
    ``claimed_delta`` of the setting's accounting table (results/classdp/<setting>/audit.csv)."""
    level = float(job.params.level)
    rows = []
    for setting in job.params.settings:
        model = load_class_model(job.input[f"model_{setting}"])
        with np.load(job.input[f"model_{setting}"], allow_pickle=False) as stored:
            groups = stored["cluster"] if "cluster" in stored.files else None  # the forecast's clusters (Sec. VI)
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
                    groups=groups,
                )
    write_table(pd.DataFrame(rows, columns=list(ba.AUDIT_COLUMNS)), job.output.table)
