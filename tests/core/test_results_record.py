"""The record of a run's outputs finds every file edited, added or removed since (Snakemake does not)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.core import results_record as rr

FILES = ["results/claims.csv", "results/spdp/table1.csv", "resources/meters/x/readings.csv", "results/a/b/c.png"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    edits=st.dictionaries(st.sampled_from(FILES), st.sampled_from(["edit", "remove", "touch"]), max_size=4),
    added=st.lists(st.sampled_from(["results/new.csv", "resources/meters/y/meters.csv"]), unique=True, max_size=2),
)
def test_the_check_names_exactly_the_files_changed_since_the_run(tmp_path_factory, edits, added):
    root = tmp_path_factory.mktemp("run")
    for i, f in enumerate(FILES):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text(f"value,{i}\n")
    (root / "resources/peers/x/venv/lib").mkdir(parents=True)
    (root / "resources/peers/x/venv/lib/site.py").write_text("pip's")
    rr.write_record(root)
    for f, what in edits.items():
        if what == "edit":
            (root / f).write_text((root / f).read_text() + "edited by hand\n")
        elif what == "remove":
            (root / f).unlink()
        else:  # a new modification time, the same content: not a change
            (root / f).write_text((root / f).read_text())
    for f in added:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("new\n")
    (root / "resources/peers/x/venv/lib/site.py").write_text("pip upgraded")  # left out of the record
    found = rr.changes(root)
    assert found == {
        "changed": sorted(f for f, w in edits.items() if w == "edit"),
        "added": sorted(added),
        "removed": sorted(f for f, w in edits.items() if w == "remove"),
    }
    assert rr.main([str(root)]) == (1 if any(found.values()) else 0)


def test_onsuccess_writes_the_record():
    from tests.helpers.repo import REPO

    text = (REPO / "workflow" / "rules" / "common.smk").read_text(encoding="utf-8")
    block = text[text.index("onsuccess:") :].split("\n\n\n")[0]
    assert "write_record" in block
