"""The registry of named Gaussian calibrations (dpgrid.privacy.gaussian: CALIBRATIONS): every name a config schema or the
spdp calibration sweep uses resolves, an unknown name is an error naming it, each entry is its closed form, and
the mechanisms' entry points return exactly the registry's numbers."""

from __future__ import annotations

import math

import pytest
import yaml
from scipy import special

from dpgrid.mechanisms.colored_centroid_noise import gamma_c
from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism, trajectory_sigma
from dpgrid.papers.spdp.calibration_sweep import SIGMA_FORMULAS, sigma_formula
from dpgrid.privacy.gaussian import (
    CALIBRATIONS,
    CalibrationError,
    calibration,
    calibration_names,
    hockey_stick_delta,
    pdp_delta,
    pdp_sensitivity,
    pdp_sigma,
)
from tests.helpers.repo import REPO

EPS, DELTA, B = 0.7, 0.01, 2.5


def _calibration_enums(node) -> list[list[str]]:
    """Every ``calibration: {enum: [...]}`` in a JSON-schema tree."""
    out = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "calibration" and isinstance(value, dict) and "enum" in value:
                out.append(list(value["enum"]))
            out += _calibration_enums(value)
    elif isinstance(node, list):
        for value in node:
            out += _calibration_enums(value)
    return out


def test_every_configurable_and_swept_name_resolves():
    enums = []
    for schema in sorted((REPO / "workflow" / "papers").glob("*/*.schema.yaml")):
        enums += _calibration_enums(yaml.safe_load(schema.read_text()))
    names = {n for e in enums for n in e}
    assert {"proposition1", "classical", "exact_pdp", "paper_eq13"} <= names  # spdp.trdp and dpkmeans.centroid_noise
    for name in names | set(SIGMA_FORMULAS):
        assert calibration(name).sigma(EPS, DELTA, B, within_domain=False) > 0
    assert set(calibration_names()) == set(CALIBRATIONS)


@pytest.mark.parametrize("bad", ["propostion1", "", None])
def test_unknown_name_is_an_error_naming_it(bad):
    with pytest.raises(CalibrationError, match=f"unknown Gaussian calibration {bad!r}") as err:
        calibration(bad)
    assert "proposition1" in str(err.value)  # and lists the accepted names
    with pytest.raises(CalibrationError, match="unknown Gaussian calibration"):
        TrajectoryGaussianMechanism(B, EPS, DELTA, calibration="nope")


def test_each_entry_is_its_closed_form():
    a = -special.ndtri(DELTA)  # Q^{-1}(delta)
    sigma = {name: calibration(name).sigma(EPS, DELTA, B) for name in CALIBRATIONS}
    # Proposition 1, eq. (2), and its defining property Pr(L > eps) = delta at D = B / sigma
    assert sigma["proposition1"] == pytest.approx(B / (2 * EPS) * (a + math.sqrt(a * a + 2 * EPS)), rel=1e-14)
    assert pdp_delta(EPS, B / sigma["proposition1"]) == pytest.approx(DELTA, rel=1e-10)
    assert sigma["exact_pdp"] == sigma["proposition1"]
    assert sigma["classical"] == pytest.approx(B * math.sqrt(2 * math.log(1.25 / DELTA)) / EPS, rel=1e-15)
    assert sigma["paper_eq13"] == pytest.approx(B * math.sqrt(2 * math.log(2 / DELTA)) / EPS, rel=1e-14)
    assert sigma["classical_ln2"] == sigma["paper_eq13"]
    assert sigma["quantile"] == pytest.approx(B * a / EPS, rel=1e-14)
    # analytic: the hockey-stick delta meets delta with equality (Balle & Wang's calibration is tight)
    assert hockey_stick_delta(EPS, B / sigma["analytic"]) == pytest.approx(DELTA, rel=1e-8)
    assert sigma["analytic"] < sigma["proposition1"] < sigma["classical"]
    # the two forms of every entry agree: sigma = B / D
    for name, cal in CALIBRATIONS.items():
        assert cal.squared_sensitivity(EPS, DELTA) == pytest.approx((B / sigma[name]) ** 2, rel=1e-13), name


def test_the_entry_points_return_the_registry_bit_for_bit():
    """gamma_c, trajectory_sigma and sigma_formula are the registry, with the formulas the results were computed by."""
    for eps, delta in ((0.5, 1e-3), (math.log(2), 0.01), (30.0, 0.2)):
        d = pdp_sensitivity(eps, delta)
        assert gamma_c(eps, delta, "exact_pdp") == d * d
        assert gamma_c(eps, delta, "paper_eq13") == eps**2 / (2.0 * math.log(2.0 / delta))  # beyond eps < 1 too
        assert sigma_formula("proposition1", B, eps, delta) == pdp_sigma(eps, delta, B)
    assert trajectory_sigma(B, EPS, DELTA, "proposition1") == pdp_sigma(EPS, DELTA, B)
    assert TrajectoryGaussianMechanism(B, EPS, DELTA, calibration="classical").sigma == calibration("classical").sigma(
        EPS, DELTA, B
    )


def test_domain_is_enforced_unless_asked_not_to():
    with pytest.raises(CalibrationError, match="epsilon < 1"):
        trajectory_sigma(B, 1.5, DELTA, "classical")
    assert sigma_formula("classical", B, 1.5, DELTA) == pytest.approx(B * math.sqrt(2 * math.log(125.0)) / 1.5)
    with pytest.raises(CalibrationError, match="delta"):
        calibration("proposition1").squared_sensitivity(EPS, 1.5)
    with pytest.raises(CalibrationError, match="sensitivity"):
        calibration("quantile").sigma(EPS, DELTA, 0.0)
