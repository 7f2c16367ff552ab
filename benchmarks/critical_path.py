"""The critical path of a finished pipeline run: the longest chain of dependent jobs by job time.

With unlimited cores (and no scheduling overhead) a run cannot end before this chain does, so it is the
floor of the wall time on a large machine; the summed job time divided by the cores is the floor on a small
one. The job graph is Snakemake's own (planned in-process, as ``--forceall``, from the workflow checkout
that made the run, in a subprocess that imports that checkout's ``src/``); each job's time is read from the
run's records: the wall seconds ``s`` of its Snakemake benchmark file and its CPU seconds (the larger of the
benchmark's and of the job's own ``<log>.usage.json`` getrusage record, as in :mod:`dpgrid.core.costs`).
The chain itself is :func:`dpgrid.core.costs.longest_chain`.

    python benchmarks/critical_path.py --run RUN_DIR [--workflow CHECKOUT] [--configfile F ...]
        [--weight wall|cpu] [--top 15] [--md benchmarks/critical_path.md] [--title TEXT]

``--workflow`` defaults to this checkout; it must be the code that made the run (its rules name the
benchmark and log files). Planning writes Snakemake's ``.snakemake/`` metadata into the checkout: use a
copy for a run directory that must stay read-only. Prints the chain and the largest jobs; ``--md`` writes
the same as a Markdown section.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def plan_jobs(workflow: Path, configfiles: list[str], targets: list[str]) -> list[dict]:
    """Every job of ``targets`` (default ``all``), planned by the workflow at ``workflow`` (in a subprocess)."""
    env = dict(os.environ, PYTHONPATH=str(workflow / "src"))
    cmd = [sys.executable, __file__, "--plan-only", "--workflow", str(workflow), "--configfile", *configfiles]
    cmd += ["--targets", *targets] if targets else []
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"planning the jobs of {workflow} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def _plan_here(workflow: Path, configfiles: list[str], targets: list[str]) -> list[dict]:
    import contextlib
    import io

    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    files = [Path(f).resolve() for f in configfiles]
    with contextlib.redirect_stdout(io.StringIO()), SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        wf_api = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=files),
            snakefile=workflow / "Snakefile",
            workdir=workflow,
        )
        dag_api = wf_api.dag(dag_settings=DAGSettings(targets=set(targets), forceall=True))
        wf = dag_api.workflow_api._workflow
        wf._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
        wf._build_dag()
        jobs = []
        for job in wf.dag.jobs:
            if job.benchmark is None:  # target rules (all): not a job that runs
                continue
            jobs.append(
                {
                    "rule": job.rule.name,
                    "wildcards": {k: str(v) for k, v in job.wildcards_dict.items()},
                    "benchmark": str(job.benchmark),
                    "log": str(job.log[0]) if len(job.log) else "",
                    "inputs": sorted(map(str, job.input)),
                    "outputs": sorted(map(str, job.output)),
                }
            )
    return jobs


def job_graph(jobs: list[dict]) -> dict[str, list[str]]:
    """job (benchmark file) -> the jobs whose outputs it reads."""
    producer = {f: j["benchmark"] for j in jobs for f in j["outputs"]}
    return {j["benchmark"]: sorted({producer[f] for f in j["inputs"] if f in producer}) for j in jobs}


def job_times(jobs: list[dict], run: Path, *, allow_missing: bool = False) -> dict[str, dict[str, float]]:
    """Wall and CPU seconds of every job from the run's records (:mod:`dpgrid.core.costs`); with ``allow_missing``
    a job without a benchmark file (a run that has not finished) counts 0 s and is flagged ``missing``."""
    from dpgrid.core.costs import CostsError, read_benchmark, read_usage

    out = {}
    for j in jobs:
        path = run / j["benchmark"]
        if not path.exists():
            if allow_missing:
                out[j["benchmark"]] = {"wall": 0.0, "cpu": 0.0, "missing": True}
                continue
            raise CostsError(f"{path}: no benchmark file for job {j['rule']} {j['wildcards']}; did the run finish?")
        b = read_benchmark(path)
        usage = read_usage(run / f"{j['log']}.usage.json") if j["log"] else None
        cpu = max(b["cpu_time"], usage["cpu_s"]) if usage else b["cpu_time"]
        out[j["benchmark"]] = {"wall": b["s"], "cpu": cpu}
    return out


def _name(job: dict) -> str:
    wc = ", ".join(f"{k}={v}" for k, v in job["wildcards"].items())
    return f"{job['rule']}" + (f" ({wc})" if wc else "")


def chain_numbers(jobs: list[dict], times: dict) -> dict[str, float]:
    """Summed job CPU and wall, the critical path weighted by CPU and by wall time, and the longest job (wall)."""
    from dpgrid.core.costs import longest_chain

    graph = job_graph(jobs)
    return {
        "cpu": sum(v["cpu"] for v in times.values()),
        "wall": sum(v["wall"] for v in times.values()),
        "path_cpu": longest_chain({k: v["cpu"] for k, v in times.items()}, graph)[0],
        "path_wall": longest_chain({k: v["wall"] for k, v in times.items()}, graph)[0],
        "longest_wall": max(v["wall"] for v in times.values()),
    }


def report(jobs: list[dict], times: dict, weight: str, top: int, title: str) -> str:
    from dpgrid.core.costs import longest_chain

    by_id = {j["benchmark"]: j for j in jobs}
    total, chain = longest_chain({k: v[weight] for k, v in times.items()}, job_graph(jobs))
    wall = sum(v["wall"] for v in times.values())
    cpu = sum(v["cpu"] for v in times.values())
    longest = max(times, key=lambda k: times[k]["wall"])
    missing = sorted(k for k, v in times.items() if v.get("missing"))
    lines = [
        f"## {title}",
        "",
        *(
            [
                f"**Partial run: {len(missing)} of {len(jobs)} jobs have no record yet and count 0 s** "
                f"(rules: {', '.join(sorted({by_id[k]['rule'] for k in missing}))}).",
                "",
            ]
            if missing
            else []
        ),
        f"{len(jobs)} jobs; summed job time {wall:.0f} s, summed job CPU {cpu:.0f} s; "
        f"**critical path {total:.0f} s** ({weight} time, {len(chain)} jobs); "
        f"longest job {times[longest]['wall']:.1f} s ({_name(by_id[longest])}); "
        f"jobs over 45 s: {sum(v['wall'] > 45 for v in times.values())}.",
        "",
        "Critical path (first job first):",
        "",
        "| # | job | wall s | CPU s | cumulative s |",
        "|---:|---|---:|---:|---:|",
    ]
    acc = 0.0
    for i, k in enumerate(chain, 1):
        acc += times[k][weight]
        lines.append(f"| {i} | {_name(by_id[k])} | {times[k]['wall']:.1f} | {times[k]['cpu']:.1f} | {acc:.1f} |")
    lines += ["", f"Largest {top} jobs:", "", "| job | wall s | CPU s |", "|---|---:|---:|"]
    for k in sorted(times, key=lambda k: -times[k]["wall"])[:top]:
        lines.append(f"| {_name(by_id[k])} | {times[k]['wall']:.1f} | {times[k]['cpu']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", type=Path, help="directory of the finished run (its benchmarks/ and logs/)")
    ap.add_argument("--workflow", type=Path, default=ROOT, help="the checkout that made the run")
    ap.add_argument("--configfile", nargs="*", default=[], help="config files of the run besides config/config.yaml")
    ap.add_argument("--targets", nargs="*", default=[], help="targets of the run (default: all)")
    ap.add_argument("--weight", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--md", type=Path, help="write the report (Markdown) to this file")
    ap.add_argument("--title", default="Critical path")
    ap.add_argument("--plan-cache", type=Path, help="JSON file of the planned jobs: read if present, else written")
    ap.add_argument("--allow-missing", action="store_true", help="count jobs without a record as 0 s (partial run)")
    ap.add_argument("--plan-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    workflow = args.workflow.resolve()
    if args.plan_only:
        json.dump(_plan_here(workflow, args.configfile, args.targets), sys.stdout)
        return 0
    if args.run is None:
        ap.error("--run is required")
    if args.plan_cache and args.plan_cache.exists():
        jobs = json.loads(args.plan_cache.read_text())
    else:
        jobs = plan_jobs(workflow, args.configfile, args.targets)
        if args.plan_cache:
            args.plan_cache.write_text(json.dumps(jobs))
    times = job_times(jobs, args.run.resolve(), allow_missing=args.allow_missing)
    text = report(jobs, times, args.weight, args.top, args.title)
    print(text)
    if args.md:
        args.md.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
