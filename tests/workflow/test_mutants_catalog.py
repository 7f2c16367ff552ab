"""The mutant catalog (tests/mutants/catalog.py): at least 15 mutants over the four papers and the five kinds, each
written against a public name that resolves and is replaced when applied (in a fresh interpreter, as
sitecustomize.py applies it)."""

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "mutants"

SCRIPT = r"""
import importlib, json, sys
import catalog
out = {}
for name, m in catalog.MUTANTS.items():
    mod = importlib.import_module(m.module)
    owner, attr = (getattr(mod, m.attribute.split(".")[0]), m.attribute.split(".")[1]) if "." in m.attribute else (mod, m.attribute)
    before = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
    catalog.apply(name)
    after = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
    setattr(owner, attr, before)
    out[name] = [m.paper, m.kind, after is not before]
print(json.dumps(out))
"""


def test_catalog_covers_papers_and_kinds_and_every_mutant_applies():
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    env.pop("DPGRID_MUTANT", None)
    res = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    out = json.loads(res.stdout)
    assert len(out) >= 15
    assert {p for p, _, _ in out.values()} == {"classdp", "spdp", "dpkmeans", "blowfish"}
    assert {k for _, k, _ in out.values()} == {"noise", "correlation", "sensitivity", "neighbours", "calibration"}
    assert all(changed for _, _, changed in out.values())
