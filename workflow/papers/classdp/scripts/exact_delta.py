from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp.stages import release_analysis

run_script(snakemake, release_analysis.exact_delta_job)  # noqa: F821
