from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp.stages import adjacency_calibration

run_script(snakemake, adjacency_calibration.calibration_job)  # noqa: F821
