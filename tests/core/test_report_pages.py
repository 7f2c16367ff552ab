"""The reviewers' report (dpgrid.core.report_pages, `snakemake --report`): captions, claims page, target coverage."""

from __future__ import annotations

import re
from html import unescape as html_unescape
from html.parser import HTMLParser

import pytest
from docutils.core import publish_parts
from hypothesis import given, settings
from hypothesis import strategies as st

from dpgrid.core.claims import COLUMNS, VERDICTS, Claim
from dpgrid.core.claims_page import PAGE_COLUMNS, claims_html
from dpgrid.core.report_pages import (
    TITLE_DESCRIPTION_CHARS,
    ReportPagesError,
    caption_file,
    caption_rst,
    caption_specs,
    category_titles,
    check_target_texts,
    load_paper_texts,
    papers_rst,
    subcategory_titles,
    summary_rst,
    target_title,
)
from tests.helpers.repo import REPO


def claim(cid, paper, target, verdict="reproduced", note=""):
    note = note or ("" if verdict == "reproduced" else "because")
    return Claim(cid, paper, target, "d", "1", "2", "exact", verdict, note)


def render(rst: str) -> str:
    """RST -> HTML as `snakemake --report` renders a caption; any docutils warning is an error here."""
    return publish_parts(rst, writer="html", settings_overrides={"halt_level": 2, "report_level": 5})["body"]


class _ClaimBlocks(HTMLParser):
    """The claim blocks of a rendered caption: per ``div.claim``, its id attribute and the texts of its parts."""

    PARTS = {"claim-id": "id", "claim-verdict": "verdict", "claim-note-text": "note"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[dict[str, str]] = []
        self._open: list[str | None] = []  # the part each open element is (None: no part)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if "claim" in classes:
            self.blocks.append({"data-claim-id": a.get("data-claim-id", "")})
        part = next((self.PARTS[c] for c in classes if c in self.PARTS), None)
        self._open.append(part)
        if part:
            self.blocks[-1].setdefault(part, "")

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        part = next((p for p in reversed(self._open) if p), None)
        if part:
            self.blocks[-1][part] += data


def claim_blocks(html: str) -> list[dict[str, str]]:
    """``[{data-claim-id, id, verdict, note?}]`` of the claim blocks of a rendered caption, in their order; texts
    with their whitespace collapsed."""
    parser = _ClaimBlocks()
    parser.feed(html)
    return [{k: " ".join(v.split()) for k, v in b.items()} for b in parser.blocks]


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

    from dpgrid.core.report_pages import jinja_safe

    rst = jinja_safe(caption_rst(SPEC, [claim("p-b", "p", "fig1", "differs", note="bad {{ x }} and {% y %} {# z #}")]))
    rendered = Environment(trim_blocks=True, lstrip_blocks=True).from_string(rst).render()
    assert rst.endswith("\n\n")  # an included table ends before the including text goes on
    for html in (render(rst), render(rendered)):
        assert "bad &#123;&#123; x &#125;&#125; and &#123;% y %&#125; &#123;# z #&#125;" in html
        assert [b["note"] for b in claim_blocks(html)] == ["bad {{ x }} and {% y %} {# z #}"]


def test_caption_of_a_target_without_claims_says_so():
    html = render(caption_rst(SPEC, [claim("p-c", "p", "table2")]))
    assert "none" in html and "p-c" not in html


def test_summary_counts_per_paper_and_verdict_add_up():
    claims = [claim("a", "p", "t"), claim("b", "p", "t", "differs"), claim("c", "q", "t", "not comparable")]
    html = render(summary_rst(claims, {"p": "P", "q": "Q", "r": "R"}))
    cells = re.findall(r"<td>(.*?)</td>", html.replace("\n", ""))
    width = 2 + len(VERDICTS)  # paper, claims, one column per verdict
    rows = [cells[i : i + width] for i in range(0, len(cells), width)]
    assert [r[0] for r in rows] == ["p", "q", "<strong>all papers</strong>"]  # r has no claims
    numbers = [[int(re.sub(r"<.*?>", "", c)) for c in r[1:]] for r in rows]
    assert [n[:4] for n in numbers] == [[2, 1, 1, 0], [1, 0, 0, 1], [3, 1, 1, 1]]
    assert all(n[0] == sum(n[1:]) for n in numbers)  # every claim in exactly one verdict column


@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[a-z][a-z0-9]{1,8}", fullmatch=True),
            st.text(st.characters(codec="ascii", categories=["L", "N", "P", "Zs"]), min_size=1, max_size=60),
            st.text(st.characters(codec="ascii", categories=["L", "N", "P", "Zs"]), max_size=60),
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda t: t[0],
    )
)
@settings(max_examples=30, deadline=None)
def test_papers_list_names_every_paper_in_order_with_its_title_and_scope(papers):
    """The report's list of papers (results/report/papers.rst) is one item per paper, in the given order, whatever
    characters the titles and scopes hold (RST markup in them is shown as text)."""
    titles = {p: t for p, t, _ in papers}
    scopes = {p: sc for p, _, sc in papers}
    html = render(papers_rst(titles, scopes))
    items = re.findall(r"<li>(.*?)</li>", html, re.S)
    assert len(items) == len(papers)
    text = [re.sub(r"\s+", " ", re.sub(r"<.*?>", "", i)).strip() for i in items]
    for (p, t, sc), shown in zip(papers, map(html_unescape, text)):
        assert shown.startswith(f"{p}: ")
        assert " ".join(t.split()) in shown and " ".join(sc.split()) in shown


