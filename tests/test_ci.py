"""CI runs the README's test command verbatim."""

import re

from conftest import REPO


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section, flags=re.S)


def test_readme_has_two_commands():
    cmds = readme_commands()
    assert len(cmds) == 2
    assert "snakemake --cores" in cmds[0] and "pytest" in cmds[1]


def test_ci_runs_readme_test_command_verbatim():
    test_cmd = readme_commands()[1].strip()
    ci_lines = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    assert test_cmd in ci_lines
    ci = (REPO / ".ci" / "run").read_text()
    assert '"$rc" -eq 5' in ci, "pytest's exit code 5 (no tests collected) must be handled"
    assert "--configfile config/quick.yaml" in ci
