# GhoddousiBoroujeni, Fay, Dimitrakakis, Kamgarpour, "Privacy of Real-Time Pricing in Smart Grid".
# Algorithm 1 (Blowfish-private rates) vs the naive Laplace mechanism on N household occupancy chains.
# Sweeps are one job per point: blowfish_run_seed per seed index and blowfish_zero_sweep_threshold per
# clipping threshold; blowfish_runs and blowfish_zero_sweep merge them into the tables the later rules read.

register_targets(
    "blowfish",
    {
        "fig2": figure_files(f"{RESULTS}blowfish/fig2"),
        "fig_lambda": figure_files(f"{RESULTS}blowfish/fig_lambda"),
        "table_rmsre": f"{RESULTS}blowfish/table_rmsre.csv",
        "table_adversary": f"{RESULTS}blowfish/table_adversary.csv",
        "table_zero_sweep": f"{RESULTS}blowfish/table_zero_sweep.csv",
        "fig_zero_sweep": figure_files(f"{RESULTS}blowfish/fig_zero_sweep"),
        "table_audit": f"{RESULTS}blowfish/table_audit.csv",
    },
)
register_claims(f"{RESULTS}blowfish/claims.csv")

# Keys of the blowfish section that define the simulated scenario (Sec. IV; dpgrid.papers.blowfish.day.Settings).
BLOWFISH_MODEL = [
    "households",
    "steps_per_day",
    "epsilon",
    "pricing",
    "periods",
    "probability_basis",
    "perturbation_sd",
    "clipping",
    "initial_distribution",
    "consumption",
    "noise_coupling",
]
BLOWFISH_FIGS = ["fig2", "fig_lambda", "fig_zero_sweep"]
BLOWFISH_FIG_INPUTS = {
    "fig2": {"profiles": f"{RESULTS}blowfish/profiles.csv"},
    "fig_lambda": {
        "profiles": f"{RESULTS}blowfish/profiles.csv",
        "example": f"{RESULTS}blowfish/zero_sweep_example_profiles.csv",
    },
    "fig_zero_sweep": {"table": f"{RESULTS}blowfish/table_zero_sweep.csv"},
}


rule blowfish_run_seed:
    output:
        runs=f"{RESULTS}blowfish/seeds/runs_seed{{seed}}.csv",
        profiles=f"{RESULTS}blowfish/seeds/profiles_seed{{seed}}.csv",
        adversary=f"{RESULTS}blowfish/seeds/adversary_seed{{seed}}.csv",
    log:
        f"{LOGS}blowfish/run_seed{{seed}}.log",
    benchmark:
        f"{BENCHMARKS}blowfish_run_seed/run_seed{{seed}}.tsv"
    wildcard_constraints:
        seed=sweep_constraint(blowfish_seeds()),
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", *BLOWFISH_MODEL, "adversary"),
        seed=noise_seed_param,
        data_seed=data_seed_param,
    script:
        "scripts/run_seed.py"


rule blowfish_runs:
    input:
        unpack(blowfish_run_seed_files),
    output:
        runs=f"{RESULTS}blowfish/runs.csv",
        profiles=f"{RESULTS}blowfish/profiles.csv",
        adversary=f"{RESULTS}blowfish/adversary_runs.csv",
    log:
        f"{LOGS}blowfish/runs.log",
    benchmark:
        f"{BENCHMARKS}blowfish_runs/runs.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", "seeds"),
    script:
        "scripts/runs.py"


rule blowfish_tables:
    input:
        runs=f"{RESULTS}blowfish/runs.csv",
        adversary=f"{RESULTS}blowfish/adversary_runs.csv",
    output:
        rmsre=report_entry(f"{RESULTS}blowfish/table_rmsre.csv", "blowfish", "table_rmsre"),
        adversary=report_entry(f"{RESULTS}blowfish/table_adversary.csv", "blowfish", "table_adversary"),
    log:
        f"{LOGS}blowfish/tables.log",
    benchmark:
        f"{BENCHMARKS}blowfish_tables/tables.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    script:
        "scripts/tables.py"


rule blowfish_zero_sweep_threshold:
    output:
        runs=f"{RESULTS}blowfish/zero_sweep/runs_threshold{{threshold}}.csv",
        table=f"{RESULTS}blowfish/zero_sweep/table_threshold{{threshold}}.csv",
    log:
        f"{LOGS}blowfish/zero_sweep_threshold{{threshold}}.log",
    benchmark:
        f"{BENCHMARKS}blowfish_zero_sweep_threshold/zero_sweep_threshold{{threshold}}.tsv"
    wildcard_constraints:
        threshold=sweep_constraint(blowfish_thresholds()),
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", *BLOWFISH_MODEL, "zero_sweep.initial_distributions", "zero_sweep.seeds"),
        threshold=lambda wc: swept_value(
            config["blowfish"]["zero_sweep"]["thresholds"], wc.threshold, "blowfish.zero_sweep.thresholds", "threshold"
        ),
        seed=noise_seed_param,
        data_seed=data_seed_param,
    script:
        "scripts/zero_sweep_threshold.py"