def test_workflow_description_lists_no_paper_by_hand():
    """The description includes the generated papers list; no paper's title is written into it."""
    description = (REPO / "workflow" / "report" / "workflow.rst").read_text()
    assert ".. include:: {{ results }}report/papers.rst" in description
    for texts in (REPO / "workflow" / "papers").glob("*/targets.yaml"):
        title = load_paper_texts({texts.parent.name: texts})[texts.parent.name]["title"]
        assert title.split(":")[-1].strip()[:30] not in description, texts


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
    from dpgrid.core.papers import paper_names

    assert set(caption_jobs) == {f"{p}_report_captions" for p in paper_names()}
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
    from dpgrid.core.papers import paper_descriptors, paper_names

    texts = load_paper_texts({p: REPO / "workflow" / "papers" / p / "targets.yaml" for p in paper_names()})
    categories = category_titles([(d.name, d.title) for d in paper_descriptors()], "Claims table (all papers)")
    for path, spec in specs.items():
        assert path in flagged, f"{path} (target {spec['paper']}.{spec['target']}) is not in the report"
        job, name, obj = flagged[path]
        sub = obj.subcategory(job.wildcards) if callable(obj.subcategory) else obj.subcategory
        assert sub == subcategory_titles(texts[spec["paper"]])[spec["target"]], path
        assert obj.category == categories[spec["paper"]], path
        caption = obj.caption.get_path_or_uri(secret_free=True)
        template = REPO / "workflow" / "report" / f"output_{name}.rst"
        if caption.endswith(f"output_{name}.rst"):
            assert f"snakemake.output.{name}[results|length:]" in template.read_text(), template
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


