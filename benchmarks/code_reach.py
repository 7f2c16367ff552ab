"""How far each rule's code hash reaches: the dpgrid modules a rule's script can import (dpgrid.core.provenance).

An edit of a module reruns every rule whose hash covers it, so a module reached by many rules of several papers
(a stand-in generator hashed by another paper's rules) reruns jobs it cannot affect. This script prints, from the
workflow's rules files and dpgrid.core.provenance.module_closure (the function that computes the code param):

- per rule: the number of modules its hash covers;
- per module: how many rules (and of which rules-file groups) its edit reruns, the widest first.

    python benchmarks/code_reach.py [--rules] [--modules N] [--markdown OUT.md]

No Snakemake run: rules and their scripts are read from workflow/rules/*.smk and workflow/papers/*/*.smk
(`rule NAME:` ... `script: "PATH"`).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from dpgrid.core.provenance import module_closure

RULE = re.compile(r"^(?:rule|checkpoint)\s+(\w+)\s*:", re.M)
SCRIPT = re.compile(r"^\s+script:\s*\n\s+\"([^\"]+)\"", re.M)


def rule_scripts(workflow_dir: Path = REPO / "workflow") -> dict[str, tuple[str, Path]]:
    """``{rule: (rules-file stem, script path)}`` for every rule with a ``script:``."""
    out: dict[str, tuple[str, Path]] = {}
    for smk in sorted(workflow_dir.glob("rules/*.smk")) + sorted(workflow_dir.glob("papers/*/*.smk")):
        text = smk.read_text()
        starts = [(m.start(), m.group(1)) for m in RULE.finditer(text)] + [(len(text), "")]
        for (begin, name), (end, _) in zip(starts, starts[1:]):
            m = SCRIPT.search(text, begin, end)
            if m:
                out[name] = (smk.stem, (smk.parent / m.group(1)).resolve())
    return out


def reach(package: Path = REPO / "src" / "dpgrid") -> tuple[dict[str, list[str]], dict[str, set[str]], dict]:
    scripts = rule_scripts()
    per_rule: dict[str, list[str]] = {}
    per_module: dict[str, set[str]] = defaultdict(set)
    for rule, (_, script) in scripts.items():
        mods = [p.relative_to(package).as_posix() for p in module_closure(script, package)]
        per_rule[rule] = mods
        for m in mods:
            per_module[m].add(rule)
    return per_rule, per_module, scripts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", action="store_true", help="list every rule's module count")
    ap.add_argument("--modules", type=int, default=20, help="how many of the widest-reaching modules to list")
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args(argv)
    per_rule, per_module, scripts = reach()
    counts = sorted(len(v) for v in per_rule.values())
    lines = [
        f"{len(per_rule)} script rules; modules per rule hash: min {counts[0]}, median {counts[len(counts) // 2]}, "
        f"max {counts[-1]}; {len(per_module)} modules reached.",
        "",
        "| module | rules rerun by an edit | rules files |",
        "|---|---:|---|",
    ]
    widest = sorted(per_module.items(), key=lambda kv: (-len(kv[1]), kv[0]))[: args.modules]
    for mod, rules in widest:
        groups = defaultdict(int)
        for r in rules:
            groups[scripts[r][0]] += 1
        lines.append(f"| {mod} | {len(rules)} | " + ", ".join(f"{g} {n}" for g, n in sorted(groups.items())) + " |")
    if args.rules:
        lines += ["", "| rule | rules file | modules |", "|---|---|---:|"]
        lines += [f"| {r} | {scripts[r][0]} | {len(m)} |" for r, m in sorted(per_rule.items())]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
