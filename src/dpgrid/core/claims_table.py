"""The collected claims table: every paper's ``results/<paper>/claims.csv`` merged into ``results/claims.csv`` and
rendered as ``results/claims.md`` (per paper, a summary line and one Markdown row per claim; the rows of
:mod:`dpgrid.core.claims`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from dpgrid.core.claims import VERDICTS, Claim, read_claims, write_claims
from dpgrid.core.io import write_text


def summarise(claims: Sequence[Claim]) -> str:
    n = len(claims)
    counts = {v: sum(c.verdict == v for c in claims) for v in VERDICTS}
    cal = f", {counts['calibration target']} calibration targets" if counts["calibration target"] else ""
    if counts["calibration missed"]:
        cal += f", {counts['calibration missed']} calibration missed"
    return (
        f"{counts['reproduced']} of {n} claims reproduced, {counts['differs']} differ, "
        f"{counts['not comparable']} not comparable{cal}."
    )


#: Texts that Markdown renderers pass through as HTML: the start of a tag, comment, declaration or processing
#: instruction (also of an autolink), and a character reference.
_HTML_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_HTML_REFERENCE = re.compile(r"&(?=#?[A-Za-z0-9]+;)")


def md_escape(text: str) -> str:
    """A table cell of results/claims.md: one line, no raw HTML (``<script>`` is written ``&lt;script>``, a
    character reference ``&amp;...;``), every backslash literal (``\\\\``) and every ``|`` escaped (``\\|``), so the
    cell neither ends early nor loses a character."""
    text = str(text).replace("\n", " ").replace("\r", " ")
    text = _HTML_REFERENCE.sub("&amp;", text)
    text = _HTML_TAG_START.sub("&lt;", text)
    return text.replace("\\", "\\\\").replace("|", "\\|")


def claims_markdown(claims: Sequence[Claim]) -> str:
    lines = ["# Claims table", "", summarise(claims), ""]
    papers = list(dict.fromkeys(c.paper for c in claims))
    for paper in papers:
        rows = [c for c in claims if c.paper == paper]
        lines += [
            f"## {paper}",
            "",
            summarise(rows),
            "",
            "| id | target | claim | paper | reproduced | tolerance | verdict | note |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for c in rows:
            lines.append(
                "| "
                + " | ".join(
                    md_escape(x)
                    for x in (
                        c.claim_id,
                        c.target,
                        c.description,
                        c.paper_value,
                        c.reproduced_value,
                        c.tolerance,
                        f"**{c.verdict}**",
                        c.note,
                    )
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)


def collect_claims(inputs: Iterable[str | os.PathLike], csv_out: str | os.PathLike, md_out: str | os.PathLike) -> str:
    """Merge per-paper claims CSVs into one CSV and one Markdown table; return the summary line."""
    claims: list[Claim] = []
    for p in inputs:
        claims.extend(read_claims(p))
    write_claims(claims, csv_out)
    write_text(claims_markdown(claims), md_out)
    return summarise(claims)