#: notes as the claims modules write them, and worse: Markdown, RST, HTML and template syntax, any length
NOTES = st.one_of(
    st.just(""),
    st.text(alphabet=st.sampled_from("ab <>&\"'*_|`[]{}%#\\:-.=\n"), max_size=80),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=120),
    st.text(alphabet=st.sampled_from("abcdefghij "), min_size=400, max_size=3000),  # long notes
    st.text(alphabet=st.sampled_from("x-_/"), min_size=200, max_size=600),  # one long word
)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(st.sampled_from(VERDICTS), NOTES), min_size=1, max_size=8),
    # a caption text is never blank (load_paper_texts rejects one)
    shows=st.text(alphabet=st.sampled_from("Fig. 1:ab <>&*_|`{}%"), min_size=1, max_size=60).filter(str.strip),
)
def test_caption_shows_every_claim_of_its_target_once_with_its_verdict_and_note(rows, shows):
    """Rendered as `snakemake --report` does (the Jinja pass, then docutils), a caption has one claim block per
    claims-table row of its target, in the table's order, each with the row's id, verdict and note as text, and
    none of another target's rows."""
    from jinja2 import Environment

    from dpgrid.core.report_pages import jinja_safe

    claims = [
        Claim(f"p-fig1-{i}", "p", "fig1", "d", "1 < 2", "3 & 4", "exact", v, n or ("" if v == "reproduced" else "why"))
        for i, (v, n) in enumerate(rows)
    ]
    others = [claim("p-table2-0", "p", "table2", "differs"), claim("q-fig1-0", "q", "fig1", "differs")]
    spec = {**SPEC, "shows": shows}
    rst = jinja_safe(caption_rst(spec, [*others[:1], *claims, *others[1:]]))
    html = render(Environment(trim_blocks=True, lstrip_blocks=True).from_string(rst).render())
    blocks = claim_blocks(html)
    assert [b["id"] for b in blocks] == [c.claim_id for c in claims]
    assert [b["data-claim-id"] for b in blocks] == [c.claim_id for c in claims]
    assert [b["verdict"] for b in blocks] == [c.verdict for c in claims]
    for b, c in zip(blocks, claims):
        note = " ".join(c.note.split())
        assert b.get("note", "") == note  # no note element for a row without a note
    assert html.count('class="claim"') == len(claims)
    assert "p-table2-0" not in html and "q-fig1-0" not in html


def test_claim_blocks_wrap_inside_the_caption_panel_and_show_both_values():
    """A block wraps text of any length (no table column to cut off) and says the paper's value against ours."""
    c = claim("p-fig1-x", "p", "fig1", "differs", note="n" * 500)
    html = render(caption_rst(SPEC, [c]))
    assert "<table" not in html.split("Claims-table rows")[1]
    assert "overflow-wrap:anywhere" in html
    values = re.search(r'class="claim-values">(.*?)</div>', html).group(1)
    assert "paper: 1" in values and "ours: 2" in values and "tolerance: exact" in values


@given(st.text(alphabet=st.sampled_from("abc de,.()"), min_size=1, max_size=400).filter(lambda w: w.strip(" .")))
def test_a_menu_name_is_the_figure_label_and_the_start_of_what_it_shows(what):
    """``"Fig. 4: <text>"`` names the entry ``"Fig. 4 — <text>"``; a long text is cut at a word boundary with an
    ellipsis; what the name shows of the text is its start."""
    text = " ".join(what.split()).rstrip(".")
    title = target_title(f"Fig. 4: {what}")
    assert title.startswith("Fig. 4 \u2014 ")
    shown = title.removeprefix("Fig. 4 \u2014 ")
    if len(text) <= TITLE_DESCRIPTION_CHARS:
        assert shown == text
    else:
        assert shown.endswith(" \u2026")
        kept = shown.removesuffix(" \u2026")
        assert text.startswith(kept) and len(kept) <= TITLE_DESCRIPTION_CHARS
    assert target_title("The numbers of the sweep.") == "The numbers of the sweep"  # no label: the text itself


@given(st.integers(min_value=1, max_value=150))
def test_menu_names_sort_in_the_order_of_the_targets_file(n):
    """The report sorts a category's entries by name: the numbered names sort in the file's order, whatever the
    figure numbers (Fig. 10 after Fig. 9)."""
    entry = {"targets": {f"t{i}": {"shows": f"Fig. {n - i}: figure {n - i}"} for i in range(n)}}
    titles = subcategory_titles(entry)
    assert list(titles) == list(entry["targets"])
    assert sorted(titles.values()) == list(titles.values())
    assert titles["t0"].endswith(f"Fig. {n} \u2014 figure {n}")


def test_report_categories_list_the_papers_in_their_order_then_the_claims_table():
    from dpgrid.core.papers import paper_descriptors

    papers = [(d.name, d.title) for d in paper_descriptors()]
    four = ["classdp", "spdp", "dpkmeans", "blowfish"]  # the four papers keep their order among all papers
    assert [name for name, _ in papers if name in four] == four
    cats = category_titles(papers, "Claims table (all papers)")
    assert sorted(cats.values()) == [*[cats[name] for name, _ in papers], "Claims table (all papers)"]
    many = category_titles([(f"p{i}", f"zz{i}") for i in range(12)], "Claims")
    assert sorted(many.values()) == list(many.values())  # 10 papers and more still in order


