"""results/claims.md holds no raw HTML and keeps its table shape whatever text a claim's cells hold (a meter id
such as ``<script>`` reaches the notes): checked with an independent reading of the Markdown table (GFM: a
backslash escapes the next character, an unescaped ``|`` ends a cell) and of HTML's tag starts."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.core.claims import Claim
from dpgrid.core.claims_table import claims_markdown

PIECES = [
    "<script>",
    "</script>",
    "<img src=x onerror=alert(1)>",
    "<!--",
    "<?php",
    "<http://x>",
    "&amp;",
    "&#60;",
    "&lt;",
    "|",
    "\\",
    "\\|",
    "\n",
    "\r\n",
    "a",
    " ",
    "<",
    ">",
    "&",
    "x < 1",
    "*",
    "_",
]
TEXT = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


def _cells(line):
    """A table row's cells as GFM splits them (a backslash escapes the next character)."""
    cells, cur, i = [], "", 0
    body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            cur += body[i : i + 2]
            i += 2
            continue
        if c == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    return [*cells, cur]


def _text_of(cell):
    """The cell's text as a reader sees it: escapes and character references resolved."""
    cell = re.sub(r"\\(.)", r"\1", cell.strip())
    return cell.replace("&lt;", "<").replace("&amp;", "&")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, TEXT), min_size=1, max_size=3))
def test_claims_markdown_has_no_raw_html_and_keeps_each_cell(rows):
    claims = [
        Claim(f"c{i}", "paper", "fig1", desc, value, "1", "", "not comparable", note or "n")
        for i, (desc, value, note) in enumerate(rows)
    ]
    md = claims_markdown(claims)
    table = [line for line in md.splitlines() if line.startswith("| c")]
    assert len(table) == len(claims)  # one line per claim: no newline leaks
    for line, claim in zip(table, claims):
        assert not re.search(r"<[A-Za-z/!?]", line), line  # no tag, comment, declaration or autolink starts
        assert not re.search(r"&(?!amp;|lt;)(?=#?[A-Za-z0-9]+;)", line), line  # only the escapes' own references
        cells = _cells(line)
        assert len(cells) == 8, (line, cells)
        want = [claim.description, claim.paper_value, claim.note]
        got = [_text_of(cells[2]), _text_of(cells[3]), _text_of(cells[7])]
        assert got == [" ".join(w.replace("\r", " ").replace("\n", " ").split(" ")).strip() for w in want]
