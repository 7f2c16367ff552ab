"""Constants of the classdp paper shared by its jobs, figures and claims."""

PAPER = "classdp"
#: The paper's households: 15-minute data (Sec. VI-B: ARMA on 1440 samples = 15 days, 12-step = 3 h forecasts).
PAPER_STEP_MINUTES = 15
#: The three mechanisms compared in Figs. 2 and 4.
MECHANISMS = ("no_noise", "white", "proposed")


class ClassdpConfigError(ValueError):
    """A classdp config value or input that cannot be used."""
