# Feeders (IEEE 123-node from OpenDSS, MATPOWER 141-bus) cached as pandapower JSON, and the AC-OPF
# voltage study of dpkmeans (Ravi et al. 2022, Sec. V-B "Standard Test Systems", Figs. 12-13):
# one job per (feeder, profile set, batch of hourly snapshots). See docs/grid.md.

GRID_FEEDERS = ["ieee123", "case141"]
GRID_FIGURES = {"fig12": "ieee123", "fig13": "case141"}
GRID_IEEE123_MASTER = "resources/downloads/ieee123/123Bus/IEEE123Master.dss"


register_targets(
    "dpkmeans",
    {
        "fig12": figure_files(f"{RESULTS}dpkmeans/fig12"),
        "fig13": figure_files(f"{RESULTS}dpkmeans/fig13"),
        "table_voltage_distances": f"{RESULTS}dpkmeans/table_voltage_distances.csv",
        "table_voltage_band": f"{RESULTS}dpkmeans/table_voltage_band.csv",
    },
)
register_claims(f"{RESULTS}dpkmeans/claims_opf.csv")


rule grid_feeder:
    input:
        unpack(grid_feeder_inputs),
    output:
        net=f"{RUN_RESOURCES}grid/{{feeder}}.json",
        check=f"{RUN_RESOURCES}grid/{{feeder}}.check.json",
    log:
        f"{RUN_LOGS}grid/feeder_{{feeder}}.log",
    benchmark:
        f"{RUN_BENCHMARKS}grid_feeder/feeder_{{feeder}}.tsv"
    wildcard_constraints:
        feeder="ieee123|case141",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=500,
        runtime=1,
    params:
        # the feeder model's keys (regulator_taps acts in the OPF snapshots, not on the cached feeder)
        feeder_config=lambda wc: {
            k: v for k, v in config["grid"]["feeders"][wc.feeder].items() if k != "regulator_taps"
        },
        pins=grid_feeder_pins,
    script:
        "scripts/grid/feeder.py"


rule dpkmeans_opf_loads:
    input:
        # checks, before any job, that the dpkmeans data have one meter per load bus (dpkmeans/common.smk)
        unpack(checked_inputs(opf_meter_problems, opf_loads_inputs)),
    output:
        loads=f"{RESULTS}dpkmeans/opf/{{feeder}}/bus_loads.csv",
        summary=f"{RESULTS}dpkmeans/opf/{{feeder}}/bus_loads.json",
    log:
        f"{LOGS}dpkmeans/opf_loads_{{feeder}}.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_opf_loads/opf_loads_{{feeder}}.tsv"
    wildcard_constraints:
        feeder="ieee123|case141",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=400,
        runtime=1,
    params:
        experiment=lambda wc: {
            k: config["grid"]["experiment"][k]
            for k in ("load_buses", "scaling", "seed_keys", "n_reference_draws", "load_rule")
        },
        seed=noise_seed_param,
    script:
        "scripts/grid/opf_loads.py"


rule dpkmeans_opf_snapshots:
    input:
        unpack(grid_feeder_inputs),
        net=f"{RUN_RESOURCES}grid/{{feeder}}.json",
        loads=f"{RESULTS}dpkmeans/opf/{{feeder}}/bus_loads.csv",
    output:
        voltages=f"{RESULTS}dpkmeans/opf/{{feeder}}/{{profiles}}/batch{{batch}}_voltages.csv",
        status=f"{RESULTS}dpkmeans/opf/{{feeder}}/{{profiles}}/batch{{batch}}_status.csv",
    log:
        f"{LOGS}dpkmeans/opf_{{feeder}}_{{profiles}}_batch{{batch}}.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_opf_snapshots/opf_{{feeder}}_{{profiles}}_batch{{batch}}.tsv"
    wildcard_constraints:
        feeder="ieee123|case141",
        profiles=r"true|synthetic|reference\d+",
        batch=r"\d+",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=500,
        runtime=2,
    params:
        hours=lambda wc: grid_hour_batches()[int(wc.batch)],
        opf=config["grid"]["opf"],
        regulator_taps=lambda wc: (
            config["grid"]["feeders"]["ieee123"]["regulator_taps"] if wc.feeder == "ieee123" else "base_case"
        ),
    script:
        "scripts/grid/opf_snapshots.py"


