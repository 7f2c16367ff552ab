from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp import jobs

run_script(snakemake, jobs.calibration_job)  # noqa: F821
