"""The reviewers' report (dpgrid.core.report_pages, `snakemake --report`): captions, claims page, target coverage."""

from __future__ import annotations

import re

import pytest
from docutils.core import publish_parts

from dpgrid.core.claims import COLUMNS, Claim
from dpgrid.core.report_pages import (
    PAGE_COLUMNS,
    ReportPagesError,
    caption_file,
    caption_rst,
    caption_specs,
    check_target_texts,
    claims_html,
    load_paper_texts,
    summary_rst,
)
from tests.helpers.repo import REPO


def claim(cid, paper, target, verdict="reproduced", note=""):
    note = note or ("" if verdict == "reproduced" else "because")
    return Claim(cid, paper, target, "d", "1", "2", "exact", verdict, note)


def render(rst: str) -> str:
    """RST -> HTML as `snakemake --report` renders a caption; any docutils warning is an error here."""
    return publish_parts(rst, writer="html", settings_overrides={"halt_level": 2, "report_level": 5})["body"]


SPEC = {
    "paper": "p",
    "title": "A paper",
    "target": "fig1",
    "shows": "Fig. 1: a_b * c | d",
    "data": "meter data",
    "params": {"p.x": "[1, 2]"},
    "rebuild": "snakemake --cores 2 results/p/fig1.pdf results/p/fig1.png",
}


def test_caption_lists_exactly_the_target_rows_and_renders_markup_characters_literally():
    tricky = "off by *3* (x_1 | `y` <z>) [1]_"
    claims = [
        claim("p-a", "p", "fig1"),
        claim("p-b", "p", "fig1", "differs", note=tricky),
        claim("p-c", "p", "table2", "differs"),  # another target of the same paper
        claim("q-a", "q", "fig1"),  # the same target name in another paper
    ]
    html = render(caption_rst(SPEC, claims))
    assert "p-a" in html and "p-b" in html
    assert "p-c" not in html and "q-a" not in html
    assert "(2: 1 reproduced, 1 differs)" in html
    # markup characters of notes and texts come out as the characters, not as emphasis, links or tables
    assert "off by *3* (x_1 | `y` &lt;z&gt;) [1]_" in html
    assert "Fig. 1: a_b * c | d" in html
    assert "<em>" not in html


def test_generated_captions_pass_the_report_jinja_pass_unchanged_and_end_with_a_blank_line():
    """`snakemake --report` renders a caption file as a Jinja template (an included one it does not): template
    syntax in a note must come out as text either way, without markers of its own."""
    from jinja2 import Environment

    from dpgrid.core.report_pages import _jinja_safe

    rst = _jinja_safe(caption_rst(SPEC, [claim("p-b", "p", "fig1", "differs", note="bad {{ x }} and {% y %} {# z #}")]))
    rendered = Environment(trim_blocks=True, lstrip_blocks=True).from_string(rst).render()
    assert rst.endswith("\n\n")  # an included table ends before the including text goes on
    for html in (render(rst), render(rendered)):
        assert "bad { { x }} and { % y %} { # z #}" in html
        assert "raw" not in html


def test_caption_of_a_target_without_claims_says_so():
    html = render(caption_rst(SPEC, [claim("p-c", "p", "table2")]))
    assert "none" in html and "p-c" not in html


def test_summary_counts_per_paper_and_verdict_add_up():
    claims = [claim("a", "p", "t"), claim("b", "p", "t", "differs"), claim("c", "q", "t", "not comparable")]
    html = render(summary_rst(claims, {"p": "P", "q": "Q", "r": "R"}))
    cells = re.findall(r"<td>(.*?)</td>", html.replace("\n", ""))
    rows = [cells[i : i + 6] for i in range(0, len(cells), 6)]
    assert [r[0] for r in rows] == ["p", "q", "<strong>all papers</strong>"]  # r has no claims
    numbers = [[int(re.sub(r"<.*?>", "", c)) for c in r[1:]] for r in rows]
    assert numbers == [[2, 1, 1, 0, 0], [1, 0, 0, 1, 0], [3, 1, 1, 1, 0]]


def test_claims_page_has_one_row_per_claim_and_escapes_text():
    claims = [claim(f"c{i}", "p", "t") for i in range(7)] + [claim("x", "q", "t", "differs", note="a <b> & c")]
    assert sorted(PAGE_COLUMNS) == sorted(COLUMNS)  # the page shows every column of results/claims.csv
    page = claims_html(claims, PAGE_COLUMNS)
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    assert body.count("<tr ") == len(claims)
    assert "a &lt;b&gt; &amp; c" in page and "<b>" not in page
    assert f'<span id="total">{len(claims)}</span>' in page
    assert "http" not in page  # self-contained: the report opens offline


def test_texts_must_cover_every_registered_target_and_nothing_else():
    texts = {"p": {"title": "P", "targets": {"fig1": {"shows": "x"}, "opt": {"shows": "y", "opt_in": True}}}}
    check_target_texts(texts, {"p": {"fig1": ["results/p/fig1.png"]}})
    with pytest.raises(ReportPagesError, match=r"without a caption text.*p\.fig2"):
        check_target_texts(texts, {"p": {"fig1": [], "fig2": []}})
    with pytest.raises(ReportPagesError, match=r"of no registered target.*p\.fig1"):
        check_target_texts(texts, {"p": {}})


