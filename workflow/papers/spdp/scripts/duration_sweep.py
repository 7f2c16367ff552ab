from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp import duration_sweep

run_script(snakemake, duration_sweep.duration_sweep_job)  # noqa: F821
