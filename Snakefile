# dpgrid: regenerate every figure and table of four smart-grid differential-privacy papers.
#
#   snakemake --cores 2                                  # everything (config/config.yaml)
#   snakemake --cores 2 --configfile config/quick.yaml   # small, fast variant (CI)
#
# The workflow is workflow/Snakefile (the layout of the Snakemake workflow catalog); this file lets `snakemake`
# find it from the repository root as before, and marks the root of the checkout (dpgrid.core.pipeline).
# Included with its default target (rule all): the `include:` directive would drop it, leaving nothing to build.

workflow.include("workflow/Snakefile", overwrite_default_target=True)
