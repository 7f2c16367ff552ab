"""The paper packages, discovered: what the framework knows of a paper comes from its descriptor.

Each package ``dpgrid.papers.<name>`` describes itself with a :class:`PaperDescriptor` named ``DESCRIPTOR`` in its
module ``descriptor``. The framework (this package, the data layer's source registry, the config validation,
the workflow's common rules) reads the descriptors and names no paper: adding a paper is its own package, its
own ``workflow/papers/<name>/`` folder (rules files, their config sections' schemas) and its config sections.

The ``descriptor`` modules are imported by name (:func:`importlib.import_module`), not by an ``import``
statement, and no job imports them: no module of the library has a paper in its code hash
(:mod:`dpgrid.core.provenance`), and what a job runs of a paper is in its own script's imports.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: The package that holds one subpackage per paper.
PAPERS_PACKAGE = "dpgrid.papers"
#: The modules every paper (or sub-experiment package) has for the same role: its claims table, its figures and its
#: black-box privacy audit (docs/DEVELOPING.md, "How to add a paper").
ROLE_MODULES = ("claims", "figures", "privacy_audit")


class PaperRegistryError(RuntimeError):
    """Two papers that declare the same name, order, rules file or data source, or a malformed descriptor."""


@dataclass(frozen=True)
class PaperDescriptor:
    """What the framework needs to know of a paper.

    ``name``: the paper's config section, its package ``dpgrid.papers.<name>`` and its workflow folder
    ``workflow/papers/<name>/``. ``order``: its place in ``all``, the report and the cost tables.
    ``title``: the report category. ``rules_files``: ``{stem: cost-table title}``, one per rules file of the paper
    (``workflow/papers/<name>/<stem>.smk``, whose config section is ``<stem>``; the stem ``<name>`` is the paper's main
    rules file; the cost tables call each rules file an experiment).
    ``data_sources``: stand-in meter-data sources the paper contributes, ``{source name: module}``; the
    module has ``load_source(spec, rng, name) -> MeterData`` (:mod:`dpgrid.data.sources`).
    ``check_config``: cross-field checks of the paper's config section that the schema cannot express;
    returns the problems found (empty list: none).
    ``stages``: the paper's stage modules (dotted, relative to its package): every module whose ``<what>_job(job)``
    functions its rules' scripts run, besides the skeleton's :data:`ROLE_MODULES`. They live in the package
    ``stages`` (``stages.<stage>``), or are the module ``stages`` of a sub-experiment package (a subpackage with role
    modules of its own, e.g. an opt-in study); ``tests/papers/test_paper_skeleton.py`` checks that the
    scripts run exactly these and the role modules.
    ``reference``: the paper's bibliographic record (``title``, ``authors`` as ``(family, given)`` pairs, and
    optionally ``journal``, ``volume``, ``issue``, ``year``, ``doi``); ``reproduces``: what dpgrid reproduces of it,
    one line. CITATION.cff's references and README.md's table of papers are generated from them
    (:mod:`dpgrid.core.citation`).
    """

    name: str
    order: int
    title: str
    rules_files: Mapping[str, str]
    data_sources: Mapping[str, str] = field(default_factory=dict)
    check_config: Callable[[Mapping], list[str]] | None = None
    stages: tuple[str, ...] = ()
    reference: Mapping[str, Any] = field(default_factory=dict)
    reproduces: str = ""


@functools.cache
def paper_descriptors(package: str = PAPERS_PACKAGE) -> tuple[PaperDescriptor, ...]:
    """The descriptor of every paper package under ``package``, in their declared order."""
    pkg = importlib.import_module(package)
    found = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{package}.{info.name}.descriptor")
        desc = getattr(module, "DESCRIPTOR", None)
        if not isinstance(desc, PaperDescriptor):
            raise PaperRegistryError(f"{package}.{info.name}.descriptor has no DESCRIPTOR (a PaperDescriptor)")
        if desc.name != info.name:
            raise PaperRegistryError(
                f"{package}.{info.name}.descriptor: DESCRIPTOR.name is {desc.name!r}, not {info.name!r}"
            )
        found.append(desc)
    found.sort(key=lambda d: d.order)
    orders = [d.order for d in found]
    if len(set(orders)) != len(orders):
        raise PaperRegistryError(f"two papers declare the same order: {orders}")
    for what in ("rules_files", "data_sources"):
        seen: dict[str, str] = {}
        for d in found:
            for k in getattr(d, what):
                if k in seen:
                    raise PaperRegistryError(f"{what} {k!r} declared by both {seen[k]} and {d.name}")
                seen[k] = d.name
    return tuple(found)


def paper_names(package: str = PAPERS_PACKAGE) -> list[str]:
    """The papers' names in their declared order."""
    return [d.name for d in paper_descriptors(package)]


def data_source_modules(package: str = PAPERS_PACKAGE) -> dict[str, str]:
    """``{source name: module}`` of every stand-in source a paper declares."""
    return {k: v for d in paper_descriptors(package) for k, v in d.data_sources.items()}


def experiment_titles(package: str = PAPERS_PACKAGE) -> dict[str, str]:
    """``{rules file stem: cost-table title}`` of every paper, in the papers' order."""
    return {k: v for d in paper_descriptors(package) for k, v in d.rules_files.items()}


def cross_field_problems(config: Mapping, package: str = PAPERS_PACKAGE) -> list[str]:
    """The problems every paper's ``check_config`` finds in ``config`` (papers in their order)."""
    return [p for d in paper_descriptors(package) if d.check_config is not None for p in d.check_config(config)]
