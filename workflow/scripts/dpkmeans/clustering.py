from dpgrid.pipeline import run_script
from dpgrid.experiments import dpkmeans

run_script(snakemake, dpkmeans.clustering_job)
