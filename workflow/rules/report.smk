# Collect the per-paper claims into results/claims.md + results/claims.csv.


rule claims_table:
    input:
        CLAIMS,
    output:
        csv="results/claims.csv",
        md=report("results/claims.md", category="Claims"),
    params:
        src=source_hash("dpgrid.claims"),
    log:
        "logs/report/claims_table.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/report/claims_table.py"
