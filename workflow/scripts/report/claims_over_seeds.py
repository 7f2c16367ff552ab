from dpgrid.core.pipeline import run_script
from dpgrid.core.report_jobs import claims_over_seeds

run_script(snakemake, claims_over_seeds)
