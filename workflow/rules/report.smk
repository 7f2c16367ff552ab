# Collect the per-paper claims into results/claims.md + results/claims.csv.
# `snakemake --report results/report.zip` (after the run) builds the reviewers' report: this description,
# per paper a category and per figure/table a subcategory, each with its caption (rules <paper>_report_captions, claims_page).

# The meter data (and downloads) the papers read are jobs of the pipeline (data.smk, register_data_used).
register_benchmarks(rules.meter_data, *[{"experiment": e} for e in sorted(REGISTRY.data_used)])
for _source in sorted({config["data"]["experiments"][e]["source"] for e in REGISTRY.data_used} & set(DOWNLOAD_FILES)):
    register_benchmarks(getattr(rules, f"download_{_source}"))


report: "../report/workflow.rst"


rule claims_table:
    input:
        REGISTRY.claims,
    output:
        csv=report_entry(f"{RESULTS}claims.csv", "Claims", "claims table (CSV)"),
        md=f"{RESULTS}claims.md",
    log:
        f"{LOGS}report/claims_table.log",
    benchmark:
        f"{BENCHMARKS}claims_table/claims_table.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    script:
        "../scripts/report/claims_table.py"


# Every claim's verdict over the replicates (config replicates, docs/seeds.md): the claims tables of replicates (d, n),
# each a run of the papers' rules with the data drawn again (d) and the noise drawn again (n). Not part of `all`.
#   snakemake --cores 2 claims_over_seeds
rule claims_over_seeds:
    input:
        replicate_files(f"{RESULTS}claims.csv"),
    output:
        csv=f"{RUN_RESULTS}claims_over_seeds.csv",
        md=f"{RUN_RESULTS}claims_over_seeds.md",
    log:
        f"{RUN_LOGS}report/claims_over_seeds.log",
    benchmark:
        f"{RUN_BENCHMARKS}claims_over_seeds/claims_over_seeds.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    script:
        "../scripts/report/claims_over_seeds.py"


REGISTRY.on_demand_rules.add("claims_over_seeds")


# A result table over the replicates (register_spread: a paper's single-draw tables and figure data): per row and
# value column the median and range over the replicates (dpgrid.core.spread), results/over_seeds/<paper>/<name>.*
rule table_over_seeds:
    input:
        lambda wc: replicate_files(REGISTRY.spreads[f"{wc.paper}/{wc.name}"]["pattern"]),
    output:
        csv=f"{RUN_RESULTS}over_seeds/{{paper}}/{{name}}.csv",
        md=f"{RUN_RESULTS}over_seeds/{{paper}}/{{name}}.md",
    log:
        f"{RUN_LOGS}over_seeds/{{paper}}/{{name}}.log",
    benchmark:
        f"{RUN_BENCHMARKS}table_over_seeds/{{paper}}_{{name}}.tsv"
    wildcard_constraints:
        paper="|".join(PAPERS),
        name=r"\w+",
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        spread=lambda wc: REGISTRY.spreads[f"{wc.paper}/{wc.name}"],
    script:
        "../scripts/report/table_over_seeds.py"


REGISTRY.on_demand_rules.add("table_over_seeds")


# Everything over the replicates (docs/seeds.md): the claims over seeds, the papers' single-draw tables as median
# [range] and their figures with bands. Not part of `all`.
#   snakemake --cores 2 over_seeds
rule over_seeds:
    input:
        lambda wc: over_seeds_targets(),
    localrule: True


REGISTRY.not_measured.add("over_seeds")


# For ARTIFACT.md: every figure/table target with the command that rebuilds it and the claim rows it feeds.
rule claims_index:
    input:
        claims=f"{RUN_RESULTS}claims.csv",
    output:
        md=f"{RUN_RESULTS}claims_index.md",
    log:
        f"{RUN_LOGS}report/claims_index.log",
    benchmark:
        f"{RUN_BENCHMARKS}claims_index/claims_index.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        **claims_index_params(),
        targets={paper: REGISTRY.targets[paper] for paper in PAPERS},
    script:
        "../scripts/report/claims_index.py"


# The report's captions, one per shown result file of a paper's targets (rule <paper>_report_captions: the config
# values a caption shows are params of its paper's rule only), and the claims summary of the workflow description;
# read from results/claims.csv and the target registry (dpgrid.core.report_pages).
for _paper in PAPERS:

    rule:
        name:
            f"{_paper}_report_captions"
        input:
            claims=f"{RUN_RESULTS}claims.csv",
            texts=REPORT_TEXTS,
        output:
            captions=report_caption_files([_paper]),
        log:
            f"{RUN_LOGS}report/{_paper}_report_captions.log",
        benchmark:
            f"{RUN_BENCHMARKS}{_paper}_report_captions/{_paper}_report_captions.tsv"
        conda:
            "../../environment.yml"
        resources:
            mem_mb=250,
            runtime=1,
        params:
            specs=report_caption_specs(_paper),
        script:
            "../scripts/report/report_captions.py"


rule report_summary:
    input:
        claims=f"{RUN_RESULTS}claims.csv",
        texts=REPORT_TEXTS,
    output:
        summary=f"{RUN_RESULTS}report/summary.rst",
        papers=f"{RUN_RESULTS}report/papers.rst",
    log:
        f"{RUN_LOGS}report/report_summary.log",
    benchmark:
        f"{RUN_BENCHMARKS}report_summary/report_summary.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        titles=report_paper_field("title"),
        scopes=report_paper_field("scope", ""),
    script:
        "../scripts/report/report_summary.py"


# The claims table as a page of the report (sortable, filtered by paper, verdict, text) and the claims entries' captions.
rule claims_page:
    input:
        claims=f"{RUN_RESULTS}claims.csv",
    output:
        html=report_entry(f"{RUN_RESULTS}report/claims.html", "Claims", "claims table"),
        csv_caption=report_caption_file(f"{RUN_RESULTS}claims.csv"),
        html_caption=report_caption_file(f"{RUN_RESULTS}report/claims.html"),
    log:
        f"{RUN_LOGS}report/claims_page.log",
    benchmark:
        f"{RUN_BENCHMARKS}claims_page/claims_page.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        shown=report_shown_targets(),
    script:
        "../scripts/report/claims_page.py"


# What the run cost (time, memory, disk per rule and per experiment, from every job's benchmark
# file) against the resources each rule declares. Not part of `all`: it needs every job of the
# pipeline. Timings vary between runs, so the tables live in benchmarks/, not results/.
rule pipeline_costs:
    input:
        job_benchmarks(),
    output:
        rules=f"{RUN_BENCHMARKS}costs_rules.csv",
        experiments=f"{RUN_BENCHMARKS}costs_experiments.csv",
        md=f"{RUN_BENCHMARKS}costs.md",
    log:
        f"{RUN_LOGS}report/pipeline_costs.log",
    benchmark:
        f"{RUN_BENCHMARKS}pipeline_costs/pipeline_costs.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        rules=lambda wc: rule_specs(),
        disk=[RUN_RESULTS, RUN_RESOURCES],
    script:
        "../scripts/report/pipeline_costs.py"
