"""What the pipeline costs to run: time, memory and disk per rule and per experiment.

Every rule of the workflow has a ``benchmark:`` file (Snakemake writes one TSV per job with the
columns ``s`` wall seconds, ``max_rss`` peak resident memory in MB, ``io_out`` MB written,
``cpu_time`` seconds, ...) and declares ``threads`` and ``resources`` (``mem_mb``, ``runtime`` in
minutes). :func:`collect_costs` reads the benchmark files of one run, attributes each to its rule
(by matching the rule's benchmark pattern) and to its experiment (the rules file that defines
the rule: ``data``, each paper's rules files as its descriptor names them (:mod:`dpgrid.core.papers`),
``report``), and writes

* a per-rule table: jobs, summed and largest job wall time, CPU time, peak memory, MB written,
  the declared ``mem_mb`` / ``runtime`` and whether every job stayed within them;
* a per-experiment table (the one ARTIFACT.md shows);
* a Markdown rendering of both.

CPU time and peak memory: Snakemake samples a job every 0.5 s for its first 30 samples, then every 30 s, so for
a job longer than about 15 s the benchmark can miss CPU time and a later memory peak. Every job run through
:func:`dpgrid.core.pipeline.run_script` also records the kernel's counters (``getrusage``) beside its log; the
tables report the larger of the two (the job's record cannot see the Snakemake wrapper around it).

Timings depend on the machine and its load, so these tables live under ``benchmarks/`` and are
not part of the byte-identical ``results/``. ``python -m dpgrid.core.artifact embed costs
benchmarks/costs.md ARTIFACT.md`` copies the rendered table into ARTIFACT.md, so it shows measured
numbers without anyone typing them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dpgrid.core.io import write_table, write_text

#: Benchmark columns we use (Snakemake >= 8 writes these names; ``max_rss`` etc. in MB).
BENCHMARK_COLUMNS = ("s", "max_rss", "io_out", "cpu_time")
#: Experiments of the framework's own rules files (the papers' come from their descriptors, :mod:`dpgrid.core.papers`).
FRAMEWORK_FIRST = {"data": "meter data and downloads"}
FRAMEWORK_LAST = {"report": "claims table and index"}


def experiment_titles() -> dict[str, str]:
    """``{experiment (rules file stem): title}`` in table order: data, the papers' rules files in the papers'
    order, report; experiments not listed follow alphabetically."""
    from dpgrid.core.papers import experiment_titles as paper_titles

    return {**FRAMEWORK_FIRST, **paper_titles(), **FRAMEWORK_LAST}


class CostsError(ValueError):
    """A benchmark file that cannot be read or attributed."""


@dataclass(frozen=True)
class RuleSpec:
    """What the workflow declares for one rule (see :func:`rule_specs` in the Snakefile)."""

    name: str
    experiment: str
    benchmark: str  # the pattern, with {wildcards}
    threads: int
    mem_mb: int
    runtime: int  # minutes
    log: str = ""  # the pattern of the rule's (first) log file, with the benchmark's {wildcards}; "" if none


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """Regex of a Snakemake file pattern: ``{name}`` (or ``{name,regex}``) matches one path part."""
    out, pos = [], 0
    for m in re.finditer(r"\{(\w+)(?:,([^{}]+))?\}", pattern):
        out.append(re.escape(pattern[pos : m.start()]))
        out.append(f"(?P<{m.group(1)}>{m.group(2) or '[^/]+'})")
        pos = m.end()
    out.append(re.escape(pattern[pos:]))
    return re.compile("".join(out) + r"\Z")


def read_benchmark(path: str | os.PathLike) -> dict[str, float]:
    """The measurements of one job (the last line: Snakemake repeats append lines)."""
    try:
        frame = pd.read_csv(path, sep="\t")
    except Exception as exc:  # pandas raises several types for unreadable files
        raise CostsError(f"{path}: not a Snakemake benchmark file ({exc})") from exc
    missing = [c for c in BENCHMARK_COLUMNS if c not in frame.columns]
    if missing or frame.empty:
        raise CostsError(
            f"{path}: benchmark file lacks column(s) {missing or 'rows'}; columns are {list(frame.columns)}"
        )
    row = frame.iloc[-1]
    values = {}
    for c in BENCHMARK_COLUMNS:
        v = pd.to_numeric(row[c], errors="coerce")
        if pd.isna(v):
            raise CostsError(f"{path}: field {c!r} has value {row[c]!r}, not a number")
        values[c] = float(v)
    return values


def attribute(files: Iterable[str], specs: Sequence[RuleSpec]) -> list[tuple[str, RuleSpec]]:
    """Pair each benchmark file with the rule whose pattern it matches (exactly one)."""
    return [(f, spec) for f, spec, _ in _attribute(files, specs)]


def _attribute(files: Iterable[str], specs: Sequence[RuleSpec]) -> list[tuple[str, RuleSpec, dict[str, str]]]:
    """:func:`attribute` with the wildcard values of each file."""
    regexes = [(pattern_regex(s.benchmark), s) for s in specs]
    out = []
    for f in files:
        hits = [(s, m) for rx, s in regexes if (m := rx.match(str(f)))]
        if len(hits) != 1:
            names = [s.name for s, _ in hits]
            raise CostsError(f"{f}: matches the benchmark pattern of {len(hits)} rules {names}; expected one")
        out.append((str(f), hits[0][0], hits[0][1].groupdict()))
    return out


def job_log(spec: RuleSpec, wildcards: Mapping[str, str]) -> Path | None:
    """The log file of the rule's job with these wildcard values (None if the rule has no log)."""
    if not spec.log:
        return None
    try:
        return Path(re.sub(r"\{(\w+)(?:,[^{}]+)?\}", lambda m: wildcards[m.group(1)], spec.log))
    except KeyError as exc:
        raise CostsError(
            f"rule {spec.name}: log pattern {spec.log!r} uses wildcard {exc} its benchmark lacks"
        ) from None


