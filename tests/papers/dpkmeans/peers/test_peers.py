"""Peers (workflow/papers/dpkmeans/peers.smk): the peer scripts' shared logic with fake peers, the eq. (15) feasibility and
exact-delta accounting against closed forms and Monte Carlo, the isolation of the peer environments, and the
dpgrid side (table, claims, figure) on tiny inputs. No peer package is installed here: the real peers run only in
CI's peers step (.ci/check_peers)."""

from __future__ import annotations

import ast
import importlib.util
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm

from tests.helpers.repo import REPO

PEERS_DIR = REPO / "workflow" / "peers"


def _peerkit():
    spec = importlib.util.spec_from_file_location("peerkit_under_test", PEERS_DIR / "peerkit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


pk = _peerkit()


# ------------------------------------------------------------------------------------------------
# file exchange


def _clustering_npz(path, X_all, is_outlier, centroids, labels, k):
    np.savez(path, X_all=X_all, is_outlier=is_outlier, centroids=centroids, labels=labels, k=k)
    return path


def test_load_clustering_drops_outliers_and_names_bad_fields(tmp_path):
    X = np.arange(12.0).reshape(6, 2)
    out = np.array([False, True, False, False, False, False])
    C = np.array([[0.0, 1.0], [8.0, 9.0]])
    d = pk.load_clustering(_clustering_npz(tmp_path / "c.npz", X, out, C, np.array([0, 0, 1, 1, 1]), 2))
    np.testing.assert_array_equal(d["X"], X[~out])
    assert d["k"] == 2 and d["labels"].tolist() == [0, 0, 1, 1, 1]
    np.savez(tmp_path / "m.npz", X_all=X, k=2)
    with pytest.raises(ValueError, match=r"m\.npz: missing field\(s\) \['is_outlier', 'centroids', 'labels'\]"):
        pk.load_clustering(tmp_path / "m.npz")
    with pytest.raises(ValueError, match=r"b\.npz: field labels must hold 5 cluster indices in \[0, 2\)"):
        pk.load_clustering(_clustering_npz(tmp_path / "b.npz", X, out, C, np.array([0, 0, 1, 1, 2]), 2))


def test_save_npz_is_atomic_and_runtime_csv_has_one_row_per_run(tmp_path):
    pk.save_npz(tmp_path / "sub" / "a.npz", x=np.arange(3), s="v")
    with np.load(tmp_path / "sub" / "a.npz") as z:
        assert z["x"].tolist() == [0, 1, 2] and str(z["s"]) == "v"
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["a.npz"]  # no temporary file left

    class Unsavable:
        def __array__(self, *args, **kwargs):
            raise RuntimeError("cannot convert")

    with pytest.raises(RuntimeError, match="cannot convert"):
        pk.save_npz(tmp_path / "b.npz", x=np.arange(2), y=Unsavable())
    assert not (tmp_path / "b.npz").exists() and [p.name for p in tmp_path.iterdir()] == ["sub"]
    pk.write_runtime(tmp_path / "t.csv", "fake", 0.5, [1.25, 0.5])
    assert (tmp_path / "t.csv").read_text() == "method,eps_c,run,seconds\nfake,0.5,0,1.250000\nfake,0.5,1,0.500000\n"


def test_run_seeds_are_reproducible_distinct_and_prefix_stable():
    a = pk.run_seeds(7, 5)
    assert a == pk.run_seeds(7, 5) and len(set(a)) == 5 and a[:3] == pk.run_seeds(7, 3)
    assert a != pk.run_seeds(8, 5)
    with pytest.raises(ValueError, match="at least one run"):
        pk.run_seeds(7, 0)


def test_load_modules_skips_the_package_init_and_resolves_relative_imports(tmp_path):
    pkg = tmp_path / "fakepeer_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise ImportError('ray is not installed')\n")
    (pkg / "_core.py").write_text("VALUE = 41\n")
    (pkg / "_api.py").write_text("from ._core import VALUE\n\ndef answer():\n    return VALUE + 1\n")
    try:
        mods = pk.load_modules("fakepeer_pkg", pkg, ["_core", "_api"])
        assert mods["_api"].answer() == 42 and sys.modules["fakepeer_pkg._api"] is mods["_api"]
        with pytest.raises(ValueError, match=r"_missing\.py: missing module fakepeer_pkg\._missing"):
            pk.load_modules("fakepeer_pkg", pkg, ["_missing"])
    finally:
        for name in [m for m in sys.modules if m.startswith("fakepeer_pkg")]:
            del sys.modules[name]


# ------------------------------------------------------------------------------------------------
# budget bookkeeping (diffprivlib-style DPLloyd with fake mechanisms)


class FakeMechanism:
    def __init__(self, *, epsilon, delta=0.0, sensitivity=1.0):
        self.epsilon, self.delta, self.sensitivity = epsilon, delta, sensitivity

    def randomise(self, value):
        return value + 0.0


class FakeGeometric(FakeMechanism):
    pass


class FakeLaplace(FakeMechanism):
    pass


