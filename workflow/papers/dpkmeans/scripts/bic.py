from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import bic

run_script(snakemake, bic.bic_job)  # noqa: F821
