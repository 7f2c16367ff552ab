"""Hostile configs are refused at validation, before any rule runs, naming the key and the value: keys that
name output files leaving the tree, a run name other than one plain path component, non-finite numbers anywhere,
and a key given twice in any config file."""

from __future__ import annotations

import copy
import ntpath
import posixpath
import string
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpgrid.core.config import ConfigError, load_config_file, merge_config, run_folder, validate_config
from tests.helpers.repo import REPO, snakemake_env

SCHEMA = str(REPO / "workflow" / "schemas" / "config.schema.yaml")
BASE = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
QUICK = merge_config(BASE, yaml.safe_load((REPO / "config" / "quick.yaml").read_text(encoding="utf-8")))

# Every config key whose *keys* are joined to an output folder (the rules' outputs are <folder>/<key>).
OUTPUT_PATH_MAPS = {
    "data.downloads.ieee123.files": "resources/downloads/ieee123",
    "peers.cedskmeans.files": "resources/peers/cedskmeans/upstream",
}
SHA = "0" * 64


def _node(cfg, dotted):
    node = cfg
    for k in dotted.split("."):
        node = node[k]
    return node


def stays_in_tree(key: str) -> bool:
    """Independent oracle: ``key`` joined to an output folder names a file strictly inside that folder, the same
    on POSIX and Windows, and is a plain printable name (no control character, NUL, blank or backslash)."""
    if not key or any(unicodedata.category(c)[0] in "CZ" for c in key) or "\\" in key:
        return False
    if ntpath.splitdrive(key)[0] or ntpath.isabs(key) or posixpath.isabs(key) or key.startswith("~"):
        return False
    base = "/tree/out"
    joined = posixpath.normpath(posixpath.join(base, key))
    return joined.startswith(base + "/") and posixpath.relpath(joined, base).split("/") == key.split("/")


def _refused(cfg, dotted, key):
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, SCHEMA)
    msg = str(err.value)
    assert dotted in msg and repr(key) in msg, msg
    assert "tree" in msg
    return msg


PATHISH = st.lists(
    st.sampled_from([*"ab0Z_.-+/\\:~ {}$*\x00\n\t\x7fé", "C:", "..", "//", "../", "/.."]), max_size=12
).map("".join)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dotted=st.sampled_from(sorted(OUTPUT_PATH_MAPS)), key=PATHISH)
def test_output_path_keys_outside_the_tree_are_refused(dotted, key):
    """Any key accepted for a map of output files stays inside its folder (oracle); any key that leaves it
    (absolute, '..', a drive letter, NUL, backslash, a blank or control character) is refused naming the
    key and the value."""
    cfg = copy.deepcopy(BASE)
    _node(cfg, dotted)[key] = SHA
    try:
        validate_config(cfg, SCHEMA)
        accepted = True
    except ConfigError as exc:
        accepted = False
        if not stays_in_tree(key):
            assert dotted in str(exc) and repr(key) in str(exc), str(exc)
    if accepted:
        assert stays_in_tree(key), key


@settings(max_examples=30, deadline=None)
@given(
    dotted=st.sampled_from(sorted(OUTPUT_PATH_MAPS)),
    prefix=st.sampled_from(["/", "//", "../", "a/../../", "C:/", "C:", "\\\\srv\\share\\", "~/", "./../"]),
    rest=st.from_regex(r"[a-z0-9_]{1,8}(/[a-z0-9_]{1,8}){0,2}\.txt", fullmatch=True),
)
def test_escaping_output_paths_are_refused(dotted, prefix, rest):
    """The escaping family itself (absolute, parent, drive, UNC, home): always refused, naming key and value."""
    cfg = copy.deepcopy(BASE)
    key = prefix + rest
    _node(cfg, dotted)[key] = SHA
    _refused(cfg, dotted, key)


@settings(max_examples=25, deadline=None)
@given(
    dotted=st.sampled_from(sorted(OUTPUT_PATH_MAPS)),
    key=st.from_regex(
        r"[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,10}(/[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,10}){0,3}", fullmatch=True
    ),
)
def test_ordinary_relative_output_paths_are_accepted(dotted, key):
    cfg = copy.deepcopy(BASE)
    _node(cfg, dotted)[key] = SHA
    validate_config(cfg, SCHEMA)


