# GhoddousiBoroujeni, Fay, Dimitrakakis, Kamgarpour, "Privacy of Real-Time Pricing in Smart Grid".
# Algorithm 1 (Blowfish-private rates) vs the naive Laplace mechanism on N household occupancy chains.
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


rule blowfish_runs:
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
        "benchmarks/blowfish/runs.tsv"
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
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/tables.py"


rule blowfish_zero_sweep:
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
        "benchmarks/blowfish/zero_sweep.tsv"
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
        "benchmarks/blowfish/audit.tsv"
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
    conda:
        "../../environment.yml"
    script:
        "../scripts/blowfish/claims.py"
