from dpgrid.core.pipeline import run_script
from dpgrid.papers.dpkmeans.stages import gaussian_mixture

run_script(snakemake, gaussian_mixture.gaussian_mixture_job)  # noqa: F821
