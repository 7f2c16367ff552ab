from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.peers import stages

run_script(snakemake, stages.fetch_cedskmeans_job)  # noqa: F821