def read_usage(path: str | os.PathLike) -> dict[str, float] | None:
    """A job's own usage record (:func:`dpgrid.core.pipeline.job_usage`, written beside its log), or None if absent."""
    import json

    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        return None
    try:
        usage = json.loads(text)
        return {k: float(usage[k]) for k in ("cpu_s", "max_rss_mb")}
    except (ValueError, KeyError, TypeError) as exc:
        raise CostsError(f"{path}: not a job usage record ({exc})") from None


def rule_costs(files: Iterable[str], specs: Sequence[RuleSpec]) -> pd.DataFrame:
    """One row per rule that ran: measured totals/maxima and the declared resources.

    CPU time and peak memory are the larger of the benchmark's samples and the job's own record (the kernel's
    counters, :func:`dpgrid.core.pipeline.job_usage`; the benchmark samples a long job only every 30 s).
    """
    from dpgrid.core.pipeline import usage_path

    rows = []
    for f, spec, wildcards in _attribute(files, specs):
        b = read_benchmark(f)
        log = job_log(spec, wildcards)
        own = read_usage(usage_path(log)) if log is not None else None
        rows.append(
            {
                "experiment": spec.experiment,
                "rule": spec.name,
                "wall_s": b["s"],
                "cpu_s": max(b["cpu_time"], own["cpu_s"]) if own else b["cpu_time"],
                "rss_mb": max(b["max_rss"], own["max_rss_mb"]) if own else b["max_rss"],
                "written_mb": b["io_out"],
                "threads": spec.threads,
                "mem_mb": spec.mem_mb,
                "runtime_min": spec.runtime,
            }
        )
    if not rows:
        raise CostsError("no benchmark files to collect")
    jobs = pd.DataFrame(rows)
    jobs["within_mem"] = jobs["rss_mb"] <= jobs["mem_mb"]
    jobs["within_runtime"] = jobs["wall_s"] <= 60.0 * jobs["runtime_min"]
    grouped = jobs.groupby(["experiment", "rule"], sort=False)
    table = grouped.agg(
        jobs=("wall_s", "size"),
        wall_s_sum=("wall_s", "sum"),
        wall_s_max=("wall_s", "max"),
        cpu_s_sum=("cpu_s", "sum"),
        rss_mb_max=("rss_mb", "max"),
        written_mb_sum=("written_mb", "sum"),
        threads=("threads", "first"),
        mem_mb=("mem_mb", "first"),
        runtime_min=("runtime_min", "first"),
        within_mem=("within_mem", "all"),
        within_runtime=("within_runtime", "all"),
    ).reset_index()
    return _sort(table)


