"""The command that rebuilds a result file with the configuration of the run that made it.

A rebuild command shown to a reader (the report's captions, ``results/claims_index.md`` and ARTIFACT.md's index)
must rebuild the same file: with the run's config files (``--configfile``: the files merged over
``config/config.yaml``, in their order), its ``--config`` overrides, and, when the file depends on a download, the
offline mirror the run read (``DPGRID_MIRROR``). Targets go before ``--configfile``, which takes every following
argument as a config file.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the config file the workflow always reads (``configfile:`` of workflow/Snakefile); never repeated
DEFAULT_CONFIGFILE = "config/config.yaml"


@dataclass(frozen=True)
class RunOptions:
    """What of a run's command line a rebuild needs: its config files besides the default one (in order), its
    ``--config`` overrides and the mirror folder of its downloads (None: downloaded from the pinned URLs)."""

    configfiles: tuple[str, ...] = ()
    overrides: Mapping[str, Any] = field(default_factory=dict)
    mirror: str | None = None

    def as_params(self) -> dict[str, Any]:
        """Plain values for a rule's params (so a change of them reruns the jobs that show commands)."""
        return {"configfiles": list(self.configfiles), "overrides": dict(self.overrides), "mirror": self.mirror}

    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None) -> RunOptions:
        if not params:
            return cls()
        return cls(tuple(params.get("configfiles", ())), dict(params.get("overrides", {})), params.get("mirror"))


#: a run with the default config file only, no overrides, no mirror
NO_OPTIONS = RunOptions()


def results_folder(claims_csv: str | os.PathLike) -> str:
    """The run's results folder (``results/`` or ``results/<run name>/``, with the trailing ``/`` of a rule path's
    prefix): the folder of its claims table, which every run writes at the top of its results."""
    return f"{Path(claims_csv).parent.as_posix()}/"


def run_options(
    configfiles: Sequence[str | os.PathLike],
    overrides: Mapping[str, Any] | None = None,
    mirror: str | os.PathLike | None = None,
    cwd: str | os.PathLike | None = None,
) -> RunOptions:
    """The run's options from Snakemake's view of them: ``configfiles`` as merged (lowest priority first, the default
    one included), paths inside ``cwd`` written relative to it."""
    here = os.path.realpath(cwd or os.getcwd())

    def shown(path: str | os.PathLike) -> str:
        full = os.path.realpath(os.path.join(here, os.fspath(path)))
        rel = os.path.relpath(full, here)
        return rel if not rel.startswith("..") else full

    files = [shown(f) for f in configfiles]
    extra = tuple(f for f in files if f != DEFAULT_CONFIGFILE)
    return RunOptions(extra, dict(overrides or {}), None if mirror in (None, "") else os.fspath(mirror))


def rebuild_command(
    files: Sequence[str], options: RunOptions = NO_OPTIONS, needs_download: bool = False, cores: int = 2
) -> str:
    """``snakemake --cores N <files>`` with the run's ``--configfile`` and ``--config``, prefixed with
    ``DPGRID_MIRROR=<mirror>`` when ``needs_download`` and the run read a mirror."""
    words = ["snakemake", "--cores", str(cores), *files]
    if options.configfiles:
        words += ["--configfile", *options.configfiles]
    if options.overrides:
        words += ["--config", *(f"{k}={json.dumps(v)}" for k, v in options.overrides.items())]
    command = shlex.join(words)
    if needs_download and options.mirror:
        command = f"DPGRID_MIRROR={shlex.quote(options.mirror)} {command}"
    return command
