from dpgrid.experiments.peers import claims
from dpgrid.pipeline import run_script

run_script(snakemake, claims.claims_job)  # noqa: F821
