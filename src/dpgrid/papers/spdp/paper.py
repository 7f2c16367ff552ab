"""Numbers printed in the spdp paper (Tables I-III, Sec. IV-A), used as the "paper" column of results."""

PAPER = "spdp"

PAPER_VALUES = {
    "b_spdp": 0.12,
    "b_trdp_4h": 0.2,
    "b_trdp_1week": 39.0,
    "table2": {"sensitive": (1.73, 1.74), "spdp": (1.77, 1.91), "trdp_4h": (1.75, 1.97), "trdp_1week": (3.38, 180.0)},
    "table3": {"spdp": (2.1, 0.34, 1.86), "trdp_4h": (0.92, 0.88, 9.07), "trdp_1week": (180.0, -0.015, -5.5e-4)},
}
#: The released series of Tables II-III and Fig. 6.
RELEASES = ("spdp", "trdp_4h", "trdp_1week")
#: The paper's data: one Pecan Street home at 5-minute resolution (Table I: N = 288 NFFT points).
PAPER_STEP_MINUTES = 5


def calibration_label(formula: str, delta: float) -> str:
    """Label of a TrDP calibration in the result tables: ``formula@delta`` (e.g. ``proposition1@0.001``)."""
    return f"{formula}@{delta:g}"


#: The spdp jobs compute the classical Gaussian calibration, which holds only for epsilon below this.
EPSILON_BELOW = 1.0
