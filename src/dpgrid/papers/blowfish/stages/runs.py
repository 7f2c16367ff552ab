"""blowfish's seeded runs of the default setting (Sec. IV, Fig. 2): one job per seed index (``run_seed_job``),
merged in seed order by ``runs_job`` into the tables the later rules read."""

from __future__ import annotations

import logging

import pandas as pd

from dpgrid.core.io import write_table
from dpgrid.core.sweeps import concat_sweep_points
from dpgrid.papers.blowfish.day import adversary_rows, day_profile, day_summary, seeded_day, settings_from_config
from dpgrid.papers.blowfish.paper import PAPER

LOG = logging.getLogger(__name__)


def run_seed_job(job) -> None:
    """One seed index (wildcard ``seed``) of the default setting: utility summary, per-step profile, adversary rows.

    Streams ``job_rng(seed, "blowfish", "run", k)`` and ``("adversary_small", k)`` (the data from the data seed,
    the noise from the noise seed: :func:`~dpgrid.papers.blowfish.day.seeded_day`): the seed index alone decides
    the draws, so the merged tables do not depend on which job runs first.
    """
    c = job.params.cfg
    s = settings_from_config(c)
    k = int(job.wildcards.seed)
    roots = job.params.data_seed, job.params.seed
    day = seeded_day(s, *roots, (PAPER, "run", k))
    run = {"seed": k, **day_summary(day, s)}
    adversary = adversary_rows(day, s, k, "main")
    small = seeded_day(s, *roots, (PAPER, "adversary_small", k), int(c["adversary"]["small_households"]))
    adversary += adversary_rows(small, s, k, "small")
    LOG.info("seed %d: RMSRE blowfish %.4g naive %.4g", k, run["rmsre_printed_blowfish"], run["rmsre_printed_naive"])
    write_table(pd.DataFrame([run]), job.output.runs)
    write_table(day_profile(day, s, k), job.output.profiles)
    write_table(pd.DataFrame(adversary), job.output.adversary)


def runs_job(job) -> None:
    """Merge the per-seed tables of rule blowfish_run_seed, in seed order: runs, profiles, adversary rows."""
    seeds = list(range(int(job.params.cfg["seeds"])))
    for key in ("runs", "profiles", "adversary"):
        table = concat_sweep_points(list(getattr(job.input, key)), "seed", seeds, "blowfish.seeds")
        write_table(table, getattr(job.output, key))
