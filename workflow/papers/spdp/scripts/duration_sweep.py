from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp.stages import duration_sweep

run_script(snakemake, duration_sweep.duration_sweep_job)  # noqa: F821
