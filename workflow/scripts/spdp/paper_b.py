from dpgrid.experiments.spdp import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.paper_b_job)  # noqa: F821
