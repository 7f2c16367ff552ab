"""Constants of the AC-OPF study (dpkmeans Figs. 12-13) shared by its jobs, figures and claims."""

FIGURE_OF_FEEDER = {"ieee123": "fig12", "case141": "fig13"}
FEEDER_TITLE = {"ieee123": "IEEE 123-bus (balanced)", "case141": "MATPOWER 141-bus"}
#: dtypes of the voltage/status tables ("true" must stay a string, not a boolean).
VOLT_DTYPES = {"profiles": str, "bus_name": str, "feeder": str}
