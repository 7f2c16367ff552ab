# dpgrid: regenerate every figure and table of four smart-grid differential-privacy papers.
#
#   snakemake --cores 2                              # everything (config/config.yaml)
#   snakemake --cores 2 --configfile config/quick.yaml   # small, fast variant (CI)
#   snakemake --cores 2 results/classdp/fig2.pdf     # one figure
#
# The config is validated against workflow/schemas/config.schema.yaml before any rule runs.

from snakemake.utils import min_version

min_version("9.12")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


check_config()  # schema and cross-field checks (common.smk), before any rule is defined


include: "workflow/rules/data.smk"
include: "workflow/rules/grid.smk"
include: "workflow/rules/classdp.smk"
include: "workflow/rules/spdp.smk"
include: "workflow/rules/dpkmeans.smk"
include: "workflow/rules/blowfish.smk"
include: "workflow/rules/peers.smk"  # opt-in (config peers.enabled); before report.smk, which collects the claims
include: "workflow/rules/report.smk"


rule all:
    input:
        all_targets(),
    default_target: True


# The peer comparison (workflow/rules/peers.smk): `snakemake --cores 2 peers --configfile ... config/peers.yaml`.
rule peers:
    input:
        peers_targets,


# Last: every rule's code hash (workflow/rules/common.smk).
add_code_params()
