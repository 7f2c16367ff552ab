from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.opf import figures

run_script(snakemake, figures.figure_job)  # noqa: F821
