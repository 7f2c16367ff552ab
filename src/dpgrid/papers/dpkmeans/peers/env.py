"""Pinned environments of the peer implementations (workflow/papers/dpkmeans/peers.smk): a venv per peer, never dpgrid's.

Each peer has one environment file, ``workflow/envs/<peer>.yaml``, in conda's format: ``python=X.Y`` and
``pip`` as conda dependencies and, under ``pip:``, every Python distribution of the environment pinned
exactly (``name==version``, the whole dependency closure). Conda users get it through the rule's
``conda:`` directive; everyone else through :func:`build_venv`, which reads the same file, creates
``python -m venv`` with the interpreter that runs the rule (its ``major.minor`` must be the file's),
installs the pins from the package registry with ``--no-deps --only-binary=:all:`` (nothing resolved,
nothing built), runs ``pip check`` and verifies that ``pip freeze --all`` lists every pin exactly (and
nothing else besides pip/setuptools/wheel). The freeze is the rule's output: the record of what ran.
"""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from pathlib import Path

import yaml

LOG = logging.getLogger(__name__)

PIN_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9][A-Za-z0-9.+!_-]*)$")
#: Distributions a venv brings itself; allowed in the freeze without a pin.
BOOTSTRAP = {"pip", "setuptools", "wheel"}


class PeerEnvError(RuntimeError):
    """An environment file that is not exactly pinned, or an environment that does not match its pins."""


def normalise(name: str) -> str:
    """PEP 503 normalised distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_env_pins(path: str | Path) -> tuple[str, dict[str, str]]:
    """The ``python=X.Y`` pin and the exact pip pins {normalised name: version} of a conda environment file."""
    path = Path(path)
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PeerEnvError(f"{path}: cannot read the environment file ({exc})") from None
    deps = spec.get("dependencies") if isinstance(spec, dict) else None
    if not isinstance(deps, list):
        raise PeerEnvError(f"{path}: field dependencies must be a list, got {deps!r}")
    python, pip_lists = None, [d["pip"] for d in deps if isinstance(d, dict) and "pip" in d]
    for d in deps:
        if isinstance(d, str) and re.fullmatch(r"python\s*=+\s*\d+\.\d+(\.\d+)?", d):
            python = re.split(r"=+", d.replace(" ", ""))[1]
    if python is None:
        raise PeerEnvError(f"{path}: field dependencies needs an entry 'python=X.Y', got {deps!r}")
    if len(pip_lists) != 1 or not isinstance(pip_lists[0], list) or not pip_lists[0]:
        raise PeerEnvError(f"{path}: field dependencies needs exactly one non-empty 'pip:' list")
    pins: dict[str, str] = {}
    for entry in pip_lists[0]:
        m = PIN_RE.match(str(entry).strip())
        if not m:
            raise PeerEnvError(
                f"{path}: field dependencies.pip has {entry!r}; every entry must be an exact pin 'name==version'"
            )
        name = normalise(m.group(1))
        if name in pins:
            raise PeerEnvError(f"{path}: field dependencies.pip pins {name!r} twice")
        pins[name] = m.group(2)
    return python, pins


def parse_freeze(text: str) -> dict[str, str]:
    """{normalised name: version} of ``pip freeze`` output (``name==version`` lines; others are refused)."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = PIN_RE.match(line)
        if not m:
            raise PeerEnvError(f"pip freeze: unexpected line {line!r} (not 'name==version')")
        out[normalise(m.group(1))] = m.group(2)
    return out


def check_freeze(pins: dict[str, str], installed: dict[str, str], where: str) -> None:
    """Every pin installed at exactly its version, and nothing unpinned besides :data:`BOOTSTRAP`."""
    problems = [
        f"{n}=={v} pinned, {installed.get(n, 'not installed')} installed"
        for n, v in sorted(pins.items())
        if installed.get(n) != v
    ]
    extra = sorted(n for n in installed if n not in pins and n not in BOOTSTRAP)
    if extra:
        problems.append(f"unpinned distributions installed: {', '.join(f'{n}=={installed[n]}' for n in extra)}")
    if problems:
        raise PeerEnvError(f"{where}: the environment does not match its pins: {'; '.join(problems)}")


def _run(cmd: list[str], what: str) -> str:
    LOG.info("%s: %s", what, " ".join(map(str, cmd)))
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, check=False)
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.strip():
            LOG.info("  %s", line)
    if proc.returncode != 0:
        raise PeerEnvError(f"{what} failed (exit {proc.returncode}): {' '.join(map(str, cmd))}")
    return proc.stdout


def venv_python(venv: str | Path) -> Path:
    return Path(venv) / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def build_venv(env_file: str | Path, venv: str | Path, *, python: str = sys.executable) -> str:
    """Create ``venv`` from ``env_file``'s pins (see module doc); return the verified ``pip freeze --all`` text."""
    want, pins = read_env_pins(env_file)
    have = _run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], "interpreter version").strip()
    if have != ".".join(want.split(".")[:2]):
        raise PeerEnvError(
            f"{env_file}: pins python={want}, but the interpreter running the rule ({python}) is "
            f"Python {have}; run the workflow with Python {want} or use --sdm conda"
        )
    _run([python, "-m", "venv", "--clear", venv], "create venv")
    py = venv_python(venv)
    _run(
        [
            py,
            "-m",
            "pip",
            "install",
            "--no-input",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary=:all:",
            *[f"{n}=={v}" for n, v in pins.items()],
        ],
        "install pinned distributions",
    )
    _run([py, "-m", "pip", "check"], "pip check")
    freeze = _run([py, "-m", "pip", "freeze", "--all"], "pip freeze")
    check_freeze(pins, parse_freeze(freeze), str(env_file))
    return "".join(f"{n}=={v}\n" for n, v in sorted(parse_freeze(freeze).items()))
