# Black-box privacy audits (dpgrid.privacy.blackbox_audit; docs/privacy_audits.md): each paper's rule
# <paper>_privacy_audit writes results/<paper>/privacy_audit.csv (register_privacy_audit); this rule merges them.
#   snakemake --cores 2 privacy_audits


rule privacy_audits:
    input:
        REGISTRY.privacy_audits,
    output:
        f"{RUN_RESULTS}privacy_audits.csv",
    log:
        f"{RUN_LOGS}privacy_audits.log",
    benchmark:
        f"{RUN_BENCHMARKS}privacy_audits/privacy_audits.tsv"
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    script:
        "../scripts/privacy_audits.py"
