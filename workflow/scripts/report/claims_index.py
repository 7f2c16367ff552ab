from dpgrid.core.artifact import claims_index_job
from dpgrid.core.pipeline import run_script

run_script(snakemake, claims_index_job)
