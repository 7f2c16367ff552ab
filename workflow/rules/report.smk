# Collect the per-paper claims into results/claims.md + results/claims.csv.


rule claims_table:
    input:
        CLAIMS,
    output:
        csv="results/claims.csv",
        md=report("results/claims.md", category="Claims"),
    log:
        "logs/report/claims_table.log",
    benchmark:
        "benchmarks/claims_table/claims_table.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/report/claims_table.py"


# For ARTIFACT.md: every figure/table target with the command that rebuilds it and the claim rows it feeds.
rule claims_index:
    input:
        claims="results/claims.csv",
    output:
        md="results/claims_index.md",
    params:
        targets={paper: TARGETS[paper] for paper in PAPERS},
    log:
        "logs/report/claims_index.log",
    benchmark:
        "benchmarks/claims_index/claims_index.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/report/claims_index.py"


# What the run cost (time, memory, disk per rule and per experiment, from every job's benchmark
# file) against the resources each rule declares. Not part of `all`: it needs every job of the
# pipeline. Timings vary between runs, so the tables live in benchmarks/, not results/.
rule pipeline_costs:
    input:
        job_benchmarks(),
    output:
        rules="benchmarks/costs_rules.csv",
        experiments="benchmarks/costs_experiments.csv",
        md="benchmarks/costs.md",
    params:
        rules=lambda wc: rule_specs(),
    log:
        "logs/report/pipeline_costs.log",
    benchmark:
        "benchmarks/pipeline_costs/pipeline_costs.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/report/pipeline_costs.py"
