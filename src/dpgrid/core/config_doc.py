"""``config/README.md``: the configuration catalog, generated from the schema so it cannot drift.

Every section of ``workflow/schemas/config.schema.yaml`` (and the section schemas it references) with its
description, every key at any depth (``key[].sub`` for the keys of a list's items; the map of a download's files
and the experiments of ``data.experiments`` by their own rows) with its type or allowed values, its description and
its value in ``config/config.yaml``; the data sources an experiment can read (``data.experiments.<experiment>``)
with the keys each takes; and the overlay files of ``config/`` with their header comments::

    python -m dpgrid.core.config_doc write config/README.md    # regenerate
    python -m dpgrid.core.config_doc check config/README.md    # exit 1 if it differs from the schema (tests run it)

Both refuse a schema with an undescribed key (:func:`undescribed_keys`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from dpgrid.core.config import ROOT_SCHEMA_NAME, root_schema, schema_document, schema_documents
from dpgrid.core.io import write_text

REPO = Path(__file__).resolve().parents[3]
SCHEMA = "workflow/schemas/config.schema.yaml"
DEFAULT_CONFIG = "config/config.yaml"


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


class _Resolver:
    """Follows ``$ref`` between the schema files (``file.yaml``, ``file.yaml#/$defs/x``, ``#/$defs/x``)."""

    def __init__(self, schema_path: Path) -> None:
        self.files = schema_documents(schema_path)
        self.docs: dict[str, Any] = {ROOT_SCHEMA_NAME: root_schema(schema_path)}

    def doc(self, name: str) -> Any:
        if name not in self.docs:
            self.docs[name] = schema_document(self.files[name])
        return self.docs[name]

    def resolve(self, node: Any, current: str) -> tuple[Any, str]:
        """The node a ``$ref`` points to (merged with the referring node's other keys), and its file."""
        while isinstance(node, Mapping) and "$ref" in node:
            ref = node["$ref"]
            file, _, pointer = ref.partition("#")
            file = file or current
            target = self.doc(file)
            for part in [p for p in pointer.split("/") if p]:
                target = target[part]
            rest = {k: v for k, v in node.items() if k != "$ref"}
            node, current = {**target, **rest}, file
        return node, current


def _kind(node: Mapping[str, Any], resolver: _Resolver, current: str) -> str:
    """Type and constraints of a schema node, in a few words."""
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in node["enum"])
    if "oneOf" in node or "anyOf" in node:
        options = [resolver.resolve(o, current)[0] for o in node.get("oneOf", node.get("anyOf"))]
        return " or ".join(_kind(o, resolver, current) for o in options)
    kind = node.get("type", "any")
    kind = " or ".join(kind) if isinstance(kind, list) else str(kind)
    bounds = []
    for key, sym in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="), ("exclusiveMaximum", "<")):
        if key in node:
            bounds.append(f"{sym} {node[key]}")
    if "minItems" in node:
        bounds.append(f"at least {node['minItems']} item(s)")
    if "pattern" in node:
        bounds.append(f"matching `{node['pattern']}`")
    if kind == "array" and "items" in node:
        items, _ = resolver.resolve(node["items"], current)
        if "enum" in items or items.get("type") not in (None, "object"):
            kind = f"list of ({_kind(items, resolver, current)})"
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def _value(config: Any, path: Sequence[str]) -> str:
    if any(part.endswith("[]") for part in path):
        return "(per item)"
    node = config
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return "-"
        node = node[part]
    if isinstance(node, Mapping):
        return "(mapping)" if len(json.dumps(node)) > 60 else f"`{json.dumps(node)}`"
    text = json.dumps(node)
    return f"`{text}`" if len(text) <= 60 else f"`{text[:57]}...`"


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _rows(node, path, resolver, current, config, depth, out) -> None:
    props = node.get("properties", {})
    required = set(node.get("required", []))
    for key, sub in props.items():
        sub, file = resolver.resolve(sub, current)
        dotted = ".".join([*path, key])
        desc = sub.get("description", "")
        if key not in required:
            desc = ("optional. " + desc).strip()
        out.append(
            f"| `{dotted}` | {_cell(_kind(sub, resolver, file))} | {_cell(desc) or '-'} | {_value(config, [*path, key])} |"
        )
        if sub.get("type") == "object" and "properties" in sub:
            _rows(sub, [*path, key], resolver, file, config, depth + 1, out)
        elif sub.get("type") == "array" and "items" in sub:
            items, items_file = resolver.resolve(sub["items"], file)
            if items.get("type") == "object" and "properties" in items:
                _rows(items, [*path, f"{key}[]"], resolver, items_file, config, depth + 1, out)


def _data_sources(resolver: _Resolver) -> list[str]:
    """Per data source: the keys it requires and accepts (the schema's ``allOf`` if/then per source)."""
    exp, _ = resolver.resolve(resolver.doc("data.schema.yaml")["$defs"]["experiment"], "data.schema.yaml")
    lines = [
        "| source | required keys | optional keys | what the keys mean |",
        "|---|---|---|---|",
    ]
    for rule in exp.get("allOf", []):
        source = rule["if"]["properties"]["source"]["const"]
        then = rule["then"]
        accepted = [k for alt in then["propertyNames"]["anyOf"] for k in alt.get("enum", [])]
        required = [k for k in then.get("required", [])]
        optional = [k for k in accepted if k not in required]
        meanings = [f"`{k}`: {_cell(exp['properties'][k].get('description', '-'))}" for k in accepted]
        lines.append(
            f"| `{source}` | {', '.join(f'`{k}`' for k in required) or '-'} | "
            f"{', '.join(f'`{k}`' for k in optional) or '-'} | {'<br>'.join(meanings)} |"
        )
    return lines


