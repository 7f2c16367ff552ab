from dpgrid.experiments.classdp import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.exact_delta_job)  # noqa: F821
