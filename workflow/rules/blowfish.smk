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

BLOWFISH_SRC = source_hash(
    "dpgrid.models.occupancy",
    "dpgrid.mechanisms.blowfish_pricing",
    "dpgrid.privacy.uniform_laplace",
    "dpgrid.experiments.blowfish",
)
BLOWFISH_FIG_SRC = source_hash("dpgrid.experiments.blowfish", "dpgrid.figures")


rule blowfish_run_seed:
    output:
        runs="results/blowfish/seeds/runs_seed{seed}.csv",
        profiles="results/blowfish/seeds/profiles_seed{seed}.csv",
        adversary="results/blowfish/seeds/adversary_seed{seed}.csv",
    wildcard_constraints:
        seed=sweep_constraint(blowfish_seeds()),
    params:
        src=BLOWFISH_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/run_seed{seed}.log",
    benchmark:
        "benchmarks/blowfish_run_seed/run_seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/run_seed.py"


rule blowfish_runs:
    input:
        unpack(blowfish_run_seed_files),
    output:
        runs="results/blowfish/runs.csv",
        profiles="results/blowfish/profiles.csv",
        adversary="results/blowfish/adversary_runs.csv",
    params:
        src=BLOWFISH_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/runs.log",
    benchmark:
        "benchmarks/blowfish_runs/runs.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/runs.py"


rule blowfish_tables:
    input:
        runs="results/blowfish/runs.csv",
        adversary="results/blowfish/adversary_runs.csv",
    output:
        rmsre="results/blowfish/table_rmsre.csv",
        adversary="results/blowfish/table_adversary.csv",
    params:
        src=BLOWFISH_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/tables.log",
    benchmark:
        "benchmarks/blowfish_tables/tables.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/tables.py"


rule blowfish_zero_sweep_threshold:
    output:
        runs="results/blowfish/zero_sweep/runs_threshold{threshold}.csv",
        table="results/blowfish/zero_sweep/table_threshold{threshold}.csv",
    wildcard_constraints:
        threshold=sweep_constraint(blowfish_thresholds()),
    params:
        src=BLOWFISH_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/zero_sweep_threshold{threshold}.log",
    benchmark:
        "benchmarks/blowfish_zero_sweep_threshold/zero_sweep_threshold{threshold}.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/zero_sweep_threshold.py"


rule blowfish_zero_sweep:
    input:
        unpack(blowfish_zero_sweep_files),
    output:
        runs="results/blowfish/zero_sweep_runs.csv",
        table="results/blowfish/table_zero_sweep.csv",
        example="results/blowfish/zero_sweep_example_profiles.csv",
    params:
        src=BLOWFISH_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/zero_sweep.log",
    benchmark:
        "benchmarks/blowfish_zero_sweep/zero_sweep.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/zero_sweep.py"


rule blowfish_audit:
    output:
        table="results/blowfish/table_audit.csv",
    params:
        src=BLOWFISH_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/audit.log",
    benchmark:
        "benchmarks/blowfish_audit/audit.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/audit.py"


rule blowfish_fig2:
    input:
        profiles="results/blowfish/profiles.csv",
    output:
        pdf=report("results/blowfish/fig2.pdf", category="blowfish"),
        png="results/blowfish/fig2.png",
    params:
        src=BLOWFISH_FIG_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/fig2.log",
    benchmark:
        "benchmarks/blowfish_fig2/fig2.tsv"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/fig2.py"


rule blowfish_fig_lambda:
    input:
        profiles="results/blowfish/profiles.csv",
        example="results/blowfish/zero_sweep_example_profiles.csv",
    output:
        pdf=report("results/blowfish/fig_lambda.pdf", category="blowfish"),
        png="results/blowfish/fig_lambda.png",
    params:
        src=BLOWFISH_FIG_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/fig_lambda.log",
    benchmark:
        "benchmarks/blowfish_fig_lambda/fig_lambda.tsv"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/fig_lambda.py"


rule blowfish_fig_zero_sweep:
    input:
        table="results/blowfish/table_zero_sweep.csv",
    output:
        pdf=report("results/blowfish/fig_zero_sweep.pdf", category="blowfish"),
        png="results/blowfish/fig_zero_sweep.png",
    params:
        src=BLOWFISH_FIG_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/fig_zero_sweep.log",
    benchmark:
        "benchmarks/blowfish_fig_zero_sweep/fig_zero_sweep.tsv"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/fig_zero_sweep.py"


rule blowfish_claims:
    input:
        runs="results/blowfish/runs.csv",
        sweep="results/blowfish/zero_sweep_runs.csv",
        audit="results/blowfish/table_audit.csv",
        adversary="results/blowfish/adversary_runs.csv",
    output:
        "results/blowfish/claims.csv",
    params:
        src=BLOWFISH_SRC,
        cfg=lambda wc: repr(config["blowfish"]),
    log:
        "logs/blowfish/claims.log",
    benchmark:
        "benchmarks/blowfish_claims/claims.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/claims.py"


register_benchmarks(rules.blowfish_run_seed, *[{"seed": k} for k in blowfish_seeds()])
register_benchmarks(rules.blowfish_zero_sweep_threshold, *[{"threshold": th} for th in blowfish_thresholds()])
