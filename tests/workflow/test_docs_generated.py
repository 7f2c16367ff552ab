"""Every number and verdict word that README.md and ARTIFACT.md state outside their generated blocks and their code
is accounted for: a value checked here against the run's configuration or plan, or an entry of an allow-list
with its reason (a reference to a paper's figure or equation, a standard, a dataset's published facts, ...).
Results (claim verdicts, costs, times) may appear only inside the generated blocks; a hand-written sentence that
states one fails this test."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.helpers.repo import REPO
from tests.helpers.workflow_dag import plan

DOCS = ("README.md", "ARTIFACT.md")

#: (pattern, reason): spans of prose whose numbers are not results of the run
ALLOWED = [
    (
        r"(?:Figs?\.|Tables?|eqs?\.|Secs?\.|Algorithm|Lemma|Theorem|Definition|Proposition|A\.)\s*\(?"
        r"[\dIVX]+(?:\)?(?:\s*(?:,|-|and)\s*[\dIVX]+)*)+(?:\(b\))?",
        "a figure, table, equation or section of a paper, or a section of ARTIFACT.md",
    ),
    (r"IEEE 123-node|141-bus|123/141 bus", "the names of the two feeders of the dpkmeans paper"),
    (r"SHA-256|ISO 8601|UTF-8|YAML 1\.1|x86-64|Python >= 3\.11|Snakemake 9", "names of standards and versions"),
    (r"SLURM 22\.05|slurm-wlm 22\.05", "the SLURM release CI installs (.ci/check_slurm)"),
    (r"Yu 2016|Balcan 2017|Ni 2021", "the DP k-means baselines' papers"),
    (r"\(0, 1\)|epsilon < 1|of 1 or more", "the ranges the configuration's validation enforces (schema)"),
    (r"exit status [01]\b|header = line 1", "the exit codes and line numbering of dpgrid.data.validate"),
    (r"2 cores, 24 GiB|2-core machine", "the reference machine's hardware"),
    (
        r"370 (?:Portuguese )?clients(?:, 15-minute)?|one home, 1-minute",
        "published facts of the UCI datasets (their documentation)",
    ),
    (r"times 10 and 100|100x configurations", "the scale configurations config/scale10x.yaml, config/scale100x.yaml"),
]

VERDICT_WORDS = r"\b(?:reproduced|differs|not comparable|calibration target|calibration missed)\b"
#: sentences that define the verdicts (no verdict of a claim)
VERDICT_DEFINITIONS = [
    r"Each claim row carries the paper's value, ours, the tolerance and a verdict: \*\*reproduced\*\*,\s+"
    r"\*\*differs\*\* .*?\*\*not comparable\*\* .*?\*\*calibration target\*\* \(.*?\*\*calibration missed\*\* \(",
    r"Those rows carry the verdict\s+\*\*calibration target\*\* \(never counted as reproduced\)",
    r"only the rows the stand-in was calibrated on are marked calibration target",
    r"N of M claims reproduced",
    r"what is reproduced",
    r"each non-reproduced row with its reason",
    r"shown, never counted as reproduced",
    r"for every row that is not reproduced",
    r"claim verdict differs from the committed",
    r"A row is reproduced only against something the paper prints",
]


def prose(text: str) -> str:
    """The text a reader reads as sentences: without generated blocks, code blocks, inline code and link targets."""
    text = re.sub(r"<!-- (\w+):begin.*?<!-- \1:end -->", " ", text, flags=re.S)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text


def checked_values() -> list[tuple[str, str]]:
    """Spans whose numbers are the run's: the job counts of the plans and values of config/config.yaml."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    full = len(plan(REPO))
    quick = len(plan(REPO, configfiles=["config/quick.yaml"]))
    lo, hi = config["data"]["plausible_kw"]
    resample = config["data"]["resample"]
    steps = {e: config["data"]["experiments"][e]["step_minutes"] for e in ("classdp_forecast", "spdp")}
    quick_config = yaml.safe_load((REPO / "config" / "quick.yaml").read_text())
    replicates = [(c["replicates"]["data"], c["replicates"]["noise"]) for c in (config, quick_config)]
    spans = [
        (rf"\|\s*{quick}\s*\|\s*{full}\s*\|", "jobs of the quick and full plans"),
        (rf"\b{full} jobs in the full configuration \( ?\), {quick} in the quick one", "job counts of the plans"),
        (rf"full configuration is {full} jobs \( ?; the quick one {quick}\)", "job counts of the plans"),
        (rf"the quick configuration: {quick} jobs", "job count of the quick plan"),
        (rf"default {lo} \.\. {hi} kW", "data.plausible_kw"),
        *(
            (rf"{d} data x {n} noise replicates|{d} x {n} replicates", "config replicates (full, quick)")
            for d, n in replicates
        ),
        (rf"\({round(100 * resample['min_coverage'])} %\)", "data.resample.min_coverage"),
        (rf"\({resample['max_fill_intervals']}\) missing intervals", "data.resample.max_fill_intervals"),
        (
            rf"classdp {steps['classdp_forecast']} min, spdp {steps['spdp']} min",
            "data.experiments.*.step_minutes",
        ),
    ]
    return [(pattern.replace(" ", r"\s+"), reason) for pattern, reason in spans]  # a sentence may wrap


