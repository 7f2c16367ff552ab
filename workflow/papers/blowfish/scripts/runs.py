from dpgrid.core.pipeline import run_script
from dpgrid.papers.blowfish.stages import runs

run_script(snakemake, runs.runs_job)  # noqa: F821
