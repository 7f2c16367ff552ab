from dpgrid.artifact import claims_index_job
from dpgrid.pipeline import run_script

run_script(snakemake, claims_index_job)