def test_claims_page_caption_lists_the_rows_of_no_shown_target_and_only_those():
    """Every claims-table row is in some caption: the rows of targets the report does not show (audits, checks of
    a mechanism) in the claims page's caption, once each, with verdict and note."""
    from dpgrid.core.claims_page import claims_caption_rst

    claims = [
        claim("p-fig1", "p", "fig1", "differs", note="n1"),
        claim("p-audit", "p", "audit", "differs", note="a <b>"),
        claim("q-mech", "q", "mechanisms"),
        claim("q-fig1", "q", "fig1"),
    ]
    html = render(claims_caption_rst(claims, "page", {"p": ["fig1"], "q": ["fig1"]}))
    blocks = claim_blocks(html)
    assert [(b["id"], b["verdict"], b.get("note", "")) for b in blocks] == [
        ("p-audit", "differs", "a <b>"),
        ("q-mech", "reproduced", ""),
    ]
    assert claim_blocks(render(claims_caption_rst(claims, "page"))) == []  # the CSV entry's caption: no blocks
    everything = render(claims_caption_rst(claims, "page", {"p": ["fig1", "audit"], "q": ["fig1", "mechanisms"]}))
    assert claim_blocks(everything) == [] and "Every row belongs" in everything


@pytest.mark.parametrize("name", ["", "quick", "v1.2_b-3"])
@pytest.mark.parametrize("output_name", ["png", "attack", "audit", "curves"])
def test_caption_templates_include_the_caption_of_the_runs_file(name, output_name):
    """A template caption (a rule with wildcards) includes the caption the captions rule writes for the job's
    file, in the run's results folder (run.name): results/... or results/<name>/..."""
    from types import SimpleNamespace

    import jinja2

    results = f"results/{name}/" if name else "results/"
    result_file = f"{results}classdp/forecast/fig_x.png"
    snakemake = SimpleNamespace(config={"run": {"name": name}}, output=SimpleNamespace(**{output_name: result_file}))
    template = (REPO / "workflow" / "report" / f"output_{output_name}.rst").read_text()
    text = jinja2.Environment().from_string(template).render(snakemake=snakemake)
    assert f".. include:: {caption_file(result_file, results)}\n" in text + "\n", text
    # the workflow description's include of the claims summary (its lines that name the results folder)
    description = (REPO / "workflow" / "report" / "workflow.rst").read_text().splitlines()
    lines = "\n".join(line for line in description if "results" in line and ("{%" in line or "include::" in line))
    text = jinja2.Environment().from_string(lines).render(snakemake=snakemake)
    assert f".. include:: {results}report/summary.rst" in text, text


def test_missing_or_invalid_caption_file_is_a_named_error(tmp_path):
    """A paper without workflow/papers/<paper>/targets.yaml, or with invalid YAML there, gets a ReportPagesError
    naming the file and the paper, not a raw FileNotFoundError / YAMLError."""
    missing = tmp_path / "newdp" / "targets.yaml"
    with pytest.raises(ReportPagesError, match=r"newdp/targets\.yaml: paper 'newdp' has no caption texts"):
        load_paper_texts({"newdp": missing})
    bad = tmp_path / "targets.yaml"
    bad.write_text("title: [unclosed\n", encoding="utf-8")
    with pytest.raises(ReportPagesError, match=r"targets\.yaml: not valid YAML"):
        load_paper_texts({"newdp": bad})


@pytest.mark.parametrize(
    "text, where",
    [
        ("title: A\ntitle: B\ntargets: {}\n", "title"),
        ("title: A\ntargets:\n  fig1: {shows: x}\n  fig1: {shows: y}\n", "targets.fig1"),
        ("title: A\ntargets:\n  fig1: {shows: x, shows: y}\n", "targets.fig1.shows"),
    ],
)
def test_caption_file_with_a_key_given_twice_is_refused(tmp_path, text, where):
    """YAML keeps the last of two equal keys silently: a caption file would lose a caption or a title."""
    path = tmp_path / "targets.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReportPagesError, match=rf"targets\.yaml: .*duplicate key .*\({re.escape(where)};"):
        load_paper_texts({"newdp": path})
