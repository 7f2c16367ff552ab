# Spectral differential privacy (Parker, Hale, Barooah): adjacency calibration, SpDP mechanism
# (Algorithm 1) + streaming release (Algorithm 2), TrDP baselines, Tables I-III, Figs. 1-4, 6.
# See docs/spdp.md.

SPDP_FIGS = ["fig1", "fig2", "fig3", "fig4", "fig6", "fig6_paper_b", "fig_duration_sweep", "fig_fidelity"]
SPDP_FIDELITY = ["trdp_printed", "window_evidence", "b_readings", "spdp_variants", "data_sweep", "exact_delta"]
SPDP_DATA = f"resources/meters/{config['spdp']['data_source']}"
SPDP_DATA_SPEC = config["data"]["experiments"][config["spdp"]["data_source"]]
register_data_used(config["spdp"]["data_source"])
# keys of the spdp section that define the SpDP mechanism and its streaming release (SpDPParams.from_config)
SPDP_MECHANISM = ["psd", "privacy", "mechanism", "streaming"]

register_targets(
    "spdp",
    {
        **{f: figure_files(f"results/spdp/{f}") for f in SPDP_FIGS},
        "table1": "results/spdp/table1.csv",
        "table2": "results/spdp/table2.csv",
        "table3": "results/spdp/table3.csv",
        "table3_paper_b": "results/spdp/table3_paper_b.csv",
        "calibration": "results/spdp/calibration.json",
        "duration_sweep": "results/spdp/duration_sweep.csv",
        "fidelity": [f"results/spdp/fidelity_{t}.csv" for t in SPDP_FIDELITY if t != "exact_delta"],
        "table_exact_delta": "results/spdp/table_exact_delta.csv",
    },
)
register_claims("results/spdp/claims.csv")


rule spdp_calibration:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
    output:
        calibration=report_entry("results/spdp/calibration.json", "spdp", "calibration"),
        distances="results/spdp/distances.csv",
        psd_lengths="results/spdp/psd_lengths.csv",
        trace="results/spdp/trace.csv",
    log:
        "logs/spdp/calibration.log",
    benchmark:
        "benchmarks/spdp_calibration/calibration.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
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
        calibration="results/spdp/calibration.json",
    output:
        table1=report_entry("results/spdp/table1.csv", "spdp", "table1"),
        table2=report_entry("results/spdp/table2.csv", "spdp", "table2"),
        table3=report_entry("results/spdp/table3.csv", "spdp", "table3"),
        psd="results/spdp/psd_release.csv",
        series="results/spdp/release_snapshot.npz",
        design="results/spdp/streaming_design.json",
    log:
        "logs/spdp/release.log",
    benchmark:
        "benchmarks/spdp_release/release.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    params:
        cfg=cfg_slice("spdp", "meter_id", "min_weeks", *SPDP_MECHANISM, "trdp", "evaluation"),
        seed=config["seed"],
        data=SPDP_DATA_SPEC,
    script:
        "scripts/release.py"


rule spdp_paper_b:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
    output:
        table=report_entry("results/spdp/table3_paper_b.csv", "spdp", "table3_paper_b"),
        series="results/spdp/release_snapshot_paper_b.npz",
    log:
        "logs/spdp/paper_b.log",
    benchmark:
        "benchmarks/spdp_paper_b/paper_b.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    params:
        cfg=cfg_slice(
            "spdp", "meter_id", "min_weeks", *SPDP_MECHANISM, "paper_parameters", "trdp.calibration", "evaluation"
        ),
        seed=config["seed"],
    script:
        "scripts/paper_b.py"


rule spdp_duration_sweep:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
        table3="results/spdp/table3.csv",
        paper_b="results/spdp/table3_paper_b.csv",
    output:
        table=report_entry("results/spdp/duration_sweep.csv", "spdp", "duration_sweep"),
    log:
        "logs/spdp/duration_sweep.log",
    benchmark:
        "benchmarks/spdp_duration_sweep/duration_sweep.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
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
        seed=config["seed"],
    script:
        "scripts/duration_sweep.py"


