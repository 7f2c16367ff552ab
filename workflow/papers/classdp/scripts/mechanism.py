from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp.stages import release_analysis

run_script(snakemake, release_analysis.mechanism_job)  # noqa: F821