def _fake_dplloyd_module(e_count, e_dim, delta_dim=0.0):
    """A module like diffprivlib.models.k_means: each iteration builds one count mechanism and randomises the count
    of every non-empty cluster, then one mechanism per dimension of its sum."""
    import types

    mod = types.ModuleType("fake_k_means")
    mod.GeometricFolded, mod.LaplaceBoundedDomain = FakeGeometric, FakeLaplace

    class KMeans:
        def __init__(self, K, d, iters, empty=()):
            self.K, self.d, self.iters, self.empty = K, d, iters, set(empty)

        def fit(self):
            for _ in range(self.iters):
                self._update_centers()
            return self

        def _update_centers(self):
            geo = mod.GeometricFolded(epsilon=e_count)
            for k in range(self.K):
                if k in self.empty:
                    continue
                geo.randomise(10)
                for _ in range(self.d):
                    mod.LaplaceBoundedDomain(epsilon=e_dim, delta=delta_dim).randomise(1.0)

    mod.KMeans = KMeans
    return mod


@pytest.mark.parametrize("K,d,iters", [(3, 4, 2), (6, 25, 7), (1, 1, 1)])
def test_recorder_composes_parallel_over_clusters_and_sequential_over_iterations(K, d, iters):
    e_count, e_dim = 0.03, 0.011
    mod = _fake_dplloyd_module(e_count, e_dim, delta_dim=1e-6)
    rec = pk.BudgetRecorder()
    Geo = pk.recording_mechanism(mod.GeometricFolded, rec, "count", starts_group=True)
    Lap = pk.recording_mechanism(mod.LaplaceBoundedDomain, rec, "sum")
    Model = pk.calling_first(mod.KMeans, "_update_centers", rec.begin_iteration)
    with pk.patched(mod, "GeometricFolded", Geo), pk.patched(mod, "LaplaceBoundedDomain", Lap):
        Model(K, d, iters, empty=[0] if K > 1 else []).fit()
    assert mod.GeometricFolded is FakeGeometric and mod.LaplaceBoundedDomain is FakeLaplace  # restored
    eps, delta = rec.spent()
    assert math.isclose(eps, iters * (e_count + d * e_dim), rel_tol=1e-12)  # one cluster per point: no factor K
    assert math.isclose(delta, iters * d * 1e-6, rel_tol=1e-12)
    assert len(rec.per_iteration()) == iters and len(rec.iterations[0]) == (K - 1 if K > 1 else 1)
    k = rec.kinds()
    assert math.isclose(k["count"], iters * e_count) and math.isclose(k["sum"], iters * d * e_dim)


def test_recorder_refuses_calls_out_of_order_and_patched_restores_on_error():
    rec = pk.BudgetRecorder()
    with pytest.raises(RuntimeError, match="before any iteration"):
        rec.begin_group()
    rec.begin_iteration()
    with pytest.raises(RuntimeError, match="outside a group"):
        rec.record("sum", 0.1, 0.0)
    rec.begin_group()
    with pytest.raises(ValueError, match="budget"):
        rec.record("sum", -0.1, 0.0)
    mod = _fake_dplloyd_module(0.1, 0.1)
    with pytest.raises(KeyError), pk.patched(mod, "GeometricFolded", object):
        raise KeyError("boom")
    assert mod.GeometricFolded is FakeGeometric


# ------------------------------------------------------------------------------------------------
# CEDSKMeans instrumentation (a fake module with the peer's structure)


FAKE_CEDSKMEANS = '''
import numpy as np


def _sort_columns_by_norm(matrix):
    return matrix[:, np.argsort(np.linalg.norm(matrix, axis=0))]


def _calculate_langrange_multiplier(matrix, gamma_c):
    return 1.0 / gamma_c


class CEDSKMeans:
    """Like the authors' class: eq. (13) calibrated for dp_epsilon * K * d; a white covariance from its shifts."""

    def __init__(self, n_clusters=8, dp_epsilon=0.1, dp_delta=0.1, *, init=None, n_init=1, max_iter=300,
                 random_state=None):
        self.n_clusters, self.dp_epsilon, self.dp_delta, self.init = n_clusters, dp_epsilon, dp_delta, init

    def _add_dp_noise(self, X):
        self.color_cov = self._calculate_color_noise_covariance(X)
        K, d = self.true_cluster_centers_.shape
        self.cluster_centers_ = self.true_cluster_centers_ + np.random.multivariate_normal(
            np.zeros(K * d), self.color_cov).reshape(K, d)
        self.labels_ = self.true_labels_

    def _calculate_color_noise_covariance(self, X):
        K, d = self.true_cluster_centers_.shape
        cols = []
        for p, x in enumerate(X):
            k = self.true_labels_[p]
            n = np.sum(self.true_labels_ == k)
            u = np.zeros((K, d))
            u[k] = (x - self.true_cluster_centers_[k]) / (n - 1)
            cols.append(u.ravel())
        C = _sort_columns_by_norm(np.array(cols).T)
        eps_total = self.dp_epsilon * K * d
        gamma = eps_total ** 2 / (2 * np.log(2 / self.dp_delta))
        scale = _calculate_langrange_multiplier(C, gamma)
        return (np.linalg.norm(C, axis=0).max() ** 2) * scale * np.eye(K * d)
'''