def _overlays(config_dir: Path) -> list[str]:
    lines = []
    for path in sorted(config_dir.glob("*.yaml")):
        if path.name == "config.yaml":
            continue
        header = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            header.append(line.lstrip("#").strip())
        lines.append(f"- `config/{path.name}`: {_cell(' '.join(h for h in header if h)) or '(no header comment)'}")
    return lines


def undescribed_keys(repo: Path = REPO) -> list[str]:
    """Every key of the configuration whose schema node has no ``description``, at any depth: the properties of
    each section and of nested objects, of a list's items (``key[]``), of a map's values (``key.<name>``) and of
    each alternative (``oneOf``/``anyOf``); a node reached through ``$ref`` may take the description of the
    definition it points to."""
    resolver = _Resolver(repo / SCHEMA)
    missing: list[str] = []

    def walk(node: Any, path: list[str], current: str) -> None:
        node, current = resolver.resolve(node, current)
        if not isinstance(node, Mapping):
            return
        for alt in [*node.get("oneOf", []), *node.get("anyOf", [])]:
            walk(alt, path, current)
        for key, sub in node.get("properties", {}).items():
            resolved, _ = resolver.resolve(sub, current)
            if not str(resolved.get("description", "")).strip():
                missing.append(".".join([*path, key]))
            walk(sub, [*path, key], current)
        if isinstance(node.get("items"), Mapping):
            walk(node["items"], [*path[:-1], f"{path[-1]}[]"] if path else ["[]"], current)
        if isinstance(node.get("additionalProperties"), Mapping):
            walk(node["additionalProperties"], [*path, "<name>"], current)

    walk(resolver.doc("config.schema.yaml"), [], "config.schema.yaml")
    return sorted(set(missing))


def config_readme(repo: Path = REPO) -> str:
    """The text of config/README.md for the schema and config files under ``repo``."""
    resolver = _Resolver(repo / SCHEMA)
    root = resolver.doc("config.schema.yaml")
    config = _load(repo / DEFAULT_CONFIG)
    lines = [
        "# Configuration",
        "",
        "<!-- generated from workflow/schemas/*.yaml by `python -m dpgrid.core.config_doc write config/README.md`;",
        "     do not edit by hand (tests/core/test_config_doc.py fails when it differs from the schema) -->",
        "",
        _cell(root.get("description", "")),
        "",
        "`config/config.yaml` holds every parameter; the files below are **overlays** merged over it with",
        "`--configfile config/config.yaml <overlay>.yaml` (Snakemake merges key by key; a data source spec is",
        "replaced as a whole by the last file that sets its `source`). The run is validated against the schema",
        "before any job starts: an unknown key, a wrong type or a value out of range stops it with the key, the",
        "value and the file that set it.",
        "",
        "## Overlays",
        "",
        *_overlays(repo / "config"),
        "",
        "## Data sources (`data.experiments.<experiment>`)",
        "",
        f"Each meter-data experiment ({', '.join(f'`{e}`' for e in config['data']['experiments'])}) reads one "
        "source; an overlay that",
        "sets `source` replaces the experiment's spec as a whole (README.md, Real data; docs/data.md).",
        "",
        *_data_sources(resolver),
        "",
        "## Sections",
        "",
    ]
    for key, sub in root["properties"].items():
        node, file = resolver.resolve(sub, "config.schema.yaml")
        lines += [f"### `{key}`", "", _cell(node.get("description", "")) or "-", ""]
        if node.get("type") == "object" and "properties" in node:
            lines += ["| key | type | what it controls | config.yaml |", "|---|---|---|---|"]
            out: list[str] = []
            _rows(node, [key], resolver, file, config, 2, out)
            lines += [*out, ""]
        else:
            lines += [f"Type: {_cell(_kind(node, resolver, file))}; config.yaml: {_value(config, [key])}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpgrid.core.config_doc", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["write", "check"])
    parser.add_argument("path", help="config/README.md")
    args = parser.parse_args(argv)
    missing = undescribed_keys()
    if missing:
        print(
            f"{len(missing)} config key(s) without a description in the schema: {', '.join(missing)}; "
            "add `description:` to each (workflow/schemas/*.yaml, workflow/papers/<paper>/*.schema.yaml)",
            file=sys.stderr,
        )
        return 1
    text = config_readme()
    if args.command == "write":
        write_text(text, args.path)
        return 0
    current = Path(args.path).read_text(encoding="utf-8") if Path(args.path).exists() else ""
    if current != text:
        print(
            f"{args.path} differs from the schema; run `python -m dpgrid.core.config_doc write {args.path}`",
            file=sys.stderr,
        )
        return 1
    print(f"{args.path} is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
