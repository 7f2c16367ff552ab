from dpgrid.experiments.peers import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.fetch_cedskmeans_job)  # noqa: F821
