from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.opf import jobs

run_script(snakemake, jobs.collect_job)  # noqa: F821
