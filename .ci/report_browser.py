#!/usr/bin/env python3
"""Open the Snakemake report in headless Chromium and check what a reviewer sees (CI step .ci/check_report).

Drives Chromium through the DevTools protocol over a pipe (``--remote-debugging-pipe``: file descriptors 3 and
4, NUL-terminated JSON messages; standard library only, no network). Checks, on the unzipped report:

* the report app starts, and its landing page shows the workflow description with the claims summary;
* one category per paper (the papers and their order: the run's results/report/papers.rst, beside claims.csv) and
  the claims table's category;
* the menu lists the papers in their order, then the claims table; a
  paper's figures in ascending order ("01 · Fig. 1 — ..."); the landing page's description is not covered by the
  menu and starts inside the window;
* every result entry has a non-empty caption naming its paper and its menu name, rendered in the result panel;
* every claim row of results/claims.csv is in the caption of an entry, and there, in every caption that lists
  it, its verdict and its note (the reason; a row without a note: its verdict) are visible: scrolled into view,
  each element's box lies horizontally inside the caption panel and inside every ancestor that clips overflow,
  its text does not overflow its box, and it is the topmost element at its centre (``elementFromPoint``);
* every figure, shown as the report shows it, and the landing page differ from a blank page (screenshots
  compared pixel by pixel with a screenshot of an empty page of the same size);
* the claims-table page lists as many rows as results/claims.csv has, and its sort and filter scripts ran.

Usage: report_browser.py <report.html> <results/claims.csv> <folder for screenshots>
"""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageChops

#: a page differs from blank when at least this share of its pixels differ
MIN_NONBLANK_SHARE = 0.01
WIDTH, HEIGHT = 1400, 1000
#: how many pixels a box may stick out of its container (sub-pixel layout)
SLACK_PX = 1

#: In the open result panel: for each claim ``{claim_id, verdict, note}`` listed in the caption, the problems that
#: keep its verdict or note from being read (``{claim_id: [problem, ...]}``; a claim the caption does not list is
#: left out). Finds elements by their text (whitespace ignored), whatever the caption's layout: the smallest
#: element whose text is the claim id, its nearest ancestor that also holds the verdict (and the note), and there
#: the smallest elements whose texts are the verdict and the note.
CLAIMS_VISIBLE_JS = r"""
(claims, slack) => {
  const norm = s => (s || '').replace(/\s+/g, '');
  const panel = document.querySelector('nav li.prose');
  if (!panel) return null;
  const leaves = (root, text) => {
    const want = norm(text);
    return Array.from(root.querySelectorAll('*')).filter(e => norm(e.textContent) === want
      && !Array.from(e.children).some(ch => norm(ch.textContent) === want));
  };
  const describe = e => e ? `<${e.tagName.toLowerCase()} class="${e.className}">` : 'nothing';
  const problemsOf = (el, what) => {
    el.scrollIntoView({block: 'center', inline: 'nearest'});
    const rects = el.getClientRects();
    if (!rects.length) return [`${what}: no box`];
    const out = [];
    const box = el.getBoundingClientRect(), p = panel.getBoundingClientRect();
    if (box.left < p.left - slack || box.right > p.right + slack)
      out.push(`${what}: x ${box.left.toFixed(0)}..${box.right.toFixed(0)} outside the caption panel x `
        + `${p.left.toFixed(0)}..${p.right.toFixed(0)}`);
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const st = getComputedStyle(a);
      if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
      const r = a.getBoundingClientRect();
      if (box.left < r.left - slack || box.right > r.right + slack) {
        out.push(`${what}: clipped by ${describe(a)}`);
        break;
      }
    }
    if (box.left < -slack || box.right > innerWidth + slack) out.push(`${what}: outside the window`);
    if (getComputedStyle(el).display !== 'inline' && el.scrollWidth > el.clientWidth + slack)
      out.push(`${what}: its text overflows its box`);
    const r0 = rects[0];
    const x = (Math.max(r0.left, 0) + Math.min(r0.right, innerWidth)) / 2;
    const y = (Math.max(r0.top, 0) + Math.min(r0.bottom, innerHeight)) / 2;
    const top = document.elementFromPoint(x, y);
    if (!top || !el.contains(top)) out.push(`${what}: covered at its centre by ${describe(top)}`);
    return out;
  };
  const result = {};
  for (const c of claims) {
    const ids = leaves(panel, c.claim_id);
    if (!ids.length) continue;
    const problems = [];
    for (const idEl of ids) {
      let row = idEl.parentElement;
      while (row && row !== panel && !(leaves(row, c.verdict).length && (!c.note || leaves(row, c.note).length)))
        row = row.parentElement;
      if (!row || row === panel) { problems.push('no verdict and note beside the claim id'); continue; }
      problems.push(...problemsOf(leaves(row, c.verdict)[0], 'verdict'));
      if (c.note) problems.push(...problemsOf(leaves(row, c.note)[0], 'note'));
    }
    result[c.claim_id] = problems;
  }
  return result;
}
"""

