from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.opf import stages

run_script(snakemake, stages.collect_job)  # noqa: F821
