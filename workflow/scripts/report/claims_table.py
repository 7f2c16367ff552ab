from dpgrid.pipeline import run_script
from dpgrid.experiments.report import claims_table

run_script(snakemake, claims_table)
