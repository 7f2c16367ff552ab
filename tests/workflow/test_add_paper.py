"""Adding a paper touches only its own folders and the config (docs/DEVELOPING.md, "How to add a paper").

A fixture paper ``toydp`` (one mechanism, one table, one figure, one claim) is written into a copy of the
workflow: its package ``src/dpgrid/papers/toydp/``, its folder ``workflow/papers/toydp/`` (rules, schema, caption
texts, scripts) and a config overlay with its section. No framework file is edited. The DAG of ``all`` then
has the paper's jobs, its claims CSV goes into the claims table, its targets get captions, and its own targets
build and give the claim its verdict.
"""

from __future__ import annotations

import csv
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dpgrid.core.claims_reference import main as claims_reference_main
from dpgrid.core.claims_reference import read_reference, reference_files
from tests.helpers.repo import copy_workflow, snakemake_env

pytestmark = pytest.mark.filterwarnings("ignore")

PACKAGE = {
    "__init__.py": '"""toydp: a fixture paper (tests/workflow/test_add_paper.py)."""\n',
    "paper.py": '''
        """Numbers the fixture paper prints."""

        PAPER = "toydp"
        #: sigma of its Gaussian release at (eps, delta) = (0.5, 1e-5), sensitivity 1 (the classical calibration)
        PRINTED_SIGMA = 9.69
        ''',
    "descriptor.py": """
        from dpgrid.core.papers import PaperDescriptor
        from dpgrid.papers.toydp.paper import PAPER


        def _check_config(config):
            n = config.get(PAPER, {}).get("n")
            return [] if n is None or n >= 10 else [f"toydp.n = {n} must be at least 10"]


        DESCRIPTOR = PaperDescriptor(
            name=PAPER,
            order=99,
            title="toydp (fixture paper)",
            experiments={"toydp": "toydp (fixture)"},
            check_config=_check_config,
        )
        """,
    "jobs.py": """
        import numpy as np
        import pandas as pd

        from dpgrid.core.io import write_table
        from dpgrid.core.seeds import job_rng
        from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
        from dpgrid.papers.toydp.paper import PAPER


        def release_job(job) -> None:
            p = job.params
            mech = TrajectoryGaussianMechanism(1.0, p.epsilon, p.delta, calibration="classical")
            noisy = mech.release(np.zeros(p.n), job_rng(p.seed, PAPER, "release"))
            write_table(pd.DataFrame({"sigma": mech.sigma, "released": noisy}), job.output.table)
        """,
    "privacy_audit.py": """
        import numpy as np
        import pandas as pd

        from dpgrid.core.io import write_table
        from dpgrid.core.seeds import job_rng
        from dpgrid.mechanisms.trajectory_gaussian import TrajectoryGaussianMechanism
        from dpgrid.papers.toydp.paper import PAPER
        from dpgrid.privacy import blackbox_audit as ba


        def privacy_audit_job(job) -> None:
            # the release's own code as the sampler; neighbours: inputs at L2 distance 1 (the claim's relation),
            # every coordinate direction searched (brute force)
            p = job.params
            mech = TrajectoryGaussianMechanism(1.0, p.epsilon, p.delta, calibration="classical")
            rng = job_rng(p.seed, PAPER, "privacy_audit")
            d = np.zeros(p.n)
            cands = [
                ba.Candidate(f"0 vs e_{i}", lambda r, m: np.stack([mech.release(d, r) for _ in range(m)]),
                             lambda r, m, i=i: np.stack([mech.release(np.eye(p.n)[i], r) for _ in range(m)]),
                             shift=-np.eye(p.n)[i])
                for i in range(3)
            ]
            res = ba.search_and_audit(cands, p.epsilon, pilot_samples=200, samples=int(p.audit["samples"]),
                                      level=p.level, rng=rng, fitted=("fisher",), gaussian=True)
            row = ba.audit_row(paper=PAPER, mechanism="gaussian", setting=f"n = {p.n}", epsilon=p.epsilon,
                               claimed_delta=p.delta, result=res, level=p.level)
            write_table(pd.DataFrame([row], columns=list(ba.AUDIT_COLUMNS)), job.output.table)
        """,
    "figures.py": """
        import pandas as pd

        from dpgrid.figures.layout import data_statement
        from dpgrid.figures.style import draw_figure, figure


        def fig1(inp, params):
            fig, ax = figure()
            released = pd.read_csv(inp.table)["released"]
            ax.hist(released, bins=10)
            data_statement(fig, f"Data: {len(released)} released values of the new paper's mechanism.")
            return fig


        FIGURES = {"fig1": fig1}


        def figure_job(job) -> None:
            draw_figure(FIGURES, job)
        """,
    "claims.py": """
        import pandas as pd

        from dpgrid.core.claims import Claim, fmt, write_claims
        from dpgrid.papers.toydp.paper import PAPER, PRINTED_SIGMA


        def claims_job(job) -> None:
            sigma = float(pd.read_csv(job.input.table)["sigma"].iloc[0])
            ok = abs(sigma - PRINTED_SIGMA) <= 0.01
            write_claims(
                [
                    Claim(
                        "toydp-sigma", PAPER, "table", "sigma of the release", fmt(PRINTED_SIGMA), fmt(sigma),
                        "abs 0.01", "reproduced" if ok else "differs", "" if ok else "sigma differs",
                    )
                ],
                job.output.claims,
            )
        """,
}

