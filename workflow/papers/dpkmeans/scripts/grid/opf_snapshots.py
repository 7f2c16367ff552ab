from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.opf import jobs

run_script(snakemake, jobs.snapshot_job)  # noqa: F821
