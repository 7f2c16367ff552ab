# Input and params functions of the classdp rules files (Snakemake's style: functions apart from rules).


# classdp.smk
def classdp_rhos(setting):
    return sweep_labels(config["classdp"][setting]["rhos"], f"classdp.{setting}.rhos")


def classdp_rho(wc):
    """The accuracy budget of a classdp_mechanism job: the entry of the setting's rhos (or the figure's rho) labelled wc.rho."""
    sc = config["classdp"][wc.setting]
    values = sorted({float(v) for v in [*sc["rhos"], *[sc[k] for k in ("fig3_rho", "contour_rho") if k in sc]]})
    return swept_value(values, wc.rho, f"classdp.{wc.setting}.rhos", "rho")


def classdp_meter_problems(cfg, wildcards):
    """More meters than classdp.forecast.n_clusters (dpgrid.papers.classdp.descriptor.meter_problems)."""
    from dpgrid.papers.classdp.descriptor import meter_problems

    return meter_problems(cfg)
