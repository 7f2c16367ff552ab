"""Config validation against ``workflow/schemas/*.schema.yaml`` with messages a user can act on.

The Snakefile calls :func:`validate_config` before any rule is defined, so a bad value stops the
run before any job. Messages name the key (dotted path), the value, what was expected and the
config file that set it, without dumping the schema. The schema files are read once per process
and resolved through one :mod:`referencing` registry (Snakemake's own ``validate`` re-reads a
referenced schema file for every ``$ref`` it meets, about 0.3 s per parse of the Snakefile).
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from dpgrid.core.yaml_unique import DuplicateKeyError, UniqueKeyLoader, dotted


class ConfigError(ValueError):
    """A config value that the schema (or a cross-field check) rejects."""


_LOADER = UniqueKeyLoader


def _workflow_dir(schema_path: Path) -> Path:
    """The workflow folder a schema file belongs to (``workflow/schemas/x`` or ``workflow/papers/<paper>/x``)."""
    for parent in schema_path.parents:
        if (parent / "schemas" / "defs.schema.yaml").is_file():
            return parent
    raise ConfigError(f"{schema_path}: not in a workflow folder (no schemas/defs.schema.yaml above it)")


def schema_documents(schema_path: str | Path) -> dict[str, Path]:
    """``{file name: path}`` of every schema file a ``$ref`` may name: ``workflow/schemas/*.schema.yaml`` and the
    papers' section schemas ``workflow/papers/<paper>/<section>.schema.yaml`` (one per rules file the paper's
    descriptor names, :mod:`dpgrid.core.papers`)."""
    from dpgrid.core.papers import paper_descriptors

    wf = _workflow_dir(Path(schema_path).resolve())
    files = {f.name: f for f in sorted((wf / "schemas").glob("*.schema.yaml"))}
    for d in paper_descriptors():
        for section in d.rules_files:
            f = wf / "papers" / d.name / f"{section}.schema.yaml"
            if not f.is_file():
                raise ConfigError(f"{f}: missing; every rules file of a paper has its config section's schema")
            if f.name in files:
                raise ConfigError(f"{f}: a schema file named {f.name} exists already ({files[f.name]})")
            files[f.name] = f
    return files


def root_schema(schema_path: str | Path) -> dict:
    """The schema ``schema_path`` (:func:`schema_document`); for the root ``config.schema.yaml``, with every
    paper's sections added (``properties`` and ``required``, in the papers' order): the root file names no paper."""
    from dpgrid.core.papers import paper_descriptors

    path = Path(schema_path).resolve()
    schema = schema_document(path)
    if path.name == ROOT_SCHEMA_NAME:
        sections = [s for d in paper_descriptors() for s in d.rules_files]
        schema = {
            **schema,
            "required": [*schema.get("required", []), *sections],
            "properties": {**schema.get("properties", {}), **{s: {"$ref": f"{s}.schema.yaml"} for s in sections}},
        }
    return schema


#: The root schema's file name (workflow/schemas/).
ROOT_SCHEMA_NAME = "config.schema.yaml"
#: The data layer's schema file (workflow/schemas/), to which the papers' stand-in data sources add their keys.
DATA_SCHEMA_NAME = "data.schema.yaml"
#: What a paper's ``<source>.source.schema.yaml`` may hold.
_SOURCE_SCHEMA_KEYS = {"required", "optional", "properties", "restrict"}


def source_schema_file(workflow_dir: str | Path, paper: str, source: str) -> Path:
    """The schema of the keys of a paper's stand-in data source: ``workflow/papers/<paper>/<source>.source.schema.yaml``."""
    return Path(workflow_dir) / "papers" / paper / f"{source}.source.schema.yaml"


def schema_document(path: str | Path) -> Any:
    """The contents of schema file ``path``; for ``data.schema.yaml``, with every paper's stand-in data sources
    added (:func:`_with_paper_sources`): the data layer's file names no paper source."""
    path = Path(path)
    contents = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    if path.name == DATA_SCHEMA_NAME:
        contents = _with_paper_sources(contents, _workflow_dir(path.resolve()))
    return contents


def _with_paper_sources(schema: dict, workflow_dir: Path) -> dict:
    """``schema`` (the data schema) with each paper's stand-in sources (their descriptors' ``data_sources``, in
    the papers' order) in ``$defs.experiment``: the source name in the ``source`` enum, the definitions of its new
    keys in ``properties``, and one ``if source == name then required / accepted keys / restrictions`` rule in
    ``allOf``, as the built-in sources are written."""
    from dpgrid.core.papers import paper_descriptors

    schema = copy.deepcopy(schema)
    exp = schema["$defs"]["experiment"]
    props, sources = exp["properties"], exp["properties"]["source"]["enum"]
    for d in paper_descriptors():
        for source in d.data_sources:
            f = source_schema_file(workflow_dir, d.name, source)
            if not f.is_file():
                raise ConfigError(
                    f"{f}: missing; every stand-in data source a paper declares has the schema of its keys"
                )
            frag = yaml.load(f.read_text(encoding="utf-8"), Loader=_LOADER)
            if not isinstance(frag, dict) or set(frag) - _SOURCE_SCHEMA_KEYS or "required" not in frag:
                raise ConfigError(
                    f"{f}: expected a mapping with 'required' and optionally {sorted(_SOURCE_SCHEMA_KEYS - {'required'})}"
                )
            if source in sources:
                raise ConfigError(f"{f}: data source {source!r} is defined already (data.schema.yaml or another paper)")
            for key, sub in (frag.get("properties") or {}).items():
                if key in props and props[key] != sub:
                    raise ConfigError(
                        f"{f}: key {key!r} is defined already, differently (data.schema.yaml or another paper)"
                    )
                props[key] = sub
            keys = [*frag["required"], *(frag.get("optional") or [])]
            undefined = [k for k in keys if k not in props]
            if undefined:
                raise ConfigError(f"{f}: keys {undefined} of data source {source!r} have no definition ('properties')")
            then = {
                "required": list(frag["required"]),
                "propertyNames": {"anyOf": [{"$ref": "#/$defs/common_experiment_key"}, {"enum": keys}]},
            }
            if frag.get("restrict"):
                then["properties"] = frag["restrict"]
            sources.append(source)
            exp.setdefault("allOf", []).append({"if": {"properties": {"source": {"const": source}}}, "then": then})
    return schema


@functools.cache
def _validator(schema_path: str):
    import jsonschema
    from referencing import Registry, Resource

    resources = []
    for name, f in schema_documents(schema_path).items():
        contents = schema_document(f)
        resources.append((name, Resource.from_contents(contents, default_specification=_draft())))
    registry = Registry().with_resources(resources)
    schema = root_schema(schema_path)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, registry=registry)


def _draft():
    from referencing.jsonschema import DRAFT202012

    return DRAFT202012


def _defined_in(path: list[Any], files: list[tuple[str, Mapping]]) -> str | None:
    """The last config file (in merge order) that sets ``path`` (or its closest parent)."""
    for depth in range(len(path), 0, -1):
        for name, data in reversed(files):
            node: Any = data
            for key in path[:depth]:
                if isinstance(node, Mapping) and key in node:
                    node = node[key]
                elif isinstance(node, list) and isinstance(key, int) and key < len(node):
                    node = node[key]
                else:
                    break
            else:
                return name
    return None


#: A number in scientific notation that YAML 1.1 (PyYAML, Snakemake's loader) reads as text: its floats need
#: a decimal point and a signed exponent (``1.0e+6``), so ``1e6``, ``1.0e6`` and ``1e-12`` are strings.
_YAML11_NUMBER_TEXT = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+$")


def _yaml11_number_hint(value: Any) -> str:
    """For a string that is a number in scientific notation: how to write it so that YAML reads a number
    (nothing to offer for a number beyond the floats' range: it is not a finite number however written)."""
    if not isinstance(value, str) or not _YAML11_NUMBER_TEXT.match(value.strip()):
        return ""
    if not math.isfinite(float(value)):
        return f"; {value.strip()} is beyond the range of numbers (about 1.8e308), so no spelling of it is valid"
    mantissa, exponent = value.strip().lower().split("e")
    if "." not in mantissa:
        mantissa += ".0"
    elif mantissa.endswith("."):
        mantissa += "0"
    if exponent[0] not in "+-":
        exponent = "+" + exponent
    full = f"{float(value):.10g}"
    return (
        f"; YAML 1.1 reads {value.strip()} as text, not as a number: write {mantissa}e{exponent} "
        f"(a decimal point and a signed exponent)" + ("" if "e" in full else f" or {full}")
    )


def _describe(err) -> tuple[list[Any], str]:
    """(path of the offending key, one-line reason) of a jsonschema error, without the schema."""
    path, reason = _describe_schema_error(err)
    return path, reason + _yaml11_number_hint(err.instance)


def _describe_schema_error(err) -> tuple[list[Any], str]:
    path = list(err.absolute_path)
    v = err.validator
    if "propertyNames" in err.absolute_schema_path and v not in ("oneOf", "anyOf"):
        # a key that the schema refuses (the instance is the key itself): name it and what a key must be
        what = err.schema.get("description") if isinstance(err.schema, Mapping) else None
        reason = " ".join(str(what).split()) if what else err.message
        return path + [err.instance], f"{dotted(path)}: key {err.instance!r} is not allowed: it must be {reason}"
    if v == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed)) if isinstance(err.instance, Mapping) else []
        where = dotted(path)
        keys = ", ".join(repr(k) for k in extra)
        return path + extra[:1], (f"unknown key {keys} under {where}; allowed keys there: {', '.join(allowed)}")
    if v == "required":
        return path, f"{dotted(path)}: {err.message}"
    if v in ("oneOf", "anyOf"):
        # name the most specific reason among the alternatives
        best = min(err.context, key=lambda e: (-len(e.absolute_path), e.validator == "type")) if err.context else None
        reasons = sorted({e.message for e in err.context if len(e.absolute_path) == len(err.absolute_path)})
        if best is not None and len(best.absolute_path) > len(err.absolute_path):
            return _describe_schema_error(best)
        shown = "; or ".join(reasons[:4]) if reasons else err.message
        return path, f"{dotted(path)} = {err.instance!r} is not valid: {shown}"
    if v == "enum":
        return path, f"{dotted(path)} = {err.instance!r} is not one of {err.validator_value}"
    if v == "pattern" and isinstance(err.schema, Mapping) and err.schema.get("description"):
        # a value the schema describes in words (a run name): say what it must be, not the regular expression
        reason = " ".join(str(err.schema["description"]).split())
        return path, f"{dotted(path)} = {err.instance!r} is not allowed: it must be {reason}"
    return path, f"{dotted(path)} = {err.instance!r}: {err.message}"


def validate_config(config: Mapping, schema_path: str | Path, files: list[str | Path] | None = None) -> None:
    """Raise :class:`ConfigError` listing every schema violation of ``config`` (at most 10).

    ``files`` are the config files merged into ``config`` (in order); each message names the one
    that set the offending key.
    """
    non_finite = non_finite_numbers(config)
    if non_finite:
        loaded = _loaded_files(files)
        lines = [
            f"  - {dotted(path)} = {value!r}: not a finite number; every number of the config is finite"
            + _set_in(path, loaded)
            for path, value in non_finite[:10]
        ]
        more = f"\n  ... and {len(non_finite) - 10} more" if len(non_finite) > 10 else ""
        raise ConfigError("invalid config:\n" + "\n".join(lines) + more)
    validator = _validator(str(schema_path))
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        check_cross_fields(config)
        return
    loaded = _loaded_files(files)
    lines = []
    for err in errors[:10]:
        path, reason = _describe(err)
        lines.append(f"  - {reason}" + _set_in(path, loaded))
    more = f"\n  ... and {len(errors) - 10} more" if len(errors) > 10 else ""
    raise ConfigError("invalid config (schema workflow/schemas/config.schema.yaml):\n" + "\n".join(lines) + more)


def _loaded_files(files: list[str | Path] | None) -> list[tuple[str, Mapping]]:
    loaded = []
    for f in files or []:
        try:
            loaded.append((str(f), yaml.load(Path(f).read_text(encoding="utf-8"), Loader=_LOADER) or {}))
        except (OSError, yaml.YAMLError):
            continue
    return loaded


def _set_in(path: list[Any], loaded: list[tuple[str, Mapping]]) -> str:
    src = _defined_in(path, loaded)
    return f" (set in {src})" if src else ""


def non_finite_numbers(config: Any, path: list[Any] | None = None) -> list[tuple[list[Any], float]]:
    """``(path, value)`` of every number of ``config`` that is not finite (NaN, +-inf; YAML ``.nan``, ``.inf``,
    ``1.0e+400``), at any depth, in mapping keys' and list items' order. No key of the config takes one: a NaN
    passes every comparison of a schema's bounds (``minimum``, ``exclusiveMaximum``), so this check is schema-wide."""
    path = path or []
    if isinstance(config, bool):
        return []
    if isinstance(config, float):
        return [] if math.isfinite(config) else [(path, config)]
    if isinstance(config, Mapping):
        return [hit for k, v in config.items() for hit in non_finite_numbers(v, [*path, k])]
    if isinstance(config, (list, tuple)):
        return [hit for i, v in enumerate(config) for hit in non_finite_numbers(v, [*path, i])]
    return []


def check_cross_fields(config: Mapping) -> None:
    """Checks between keys that the schema cannot express (run after the schema check): every ``data_source``
    key names an entry of ``data.experiments`` (:func:`data_source_problems`), and each paper's own checks
    (``check_config`` of its descriptor, :mod:`dpgrid.core.papers`)."""
    from dpgrid.core.papers import cross_field_problems

    problems = data_source_problems(config) + cross_field_problems(config)
    if problems:
        raise ConfigError("invalid config:\n" + "\n".join(f"  - {p}" for p in problems))


def data_source_problems(config: Mapping) -> list[str]:
    """Every key named ``data_source`` outside the ``data`` section (a paper's choice of meter data) whose value is
    not an entry of ``data.experiments``."""
    experiments = (config.get("data") or {}).get("experiments") or {}
    problems: list[str] = []

    def walk(node: Any, path: list[str]) -> None:
        if not isinstance(node, Mapping):
            return
        for key, value in node.items():
            if key == "data_source" and isinstance(value, str):
                if value not in experiments:
                    problems.append(
                        f"{'.'.join([*path, key])} = {value!r} names no entry of data.experiments "
                        f"(entries: {', '.join(sorted(experiments)) or 'none'})"
                    )
            else:
                walk(value, [*path, str(key)])

    for section, node in config.items():
        if section != "data":
            walk(node, [str(section)])
    return problems


def normalise_numbers(config: Any, reference: Any) -> Any:
    """Write every number of ``config`` as the shipped config (``reference``, config/config.yaml) writes it.

    Jobs are rerun when their params change, and Snakemake compares params by ``repr``: ``eps_c: 30`` would
    differ from the shipped ``eps_c: 30.0`` and rerun every job reading it, for the same value. Here an int
    where the reference has a float becomes that float, and an integral float where the reference has an int
    becomes that int; in a list, when every reference item is of one kind. Values the reference does not
    have, booleans and non-integral floats for int keys (the schema rejects those) are left as they are, so the
    shipped config itself is unchanged and its jobs plan nothing new. Returns ``config`` (changed in place).
    """

    def kind(values) -> type | None:
        kinds = {type(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)}
        return kinds.pop() if len(kinds) == 1 and all(isinstance(v, (int, float)) for v in values) else None

    def convert(value, want):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or want is None:
            return value
        if want is float and isinstance(value, int):
            return float(value)
        if want is int and isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    if isinstance(config, dict) and isinstance(reference, Mapping):
        for key, value in config.items():
            if key not in reference:
                continue
            ref = reference[key]
            if isinstance(value, (dict, list)):
                normalise_numbers(value, ref)
            elif not isinstance(ref, bool) and isinstance(ref, (int, float)):
                config[key] = convert(value, type(ref))
    elif isinstance(config, list) and isinstance(reference, list) and reference:
        if all(isinstance(r, Mapping) for r in reference):
            for item in config:
                normalise_numbers(item, reference[0])
        else:
            want = kind(reference)
            config[:] = [convert(v, want) for v in config]
    return config


#: The folders of a run's own outputs; :func:`run_folder` names the run's folder in each.
RUN_FOLDERS = ("results", "resources", "logs", "benchmarks")


def run_folder(config: Mapping, folder: str) -> str:
    """The folder of the run's outputs under ``folder`` (one of :data:`RUN_FOLDERS`), with a trailing ``/`` (a rule
    path is the folder + the file's path in it): ``results/`` for the empty run name (``run.name``),
    ``results/<name>/`` otherwise, so that runs with different names write different files. ``config`` is
    validated (:func:`validate_config` admits a name of one path component only)."""
    if folder not in RUN_FOLDERS:
        raise ValueError(f"run_folder: {folder!r} is not one of {RUN_FOLDERS}")
    name = config["run"]["name"]
    return f"{folder}/{name}/" if name else f"{folder}/"


def config_slice(config: Mapping, section: str, *paths: str) -> dict:
    """The values at the dotted ``paths`` of ``config[section]`` as a nested dict of the same shape.

    ``config_slice(cfg, "paper", "privacy", "streaming.burn_in_hours")`` ->
    ``{"privacy": {...}, "streaming": {"burn_in_hours": 48}}``. A rule passes exactly the keys its
    job reads as ``params``, so editing any other key does not rerun it.
    """
    out: dict = {}
    for path in paths:
        keys = path.split(".")
        node: Any = config[section]
        for k in keys:
            if not isinstance(node, Mapping) or k not in node:
                raise KeyError(f"config has no key {section}.{path}")
            node = node[k]
        dst = out
        for k in keys[:-1]:
            dst = dst.setdefault(k, {})
        dst[keys[-1]] = node
    return out


def replace_data_sources(config: dict, files: list[str | Path], overrides: Mapping | None = None) -> None:
    """An experiment's data spec is replaced, not merged, by the last config file that sets its ``source``.

    Snakemake merges config files key by key, so an overlay that switches
    ``data.experiments.<exp>`` from ``synthetic`` to ``csv`` would keep the synthetic keys
    (``n_residential``, ...) next to the csv ones and fail validation. Here, for every experiment, the
    spec of the last file (in merge order) that names a ``source`` is taken as a whole; files after it
    may still change single keys of that spec. ``overrides`` (Snakemake's ``--config``) come last.
    """
    specs: dict[str, dict] = {}
    for data in [load_config_file(f) for f in files] + [overrides or {}]:
        exps = ((data.get("data") or {}).get("experiments") or {}) if isinstance(data, Mapping) else {}
        for exp, spec in exps.items():
            if not isinstance(spec, Mapping):
                continue
            if "source" in spec:
                specs[exp] = dict(spec)
            elif exp in specs:
                specs[exp].update(spec)
    target = config.get("data", {}).get("experiments", {})
    for exp, spec in specs.items():
        if exp in target:
            target[exp] = spec


def load_config_file(path: str | Path) -> Any:
    """A YAML config file; a syntax error names the file, line and column, a key given twice in one mapping
    (at any depth) the file, the line of each and the key (:class:`DuplicateKeyError`)."""
    path = Path(path)
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or {}
    except DuplicateKeyError as exc:
        raise ConfigError(f"config file {path}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"config file {path}: YAML syntax error{where}: {problem}") from None
    except OSError as exc:
        raise ConfigError(f"config file {path}: cannot be read ({exc})") from None


def merge_config(base: Mapping, over: Mapping) -> dict:
    """Snakemake's merge of config files: nested mappings of ``over`` merged key by key over ``base``, other
    values replaced (a new dict; the inputs are not changed)."""
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge_config(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def load_config(
    files: Iterable[str | Path], *, schema: str | Path | None = None, overrides: Mapping | None = None
) -> dict:
    """The config the workflow runs with for ``files`` (lowest priority first; the first is usually
    config/config.yaml) and ``overrides`` (``--config``): merged as Snakemake merges them, data sources
    replaced (:func:`replace_data_sources`), validated against ``schema`` (default: the root schema of the
    workflow the first file belongs to, ``<repo>/workflow/schemas/config.schema.yaml``) and its numbers written
    as the first file writes them (:func:`normalise_numbers`). For command-line tools and tests: one merge, and
    always validated."""
    files = [Path(f) for f in files]
    if not files:
        raise ConfigError("load_config: no config file given")
    config: dict = {}
    for f in files:
        config = merge_config(config, load_config_file(f))
    if overrides:
        config = merge_config(config, overrides)
    replace_data_sources(config, files, overrides)
    if schema is None:
        schema = files[0].resolve().parents[1] / "workflow" / "schemas" / ROOT_SCHEMA_NAME
    validate_config(config, schema, files)
    normalise_numbers(config, load_config_file(files[0]))
    return config
