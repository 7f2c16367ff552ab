from dpgrid.experiments.report import claims_table
from dpgrid.pipeline import run_script

run_script(snakemake, claims_table)
