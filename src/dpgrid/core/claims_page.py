"""The claims table as a page of the reviewers' report (``results/report/claims.html``, rule ``claims_page``): one
self-contained page (no network), sortable by any column and filtered by paper, verdict and text, and the
captions of the claims entries (the CSV download and the page), which list the rows of the targets the report
does not show (privacy audits, checks of the mechanisms)."""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from dpgrid.core.claims import VERDICTS, Claim, read_claims
from dpgrid.core.io import write_text
from dpgrid.core.report_pages import VERDICT_COLOURS, claim_block_html, jinja_safe, rst_text, verdict_counts

#: the claims page's columns: the verdict early, so it shows without scrolling in the report's frame
PAGE_COLUMNS = (
    "paper",
    "target",
    "claim_id",
    "verdict",
    "paper_value",
    "reproduced_value",
    "tolerance",
    "description",
    "note",
)


_PAGE_SCRIPT = """
const rows = Array.from(document.querySelectorAll('#claims tbody tr'));
const shown = document.getElementById('shown');
function applyFilter() {
  const paper = document.getElementById('paper').value;
  const verdict = document.getElementById('verdict').value;
  const text = document.getElementById('text').value.toLowerCase();
  let n = 0;
  for (const r of rows) {
    const ok = (!paper || r.dataset.paper === paper) && (!verdict || r.dataset.verdict === verdict)
      && (!text || r.textContent.toLowerCase().includes(text));
    r.hidden = !ok;
    if (ok) n += 1;
  }
  shown.textContent = n;
}
let sortState = [-1, 1];
document.querySelectorAll('#claims th').forEach((th, col) => th.addEventListener('click', () => {
  sortState = [col, sortState[0] === col ? -sortState[1] : 1];
  const body = document.querySelector('#claims tbody');
  const key = r => r.children[col].textContent;
  const num = s => (s.trim() !== '' && !isNaN(Number(s))) ? Number(s) : null;
  rows.slice().sort((a, b) => {
    const x = key(a), y = key(b), nx = num(x), ny = num(y);
    const c = (nx !== null && ny !== null) ? nx - ny : x.localeCompare(y);
    return sortState[1] * c;
  }).forEach(r => body.appendChild(r));
}));
['paper', 'verdict', 'text'].forEach(id => document.getElementById(id).addEventListener('input', applyFilter));
applyFilter();
"""


def claims_html(claims: Sequence[Claim], columns: Sequence[str], source: str = "results/claims.csv") -> str:
    """The claims table ``source`` (the run's ``claims.csv``) as one self-contained HTML page: sortable columns,
    filters, a row counter."""
    esc = html.escape
    papers = sorted({c.paper for c in claims})
    opts = lambda values: "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    head = "".join(f'<th title="sort by {esc(c)}">{esc(c)}</th>' for c in columns)
    body = []
    for c in claims:
        colour = VERDICT_COLOURS.get(c.verdict, "#ffffff")
        cells = "".join(f"<td>{esc(str(getattr(c, col)))}</td>" for col in columns)
        body.append(
            f'<tr data-paper="{esc(c.paper)}" data-verdict="{esc(c.verdict)}" style="background:{colour}">{cells}</tr>'
        )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dpgrid claims table</title>
<style>
body {{ font-family: sans-serif; font-size: 12px; margin: 12px; color: #111; background: #fff; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ border: 1px solid #bbb; padding: 3px 5px; vertical-align: top; text-align: left; }}
th {{ background: #333; color: #fff; cursor: pointer; position: sticky; top: 0; }}
td {{ max-width: 30em; overflow-wrap: break-word; }}
td:nth-child(1), td:nth-child(4) {{ white-space: nowrap; }}
td:nth-child(3) {{ min-width: 14em; }} td:nth-child(8), td:nth-child(9) {{ min-width: 20em; }}
.filters {{ margin-bottom: 8px; }} .filters label {{ margin-right: 12px; }}
</style></head><body>
<h1>Claims table</h1>
<p>One row per claim or printed number of the four papers, from <code>{esc(source)}</code>
(<span id="shown">{len(claims)}</span> of <span id="total">{len(claims)}</span> rows shown). Click a column
header to sort; verdicts: {", ".join(esc(v) for v in VERDICTS)}.</p>
<div class="filters">
<label>paper <select id="paper"><option value="">all</option>{opts(papers)}</select></label>
<label>verdict <select id="verdict"><option value="">all</option>{opts(VERDICTS)}</select></label>
<label>text <input id="text" type="search" placeholder="claim id, description, note"></label>
</div>
<table id="claims"><thead><tr>{head}</tr></thead><tbody>
{chr(10).join(body)}
</tbody></table>
<script>{_PAGE_SCRIPT}</script>
</body></html>
"""


def claims_page_job(job: Any) -> None:
    """Rule body of ``claims_page`` (workflow/rules/report.smk): the claims page and the claims entries' captions
    (the page's lists the rows of the targets the report does not show, ``params.shown``)."""
    claims = read_claims(job.input.claims)
    source = str(job.input.claims)
    write_text(claims_html(claims, PAGE_COLUMNS, source), job.output.html)
    write_text(
        jinja_safe(claims_caption_rst(claims, CLAIMS_PAGES["csv"].format(claims=source))), job.output.csv_caption
    )
    shown = job.params.shown
    write_text(jinja_safe(claims_caption_rst(claims, CLAIMS_PAGES["html"], shown)), job.output.html_caption)


CLAIMS_PAGES = {
    "csv": "The claims table as CSV ({claims}; download it with the button).",
    "html": "The claims table as a page: click a column header to sort, filter by paper, verdict or text.",
}


def claims_caption_rst(claims: Sequence[Claim], what: str, shown: Mapping[str, Collection[str]] | None = None) -> str:
    """Caption of the claims table entries (CSV download, HTML page). With ``shown`` (``{paper: the targets the
    report shows}``), it also lists, one block each (:func:`claim_block_html`), the rows of every other target
    (audits, checks of a mechanism): so each row of the claims table is in some caption of the report."""
    text = (
        f"**Claims table.** {rst_text(what)} {len(claims)} rows ({verdict_counts(claims)}): each claim or printed "
        "number of the four papers with the paper's value, ours, the tolerance, the verdict and, for every row "
        "not reproduced, the reason. A *calibration target* is a printed number the stand-in data were built "
        "on: shown, never counted as reproduced; *calibration missed*: the run misses it beyond the printed precision.\n"
    )
    if shown is None:
        return text
    rows = [c for c in claims if c.target not in shown.get(c.paper, ())]
    if not rows:
        return text + "\nEvery row belongs to a figure or table of the report and is listed in its caption.\n"
    return (
        "\n".join(
            [
                text,
                f"Rows of no figure or table of the report ({len(rows)}: {verdict_counts(rows)}; privacy audits and checks "
                "of the mechanisms), each with its verdict, the paper's value against ours and, for a row not "
                "reproduced, why:",
                "",
                ".. raw:: html",
                "",
                *[f"   {claim_block_html(c)}" for c in rows],
            ]
        )
        + "\n"
    )
