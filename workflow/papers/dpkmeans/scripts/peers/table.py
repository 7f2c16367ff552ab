from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.peers import stages

run_script(snakemake, stages.table_job)  # noqa: F821