FAKE_DPKMEANS = """
import numpy as np

from ._cedskmeans import CEDSKMeans


class DPKMeans(CEDSKMeans):
    def fit(self, X, y=None, sample_weight=None):
        C = np.asarray(self.init, dtype=float)
        self.true_labels_ = np.argmin(((X[:, None, :] - C[None]) ** 2).sum(2), axis=1)
        self.true_cluster_centers_ = np.array([X[self.true_labels_ == k].mean(0) for k in range(len(C))])
        self.n_iter_ = 1
        self._add_dp_noise(X)
        return self
"""


def _fake_cedskmeans(root: Path) -> Path:
    src = root / "src" / "cedskmeans"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("raise ImportError('the map-reduce module needs ray')\n")
    (src / "_cedskmeans.py").write_text(FAKE_CEDSKMEANS)
    (src / "_dpkmeans.py").write_text(FAKE_DPKMEANS)
    return src


def test_noise_tap_records_calibration_shifts_and_covariance_and_draws_from_its_seed(tmp_path):
    src = _fake_cedskmeans(tmp_path)
    try:
        mods = pk.load_modules("cedskmeans", src, ["_cedskmeans", "_dpkmeans"])
        rng = np.random.default_rng(0)
        X = np.vstack([rng.normal(0, 1, (6, 2)), rng.normal(5, 1, (5, 2))])
        tap = pk.NoiseTap(123)
        with pk.instrument_cedskmeans(mods["_cedskmeans"], tap):
            km = (
                mods["_dpkmeans"]
                .DPKMeans(n_clusters=2, dp_epsilon=0.5, dp_delta=0.01, init=np.array([[0.0, 0.0], [5.0, 5.0]]))
                .fit(X)
            )
        assert mods["_cedskmeans"].np is np  # restored
        gamma, C, cov = tap.single()
        assert math.isclose(gamma, (0.5 * 2 * 2) ** 2 / (2 * math.log(2 / 0.01)))
        assert C.shape == (4, 11) and np.array_equal(cov, km.color_cov)
        noise = np.random.RandomState(123).multivariate_normal(np.zeros(4), cov).reshape(2, 2)
        np.testing.assert_array_equal(km.cluster_centers_, km.true_cluster_centers_ + noise)
        tap.draw(np.zeros(4), cov)
        with pytest.raises(RuntimeError, match="recorded"):
            tap.single()

        def bad(X):  # a peer that reaches numpy's global random state is refused
            return mods["_cedskmeans"].np.random.normal()

        with (
            pk.instrument_cedskmeans(mods["_cedskmeans"], pk.NoiseTap(1)),
            pytest.raises(AttributeError, match="global random state"),
        ):
            bad(X)
    finally:
        for name in [m for m in sys.modules if m.startswith("cedskmeans")]:
            del sys.modules[name]


# ------------------------------------------------------------------------------------------------
# eq. (15) feasibility and exact delta (dpgrid.mechanisms.colored_centroid_noise, dpgrid.privacy.gaussian)


def test_pdp_epsilon_inverts_the_exact_tail_and_the_exact_calibration():
    from dpgrid.mechanisms.colored_centroid_noise import gamma_c
    from dpgrid.privacy.gaussian import pdp_delta as gaussian_pdp_delta
    from dpgrid.privacy.gaussian import pdp_epsilon

    for D in (0.05, 0.7, 3.0, 40.0):
        for eps in (0.1, 1.0, 25.0):
            dl = float(gaussian_pdp_delta(eps, D))
            if 1e-300 < dl < 1 - 1e-12:
                assert math.isclose(float(pdp_epsilon(dl, D)), eps, rel_tol=1e-7, abs_tol=1e-9)
    for eps, dl in ((0.5, 1e-5), (2.0, 0.01), (100.0, 0.3)):
        assert math.isclose(float(pdp_epsilon(dl, math.sqrt(gamma_c(eps, dl, "exact_pdp")))), eps, rel_tol=1e-10)
    assert float(pdp_epsilon(0.6, 1e-3)) == 0.0 and math.isinf(float(pdp_epsilon(0.01, np.inf)))
    with pytest.raises(ValueError, match="0 < delta < 1"):
        pdp_epsilon(0.0, 1.0)


def test_eq15_feasibility_of_white_noise_matches_the_closed_form():
    from dpgrid.mechanisms.colored_centroid_noise import (
        design_from_covariance,
        eq15_feasibility,
    )

    U = np.array([[0.3, 0.0, 0.0], [0.0, -0.4, 0.0], [0.1, 0.1, 0.1], [0.0, 0.0, 0.2]])
    sigma2, eps, delta = 0.02, 1.5, 1e-3
    q = design_from_covariance(sigma2 * np.eye(3), U, "white").mahalanobis_sq(U, 1.0)
    np.testing.assert_allclose(q, (U**2).sum(1) / sigma2, rtol=1e-12)
    gamma = 4.0
    f = eq15_feasibility(q, gamma, eps, delta)
    D = 0.4 / math.sqrt(sigma2)
    assert f["n_shifts"] == 4 and f["n_violated"] == int(((U**2).sum(1) / sigma2 > gamma).sum()) == 2
    assert math.isclose(f["max_ratio"], D * D / gamma) and math.isclose(f["mahalanobis_sensitivity"], D)
    assert math.isclose(f["exact_delta"], norm.cdf(D / 2 - eps / D), rel_tol=1e-12)
    z = norm.ppf(delta)
    assert math.isclose(f["eps_at_delta"], D * D / 2 - z * D, rel_tol=1e-12)
    with pytest.raises(ValueError, match="gamma > 0"):
        eq15_feasibility(q, 0.0, eps, delta)


