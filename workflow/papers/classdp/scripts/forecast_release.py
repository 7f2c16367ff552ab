from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp.stages import forecast_release

run_script(snakemake, forecast_release.forecast_release_job)  # noqa: F821
