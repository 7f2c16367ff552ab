"""results/privacy_audits.csv: the black-box audit rows of every paper (:mod:`dpgrid.privacy.blackbox_audit`), and
the claims-table row that reads them.

* :func:`collect_job` - rule ``privacy_audits``: the papers' ``results/<paper>/privacy_audit.csv`` in the papers'
  order, columns :data:`~dpgrid.privacy.blackbox_audit.AUDIT_COLUMNS` checked;
* :func:`audit_measured` - a paper's claim "every audited release holds": reproduced only when the paper has rows
  and every row's verdict is ``holds`` (``violated (paper)`` rows, where the paper's own claim is wrong in the
  unmodified code, are reported in the shown value and make the claim differ as well).
"""

from __future__ import annotations

import pandas as pd

from dpgrid.core.claims import NOT_COMPARABLE, Measured
from dpgrid.core.io import read_table, write_table
from dpgrid.privacy.blackbox_audit import AUDIT_COLUMNS, HOLDS, VIOLATED, VIOLATED_PAPER


class AuditTableError(ValueError):
    """A privacy-audit table without the expected columns or verdicts."""


def check_audit_table(df: pd.DataFrame, path: str) -> pd.DataFrame:
    missing = [c for c in AUDIT_COLUMNS if c not in df.columns]
    if missing:
        raise AuditTableError(f"{path}: missing column(s) {missing} (expected {list(AUDIT_COLUMNS)})")
    bad = sorted(set(df["verdict"]) - {HOLDS, VIOLATED, VIOLATED_PAPER})
    if bad:
        raise AuditTableError(f"{path}: field 'verdict' has value(s) {bad}")
    return df[list(AUDIT_COLUMNS)]


def collect_job(job) -> None:
    frames = [check_audit_table(read_table(p), str(p)) for p in job.input]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(AUDIT_COLUMNS))
    write_table(out, job.output[0])


def audit_measured(table: pd.DataFrame, paper: str) -> Measured:
    """The claim "every release of ``paper`` passes its black-box privacy audit", from results/privacy_audits.csv."""
    rows = check_audit_table(table, "results/privacy_audits.csv")
    rows = rows[rows["paper"] == paper]
    if rows.empty:
        return Measured(False, shown="no audited release", note=f"no row of paper {paper}", status=NOT_COMPARABLE)
    v = rows["verdict"]
    n_hold, n_viol, n_paper = int((v == HOLDS).sum()), int((v == VIOLATED).sum()), int((v == VIOLATED_PAPER).sum())
    worst = rows.assign(excess=rows["delta_lower_bound"] - rows["claimed_delta"]).sort_values("excess").iloc[-1]
    shown = (
        f"{n_hold} of {len(rows)} audited releases hold ({n_viol} violated, {n_paper} violated as the paper claims); "
        f"largest excess: {worst['mechanism']} at eps {worst['epsilon']:g}, delta lower bound "
        f"{worst['delta_lower_bound']:.4g} vs claimed {worst['claimed_delta']:.4g}"
    )
    bad = rows[v != HOLDS]
    note = (
        ""
        if bad.empty
        else "violated: "
        + "; ".join(f"{r.mechanism} ({r.setting}) at eps {r.epsilon:g}: {r.verdict}" for r in bad.itertuples())
    )
    return Measured(bool(bad.empty), shown=shown, note=note)


def privacy_audit_spec(paper: str, quote: str):
    """The claims-table row ``<paper>_privacy_audit`` (target ``privacy_audits``): :func:`audit_measured` of the
    claims job's ``ctx.privacy_audits``: the paper's own rows of results/privacy_audits.csv (the paper's audit job
    output, results/<paper>/privacy_audit.csv, which the merged table concatenates), so that a paper's claims do
    not wait for another paper's audit. ``quote`` is the paper's privacy statement
    (theorem or proposition) that the audit checks."""
    from dpgrid.core.claims import ClaimSpec

    return ClaimSpec(
        f"{paper}_privacy_audit",
        "privacy_audits",
        "Every mechanism of the paper keeps its claimed (eps, delta) under a black-box audit (results/privacy_audits"
        ".csv: lower confidence bound on delta from samples of the release code, neighbours searched independently)",
        lambda ctx: audit_measured(ctx.privacy_audits, paper),
        quote=quote,
    )
