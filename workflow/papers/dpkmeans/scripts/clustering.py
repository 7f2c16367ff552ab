from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import clustering

run_script(snakemake, clustering.clustering_job)  # noqa: F821
