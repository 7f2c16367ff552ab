from dpgrid.pipeline import run_script
from dpgrid.artifact import claims_index_job

run_script(snakemake, claims_index_job)
