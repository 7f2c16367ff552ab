"""Constants of the classdp paper shared by its jobs, figures and claims: the numbers it prints, as data.

Ramakrishna et al., *Differential Privacy for Class-based Data: A Practical Gaussian Mechanism* (journal
version ``../shared/papers/000_48d547882cb91e85.txt``; the earlier version ``002_...`` gives the plain
forecast MSEs of Sec. VI-B). Every number is quoted with its place.

Replication design (workflow/papers/classdp/classdp.md, "Stand-in population"): the forecast experiment runs on the
paper-matched stand-in (:mod:`dpgrid.papers.classdp.standin`: :data:`PAPER_DATA`), whose one free
property, the within-cluster similarity, is calibrated on **one** printed number,
:data:`CALIBRATION_TARGET` (white-noise delta 0.8 at rho = 0.68571, eps = 0.1). That row has the verdict
``calibration target``; every other printed number is a held-out prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

PAPER = "classdp"
#: The paper's households: 15-minute data (Sec. VI-B: ARMA on 1440 samples = 15 days, 12-step = 3 h forecasts).
PAPER_STEP_MINUTES = 15
#: The three mechanisms compared in Figs. 2 and 4.
MECHANISMS = ("no_noise", "white", "proposed")
#: Stated facts about the paper's data (Sec. VI-B-1): 100 households, 15 min, 6 geographic clusters.
PAPER_DATA = {"households": 100, "step_minutes": 15, "clusters": 6}
#: The data source that is the paper-matched stand-in.
STANDIN_SOURCE = "synthetic_clustered"


class ClassdpConfigError(ValueError):
    """A classdp config value or input that cannot be used."""


@dataclass(frozen=True)
class PrintedDelta:
    """A delta printed in the paper: mechanism, accuracy budget rho, eps, value, where."""

    mechanism: str
    rho: float
    epsilon: float
    value: float
    where: str

    @property
    def claim_id(self) -> str:
        if self.rho == 0.68571:
            return f"classdp-fig4-{self.mechanism}-rho0.68571-eps{self.epsilon:g}"
        return f"classdp-fig4-{self.mechanism}-eps{self.epsilon:g}-rho{self.rho:g}"


#: Fig. 4 numbers of Sec. VI-B-2 (journal and earlier version alike).
FIG4_POINTS = (
    PrintedDelta(
        "white",
        0.68571,
        0.1,
        0.8,
        "Sec. VI-B-2: 'With the white noise, delta is reduced to 0.8 when rho = 0.68571 and eps = 0.1'",
    ),
    PrintedDelta("white", 0.68571, 1.0, 0.6, "Sec. VI-B-2: white 'decreases slowly from 0.8 to 0.6' (eps 0.1 -> 1.0)"),
    PrintedDelta("proposed", 0.68571, 0.1, 0.72, "Sec. VI-B-2: proposed 'decreases fast from 0.72 to 0.35'"),
    PrintedDelta("proposed", 0.68571, 1.0, 0.35, "Sec. VI-B-2: proposed 'decreases fast from 0.72 to 0.35'"),
    PrintedDelta(
        "proposed",
        0.45,
        1.0,
        0.84,
        "Sec. VI-B-2: 'rho increasing from 0.45 to 1.4 and eps = 1 ... decreases from 0.84 to 0.35'",
    ),
    PrintedDelta(
        "proposed",
        1.4,
        1.0,
        0.35,
        "Sec. VI-B-2: 'rho increasing from 0.45 to 1.4 and eps = 1 ... decreases from 0.84 to 0.35'",
    ),
)
#: The one printed number the stand-in's within-cluster similarity is calibrated on.
CALIBRATION_TARGET = FIG4_POINTS[0]
#: Fig. 4 without noise: "delta is always 1" (Sec. VI-B-2), read from the text (abs tolerance 0.01).
NO_NOISE_DELTA = 1.0
#: The eps of the privacy-accuracy trade-off of Sec. VI-B-2 ("rho increasing from 0.45 to 1.4 and eps = 1").
TRADEOFF_EPSILON = 1.0
#: Fig. 3 caption: rho = 0.45 and (eps, delta) = (0.8, 0.5637).
FIG3 = {"rho": 0.45, "epsilon": 0.8, "delta": 0.5637}
#: The same as a point of the proposed mechanism's curve (drawn in Fig. 4's rho = 0.45 panel).
FIG3_POINT = PrintedDelta("proposed", 0.45, 0.8, 0.5637, "Fig. 3 caption: rho = 0.45, (eps, delta) = (0.8, 0.5637)")
#: Sec. VI-B-1 (journal): normalized MSE of the released forecasts of Houses 1-3.
FIG3_NMSE = (1.5953e-3, 1.2475e-3, 1.2453e-3)
#: Sec. VI-B-1 (earlier version): MSE of the ARMA forecasts (no noise) of Houses 1-3.
PLAIN_MSE = (2.6986e-4, 2.3339e-4, 1.4769e-4)
#: Tolerances of the comparisons: deltas read from the text (two digits), the Fig. 3 caption's four
#: digits, and the MSEs (one draw of a 12-dimensional noise vector varies by ~40 %).
TOL = {"delta_text": 0.05, "fig3_delta": 0.01, "no_noise": 0.01, "mse_rel": 0.5}
