from dpgrid.core.pipeline import run_script
from dpgrid.papers.classdp.stages import forecast_model

run_script(snakemake, forecast_model.forecast_arma_job)  # noqa: F821
