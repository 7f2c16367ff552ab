from dpgrid.pipeline import run_script
from dpgrid.experiments.opf import assignment_job

run_script(snakemake, assignment_job)