RULES = """
    register_targets("toydp", {"fig1": figure_files(f"{RESULTS}toydp/fig1"), "table": f"{RESULTS}toydp/release.csv"})
    register_claims(f"{RESULTS}toydp/claims.csv")


    rule toydp_release:
        output:
            table=report_entry(f"{RESULTS}toydp/release.csv", "toydp", "table"),
        params:
            epsilon=config["toydp"]["epsilon"],
            delta=config["toydp"]["delta"],
            n=config["toydp"]["n"],
            seed=config["seed"],
        log:
            f"{LOGS}toydp/release.log",
        benchmark:
            f"{BENCHMARKS}toydp_release/toydp_release.tsv"
        threads: 1
        resources:
            mem_mb=250,
            runtime=1,
        script:
            "scripts/release.py"


    rule toydp_figure:
        input:
            table=f"{RESULTS}toydp/release.csv",
        output:
            pdf=f"{RESULTS}toydp/{{fig}}.pdf",
            png=report_entry(f"{RESULTS}toydp/{{fig}}.png", "toydp", "{fig}", "png"),
        wildcard_constraints:
            fig="fig1",
        log:
            f"{LOGS}toydp/{{fig}}.log",
        benchmark:
            f"{BENCHMARKS}toydp_figure/{{fig}}.tsv"
        threads: 1
        resources:
            mem_mb=250,
            runtime=1,
        script:
            "scripts/figure.py"


    register_benchmarks(rules.toydp_figure, {"fig": "fig1"})


    rule toydp_privacy_audit:
        output:
            table=f"{RESULTS}toydp/privacy_audit.csv",
        params:
            epsilon=config["toydp"]["epsilon"],
            delta=config["toydp"]["delta"],
            n=config["toydp"]["n"],
            audit=config["privacy_audits"]["toydp"],
            level=config["privacy_audits"]["level"],
            seed=config["seed"],
        log:
            f"{LOGS}toydp/privacy_audit.log",
        benchmark:
            f"{BENCHMARKS}toydp_privacy_audit/toydp_privacy_audit.tsv"
        threads: 1
        resources:
            mem_mb=250,
            runtime=1,
        script:
            "scripts/privacy_audit.py"


    register_privacy_audit(f"{RESULTS}toydp/privacy_audit.csv")


    rule toydp_claims:
        input:
            table=f"{RESULTS}toydp/release.csv",
        output:
            claims=f"{RESULTS}toydp/claims.csv",
        log:
            f"{LOGS}toydp/claims.log",
        benchmark:
            f"{BENCHMARKS}toydp_claims/toydp_claims.tsv"
        threads: 1
        resources:
            mem_mb=250,
            runtime=1,
        script:
            "scripts/claims.py"
    """

SCRIPTS = {
    "release.py": "from dpgrid.core.pipeline import run_script\nfrom dpgrid.papers.toydp import jobs\n\n"
    "run_script(snakemake, jobs.release_job)  # noqa: F821\n",
    "figure.py": "from dpgrid.core.pipeline import run_script\nfrom dpgrid.papers.toydp import figures\n\n"
    "run_script(snakemake, figures.figure_job)  # noqa: F821\n",
    "privacy_audit.py": "from dpgrid.core.pipeline import run_script\nfrom dpgrid.papers.toydp import privacy_audit\n\n"
    "run_script(snakemake, privacy_audit.privacy_audit_job)  # noqa: F821\n",
    "claims.py": "from dpgrid.core.pipeline import run_script\nfrom dpgrid.papers.toydp import claims\n\n"
    "run_script(snakemake, claims.claims_job)  # noqa: F821\n",
}

SCHEMA = """
    $schema: "https://json-schema.org/draft/2020-12/schema"
    description: The fixture paper toydp.
    type: object
    additionalProperties: false
    required: [targets, epsilon, delta, n]
    properties:
      targets: {type: array, items: {type: string}}
      epsilon: {$ref: defs.schema.yaml#/$defs/epsilon}
      delta: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}
      n: {type: integer, minimum: 1}
    """