#: In the menu of the category shown: its entries' names, top to bottom.
MENU_NAMES_JS = "Array.from(document.querySelectorAll('nav ul li a span')).map(s => s.textContent)"

#: On the landing page: problems that keep the workflow description from being read from its start.
LANDING_JS = r"""
(() => {
  const desc = document.querySelector('.prose.max-w-lg');
  const nav = document.querySelector('nav');
  if (!desc || !nav) return ['no description or no menu'];
  const d = desc.getBoundingClientRect(), n = nav.getBoundingClientRect();
  const out = [];
  if (d.left < n.right - 1) out.push(`the menu (x ..${n.right.toFixed(0)}) covers the description (x ${d.left.toFixed(0)}..)`);
  if (d.top < -1) out.push(`the description starts above the window (y ${d.top.toFixed(0)}), out of reach`);
  const first = desc.querySelector('p');
  if (first) {
    first.scrollIntoView({block: 'nearest'});
    const r = first.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + 5, r.top + Math.min(r.height, 20) / 2);
    if (!top || !desc.contains(top)) out.push('the first paragraph of the description is covered');
  }
  return out;
})()
"""
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--mute-audio",
    "--allow-file-access-from-files",
    f"--window-size={WIDTH},{HEIGHT}",
]


class Failure(AssertionError):
    pass


