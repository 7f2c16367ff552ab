"""Constants of the classdp paper shared by its jobs, figures and claims."""

PAPER = "classdp"
#: The three mechanisms compared in Figs. 2 and 4.
MECHANISMS = ("no_noise", "white", "proposed")


class ClassdpConfigError(ValueError):
    """A classdp config value or input that cannot be used."""
