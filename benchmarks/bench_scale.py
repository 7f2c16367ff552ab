"""Cost of the classdp and dpkmeans experiments at the paper's household counts (1x), 10x and 100x.

Runs the classdp and dpkmeans targets (config[paper]["targets"] without the AC-OPF targets of
dpkmeans, whose cost does not depend on the number of households) plus their claims, once with
config/config.yaml and once with config/scale10x.yaml layered over it, each in a fresh copy of the
workflow (like tests/workflow/test_end_to_end_determinism.py), and prints per rule: jobs, wall time, CPU time and peak
memory (from the Snakemake benchmark files), plus the whole run's wall time, its peak memory
(psutil: summed RSS of the snakemake process tree, polled every second; /usr/bin/time -v's
maximum RSS of a single process when available), the load average during the run (the machine
is shared: timings are under that contention) and the disk taken by results/ and resources/.

    python benchmarks/bench_scale.py                      # 1x and 10x, --cores 1, temp dir
    python benchmarks/bench_scale.py --scales 1x --cores 2 --keep /tmp/somewhere
    python benchmarks/bench_scale.py --report DIR_1x DIR_10x   # only the tables of finished runs
    python benchmarks/bench_scale.py --scales 1x,10x,100x --path dpkmeans_clustering --keep DIR

``--path dpkmeans_clustering`` measures only the dpkmeans data -> profiles -> clustering / leave-one-out
sensitivity path (results/dpkmeans/sensitivity.csv), the part whose cost grew quadratically (issue 20).
Every run writes the tables to benchmarks/scale.md and a log-log figure (CPU time and peak memory
against the number of dpkmeans meters) to benchmarks/scale.png (``--out``).
The full 10x run takes about an hour on one core (workflow/papers/classdp/classdp.md,
workflow/papers/dpkmeans/dpkmeans.md: "Scaling"). Needs DPGRID_MIRROR only for real-data configs (the default data are
synthetic).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "src"))
from tests.helpers.repo import copy_workflow  # noqa: E402  (the end-to-end tests' copy of the workflow)

SCALES = {"1x": None, "10x": "config/scale10x.yaml", "100x": "config/scale100x.yaml"}
#: measured target sets: the classdp + dpkmeans targets and claims, or the dpkmeans clustering path only
PATHS = ("all", "dpkmeans_clustering")
PAPERS = ("classdp", "dpkmeans")
#: targets that do not scale with the household count (AC OPF on fixed feeders, grid.smk)
EXCLUDED = {"dpkmeans": ("fig12", "fig13", "table_voltage_distances", "table_voltage_band")}
#: Snakefile of the measurement: the workflow plus one rule collecting the measured targets
BENCH_SNAKEFILE = f"""include: "Snakefile"


rule bench_scale_targets:
    input:
        [f for paper in {PAPERS!r} for name in config[paper]["targets"] if name not in {EXCLUDED!r}.get(paper, ())
         for f in REGISTRY.targets[paper][name]] + [f"results/{{paper}}/claims.csv" for paper in {PAPERS!r}],


rule bench_scale_dpkmeans_clustering:
    input:
        "results/dpkmeans/sensitivity.csv",
"""


def _tree_rss(proc) -> int:
    import psutil

    total = 0
    try:
        procs = [proc] + proc.children(recursive=True)
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run_scale(workdir: Path, configfile: str | None, cores: int, path: str = "all") -> dict:
    """Run the measured targets in ``workdir``; write and return bench_run.json."""
    import psutil

    target = "bench_scale_targets" if path == "all" else f"bench_scale_{path}"
    cmd = [sys.executable, "-m", "snakemake", "-s", "bench_scale.smk", target, "--cores", str(cores)]
    if configfile:
        cmd += ["--configfile", configfile]
    timev = Path("/usr/bin/time").is_file()
    if timev:
        cmd = ["/usr/bin/time", "-v", "-o", "time_v.txt"] + cmd
    env = dict(os.environ, PYTHONPATH=str(workdir / "src"))
    samples = {"rss": 0, "load": []}
    t0 = time.perf_counter()
    with open(workdir / "snakemake.err", "w") as err, open(workdir / "snakemake.out", "w") as out:
        proc = subprocess.Popen(cmd, cwd=workdir, stdout=out, stderr=err, env=env)
        root = psutil.Process(proc.pid)
        done = threading.Event()

        def poll():
            while not done.wait(1.0):
                samples["rss"] = max(samples["rss"], _tree_rss(root))
                samples["load"].append(os.getloadavg()[0])

        th = threading.Thread(target=poll, daemon=True)
        th.start()
        rc = proc.wait()
        done.set()
        th.join()
    wall = time.perf_counter() - t0
    if rc != 0:
        tail = (workdir / "snakemake.err").read_text()[-4000:]
        raise RuntimeError(f"snakemake failed in {workdir} (exit {rc}):\n{tail}")
    info = {
        "wall_s": wall,
        "peak_tree_rss_mb": samples["rss"] / 2**20,
        "load_mean": sum(samples["load"]) / max(len(samples["load"]), 1),
        "load_max": max(samples["load"], default=float("nan")),
        "cores": cores,
        "configfile": configfile,
        "path": path,
        "n_meters": _n_meters(workdir),
        "max_rss_single_process_mb": _time_v(workdir / "time_v.txt", "max_rss"),
        "cpu_total_s_time_v": _time_v(workdir / "time_v.txt", "cpu"),
    }
    (workdir / "bench_run.json").write_text(json.dumps(info, indent=1))
    return info


def _n_meters(workdir: Path) -> int | None:
    """Number of dpkmeans meter profiles of the run (the x axis of the figure)."""
    f = workdir / "results" / "dpkmeans" / "profiles_all.csv"
    if not f.is_file():
        return None
    with open(f) as fh:
        return sum(1 for _ in fh) - 1


def _time_v(path: Path, what: str) -> float | None:
    """From /usr/bin/time -v: the largest single process's RSS (MB) or user + system CPU (s) of the run."""
    if not path.is_file():
        return None
    text = path.read_text()
    if what == "max_rss":
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        return int(m.group(1)) / 1024 if m else None
    parts = [re.search(rf"{k} time \(seconds\): ([\d.]+)", text) for k in ("User", "System")]
    return sum(float(m.group(1)) for m in parts) if all(parts) else None


