"""What `snakemake --report` shows a reviewer: captions, the claims summary, the claims table as a web page.

Rules ``<paper>_report_captions``, ``report_summary`` and ``claims_page`` (workflow/rules/report.smk) run
:func:`captions_job`, :func:`summary_job` and :func:`claims_page_job` after the claims table. They read
``results/claims.csv`` (never recompute a number) and write

* one caption per result file of every registered target (``results/report/captions/<file>.rst``, RST):
  which paper figure/table it reproduces (``workflow/papers/<paper>/targets.yaml``), the data and the parameter
  values it was made with, the command that rebuilds it, and one block per claims-table row it feeds (claim,
  verdict, the paper's value against ours, the note), which wraps inside the report's caption panel. Each
  ``report(...)`` flag of the rules files points at its file's caption (``report_entry`` in
  workflow/rules/common.smk), under its paper's category (:func:`category_titles`, numbered in the papers'
  order) and its menu name (:func:`subcategory_titles`: ``"04 · Fig. 4 — <what it shows>"``);
* ``results/report/summary.rst``: claims per paper and verdict, and ``results/report/papers.rst``: the papers
  (title and scope from their ``targets.yaml``), both included by the workflow description
  (``workflow/report/workflow.rst``);
* ``results/report/claims.html``: the claims table as one self-contained page (:mod:`dpgrid.core.claims_page`).

The caption texts are data (``workflow/papers/<paper>/targets.yaml``); :func:`check_target_texts` fails when a
registered target has none, so a new figure cannot reach the report without a caption.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from dpgrid.core.claims import VERDICTS, Claim, read_claims
from dpgrid.core.io import write_text
from dpgrid.core.rebuild import NO_OPTIONS, RunOptions, rebuild_command, results_folder
from dpgrid.core.yaml_unique import UniqueKeyLoader

#: caption files refuse a key given twice, as config files do (:mod:`dpgrid.core.yaml_unique`)
_LOADER = UniqueKeyLoader
#: the captions' folder in the run's results folder (``results/`` or ``results/<run name>/``)
CAPTION_DIR = "report/captions"
#: files the report shows for each paper target: figures as PNG (shown inline), tables as CSV/JSON
SHOWN_SUFFIXES = (".png", ".csv", ".json")


class ReportPagesError(ValueError):
    """A target without a caption text, or a caption text of no target."""


def caption_file(result_file: str, results: str = "results/") -> str:
    """The caption of a result file in the run's results folder ``results`` (``results/x/y.png`` ->
    ``results/report/captions/x/y.png.rst``; with ``results/quick/``: ``results/quick/x/y.png`` ->
    ``results/quick/report/captions/x/y.png.rst``)."""
    folder = Path(results)
    rel = Path(result_file).relative_to(folder)
    return f"{(folder / CAPTION_DIR).as_posix()}/{rel.as_posix()}.rst"


def shown_files(files: Sequence[str]) -> list[str]:
    """The files of a target that the report shows (the PNG of a figure, not its PDF twin)."""
    return [f for f in files if f.endswith(SHOWN_SUFFIXES)]


def load_paper_texts(files: Mapping[str, str | os.PathLike]) -> dict[str, Any]:
    """The caption texts of every paper, ``{paper: file}`` (``workflow/papers/<paper>/targets.yaml``: the paper's
    title, data and each target's caption text) read as ``{paper: entry}`` and checked as :func:`load_target_texts`."""
    texts = {}
    for paper, path in files.items():
        try:
            with open(path, encoding="utf-8") as fh:
                texts[paper] = yaml.load(fh, Loader=_LOADER)
        except FileNotFoundError:
            raise ReportPagesError(
                f"{path}: paper {paper!r} has no caption texts; create it with 'title', 'data' and a caption "
                f"'shows' per target under 'targets' (docs/DEVELOPING.md, \"Report captions\")"
            ) from None
        except yaml.YAMLError as exc:
            raise ReportPagesError(f"{path}: not valid YAML: {exc}") from None
    return _checked_texts(texts, ", ".join(map(str, files.values())))


def load_target_texts(path: str | os.PathLike) -> dict[str, Any]:
    """One file of caption texts of several papers, ``{paper: entry}`` (the format of one paper's entry:
    :func:`load_paper_texts`)."""
    with open(path, encoding="utf-8") as fh:
        texts = yaml.load(fh, Loader=_LOADER)
    return _checked_texts(texts, path)


def _checked_texts(texts: Any, path) -> dict[str, Any]:
    if not isinstance(texts, dict):
        raise ReportPagesError(f"{path}: expected a mapping of papers, got {type(texts).__name__}")
    for paper, entry in texts.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("targets"), dict) or "title" not in entry:
            raise ReportPagesError(f"{path}: paper {paper!r} needs 'title' and a mapping 'targets'")
        if not isinstance(entry.get("scope", ""), str):
            raise ReportPagesError(f"{path}: paper {paper!r}: 'scope' must be a text, got {entry['scope']!r}")
        for name, t in entry["targets"].items():
            if not isinstance(t, dict) or not str(t.get("shows", "")).strip():
                raise ReportPagesError(f"{path}: {paper}.targets.{name} needs a non-empty 'shows'")
    return texts


