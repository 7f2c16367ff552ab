"""What the rules files register while Snakemake parses the workflow: the papers' targets, claims tables and audit
tables, the meter data they read, and which jobs the cost tables measure.

One :class:`WorkflowRegistry` per parse (``REGISTRY`` in workflow/rules/common.smk); its ``register_*`` methods are
the rules files' ``register_*`` helpers (docs/DEVELOPING.md, "A rule"). It names no paper and no rule: the rules
files say what they contribute, and the Snakefile reads the collected lists (``all``, the report, the costs).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dpgrid.core.replicates import replicate_path


class RegistryError(ValueError):
    """A target registered twice, a config naming an unknown target, or a rule the cost tables cannot measure."""


#: the resources of a rule that the cost tables read (threads are Snakemake's ``_cores``)
_SPEC_RESOURCES = ("_cores", "mem_mb", "runtime")


@dataclass
class WorkflowRegistry:
    """The lists the rules files fill while the workflow is parsed.

    ``targets``: every figure/table target a paper offers, ``{paper: {name: [files]}}`` (the files of replicate
    (0, 0), the run itself); ``config[<paper>].targets`` chooses which ``all`` builds. ``claims``: every claims CSV
    the claims table collects. ``privacy_audits``: every paper's black-box audit table. ``data_used``: the ``data.experiments`` entries the papers read (their meter_data
    jobs are jobs of the pipeline). ``benchmarks``: the benchmark files of the jobs of rules with wildcards,
    ``{rule: [files]}``. ``on_demand_rules``: rules without wildcards whose job only some configurations need (a
    download), measured only when registered in ``benchmarks``. ``not_measured``: rules that are targets only (no
    job of their own). ``extra_targets``: files of opt-in parts that ``all`` builds when they are enabled.
    ``job_modules``: rules whose jobs load a module by name besides their script's imports, ``{rule:
    function(wildcards) -> [dotted module names]}`` (their code param is per job). ``spreads``: the result tables
    whose spread over the replicates the target ``over_seeds`` builds (:meth:`register_spread`), ``{"<paper>/<name>":
    {pattern, keys, values, title}}``. ``over_seeds_targets``: further files of ``over_seeds`` (the figures that draw
    those spreads).
    """

    targets: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    claims: list[str] = field(default_factory=list)
    privacy_audits: list[str] = field(default_factory=list)
    data_used: set[str] = field(default_factory=set)
    benchmarks: dict[str, list[str]] = field(default_factory=dict)
    on_demand_rules: set[str] = field(default_factory=set)
    not_measured: set[str] = field(default_factory=lambda: {"all", "pipeline_costs"})
    extra_targets: list[str] = field(default_factory=list)
    job_modules: dict[str, Callable] = field(default_factory=dict)
    spreads: dict[str, dict] = field(default_factory=dict)
    over_seeds_targets: list[str] = field(default_factory=list)

    def register_targets(self, paper: str, targets: Mapping[str, str | Iterable[str]]) -> None:
        """Add named targets of ``paper`` (several rules files may register targets of one paper)."""
        for name, files in targets.items():
            if name in self.targets.get(paper, {}):
                raise RegistryError(f"target {name!r} of {paper!r} registered twice")
            files = [files] if isinstance(files, str) else list(files)
            self.targets.setdefault(paper, {})[name] = [replicate_path(f) for f in files]

    def register_claims(self, path: str) -> None:
        """Add a claims CSV (written with dpgrid.core.claims.write_claims) to the claims table."""
        self.claims.append(path)

    def register_privacy_audit(self, path: str) -> None:
        """Add a paper's privacy-audit table (dpgrid.privacy.blackbox_audit.AUDIT_COLUMNS) to privacy_audits.csv: the
        audits run on replicate (0, 0) only."""
        self.privacy_audits.append(replicate_path(path))

    def register_spread(
        self, paper: str, name: str, pattern: str, keys: Iterable[str], values: Iterable[str], title: str
    ) -> str:
        """Add the spread over the replicates of the result table ``pattern`` (a path with the replicate wildcards):
        per row (``keys``) and column of ``values``, the median and range over the replicates (dpgrid.core.spread).
        Returns the name of its table, ``<paper>/<name>`` (files ``over_seeds/<paper>/<name>.csv`` and ``.md``)."""
        table = f"{paper}/{name}"
        if table in self.spreads:
            raise RegistryError(f"spread {table!r} registered twice")
        if not re.fullmatch(r"\w+", name):
            raise RegistryError(f"spread name {name!r} of {paper!r}: letters, digits and _ only")
        keys, values = list(keys), list(values)
        if not values or set(keys) & set(values):
            raise RegistryError(f"spread {table!r}: values {values} must be given and differ from the keys {keys}")
        self.spreads[table] = {"pattern": str(pattern), "keys": keys, "values": values, "title": str(title)}
        return table

    def register_over_seeds_targets(self, files: Iterable[str]) -> None:
        """Add files (figures drawn from the spreads) to the target ``over_seeds``."""
        self.over_seeds_targets.extend(files)

    def register_data_used(self, experiment: str) -> None:
        """Record that a paper reads the meter data of ``data.experiments.<experiment>``."""
        self.data_used.add(experiment)

    def register_benchmarks(self, proxy, *wildcards: Mapping[str, str]) -> None:
        """Add the benchmark files of a rule's jobs (``rules.<name>``): one per dict of wildcard values.

        A rule without wildcards has one job (no dicts needed); a rule with wildcards and no dicts has no job in
        this configuration (an empty sweep) and adds nothing. The jobs measured are those of replicate (0, 0): the
        replicate wildcards need no values."""
        rule = proxy.rule  # the Rule behind Snakemake's proxy
        pattern = _run_path(rule.benchmark)
        has_wildcards = bool(re.search(r"\{\w+\}", pattern))
        files = [pattern.format(**wc) for wc in wildcards] if wildcards or has_wildcards else [pattern]
        self.benchmarks.setdefault(rule.name, []).extend(files)

    def paper_targets(self, paper: str, chosen: Iterable[str]) -> list[str]:
        """The files of the targets ``chosen`` (``config[paper].targets``) of ``paper``."""
        known = self.targets.get(paper, {})
        chosen = list(chosen)
        unknown = [name for name in chosen if name not in known]
        if unknown:
            raise RegistryError(f"config: {paper}.targets names unknown target(s) {unknown}; known: {sorted(known)}")
        return [f for name in chosen for f in known[name]]

    def job_benchmarks(self, rules) -> list[str]:
        """Every job's benchmark file (the inputs of rule pipeline_costs), from the workflow's ``rules``."""
        files = []
        for r in rules:
            if r.name in self.not_measured:
                continue
            if r.benchmark is None:
                raise RegistryError(f"{r.name} ({r.snakefile}) has no benchmark directive")
            if r.name in self.benchmarks:
                files += self.benchmarks[r.name]
            elif r.name in self.on_demand_rules:
                continue
            else:
                pattern = _run_path(r.benchmark)
                if re.search(r"\{\w+\}", pattern):
                    raise RegistryError(f"{r.name} has wildcards, so register its jobs with register_benchmarks")
                files.append(pattern)
        return sorted(set(files))

    def rule_specs(self, rules) -> list[dict]:
        """What every measured rule declares (threads, mem_mb, runtime) and its experiment (rules file).

        A resource given as a function of the job's input (meter_data: it scales with the input file) is
        recorded at its value for no input files (the synthetic sources)."""
        specs = []
        for r in rules:
            if r.name in self.not_measured:
                continue
            res = {k: _declared(v) for k, v in r.resources.items() if k in _SPEC_RESOURCES}
            specs.append(
                {
                    "name": r.name,
                    "experiment": Path(r.snakefile).stem,
                    "benchmark": _run_path(r.benchmark),
                    "threads": int(res["_cores"]),
                    "mem_mb": int(res["mem_mb"]),
                    "runtime": int(res["runtime"]),
                    "log": _run_path(r.log[0]) if len(r.log) else "",
                }
            )
        return specs


def _run_path(path) -> str:
    """A rule's benchmark or log path with the replicate wildcards of replicate (0, 0) filled in (and no
    constraints)."""
    pattern = re.sub(r"\{(\w+),[^{}]*\}", r"{\1}", str(path))  # drop {name,constraint}
    return replicate_path(pattern)


def _declared(value):
    """A rule's resource value as declared: a callable resource evaluated for no input files."""
    if hasattr(value, "is_evaluable"):
        return value._evaluator(None, []) if value.is_evaluable() else value.value
    return value