def test_design_from_covariance_is_exact_in_the_span_a_lower_bound_outside_and_infinite_without_noise():
    from dpgrid.mechanisms.colored_centroid_noise import design_from_covariance

    rng = np.random.default_rng(3)
    U = rng.normal(size=(7, 2)) @ np.array([[1.0, 0.5, 0.0, 0.2], [0.0, 1.0, 0.3, -0.1]])  # span of dimension 2
    Q = np.linalg.svd(U, full_matrices=False)[2][:2].T
    A = np.array([[2.0, 0.3], [0.3, 0.5]])
    cov_in = Q @ A @ Q.T  # range = span of the shifts: exact
    q = design_from_covariance(cov_in, U, "in").mahalanobis_sq(U, 1.0)
    np.testing.assert_allclose(q, np.einsum("ij,jk,ik->i", U, np.linalg.pinv(cov_in), U), rtol=1e-8)
    B = rng.normal(size=(4, 4))
    full = B @ B.T + 0.1 * np.eye(4)  # a full covariance: the projection can only hide more
    q = design_from_covariance(full, U, "full").mahalanobis_sq(U, 1.0)
    exact = np.einsum("ij,jk,ik->i", U, np.linalg.inv(full), U)
    assert np.all(q <= exact * (1 + 1e-10)) and np.any(q < 0.99 * exact)
    flat = Q[:, :1] @ Q[:, :1].T  # no variance along the second direction of the span
    q = design_from_covariance(flat, U, "flat").mahalanobis_sq(U, 1.0)
    assert np.isinf(q).all()
    with pytest.raises(ValueError, match="covariance of shape"):
        design_from_covariance(np.eye(3), U, "bad")


def test_svd_sampled_covariance_is_what_numpy_draws_from_an_indefinite_covariance():
    from dpgrid.mechanisms.colored_centroid_noise import svd_sampled_covariance

    E = np.linalg.qr(np.random.default_rng(5).normal(size=(3, 3)))[0]
    cov = (E * np.array([2.0, 0.5, -0.3])) @ E.T  # symmetric, one negative eigenvalue (like round-off)
    got = svd_sampled_covariance(cov)
    np.testing.assert_allclose(got, (E * np.array([2.0, 0.5, 0.3])) @ E.T, atol=1e-12)
    psd = (E * np.array([2.0, 0.5, 0.0])) @ E.T
    np.testing.assert_allclose(svd_sampled_covariance(psd), psd, atol=1e-12)
    x = np.random.RandomState(9).multivariate_normal(np.zeros(3), cov, 200_000, check_valid="ignore")
    emp = np.cov(x.T)
    np.testing.assert_allclose(emp, got, atol=0.03)  # sd of each entry about 0.006 here
    assert float(E[:, 2] @ emp @ E[:, 2]) > 0.25  # variance 0.3 along the "negative" direction


def test_exact_delta_of_a_correlated_noise_agrees_with_a_monte_carlo_privacy_loss_audit():
    """Sample the released centroids, compute the privacy loss from the two Gaussian log-densities (scipy), and
    compare Pr(L > eps) with the exact tail eq15_feasibility reports (Clopper-Pearson interval)."""
    from dpgrid.mechanisms.colored_centroid_noise import (
        design_from_covariance,
        eq15_feasibility,
    )
    from dpgrid.privacy.clopper_pearson import clopper_pearson as binomial_interval

    rng = np.random.default_rng(11)
    cov = np.array([[0.5, 0.2, 0.0], [0.2, 0.3, 0.05], [0.0, 0.05, 0.2]])
    U = np.array([[0.4, -0.3, 0.2], [0.1, 0.1, 0.1], [-0.2, 0.5, 0.3]])
    q = design_from_covariance(cov, U, "corr").mahalanobis_sq(U, 1.0)
    eps, n = 1.0, 200_000
    f = eq15_feasibility(q, 1.0, eps, 1e-3)
    u = U[int(np.argmax(q))]
    y = rng.multivariate_normal(np.zeros(3), cov, n)
    L = multivariate_normal(np.zeros(3), cov).logpdf(y) - multivariate_normal(-u, cov).logpdf(y)
    k = int((L > eps).sum())
    lo, hi = binomial_interval(k, n, level=1 - 1e-4)
    assert 0.01 < f["exact_delta"] < 0.5 and lo <= f["exact_delta"] <= hi


def test_centroid_error_matches_clusters_and_is_the_rms_distance():
    from dpgrid.mechanisms.kmeans_loss import centroid_error

    C = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    shift = np.array([[0.3, 0.4], [0.0, 0.0], [-1.0, 0.0]])
    noisy = (C + shift)[[2, 0, 1]]  # released in another order
    assert math.isclose(centroid_error(C, noisy), math.sqrt((0.25 + 0.0 + 1.0) / 3))
    with pytest.raises(ValueError, match="same shape"):
        centroid_error(C, noisy[:2])


