"""The CI check of claim verdicts against the committed reference (dpgrid.core.claims_reference, each paper's
workflow/papers/<paper>/claims_reference.csv)."""

from __future__ import annotations

import re
import subprocess

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.core.artifact import embedded, read_verdicts
from dpgrid.core.claims import VERDICTS, Claim, write_claims
from dpgrid.core.claims_over_seeds import SEED_DEPENDENT
from dpgrid.core.claims_reference import (
    OTHER_MACHINE,
    PAPER_REFERENCE,
    ClaimsReferenceError,
    main,
    read_other_machine,
    read_reference,
    reference_files,
)
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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("claim_id,paper,target,verdict\na,p,t,reproduced\na,p,t,differs\n", "listed twice"),
        (
            f"claim_id,paper,target,verdict,{OTHER_MACHINE}\na,p,t,reproduced,reproduced\n",
            "repeats the verdict of claim",
        ),
        (
            f"claim_id,paper,target,verdict,{OTHER_MACHINE}\na,p,t,reproduced,maybe\n",
            r"unknown verdict\(s\) \['maybe'\]",
        ),
    ],
    ids=["duplicate ids", "a second verdict repeating the first", "an unknown second verdict"],
)
def test_a_reference_that_cannot_be_read_is_refused(tmp_path, text, message):
    bad = tmp_path / "ref.csv"
    bad.write_text(text)
    with pytest.raises(ClaimsReferenceError, match=message):
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
    (papers / "p" / PAPER_REFERENCE).write_text("claim_id,paper,target,verdict\na,p,t,reproduced\n")
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


def test_artifact_md_indexes_the_reference_claims_with_their_verdicts_over_seeds():
    """ARTIFACT.md's claims index lists the claims of the reference (one full run), each with its verdict over the
    replicates from the committed docs/claims_over_seeds.csv (the verdicts ARTIFACT.md reports)."""
    ref = read_reference(REFERENCE)
    assert set(ref.values()) <= set(VERDICTS)
    assert set(read_other_machine(REFERENCE).values()) <= set(VERDICTS)
    indexed = dict(re.findall(r"`([^`]+)` \(([a-z -]+?)(?:;[^)]*)?\)", embedded(REPO / "ARTIFACT.md", "claims")))
    over_seeds = read_verdicts(REPO / "docs" / "claims_over_seeds.csv")
    assert set(indexed) == set(ref) == set(over_seeds)
    assert indexed == over_seeds


def test_only_claims_that_seeds_do_not_decide_have_a_verdict_of_another_machine():
    """A second accepted verdict is only for a claim at the edge of its tolerance: over the replicates its verdict is
    seed-dependent (docs/claims_over_seeds.csv), so ARTIFACT.md, which reports that verdict, does not depend on the
    machine either. A pair on a claim that the seeds decide would hide a real change."""
    pairs = read_other_machine(REFERENCE)
    over_seeds = read_verdicts(REPO / "docs" / "claims_over_seeds.csv")
    assert pairs, "the reference names the claims seen with another verdict on another machine"
    assert {cid: over_seeds[cid] for cid in pairs} == dict.fromkeys(pairs, SEED_DEPENDENT)


two_verdicts = st.lists(st.sampled_from(VERDICTS), min_size=2, max_size=2, unique=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(two_verdicts, st.booleans(), st.sampled_from([0, 1, None])), min_size=1, max_size=6),
)
def test_a_claim_with_a_verdict_of_another_machine_accepts_either_and_update_keeps_the_pair(tmp_path, rows):
    """Per claim: a reference verdict, maybe a second one (column verdict_other_machine), and the run's verdict
    (the first, the second, or a third). The check passes exactly when every run verdict is an accepted one, and
    an update from a passing run keeps each pair, with the run's verdict first."""
    ref = tmp_path / "reference.csv"
    lines = ["claim_id,paper,target,verdict,verdict_other_machine"]
    claims = []
    accepted = True
    for i, ((first, second), paired, pick) in enumerate(rows):
        lines.append(f"c{i},p,fig1,{first},{second if paired else ''}")
        if pick is None:
            ran = next(v for v in VERDICTS if v not in (first, second))
        else:
            ran = (first, second)[pick]
        accepted &= ran == first or (paired and ran == second)
        claims.append(claim(f"c{i}", ran))
    ref.write_text("\n".join(lines) + "\n")
    path = tmp_path / "claims.csv"
    write_claims(claims, path)
    assert (main(["check", str(path), str(ref)]) == 0) == accepted
    if accepted:
        assert main(["update", str(path), str(ref)]) == 0
        assert read_reference(ref) == {c.claim_id: c.verdict for c in claims}
        pairs = {f"c{i}": set(pair) for i, (pair, paired, _) in enumerate(rows) if paired}
        assert {
            cid: {v, read_other_machine(ref)[cid]} for cid, v in read_reference(ref).items() if cid in pairs
        } == pairs
        assert main(["check", str(path), str(ref)]) == 0
