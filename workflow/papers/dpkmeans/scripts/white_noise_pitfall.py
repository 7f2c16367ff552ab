from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import pitfall

run_script(snakemake, pitfall.pitfall_job)  # noqa: F821