def check_target_texts(texts: Mapping[str, Any], targets: Mapping[str, Mapping[str, Sequence[str]]]) -> None:
    """Every registered target has a caption text, and every text (except opt-in ones) a registered target."""
    missing = [
        f"{p}.{n}" for p, named in targets.items() for n in named if n not in texts.get(p, {}).get("targets", {})
    ]
    extra = [
        f"{p}.{n}"
        for p, entry in texts.items()
        for n, t in entry["targets"].items()
        if n not in targets.get(p, {}) and not t.get("opt_in", False)
    ]
    problems = []
    if missing:
        problems.append(f"targets without a caption text in workflow/papers/<paper>/targets.yaml: {missing}")
    if extra:
        problems.append(f"caption texts in workflow/papers/<paper>/targets.yaml of no registered target: {extra}")
    if problems:
        raise ReportPagesError("; ".join(problems))


def _lookup(config: Mapping[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise ReportPagesError(
                f"workflow/papers/<paper>/targets.yaml names config key {dotted!r}, which does not exist"
            )
        node = node[part]
    return node


def _config_key(paper: str, key: str, sections) -> str:
    """A config key of a caption: absolute when it starts with a top-level section of the config (``sections``),
    else relative to the paper's section."""
    return key if key.split(".")[0] in sections else f"{paper}.{key}"


def target_needs_download(
    entry: Mapping[str, Any], name: str, config: Mapping[str, Any], download_sources: Collection[str]
) -> bool:
    """Whether target ``name`` of a paper's caption texts ``entry`` depends on a downloaded file: it says so
    (``downloads: true``, e.g. a feeder's files), or it reads the paper's meter data and that experiment's source
    is downloaded (``download_sources``: the data layer's download rules)."""
    t = entry["targets"][name]
    if t.get("downloads"):
        return True
    key = entry.get("meter_data")
    if not (t.get("meter_data") and key):
        return False
    return _lookup(config, f"data.experiments.{key}.source") in download_sources


def downloads_needed(
    texts: Mapping[str, Any],
    targets: Mapping[str, Mapping[str, Sequence[str]]],
    config: Mapping[str, Any],
    download_sources: Collection[str],
) -> dict[str, list[str]]:
    """``{paper: [target names that depend on a download]}`` (the claims index's rebuild commands)."""
    return {
        paper: [n for n in named if target_needs_download(texts[paper], n, config, download_sources)]
        for paper, named in targets.items()
    }


def caption_specs(
    texts: Mapping[str, Any],
    targets: Mapping[str, Mapping[str, Sequence[str]]],
    config: Mapping[str, Any],
    papers: Sequence[str] | None = None,
    run: RunOptions = NO_OPTIONS,
    download_sources: Collection[str] = (),
) -> dict[str, dict[str, Any]]:
    """Per shown result file of the papers' targets (default: all): everything its caption says except the
    claims (the params of rule <paper>_report_captions).

    The values are the config's (data spec, parameter values), resolved when the workflow is parsed, so the
    job reads no config and reruns exactly when one of them changes. The rebuild command carries the run's
    config files and overrides (``run``), and its mirror where the target depends on a download
    (:mod:`dpgrid.core.rebuild`)."""
    check_target_texts(texts, targets)
    specs = {}
    for paper, named in targets.items():
        if papers is not None and paper not in papers:
            continue
        entry = texts[paper]
        meter_key = entry.get("meter_data")
        for name, files in named.items():
            t = entry["targets"][name]
            if t.get("meter_data") and meter_key:
                spec = _lookup(config, f"data.experiments.{meter_key}")
                data = f"meter data data.experiments.{meter_key}: " + ", ".join(
                    f"{k} = {json.dumps(v)}" for k, v in spec.items()
                )
            else:
                data = entry.get("data") or "no meter data"
            keys = [_config_key(paper, k, config) for k in t.get("params", [])]
            params = {k: _lookup(config, k) for k in keys}
            for f in shown_files(files):
                specs[f] = {
                    "paper": paper,
                    "title": entry["title"],
                    "target": name,
                    "shows": t["shows"],
                    "data": data,
                    "params": {k: json.dumps(v, sort_keys=True) for k, v in params.items()},
                    "rebuild": rebuild_command(
                        files, run, target_needs_download(entry, name, config, download_sources)
                    ),
                }
    return specs


def rst_text(text: object) -> str:
    """Text as RST inline content: markup characters escaped, on one line."""
    s = " ".join(str(text).split())
    for ch in "\\`*_|[]<>":
        s = s.replace(ch, "\\" + ch)
    return s


def _literal(text: object) -> str:
    s = " ".join(str(text).split()).replace("`", "'")
    return f"``{s}``" if s else ""


def verdict_counts(rows: Sequence[Claim]) -> str:
    n = {v: sum(c.verdict == v for c in rows) for v in VERDICTS}
    return ", ".join(f"{k} {v}" for v, k in n.items() if k)


def _html_text(text: object) -> str:
    """Text as the content of a raw HTML block of a caption: escaped, on one line, and with no brace, so the Jinja
    pass of `snakemake --report` (a caption file is a template) shows it as it is."""
    s = html.escape(" ".join(str(text).split()), quote=True)
    return s.replace("{", "&#123;").replace("}", "&#125;")


#: the background colour of each verdict (claim blocks, claims page)
VERDICT_COLOURS = {
    "reproduced": "#d8f0d8",
    "differs": "#f8dcd8",
    "not comparable": "#e8e8e8",
    "calibration target": "#e0e6f8",
    "calibration missed": "#f8ecd0",
}

#: the style of a claim block: it wraps inside the report's caption panel, however long its words
_BLOCK_STYLE = "margin:0 0 0.9em 0;padding:0.2em 0 0.2em 0.6em;overflow-wrap:anywhere;word-break:break-word"


def claim_block_html(c: Claim) -> str:
    """One claim of a caption as a block (HTML, one line): claim id, verdict, the paper's value against ours with
    the tolerance, and the note (the reason of the verdict). Each part is an element of its own (classes
    ``claim-id``, ``claim-verdict``, ``claim-values``, ``claim-note``), so text of any length wraps inside the
    caption panel instead of widening a table."""
    colour = VERDICT_COLOURS.get(c.verdict, "#ffffff")
    note = (
        f'<div class="claim-note"><span class="claim-note-label">Why:</span> <span class="claim-note-text">{_html_text(c.note)}</span></div>'
        if str(c.note).strip()
        else ""
    )
    return (
        f'<div class="claim" data-claim-id="{_html_text(c.claim_id)}" '
        f'style="{_BLOCK_STYLE};border-left:4px solid {colour}">'
        f'<div><code class="claim-id">{_html_text(c.claim_id)}</code></div>'
        f'<div><strong class="claim-verdict" style="background:{colour};color:#111;padding:0 0.3em;'
        f'border-radius:3px">{_html_text(c.verdict)}</strong></div>'
        f'<div class="claim-values">paper: {_html_text(c.paper_value) or "-"} &#183; '
        f"ours: {_html_text(c.reproduced_value) or '-'} &#183; tolerance: {_html_text(c.tolerance) or '-'}</div>"
        f"{note}</div>"
    )


def target_label(shows: str) -> tuple[str, str]:
    """``(label, what)`` of a caption text ``shows``: ``("Fig. 4", "exact delta(eps) ...")`` for
    ``"Fig. 4: exact delta(eps) ..."``; ``("", shows)`` when it does not start with a short label and a colon."""
    text = " ".join(str(shows).split())
    head, sep, rest = text.partition(": ")
    if sep and rest and len(head) <= TITLE_LABEL_CHARS:
        return head, rest
    return "", text


#: the longest label before the colon of a caption text that names a figure ("Fig. 2 a-c", "Figs. 12-13 numbers")
TITLE_LABEL_CHARS = 40
#: the longest description a menu entry shows of a target (its caption shows the whole text)
TITLE_DESCRIPTION_CHARS = 60


def target_title(shows: str) -> str:
    """The name of a figure or table in the report's menu: ``"Fig. 4 — <what it shows>"`` from its caption text,
    the description cut at a word boundary after :data:`TITLE_DESCRIPTION_CHARS` characters."""
    label, what = target_label(shows)
    what = what.rstrip(".") or what
    if len(what) > TITLE_DESCRIPTION_CHARS:
        cut = what[: TITLE_DESCRIPTION_CHARS + 1].rsplit(" ", 1)[0] or what[:TITLE_DESCRIPTION_CHARS]
        what = cut.rstrip(" ,;:") + " \u2026"
    return f"{label} \u2014 {what}" if label else what


def subcategory_titles(entry: Mapping[str, Any]) -> dict[str, str]:
    """``{target: menu name}`` of a paper's targets (its caption texts ``entry``): each target's
    :func:`target_title` after its place in ``workflow/papers/<paper>/targets.yaml`` (``"04 · Fig. 4 — ..."``),
    so that the report, which sorts a category's entries by name, lists them in the file's order."""
    names = list(entry["targets"])
    width = len(str(len(names)))
    return {
        name: f"{i:0{width}d} \u00b7 {target_title(entry['targets'][name]['shows'])}"
        for i, name in enumerate(names, start=1)
    }


def category_titles(papers: Sequence[tuple[str, str]], claims_title: str) -> dict[str, str]:
    """The report's categories ``{key: name}``: the papers ``(name, title)`` in their order, numbered so that the
    report, which sorts categories by name, lists them in that order, then the claims table (key ``"Claims"``)."""
    width = len(str(len(papers)))
    titles = {name: f"{i:0{width}d}. {title}" for i, (name, title) in enumerate(papers, start=1)}
    return {**titles, "Claims": claims_title}


def caption_rst(spec: Mapping[str, Any], claims: Sequence[Claim]) -> str:
    """The caption of one result file (RST; rendered by `snakemake --report`): its menu name, what it reproduces,
    data, parameters, rebuild command, then one block per claims-table row it feeds (:func:`claim_block_html`)."""
    rows = [c for c in claims if c.paper == spec["paper"] and c.target == spec["target"]]
    lines = [
        f"**{rst_text(target_title(spec['shows']))}** ({rst_text(spec['paper'])}, target {_literal(spec['target'])})",
        "",
        rst_text(spec["shows"]),
        "",
        f":Paper: {rst_text(spec['title'])}",
        f":Data: {rst_text(spec['data'])}",
    ]
    if spec["params"]:
        lines.append(":Parameters: " + "; ".join(f"{_literal(k)} = {_literal(v)}" for k, v in spec["params"].items()))
    lines += [f":Rebuild: {_literal(spec['rebuild'])}", ""]
    if not rows:
        lines.append("Claims-table rows fed by this target: none (it is shown for reference).")
        return "\n".join(lines) + "\n"
    lines += [
        f"Claims-table rows fed by this target ({len(rows)}: {verdict_counts(rows)}), each with its verdict, the "
        "paper's value against ours and, for a row not reproduced, why:",
        "",
        ".. raw:: html",
        "",
        *[f"   {claim_block_html(c)}" for c in rows],
    ]
    return "\n".join(lines) + "\n"


def summary_rst(claims: Sequence[Claim], titles: Mapping[str, str]) -> str:
    """Claims of this run per paper and verdict (RST table; included by workflow/report/workflow.rst)."""
    papers = list(titles) + sorted({c.paper for c in claims} - set(titles))
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "",
        "   * - paper",
        "     - claims",
        *[f"     - {v}" for v in VERDICTS],
    ]
    for paper in [*papers, None]:
        rows = [c for c in claims if paper is None or c.paper == paper]
        if paper is not None and not rows:
            continue
        lines.append(f"   * - {'**all papers**' if paper is None else rst_text(paper)}")
        lines.append(f"     - {len(rows)}")
        lines += [f"     - {sum(c.verdict == v for c in rows)}" for v in VERDICTS]
    return "\n".join(lines) + "\n"


def jinja_safe(rst: str) -> str:
    """Generated RST that the Jinja pass of `snakemake --report` leaves as it is (a caption file is a Jinja
    template; one included by a template is not), ending with a blank line (the end of an included table)."""
    for start in ("{{", "{%", "{#"):
        rst = rst.replace(start, start[0] + " " + start[1])
    return rst + "\n"


def captions_job(job: Any) -> None:
    """Rule body of ``<paper>_report_captions`` (workflow/rules/report.smk): the captions of a paper's targets."""
    claims = read_claims(job.input.claims)
    specs = job.params.specs
    results = results_folder(job.input.claims)
    wanted = {caption_file(f, results): f for f in specs}
    if sorted(wanted) != sorted(map(str, job.output.captions)):
        raise ReportPagesError(
            f"the captions of the specs {sorted(wanted)} are not the rule's outputs {sorted(job.output.captions)}"
        )
    for path, result_file in wanted.items():
        write_text(jinja_safe(caption_rst(specs[result_file], claims)), path)


def papers_rst(titles: Mapping[str, str], scopes: Mapping[str, str]) -> str:
    """The papers of this workflow as an RST list, in report order: name, title and scope (what the paper's
    ``targets.yaml`` says it reproduces); included by workflow/report/workflow.rst."""
    lines = []
    for paper, title in titles.items():
        scope = str(scopes.get(paper, "")).strip()
        lines.append(f"- **{rst_text(paper)}**: {rst_text(title)}." + (f" {rst_text(scope)}" if scope else ""))
    return "\n".join(lines) + "\n"


def summary_job(job: Any) -> None:
    """Rule body of ``report_summary``: the papers list and the claims per paper and verdict of the workflow
    description."""
    write_text(summary_rst(read_claims(job.input.claims), job.params.titles), job.output.summary)
    write_text(papers_rst(job.params.titles, job.params.scopes), job.output.papers)
