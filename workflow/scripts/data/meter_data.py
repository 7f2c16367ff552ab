from dpgrid.experiments.data import meter_data_job
from dpgrid.pipeline import run_script

run_script(snakemake, meter_data_job)
