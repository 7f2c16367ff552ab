from dpgrid.experiments.peers import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.table_job)  # noqa: F821
