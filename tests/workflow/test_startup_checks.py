"""Start-up checks of the workflow: Snakemake's records that cannot be read, a run from another folder, a number
beyond the floats' range (the YAML 1.1 hint offers no spelling of it)."""

import base64
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.core.config import ConfigError, load_config_file, merge_config, validate_config
from dpgrid.core.pipeline import SnakemakeRecordError, check_snakemake_records
from tests.helpers.repo import REPO, snakemake_env


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=40), output=st.sampled_from(["results/claims.md", "resources/meters/x/readings.csv"]))
def test_an_unreadable_record_is_named_with_its_output(tmp_path_factory, content, output):
    folder = tmp_path_factory.mktemp("snakemake") / "metadata"
    folder.mkdir()
    good = folder / base64.urlsafe_b64encode(b"results/ok.csv").decode()
    good.write_text(json.dumps({"rule": "x"}), encoding="utf-8")
    f = folder / base64.urlsafe_b64encode(output.encode()).decode()
    f.write_bytes(content)
    try:
        json.loads(content.decode("utf-8"))
        readable = True
    except (UnicodeDecodeError, ValueError):
        readable = False
    if readable:
        check_snakemake_records(folder)
        return
    with pytest.raises(SnakemakeRecordError) as err:
        check_snakemake_records(folder)
    msg = str(err.value)
    assert str(f) in msg and f"record of {output}" in msg and "Delete these files" in msg
    assert str(good) not in msg


def test_a_run_from_another_folder_names_the_repository():
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "-s", "../Snakefile"],
        cwd=REPO / "workflow",
        capture_output=True,
        text=True,
        env=snakemake_env(),
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and f"dpgrid runs from its repository folder {REPO}" in out, out[-1500:]


@pytest.mark.parametrize("text", ["1e400", "-2.5e+999", "1.0e400"])
def test_a_number_beyond_the_floats_offers_no_spelling(tmp_path, text):
    f = tmp_path / "o.yaml"
    f.write_text(f"seed: {text}\n", encoding="utf-8")
    cfg = merge_config(load_config_file(REPO / "config" / "config.yaml"), load_config_file(f))
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, REPO / "workflow" / "schemas" / "config.schema.yaml")
    msg = str(err.value)
    # named, and no spelling offered for it (the old hint said "write 1.0e+400 or inf" for an integer key)
    assert msg.count("seed") >= 1 and "or inf" not in msg and "write " not in msg
    assert "beyond the range of numbers" in msg or "not a finite number" in msg


def test_readme_names_snakemakes_message_for_an_empty_or_non_mapping_config_file(tmp_path):
    """Snakemake refuses an empty, comment-only or list --configfile before the Snakefile runs, so the workflow
    cannot name the file; README quotes that message and what it means. The message is Snakemake's own."""
    from snakemake.common.configfile import load_configfile
    from snakemake_interface_common.exceptions import WorkflowError

    readme = " ".join((REPO / "README.md").read_text().split())
    for text in ("", "# only a comment\n", "- a\n- b\n"):
        path = tmp_path / "overlay.yaml"
        path.write_text(text)
        with pytest.raises(WorkflowError) as err:
            load_configfile(str(path))
        message = str(err.value).strip().rstrip(".")
        assert f"`{message}` means that a `--configfile` is empty, holds only comments, or is a list" in readme
