from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import mds

run_script(snakemake, mds.mds_job)  # noqa: F821
