"""The mutant catalog (tests/mutants/catalog.py): at least 15 mutants over the four papers and the five kinds, each
written against a public name that resolves and is replaced when applied (in a fresh interpreter, as
sitecustomize.py applies it)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1] / "mutants"

SCRIPT = r"""
import importlib, json, sys
import catalog
out = {}
for name, m in catalog.MUTANTS.items():
    mod = importlib.import_module(m.module)
    owner, attr = (getattr(mod, m.attribute.split(".")[0]), m.attribute.split(".")[1]) if "." in m.attribute else (mod, m.attribute)
    before = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
    catalog.apply(name)
    after = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
    setattr(owner, attr, before)
    out[name] = [m.paper, m.kind, after is not before]
print(json.dumps(out))
"""


def test_catalog_covers_papers_and_kinds_and_every_mutant_applies():
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    env.pop("DPGRID_MUTANT", None)
    res = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    out = json.loads(res.stdout)
    assert len(out) >= 15
    assert {p for p, _, _ in out.values()} == {"classdp", "spdp", "dpkmeans", "blowfish"}
    assert {k for _, k, _ in out.values()} == {"noise", "correlation", "sensitivity", "neighbours", "calibration"}
    assert all(changed for _, _, changed in out.values())


# ---- the detection requirement (tests/mutants/violation.py): sub-threshold variants are computed, not asserted

REPO = HERE.parents[1]


def _import_mutants():
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    import catalog
    import run_mutant
    import violation

    return catalog, violation, run_mutant


def _quick_run() -> Path | None:
    """A finished quick run: DPGRID_MUTANTS_BASE, else this checkout if it has one."""
    base = Path(os.environ.get("DPGRID_MUTANTS_BASE", REPO))
    return base if list((base / "results/quick/classdp/forecast").glob("audit_rho*.csv")) else None


def test_sub_threshold_mutants_are_documented_and_only_in_papers_with_a_computed_violation():
    catalog, violation, _ = _import_mutants()
    subs = {n for n, m in catalog.MUTANTS.items() if m.sub_threshold}
    assert subs == {"classdp_sup_half_edges", "blowfish_drop_largest_household"}
    assert all(catalog.MUTANTS[n].paper in violation.MEASURES for n in subs)
    # every kind still has a mutant that is not sub-threshold
    assert {m.kind for m in catalog.MUTANTS.values() if not m.sub_threshold} == set(catalog.KINDS)


def test_blowfish_violations_from_the_quick_population():
    """The true eps / claimed eps of the blowfish mutants on the audit job's population (config + root seed):
    dropping the largest household is below the 1.25x requirement, dropping the top quarter above it."""
    catalog, violation, run_mutant = _import_mutants()
    v = {n: violation.measure(catalog.MUTANTS[n], REPO) for n in catalog.MUTANTS if n.startswith("blowfish_")}
    assert v["blowfish_drop_largest_household"].measure == "eps"
    assert 1.0 < v["blowfish_drop_largest_household"].ratio < 1.25
    assert v["blowfish_drop_top_quarter"].ratio >= 4 / 3 - 1e-12
    assert abs(v["blowfish_laplace_x0.6"].ratio - 1 / 0.6) < 1e-9
    assert v["blowfish_sensitivity_min"].required and v["blowfish_naive_x0.6"].required
    for n, x in v.items():
        assert run_mutant.sub_threshold_problem(catalog.MUTANTS[n], x) == ""


def test_a_sub_threshold_claim_that_the_computed_ratio_contradicts_is_an_error():
    catalog, violation, run_mutant = _import_mutants()
    m = catalog.MUTANTS["blowfish_drop_largest_household"]
    assert run_mutant.sub_threshold_problem(m, violation.Violation(1.3, "eps", "x"))
    assert run_mutant.sub_threshold_problem(m, None)
    assert run_mutant.sub_threshold_problem(m, violation.Violation(1.2, "eps", "x")) == ""
    assert violation.Violation(2.0, "delta", "x").required and not violation.Violation(1.99, "delta", "x").required


def test_classdp_violations_on_a_quick_run():
    """classdp's true PDP delta (exact, every edge in both orientations) against the mutated claim, on a finished
    quick run (this checkout's or DPGRID_MUTANTS_BASE; .ci/check_mutants asserts the same on CI's quick run)."""
    base = _quick_run()
    if base is None:
        pytest.skip("no finished quick run (results/quick/classdp/forecast/audit_rho*.csv); set DPGRID_MUTANTS_BASE")
    catalog, violation, run_mutant = _import_mutants()
    half = violation.measure(catalog.MUTANTS["classdp_sup_half_edges"], base)
    strong = violation.measure(catalog.MUTANTS["classdp_sup_low_surrogate_half"], base)
    assert (
        1.0 <= half.ratio < 2.0
        and run_mutant.sub_threshold_problem(catalog.MUTANTS["classdp_sup_half_edges"], half) == ""
    )
    assert strong.required