def _du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20 if path.is_dir() else 0.0


def rule_of_benchmark(log_text: str) -> dict[str, tuple[str, str | None]]:
    """benchmark file -> (rule name, the job's log file), from Snakemake's job listing (``rule X:`` ... ``log: path``
    ... ``benchmark: path``)."""
    out, rule, log = {}, None, None
    for line in log_text.splitlines():
        m = re.match(r"^(?:local)?(?:rule|checkpoint) (\w+):", line.strip())
        if m:
            rule, log = m.group(1), None
            continue
        m = re.match(r"^log: (\S+)", line.strip())
        if m:
            log = m.group(1)
            continue
        m = re.match(r"^benchmark: (\S+)", line.strip())
        if m and rule:
            out[m.group(1)] = (rule, log)
    return out


def per_rule(workdir: Path) -> dict[str, dict]:
    """Per rule: jobs, summed wall s and CPU s, max of max_rss (MB). CPU and memory are the larger of the Snakemake
    benchmark file's and the job's own getrusage record (``<log>.usage.json``, dpgrid.core.pipeline): Snakemake
    samples a job only every 30 s after its first 15 s, so its figures can miss CPU time and a memory peak."""
    from dpgrid.core.costs import read_usage

    log = "".join(p.read_text() for p in (workdir / "snakemake.err", workdir / "run.err") if p.is_file())
    rules = rule_of_benchmark(log)
    stats: dict[str, dict] = {}
    for path, (rule, job_log) in rules.items():
        f = workdir / path
        if not f.is_file():
            continue
        with open(f) as fh:
            row = list(csv.DictReader(fh, delimiter="\t"))[-1]
        usage = read_usage(workdir / f"{job_log}.usage.json") if job_log else None
        cpu = float(row["cpu_time"]) if row["cpu_time"] not in ("", "NA", "-") else 0.0
        rss = float(row["max_rss"]) if row["max_rss"] not in ("", "NA", "-") else 0.0
        if usage:
            cpu, rss = max(cpu, usage["cpu_s"]), max(rss, usage["max_rss_mb"])
        st = stats.setdefault(rule, {"jobs": 0, "s": 0.0, "cpu_s": 0.0, "max_rss_mb": 0.0})
        st["jobs"] += 1
        st["s"] += float(row["s"])
        st["cpu_s"] += cpu
        st["max_rss_mb"] = max(st["max_rss_mb"], rss)
    return stats


def summary(workdir: Path) -> dict:
    info = json.loads((workdir / "bench_run.json").read_text())
    info["results_mb"] = _du_mb(workdir / "results")
    info["resources_mb"] = _du_mb(workdir / "resources")
    info["rules"] = per_rule(workdir)
    return info


def _fmt(x, spec):
    return "-" if x is None else format(x, spec)


