from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp import jobs

run_script(snakemake, jobs.similarity_sweep_point_job)  # noqa: F821