rule dpkmeans_opf_collect:
    input:
        voltages=lambda wc: [
            f"{RESULTS}dpkmeans/opf/{wc.feeder}/{p}/batch{b}_voltages.csv"
            for p in grid_profile_sets()
            for b in range(len(grid_hour_batches()))
        ],
        status=lambda wc: [
            f"{RESULTS}dpkmeans/opf/{wc.feeder}/{p}/batch{b}_status.csv"
            for p in grid_profile_sets()
            for b in range(len(grid_hour_batches()))
        ],
    output:
        voltages=f"{RESULTS}dpkmeans/opf/{{feeder}}/voltages.csv",
        status=f"{RESULTS}dpkmeans/opf/{{feeder}}/status.csv",
    log:
        f"{LOGS}dpkmeans/opf_collect_{{feeder}}.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_opf_collect/opf_collect_{{feeder}}.tsv"
    wildcard_constraints:
        feeder="ieee123|case141",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    script:
        "scripts/grid/opf_collect.py"


rule dpkmeans_voltage_distances:
    input:
        voltages=[f"{RESULTS}dpkmeans/opf/{f}/voltages.csv" for f in GRID_FEEDERS],
        status=[f"{RESULTS}dpkmeans/opf/{f}/status.csv" for f in GRID_FEEDERS],
    output:
        distances=report_entry(f"{RESULTS}dpkmeans/table_voltage_distances.csv", "dpkmeans", "table_voltage_distances"),
        band=report_entry(f"{RESULTS}dpkmeans/table_voltage_band.csv", "dpkmeans", "table_voltage_band"),
    log:
        f"{LOGS}dpkmeans/voltage_distances.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_voltage_distances/voltage_distances.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=2,
    params:
        feeders=GRID_FEEDERS,
        stats={k: config["grid"]["stats"][k] for k in ("n_bootstrap", "level", "report_band_pu")},
        seed_key=config["grid"]["experiment"]["seed_keys"]["bootstrap"],
        seed=noise_seed_param,
    script:
        "scripts/grid/voltage_distances.py"


rule dpkmeans_voltage_figure:
    input:
        voltages=lambda wc: f"{RESULTS}dpkmeans/opf/{GRID_FIGURES[wc.fig]}/voltages.csv",
        status=lambda wc: f"{RESULTS}dpkmeans/opf/{GRID_FIGURES[wc.fig]}/status.csv",
    output:
        pdf=f"{RESULTS}dpkmeans/{{fig}}.pdf",
        png=report_entry(f"{RESULTS}dpkmeans/{{fig}}.png", "dpkmeans", "{fig}", "png"),
    log:
        f"{LOGS}dpkmeans/{{fig}}.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_voltage_figure/{{fig}}.tsv"
    wildcard_constraints:
        fig="|".join(GRID_FIGURES),
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        feeder=lambda wc: GRID_FIGURES[wc.fig],
        bins=config["grid"]["stats"]["histogram_bins"],
        data=config["data"]["experiments"][config["dpkmeans"]["data_source"]],
    script:
        "scripts/grid/voltage_figure.py"


rule dpkmeans_claims_opf:
    input:
        distances=f"{RESULTS}dpkmeans/table_voltage_distances.csv",
        band=f"{RESULTS}dpkmeans/table_voltage_band.csv",
    output:
        claims=f"{RESULTS}dpkmeans/claims_opf.csv",
    log:
        f"{LOGS}dpkmeans/claims_opf.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_claims_opf/claims_opf.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        stats={k: config["grid"]["stats"][k] for k in ("match_factor", "band_share_abs_tol")},
    script:
        "scripts/grid/claims_opf.py"


for _proxy in (rules.grid_feeder, rules.dpkmeans_opf_loads, rules.dpkmeans_opf_collect):
    register_benchmarks(_proxy, *[{"feeder": f} for f in GRID_FEEDERS])
register_benchmarks(
    rules.dpkmeans_opf_snapshots,
    *[
        {"feeder": f, "profiles": p, "batch": b}
        for f in GRID_FEEDERS
        for p in grid_profile_sets()
        for b in range(len(grid_hour_batches()))
    ],
)
register_benchmarks(rules.dpkmeans_voltage_figure, *[{"fig": f} for f in GRID_FIGURES])
