# dpgrid: regenerate every figure and table of four smart-grid differential-privacy papers.
#
#   snakemake --cores 2                              # everything (config/config.yaml)
#   snakemake --cores 2 --configfile config/quick.yaml   # small, fast variant (CI)
#   snakemake --cores 2 results/<paper>/<figure>.pdf # one figure (README.md lists them)
#
# The config is validated against workflow/schemas/config.schema.yaml before any rule runs.

from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version

min_version("9.12")

# Config, results, logs and the rules' paths are relative to the repository's folder: run from there.
if Path.cwd().resolve() != Path(workflow.basedir).resolve():
    raise WorkflowError(
        f"dpgrid runs from its repository folder {Path(workflow.basedir).resolve()}, not from {Path.cwd()}: "
        f"cd there (or add --directory {Path(workflow.basedir).resolve()})"
    )


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
