from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans import claims

run_script(snakemake, claims.claims_job)  # noqa: F821
