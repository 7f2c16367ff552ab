"""Generated parts of ARTIFACT.md: the claims-by-target index and the embedding of tables.

* :func:`claims_index` lists, for every figure/table target of every paper, the exact command that
  regenerates it and the claims-table rows it feeds (rule ``claims_index`` writes it to
  ``results/claims_index.md`` from ``results/claims.csv`` and the workflow's target registry).
* :func:`embed_markdown` copies a generated Markdown file into a document between the lines
  ``<!-- <block>:begin ... -->`` and ``<!-- <block>:end -->``, so ARTIFACT.md shows generated
  tables (claims index, measured costs from :mod:`dpgrid.core.costs`) without anyone typing them::

      python -m dpgrid.core.artifact embed claims results/claims_index.md ARTIFACT.md
      python -m dpgrid.core.artifact embed costs benchmarks/costs.md ARTIFACT.md
      python -m dpgrid.core.artifact check claims results/claims_index.md ARTIFACT.md   # exit 1 if stale

  ``--demote N`` lowers every Markdown heading of the source by N levels (a file's ``# Title`` becomes a section
  of the document), e.g. the claims table over seeds inside ARTIFACT.md A.4::

      python -m dpgrid.core.artifact embed claims_over_seeds docs/claims_over_seeds.md ARTIFACT.md --demote 3

  ``--verdicts CSV`` replaces each claim's verdict in a claims index by its verdict in the table ``CSV`` (columns
  ``claim_id`` and ``verdict``) and recounts each paper's heading (:func:`index_with_verdicts`): ARTIFACT.md's
  index shows the verdicts over the replicates (docs/claims_over_seeds.csv), not one draw's::

      python -m dpgrid.core.artifact embed claims results/claims_index.md ARTIFACT.md \\
          --verdicts docs/claims_over_seeds.csv
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from dpgrid.core.claims import SEED_DEPENDENT, VERDICTS, Claim, read_claims
from dpgrid.core.io import atomic_path, write_text
from dpgrid.core.rebuild import NO_OPTIONS, RunOptions, rebuild_command, results_folder


class ArtifactError(ValueError):
    """A document without the marker lines of a block, or a claim of an unknown paper."""


def begin_mark(block: str) -> str:
    return f"<!-- {block}:begin (generated: python -m dpgrid.core.artifact embed {block} ...; do not edit by hand) -->"


def end_mark(block: str) -> str:
    return f"<!-- {block}:end -->"


def _split(doc: str, block: str, where: str) -> tuple[str, str, str]:
    begin, end = begin_mark(block), end_mark(block)
    if doc.count(begin) != 1 or doc.count(end) != 1 or doc.index(begin) > doc.index(end):
        raise ArtifactError(f"{where}: needs exactly one line {begin!r} followed by one line {end!r}")
    head, rest = doc.split(begin)
    body, tail = rest.split(end)
    return head, body, tail


def embedded(document: str | os.PathLike, block: str) -> str:
    """The text currently between the markers of ``block`` in ``document`` (without the markers)."""
    _, body, _ = _split(Path(document).read_text(encoding="utf-8"), block, str(document))
    return body.strip("\n") + "\n"


def demoted(text: str, levels: int) -> str:
    """``text`` with every ATX heading line (``#`` to ``######`` then a space) ``levels`` levels lower, at most
    level 6; other lines unchanged."""
    if levels < 0:
        raise ArtifactError(f"--demote must be 0 or more, not {levels}")

    def lower(match: re.Match) -> str:
        return "#" * min(6, len(match.group(1)) + levels) + " "

    return re.sub(r"^(#{1,6}) ", lower, text, flags=re.M)


def embed_markdown(block: str, source: str | os.PathLike, document: str | os.PathLike, demote: int = 0) -> None:
    """Replace the text between the markers of ``block`` in ``document`` by the file ``source`` (its headings
    ``demote`` levels lower)."""
    embed_text(block, demoted(Path(source).read_text(encoding="utf-8"), demote), document)


def embed_text(block: str, text: str, document: str | os.PathLike) -> None:
    """Replace the text between the markers of ``block`` in ``document`` by ``text``."""
    doc = Path(document).read_text(encoding="utf-8")
    head, _, tail = _split(doc, block, str(document))
    body = text.strip("\n")
    with atomic_path(document) as tmp:
        tmp.write_text(f"{head}{begin_mark(block)}\n{body}\n{end_mark(block)}{tail}", encoding="utf-8")


def with_trailing_section(document: str | os.PathLike, key: str, section: str) -> str:
    """The text of ``document`` (YAML) with its last top-level section, the line ``key:`` and the indented lines
    after it to the end of the file, replaced by ``section``; ArtifactError unless there is exactly one such line
    and only indented or empty lines follow it."""
    lines = Path(document).read_text(encoding="utf-8").splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip() == f"{key}:"]
    if len(starts) != 1 or any(not line.startswith((" ", "\n")) for line in lines[starts[0] + 1 :]):
        raise ArtifactError(f"{document}: expected one {key}: section, at the end of the file")
    return "".join(lines[: starts[0]]) + section


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


#: a claim in a row of :func:`claims_index`: its id, its verdict, and what follows the verdict in the parentheses
_INDEXED_CLAIM = re.compile(r"`([^`]+)` \(([a-z -]+?)((?:; [^)]*)?)\)")
#: a paper's heading in :func:`claims_index`
_PAPER_HEADING = re.compile(r"^#### (\S+) \((\d+) claims(?:: [^)]*)?\)$", re.M)
#: the verdicts a paper's heading counts, in this order: a claims table's, and over seeds ``seed-dependent``
_COUNTED = (*VERDICTS[:2], SEED_DEPENDENT, *VERDICTS[2:])
#: the verdicts whose count a heading shows even when it is 0
_ALWAYS_COUNTED = ("reproduced", "differs", "not comparable")


def _paper_heading(paper: str, verdicts: Sequence[str]) -> str:
    unknown = sorted(set(verdicts) - set(_COUNTED))
    if unknown:
        raise ArtifactError(f"paper {paper}: unknown verdict(s) {unknown}")
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in _COUNTED if verdicts.count(v) or v in _ALWAYS_COUNTED)
    return f"#### {paper} ({len(verdicts)} claims: {counts})"


def index_with_verdicts(index: str, verdicts: Mapping[str, str], source: str = "the verdicts") -> str:
    """The claims index ``index`` (the text of :func:`claims_index`) with every claim's verdict replaced by
    ``verdicts[claim_id]`` and every paper's heading counting the new verdicts ("verdicts over seeds" when they
    come from docs/claims_over_seeds.csv). ArtifactError if ``verdicts`` lacks a claim of the index."""
    missing = sorted({cid for cid, _, _ in _INDEXED_CLAIM.findall(index)} - set(verdicts))
    if missing:
        raise ArtifactError(f"{source}: no verdict for claim(s) {missing} of the claims index")
    out = []
    parts = _PAPER_HEADING.split(index)  # text before the first heading, then (paper, count, section text) triples
    out.append(parts[0])
    for paper, count, section in zip(parts[1::3], parts[2::3], parts[3::3], strict=True):
        section = _INDEXED_CLAIM.sub(lambda m: f"`{m.group(1)}` ({verdicts[m.group(1)]}{m.group(3)})", section)
        found = [verdicts[cid] for cid, _, _ in _INDEXED_CLAIM.findall(section)]
        if len(found) != int(count):
            raise ArtifactError(f"{source}: paper {paper}'s heading counts {count} claims, its rows {len(found)}")
        out.append(_paper_heading(paper, found) + section)
    return "".join(out)


def read_verdicts(path: str | os.PathLike) -> dict[str, str]:
    """claim_id -> verdict of a table with those two columns (a claims table, or one over seeds)."""
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in ("claim_id", "verdict") if c not in table.columns]
    if missing:
        raise ArtifactError(f"{path}: missing columns {missing}")
    return dict(zip(table["claim_id"], table["verdict"]))


def claims_index(
    claims: Sequence[Claim],
    targets: Mapping[str, Mapping[str, Sequence[str]]],
    cores: int = 2,
    run: RunOptions = NO_OPTIONS,
    downloads: Mapping[str, Sequence[str]] | None = None,
    results: str = "results/",
) -> str:
    """Markdown: per paper, each target, the command that rebuilds it, and the claim rows it feeds.

    The commands carry the run's config files and overrides (``run``) and, for the targets of ``downloads``
    (``{paper: [target names]}``: those that depend on a downloaded file; a paper's claims file when any of its
    targets does), its mirror (:func:`dpgrid.core.rebuild.rebuild_command`).

    ``targets[paper][name]`` are the files of a named target (the workflow's registry); a claim
    feeds the target named in its ``target`` field. Claims naming no registered target are listed
    under the paper's claims file, ``<results><paper>/claims.csv`` (``results``: the run's results folder,
    ``results/`` or ``results/<run name>/``, :func:`dpgrid.core.config.run_folder`).
    """
    unknown = sorted({c.paper for c in claims} - set(targets))
    if unknown:
        raise ArtifactError(f"claims of paper(s) {unknown} but no targets registered for them")
    lines = []
    for paper, named in targets.items():
        rows = [c for c in claims if c.paper == paper]
        lines += [
            _paper_heading(paper, [c.verdict for c in rows]),
            "",
            "| target | command | claims-table rows (verdict) |",
            "|---|---|---|",
        ]
        for name, files in named.items():
            fed = [c for c in rows if c.target == name]
            ids = "<br>".join(f"`{c.claim_id}` ({c.verdict})" for c in fed) or "-"
            command = rebuild_command(files, run, name in (downloads or {}).get(paper, ()), cores)
            lines.append(f"| {_md(name)} | `{command}` | {ids} |")
        other = [c for c in rows if c.target not in named]
        if other:
            ids = "<br>".join(f"`{c.claim_id}` ({c.verdict}; target {_md(c.target)})" for c in other)
            claims_file = f"{results}{paper}/claims.csv"
            command = rebuild_command([claims_file], run, bool((downloads or {}).get(paper)), cores)
            lines.append(f"| (claims file) | `{command}` | {ids} |")
        lines.append("")
    return "\n".join(lines)


def claims_index_job(smk) -> None:
    """Rule body of ``claims_index`` (workflow/rules/report.smk)."""
    claims = read_claims(smk.input.claims)
    run = RunOptions.from_params(getattr(smk.params, "run", None))
    downloads = getattr(smk.params, "downloads", None)
    results = results_folder(smk.input.claims)
    write_text(claims_index(claims, smk.params.targets, run=run, downloads=downloads, results=results), smk.output.md)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dpgrid.core.artifact",
        description="Embed generated Markdown into ARTIFACT.md, or check it is current.",
    )
    parser.add_argument("command", choices=["embed", "check"])
    parser.add_argument("block", help="marker name, e.g. claims or costs")
    parser.add_argument("source", help="generated Markdown file")
    parser.add_argument("document", help="document with the block's marker lines, e.g. ARTIFACT.md")
    parser.add_argument("--demote", type=int, default=0, help="lower the source's headings by this many levels")
    parser.add_argument(
        "--verdicts", help="a claims index as source: show each claim's verdict from this CSV (claim_id, verdict)"
    )
    args = parser.parse_args(argv)
    try:
        text = Path(args.source).read_text(encoding="utf-8")
        if args.verdicts:
            text = index_with_verdicts(text, read_verdicts(args.verdicts), args.verdicts)
        generated = demoted(text, args.demote)
        if args.command == "embed":
            embed_text(args.block, generated, args.document)
            return 0
        current = embedded(args.document, args.block)
    except (ArtifactError, OSError) as exc:
        print(f"artifact: {exc}", file=sys.stderr)
        return 2
    if current != generated.strip("\n") + "\n":
        demote = f" --demote {args.demote}" if args.demote else ""
        demote += f" --verdicts {args.verdicts}" if args.verdicts else ""
        print(
            f"{args.document}: block {args.block!r} differs from {args.source}; run "
            f"`python -m dpgrid.core.artifact embed {args.block} {args.source} {args.document}{demote}`",
            file=sys.stderr,
        )
        return 1
    print(f"{args.document}: block {args.block!r} is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
