# Spectral differential privacy (Parker, Hale, Barooah): adjacency calibration, SpDP mechanism
# (Algorithm 1) + streaming release (Algorithm 2), TrDP baselines, Tables I-III, Figs. 1-4, 6.
# See workflow/papers/spdp/spdp.md.

SPDP_FIGS = ["fig1", "fig2", "fig3", "fig4", "fig6", "fig6_paper_b", "fig_duration_sweep", "fig_fidelity"]
SPDP_FIDELITY = ["trdp_printed", "window_evidence", "b_readings", "spdp_variants", "data_sweep", "exact_delta"]
SPDP_DATA = f"{RESOURCES}meters/{config['spdp']['data_source']}"
SPDP_DATA_SPEC = config["data"]["experiments"][config["spdp"]["data_source"]]
register_data_used(config["spdp"]["data_source"])
# keys of the spdp section that define the SpDP mechanism and its streaming release (SpDPParams.from_config)
SPDP_MECHANISM = ["psd", "privacy", "mechanism", "streaming"]

register_targets(
    "spdp",
    {
        **{f: figure_files(f"{RESULTS}spdp/{f}") for f in SPDP_FIGS},
        "table1": f"{RESULTS}spdp/table1.csv",
        "table2": f"{RESULTS}spdp/table2.csv",
        "table3": f"{RESULTS}spdp/table3.csv",
        "table3_paper_b": f"{RESULTS}spdp/table3_paper_b.csv",
        "calibration": f"{DATA_RESULTS}spdp/calibration.json",
        "duration_sweep": f"{RESULTS}spdp/duration_sweep.csv",
        "fidelity": [f"{RESULTS}spdp/fidelity_{t}.csv" for t in SPDP_FIDELITY if t != "exact_delta"],
        "table_exact_delta": f"{RESULTS}spdp/table_exact_delta.csv",
    },
)
register_claims(f"{RESULTS}spdp/claims.csv")
# Tables II-III over the replicates (target over_seeds, docs/seeds.md): the paper prints one noisy draw of each
for _table, _keys, _values in (
    ("table2", ["series"], ["mean_kw", "std_kw"]),
    ("table3", ["series"], ["noise_std_kw", "correlation", "snr_db_paper", "snr_db_sensitive"]),
    (
        "table3_paper_b",
        ["series", "calibration"],
        ["b", "sigma_formula", "mean_kw", "std_kw", "noise_std_kw", "correlation", "snr_db_paper", "snr_db_sensitive"],
    ),
):
    register_spread(
        "spdp",
        _table,
        f"{RESULTS}spdp/{_table}.csv",
        keys=_keys,
        values=_values,
        title=f"spdp {_table.replace('_', ' ')} over the replicates (data and noise drawn again)",
    )


rule spdp_calibration:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
    output:
        calibration=report_entry(f"{DATA_RESULTS}spdp/calibration.json", "spdp", "calibration"),
        distances=f"{DATA_RESULTS}spdp/distances.csv",
        psd_lengths=f"{DATA_RESULTS}spdp/psd_lengths.csv",
        trace=f"{DATA_RESULTS}spdp/trace.csv",
    log:
        f"{DATA_LOGS}spdp/calibration.log",
    benchmark:
        f"{DATA_BENCHMARKS}spdp_calibration/calibration.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        cfg=cfg_slice(
            "spdp", "meter_id", "min_weeks", "psd", "calibration", "distances", "fig1_trace_days", "fig2_lengths_days"
        ),
        data=SPDP_DATA_SPEC,
    script:
        "scripts/calibration.py"


