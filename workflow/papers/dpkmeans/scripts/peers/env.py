from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.peers import stages

run_script(snakemake, stages.env_job)  # noqa: F821
