"""requirements.lock pins the reference run's environment: every package of dpgrid's dependency tree (with its test
extra) at one exact version, within pyproject.toml's ranges and consistent with each other's requirements; the
README's install commands and CI install with it."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.helpers.repo import REPO

LOCK = REPO / "requirements.lock"
INSTALL_WITH_LOCK = "pip install -c requirements.lock -e"


def lock_pins(text: str | None = None) -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for number, line in enumerate((text if text is not None else LOCK.read_text()).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][^\s;]*)", line)
        assert m, f"requirements.lock:{number}: not an exact pin: {line!r}"
        name = canonicalize_name(m.group(1))
        assert name not in pins, f"requirements.lock:{number}: {name} pinned twice"
        pins[name] = Version(m.group(2))
    return pins


def dpgrid_requirements() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]]


def _applies(req: Requirement, extras: set[str]) -> bool:
    if req.marker is None:
        return True
    return any(req.marker.evaluate({**default_environment(), "extra": e}) for e in (extras or {""}))


def unpinned_in_tree(pins: dict[str, Version]) -> list[str]:
    """Packages of the installed dependency tree of dpgrid[test] that ``pins`` leaves out (requirements whose
    markers do not apply here are not followed)."""
    missing, seen = [], set()
    todo = [(r, set(r.extras)) for r in dpgrid_requirements()]
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        if (name, frozenset(extras)) in seen:
            continue
        seen.add((name, frozenset(extras)))
        if name not in pins:
            missing.append(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for text in dist.requires or []:
            sub = Requirement(text)
            if _applies(sub, extras):
                todo.append((sub, set(sub.extras)))
    return sorted(set(missing))


def test_lock_pins_every_requirement_within_pyprojects_ranges():
    pins = lock_pins()
    for req in dpgrid_requirements():
        name = canonicalize_name(req.name)
        assert name in pins, f"{name} (pyproject.toml) is not pinned in requirements.lock"
        assert req.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} is outside {req}"


def test_lock_pins_the_whole_dependency_tree():
    assert unpinned_in_tree(lock_pins()) == []


def test_lock_pins_satisfy_each_others_requirements():
    """For every pinned package installed at its pinned version, its own requirements accept the other pins."""
    pins = lock_pins()
    checked = 0
    for name, version in pins.items():
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if Version(dist.version) != version:
            continue
        checked += 1
        for text in dist.requires or []:
            sub = Requirement(text)
            dep = canonicalize_name(sub.name)
            if _applies(sub, set()) and dep in pins:
                assert sub.specifier.contains(pins[dep], prereleases=True), f"{name} needs {sub}, lock has {pins[dep]}"
    assert checked > len(pins) // 2, "the lock's versions are mostly not the installed ones"


def test_a_missing_or_out_of_range_pin_is_found():
    pins = lock_pins()
    numpy = canonicalize_name("numpy")
    without = {k: v for k, v in pins.items() if k != numpy}
    assert numpy in unpinned_in_tree(without)
    # a transitive dependency (of pandas) left out is found too
    tz = canonicalize_name("python-dateutil")
    assert tz in unpinned_in_tree({k: v for k, v in pins.items() if k != tz})
    assert not next(r for r in dpgrid_requirements() if r.name == "numpy").specifier.contains(Version("3.0"))
    bad = "numpy==1.0\nnumpy==2.0\n"
    try:
        lock_pins(bad)
    except AssertionError as exc:
        assert "pinned twice" in str(exc)
    else:
        raise AssertionError("a package pinned twice was accepted")


def test_readme_and_ci_install_with_the_lock():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    assert f"{INSTALL_WITH_LOCK} '.[test]'" in readme and f"{INSTALL_WITH_LOCK} '.[test]'" in ci
    assert f"{INSTALL_WITH_LOCK} ." in readme  # the pipeline's own install
    # no unpinned install command is left in the README or ARTIFACT.md
    for doc in ("README.md", "ARTIFACT.md"):
        text = (REPO / doc).read_text()
        assert not re.search(r"pip install -e ['.]", text), f"{doc} installs without requirements.lock"