def test_read_paths_stay_free():
    """A user's readings and meters files are read, not written: absolute and parent paths are allowed."""
    cfg = copy.deepcopy(BASE)
    cfg["data"]["experiments"]["spdp"] = {
        "source": "csv",
        "readings": "/elsewhere/../home/me/readings.csv",
        "meters": "../data/meters.csv",
        "start": "2020-03-02",
        "days": 2,
        "step_minutes": 30,
    }
    validate_config(cfg, SCHEMA)


RUN_NAME_CHARS = set(string.ascii_letters + string.digits + "._-")


def plain_run_name(name: str) -> bool:
    """Independent oracle: ``name`` is empty or one path component (the same on POSIX and Windows) of letters,
    digits and . _ - other than '.' and '..', so that results/<name>/ is a folder of its own inside results/."""
    if name == "":
        return True
    if name in (".", "..") or len(name) > 255 or not set(name) <= RUN_NAME_CHARS:
        return False
    return posixpath.basename(name) == name and ntpath.basename(name) == name and not ntpath.splitdrive(name)[0]


def _validate_run_name(name):
    """Validate config.yaml with ``run.name`` set to ``name`` by an overlay file; the error, or None."""
    cfg = copy.deepcopy(BASE)
    cfg["run"]["name"] = name
    with tempfile.TemporaryDirectory() as d:
        overlay = Path(d) / "named_run.yaml"
        overlay.write_text(yaml.safe_dump({"run": {"name": name}}), encoding="utf-8")
        try:
            validate_config(cfg, SCHEMA, [REPO / "config" / "config.yaml", overlay])
        except ConfigError as exc:
            return str(exc), str(overlay)
    return None, str(overlay)


RUN_NAMES = st.one_of(
    st.lists(
        st.sampled_from([*"aZ09_.-/\\:~ {}$*\x00\n\t\x7f\x85é", "..", "/..", "C:", "\u2028", "\u00a0"]), max_size=8
    ).map("".join),
    st.text(max_size=12),
)


@settings(max_examples=150, deadline=None)
@given(name=RUN_NAMES)
def test_a_run_name_is_one_plain_path_component(name):
    """A run name is accepted exactly when it is empty or one plain path component (oracle); any other (a '/', a
    '..', a blank, NUL or other control character, a backslash, a drive, a letter beyond ASCII) is refused naming
    the key, the value and the file that set it."""
    msg, overlay = _validate_run_name(name)
    if plain_run_name(name):
        assert msg is None, msg
        folder = run_folder({"run": {"name": name}}, "results")
        assert folder == ("results/" if not name else f"results/{name}/")
        assert posixpath.normpath(folder).split("/")[:1] == ["results"] and folder.count("/") == (2 if name else 1)
    else:
        assert msg is not None, f"{name!r} accepted"
        assert f"run.name = {name!r} is not allowed" in msg and f"(set in {overlay})" in msg, msg


@settings(max_examples=50, deadline=None)
@given(name=st.from_regex(r"[A-Za-z0-9._-]{1,40}", fullmatch=True).filter(lambda s: s not in (".", "..")))
def test_plain_run_names_are_accepted(name):
    msg, _ = _validate_run_name(name)
    assert msg is None, msg
    assert run_folder({"run": {"name": name}}, "logs") == f"logs/{name}/"


@settings(max_examples=50, deadline=None)
@given(
    head=st.from_regex(r"[A-Za-z0-9_-]{0,6}", fullmatch=True),
    bad=st.sampled_from(["/", "\\", " ", "\t", "\n", "\x00", "/..", "../", ":", "é", "\r"]),
    tail=st.from_regex(r"[A-Za-z0-9_-]{0,6}", fullmatch=True),
)
def test_run_names_with_a_separator_or_a_blank_are_refused(head, bad, tail):
    """The family of names that would leave results/ or make a name with a blank or control character: refused."""
    name = head + bad + tail
    msg, overlay = _validate_run_name(name)
    assert msg is not None and f"run.name = {name!r}" in msg and overlay in msg, msg


@pytest.mark.parametrize("name", [".", ".."])
def test_dot_run_names_are_refused(name):
    msg, _ = _validate_run_name(name)
    assert msg is not None and f"run.name = {name!r} is not allowed" in msg, msg


