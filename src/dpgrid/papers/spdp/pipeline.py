"""SpDP end to end on one home's series: Algorithm 1 on the sensitive PSD, Algorithm 2 over the series.

Parker, Hale, Barooah, *Spectral Differential Privacy*, Sec. III-B/C and IV. The parameters are the
paper's Table I plus the construction choices the paper leaves open (workflow/papers/spdp/spdp.md, "Choices"):

- ``onesided``: PSD convention (two-sided density, or the one-sided density of MATLAB/LTPDA);
- ``noise_scaling``: ``proposition2`` builds Sigma = lambda_bar / lambda_min(C_beta) * C_beta, so that
  lambda_min(Sigma) = lambda_bar (eq. 7, private); ``marginal`` builds Sigma = lambda_bar * C_beta (each
  bin's variance lambda_bar, lambda_min(Sigma) = lambda_min(C_beta) lambda_bar < lambda_bar: **not**
  (eps, delta)-DP by Proposition 2; only for the construction sweep that explains the paper's numbers);
- ``positive_filter_mode``: P(z) forward-backward (zero phase) or one causal pass;
- ``mean_handling``: F acts on x - mean (mean restored) or on x;
- ``gamma_handling``: ``adapt`` lowers F's cutoff (then gain) until gamma > 0 (Sec. III-C); ``clip`` keeps
  F at Table I's omega_F, K_F and raises gamma to a small floor where it is negative.

:func:`run_spdp` is the body of the spdp release job and of the sweeps in
:mod:`dpgrid.papers.spdp.stages.fidelity`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpgrid.mechanisms.correlated_gaussian import (
    CorrelatedGaussianMechanism,
    correlation_matrix,
    min_eigenpair,
)
from dpgrid.mechanisms.spectral import (
    SpectralMechanismError,
    StreamingDesign,
    design_streaming_release,
    spdp_mechanism,
)
from dpgrid.models.psd import PSDEstimator

NOISE_SCALINGS = ("proposition2", "marginal")
PSD_CONVENTIONS = ("two_sided", "one_sided")
EVALUATION_WINDOWS = ("series", "snapshot_day", "first_week")


@dataclass(frozen=True)
class SpDPParams:
    """Table I parameters and the construction choices of the SpDP release."""

    n_points: int = 288
    eps: float = float(np.log(2.0))
    delta: float = 0.01
    beta: float = 0.5
    structure: str = "ar1"
    noise_scaling: str = "proposition2"
    omega_n: float = 0.39
    kp: float = 0.8
    positive_filter_mode: str = "forward_backward"
    psd_window_days: float = 28.0
    cutoff_hz: float = 2e-4
    kf: float = 0.8
    order: int = 1
    adapt_factor: float = 0.8
    min_cutoff_hz: float = 1e-6
    gamma_floor: float = 1e-3
    mean_handling: str = "restore"
    onesided: bool = False
    gamma_handling: str = "adapt"

    def __post_init__(self) -> None:
        if self.noise_scaling not in NOISE_SCALINGS:
            raise SpectralMechanismError(f"noise_scaling must be one of {NOISE_SCALINGS}, got {self.noise_scaling!r}")
        if self.mean_handling not in ("restore", "filter"):
            raise SpectralMechanismError(f"mean_handling must be 'restore' or 'filter', got {self.mean_handling!r}")

    @classmethod
    def from_config(cls, cfg: dict) -> SpDPParams:
        """From the ``spdp`` config section (workflow/papers/spdp/spdp.schema.yaml)."""
        m, st = cfg["mechanism"], cfg["streaming"]
        rf = st["reduction_filter"]
        conv = cfg["psd"]["convention"]
        if conv not in PSD_CONVENTIONS:
            raise SpectralMechanismError(f"config spdp.psd.convention = {conv!r}; use one of {PSD_CONVENTIONS}")
        return cls(
            n_points=int(cfg["psd"]["n_points"]),
            eps=float(cfg["privacy"]["epsilon"]),
            delta=float(cfg["privacy"]["delta"]),
            beta=float(m["beta"]),
            structure=m["correlation_structure"],
            noise_scaling=m["noise_scaling"],
            omega_n=float(m["positive_filter"]["omega_n"]),
            kp=float(m["positive_filter"]["gain"]),
            positive_filter_mode=m["positive_filter"]["mode"],
            psd_window_days=float(m["psd_window_days"]),
            cutoff_hz=float(rf["cutoff_hz"]),
            kf=float(rf["gain"]),
            order=int(rf["order"]),
            adapt_factor=float(rf["adapt_factor"]),
            min_cutoff_hz=float(rf["min_cutoff_hz"]),
            gamma_floor=float(rf["gamma_floor"]),
            mean_handling=st["mean_handling"],
            onesided=conv == "one_sided",
            gamma_handling=rf["gamma_handling"],
        )

    def estimator(self, fs_per_hour: float) -> PSDEstimator:
        return PSDEstimator(n_points=self.n_points, fs_per_hour=fs_per_hour, onesided=self.onesided)

    def mechanism(self, b: float) -> CorrelatedGaussianMechanism:
        """Proposition 2's correlated Gaussian mechanism for B = ``b`` with this construction."""
        size = self.n_points + 1
        scale = 1.0
        if self.noise_scaling == "marginal":
            scale, _ = min_eigenpair(correlation_matrix(size, self.beta, self.structure))
        return CorrelatedGaussianMechanism(
            size, b, self.eps, self.delta, beta=self.beta, structure=self.structure, lambda_scale=scale
        )