# ------------------------------------------------------------------------------------------------
# isolation: dpgrid never imports a peer; the peer scripts import numpy, the peer and peerkit only


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            roots.add((node.module or "").split(".")[0])
    return roots


def test_dpgrid_never_imports_a_peer_package():
    peers = {"diffprivlib", "cedskmeans", "peerkit", "sympy"}
    offenders = {
        str(p.relative_to(REPO)): sorted(_imported_roots(p) & peers)
        for p in sorted((REPO / "src" / "dpgrid").rglob("*.py"))
        if _imported_roots(p) & peers
    }
    offenders |= {
        str(p.relative_to(REPO)): sorted(_imported_roots(p) & peers)
        for p in sorted([*(REPO / "workflow" / "scripts").rglob("*.py"), *(REPO / "workflow" / "papers").rglob("*.py")])
        if _imported_roots(p) & peers
    }
    # the scan sees the papers' scripts (workflow/papers/<paper>/scripts), not only the framework's
    assert (REPO / "workflow" / "papers" / "dpkmeans" / "scripts" / "peers").is_dir()
    assert not offenders, f"dpgrid modules/scripts import peer packages: {offenders}"


@pytest.mark.parametrize(
    "script,peer", [("peerkit.py", None), ("cedskmeans_run.py", None), ("diffprivlib_run.py", "diffprivlib")]
)
def test_peer_scripts_import_only_numpy_the_peer_and_peerkit(script, peer):
    allowed = set(sys.stdlib_module_names) | {"numpy", "peerkit", "__future__"} | ({peer} if peer else set())
    roots = _imported_roots(PEERS_DIR / script)
    assert roots <= allowed, f"{script} imports {sorted(roots - allowed)}"
    assert "numpy" in roots and "dpgrid" not in roots


def test_peer_runs_use_the_peer_environment(workflow_copy):
    """With peers enabled, every peer run executes its script with the peer's interpreter (venv built by
    peers_env from workflow/envs/<peer>.yaml, or that env file under conda), never dpgrid's."""
    from tests.helpers.workflow_dag import plan

    p = plan(workflow_copy, configfiles=["config/quick.yaml", "config/peers.yaml"])
    runs = [j for j in p.values() if j.rule.startswith("peers_") and j.rule.endswith("_run")]
    assert {j.rule for j in runs} == {"peers_cedskmeans_run", "peers_diffprivlib_run"}
    for j in runs:
        peer = j.rule.split("_")[1]
        assert j.param_values["python"] == f"resources/peers/{peer}/venv/bin/python"
        assert f"resources/peers/{peer}/venv.txt" in j.inputs
    envs = {j.wildcards["peer"] for j in p.values() if j.rule == "peers_env"}
    assert envs == {"cedskmeans", "diffprivlib"}
    rules = (REPO / "workflow" / "papers" / "dpkmeans" / "peers.smk").read_text()
    for peer in ("cedskmeans", "diffprivlib"):
        body = rules.split(f"rule peers_{peer}_run:")[1].split("\nrule ")[0]
        assert f'"../../envs/{peer}.yaml"' in body and '"{params.python} workflow/peers/' in body


def test_env_files_pin_every_distribution_exactly(tmp_path):
    from dpgrid.papers.dpkmeans.peers.env import PeerEnvError, check_freeze, parse_freeze, read_env_pins

    py, pins = read_env_pins(REPO / "workflow" / "envs" / "cedskmeans.yaml")
    assert py == "3.11" and pins["numpy"].startswith("1.26") and pins["scikit-learn"].startswith("1.3")
    py, pins = read_env_pins(REPO / "workflow" / "envs" / "diffprivlib.yaml")
    assert pins["diffprivlib"] == "0.6.6" and pins["scikit-learn"] == "1.6.1"
    bad = tmp_path / "bad.yaml"
    bad.write_text("dependencies:\n  - python=3.11\n  - pip:\n      - numpy>=1.26\n")
    with pytest.raises(PeerEnvError, match=r"bad\.yaml: field dependencies.pip has 'numpy>=1.26'"):
        read_env_pins(bad)
    bad.write_text("dependencies:\n  - pip:\n      - numpy==1.26.4\n")
    with pytest.raises(PeerEnvError, match="python=X.Y"):
        read_env_pins(bad)
    installed = parse_freeze("numpy==1.26.4\nScikit_Learn==1.3.2\npip==23.2.1\n")
    check_freeze({"numpy": "1.26.4", "scikit-learn": "1.3.2"}, installed, "env")
    with pytest.raises(PeerEnvError, match="numpy==1.26.4 pinned, 2.0.0 installed"):
        check_freeze({"numpy": "1.26.4"}, {"numpy": "2.0.0"}, "env")
    with pytest.raises(PeerEnvError, match="unpinned distributions installed: ray==2.0"):
        check_freeze({"numpy": "1.26.4"}, {"numpy": "1.26.4", "ray": "2.0"}, "env")


# ------------------------------------------------------------------------------------------------
# end to end on tiny inputs: the peer scripts with fake peers (own processes), then the dpgrid side


