"""The package's layers (docs/DEVELOPING.md): each imports only the layers below it, no import cycle, no paper
imports another, and the framework names no paper.

Imports are read with the same AST reader as the code hashes (dpgrid.core.provenance), so an import inside a
function counts as much as one at module level.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpgrid.core import provenance
from dpgrid.core.papers import paper_descriptors
from tests.helpers.repo import REPO

PACKAGE = REPO / "src" / "dpgrid"
#: Bottom to top; a module may import its own layer and the layers before it.
LAYERS = ("core", "figures", "privacy", "models", "mechanisms", "data", "grid", "papers")


def _module_imports(root: Path = PACKAGE) -> dict[str, set[str]]:
    """``{module: dpgrid modules it imports}`` (names that are modules; a package's own parents excluded)."""
    out = {}
    for f in sorted(root.rglob("*.py")):
        me = provenance._module_name(f, root)
        names = {n for n, _ in provenance._imports(f, f.stat().st_mtime_ns, root)}
        out[me] = {n for n in names if provenance.module_file(n, root) is not None and n != "dpgrid"}
    return out


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else None


def layer_violations(imports: dict[str, set[str]]) -> list[str]:
    """``a -> b`` for every import of a higher layer, and of another paper's package."""
    bad = []
    for me, names in imports.items():
        a = _layer(me)
        for n in sorted(names):
            b = _layer(n)
            if a is None or b is None:
                continue
            if LAYERS.index(b) > LAYERS.index(a):
                bad.append(f"{me} -> {n} ({a} below {b})")
            elif a == b == "papers" and me.split(".")[2] != n.split(".")[2]:
                bad.append(f"{me} -> {n} (another paper)")
    return bad


def import_cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in imports.get(v, ()):
            if w.startswith(v + ".") or v.startswith(w + "."):
                continue  # a package and its own modules
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(imports):
        if v not in index:
            visit(v)
    return cycles


def test_every_module_is_in_a_layer():
    assert sorted({_layer(m) for m in _module_imports()} - {None}) == sorted(LAYERS)
    top = [m for m in _module_imports() if _layer(m) is None and m != "dpgrid"]
    assert top == [], f"modules outside the layers: {top}"


def test_no_layer_imports_a_higher_one_and_no_paper_another():
    assert layer_violations(_module_imports()) == []


def test_no_import_cycle():
    assert import_cycles(_module_imports()) == []


def test_the_checks_catch_an_upward_import_a_cross_paper_import_and_a_cycle():
    imports = {
        "dpgrid.models.arma": {"dpgrid.mechanisms.gaussian_class"},
        "dpgrid.mechanisms.gaussian_class": {"dpgrid.models.arma"},
        "dpgrid.papers.spdp.jobs": {"dpgrid.papers.classdp.standin", "dpgrid.core.io"},
        "dpgrid.papers.classdp.standin": set(),
        "dpgrid.core.io": set(),
    }
    bad = layer_violations(imports)
    assert any("models.arma -> dpgrid.mechanisms" in b for b in bad)
    assert any("another paper" in b for b in bad)
    assert not any("core.io" in b for b in bad)
    assert import_cycles(imports) == [["dpgrid.mechanisms.gaussian_class", "dpgrid.models.arma"]]


def _framework_files() -> list[Path]:
    return [
        *sorted((PACKAGE / "core").glob("*.py")),
        REPO / "Snakefile",
        REPO / "workflow" / "Snakefile",
        *sorted((REPO / "workflow" / "rules").glob("*.smk")),
        *sorted((REPO / "workflow" / "schemas").glob("*.schema.yaml")),  # root, data (sources) and shared defs
    ]


def papers_named(text: str, names) -> set[str]:
    return {n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)}


def test_framework_files_name_no_paper():
    """Adding a paper touches its own folders and config only: the framework reads the papers' descriptors."""
    names = {d.name for d in paper_descriptors()} | {s for d in paper_descriptors() for s in d.rules_files}
    names |= {s for d in paper_descriptors() for s in d.data_sources}  # stand-in sources: their own schema files
    assert {"classdp", "spdp", "dpkmeans", "blowfish", "grid", "peers", "spdp_standin"} <= names
    found = {}
    for f in _framework_files():
        hits = papers_named(f.read_text(), names)
        if hits:
            found[str(f.relative_to(REPO))] = sorted(hits)
    assert found == {}


@pytest.mark.parametrize("text, named", [("from dpgrid.papers.spdp import x", {"spdp"}), ("spdp_standin", set())])
def test_paper_name_search_finds_names_not_substrings(text, named):
    assert papers_named(text, {"spdp"}) == named


def _private_imports_from_other_packages(path: Path, own_package: str) -> list[str]:
    """``from dpgrid.X import _name`` in ``path`` where dpgrid.X is outside ``own_package``."""
    import ast

    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dpgrid."):
            if node.module == own_package or node.module.startswith(own_package + "."):
                continue
            out += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return out


def test_papers_use_only_public_names_of_the_library():
    """A paper's package imports the library's public API only (the stand-ins' generators included): a private name
    of another package may change without notice."""
    papers = REPO / "src" / "dpgrid" / "papers"
    found = {}
    for path in sorted(papers.rglob("*.py")):
        own = "dpgrid.papers." + path.relative_to(papers).parts[0]
        private = _private_imports_from_other_packages(path, own)
        if private:
            found[str(path.relative_to(REPO))] = private
    assert found == {}


def test_private_import_check_sees_one(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text("from dpgrid.data.synthetic_base import Calendar, _overlap\nfrom dpgrid.papers.x.y import _ok\n")
    assert _private_imports_from_other_packages(mod, "dpgrid.papers.x") == ["dpgrid.data.synthetic_base._overlap"]


#: the size limits of the library: one concept per module, functions a reader can hold in view
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 120


def oversized(root: Path) -> list[str]:
    """Modules of ``root`` over :data:`MAX_MODULE_LINES` lines and functions over :data:`MAX_FUNCTION_LINES`
    (docstring included)."""
    import ast

    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            out.append(f"{path.relative_to(root)}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    out.append(f"{path.relative_to(root)}:{node.lineno} {node.name}: {n} lines")
    return out


def test_no_module_or_function_of_the_library_is_oversized():
    assert oversized(REPO / "src" / "dpgrid") == []


def test_the_size_check_sees_a_long_module_and_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "long.py").write_text(f"def long():\n{body}\n" + "\n" * (MAX_MODULE_LINES - MAX_FUNCTION_LINES))
    (tmp_path / "short.py").write_text("def short():\n    return 1\n")
    assert oversized(tmp_path) == [
        f"long.py: {MAX_MODULE_LINES + 1} lines",
        f"long.py:1 long: {MAX_FUNCTION_LINES + 1} lines",
    ]
