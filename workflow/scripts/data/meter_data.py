from dpgrid.pipeline import run_script
from dpgrid.experiments.data import meter_data_job

run_script(snakemake, meter_data_job)
