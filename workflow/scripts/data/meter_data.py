from dpgrid.core.pipeline import run_script
from dpgrid.data.jobs import meter_data_job

run_script(snakemake, meter_data_job)
