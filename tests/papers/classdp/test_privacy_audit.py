"""The classdp black-box audit (dpgrid.papers.classdp.privacy_audit): both orientations of every edge, the claimed
(PDP) delta of the accounting holds, a release with too little noise is violated, and so is one with the noise's
correlations dropped (caught by the model-based PDP bound, not by the hockey-stick bound)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.mechanisms import gaussian_class as gc
from dpgrid.papers.classdp import privacy_audit as pa
from dpgrid.privacy.gaussian_loss import delta_sup_over_edges, hockey_stick_sup_over_edges

AUDIT = {"samples": 20000, "pilot_samples": 500, "pdp_samples": 20000, "pdp_bootstrap": 50}


def _model():
    means = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.5]])
    covs = np.array([np.eye(2) * s for s in (0.3, 0.6, 1.0)])
    return gc.ClassGaussianModel(means, covs, gc.complete_edges_within_groups([0, 0, 0]))


@given(groups=st.lists(st.integers(0, 3), min_size=1, max_size=9))
def test_neighbour_pairs_are_the_ordered_pairs_within_groups(groups):
    pairs = pa.neighbour_pairs(len(groups), groups)
    assert len(pairs) == len(set(pairs)) == sum(groups.count(g) * (groups.count(g) - 1) for g in set(groups))
    assert all(i != j and groups[i] == groups[j] and (j, i) in pairs for i, j in pairs)
    assert pa.neighbour_pairs(len(groups)) == [(i, j) for i in range(len(groups)) for j in range(len(groups)) if i != j]


def test_the_audit_searches_the_relation_not_the_stored_edges():
    """A model whose stored edges drop a neighbouring pair (its accounting then misses that pair's delta) is
    violated: the audit rebuilds the relation."""
    model = _model()
    noise = np.array([np.eye(2) * 0.5] * 3)
    shrunk = gc.ClassGaussianModel(model.means, model.covs, np.array([[0, 1], [1, 0], [1, 2], [2, 1]]))
    rel = shrunk.with_noise(noise)
    eps = 2.0
    claim = float(delta_sup_over_edges(rel.means, rel.covs, rel.edges, np.array([eps])).delta[0])
    full = model.with_noise(noise)
    assert float(delta_sup_over_edges(full.means, full.covs, full.edges, np.array([eps])).delta[0]) > 2 * claim
    rows = pa.audit_rows(
        shrunk,
        noise,
        [(eps, claim)],
        mechanism="m",
        setting="s",
        audit=AUDIT,
        rng=np.random.default_rng(1),
        level=0.999,
    )
    assert rows[0]["neighbours_searched"] == 6 and rows[0]["verdict"] == "violated"


def test_tight_claim_holds_and_half_noise_is_violated(monkeypatch):
    model = _model()
    noise = np.array([np.eye(2) * 0.5] * 3)
    rel = model.with_noise(noise)
    eps = 0.5
    claim = float(delta_sup_over_edges(rel.means, rel.covs, rel.edges, np.array([eps])).delta[0])
    rows = pa.audit_rows(
        model, noise, [(eps, claim)], mechanism="m", setting="s", audit=AUDIT, rng=np.random.default_rng(1), level=0.999
    )
    assert rows[0]["verdict"] == "holds" and rows[0]["neighbours_searched"] == 6
    orig = gc.release
    monkeypatch.setattr(pa, "release", lambda q, cov, rng: orig(q, 0.05 * np.asarray(cov), rng))
    rows = pa.audit_rows(
        model, noise, [(eps, claim)], mechanism="m", setting="s", audit=AUDIT, rng=np.random.default_rng(1), level=0.999
    )
    assert rows[0]["verdict"] == "violated"


def test_dropped_noise_correlations_break_the_pdp_claim_only(monkeypatch):
    """Correlated noise released with its correlations dropped: the true PDP delta rises above the claim while the
    true hockey-stick delta stays below it; the row is violated by the model-based PDP bound."""
    means = np.array([[0.0, 0.0, 0.0], [0.6, -0.6, 0.3]])
    covs = np.array([np.eye(3) * 0.05, np.eye(3) * 0.05])
    model = gc.ClassGaussianModel(means, covs, np.array([[0, 1], [1, 0]]))
    corr = np.array([[1.0, -0.8, 0.5], [-0.8, 1.0, -0.6], [0.5, -0.6, 1.0]])
    noise = np.array([0.3 * corr, 0.3 * corr])
    rel = model.with_noise(noise)
    eps = 0.5
    claim = float(delta_sup_over_edges(rel.means, rel.covs, rel.edges, np.array([eps])).delta[0])
    diag = np.array([np.diag(np.diag(c)) for c in noise])
    mut = model.with_noise(diag)
    true_pdp = float(delta_sup_over_edges(mut.means, mut.covs, mut.edges, np.array([eps])).delta[0])
    true_hs = float(hockey_stick_sup_over_edges(mut.means, mut.covs, mut.edges, np.array([eps])).delta_hs[0])
    assert true_hs < claim < true_pdp - 0.05
    kw = {"mechanism": "m", "setting": "s", "audit": AUDIT, "level": 0.9999}
    row = pa.audit_rows(model, noise, [(eps, claim)], rng=np.random.default_rng(3), **kw)[0]
    assert row["verdict"] == "holds" and "model-based PDP" in row["attack"]
    orig = gc.release
    monkeypatch.setattr(pa, "release", lambda q, cov, rng: orig(q, np.diag(np.diag(cov)), rng))
    row = pa.audit_rows(model, noise, [(eps, claim)], rng=np.random.default_rng(3), **kw)[0]
    assert row["verdict"] == "violated" and row["attack"].startswith("model-based PDP")
