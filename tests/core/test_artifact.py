"""Generated parts of ARTIFACT.md (dpgrid.core.artifact): embedding and the claims-by-target index."""

from __future__ import annotations

import re
from types import SimpleNamespace

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
    index_with_verdicts,
    main,
    with_trailing_section,
)
from dpgrid.core.claims import VERDICTS, Claim
from dpgrid.core.claims_over_seeds import SEED_DEPENDENT
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
    for block in ("claims", "costs", "claims_over_seeds", "costs_over_seeds"):
        assert embedded(doc, block).strip(), f"ARTIFACT.md block {block} is empty"


@pytest.mark.parametrize(
    ("block", "source", "demote"),
    [("claims_over_seeds", "docs/claims_over_seeds.md", 3), ("costs_over_seeds", "docs/costs_over_seeds.md", 0)],
)
def test_artifact_md_shows_the_committed_tables_over_seeds(block, source, demote):
    """A.4's verdicts over seeds and A.5's costs per replicate are the committed files of the full run over seeds."""
    args = ["check", block, str(REPO / source), str(REPO / "ARTIFACT.md"), "--demote", str(demote)]
    assert main(args) == 0


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


OVER_SEEDS_VERDICTS = [*VERDICTS, SEED_DEPENDENT]


@st.composite
def index_and_verdicts(draw):
    """A claims index of generated claims, and a second verdict for each claim (as over seeds)."""
    n = draw(st.integers(1, 8))
    claims = [
        claim(f"c{i}", draw(st.sampled_from(["p", "q"])), draw(st.sampled_from(["fig1", "table2", "eq5"])),
              draw(st.sampled_from(VERDICTS)))
        for i in range(n)
    ]  # fmt: skip
    verdicts = {c.claim_id: draw(st.sampled_from(OVER_SEEDS_VERDICTS)) for c in claims}
    return claims, verdicts


TARGETS = {"p": {"fig1": ["results/p/fig1.pdf"], "table2": ["results/p/table2.csv"]}, "q": {"fig1": ["f.pdf"]}}


@given(index_and_verdicts())
def test_an_index_with_other_verdicts_is_the_index_of_the_claims_with_those_verdicts(drawn):
    """index_with_verdicts(claims_index(claims), v) equals claims_index of the same claims carrying the verdicts v
    (an independent path: the heading counts and rows are generated, not edited); the claims' own verdicts give
    the index back unchanged."""
    claims, verdicts = drawn
    index = claims_index(claims, TARGETS)
    assert index_with_verdicts(index, {c.claim_id: c.verdict for c in claims}) == index
    # claims_index reads id, paper, target and verdict; a Claim refuses "seed-dependent", a namespace does not
    relabelled = [SimpleNamespace(**{**vars(c), "verdict": verdicts[c.claim_id]}) for c in claims]
    assert index_with_verdicts(index, verdicts) == claims_index(relabelled, TARGETS)
    with pytest.raises(ArtifactError, match=r"no verdict for claim\(s\) \['c0'\]"):
        index_with_verdicts(index, {cid: v for cid, v in verdicts.items() if cid != "c0"})


def test_embed_and_check_with_verdicts_from_a_table(tmp_path, capsys):
    claims = [claim("p-a", "p", "fig1"), claim("p-b", "p", "fig1", "differs")]
    index = tmp_path / "claims_index.md"
    index.write_text(claims_index(claims, TARGETS))
    table = tmp_path / "over_seeds.csv"
    table.write_text("claim_id,verdict,median\np-a,seed-dependent,1\np-b,differs,2\n")
    doc = tmp_path / "ARTIFACT.md"
    doc.write_text(f"{begin_mark('claims')}\n{end_mark('claims')}\n")
    args = ["claims", str(index), str(doc), "--verdicts", str(table)]
    assert main(["embed", *args]) == 0
    block = embedded(doc, "claims")
    assert "#### p (2 claims: 0 reproduced, 1 differs, 1 seed-dependent, 0 not comparable)" in block
    assert "`p-a` (seed-dependent)<br>`p-b` (differs)" in block
    assert main(["check", *args]) == 0
    assert main(["check", "claims", str(index), str(doc)]) == 1  # the run's own verdicts are not what it shows
    table.write_text("claim_id,verdict\np-a,reproduced\np-b,differs\n")
    assert main(["check", *args]) == 1
    # a table without one of the index's claims, or without a verdict column: one line naming it, exit 2
    table.write_text("claim_id,verdict\np-a,reproduced\n")
    capsys.readouterr()
    assert main(["embed", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("artifact: ") and str(table) in err and "p-b" in err and "Traceback" not in err
    table.write_text("claim_id,share\np-a,1\np-b,0\n")
    assert main(["check", *args]) == 2
    assert "missing columns ['verdict']" in capsys.readouterr().err
    assert "`p-a` (seed-dependent)" in embedded(doc, "claims")  # nothing written on error
