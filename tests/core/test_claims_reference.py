"""The CI check of claim verdicts against the committed reference (dpgrid.core.claims_reference, each paper's
workflow/papers/<paper>/claims_reference.csv)."""

from __future__ import annotations

import re
import subprocess

import pandas as pd
import pytest

from dpgrid.core.claims import VERDICTS, Claim, write_claims
from dpgrid.core.claims_reference import PAPER_REFERENCE, ClaimsReferenceError, main, read_reference, reference_files
from tests.helpers.repo import REPO

REFERENCE = REPO / "workflow" / "papers"


def claim(cid, verdict="reproduced", target="fig1", paper="p"):
    return Claim(cid, paper, target, "d", "1", "1", "exact", verdict, "" if verdict == "reproduced" else "why")


@pytest.fixture
def run(tmp_path):
    claims = [claim("a"), claim("b", "differs"), claim("c", "not comparable")]
    path = tmp_path / "claims.csv"
    write_claims(claims, path)
    ref = tmp_path / "reference.csv"
    assert main(["update", str(path), str(ref)]) == 0
    return path, ref


def test_unchanged_verdicts_pass(run):
    path, ref = run
    assert main(["check", str(path), str(ref)]) == 0


@pytest.mark.parametrize(
    "claims, message",
    [
        ([claim("a", "differs"), claim("b", "differs"), claim("c", "not comparable")], "a: reproduced -> differs"),
        ([claim("a"), claim("b", "differs")], "c: in the reference (not comparable), missing from the run"),
        (
            [claim("a"), claim("b", "differs"), claim("c", "not comparable"), claim("d")],
            "d: new claim (reproduced), not in the reference",
        ),
    ],
    ids=["verdict changed", "claim removed", "claim added"],
)
def test_a_changed_verdict_fails_and_names_the_claim_until_the_reference_is_updated(run, claims, message, capsys):
    path, ref = run
    write_claims(claims, path)
    assert main(["check", str(path), str(ref)]) == 1
    err = capsys.readouterr().err
    assert message in err and "python -m dpgrid.core.claims_reference update" in err
    assert main(["update", str(path), str(ref)]) == 0  # the same change refreshes the reference
    assert main(["check", str(path), str(ref)]) == 0


def test_a_changed_value_with_the_same_verdict_passes(run):
    path, ref = run
    write_claims(
        [claim("a"), claim("b", "differs"), Claim("c", "p", "fig1", "d", "9", "7", "x", "not comparable", "n")], path
    )
    assert main(["check", str(path), str(ref)]) == 0


def test_reference_with_duplicate_ids_is_refused(tmp_path):
    bad = tmp_path / "ref.csv"
    bad.write_text("claim_id,paper,target,verdict\na,p,t,reproduced\na,p,t,differs\n")
    with pytest.raises(ClaimsReferenceError, match="listed twice"):
        read_reference(bad)


def test_papers_folder_holds_one_reference_per_paper_and_checks_like_one_file(tmp_path):
    """update into a papers' folder writes each paper's rows into its own folder; check reads them back as one."""
    papers = tmp_path / "papers"
    for p in ("p", "q"):
        (papers / p).mkdir(parents=True)
    claims = [claim("a"), claim("b", "differs", paper="q"), claim("c", "not comparable")]
    path = tmp_path / "claims.csv"
    write_claims(claims, path)
    assert main(["update", str(path), str(papers)]) == 0
    assert [f.parent.name for f in reference_files(papers)] == ["p", "q"]
    assert pd.read_csv(papers / "q" / PAPER_REFERENCE)["claim_id"].tolist() == ["b"]
    assert read_reference(papers) == {"a": "reproduced", "b": "differs", "c": "not comparable"}
    assert main(["check", str(path), str(papers)]) == 0
    write_claims([claim("a"), claim("b", "reproduced", paper="q"), claim("c", "not comparable")], path)
    assert main(["check", str(path), str(papers)]) == 1


def test_papers_folder_refuses_rows_of_another_paper_and_a_run_paper_without_folder(tmp_path):
    papers = tmp_path / "papers"
    (papers / "p").mkdir(parents=True)
    (papers / "p" / PAPER_REFERENCE).write_text("claim_id,paper,target,verdict\na,q,t,reproduced\n")
    with pytest.raises(ClaimsReferenceError, match=r"paper\(s\) \['q'\] in the reference of paper 'p'"):
        read_reference(papers)
    path = tmp_path / "claims.csv"
    write_claims([claim("a", paper="r")], path)
    with pytest.raises(ClaimsReferenceError, match="no folder 'r'"):
        main(["update", str(path), str(papers)])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ClaimsReferenceError, match="no <paper>/claims_reference.csv"):
        read_reference(empty)


def test_every_paper_folder_has_its_reference():
    """Each paper of the workflow pins its verdicts in its own folder (a new paper adds its file there)."""
    papers = sorted(p.name for p in REFERENCE.iterdir() if (p / f"{p.name}.smk").is_file())
    assert papers and [f.parent.name for f in reference_files(REFERENCE)] == papers


def test_ci_script_fails_on_a_changed_verdict(tmp_path):
    """.ci/check_claims_reference (what .ci/run and the GitHub workflow call) exits 1 on a flipped verdict."""
    ref = pd.concat(
        [pd.read_csv(f, dtype=str, keep_default_na=False) for f in reference_files(REFERENCE)], ignore_index=True
    )
    flipped = ref.copy()
    flipped.loc[0, "verdict"] = "differs" if ref.loc[0, "verdict"] != "differs" else "reproduced"
    claims = [
        Claim(r.claim_id, r.paper, r.target, "d", "1", "1", "exact", r.verdict, "n") for r in flipped.itertuples()
    ]
    path = tmp_path / "claims.csv"
    write_claims(claims, path)
    proc = subprocess.run([str(REPO / ".ci" / "check_claims_reference"), str(path)], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ref.loc[0, "claim_id"] in proc.stderr
    claims[0] = Claim(
        ref.loc[0, "claim_id"],
        ref.loc[0, "paper"],
        ref.loc[0, "target"],
        "d",
        "1",
        "1",
        "exact",
        ref.loc[0, "verdict"],
        "n",
    )
    write_claims(claims, path)
    proc = subprocess.run([str(REPO / ".ci" / "check_claims_reference"), str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_committed_reference_is_the_run_behind_artifact_md():
    """The reference and ARTIFACT.md's claims index come from one full run: same claims, same verdicts."""
    ref = read_reference(REFERENCE)
    assert set(ref.values()) <= set(VERDICTS)
    text = (REPO / "ARTIFACT.md").read_text()
    block = text.split("<!-- claims:begin")[1].split("<!-- claims:end -->")[0]
    indexed = dict(re.findall(r"`([^`]+)` \(([a-z ]+?)(?:;[^)]*)?\)", block))
    assert indexed == ref