def test_caption_specs_resolve_parameter_values_and_meter_data_from_the_config():
    texts = {
        "p": {
            "title": "P",
            "meter_data": "exp",
            "data": "simulated",
            "targets": {
                "fig1": {"shows": "x", "meter_data": True, "params": ["a.b", "grid.c"]},
                "t": {"shows": "y"},
            },
        }
    }
    config = {"p": {"a": {"b": [1, 2]}}, "grid": {"c": 3}, "data": {"experiments": {"exp": {"source": "csv"}}}}
    targets = {"p": {"fig1": ["results/p/fig1.pdf", "results/p/fig1.png"], "t": ["results/p/t.csv"]}}
    specs = caption_specs(texts, targets, config)
    assert set(specs) == {"results/p/fig1.png", "results/p/t.csv"}  # the PNG of a figure, not its PDF
    assert specs["results/p/fig1.png"]["params"] == {"p.a.b": "[1, 2]", "grid.c": "3"}
    assert '"csv"' in specs["results/p/fig1.png"]["data"] and specs["results/p/t.csv"]["data"] == "simulated"
    texts["p"]["targets"]["t"]["params"] = ["nope"]
    with pytest.raises(ReportPagesError, match="p.nope"):
        caption_specs(texts, targets, config)


def test_every_figure_and_table_of_the_workflow_is_in_the_report_under_its_paper_and_target():
    """Each shown file of every registered target is a report-flagged job output whose subcategory is its target
    and whose caption is the one rule report_pages writes for it (directly, or through a template that includes
    the caption of the job's file of that output name)."""
    from snakemake.io import get_flag_value

    from tests.helpers.workflow_dag import plan

    jobs = plan(REPO, configfiles=["config/config.yaml"])
    caption_jobs = {j.rule: j for j in jobs.values() if j.rule.endswith("_report_captions")}
    assert set(caption_jobs) == {f"{p}_report_captions" for p in ("classdp", "spdp", "dpkmeans", "blowfish")}
    specs = {f: s for j in caption_jobs.values() for f, s in j.param_values["specs"].items()}
    outputs = {f for j in caption_jobs.values() for f in j.outputs}
    for rule, job in caption_jobs.items():  # each paper's rule carries its own paper's captions only
        assert {s["paper"] for s in job.param_values["specs"].values()} == {rule.split("_")[0]}
    assert set(specs) >= {"results/classdp/fig2.png", "results/blowfish/table_rmsre.csv", "results/spdp/table1.csv"}
    flagged = {}
    for job in jobs.values():
        for name, f in job.output_names.items():
            files = f if isinstance(f, list) else [f]
            for one in files:
                obj = get_flag_value(one, "report")
                if obj is not None:
                    flagged[str(one)] = (job, name, obj)
    from dpgrid.core.papers import paper_names

    texts = load_paper_texts({p: REPO / "workflow" / "papers" / p / "targets.yaml" for p in paper_names()})
    for path, spec in specs.items():
        assert path in flagged, f"{path} (target {spec['paper']}.{spec['target']}) is not in the report"
        job, name, obj = flagged[path]
        assert obj.subcategory.format(**job.wildcards) == spec["target"], path
        assert obj.category.startswith(spec["paper"]), path
        caption = obj.caption.get_path_or_uri(secret_free=True)
        template = REPO / "workflow" / "report" / f"output_{name}.rst"
        if caption.endswith(f"output_{name}.rst"):
            assert f"snakemake.output.{name}[8:]" in template.read_text(), template
        else:
            assert caption.endswith(caption_file(path)), (path, caption)
        assert caption_file(path) in outputs
        assert spec["target"] in texts[spec["paper"]]["targets"]
    # nothing else is flagged but the claims table (CSV and page)
    assert set(flagged) - set(specs) == {"results/claims.csv", "results/report/claims.html"}


def test_targets_said_to_need_a_download_are_those_whose_jobs_include_one():
    """The claims index's targets that need a download (targets.yaml's ``downloads: true``, and meter data from a
    downloaded source) are exactly those whose jobs include a download rule: on the full configuration's DAG and
    on one whose spdp experiment reads a downloaded dataset."""
    from tests.helpers.repo import REPO
    from tests.helpers.workflow_dag import plan

    uci = {"source": "uci_household", "start": "2007-01-01", "days": 98, "step_minutes": 5, "pseudo_meters": None}
    for config in ({}, {"data": {"experiments": {"spdp": uci}}}):
        jobs = plan(REPO, config=config)
        producer = {o: j for j in jobs.values() for o in j.outputs}

        def downloads_behind(files, producer=producer):
            seen, todo, rules = set(), list(files), set()
            while todo:
                job = producer.get(todo.pop())
                if job is None or job.outputs in seen:
                    continue
                seen.add(job.outputs)
                rules.add(job.rule)
                todo += list(job.inputs)
            return {r for r in rules if r.startswith("download_")}

        index = next(j for j in jobs.values() if j.rule == "claims_index")
        needed = index.param_values["downloads"]
        for paper, named in index.param_values["targets"].items():
            for name, files in named.items():
                assert (name in needed[paper]) == bool(downloads_behind(files)), (config, paper, name)
        if config:
            assert "fig1" in needed["spdp"]