FAKE_DIFFPRIVLIB = {
    "diffprivlib/__init__.py": "",
    "diffprivlib/accountant.py": textwrap.dedent("""
        class BudgetAccountant:
            def __init__(self):
                self.spent = []

            def spend(self, epsilon, delta):
                self.spent.append((epsilon, delta))

            def total(self):
                return sum(e for e, _ in self.spent), sum(d for _, d in self.spent)
        """),
    "diffprivlib/models/__init__.py": "from .k_means import KMeans\n",
    "diffprivlib/models/k_means.py": textwrap.dedent('''
        import numpy as np


        class _Mech:
            def __init__(self, *, epsilon, sensitivity=1.0, random_state=None, **kw):
                self.epsilon, self.delta, self.sensitivity = epsilon, 0.0, sensitivity
                self.rs = random_state

            def randomise(self, value):
                return value + self.rs.laplace(0.0, self.sensitivity / self.epsilon)


        class GeometricFolded(_Mech):
            def randomise(self, value):
                return max(1.0, value + round(self.rs.laplace(0.0, 1.0 / self.epsilon)))


        class LaplaceBoundedDomain(_Mech):
            pass


        class KMeans:
            """DPLloyd with 3 iterations, spending TWICE the eps it is told (count and sum each get eps/3 per
            iteration), while its accountant records eps: the recorder must see 2 eps."""

            def __init__(self, n_clusters=8, *, epsilon=1.0, bounds=None, random_state=None, accountant=None):
                self.n_clusters, self.epsilon, self.bounds, self.accountant = n_clusters, epsilon, bounds, accountant
                self.random_state = random_state

            def fit(self, X):
                rs = np.random.RandomState(self.random_state)
                lo, hi = self.bounds
                X = np.clip(X, lo, hi)
                C = X[:self.n_clusters].copy()
                for _ in range(3):
                    labels = np.argmin(((X[:, None] - C[None]) ** 2).sum(2), axis=1)
                    C = self._update_centers(X, C, labels, rs)
                self.labels_ = np.argmin(((X[:, None] - C[None]) ** 2).sum(2), axis=1)
                self.cluster_centers_, self.n_iter_ = C, 3
                self.accountant.spend(self.epsilon, 0)
                return self

            def _update_centers(self, X, C, labels, rs):
                d = X.shape[1]
                geo = GeometricFolded(epsilon=self.epsilon / 3, random_state=rs)
                C = C.copy()
                for k in range(self.n_clusters):
                    if not (labels == k).any():
                        continue
                    n = geo.randomise(float((labels == k).sum()))
                    s = [LaplaceBoundedDomain(epsilon=self.epsilon / (3 * d), sensitivity=float(self.bounds[1][i]),
                                              random_state=rs).randomise(X[labels == k, i].sum()) for i in range(d)]
                    C[k] = np.array(s) / n
                return C
        '''),
}


