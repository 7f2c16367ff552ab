"""YAML that refuses a key given twice: PyYAML keeps the last of two equal keys of a mapping silently, so a config
or caption file with a repeated key would run with half of what its author wrote. :class:`UniqueKeyLoader`
checks every mapping of the document, at any depth, and raises :class:`DuplicateKeyError` naming the key, its
dotted path and both lines."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

#: the safe loader, from libyaml when available (10x faster)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def dotted(path: Iterable[Any]) -> str:
    """A config path as one string: ``a.b[2].c`` (``(top level)`` for the empty path)."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


class DuplicateKeyError(yaml.YAMLError):
    """A mapping of a YAML document that holds the same key twice (PyYAML keeps the last one silently)."""

    def __init__(self, key: Any, path: list[Any], line: int, first_line: int) -> None:
        self.key, self.path, self.line, self.first_line = key, path, line, first_line
        where = dotted([*path, key])
        super().__init__(
            f"line {line}: duplicate key {key!r} ({where}; first at line {first_line}): YAML would keep only "
            f"the last one silently; merge the two into one"
        )


class UniqueKeyLoader(SAFE_LOADER):
    """The safe loader, refusing a mapping that holds a key twice, at any depth (:class:`DuplicateKeyError`).

    The node tree is checked before it is turned into Python objects: keys are compared as the values
    YAML makes of them (``1`` and ``0x1``, ``yes`` and ``true`` are the same key). A merge key (``<<``)
    may be overridden by a key of the mapping, as YAML intends."""

    def construct_document(self, node):
        _check_unique_keys(self, node, [], set())
        return super().construct_document(node)


def _check_unique_keys(loader, node, path: list[Any], seen_nodes: set[int]) -> None:
    if id(node) in seen_nodes:  # an alias of a node checked already
        return
    seen_nodes.add(id(node))
    if isinstance(node, yaml.MappingNode):
        first: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                _check_unique_keys(loader, value_node, path, seen_nodes)
                continue
            key = loader.construct_object(key_node, deep=True) if isinstance(key_node, yaml.ScalarNode) else None
            line = key_node.start_mark.line + 1
            try:
                if key in first:
                    raise DuplicateKeyError(key, path, line, first[key])
                first[key] = line
            except TypeError:  # an unhashable key: PyYAML refuses it itself
                pass
            _check_unique_keys(loader, value_node, [*path, key], seen_nodes)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _check_unique_keys(loader, item, [*path, i], seen_nodes)
