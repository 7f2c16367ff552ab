from dpgrid.experiments.peers import figures
from dpgrid.pipeline import run_script

run_script(snakemake, figures.figure_job)  # noqa: F821