def _sort(table: pd.DataFrame) -> pd.DataFrame:
    order = {name: i for i, name in enumerate(experiment_titles())}
    key = table["experiment"].map(lambda e: (order.get(e, len(order)), e))
    table = table.assign(_key=key).sort_values(["_key"] + (["rule"] if "rule" in table else []), kind="stable")
    return table.drop(columns="_key").reset_index(drop=True)


def experiment_costs(rules: pd.DataFrame) -> pd.DataFrame:
    """Per experiment: jobs, summed job time, CPU time, the largest job's peak memory, MB written."""
    rules = rules.assign(within_declared=rules["within_mem"] & rules["within_runtime"])
    table = (
        rules.groupby("experiment", sort=False)
        .agg(
            jobs=("jobs", "sum"),
            wall_s_sum=("wall_s_sum", "sum"),
            wall_s_max=("wall_s_max", "max"),
            cpu_s_sum=("cpu_s_sum", "sum"),
            rss_mb_max=("rss_mb_max", "max"),
            written_mb_sum=("written_mb_sum", "sum"),
            within_declared=("within_declared", "all"),
        )
        .reset_index()
    )
    return _sort(table)


def _md_table(frame: pd.DataFrame, columns: Mapping[str, str]) -> str:
    head = "| " + " | ".join(columns.values()) + " |"
    sep = "|" + "|".join("---" if c in ("experiment", "rule") else "---:" for c in columns) + "|"
    lines = [head, sep]
    titles = experiment_titles()
    for _, row in frame.iterrows():
        cells = []
        for c in columns:
            v = row[c]
            if isinstance(v, (bool, np.bool_)):
                cells.append("yes" if v else "**no**")
            elif c == "experiment":
                cells.append(titles.get(v, v))
            elif isinstance(v, float):
                cells.append(f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}")
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def costs_markdown(rules: pd.DataFrame, experiments: pd.DataFrame, disk: Mapping[str, float] | None = None) -> str:
    """The two tables as Markdown (experiments first)."""
    total = experiments[["jobs", "wall_s_sum", "cpu_s_sum", "written_mb_sum"]].sum()
    parts = [
        "Per experiment (sum over its jobs; peak memory = the largest job's peak resident set):",
        "",
        _md_table(
            experiments,
            {
                "experiment": "experiment",
                "jobs": "jobs",
                "wall_s_sum": "job time (s)",
                "wall_s_max": "longest job (s)",
                "cpu_s_sum": "CPU time (s)",
                "rss_mb_max": "peak memory (MB)",
                "written_mb_sum": "written (MB)",
                "within_declared": "within declared resources",
            },
        ),
        "",
        f"All jobs: {int(total['jobs'])} jobs, {total['wall_s_sum']:,.0f} s of job time "
        f"({total['wall_s_sum'] / 60:.1f} min; wall time is about this divided by the cores in use), "
        f"{total['cpu_s_sum']:,.0f} s CPU, {total['written_mb_sum']:,.0f} MB written.",
    ]
    if disk:
        parts += ["", "Disk after the run: " + ", ".join(f"`{k}` {v:,.0f} MB" for k, v in disk.items()) + "."]
    parts += [
        "",
        "Per rule (declared = the rule's `resources`; every job must stay within them):",
        "",
        _md_table(
            rules,
            {
                "experiment": "experiment",
                "rule": "rule",
                "jobs": "jobs",
                "wall_s_sum": "job time (s)",
                "wall_s_max": "longest job (s)",
                "rss_mb_max": "peak memory (MB)",
                "mem_mb": "declared mem_mb",
                "runtime_min": "declared runtime (min)",
                "within_mem": "memory ok",
                "within_runtime": "runtime ok",
            },
        ),
    ]
    return "\n".join(parts) + "\n"


def directory_mb(path: str | os.PathLike) -> float:
    """Size of the files under ``path`` in MB (0 if it does not exist)."""
    root = Path(path)
    if not root.exists():
        return 0.0
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 1e6