NUMBER = re.compile(r"(?<![\w.-])-?\d+(?:[.,]\d+)*(?![\w])")


def unaccounted_numbers(text: str, allowed: list[tuple[str, str]]) -> list[str]:
    covered = [m.span() for pattern, _ in allowed for m in re.finditer(pattern, text)]
    out = []
    for m in NUMBER.finditer(text):
        if not any(a <= m.start() and m.end() <= b for a, b in covered):
            out.append(f"{m.group(0)!r} in ...{' '.join(text[max(0, m.start() - 50) : m.end() + 30].split())}...")
    return out


def stray_verdicts(text: str) -> list[str]:
    patterns = [pattern.replace(" ", r"\s+") for pattern in VERDICT_DEFINITIONS]  # a sentence may wrap
    covered = [m.span() for pattern in patterns for m in re.finditer(pattern, text, flags=re.S)]
    return [
        " ".join(text[max(0, m.start() - 60) : m.end() + 30].split())
        for m in re.finditer(VERDICT_WORDS, text)
        if not any(a <= m.start() and m.end() <= b for a, b in covered)
    ]


@pytest.fixture(scope="module")
def allowed():
    return ALLOWED + checked_values()


@pytest.mark.parametrize("doc", DOCS)
def test_every_number_outside_generated_blocks_is_accounted_for(doc, allowed):
    assert unaccounted_numbers(prose((REPO / doc).read_text()), allowed) == []


@pytest.mark.parametrize("doc", DOCS)
def test_no_verdict_is_stated_outside_the_generated_blocks(doc):
    assert stray_verdicts(prose((REPO / doc).read_text())) == []


def test_a_hand_written_result_is_found(allowed):
    """The sentences this project's ARTIFACT.md used to state are found: a verdict, a measured cost, a job count
    that the plan contradicts."""
    assert stray_verdicts("classdp's proposed mechanism beats white noise; Table III differs from the paper.")
    assert unaccounted_numbers("full configuration about 6-7 min (376-389 s on an idle machine)", allowed)
    assert unaccounted_numbers("Disk: about 20 MB results/, peak memory 1.1 GB", allowed)
    full = len(plan(REPO))
    assert unaccounted_numbers(f"the full configuration is {full + 1} jobs ( ; the quick one 7)", allowed)
    # a generated block or code may state anything
    assert prose("<!-- claims:begin x -->\n1 reproduced\n<!-- claims:end -->\n`389 s`\n```\n1.1 GB\n```").split() == []