def _write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _run_peer(script, args, extra_path=None):
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PEERS_DIR)] + ([str(extra_path)] if extra_path else []))
    proc = subprocess.run(
        [sys.executable, str(PEERS_DIR / script), *map(str, args)], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _peers_config():
    return {
        "seed": 3,
        "peers": {"enabled": True, "n_repeats": 3},
        "dpkmeans": {
            "k": 3,
            "kmeans": {"n_init": 2, "max_iter": 100},
            "fig9": {"eps_grid": [1.0, 10.0], "n_repeats": 2, "left_n": 5, "right_n": 5, "right_eps_min": 2.0},
        },
    }


@pytest.fixture(scope="module")
def peer_outputs(tmp_path_factory, rule_job):
    """A tiny Fig. 9 clustering and accuracy table (dpgrid's jobs), and the two peer scripts run with fake peers."""
    from dpgrid.core.io import write_table
    from dpgrid.data.profiles import daily_profiles
    from dpgrid.data.synthetic import synthesize_meter_data
    from dpgrid.papers.dpkmeans.stages.clustering import clustering_job
    from dpgrid.papers.dpkmeans.stages.fig9 import fig9_accuracy_job, fig9_tables_job

    cfg = _peers_config()
    out = tmp_path_factory.mktemp("peers")
    write_table(
        daily_profiles(synthesize_meter_data(60, 2, "2019-01-07", 4, 60, np.random.default_rng(1))),
        out / "profiles.csv",
    )
    clustering_job(
        rule_job(
            "dpkmeans_clustering",
            config=cfg,
            input=dict(profiles=out / "profiles.csv"),
            output=dict(npz=out / "c.npz", table=out / "s.csv", outliers=out / "o.csv"),
        )
    )
    labels = ["1", "10"]
    for e in labels:
        fig9_accuracy_job(
            rule_job(
                "dpkmeans_fig9_accuracy",
                wildcards={"eps": e},
                config=cfg,
                input=dict(npz=out / "c.npz"),
                output=dict(accuracy=out / f"acc_{e}.csv", info=out / f"info_{e}.json"),
            )
        )
    fig9_tables_job(
        rule_job(
            "dpkmeans_fig9_tables",
            config=cfg,
            input=dict(
                npz=out / "c.npz",
                accuracy=[out / f"acc_{e}.csv" for e in labels],
                info=[out / f"info_{e}.json" for e in labels],
            ),
            output=dict(
                accuracy=out / "fig9_accuracy.csv", privacy=out / "p.csv", labels=out / "l.csv", info=out / "i.json"
            ),
        )
    )
    src = _fake_cedskmeans(out / "ced")
    fake_dpl = _write_tree(out / "fakepkgs", FAKE_DIFFPRIVLIB)
    files = {"cedskmeans": [], "diffprivlib": [], "runtime": []}
    for e in labels:
        ced = rule_job("peers_cedskmeans_run", wildcards={"eps": e}, config=cfg).params
        _run_peer(
            "cedskmeans_run.py",
            [
                "--clustering",
                out / "c.npz",
                "--source",
                src,
                "--eps",
                ced.eps,
                "--delta",
                ced.delta,
                "--max-iter",
                ced.max_iter,
                "--repeats",
                ced.repeats,
                "--seed",
                ced.seed,
                "--out",
                out / f"ced_{e}.npz",
                "--runtime",
                out / f"ced_{e}.csv",
            ],
        )
        dpl = rule_job("peers_diffprivlib_run", wildcards={"eps": e}, config=cfg).params
        _run_peer(
            "diffprivlib_run.py",
            [
                "--clustering",
                out / "c.npz",
                "--eps",
                dpl.eps,
                "--bound",
                dpl.bound,
                "--repeats",
                dpl.repeats,
                "--seed",
                dpl.seed,
                "--out",
                out / f"dpl_{e}.npz",
                "--runtime",
                out / f"dpl_{e}.csv",
            ],
            extra_path=fake_dpl,
        )
        files["cedskmeans"].append(out / f"ced_{e}.npz")
        files["diffprivlib"].append(out / f"dpl_{e}.npz")
        files["runtime"] += [out / f"ced_{e}.csv", out / f"dpl_{e}.csv"]
    return out, cfg, files


def test_peer_scripts_record_what_the_fake_peers_do(peer_outputs):
    from dpgrid.papers.dpkmeans.clustering_npz import load_clustering

    out, _, files = peer_outputs
    _, X, sol, _, _ = load_clustering(out / "c.npz")
    K, d = sol.k, X.shape[1]
    with np.load(files["cedskmeans"][0]) as c:
        assert float(c["eps_c"]) == 1.0 and c["noisy"].shape == (3, K, d)
        assert math.isclose(float(c["gamma_c"]), (1.0 * K * d) ** 2 / (2 * math.log(2 / 0.01)))
        np.testing.assert_allclose(c["true_centroids"], sol.centroids, atol=1e-12)
        assert c["shift_matrix"].shape == (K * d, len(X)) and np.array_equal(c["released_labels"], c["true_labels"])
    with np.load(files["diffprivlib"][1]) as p:
        np.testing.assert_allclose(p["spent_eps"], 2 * 10.0, rtol=1e-12)  # what its mechanisms spent
        np.testing.assert_allclose(p["nominal_eps"], 10.0)  # what its accountant says
        assert p["iteration_eps"].shape == (3, 3) and p["labels"].shape == (3, len(X))
    again = out / "again.npz"
    src = out / "ced" / "src" / "cedskmeans"
    for name in ("again", "again2"):
        _run_peer(
            "cedskmeans_run.py",
            [
                "--clustering",
                out / "c.npz",
                "--source",
                src,
                "--eps",
                1.0,
                "--delta",
                0.01,
                "--max-iter",
                300,
                "--repeats",
                3,
                "--seed",
                5,
                "--out",
                out / f"{name}.npz",
                "--runtime",
                out / f"{name}.csv",
            ],
        )
    assert again.read_bytes() == (out / "again2.npz").read_bytes()  # same seed, same bytes


def test_table_claims_and_figure_from_the_peer_files(peer_outputs, tmp_path, rule_job):
    from dpgrid.core.io import read_table
    from dpgrid.mechanisms.colored_centroid_noise import gamma_c
    from dpgrid.papers.dpkmeans.clustering_npz import load_clustering
    from dpgrid.papers.dpkmeans.peers import claims, figures, stages

    out, cfg, files = peer_outputs
    t_out = dict(table=tmp_path / "table.csv", info=tmp_path / "info.json", runtime=tmp_path / "runtime.csv")
    stages.table_job(
        rule_job(
            "peers_table",
            config=cfg,
            input=dict(npz=out / "c.npz", accuracy=out / "fig9_accuracy.csv", **files),
            output=t_out,
        )
    )
    t = read_table(t_out["table"])
    assert t["method"].tolist() == ["colored", "white", "cedskmeans", "diffprivlib"] * 2
    _, X, sol, loo, _ = load_clustering(out / "c.npz")
    K, d = sol.k, X.shape[1]
    g = t.set_index(["method", "eps_c"])
    for m in ("colored", "white"):  # dpgrid's designs: feasible, exact delta = delta_c, eps spent = eps
        assert (t.loc[t["method"] == m, "n_violated"] == 0).all()
        np.testing.assert_allclose(t.loc[t["method"] == m, "max_ratio_own"], 1.0, rtol=1e-6)
        np.testing.assert_allclose(t.loc[t["method"] == m, "exact_delta"], 0.01, rtol=1e-6)
        np.testing.assert_allclose(t.loc[t["method"] == m, "eps_spent"], [1.0, 10.0], rtol=1e-6)
    np.testing.assert_allclose(
        g.loc[("colored", 1.0), "centroid_error_kw"] ** 2 * K, g.loc[("colored", 1.0), "noise_trace"]
    )
    # the fake authors' noise: white, sigma^2 = (naive Delta_c)^2 / gamma_own with gamma_own = eq. 13 at eps K d
    naive = np.array(
        [(X[p] - sol.centroids[sol.labels[p]]) / ((sol.labels == sol.labels[p]).sum() - 1) for p in range(len(X))]
    )
    for eps in (1.0, 10.0):
        g_own = gamma_c(eps * K * d, 0.01, "paper_eq13")
        sigma2 = (naive**2).sum(1).max() / g_own
        q = (loo.shifts**2).sum(1) / sigma2
        row = g.loc[("cedskmeans", eps)]
        assert math.isclose(row["eps_calibrated"], eps * K * d, rel_tol=1e-9)
        assert math.isclose(row["max_ratio_own"], q.max() / g_own, rel_tol=1e-6)
        assert math.isclose(row["max_ratio_stated"], q.max() / gamma_c(eps, 0.01, "exact_pdp"), rel_tol=1e-6)
        assert row["n_violated"] == int((q > g_own * (1 + 1e-9)).sum())
        D = math.sqrt(q.max())
        assert math.isclose(row["eps_spent"], D * D / 2 - norm.ppf(0.01) * D, rel_tol=1e-6)
        assert math.isclose(g.loc[("diffprivlib", eps), "eps_spent"], 2 * eps, rel_tol=1e-12)
        assert math.isclose(g.loc[("diffprivlib", eps), "eps_calibrated"], eps)
    c_out = tmp_path / "claims.csv"
    claims.claims_job(
        rule_job(
            "peers_claims", config=cfg, input=dict(table=t_out["table"], info=t_out["info"]), output=dict(claims=c_out)
        )
    )
    cl = read_table(c_out, keep_default_na=False).set_index("claim_id")
    assert set(cl.index) == {
        "dpkmeans-fig9-colored-vs-diffprivlib",
        "dpkmeans-lemma2-authors-code",
        "dpkmeans-authors-budget",
        "dpkmeans-authors-exact-delta",
        "dpkmeans-diffprivlib-budget",
    }
    assert (cl["paper"] == "dpkmeans").all()
    assert cl.loc["dpkmeans-authors-budget", "reproduced_value"] == f"{K * d:.4g}"
    assert cl.loc["dpkmeans-authors-budget", "verdict"] == "differs"
    assert cl.loc["dpkmeans-diffprivlib-budget", "reproduced_value"] == "2"
    colored_wins = (g.xs("colored")["dp_accuracy_loss"] < g.xs("diffprivlib")["dp_accuracy_loss"]).all()
    assert cl.loc["dpkmeans-fig9-colored-vs-diffprivlib", "verdict"] == ("reproduced" if colored_wins else "differs")
    lemma = cl.loc["dpkmeans-lemma2-authors-code"]
    assert lemma["verdict"] == (
        "reproduced" if (t.loc[t["method"] == "cedskmeans", "n_violated"] == 0).all() else "differs"
    )
    f_out = dict(pdf=tmp_path / "fig9_peers.pdf", png=tmp_path / "fig9_peers.png")
    figures.figure_job(
        rule_job(
            "peers_figure",
            wildcards={"fig": "fig9_peers"},
            config=cfg,
            input=dict(table=t_out["table"], accuracy=out / "fig9_accuracy.csv"),
            output=f_out,
        )
    )
    assert f_out["pdf"].stat().st_size > 1000 and f_out["png"].stat().st_size > 1000
    rt = read_table(t_out["runtime"])
    assert set(rt["method"]) == {"colored", "cedskmeans", "diffprivlib"}


def test_peers_join_all_and_the_claims_only_when_enabled(workflow_copy):
    """Off (the default): no peers job is planned and the dpkmeans claims keep the "not comparable" diffprivlib row
    (param peers_enabled False). On: `all` builds the peers' figure and table, results/claims.md collects
    results/peers/claims.csv, and the dpkmeans claims leave the row to it (param True)."""
    from tests.helpers.workflow_dag import plan

    off = plan(workflow_copy, configfiles=["config/quick.yaml"])
    on = plan(workflow_copy, configfiles=["config/quick.yaml", "config/peers.yaml"])
    assert not [k for k in off if k[0].startswith("peers")]
    claims = lambda p: next(j for j in p.values() if j.rule == "dpkmeans_claims")
    assert claims(off).param_values["peers_enabled"] is False and claims(on).param_values["peers_enabled"] is True
    table = lambda p: next(j for j in p.values() if j.rule == "claims_table")
    assert (
        "results/quick/peers/claims.csv" in table(on).inputs
        and "results/quick/peers/claims.csv" not in table(off).inputs
    )
    everything = next(j for j in on.values() if j.rule == "all").inputs
    assert {"results/quick/peers/fig9_peers.pdf", "results/quick/peers/table.csv"} <= set(everything)
    index = next(j for j in on.values() if j.rule == "claims_index").param_values["targets"]["dpkmeans"]
    assert index["peers_table"] == ["results/quick/peers/table.csv"]
