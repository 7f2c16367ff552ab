from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans import figures

run_script(snakemake, figures.figure_over_seeds_job)  # noqa: F821
