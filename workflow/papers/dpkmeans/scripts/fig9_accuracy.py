from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import fig9

run_script(snakemake, fig9.fig9_accuracy_job)  # noqa: F821