def print_tables(runs: dict[str, dict]) -> str:
    """Print the markdown tables of ``runs`` and return them."""
    lines: list[str] = []

    def print(text=""):  # collects the tables as well as printing them
        lines.append(text)
        sys.stdout.write(text + "\n")

    names = list(runs)
    print("\n## Whole run\n")
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, key, spec in (
        ("dpkmeans meters", "n_meters", "d"),
        ("wall (s)", "wall_s", ".0f"),
        ("peak RSS, process tree (MB)", "peak_tree_rss_mb", ".0f"),
        ("max RSS of one process (MB, time -v)", "max_rss_single_process_mb", ".0f"),
        ("CPU time of the run (s, time -v)", "cpu_total_s_time_v", ".0f"),
        ("sum of rule CPU time (s)", None, ".0f"),
        ("results/ (MB)", "results_mb", ".1f"),
        ("resources/ (MB)", "resources_mb", ".1f"),
        ("load average, mean / max", None, ""),
    ):
        if key is None and label.startswith("sum"):
            vals = [_fmt(sum(r["cpu_s"] for r in runs[n]["rules"].values()), spec) for n in names]
        elif key is None:
            vals = [f"{runs[n]['load_mean']:.1f} / {runs[n]['load_max']:.1f}" for n in names]
        else:
            vals = [_fmt(runs[n].get(key), spec) for n in names]
        print(f"| {label} | " + " | ".join(vals) + " |")
    rules = sorted(
        {r for n in names for r in runs[n]["rules"]},
        key=lambda r: -max(runs[n]["rules"].get(r, {}).get("s", 0) for n in names),
    )
    print(
        "\n## Per rule (wall s from the Snakemake benchmark files; CPU s and RSS the larger of those and the jobs' "
        "getrusage records; summed over the rule's jobs, RSS = max)\n"
    )
    head = "| rule | " + " | ".join(f"jobs {n} | wall s {n} | CPU s {n} | max RSS MB {n}" for n in names) + " |"
    print(head)
    print("|---|" + "---:|" * (4 * len(names)))
    for r in rules:
        cells = []
        for n in names:
            st = runs[n]["rules"].get(r)
            cells += (
                ["-"] * 4
                if st is None
                else [str(st["jobs"]), f"{st['s']:.1f}", f"{st['cpu_s']:.1f}", f"{st['max_rss_mb']:.0f}"]
            )
        print(f"| {r} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_outputs(runs: dict[str, dict], tables: str, out: Path) -> None:
    """benchmarks/scale.md (the tables, with the run settings) and scale.png (log-log CPU time and peak
    memory against the number of dpkmeans meters, with a slope-1 guide through the first point)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    names = [n for n in runs if runs[n].get("n_meters")]
    paths = sorted({runs[n].get("path", "all") for n in runs})
    head = (
        f"# Scaling of the classdp / dpkmeans cost with the number of households\n\n"
        f"benchmarks/bench_scale.py, measured path(s): {', '.join(paths)}; scales {', '.join(runs)}; "
        f"--cores {runs[next(iter(runs))]['cores']}; shared 2-core machine (see the load averages).\n"
        f"CPU time: user + system of the whole run (/usr/bin/time -v); "
        f"peak memory: largest single process RSS.\n"
    )
    out.with_suffix(".md").write_text(head + tables)
    if len(names) < 2:
        return
    x = [runs[n]["n_meters"] for n in names]
    cpu = [runs[n].get("cpu_total_s_time_v") or sum(r["cpu_s"] for r in runs[n]["rules"].values()) for n in names]
    mem = [runs[n].get("max_rss_single_process_mb") or runs[n]["peak_tree_rss_mb"] for n in names]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, y, label in ((axes[0], cpu, "CPU time (s)"), (axes[1], mem, "peak memory (MB)")):
        ax.loglog(x, y, "o-", label="measured")
        ax.loglog(x, [y[0] * xi / x[0] for xi in x], "k--", lw=0.8, label="linear (slope 1)")
        for xi, yi, n in zip(x, y, names):
            ax.annotate(n, (xi, yi), textcoords="offset points", xytext=(4, -10), fontsize=8)
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("dpkmeans meters (households)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"bench_scale.py, path: {', '.join(paths)}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out.with_suffix(".png"), dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", default="1x,10x", help=f"comma-separated, from {sorted(SCALES)}")
    ap.add_argument("--cores", type=int, default=1)
    ap.add_argument("--path", default="all", choices=PATHS, help="what to measure (default: all targets)")
    ap.add_argument(
        "--out",
        type=Path,
        default=REPO / "benchmarks" / "scale",
        help="write OUT.md (tables) and OUT.png (log-log figure)",
    )
    ap.add_argument(
        "--keep", type=Path, default=None, help="run in this directory and keep it (default: temp, deleted)"
    )
    ap.add_argument(
        "--report",
        type=Path,
        nargs="+",
        default=None,
        help="only print the tables of finished run directories (each with bench_run.json)",
    )
    args = ap.parse_args(argv)
    if args.report:
        runs = {d.name: summary(d) for d in args.report}
        write_outputs(runs, print_tables(runs), args.out)
        return 0
    scales = [s.strip() for s in args.scales.split(",") if s.strip()]
    bad = [s for s in scales if s not in SCALES]
    if bad:
        ap.error(f"unknown scale(s) {bad}; choose from {sorted(SCALES)}")
    base = args.keep if args.keep else Path(tempfile.mkdtemp(prefix="dpgrid_bench_scale_"))
    runs = {}
    try:
        for s in scales:
            wd = copy_workflow(base / s)
            (wd / "bench_scale.smk").write_text(BENCH_SNAKEFILE)
            print(f"{s}: running in {wd} ...", flush=True)
            info = run_scale(wd, SCALES[s], args.cores, args.path)
            print(f"{s}: {info['wall_s']:.0f} s wall, peak {info['peak_tree_rss_mb']:.0f} MB", flush=True)
            runs[s] = summary(wd)
        write_outputs(runs, print_tables(runs), args.out)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
