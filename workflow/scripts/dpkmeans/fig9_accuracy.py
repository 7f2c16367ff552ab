from dpgrid.pipeline import run_script
from dpgrid.experiments import dpkmeans

run_script(snakemake, dpkmeans.fig9_accuracy_job)
