from dpgrid.experiments.opf import jobs
from dpgrid.pipeline import run_script

run_script(snakemake, jobs.assignment_job)  # noqa: F821