rule spdp_release:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
        calibration=f"{DATA_RESULTS}spdp/calibration.json",
    output:
        table1=report_entry(f"{RESULTS}spdp/table1.csv", "spdp", "table1"),
        table2=report_entry(f"{RESULTS}spdp/table2.csv", "spdp", "table2"),
        table3=report_entry(f"{RESULTS}spdp/table3.csv", "spdp", "table3"),
        psd=f"{RESULTS}spdp/psd_release.csv",
        series=f"{RESULTS}spdp/release_snapshot.npz",
        design=f"{RESULTS}spdp/streaming_design.json",
    log:
        f"{LOGS}spdp/release.log",
    benchmark:
        f"{BENCHMARKS}spdp_release/release.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        cfg=cfg_slice("spdp", "meter_id", "min_weeks", *SPDP_MECHANISM, "trdp", "evaluation"),
        seed=noise_seed_param,
        data=SPDP_DATA_SPEC,
    script:
        "scripts/release.py"


rule spdp_paper_b:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
    output:
        table=report_entry(f"{RESULTS}spdp/table3_paper_b.csv", "spdp", "table3_paper_b"),
        series=f"{RESULTS}spdp/release_snapshot_paper_b.npz",
    log:
        f"{LOGS}spdp/paper_b.log",
    benchmark:
        f"{BENCHMARKS}spdp_paper_b/paper_b.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        cfg=cfg_slice(
            "spdp", "meter_id", "min_weeks", *SPDP_MECHANISM, "paper_parameters", "trdp.calibration", "evaluation"
        ),
        seed=noise_seed_param,
    script:
        "scripts/paper_b.py"


rule spdp_duration_sweep:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
        table3=f"{RESULTS}spdp/table3.csv",
        paper_b=f"{RESULTS}spdp/table3_paper_b.csv",
    output:
        table=report_entry(f"{RESULTS}spdp/duration_sweep.csv", "spdp", "duration_sweep"),
    log:
        f"{LOGS}spdp/duration_sweep.log",
    benchmark:
        f"{BENCHMARKS}spdp_duration_sweep/duration_sweep.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        cfg=cfg_slice(
            "spdp",
            "meter_id",
            "min_weeks",
            "privacy",
            "streaming.burn_in_hours",
            "sweep_durations_hours",
            "sweep_readings",
            "trdp.calibration",
            "paper_parameters.trdp_delta",
        ),
        seed=noise_seed_param,
    script:
        "scripts/duration_sweep.py"


rule spdp_fidelity:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
        calibration=f"{DATA_RESULTS}spdp/calibration.json",
    output:
        **{
            t: (
                report_entry(f"{RESULTS}spdp/table_{t}.csv", "spdp", "table_exact_delta")
                if t == "exact_delta"
                else report_entry(f"{RESULTS}spdp/fidelity_{t}.csv", "spdp", "fidelity")
            )
            for t in SPDP_FIDELITY
        },
    log:
        f"{LOGS}spdp/fidelity.log",
    benchmark:
        f"{BENCHMARKS}spdp_fidelity/fidelity.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=600,
        runtime=10,
    params:
        cfg=cfg_slice(
            "spdp",
            "meter_id",
            "min_weeks",
            *SPDP_MECHANISM,
            "calibration",
            "paper_parameters",
            "fidelity",
            "trdp.calibration",
        ),
        data=SPDP_DATA_SPEC,
        data_source=config["spdp"]["data_source"],
        seed=noise_seed_param,
        data_seed=data_seed_param,
    script:
        "scripts/fidelity.py"


SPDP_FIG_INPUTS = {
    "fig1": {
        "trace": f"{DATA_RESULTS}spdp/trace.csv",
        "distances": f"{DATA_RESULTS}spdp/distances.csv",
        "calibration": f"{DATA_RESULTS}spdp/calibration.json",
    },
    "fig2": {"psd_lengths": f"{DATA_RESULTS}spdp/psd_lengths.csv"},
    "fig3": {"distances": f"{DATA_RESULTS}spdp/distances.csv"},
    "fig4": {"psd": f"{RESULTS}spdp/psd_release.csv"},
    "fig6": {
        "series": f"{RESULTS}spdp/release_snapshot.npz",
        "calibration": f"{DATA_RESULTS}spdp/calibration.json",
        "metrics": f"{RESULTS}spdp/table3.csv",
    },
    "fig6_paper_b": {
        "series": f"{RESULTS}spdp/release_snapshot_paper_b.npz",
        "metrics": f"{RESULTS}spdp/table3_paper_b.csv",
    },
    "fig_duration_sweep": {"sweep": f"{RESULTS}spdp/duration_sweep.csv"},
    "fig_fidelity": {
        "variants": f"{RESULTS}spdp/fidelity_spdp_variants.csv",
        "data_sweep": f"{RESULTS}spdp/fidelity_data_sweep.csv",
        "b_readings": f"{RESULTS}spdp/fidelity_b_readings.csv",
    },
}