class Browser:
    """Chromium with one page, driven over the DevTools pipe."""

    def __init__(self, binary: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="dpgrid-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def child_pipes() -> None:  # Chromium reads commands from fd 3 and writes replies to fd 4
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)  # above 4, so the dup2s cannot clobber each other
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"],
            close_fds=False,
            preexec_fn=child_pipes,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)

    def _send(self, method: str, params: dict, session: str | None) -> int:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        return self._next_id

    def _receive(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise Failure("Chromium did not answer within the time limit")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise Failure("Chromium closed the DevTools pipe (did it start? is the chromium package installed?)")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, timeout: float = 60, **params) -> dict:
        wanted = self._send(method, params, self.session if method.split(".")[0] != "Target" else None)
        while True:
            msg = self._receive(timeout)
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise Failure(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def evaluate(self, expression: str, context: int | None = None):
        args = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        if context is not None:
            args["contextId"] = context
        result = self.call("Runtime.evaluate", **args)
        if "exceptionDetails" in result:
            raise Failure(f"page script failed: {expression[:80]}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def wait_for(self, expression: str, what: str, timeout: float = 20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise Failure(f"timed out waiting for {what}")

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def screenshot(self) -> Image.Image:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")

    def close(self) -> None:
        try:
            self._send("Browser.close", {}, None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def nonblank_share(shot: Image.Image, blank: Image.Image) -> float:
    """Share of the pixels of ``shot`` that differ from the blank page's."""
    diff = ImageChops.difference(shot, blank).convert("L").point(lambda v: 255 if v > 16 else 0)
    return sum(diff.histogram()[255:]) / (diff.width * diff.height)


def papers_of(claims_csv: Path) -> tuple[str, ...]:
    """The run's papers in report order: the names of results/report/papers.rst (``- **<paper>**: ...``)."""
    listing = claims_csv.parent / "report" / "papers.rst"
    papers = tuple(re.findall(r"^- \*\*([\w-]+)\*\*:", listing.read_text(encoding="utf-8"), re.M))
    if not papers:
        raise Failure(f"{listing}: lists no paper")
    return papers


def check(report_html: Path, claims_csv: Path, shots: Path) -> list[str]:
    shots.mkdir(parents=True, exist_ok=True)
    papers = papers_of(claims_csv)
    with open(claims_csv, newline="", encoding="utf-8") as fh:
        claim_rows = [
            {"claim_id": r["claim_id"], "verdict": r["verdict"], "note": r["note"].strip()} for r in csv.DictReader(fh)
        ]
    n_claims = len(claim_rows)
    binary = os.environ.get("DPGRID_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        raise Failure("chromium not found (Debian package chromium; .ci/check_report installs it)")
    log = []
    browser = Browser(binary)
    try:
        browser.navigate("about:blank")
        time.sleep(0.5)
        blank = browser.screenshot()
        problems: list[str] = []  # what a reviewer cannot read; reported together at the end
        browser.navigate(report_html.resolve().as_uri())
        browser.wait_for("typeof app !== 'undefined' && document.querySelector('#app').innerText.length > 0", "the app")
        # the landing page: workflow description (with the claims summary) beside the rule graph
        desc = browser.wait_for("document.querySelector('#app').innerText", "the landing page")
        for text in ("Claims of this run", "How to read this report", *papers, "all papers"):
            if text not in desc:
                raise Failure(f"the landing page does not show {text!r}")
        time.sleep(1.0)  # the rule graph (vega) draws asynchronously
        landing = browser.screenshot()
        landing.save(shots / "landing.png")
        share = nonblank_share(landing, blank)
        if share < MIN_NONBLANK_SHARE:
            raise Failure(f"the landing page is blank ({share:.3%} of pixels differ from a blank page)")
        covered = browser.evaluate(LANDING_JS)
        if covered:
            problems.append(f"the landing page's description cannot be read: {'; '.join(covered)}")
        log.append(
            f"landing page: description and claims summary shown beside the menu, {share:.0%} of pixels non-blank"
        )

        categories = browser.evaluate("categories")
        results = browser.evaluate("results")
        # the menu's order: the report sorts names as the browser's localeCompare does
        menu = browser.evaluate("Object.keys(categories).sort((a, b) => a.localeCompare(b))")
        paper_of = {c: next((p for p in papers if p in c.split()[:2]), None) for c in menu}
        missing = [p for p in papers if p not in paper_of.values()]
        if missing or not any(c.startswith("Claims") for c in categories):
            raise Failure(f"report categories {menu}: no category for {missing or 'the claims table'}")
        in_menu = [paper_of[c] or c for c in menu]
        if in_menu != [*papers, *[c for c in menu if paper_of[c] is None]] or not in_menu[-1].startswith("Claims"):
            problems.append(f"the menu lists {in_menu}, not the papers in their order {list(papers)}, then the claims")
        for category in menu:
            if paper_of[category] is None:
                continue
            browser.evaluate(f"app.showCategory({json.dumps(category)}); 1")
            names = browser.wait_for(MENU_NAMES_JS, f"the menu of {category}")
            numbers = [int(m.group(1)) if (m := re.match(r"(\d+) · ", n)) else None for n in names]
            if None in numbers or numbers != sorted(numbers) or len(names) != len(categories[category]):
                problems.append(f"the menu of {category} does not number its entries in order: {names}")
            labels = [n.split(" · ", 1)[-1].split(" \u2014 ")[0] for n in names]  # "Fig. 4", "Fig. 3 numbers", ...
            figures = [
                int(m.group(1)) for n in labels if (m := re.fullmatch(r"Figs?\. (\d+)(-\d+)?( [a-z](-[a-z])?)?", n))
            ]
            if figures != sorted(figures):
                problems.append(f"the menu of {category} lists the figures out of order: {names}")
        claim_problems: dict[str, list[str]] = {}
        claim_seen: dict[str, int] = {}
        n_figures = 0
        for category, subcats in categories.items():
            for subcat, paths in subcats.items():
                for path in paths:
                    entry = results[path]
                    caption = entry["caption"] or ""
                    text = browser.evaluate(
                        f"(() => {{ const d = document.createElement('div'); d.innerHTML = {json.dumps(caption)}; return d.innerText; }})()"
                    )
                    if not text.strip():
                        raise Failure(f"{path} ({category} / {subcat}): empty caption")
                    if any(mark in text for mark in ("{{", "{%", "{#", "System Message")):
                        raise Failure(f"{path}: the caption shows template or RST error text: {text[:200]!r}")
                    name = subcat.split(" · ", 1)[-1]
                    if not category.startswith("Claims") and (name not in text or "Paper" not in text):
                        raise Failure(f"{path}: the caption does not name its entry {name!r} and paper")
                    # the result panel, as a reviewer opens it
                    browser.evaluate(
                        f"app.showCategory({json.dumps(category)}); app.showResultInfo({json.dumps(path)}); 1"
                    )
                    panel = browser.wait_for("document.querySelector('#app').innerText", "the result panel")
                    if text.strip().split("\n")[0][:40] not in panel:
                        raise Failure(f"{path}: the result panel does not show the caption")
                    listed = [c for c in claim_rows if c["claim_id"] in text]
                    if listed:
                        found = browser.evaluate(f"({CLAIMS_VISIBLE_JS})({json.dumps(listed)}, {SLACK_PX})")
                        if found is None:
                            raise Failure(f"{path}: no caption panel (nav li.prose) in the result panel")
                        for cid, issues in found.items():
                            claim_seen[cid] = claim_seen.get(cid, 0) + 1
                            claim_problems.setdefault(cid, []).extend(f"{path}: {i}" for i in issues)
                    if entry["mime_type"] == "image/png":
                        n_figures += 1
                        browser.evaluate(
                            f"app.setView({{content: 'img', contentPath: {json.dumps(entry['data_uri'])}, "
                            f"resultPath: {json.dumps(path)}}}); 1"
                        )
                        browser.wait_for(
                            "(() => { const i = document.querySelector('img[src]:not([src^=\"data:image/svg\"])');"
                            " return i && i.complete && i.naturalWidth > 0; })()",
                            f"the image of {path}",
                        )
                        shot = browser.screenshot()
                        share = nonblank_share(shot, blank)
                        name = path.replace("/", "_")
                        shot.save(shots / name)
                        if share < MIN_NONBLANK_SHARE:
                            raise Failure(f"{path}: the figure view is blank ({share:.3%} of pixels differ)")
        log.append(
            f"{sum(len(p) for s in categories.values() for p in s.values())} result entries, each with a caption; "
            f"{n_figures} figures shown, none blank"
        )
        unlisted = [c["claim_id"] for c in claim_rows if c["claim_id"] not in claim_seen]
        unreadable = {cid: p for cid, p in claim_problems.items() if p}
        if unlisted or unreadable:
            examples = [f"{cid}: {p[0]}" for cid, p in list(unreadable.items())[:8]]
            problems.append(
                f"{len(unlisted) + len(unreadable)} of {n_claims} claim rows cannot be read in the report: "
                f"{len(unlisted)} in no caption {unlisted[:8]}, {len(unreadable)} with the verdict or note hidden "
                f"({sum(map(len, unreadable.values()))} problems), e.g.\n  " + "\n  ".join(examples)
            )
        log.append(
            f"claims: each of the {n_claims} rows of {claims_csv} in a caption ({sum(claim_seen.values())} "
            "listings), its verdict and note inside the caption panel and topmost at their centres"
        )

        # the claims table page, in the report's frame
        claims_path = next(p for p in results if p.endswith("claims.html"))
        browser.evaluate(
            f"app.setView({{content: 'html', contentPath: {json.dumps(results[claims_path]['data_uri'])}, "
            f"resultPath: {json.dumps(claims_path)}}}); 1"
        )
        browser.wait_for("document.querySelector('iframe') !== null", "the claims table frame")
        rows = browser.wait_for(
            "(() => { const f = document.querySelector('iframe'); const d = f && f.contentDocument;"
            " if (!d || !d.getElementById('shown')) return 0;"
            " return [d.querySelectorAll('#claims tbody tr:not([hidden])').length,"
            " Number(d.getElementById('shown').textContent), d.querySelectorAll('#claims th').length]; })()",
            "the claims table",
        )
        shown_rows, counter, columns = rows
        time.sleep(0.3)
        table_shot = browser.screenshot()
        table_shot.save(shots / "claims_table.png")
        if shown_rows != n_claims or counter != n_claims:
            raise Failure(f"the claims table shows {shown_rows} rows (counter {counter}); {claims_csv} has {n_claims}")
        # the filter script works: only 'differs' rows left after choosing that verdict
        n_differs = sum(1 for r in csv.DictReader(open(claims_csv, encoding="utf-8")) if r["verdict"] == "differs")
        left = browser.evaluate(
            "(() => { const d = document.querySelector('iframe').contentDocument; const s = d.getElementById('verdict');"
            " s.value = 'differs'; s.dispatchEvent(new Event('input')); return Number(d.getElementById('shown').textContent); })()"
        )
        if left != n_differs:
            raise Failure(f"filtering the claims table by 'differs' leaves {left} rows, expected {n_differs}")
        share = nonblank_share(table_shot, blank)
        if share < MIN_NONBLANK_SHARE:
            raise Failure("the claims table view is blank")
        log.append(
            f"claims table: {shown_rows} rows = {claims_csv} ({columns} sortable columns; filter 'differs' -> {left})"
        )
        if problems:
            raise Failure(f"{len(problems)} problems:\n" + "\n".join(problems))
    finally:
        browser.close()
    return log


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        for line in check(Path(argv[0]), Path(argv[1]), Path(argv[2])):
            print(line)
    except Failure as exc:
        print(f"report check failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
