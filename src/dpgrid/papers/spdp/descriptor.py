"""What the framework knows of the spdp paper (:mod:`dpgrid.core.papers`): discovered by name, imported by
no job, so an edit here reruns nothing but the parse of the workflow."""

from __future__ import annotations

from dpgrid.core.papers import PaperDescriptor
from dpgrid.papers.spdp.paper import EPSILON_BELOW, PAPER


def _check_config(config) -> list[str]:
    """``spdp.privacy.epsilon`` must be below :data:`EPSILON_BELOW` (the classical calibration's range)."""
    eps = config.get(PAPER, {}).get("privacy", {}).get("epsilon")
    if isinstance(eps, (int, float)) and not eps < EPSILON_BELOW:
        return [
            f"spdp.privacy.epsilon = {eps!r} must be below {EPSILON_BELOW:g}: the spdp experiment computes the "
            f"classical Gaussian calibration sigma = B sqrt(2 ln(1.25/delta)) / epsilon (Dwork and Roth 2014, "
            f"Thm. A.1; Table III of the paper-parameter variant, its claims table3_*_sigma_classical, and "
            f"spdp.trdp.calibration: classical), which holds only for epsilon < 1; without this check every spdp "
            f"job would run and the claims job would then fail"
        ]
    return []


DESCRIPTOR = PaperDescriptor(
    name=PAPER,
    order=2,
    title="spdp (Parker et al.: spectral DP)",
    rules_files={"spdp": "spdp (spectral DP)"},
    data_sources={"spdp_standin": "dpgrid.papers.spdp.standin"},
    check_config=_check_config,
    stages=(
        "stages.adjacency_calibration",
        "stages.release",
        "stages.paper_b",
        "stages.duration_sweep",
        "stages.fidelity",
    ),
    reference={
        "title": "Spectral Differential Privacy: Application to Smart Meter Data",
        "authors": [("Parker", "Kendall"), ("Hale", "Matthew"), ("Barooah", "Prabir")],
    },
    reproduces="Figs. 1-4, 6, Tables I-III: spectral DP, streaming release, trajectory-level DP",
)