rule blowfish_zero_sweep:
    input:
        unpack(blowfish_zero_sweep_files),
    output:
        runs=f"{RESULTS}blowfish/zero_sweep_runs.csv",
        table=report_entry(f"{RESULTS}blowfish/table_zero_sweep.csv", "blowfish", "table_zero_sweep"),
        example=f"{RESULTS}blowfish/zero_sweep_example_profiles.csv",
    log:
        f"{LOGS}blowfish/zero_sweep.log",
    benchmark:
        f"{BENCHMARKS}blowfish_zero_sweep/zero_sweep.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "blowfish",
            *BLOWFISH_MODEL,
            "zero_sweep.thresholds",
            "zero_sweep.initial_distributions",
            "zero_sweep.examples",
        ),
        seed=noise_seed_param,
        data_seed=data_seed_param,
    script:
        "scripts/zero_sweep.py"


rule blowfish_audit:
    output:
        table=report_entry(f"{RESULTS}blowfish/table_audit.csv", "blowfish", "table_audit"),
    log:
        f"{LOGS}blowfish/audit.log",
    benchmark:
        f"{BENCHMARKS}blowfish_audit/audit.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", *BLOWFISH_MODEL, "audit", "reference_seed"),
        seed=noise_seed_param,
        data_seed=data_seed_param,
    script:
        "scripts/audit.py"


rule blowfish_figure:
    input:
        unpack(lambda wc: BLOWFISH_FIG_INPUTS[wc.fig]),
    output:
        pdf=f"{RESULTS}blowfish/{{fig}}.pdf",
        png=report_entry(f"{RESULTS}blowfish/{{fig}}.png", "blowfish", "{fig}", "png"),
    log:
        f"{LOGS}blowfish/{{fig}}.log",
    benchmark:
        f"{BENCHMARKS}blowfish_figure/{{fig}}.tsv"
    wildcard_constraints:
        fig="|".join(BLOWFISH_FIGS),
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        cfg=lambda wc: cfg_slice(
            "blowfish",
            "households",
            "epsilon",
            "steps_per_day",
            *{"fig2": ["reference_seed"], "fig_lambda": ["reference_seed"], "fig_zero_sweep": ["zero_sweep.seeds"]}[
                wc.fig
            ],
        ),
    script:
        "scripts/figure.py"


rule blowfish_claims:
    input:
        privacy_audits=f"{RUN_RESULTS}blowfish/privacy_audit.csv",
        runs=f"{RESULTS}blowfish/runs.csv",
        sweep=f"{RESULTS}blowfish/zero_sweep_runs.csv",
        adversary=f"{RESULTS}blowfish/adversary_runs.csv",
        profiles=f"{RESULTS}blowfish/profiles.csv",
    output:
        f"{RESULTS}blowfish/claims.csv",
    log:
        f"{LOGS}blowfish/claims.log",
    benchmark:
        f"{BENCHMARKS}blowfish_claims/claims.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", "epsilon", "noise_coupling", "periods", "reference_seed"),
    script:
        "scripts/claims.py"


register_benchmarks(rules.blowfish_run_seed, *[{"seed": k} for k in blowfish_seeds()])
register_benchmarks(rules.blowfish_zero_sweep_threshold, *[{"threshold": th} for th in blowfish_thresholds()])
register_benchmarks(rules.blowfish_figure, *[{"fig": f} for f in BLOWFISH_FIGS])


# Black-box privacy audit of both pricing mechanisms (dpgrid.papers.blowfish.privacy_audit).
rule blowfish_privacy_audit:
    output:
        table=f"{RUN_RESULTS}blowfish/privacy_audit.csv",
    log:
        f"{RUN_LOGS}blowfish/privacy_audit.log",
    benchmark:
        f"{RUN_BENCHMARKS}blowfish_privacy_audit/privacy_audit.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        cfg=cfg_slice("blowfish", *BLOWFISH_MODEL),
        audit=config["privacy_audits"]["blowfish"],
        level=config["privacy_audits"]["level"],
        seed=config["seed"],
    script:
        "scripts/privacy_audit.py"


register_privacy_audit(f"{RUN_RESULTS}blowfish/privacy_audit.csv")
