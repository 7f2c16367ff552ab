#!/usr/bin/env python3
"""The `set-resources` block of the SLURM profile: each rule's declared mem_mb and runtime plus the
memory and time of the Snakemake processes that wrap every SLURM job.

Under snakemake-executor-plugin-slurm a job is `sbatch --wrap "python -m snakemake ... --executor
slurm-jobstep"` (batch step), which starts the rule with `srun python -m snakemake --mode remote`
(job step). SLURM limits the memory of the whole job (cgroups) or of each step (jobacct_gather with
OverMemoryKill), so the limit has to cover these two Snakemake processes (about 140 MB RSS each,
measured with dpgrid's workflow loaded) besides the rule's own peak, which is what the rules declare
(`logs/**/*.usage.json`, `benchmarks/costs.md`). Without it the 250 MB rules were killed on the CI
cluster (step 0 at 272 MB > 250 MB). The time limit likewise covers two workflow parses.

    python workflow/profiles/slurm/job_overhead.py          # prints the block for config.v8+.yaml
    python workflow/profiles/slurm/job_overhead.py --write  # writes it into config.v8+.yaml

tests/workflow/test_profiles.py checks that the profile's block equals this output (the rules' declarations
change, the profile follows).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
# memory of the batch step's and the job step's `python -m snakemake` (2 x ~140 MB RSS, rounded up)
WRAPPER_MEM_MB = 300
# two workflow parses (a few seconds each on an idle node) with room for a busy node
WRAPPER_RUNTIME_MIN = 2

_CALLABLE = {  # resource functions of src/dpgrid, callable from a resource expression
    # the experiment's name: a synthetic source reads no file, its size is in its data.experiments entry
    "meter_data_mem_mb": "__import__('dpgrid.data.resources').data.resources.meter_data_mem_mb(list(input), "
    "wildcards.experiment)",
    "meter_data_runtime_min": "__import__('dpgrid.data.resources').data.resources.meter_data_runtime_min(list(input))",
}


def declared_resources(repo: Path = REPO) -> dict[str, dict[str, str]]:
    """{rule: {"mem_mb": value, "runtime": value}} as Snakemake loads the workflow (so rules made by `use rule
    ... with:` and rules defined in loops are included), for the rules that run as SLURM jobs (declared
    mem_mb, not local rules). A value is the number as written, or ``"lambda wc, input: F(list(input))"`` for a
    resource function F of src/dpgrid."""
    import contextlib
    import inspect
    import io

    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    sys.path.insert(0, str(repo / "src"))
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            wf = api.workflow(
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(configfiles=[repo / "config" / "config.yaml"]),
                snakefile=repo / "Snakefile",
                workdir=repo,
            )._workflow
            rules = [(r.name, r) for r in wf.rules if "mem_mb" in r.resources and r.name not in wf._localrules]
    out: dict[str, dict[str, str]] = {}
    for name, rule in rules:
        res = {}
        for key in ("mem_mb", "runtime"):
            value = rule.resources[key]._value
            if callable(value):
                called = [n for n in inspect.unwrap(value).__code__.co_names if n in _CALLABLE]
                if len(called) != 1:
                    sys.exit(f"rule {name}: resource {key} is a function not of the form F(list(input))")
                value = f"lambda wc, input: {called[0]}(list(input))"
            res[key] = str(value)
        out[name] = res
    return out


def with_overhead(value: str, overhead: int) -> int | str:
    """The declared value plus the overhead: a number, or a resource expression for a callable."""
    if re.fullmatch(r"\d+", value):
        return int(value) + overhead
    called = re.fullmatch(r"lambda wc, input: (\w+)\(list\(input\)\)", value)
    if not called or called.group(1) not in _CALLABLE:
        sys.exit(f"resource value {value!r}: not a number nor a known resource function")
    return f"{_CALLABLE[called.group(1)]} + {overhead}"


def set_resources_block(repo: Path = REPO) -> dict[str, dict[str, int | str]]:
    return {
        rule: {
            "mem_mb": with_overhead(res["mem_mb"], WRAPPER_MEM_MB),
            "runtime": with_overhead(res["runtime"], WRAPPER_RUNTIME_MIN),
        }
        for rule, res in declared_resources(repo).items()
    }


def render(block: dict[str, dict[str, int | str]]) -> str:
    lines = ["set-resources:"]
    for rule, res in block.items():
        values = ", ".join(f'{k}: "{v}"' if isinstance(v, str) else f"{k}: {v}" for k, v in res.items())
        lines.append(f"  {rule}: {{{values}}}")
    return "\n".join(lines) + "\n"


def write_block(profile: Path, block: str, repo: Path = REPO) -> None:
    """Replace the profile's ``set-resources:`` block (its last section, to the end of the file) with ``block``."""
    sys.path.insert(0, str(repo / "src"))
    from dpgrid.core.artifact import ArtifactError, with_trailing_section

    try:
        text = with_trailing_section(profile, "set-resources", block)
    except ArtifactError as exc:
        raise SystemExit(str(exc)) from None
    profile.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_block(Path(__file__).resolve().parent / "config.v8+.yaml", render(set_resources_block()))
    elif sys.argv[1:]:
        raise SystemExit("usage: job_overhead.py [--write]  (without --write: print the block)")
    else:
        sys.stdout.write(render(set_resources_block()))
