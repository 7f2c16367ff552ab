# dpgrid: regenerate every figure and table of four smart-grid differential-privacy papers.
#
#   snakemake --cores 2                              # everything (config/config.yaml)
#   snakemake --cores 2 --configfile config/quick.yaml   # small, fast variant (CI)
#   snakemake --cores 2 results/<paper>/<figure>.pdf # one figure (README.md lists them)
#
# The config is validated against workflow/schemas/config.schema.yaml before any rule runs.

from snakemake.utils import min_version

min_version("9.12")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


check_config()  # schema and cross-field checks (common.smk), before any rule is defined


include: "workflow/rules/data.smk"


# Every paper's rules files (workflow/papers/<paper>/<name>.smk), in the papers' order (their descriptors,
# dpgrid.core.papers); before report.smk, which collects the claims they register.
for rules_file in paper_rules_files():

    include: rules_file


include: "workflow/rules/privacy_audits.smk"


include: "workflow/rules/report.smk"


rule all:
    input:
        all_targets(),
    default_target: True


# Last: every rule's code hash (workflow/rules/common.smk).
add_code_params()
