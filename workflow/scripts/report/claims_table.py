from dpgrid.core.pipeline import run_script
from dpgrid.core.report_jobs import claims_table

run_script(snakemake, claims_table)
