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

    python workflow/profiles/slurm/job_overhead.py        # prints the block for config.v8+.yaml

tests/test_profiles.py checks that the profile's block equals this output (the rules' declarations
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

_RULE = re.compile(r"^rule (\w+):\n((?:[ \t].*\n|[ \t]*\n)*)", flags=re.M)
_RESOURCE = re.compile(r"^\s+(mem_mb|runtime)=(.+?),?\s*$", flags=re.M)
_CALLABLE = {  # resource functions of src/dpgrid, callable from a resource expression
    "meter_data_mem_mb": "__import__('dpgrid.data.resources').data.resources.meter_data_mem_mb(list(input))",
    "meter_data_runtime_min": "__import__('dpgrid.data.resources').data.resources.meter_data_runtime_min(list(input))",
}


def declared_resources(repo: Path = REPO) -> dict[str, dict[str, str]]:
    """{rule: {"mem_mb": value, "runtime": value}} as written in workflow/rules/*.smk, for the rules
    that run as SLURM jobs (declared mem_mb, not `localrule: True`)."""
    out: dict[str, dict[str, str]] = {}
    for path in sorted((repo / "workflow" / "rules").glob("*.smk")):
        for name, body in _RULE.findall(path.read_text()):
            if re.search(r"^\s+localrule:\s*True", body, flags=re.M):
                continue
            res = dict(_RESOURCE.findall(body))
            if res:
                if set(res) != {"mem_mb", "runtime"}:
                    sys.exit(f"{path}: rule {name} declares {sorted(res)}; expected mem_mb and runtime")
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


if __name__ == "__main__":
    sys.stdout.write(render(set_resources_block()))
