from dpgrid.core.pipeline import run_script
from dpgrid.papers.blowfish import jobs

run_script(snakemake, jobs.zero_sweep_job)  # noqa: F821
