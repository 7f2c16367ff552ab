"""The classdp black-box audit (dpgrid.papers.classdp.privacy_audit): both orientations of every edge, the claimed
delta of the accounting holds, and a release with too little noise is violated."""

import numpy as np

from dpgrid.mechanisms import gaussian_class as gc
from dpgrid.papers.classdp import privacy_audit as pa
from dpgrid.privacy.gaussian_loss import hockey_stick_sup_over_edges

AUDIT = {"samples": 20000, "pilot_samples": 500}


def _model():
    means = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.5]])
    covs = np.array([np.eye(2) * s for s in (0.3, 0.6, 1.0)])
    return gc.ClassGaussianModel(means, covs, np.array([[0, 1], [1, 0], [1, 2], [2, 1]]))


def test_directed_edges_are_symmetric():
    m = gc.ClassGaussianModel(np.zeros((3, 1)), np.ones((3, 1, 1)), np.array([[0, 1], [1, 0], [2, 1], [1, 2]]))
    assert pa.directed_edges(m) == [(0, 1), (1, 0), (1, 2), (2, 1)]


def test_tight_claim_holds_and_half_noise_is_violated(monkeypatch):
    model = _model()
    noise = np.array([np.eye(2) * 0.5] * 3)
    rel = model.with_noise(noise)
    eps = 0.5
    claim = float(hockey_stick_sup_over_edges(rel.means, rel.covs, rel.edges, np.array([eps])).delta_hs[0])
    rows = pa.audit_rows(
        model, noise, [(eps, claim)], mechanism="m", setting="s", audit=AUDIT, rng=np.random.default_rng(1), level=0.999
    )
    assert rows[0]["verdict"] == "holds" and rows[0]["neighbours_searched"] == 4
    orig = gc.release
    monkeypatch.setattr(pa, "release", lambda q, cov, rng: orig(q, 0.05 * np.asarray(cov), rng))
    rows = pa.audit_rows(
        model, noise, [(eps, claim)], mechanism="m", setting="s", audit=AUDIT, rng=np.random.default_rng(1), level=0.999
    )
    assert rows[0]["verdict"] == "violated"
