from dpgrid.core.pipeline import run_script
from dpgrid.core.report_jobs import table_over_seeds

run_script(snakemake, table_over_seeds)
