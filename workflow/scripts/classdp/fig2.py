from dpgrid.pipeline import run_script
from dpgrid.experiments import classdp

run_script(snakemake, classdp.fig2_job)
