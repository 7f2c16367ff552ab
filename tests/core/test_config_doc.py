"""config/README.md is generated from the schema (dpgrid.core.config_doc) and cannot drift from it."""

from __future__ import annotations

import shutil

import pytest
import yaml

from dpgrid.core.config import root_schema, schema_document, schema_documents
from dpgrid.core.config_doc import config_readme, main
from tests.helpers.repo import REPO


def test_config_readme_is_current(capsys):
    assert main(["check", str(REPO / "config" / "README.md")]) == 0, capsys.readouterr().err


def test_every_schema_key_and_data_source_is_documented():
    text = config_readme(REPO)
    schemas = REPO / "workflow" / "schemas"
    files = schema_documents(schemas / "config.schema.yaml")
    root = root_schema(schemas / "config.schema.yaml")
    # every paper's sections are in the root (added from the descriptors)
    assert {"classdp", "spdp", "dpkmeans", "grid", "peers", "blowfish"} <= set(root["properties"])
    for section, ref in root["properties"].items():
        assert f"### `{section}`" in text
        if "$ref" in ref:
            props = yaml.safe_load(files[ref["$ref"]].read_text()).get("properties", {})
            for key in props:
                assert f"| `{section}.{key}` |" in text, f"{section}.{key} missing from config/README.md"
    data = schema_document(schemas / "data.schema.yaml")  # with the papers' stand-in sources
    sources = data["$defs"]["experiment"]["properties"]["source"]["enum"]
    assert {"csv", "spdp_standin", "dpkmeans_standin"} <= set(sources)
    for source in sources:
        assert f"| `{source}` |" in text
    for overlay in ("quick.yaml", "peers.yaml"):
        assert f"`config/{overlay}`" in text


def test_a_schema_change_makes_the_check_fail(tmp_path, monkeypatch):
    """Adding a key to a section's schema changes the generated text (so the committed README is then stale)."""
    for folder in ("workflow/schemas", "workflow/papers", "config"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    before = config_readme(tmp_path)
    path = tmp_path / "workflow" / "papers" / "blowfish" / "blowfish.schema.yaml"
    schema = yaml.safe_load(path.read_text())
    schema["properties"]["new_knob"] = {"description": "a knob added to the schema", "type": "integer", "minimum": 3}
    path.write_text(yaml.safe_dump(schema))
    after = config_readme(tmp_path)
    assert after != before
    assert "| `blowfish.new_knob` | integer (>= 3) | optional. a knob added to the schema | - |" in after


def test_every_key_at_every_depth_has_a_description():
    """No key of the schema, at any depth (nested objects, list items, maps, alternatives), lacks a description,
    and config/README.md shows one for every key row."""
    from dpgrid.core.config_doc import undescribed_keys

    assert undescribed_keys(REPO) == []
    text = config_readme(REPO)
    rows = [line for line in text.splitlines() if line.startswith("| `") and line.count(" | ") >= 3]
    key_rows = [
        r
        for r in rows
        if r.split(" | ")[0].strip("| `").split(".")[0]
        in root_schema(REPO / "workflow" / "schemas" / "config.schema.yaml")["properties"]
    ]
    assert len(key_rows) > 300  # every key, not only the sections' first levels
    for row in key_rows:
        description = row.split(" | ")[2].strip()
        assert description not in ("-", "optional.", ""), row
    # the deepest keys and the keys of list items have their own rows
    for key in (
        "spdp.calibration.trdp_durations_hours.4h",
        "blowfish.periods[].p_leave",
        "data.downloads.uci_eld.mirror.sha256",
    ):
        assert f"| `{key}` |" in text, key


def _schema_copy(tmp_path):
    for folder in ("workflow/schemas", "workflow/papers", "config"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    return tmp_path


@pytest.mark.parametrize(
    "where",
    ["section", "nested", "list item", "definition"],
)
def test_an_undescribed_key_is_found_wherever_it_is(tmp_path, where):
    """A key added without a description is reported by its dotted name, at any depth, and the check fails."""
    from dpgrid.core.config_doc import undescribed_keys

    repo = _schema_copy(tmp_path)
    path = repo / "workflow" / "papers" / "blowfish" / "blowfish.schema.yaml"
    schema = yaml.safe_load(path.read_text())
    knob = {"type": "integer", "minimum": 1}
    if where == "section":
        schema["properties"]["new_knob"], expected = knob, "blowfish.new_knob"
    elif where == "nested":
        schema["properties"]["audit"]["properties"]["new_knob"], expected = knob, "blowfish.audit.new_knob"
    elif where == "list item":
        item = schema["properties"]["periods"]["items"]
        target = item if "properties" in item else schema["$defs"][item["$ref"].rsplit("/", 1)[1]]
        target["properties"]["new_knob"], expected = knob, "blowfish.periods[].new_knob"
    else:  # a description-less $ref to a definition without one
        schema["properties"]["new_knob"] = {"$ref": "defs.schema.yaml#/$defs/positive_integer"}
        expected = "blowfish.new_knob"
    path.write_text(yaml.safe_dump(schema, sort_keys=False))
    assert undescribed_keys(repo) == [expected]
