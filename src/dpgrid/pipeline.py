"""Glue for Snakemake scripts: logging to the rule's log file, progress messages.

Scripts under ``workflow/scripts`` stay thin::

    from dpgrid.pipeline import run_script
    from dpgrid.experiments import classdp

    run_script(snakemake, classdp.make_fig1)   # the function takes the snakemake object

:func:`run_script` sends ``logging`` output, warnings and stderr to ``snakemake.log[0]`` and
records the traceback there when the job fails.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
import sys
import time
import traceback
import warnings
from typing import Any, Callable

LOG = logging.getLogger("dpgrid")


def setup_logging(log_path: str | None) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s",
                        handlers=handlers, force=True)
    logging.captureWarnings(True)
    warnings.simplefilter("default")


class StalePackageError(RuntimeError):
    """The script imported a dpgrid other than the workflow checkout's ``src/dpgrid``."""


def check_package_location(scriptdir: str | os.PathLike) -> None:
    """Refuse to run scripts with a dpgrid copy other than the checkout's ``src/dpgrid``.

    Snakemake's source hashes (:mod:`dpgrid.provenance`) are computed from the checkout, so a
    stale installed copy would make results disagree with their provenance.
    """
    import dpgrid

    here = Path(dpgrid.__file__).resolve().parent
    for parent in Path(scriptdir).resolve().parents:
        if (parent / "Snakefile").is_file():
            expected = (parent / "src" / "dpgrid").resolve()
            if here != expected:
                raise StalePackageError(
                    f"dpgrid is imported from {here}, not from this workflow's {expected}; "
                    f"install the checkout with `pip install -e .`")
            return


def run_script(smk: Any, func: Callable[[Any], Any]) -> Any:
    """Run ``func(smk)`` with logging to the rule's log; re-raise failures after logging them."""
    log_path = smk.log[0] if len(smk.log) else None
    setup_logging(log_path)
    check_package_location(smk.scriptdir)
    LOG.info("rule %s: start (outputs: %s)", smk.rule, ", ".join(map(str, smk.output)))
    t0 = time.perf_counter()
    try:
        result = func(smk)
    except Exception:
        LOG.error("rule %s failed:\n%s", smk.rule, traceback.format_exc())
        raise
    LOG.info("rule %s: done in %.2f s", smk.rule, time.perf_counter() - t0)
    return result


class Progress:
    """Coarse progress messages for long loops (every ``every`` seconds at most)."""

    def __init__(self, total: int, label: str, every: float = 5.0) -> None:
        self.total, self.label, self.every = total, label, every
        self.t0 = self.last = time.perf_counter()
        self.n = 0

    def step(self, n: int = 1) -> None:
        self.n += n
        now = time.perf_counter()
        if now - self.last >= self.every or self.n == self.total:
            self.last = now
            LOG.info("%s: %d/%d (%.0f s)", self.label, self.n, self.total, now - self.t0)


@contextlib.contextmanager
def timed(label: str):
    t0 = time.perf_counter()
    yield
    LOG.info("%s took %.2f s", label, time.perf_counter() - t0)
