from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import profiles

run_script(snakemake, profiles.profiles_job)  # noqa: F821
