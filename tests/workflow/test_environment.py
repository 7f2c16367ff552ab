"""environment.yml (conda users) and pyproject.toml (pip users) list the same packages and ranges."""

import os
import tomllib

import pytest
import yaml
from packaging.requirements import Requirement

from tests.helpers.repo import REPO

# conda-forge names that differ from PyPI names
CONDA_TO_PYPI = {}
NOT_PACKAGES = {"python", "pip"}


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def pyproject_requirements() -> dict[str, str]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    reqs = list(data["project"]["dependencies"])
    for extra in ("test", "slurm"):
        reqs += data["project"]["optional-dependencies"][extra]
    out = {}
    for r in map(Requirement, reqs):
        out[_norm(r.name)] = str(r.specifier)
    return out


def environment_requirements() -> dict[str, str]:
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    specs = []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            specs += [p for p in dep["pip"] if not p.startswith("-e")]
        else:
            specs.append(dep)
    out = {}
    for s in specs:
        r = Requirement(s.replace(" ", ""))
        name = _norm(CONDA_TO_PYPI.get(r.name, r.name))
        if name not in NOT_PACKAGES:
            out[name] = str(r.specifier)
    return out


def test_same_packages_and_ranges():
    pip, conda = pyproject_requirements(), environment_requirements()
    assert sorted(set(pip) - set(conda)) == [], "in pyproject.toml but not environment.yml"
    assert sorted(set(conda) - set(pip)) == [], "in environment.yml but not pyproject.toml"
    differing = {k: (pip[k], conda[k]) for k in pip if pip[k] != conda[k]}
    assert differing == {}, f"version ranges differ (pyproject, environment.yml): {differing}"


def test_known_conflict_respected():
    # snakemake 9 requires packaging < 26; pandapower >= 3.5.4 requires packaging ~= 26 (field notes).
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    pp = SpecifierSet(pyproject_requirements()["pandapower"])
    assert Version("3.5.3") in pp and Version("3.5.4") not in pp
    assert Version("10.0") not in SpecifierSet(pyproject_requirements()["snakemake"])


def test_environment_installs_the_package_itself():
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "-e ." in pip


def test_blas_runs_one_thread_per_test_process():
    """tests/conftest.py sets OPENBLAS_NUM_THREADS=1 before numpy/scipy load their BLAS (two pytest-xdist workers
    on two cores; a BLAS thread per core on top made small numerics 5-20x slower): nothing imported them first."""
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        pytest.skip(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')} set by the caller")
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    assert blas and all(i["num_threads"] == 1 for i in blas), blas


def test_slurm_extra_resolves_with_pandapowers_numpy():
    """snakemake-executor-plugin-slurm >= 2.7.0 requires numpy >= 2.4.5, pandapower 3.5.x numpy < 2.4: the
    slurm extra must stay below 2.7 (docs/cluster.md). When the plugin is installed, the numpy range it
    declares must admit the installed numpy, which pandapower's range admits too."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    spec = SpecifierSet(pyproject_requirements()["snakemake-executor-plugin-slurm"])
    assert Version("2.6.1") in spec and Version("2.7.0") not in spec
    try:
        plugin = metadata.requires("snakemake-executor-plugin-slurm")
    except metadata.PackageNotFoundError:
        pytest.skip("the slurm extra is not installed here")
    numpy_req = next(r for r in map(Requirement, plugin) if r.name == "numpy")
    pandapower_req = next(r for r in map(Requirement, metadata.requires("pandapower")) if r.name == "numpy")
    installed = Version(metadata.version("numpy"))
    assert installed in numpy_req.specifier and installed in pandapower_req.specifier