rule spdp_figure:
    input:
        unpack(lambda wc: SPDP_FIG_INPUTS[wc.fig]),
    output:
        pdf=f"{RESULTS}spdp/{{fig}}.pdf",
        png=report_entry(f"{RESULTS}spdp/{{fig}}.png", "spdp", "{fig}", "png"),
    log:
        f"{LOGS}spdp/{{fig}}.log",
    benchmark:
        f"{BENCHMARKS}spdp_figure/{{fig}}.tsv"
    wildcard_constraints:
        fig="|".join(SPDP_FIGS),
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        data=SPDP_DATA_SPEC,
    script:
        "scripts/figure.py"


rule spdp_claims:
    input:
        privacy_audits=f"{RUN_RESULTS}spdp/privacy_audit.csv",
        calibration=f"{DATA_RESULTS}spdp/calibration.json",
        table2=f"{RESULTS}spdp/table2.csv",
        table3=f"{RESULTS}spdp/table3.csv",
        paper_b=f"{RESULTS}spdp/table3_paper_b.csv",
        sweep=f"{RESULTS}spdp/duration_sweep.csv",
        b_readings=f"{RESULTS}spdp/fidelity_b_readings.csv",
        spdp_variants=f"{RESULTS}spdp/fidelity_spdp_variants.csv",
        data_sweep=f"{RESULTS}spdp/fidelity_data_sweep.csv",
        distances=f"{DATA_RESULTS}spdp/distances.csv",
        psd_lengths=f"{DATA_RESULTS}spdp/psd_lengths.csv",
        psd_release=f"{RESULTS}spdp/psd_release.csv",
    output:
        f"{RESULTS}spdp/claims.csv",
    log:
        f"{LOGS}spdp/claims.log",
    benchmark:
        f"{BENCHMARKS}spdp_claims/claims.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "spdp", "privacy", "trdp.calibration", "paper_parameters", "streaming.burn_in_hours", "sweep_readings"
        ),
    script:
        "scripts/claims.py"


register_benchmarks(rules.spdp_figure, *[{"fig": f} for f in SPDP_FIGS])


# Black-box privacy audit of the correlated Gaussian, Algorithm 1 and TrDP releases (dpgrid.papers.spdp.privacy_audit).
rule spdp_privacy_audit:
    input:
        readings=f"{replicate_path(SPDP_DATA)}/readings.csv",
        meters=f"{replicate_path(SPDP_DATA)}/meters.csv",
        calibration=f"{RUN_RESULTS}spdp/calibration.json",
    output:
        table=f"{RUN_RESULTS}spdp/privacy_audit.csv",
    log:
        f"{RUN_LOGS}spdp/privacy_audit.log",
    benchmark:
        f"{RUN_BENCHMARKS}spdp_privacy_audit/privacy_audit.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=1500,
        runtime=5,
    params:
        cfg=cfg_slice("spdp", "meter_id", "min_weeks", *SPDP_MECHANISM, "trdp", "calibration"),
        audit=config["privacy_audits"]["spdp"],
        level=config["privacy_audits"]["level"],
        seed=config["seed"],
    script:
        "scripts/privacy_audit.py"


register_privacy_audit(f"{RUN_RESULTS}spdp/privacy_audit.csv")
