"""tests/ mirrors src/dpgrid/ (docs/DEVELOPING.md, "Tests"): the tests of ``src/dpgrid/<path>/`` are in
``tests/<path>/``, the repository's meta-tests in ``tests/workflow/``, shared helpers in ``tests/helpers/`` and
data files in ``tests/fixtures/``. :func:`layout_problems` names every test module or folder outside that layout;
it is checked on the repository and, on small constructed trees, shown to catch each kind of misplacement."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.repo import REPO

#: top-level folders of tests/ that mirror no package of src/dpgrid/
META, HELPERS, FIXTURES = "workflow", "helpers", "fixtures"
#: The privacy mutants (catalog, sitecustomize, runner; tested by tests/workflow/test_mutants_catalog.py): no packages.
MUTANTS = "mutants"


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports (``from a.b import c`` gives ``a.b`` and ``a.b.c``), also inside functions."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def layout_problems(tests: Path, src: Path) -> list[str]:
    """What sits outside the mirrored layout of ``tests`` (the tests folder) over ``src`` (the ``dpgrid``
    package folder), one message per problem naming the file or folder; empty when the layout holds."""
    problems = []
    folders = sorted(
        d
        for d in tests.rglob("*")
        if d.is_dir() and not any(part.startswith((".", "__")) for part in d.relative_to(tests).parts)
    )
    for d in folders:
        rel = d.relative_to(tests)
        top = rel.parts[0]
        if top in (FIXTURES, MUTANTS):
            continue
        if not (d / "__init__.py").is_file():
            problems.append(f"tests/{rel.as_posix()}/ has no __init__.py (test folders are packages)")
        if top in (META, HELPERS):
            if len(rel.parts) > 1:
                problems.append(f"tests/{rel.as_posix()}/: tests/{top}/ has no subfolders")
        elif not (src / rel / "__init__.py").is_file():
            problems.append(f"tests/{rel.as_posix()}/ mirrors no package: src/dpgrid/{rel.as_posix()}/ does not exist")
    for f in sorted(tests.rglob("test_*.py")):
        rel = f.relative_to(tests)
        if any(part.startswith((".", "__")) for part in rel.parts):
            continue
        top = rel.parts[0]
        if len(rel.parts) == 1:
            problems.append(f"tests/{rel.as_posix()} is directly in tests/: move it to the folder of what it tests")
        elif top in (HELPERS, FIXTURES, MUTANTS):
            problems.append(f"tests/{rel.as_posix()}: no test modules in tests/{top}/")
        elif top != META:
            package = "dpgrid." + ".".join(rel.parts[:-1])
            if not any(m == package or m.startswith(package + ".") for m in _imported_modules(f)):
                problems.append(
                    f"tests/{rel.as_posix()} imports nothing of {package}: it is not in the folder of what it tests"
                )
    return problems


def test_the_repository_tests_mirror_the_library():
    assert layout_problems(REPO / "tests", REPO / "src" / "dpgrid") == []


def test_every_library_layer_has_its_tests_folder():
    layers = {d.name for d in (REPO / "src" / "dpgrid").iterdir() if (d / "__init__.py").is_file()}
    papers = {d.name for d in (REPO / "src" / "dpgrid" / "papers").iterdir() if (d / "__init__.py").is_file()}
    assert {d.name for d in (REPO / "tests").iterdir() if (d / "__init__.py").is_file()} >= layers
    assert {d.name for d in (REPO / "tests" / "papers").iterdir() if (d / "__init__.py").is_file()} == papers


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


GOOD_SRC = {"dpgrid/__init__.py": "", "dpgrid/core/__init__.py": "", "dpgrid/papers/__init__.py": ""}
GOOD_SRC |= {"dpgrid/papers/toy/__init__.py": "", "dpgrid/core/io.py": ""}
GOOD_TESTS = {
    "tests/__init__.py": "",
    "tests/conftest.py": "",
    "tests/core/__init__.py": "",
    "tests/core/test_io.py": "from dpgrid.core.io import write_table\n",
    "tests/papers/__init__.py": "",
    "tests/papers/toy/__init__.py": "",
    "tests/papers/toy/test_jobs.py": "def test_x():\n    from dpgrid.papers import toy\n",
    "tests/workflow/__init__.py": "",
    "tests/workflow/test_ci.py": "import yaml\n",
    "tests/helpers/__init__.py": "",
    "tests/helpers/repo.py": "",
    "tests/fixtures/series.npy": "",
}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({}, None),
        ({"tests/test_io.py": "import dpgrid.core.io\n"}, "tests/test_io.py is directly in tests/"),
        (
            {"tests/experiments/__init__.py": "", "tests/experiments/test_toy.py": "import dpgrid.papers.toy\n"},
            "tests/experiments/ mirrors no package: src/dpgrid/experiments/ does not exist",
        ),
        ({"tests/papers/spdp/__init__.py": ""}, "tests/papers/spdp/ mirrors no package"),
        ({"tests/core/test_seeds.py": "from dpgrid.papers import toy\n"}, "tests/core/test_seeds.py imports nothing"),
        ({"tests/papers/toy/test_io.py": "from dpgrid.core import io\n"}, "imports nothing of dpgrid.papers.toy"),
        ({"tests/papers/toy/test_io.py": "from dpgrid.papers.toyx import a\n"}, "imports nothing of dpgrid.papers.toy"),
        ({"tests/core/sub/test_x.py": "import dpgrid.core.sub\n"}, "tests/core/sub/ has no __init__.py"),
        ({"tests/helpers/test_repo.py": ""}, "tests/helpers/test_repo.py: no test modules in tests/helpers/"),
        ({"tests/fixtures/test_data.py": ""}, "tests/fixtures/test_data.py: no test modules in tests/fixtures/"),
        ({"tests/workflow/ci/__init__.py": ""}, "tests/workflow/ci/: tests/workflow/ has no subfolders"),
    ],
)
def test_each_kind_of_misplaced_test_is_named(tmp_path, change, problem):
    src = _tree(tmp_path / "src", GOOD_SRC) / "dpgrid"
    tests = _tree(tmp_path, GOOD_TESTS | change) / "tests"
    problems = layout_problems(tests, src)
    if problem is None:
        assert problems == []
        return
    assert any(problem in p for p in problems), problems
    # every message names a file or folder of the change (the rest of the tree is in the layout)
    changed = {str(Path(name).parent) + "/" for name in change} | set(change)
    assert all(any(c in p for c in changed) for p in problems), problems
