# GhoddousiBoroujeni, Fay, Dimitrakakis, Kamgarpour, "Privacy of Real-Time Pricing in Smart Grid".
# Algorithm 1 (Blowfish-private rates) vs the naive Laplace mechanism on N household occupancy chains.
# Sweeps are one job per point: blowfish_run_seed per seed index and blowfish_zero_sweep_threshold per
# clipping threshold; blowfish_runs and blowfish_zero_sweep merge them into the tables the later rules read.

register_targets(
    "blowfish",
    {
        "fig2": figure_files("results/blowfish/fig2"),
        "fig_lambda": figure_files("results/blowfish/fig_lambda"),
        "table_rmsre": "results/blowfish/table_rmsre.csv",
        "table_adversary": "results/blowfish/table_adversary.csv",
        "table_zero_sweep": "results/blowfish/table_zero_sweep.csv",
        "fig_zero_sweep": figure_files("results/blowfish/fig_zero_sweep"),
        "table_audit": "results/blowfish/table_audit.csv",
    },
)
register_claims("results/blowfish/claims.csv")

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
    "fig2": {"profiles": "results/blowfish/profiles.csv"},
    "fig_lambda": {
        "profiles": "results/blowfish/profiles.csv",
        "example": "results/blowfish/zero_sweep_example_profiles.csv",
    },
    "fig_zero_sweep": {"table": "results/blowfish/table_zero_sweep.csv"},
}


rule blowfish_run_seed:
    output:
        runs="results/blowfish/seeds/runs_seed{seed}.csv",
        profiles="results/blowfish/seeds/profiles_seed{seed}.csv",
        adversary="results/blowfish/seeds/adversary_seed{seed}.csv",
    log:
        "logs/blowfish/run_seed{seed}.log",
    benchmark:
        "benchmarks/blowfish_run_seed/run_seed{seed}.tsv"
    wildcard_constraints:
        seed=sweep_constraint(blowfish_seeds()),
    conda:
        "../../../environment.yml"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", *BLOWFISH_MODEL, "adversary"),
        seed=config["seed"],
    script:
        "scripts/run_seed.py"


rule blowfish_runs:
    input:
        unpack(blowfish_run_seed_files),
    output:
        runs="results/blowfish/runs.csv",
        profiles="results/blowfish/profiles.csv",
        adversary="results/blowfish/adversary_runs.csv",
    log:
        "logs/blowfish/runs.log",
    benchmark:
        "benchmarks/blowfish_runs/runs.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", "seeds"),
    script:
        "scripts/runs.py"


rule blowfish_tables:
    input:
        runs="results/blowfish/runs.csv",
        adversary="results/blowfish/adversary_runs.csv",
    output:
        rmsre=report_entry("results/blowfish/table_rmsre.csv", "blowfish", "table_rmsre"),
        adversary=report_entry("results/blowfish/table_adversary.csv", "blowfish", "table_adversary"),
    log:
        "logs/blowfish/tables.log",
    benchmark:
        "benchmarks/blowfish_tables/tables.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    script:
        "scripts/tables.py"


rule blowfish_zero_sweep_threshold:
    output:
        runs="results/blowfish/zero_sweep/runs_threshold{threshold}.csv",
        table="results/blowfish/zero_sweep/table_threshold{threshold}.csv",
    log:
        "logs/blowfish/zero_sweep_threshold{threshold}.log",
    benchmark:
        "benchmarks/blowfish_zero_sweep_threshold/zero_sweep_threshold{threshold}.tsv"
    wildcard_constraints:
        threshold=sweep_constraint(blowfish_thresholds()),
    conda:
        "../../../environment.yml"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", *BLOWFISH_MODEL, "zero_sweep.initial_distributions", "zero_sweep.seeds"),
        threshold=lambda wc: swept_value(
            config["blowfish"]["zero_sweep"]["thresholds"], wc.threshold, "blowfish.zero_sweep.thresholds", "threshold"
        ),
        seed=config["seed"],
    script:
        "scripts/zero_sweep_threshold.py"


rule blowfish_zero_sweep:
    input:
        unpack(blowfish_zero_sweep_files),
    output:
        runs="results/blowfish/zero_sweep_runs.csv",
        table=report_entry("results/blowfish/table_zero_sweep.csv", "blowfish", "table_zero_sweep"),
        example="results/blowfish/zero_sweep_example_profiles.csv",
    log:
        "logs/blowfish/zero_sweep.log",
    benchmark:
        "benchmarks/blowfish_zero_sweep/zero_sweep.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
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
        seed=config["seed"],
    script:
        "scripts/zero_sweep.py"


rule blowfish_audit:
    output:
        table=report_entry("results/blowfish/table_audit.csv", "blowfish", "table_audit"),
    log:
        "logs/blowfish/audit.log",
    benchmark:
        "benchmarks/blowfish_audit/audit.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("blowfish", *BLOWFISH_MODEL, "audit", "reference_seed"),
        seed=config["seed"],
    script:
        "scripts/audit.py"


rule blowfish_figure:
    input:
        unpack(lambda wc: BLOWFISH_FIG_INPUTS[wc.fig]),
    output:
        pdf="results/blowfish/{fig}.pdf",
        png=report_entry("results/blowfish/{fig}.png", "blowfish", "{fig}", "png"),
    log:
        "logs/blowfish/{fig}.log",
    benchmark:
        "benchmarks/blowfish_figure/{fig}.tsv"
    wildcard_constraints:
        fig="|".join(BLOWFISH_FIGS),
    conda:
        "../../../environment.yml"
    threads: 1
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
        privacy_audits="results/blowfish/privacy_audit.csv",
        runs="results/blowfish/runs.csv",
        sweep="results/blowfish/zero_sweep_runs.csv",
        adversary="results/blowfish/adversary_runs.csv",
        profiles="results/blowfish/profiles.csv",
    output:
        "results/blowfish/claims.csv",
    log:
        "logs/blowfish/claims.log",
    benchmark:
        "benchmarks/blowfish_claims/claims.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
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
        table="results/blowfish/privacy_audit.csv",
    log:
        "logs/blowfish/privacy_audit.log",
    benchmark:
        "benchmarks/blowfish_privacy_audit/privacy_audit.tsv"
    conda:
        "../../../environment.yml"
    threads: 1
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


register_privacy_audit("results/blowfish/privacy_audit.csv")
