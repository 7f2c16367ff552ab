from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp import claims

run_script(snakemake, claims.claims_job)  # noqa: F821
