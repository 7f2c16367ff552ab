#!/bin/bash
# The CPU of the ARMA rules (classdp_forecast_arma, classdp_similarity_sweep_arma) of the full configuration at a
# git revision, on this machine: the revision's workflow, config and src in WORKDIR/REV, its meter data built first
# (not timed), the compiled kernel loaded once, then the 32 ARMA jobs with --cores 2; the job CPU is summed from
# their benchmark files. Run two revisions back to back on an idle machine to compare them.
#
#     benchmarks/arma_rules_cpu.sh REV WORKDIR      (python: the one on PATH; DPGRID_MIRROR as for the pipeline)
set -euo pipefail
rev=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$2/$rev
rm -rf "$dir" && mkdir -p "$dir"
git -C "$repo" archive "$rev" Snakefile workflow config src environment.yml | tar -x -C "$dir"
cd "$dir"
export PYTHONPATH=$PWD/src MPLBACKEND=Agg
python -m snakemake --cores 2 --quiet all --until classdp_similarity_sweep_data meter_data > data.log 2>&1
python -c "
import numpy as np
try:
    from dpgrid.models.arma_fit import fit_arma
except ImportError:  # revisions before the estimator had its own module
    from dpgrid.models.arma import fit_arma
fit_arma(np.random.default_rng(0).standard_normal(400), (2, 1))"
t0=$(date +%s.%N)
python -m snakemake --cores 2 --quiet all --until classdp_forecast_arma classdp_similarity_sweep_arma > arma.log 2>&1
t1=$(date +%s.%N)
python - "$rev" "$t0" "$t1" <<'PY'
import csv
import glob
import sys

rows = []
for rule in ("classdp_forecast_arma", "classdp_similarity_sweep_arma"):
    for f in glob.glob(f"benchmarks/{rule}/*.tsv"):
        r = next(csv.DictReader(open(f), delimiter="\t"))
        rows.append((rule, float(r["s"]), float(r["cpu_time"])))
cpu = {rule: sum(c for r, _, c in rows if r == rule) for rule in ("classdp_forecast_arma", "classdp_similarity_sweep_arma")}
print(
    f"{sys.argv[1]}: {len(rows)} jobs, wall {float(sys.argv[3]) - float(sys.argv[2]):.0f} s, job CPU "
    f"{sum(cpu.values()):.1f} s (forecast {cpu['classdp_forecast_arma']:.1f} s, sweep "
    f"{cpu['classdp_similarity_sweep_arma']:.1f} s), largest job {max(s for _, s, _ in rows):.1f} s wall / "
    f"{max(c for *_, c in rows):.1f} s CPU"
)
PY
