from dpgrid.pipeline import run_script
from dpgrid.experiments.opf import figure_job

run_script(snakemake, figure_job)
