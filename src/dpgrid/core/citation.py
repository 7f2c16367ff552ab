"""The papers' references in CITATION.cff and README.md's table of papers, generated from the papers' descriptors
(:class:`dpgrid.core.papers.PaperDescriptor` ``reference`` and ``reproduces``), so that adding a paper edits neither.

    python -m dpgrid.core.citation write CITATION.cff README.md    # rewrite both
    python -m dpgrid.core.citation check CITATION.cff README.md    # exit 1 when either is not current
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from dpgrid.core.artifact import embed_text, embedded, with_trailing_section
from dpgrid.core.io import atomic_path
from dpgrid.core.papers import PaperDescriptor, paper_descriptors

#: the README block of the table of papers (dpgrid.core.artifact's markers)
README_BLOCK = "papers"
#: authors a README row names before "et al."
README_AUTHORS = 5
#: the optional fields of a reference, in the order CITATION.cff lists them (after type, title, notes)
_OPTIONAL = ("journal", "volume", "issue", "year", "doi")


class CitationError(ValueError):
    """A paper without a reference (a CITATION.cff without its references section at the end: ArtifactError)."""


def _reference(d: PaperDescriptor) -> dict:
    ref = dict(d.reference)
    if not ref.get("title") or not ref.get("authors"):
        raise CitationError(f"dpgrid.papers.{d.name}.descriptor: DESCRIPTOR.reference needs a title and authors")
    return ref


def references_yaml(papers: Sequence[PaperDescriptor] | None = None) -> str:
    """CITATION.cff's ``references:`` section, one article per paper in the papers' order."""
    lines = ["references:"]
    for d in papers if papers is not None else paper_descriptors():
        ref = _reference(d)
        lines += [
            "  - type: article",
            f"    title: {json.dumps(ref['title'])}",
            f"    notes: {json.dumps(f'dpgrid short name: {d.name}')}",
        ]
        lines += [f"    {key}: {ref[key]}" for key in _OPTIONAL if key in ref]
        lines.append("    authors:")
        for family, given in ref["authors"]:
            lines += [f"      - family-names: {family}", f"        given-names: {given}"]
    return "\n".join(lines) + "\n"


def papers_table(papers: Sequence[PaperDescriptor] | None = None) -> str:
    """README.md's table of papers: short name, authors (the first five, then "et al.") and title, what is
    reproduced."""
    rows = ["| short name | paper | what is reproduced |", "|---|---|---|"]
    for d in papers if papers is not None else paper_descriptors():
        ref = _reference(d)
        families = [family for family, _ in ref["authors"]]
        authors = ", ".join(families[:README_AUTHORS]) + (" et al." if len(families) > README_AUTHORS else "")
        rows.append(f"| `{d.name}` | {authors}: *{ref['title']}* | {d.reproduces} |")
    return "\n".join(rows) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpgrid.core.citation", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["write", "check"])
    parser.add_argument("citation", type=Path, help="CITATION.cff")
    parser.add_argument("readme", type=Path, help="README.md (with the papers block's marker lines)")
    args = parser.parse_args(argv)
    cff = with_trailing_section(args.citation, "references", references_yaml())
    table = papers_table()
    if args.command == "write":
        with atomic_path(args.citation) as tmp:
            tmp.write_text(cff, encoding="utf-8")
        embed_text(README_BLOCK, table, args.readme)
        return 0
    stale = [str(args.citation)] if cff != args.citation.read_text(encoding="utf-8") else []
    stale += [str(args.readme)] if embedded(args.readme, README_BLOCK) != table else []
    if stale:
        print(f"not current: {', '.join(stale)}; run `python -m dpgrid.core.citation write ...`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
