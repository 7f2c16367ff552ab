"""dpgrid side by side with what a user would otherwise call: one script, one run, one table (benchmarks/peers.md).

Imports every ``benchmarks/peers_*.py`` module; each exposes ``measure() -> list[dict]`` with the keys
``comparison``, ``dpgrid``, ``library``, ``dpgrid_s``, ``library_s``, ``ratio`` (dpgrid_s / library_s:
> 1 means dpgrid is slower), ``agreement`` (how the two results compare) and ``note`` (why dpgrid is slower
where it is, or what the times include). A module that fails is reported in the table with its error; the
others still run.

    python benchmarks/bench_peers.py [--only kmeans opf ...] [--out benchmarks/peers.md]
"""

from __future__ import annotations

import os

# one BLAS thread, as every pipeline job runs (threads: 1): idle OpenBLAS threads spin and count as CPU on a
# loaded machine, and the peers run single-threaded too
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
KEYS = ("comparison", "dpgrid", "library", "dpgrid_s", "library_s", "ratio", "agreement", "note")


def peer_modules(only=None) -> list[Path]:
    files = sorted(HERE.glob("peers_*.py"))
    if only:
        files = [f for f in files if f.stem.removeprefix("peers_") in only]
    return files


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def check_row(row: dict, source: str) -> dict:
    missing = [k for k in KEYS if k not in row]
    if missing:
        raise ValueError(f"{source}: row {row.get('comparison', row)!r} lacks key(s) {missing}")
    return row


def _fmt(v) -> str:
    if isinstance(v, float):
        return "-" if v != v else (f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}")
    return str(v).replace("|", "\\|").replace("\n", " ")


def markdown(rows: list[dict], header: str) -> str:
    lines = [
        "# dpgrid side by side with the libraries",
        "",
        header,
        "",
        "| comparison | dpgrid | library | dpgrid s | library s | ratio | agreement | note |",
        "|---|---|---|---:|---:|---:|---|---|",
    ]
    lines += ["| " + " | ".join(_fmt(r[k]) for k in KEYS) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="module names without peers_ (default: all)")
    ap.add_argument("--out", type=Path, default=HERE / "peers.md")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    t0 = time.perf_counter()
    for path in peer_modules(args.only):
        print(f"{path.name} ...", flush=True)
        try:
            for row in load(path).measure():
                rows.append(check_row(row, path.name))
                print("  " + ", ".join(f"{k}={_fmt(row[k])}" for k in KEYS[:6]), flush=True)
        except Exception as exc:  # one failing comparison must not hide the others
            traceback.print_exc()
            rows.append(dict.fromkeys(KEYS, "-") | {"comparison": path.stem, "note": f"failed: {exc}"})
    load_avg = os.getloadavg()
    header = (
        f"Measured by `python benchmarks/bench_peers.py` ({time.perf_counter() - t0:.0f} s) on {platform.node()} "
        f"({os.cpu_count()} cores, load average {load_avg[0]:.1f} at the end: times on a loaded machine vary; the "
        "ratios compare runs made back to back in the same process or machine state). ratio = dpgrid s / library s."
    )
    args.out.write_text(markdown(rows, header))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
