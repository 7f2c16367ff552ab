from dpgrid.core.pipeline import run_script
from dpgrid.papers.blowfish.stages import zero_sweep

run_script(snakemake, zero_sweep.zero_sweep_job)  # noqa: F821