def collect_costs(
    files: Iterable[str],
    specs: Sequence[RuleSpec],
    rules_csv: str | os.PathLike,
    experiments_csv: str | os.PathLike,
    md_out: str | os.PathLike,
    disk_dirs: Sequence[str] = ("results", "resources"),
) -> pd.DataFrame:
    """Write the per-rule and per-experiment tables and their Markdown; return the per-rule table."""
    rules = rule_costs(files, specs)
    experiments = experiment_costs(rules)
    write_table(rules, rules_csv)
    write_table(experiments, experiments_csv)
    disk = {d + "/": directory_mb(d) for d in disk_dirs}
    write_text(costs_markdown(rules, experiments, disk), md_out)
    return rules


def costs_job(smk) -> None:
    """Rule body of ``pipeline_costs`` (workflow/rules/report.smk)."""
    specs = [RuleSpec(**s) for s in smk.params.rules]
    disk = [d.rstrip("/") for d in smk.params.disk]  # the run's results and resources folders
    collect_costs(list(smk.input), specs, smk.output.rules, smk.output.experiments, smk.output.md, disk)


def longest_chain(durations: Mapping[str, float], deps: Mapping[str, Iterable[str]]) -> tuple[float, list[str]]:
    """The critical path of a job graph: the chain of dependent jobs with the largest summed job time.

    ``durations`` maps every job to its time (>= 0); ``deps`` maps a job to the jobs it needs (their outputs
    are its inputs; jobs absent from ``deps`` need nothing). The longest path of a DAG by node weight, by
    dynamic programming in topological order (Kahn): finish(j) = durations[j] + max over needed jobs of
    finish(i). With unlimited cores and no scheduling overhead, the run cannot end before this total.
    Returns ``(total, chain)``, the chain first job first; ties go to the lexicographically smallest job.
    Raises :class:`CostsError` for an unknown job, a negative or non-finite time, or a cycle.
    """
    needs = {j: sorted(set(deps.get(j, ()))) for j in durations}
    for j, ds in needs.items():
        unknown = [d for d in ds if d not in durations]
        if unknown:
            raise CostsError(f"job {j!r} needs {unknown}, which have no time")
    for j, t in durations.items():
        if not (np.isfinite(t) and t >= 0):
            raise CostsError(f"job {j!r} has time {t!r}; need a finite number >= 0")
    users: dict[str, list[str]] = {j: [] for j in durations}
    missing = {j: len(ds) for j, ds in needs.items()}
    for j, ds in needs.items():
        for d in ds:
            users[d].append(j)
    ready = sorted(j for j, n in missing.items() if n == 0)
    finish: dict[str, float] = {}
    before: dict[str, str | None] = {}
    done = 0
    while ready:
        j = ready.pop()
        best = max(needs[j], key=finish.__getitem__, default=None)  # needs[j] is sorted: first on ties
        before[j] = best
        finish[j] = float(durations[j]) + (finish[best] if best is not None else 0.0)
        done += 1
        for u in users[j]:
            missing[u] -= 1
            if missing[u] == 0:
                ready.append(u)
        ready.sort(reverse=True)
    if done != len(durations):
        cyclic = sorted(j for j, n in missing.items() if n > 0)
        raise CostsError(f"the job graph has a cycle through {cyclic[:5]}")
    if not finish:
        return 0.0, []
    end = max(sorted(finish), key=finish.__getitem__)
    chain = []
    node: str | None = end
    while node is not None:
        chain.append(node)
        node = before[node]
    return finish[end], chain[::-1]


def over_declared(rules_csv: str | os.PathLike) -> pd.DataFrame:
    """Rows of a per-rule costs table whose jobs exceeded the declared memory or runtime."""
    table = pd.read_csv(rules_csv)
    return table[~(table["within_mem"].astype(bool) & table["within_runtime"].astype(bool))]


def main(argv: Sequence[str] | None = None) -> int:
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m dpgrid.core.costs", description="Check a run's jobs against the resources their rules declare."
    )
    parser.add_argument("command", choices=["check"])
    parser.add_argument("rules_csv", help="benchmarks/costs_rules.csv of a finished run")
    args = parser.parse_args(argv)
    bad = over_declared(args.rules_csv)
    if len(bad):
        print(
            f"{args.rules_csv}: {len(bad)} rule(s) exceeded their declared resources:\n"
            + bad[["rule", "rss_mb_max", "mem_mb", "wall_s_max", "runtime_min"]].to_string(index=False),
            file=sys.stderr,
        )
        return 1
    print(f"{args.rules_csv}: every job stayed within its rule's declared mem_mb and runtime")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
