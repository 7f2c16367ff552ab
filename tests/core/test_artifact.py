"""Generated parts of ARTIFACT.md (dpgrid.core.artifact): embedding and the claims-by-target index."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.core.artifact import (
    ArtifactError,
    begin_mark,
    claims_index,
    demoted,
    embed_markdown,
    embedded,
    end_mark,
    main,
    with_trailing_section,
)
from dpgrid.core.claims import Claim
from tests.helpers.repo import REPO


def claim(cid, paper, target, verdict="reproduced"):
    note = "" if verdict == "reproduced" else "because"
    return Claim(cid, paper, target, "d", "1", "1", "exact", verdict, note)


def test_embed_replaces_only_its_block_and_check_detects_staleness(tmp_path, capsys):
    doc = tmp_path / "ARTIFACT.md"
    doc.write_text(f"# T\n{begin_mark('a')}\nold\n{end_mark('a')}\nmiddle\n{begin_mark('b')}\nkeep\n{end_mark('b')}\n")
    src = tmp_path / "a.md"
    src.write_text("| x |\n|---|\n| 1 |\n\n")
    assert main(["check", "a", str(src), str(doc)]) == 1
    embed_markdown("a", src, doc)
    embed_markdown("a", src, doc)  # idempotent
    assert doc.read_text() == (
        f"# T\n{begin_mark('a')}\n| x |\n|---|\n| 1 |\n{end_mark('a')}\nmiddle\n"
        f"{begin_mark('b')}\nkeep\n{end_mark('b')}\n"
    )
    assert embedded(doc, "b") == "keep\n"
    assert main(["check", "a", str(src), str(doc)]) == 0
    doc.write_text("no markers\n")
    with pytest.raises(ArtifactError, match="needs exactly one line"):
        embed_markdown("a", src, doc)
    assert doc.read_text() == "no markers\n"


def test_claims_index_lists_each_target_with_command_and_rows():
    targets = {"p": {"fig1": ["results/p/fig1.pdf", "results/p/fig1.png"], "table2": ["results/p/table2.csv"]}}
    claims = [
        claim("p-a", "p", "fig1"),
        claim("p-b", "p", "fig1", "differs"),
        claim("p-c", "p", "eq5", "not comparable"),
    ]
    md = claims_index(claims, targets)
    assert "#### p (3 claims: 1 reproduced, 1 differs, 1 not comparable)" in md
    assert (
        "| fig1 | `snakemake --cores 2 results/p/fig1.pdf results/p/fig1.png` | `p-a` (reproduced)<br>`p-b` (differs) |"
        in md
    )
    assert "| table2 | `snakemake --cores 2 results/p/table2.csv` | - |" in md
    assert "`p-c` (not comparable; target eq5)" in md and "results/p/claims.csv" in md
    with pytest.raises(ArtifactError, match=r"paper\(s\) \['q'\]"):
        claims_index([claim("q-a", "q", "x")], targets)


def test_artifact_md_has_the_generated_blocks():
    doc = REPO / "ARTIFACT.md"
    for block in ("claims", "costs"):
        assert embedded(doc, block).strip(), f"ARTIFACT.md block {block} is empty"


@given(
    st.lists(
        st.one_of(
            st.tuples(st.integers(1, 6), st.text("ab |", min_size=1, max_size=8)).map(
                lambda t: "#" * t[0] + " " + t[1]
            ),
            st.text("ab|#- ", max_size=10).filter(lambda line: not re.match(r"#{1,6} ", line)),
        ),
        min_size=1,
        max_size=8,
    ),
    st.integers(0, 7),
)
def test_demote_lowers_each_heading_and_leaves_other_lines(lines, levels):
    out = demoted("\n".join(lines), levels).split("\n")
    assert len(out) == len(lines)
    for before, after in zip(lines, out, strict=True):
        heading = re.match(r"(#{1,6}) ", before)
        if heading:
            n = min(6, len(heading.group(1)) + levels)
            assert after == "#" * n + before[len(heading.group(1)) :]
        else:
            assert after == before


def test_claims_index_commands_carry_the_runs_config_files_and_the_mirror_where_a_download_is_needed():
    """A command rebuilds the same file as the run: the run's --configfile on every row, DPGRID_MIRROR on the rows of
    the targets that depend on a download (and the claims file of a paper that has one), on no other row."""
    import shlex

    from dpgrid.core.rebuild import RunOptions

    targets = {
        "p": {"fig1": ["results/p/fig1.pdf"], "grid": ["results/p/grid.csv"]},
        "q": {"fig2": ["results/q/fig2.pdf"]},
    }
    claims = [claim("p-a", "p", "fig1"), claim("p-b", "p", "eq5"), claim("q-a", "q", "eq1")]
    run = RunOptions(("config/quick.yaml",), {}, "../shared/data")
    md = claims_index(claims, targets, run=run, downloads={"p": ["grid"], "q": []})
    commands = {}
    for row in md.splitlines():
        if row.startswith("| ") and "snakemake" in row:
            cells = row.strip("|").split(" | ")
            commands[(cells[0].strip(), cells[1])] = shlex.split(cells[1].strip().strip("`"))
    assert len(commands) == 5
    for (name, _), words in commands.items():
        assert words[words.index("--configfile") + 1 :] == ["config/quick.yaml"], name
        with_mirror = words[0] == "DPGRID_MIRROR=../shared/data"
        assert with_mirror == (name == "grid" or (name == "(claims file)" and "results/p/claims.csv" in words)), name
    # the default run: the plain command, as before
    plain = claims_index(claims, targets)
    assert "`snakemake --cores 2 results/p/grid.csv`" in plain and "DPGRID_MIRROR" not in plain


def test_trailing_section_is_replaced_only_when_it_is_the_last_and_only_one(tmp_path):
    """The generated last section of a YAML file (CITATION.cff's references, the SLURM profile's set-resources)."""
    f = tmp_path / "f.yaml"
    f.write_text("a: 1\nrefs:\n  - x\n\n  - y\n")
    assert with_trailing_section(f, "refs", "refs:\n  - z\n") == "a: 1\nrefs:\n  - z\n"
    for text in ("a: 1\n", "refs:\n  - x\nb: 2\n", "refs:\n  - x\nrefs:\n  - y\n"):
        f.write_text(text)
        with pytest.raises(ArtifactError, match="expected one refs: section, at the end of the file"):
            with_trailing_section(f, "refs", "refs: []\n")