TEXTS = """
    title: "toydp: a fixture paper"
    data: no meter data
    targets:
      fig1: {shows: "Fig. 1: the released values."}
      table: {shows: "The released values and sigma.", params: [epsilon, delta]}
    """

OVERLAY = (
    "toydp:\n  targets: [fig1, table]\n  epsilon: 0.5\n  delta: 1.0e-5\n  n: {n}\n"
    "privacy_audits:\n  toydp: {{samples: 4000}}\n"
)


def _add_toy_paper(wd: Path) -> None:
    pkg = wd / "src" / "dpgrid" / "papers" / "toydp"
    pkg.mkdir()
    for name, text in PACKAGE.items():
        (pkg / name).write_text(textwrap.dedent(text).lstrip())
    folder = wd / "workflow" / "papers" / "toydp"
    (folder / "scripts").mkdir(parents=True)
    (folder / "toydp.smk").write_text(textwrap.dedent(RULES).lstrip())
    (folder / "toydp.schema.yaml").write_text(textwrap.dedent(SCHEMA).lstrip())
    (folder / "targets.yaml").write_text(textwrap.dedent(TEXTS).lstrip())
    for name, text in SCRIPTS.items():
        (folder / "scripts" / name).write_text(text)


def _snakemake(wd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=wd,
        capture_output=True,
        text=True,
        env=snakemake_env(PYTHONPATH=str(wd / "src"), MPLBACKEND="Agg"),
        timeout=600,
    )


@pytest.fixture(scope="module")
def toy_workflow(tmp_path_factory) -> Path:
    wd = copy_workflow(tmp_path_factory.mktemp("add_paper") / "wf")
    _add_toy_paper(wd)
    (wd / "toy.yaml").write_text(OVERLAY.format(n=100))
    return wd


def test_the_dag_of_all_has_the_new_papers_jobs(toy_workflow):
    proc = _snakemake(toy_workflow, "-n", "--forceall", "--configfile", "config/quick.yaml", "toy.yaml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    for rule in ("toydp_release", "toydp_figure", "toydp_claims", "toydp_report_captions", "toydp_privacy_audit"):
        assert rule in out, f"{rule} not planned"
    # no target of `all` is the paper's claims CSV: toydp_claims is planned because the claims table reads it


def test_the_new_papers_targets_build_and_its_claim_gets_a_verdict(toy_workflow):
    targets = [
        "results/quick/toydp/fig1.pdf",
        "results/quick/toydp/fig1.png",
        "results/quick/toydp/claims.csv",
        "results/quick/toydp/privacy_audit.csv",
    ]
    proc = _snakemake(toy_workflow, *targets, "--cores", "1", "--configfile", "config/quick.yaml", "toy.yaml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = list(csv.DictReader((toy_workflow / "results/quick/toydp/claims.csv").open()))
    assert [(r["claim_id"], r["verdict"]) for r in rows] == [("toydp-sigma", "reproduced")]
    assert (toy_workflow / "results/quick/toydp/fig1.png").stat().st_size > 1000
    released = list(csv.DictReader((toy_workflow / "results/quick/toydp/release.csv").open()))
    assert len(released) == 100
    audit = list(csv.DictReader((toy_workflow / "results/quick/toydp/privacy_audit.csv").open()))
    assert [(r["paper"], r["verdict"]) for r in audit] == [("toydp", "holds")]
    # its pinned verdicts go into its own folder (docs/DEVELOPING.md step 6), beside the other papers'
    papers = toy_workflow / "workflow" / "papers"
    before = {f: f.read_bytes() for f in reference_files(papers)}
    assert claims_reference_main(["update", str(toy_workflow / "results/quick/toydp/claims.csv"), str(papers)]) == 0
    assert set(reference_files(papers)) - set(before) == {papers / "toydp" / "claims_reference.csv"}
    assert all(f.read_bytes() == text for f, text in before.items())
    assert read_reference(papers)["toydp-sigma"] == "reproduced"


def test_the_new_papers_schema_and_checks_are_applied(toy_workflow):
    """Its section is validated (schema from its folder, cross-field check from its descriptor) before any job."""
    (toy_workflow / "bad.yaml").write_text(OVERLAY.format(n=5))
    proc = _snakemake(toy_workflow, "-n", "--configfile", "config/quick.yaml", "bad.yaml")
    assert proc.returncode != 0
    assert "toydp.n = 5 must be at least 10" in proc.stdout + proc.stderr
    (toy_workflow / "bad.yaml").write_text(OVERLAY.format(n=100) + "  unknown_key: 1\n")
    proc = _snakemake(toy_workflow, "-n", "--configfile", "config/quick.yaml", "bad.yaml")
    assert proc.returncode != 0
    assert "unknown_key" in proc.stdout + proc.stderr