@dataclass
class SpDPRun:
    """Everything one SpDP release produced."""

    estimator: PSDEstimator
    mechanism: CorrelatedGaussianMechanism
    alg1: object
    design: StreamingDesign
    released: np.ndarray
    mean: float

    def __getitem__(self, key: str):  # dict-style access kept for the experiment jobs
        return getattr(self, key)


def run_spdp(
    x, fs_per_hour: float, params: SpDPParams, b: float, rng_mech: np.random.Generator, rng_stream: np.random.Generator
) -> SpDPRun:
    """Algorithm 1 on the PSD of the first ``psd_window_days`` and Algorithm 2 over the whole series ``x``."""
    x = np.asarray(x, dtype=float)
    est = params.estimator(fs_per_hour)
    k = round(24 * params.psd_window_days * fs_per_hour)
    if k > x.size:
        raise SpectralMechanismError(
            f"the sensitive PSD window ({params.psd_window_days:g} days) is longer than the "
            f"series ({x.size / fs_per_hour / 24:.1f} days)"
        )
    phi = est.estimate(x[:k], name="sensitive PSD window")
    mech = params.mechanism(b)
    alg1 = spdp_mechanism(
        phi, mech, omega_n=params.omega_n, gain=params.kp, rng=rng_mech, mode=params.positive_filter_mode
    )
    mean = float(np.mean(x[:k])) if params.mean_handling == "restore" else 0.0
    design = design_streaming_release(
        phi,
        alg1.phi_tilde,
        est,
        mean=mean,
        cutoff_per_hour=params.cutoff_hz * 3600.0,
        gain=params.kf,
        order=params.order,
        shrink=params.adapt_factor,
        min_cutoff_per_hour=params.min_cutoff_hz * 3600.0,
        gamma_floor=params.gamma_floor,
        gamma_handling=params.gamma_handling,
    )
    released = design.new_stream(rng_stream).push(x)
    return SpDPRun(est, mech, alg1, design, released, mean)


def evaluation_window(n: int, fs_per_hour: float, window: str, *, burn_in_hours: float, snapshot_day: int = 0) -> slice:
    """Samples over which Tables II/III are computed.

    ``series``: everything after the burn-in (the default); ``snapshot_day``: the 24 hours of Fig. 6
    (Table III is "for each result in Figure 6"); ``first_week``: the first week after the burn-in.
    """
    burn = round(burn_in_hours * fs_per_hour)
    day = round(24 * fs_per_hour)
    if window == "series":
        out = slice(burn, n)
    elif window == "snapshot_day":
        out = slice(snapshot_day * day, (snapshot_day + 1) * day)
    elif window == "first_week":
        out = slice(burn, burn + 7 * day)
    else:
        raise ValueError(f"evaluation window must be one of {EVALUATION_WINDOWS}, got {window!r}")
    if out.start < 0 or out.stop > n or out.stop - out.start < 2:
        raise ValueError(f"evaluation window {window!r} ({out.start}:{out.stop}) does not fit {n} samples")
    return out
