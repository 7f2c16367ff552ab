from dpgrid.core.pipeline import run_script
from dpgrid.papers.spdp.stages import paper_b

run_script(snakemake, paper_b.paper_b_job)  # noqa: F821