rule spdp_fidelity:
    input:
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
        calibration="results/spdp/calibration.json",
    output:
        **{
            t: (
                report_entry(f"results/spdp/table_{t}.csv", "spdp", "table_exact_delta")
                if t == "exact_delta"
                else report_entry(f"results/spdp/fidelity_{t}.csv", "spdp", "fidelity")
            )
            for t in SPDP_FIDELITY
        },
    log:
        "logs/spdp/fidelity.log",
    benchmark:
        "benchmarks/spdp_fidelity/fidelity.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
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
        seed=config["seed"],
    script:
        "scripts/fidelity.py"


SPDP_FIG_INPUTS = {
    "fig1": {
        "trace": "results/spdp/trace.csv",
        "distances": "results/spdp/distances.csv",
        "calibration": "results/spdp/calibration.json",
    },
    "fig2": {"psd_lengths": "results/spdp/psd_lengths.csv"},
    "fig3": {"distances": "results/spdp/distances.csv"},
    "fig4": {"psd": "results/spdp/psd_release.csv"},
    "fig6": {
        "series": "results/spdp/release_snapshot.npz",
        "calibration": "results/spdp/calibration.json",
        "metrics": "results/spdp/table3.csv",
    },
    "fig6_paper_b": {
        "series": "results/spdp/release_snapshot_paper_b.npz",
        "metrics": "results/spdp/table3_paper_b.csv",
    },
    "fig_duration_sweep": {"sweep": "results/spdp/duration_sweep.csv"},
    "fig_fidelity": {
        "variants": "results/spdp/fidelity_spdp_variants.csv",
        "data_sweep": "results/spdp/fidelity_data_sweep.csv",
        "b_readings": "results/spdp/fidelity_b_readings.csv",
    },
}


rule spdp_figure:
    input:
        unpack(lambda wc: SPDP_FIG_INPUTS[wc.fig]),
    output:
        pdf="results/spdp/{fig}.pdf",
        png=report_entry("results/spdp/{fig}.png", "spdp", "{fig}", "png"),
    log:
        "logs/spdp/{fig}.log",
    benchmark:
        "benchmarks/spdp_figure/{fig}.tsv"
    wildcard_constraints:
        fig="|".join(SPDP_FIGS),
    conda:
        "../../../environment.yml"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    params:
        data=SPDP_DATA_SPEC,
    script:
        "scripts/figure.py"


rule spdp_claims:
    input:
        privacy_audits="results/spdp/privacy_audit.csv",
        calibration="results/spdp/calibration.json",
        table2="results/spdp/table2.csv",
        table3="results/spdp/table3.csv",
        paper_b="results/spdp/table3_paper_b.csv",
        sweep="results/spdp/duration_sweep.csv",
        b_readings="results/spdp/fidelity_b_readings.csv",
        spdp_variants="results/spdp/fidelity_spdp_variants.csv",
        data_sweep="results/spdp/fidelity_data_sweep.csv",
        distances="results/spdp/distances.csv",
        psd_lengths="results/spdp/psd_lengths.csv",
        psd_release="results/spdp/psd_release.csv",
    output:
        "results/spdp/claims.csv",
    log:
        "logs/spdp/claims.log",
    benchmark:
        "benchmarks/spdp_claims/claims.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
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
        readings=f"{SPDP_DATA}/readings.csv",
        meters=f"{SPDP_DATA}/meters.csv",
        calibration="results/spdp/calibration.json",
    output:
        table="results/spdp/privacy_audit.csv",
    log:
        "logs/spdp/privacy_audit.log",
    benchmark:
        "benchmarks/spdp_privacy_audit/privacy_audit.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
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


register_privacy_audit("results/spdp/privacy_audit.csv")
