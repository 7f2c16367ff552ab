from dpgrid.core.pipeline import run_script
from dpgrid.papers.blowfish import claims

run_script(snakemake, claims.claims_job)  # noqa: F821
