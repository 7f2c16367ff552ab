"""config/README.md is generated from the schema (dpgrid.core.config_doc) and cannot drift from it."""

from __future__ import annotations

import shutil

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
