"""The equation table of docs/DEVELOPING.md ("Paper equations in the code") names code that exists.

For every row: the module imports and has the function (dotted attribute paths allowed); every test
reference ``<folder>/test_<x>.py::test_<y>`` (a path under tests/) is a ``def`` in that file, and the test's
body mentions the function (or the ``via`` name given in the row, which in turn must mention the function: a
helper of the test file or a function of the row's module).
"""

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

from tests.helpers.repo import REPO

ROOT = REPO
DOC = ROOT / "docs" / "DEVELOPING.md"
HEADER = "| paper | equation | what | module | function | test |"
TEST_REF = re.compile(r"`((?:\w+/)*test_\w+\.py)::(test_\w+)`(?:\s*\(via `(\w+)`\))?")


def _cells(line: str) -> list[str]:
    # split on unescaped pipes; "\|" inside a cell is a literal pipe
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [p.strip() for p in parts[1:-1]]


def _rows() -> list[dict]:
    lines = DOC.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == HEADER]
    assert len(starts) == 1, f"{DOC}: expected exactly one table with header {HEADER!r}, found {len(starts)}"
    rows = []
    for line in lines[starts[0] + 2 :]:
        if not line.startswith("|"):
            break
        cells = _cells(line)
        assert len(cells) == 6, f"{DOC}: row does not have 6 cells: {line!r}"
        paper, equation, what, module, function, tests = cells
        refs = TEST_REF.findall(tests)
        assert refs, f"{DOC}: row without a test reference: {line!r}"
        assert paper and equation and what, f"{DOC}: row with an empty paper, equation or what cell: {line!r}"
        rows.append(
            {
                "paper": paper,
                "equation": equation,
                "module": module.strip("`"),
                "function": function.strip("`"),
                "tests": refs,
                "line": line,
            }
        )
    return rows


ROWS = _rows()


def _test_sources(path: Path) -> dict[str, str]:
    src = path.read_text(encoding="utf-8")
    tree = ast.parse(src)
    return {
        node.name: ast.get_source_segment(src, node)
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _mentions(source: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", source) is not None


def test_table_covers_the_four_papers():
    papers = {p.strip() for row in ROWS for p in row["paper"].split(",")}
    assert {"classdp", "spdp", "dpkmeans", "blowfish"} <= papers
    assert len(ROWS) >= 40


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['module']}.{r['function']}" for r in ROWS])
def test_row_names_existing_code_and_tests(row):
    module = importlib.import_module(row["module"])
    obj = module
    for part in row["function"].split("."):
        assert hasattr(obj, part), f"{row['module']} has no {row['function']} (docs/DEVELOPING.md: {row['line']})"
        obj = getattr(obj, part)
    name = row["function"].split(".")[-1]
    for file, test, via in row["tests"]:
        path = ROOT / "tests" / file
        assert path.is_file(), f"tests/{file} does not exist (docs/DEVELOPING.md: {row['line']})"
        defs = _test_sources(path)
        assert test in defs, f"tests/{file} has no def {test} (docs/DEVELOPING.md: {row['line']})"
        if not via:
            assert _mentions(defs[test], name), f"tests/{file}::{test} does not call {name}; add (via `...`)"
            continue
        assert _mentions(defs[test], via), f"tests/{file}::{test} does not call {via}"
        if via in defs:  # a helper of the test file
            via_src = defs[via]
        else:  # a library function of the row's module that calls it
            assert hasattr(module, via), f"{via} is neither a function of tests/{file} nor of {row['module']}"
            via_src = inspect.getsource(getattr(module, via))
        assert _mentions(via_src, name), f"{via} does not call {name}"