def _numeric_leaves(node, path=()):
    if isinstance(node, bool):
        return []
    if isinstance(node, (int, float)):
        return [path]
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _numeric_leaves(v, (*path, k))]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _numeric_leaves(v, (*path, i))]
    return []


def _dotted(path):
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


NUMERIC = sorted({p for cfg in (BASE, QUICK) for p in _numeric_leaves(cfg)}, key=str)


@settings(max_examples=200, deadline=None)
@given(
    which=st.sampled_from([(cfg_name, p) for cfg_name, cfg in (("base", BASE), ("quick", QUICK)) for p in NUMERIC]),
    value=st.sampled_from([float("nan"), float("inf"), float("-inf"), -float("nan")]),
)
def test_non_finite_numbers_are_refused_everywhere(which, value):
    """NaN, inf and -inf in place of any number of the config (any depth, list items too) are refused, naming
    the key; NaN passes every bound of a schema, so no key may rely on its own bounds."""
    name, path = which
    cfg = copy.deepcopy(BASE if name == "base" else QUICK)
    node = cfg
    try:
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    except (KeyError, IndexError, TypeError):
        return  # a leaf of the other shipped config
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, SCHEMA)
    assert f"{_dotted(path)} = {value!r}: not a finite number" in str(err.value)


def _mapping_paths(node, path=()):
    out = [path] if isinstance(node, dict) and node else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _mapping_paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _mapping_paths(v, (*path, i))
    return out


MAPPINGS = _mapping_paths(BASE)


def _with_duplicate(cfg, path, pick):
    """YAML text of ``cfg`` in which the mapping at ``path`` holds one of its keys twice (the repeated key's value
    changed, so a silent last-wins would change the config); returns the text and the repeated key."""
    node = _represent(cfg)
    target = node
    for p in path:
        if isinstance(p, int):
            target = target.value[p]
        else:
            target = next(v for k, v in target.value if k.value == str(p))
    key_node, value_node = target.value[pick % len(target.value)]
    target.value.append((copy.deepcopy(key_node), _represent({"changed": True})))
    return yaml.serialize(node, Dumper=yaml.SafeDumper), key_node.value


def _represent(data):
    dumper = yaml.SafeDumper(None)
    return dumper.represent_data(data)


@settings(max_examples=50, deadline=None)
@given(path=st.sampled_from(MAPPINGS), pick=st.integers(0, 50))
def test_a_key_given_twice_is_refused_at_any_depth(tmp_path_factory, path, pick):
    """A mapping holding one key twice (top level or nested, in a list item too) is refused naming the file, the
    line of the second key (which holds the key) and the key; YAML would keep the last one silently."""
    text, key = _with_duplicate(BASE, path, pick)
    f = tmp_path_factory.mktemp("dup") / "overlay.yaml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config_file(f)
    msg = str(err.value)
    assert str(f) in msg and f"duplicate key {key!r}" in msg
    line = int(msg.split(": line ")[1].split(":")[0])
    assert text.splitlines()[line - 1].strip().startswith(f"{key}:")


def test_a_merge_key_may_be_overridden():
    """``<<: *anchor`` followed by one of its keys is YAML's override, not a duplicate."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "c.yaml"
        f.write_text("base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  x: 3\n", encoding="utf-8")
        assert load_config_file(f)["c"] == {"x": 3, "y": 2}


@pytest.mark.parametrize(
    "overlay,shown",
    [
        ("blowfish:\n  epsilon: 0.5\nseed: 3\nblowfish:\n  epsilon: 0.25\n", "duplicate key 'blowfish'"),
        (
            f"data:\n  downloads:\n    ieee123:\n      files:\n        ../../../../../../escape.txt: {SHA}\n",
            "data.downloads.ieee123.files: key '../../../../../../escape.txt' is not allowed",
        ),
        (
            "data:\n  experiments:\n    dpkmeans:\n      n_residential: 100000000\n",
            "data.experiments.dpkmeans.n_residential = 100000000",
        ),
        ("run:\n  name: ../elsewhere\n", "run.name = '../elsewhere' is not allowed"),
    ],
    ids=["duplicate", "escape", "huge", "run_name"],
)
def test_snakemake_stops_before_any_job(tmp_path, overlay, shown):
    f = tmp_path / "overlay.yaml"
    f.write_text(overlay, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", str(f)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=snakemake_env(),
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and shown in out, out[-2000:]
    assert "Job stats" not in out
