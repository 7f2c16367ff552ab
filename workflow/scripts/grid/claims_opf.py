from dpgrid.pipeline import run_script
from dpgrid.experiments.opf import claims_job

run_script(snakemake, claims_job)
