"""CI runs the README's test command verbatim."""

import re

from tests.helpers.repo import REPO


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
    assert ".ci/step_quick" in ci and "--configfile config/quick.yaml" in (REPO / ".ci" / "step_quick").read_text()


def readme_e2e_command() -> tuple[str, str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    m = re.search(r"end-to-end tests \(marker `(\w+)`.*?run them with `([^`]+)`", section, flags=re.S)
    assert m, "README's commands section must say how to run the end-to-end tests"
    return m.group(1), m.group(2)


def test_default_run_leaves_out_exactly_the_end_to_end_tests_that_ci_runs_separately():
    """The README's test command deselects the end-to-end marker (pyproject addopts); the README's end-to-end
    command selects that marker; CI runs both verbatim and fails on an empty selection."""
    import shlex
    import tomllib

    marker, cmd = readme_e2e_command()
    ini = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    addopts = shlex.split(ini["addopts"])
    assert addopts[addopts.index("-m") + 1] == f"not {marker}"
    assert any(m.split(":", 1)[0] == marker for m in ini["markers"])
    args = shlex.split(cmd)
    assert args[:3] == ["python", "-m", "pytest"] and args[args.index("-m", 3) + 1] == marker
    ci = (REPO / ".ci" / "run").read_text()
    assert cmd in [line.strip() for line in ci.splitlines()]
    assert ci.count('"$rc" -eq 5') >= 2, "an empty end-to-end selection (exit code 5) must fail CI too"
    assert ci.index(readme_commands()[1].strip()) < ci.index(cmd)


def test_github_workflow_runs_what_ci_runs():
    """.github/workflows/ci.yml calls the README test command and only .ci/ scripts that .ci/run calls too; its
    actions are pinned to commit SHAs and it asks for read access only."""
    import yaml

    wf = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    steps = [s for job in wf["jobs"].values() for s in job["steps"]]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert readme_commands()[1].strip() in runs.splitlines()
    scripts = set(re.findall(r"\.ci/[\w.]+", runs))
    assert {
        ".ci/step_lint",
        ".ci/step_quick",
        ".ci/check_report",
        ".ci/check_full_determinism",
        ".ci/check_claims_reference",
    } <= scripts
    ci = (REPO / ".ci" / "run").read_text()
    called = ci + "".join((REPO / s).read_text() for s in set(re.findall(r"\.ci/[\w.]+", ci)) if (REPO / s).is_file())
    for script in scripts:
        assert (REPO / script).is_file(), script
        assert script in called, f"{script} runs on GitHub but not in .ci/run (nor in a script it calls)"
    for step in steps:
        if "uses" in step:
            assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", step["uses"]), step["uses"]
    assert wf["permissions"] == {"contents": "read"}
    assert "${{" not in runs, "no expression is expanded into a run: script (template injection)"


def test_ci_runs_the_slurm_check_beside_the_resume_check_and_the_full_configuration():
    """.ci/run runs .ci/check_slurm (a real SLURM cluster) against its quick results in the background, beside a
    subshell that runs .ci/check_resume and then the full configuration's checks (set -e: the first failure ends
    it), waits for both and fails when either fails; the report and the peers, which write into results/, come
    after both. The home-made batch system is gone."""
    ci = (REPO / ".ci" / "run").read_text()
    # the reference is the quick run's results (config/quick.yaml names the run quick)
    assert re.search(r"^\.ci/check_slurm results/quick > .*&$", ci, re.M)
    side = re.search(r"^\(\n    set -e\n(.*?)^\) > \S+ 2>&1 &$", ci, re.M | re.S)
    assert side, "no background subshell with set -e"
    steps = re.findall(r"^    (\.ci/\S+)", side.group(1), re.M)
    assert steps == [".ci/check_resume", ".ci/check_full_determinism", ".ci/check_claims_reference"], steps
    assert ci.index(".ci/step_quick") < ci.index(".ci/check_slurm results/quick")
    assert 'wait "$slurm_pid"; slurm_rc=$?' in ci and 'wait "$side_pid"; side_rc=$?' in ci
    assert '[ "$slurm_rc" -eq 0 ] && [ "$side_rc" -eq 0 ] || exit 1' in ci
    after = ci.index('[ "$slurm_rc" -eq 0 ] && [ "$side_rc" -eq 0 ] || exit 1')
    assert after < ci.index("\n.ci/check_report") and after < ci.index("\n.ci/check_peers")
    assert not (REPO / ".ci" / "check_cluster").exists()
    assert not (REPO / "workflow" / "profiles" / "local-cluster").exists()


def test_slurm_check_runs_the_replicated_quick_configuration():
    """The SLURM check builds the quick configuration's claims over seeds (its replicates) in place of the plain
    run, against a reference that .ci/step_quick builds with the same targets; what the SLURM run must match
    exactly (the replicates) is what the resume check leaves out, so the two compare the whole reference."""
    quick = (REPO / ".ci" / "step_quick").read_text()
    slurm = (REPO / ".ci" / "check_slurm").read_text()
    resume = (REPO / ".ci" / "check_resume").read_text()
    assert re.search(r"^snakemake all over_seeds --cores 2 --configfile config/quick.yaml", quick, re.M)
    assert "targets=(over_seeds)" in slurm
    # every snakemake command of the check plans or runs the same targets
    for line in re.findall(r"^.*python -m snakemake -n .*$|^run=\(.*$", slurm, re.M):
        if "memtest" not in line:
            assert '"${targets[@]}"' in line, line
    exact = re.search(r'compare "\$ref" results/quick((?: --only \S+)+)$', slurm, re.M).group(1)
    skipped = re.search(r'compare "\$ref" results/quick((?: --skip \S+)+)$', resume, re.M).group(1)
    assert exact.replace("--only", "--skip") == skipped
    # the globs select every file of every replicate but (0, 0), and none of (0, 0) (dpgrid.core.replicates' layout)
    import fnmatch

    from dpgrid.core.replicates import replicate_grid, replicate_path

    globs = [g.strip("'") for g in re.findall(r"--only (\S+)", exact)]
    for d, n in replicate_grid(3, 3):
        for pattern in ("{drep}{nrep}classdp/claims.csv", "{drep}classdp/forecast/model.npz"):
            path = replicate_path(pattern, d, n)
            selected = any(fnmatch.fnmatchcase(path, g) for g in globs)
            assert selected == (path != replicate_path(pattern)), path
    for path in ("claims.csv", "claims_over_seeds.csv", "over_seeds/spdp/table2.csv"):
        assert any(fnmatch.fnmatchcase(path, g) for g in globs) == ("over_seeds" in path), path
    assert 'compare "$ref" results/quick --a-may-have-more' in slurm
    replicates = re.search(
        r"^replicates: \{data: (\d+), noise: (\d+)\}", (REPO / "config" / "quick.yaml").read_text(), re.M
    )
    assert replicates and (int(replicates.group(1)), int(replicates.group(2))) == (2, 2)


def test_slurm_check_stops_what_it_started():
    """check_slurm stops its cluster from an EXIT trap (also on failure), and the cluster script stops only
    the daemons it started, by the pids it recorded (never by name)."""
    check = (REPO / ".ci" / "check_slurm").read_text()
    assert "trap cleanup EXIT" in check and '.ci/slurm/cluster" stop "$cluster_state"' in check
    cluster = (REPO / ".ci" / "slurm" / "cluster").read_text()
    stop = cluster[cluster.index("stop() {") :]
    assert 'kill "$pid"' in stop and "pkill" not in cluster and "killall" not in cluster


EVENTS = ("pull_request", "push", "schedule", "workflow_dispatch")
#: README's CI table columns -> GitHub events
COLUMNS = {
    "GitHub: pull requests": ("pull_request",),
    "GitHub: pushes to `main`": ("push",),
    "GitHub: weekly, on demand": ("schedule", "workflow_dispatch"),
}


def _runs_on(condition: str | None, event: str) -> bool:
    """Evaluate a job's or step's ``if:`` (comparisons of github.event_name joined by || and &&) for ``event``."""
    if condition is None:
        return True
    expr = condition.replace("${{", "").replace("}}", "").strip()
    assert re.fullmatch(r"(github\.event_name\s*[!=]=\s*'\w+'|\|\||&&|always\(\)|\s)+", expr), condition
    expr = expr.replace("always()", "True").replace("||", " or ").replace("&&", " and ")
    return bool(eval(expr.replace("github.event_name", repr(event)), {"__builtins__": {}}))


def github_runs(event: str) -> str:
    """The run: scripts of every step of ci.yml that runs on ``event``."""
    import yaml

    wf = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    out = []
    for job in wf["jobs"].values():
        if not _runs_on(job.get("if"), event):
            continue
        out += [s.get("run", "") for s in job["steps"] if _runs_on(s.get("if"), event)]
    return "\n".join(out)


def readme_ci_table() -> list[dict[str, str]]:
    text = (REPO / "README.md").read_text().split("\n## CI\n", 1)[1]
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(header, (c.strip() for c in line.strip("|").split("|")))) for line in lines[2:]]


def _command_in(command: str, script: str) -> bool:
    lines = [line.strip() for line in script.splitlines()]
    return any(re.search(rf"(^|[\s&;(]){re.escape(command)}($|[\s\"'&;)])", line) for line in lines)


def test_readme_ci_table_says_where_each_step_runs():
    """Every row of README's CI table: its command is in .ci/run exactly when the table says so, and in the
    steps GitHub runs for each event exactly when the table says so; and every script either file runs has a row."""
    rows = readme_ci_table()
    assert len(rows) >= 10
    ci = (REPO / ".ci" / "run").read_text()
    for row in rows:
        command = row["command"].strip("`")
        assert row[".ci/run".join("``")] in ("yes", "no"), row
        assert _command_in(command, ci) == (row["`.ci/run`"] == "yes"), (command, ".ci/run")
        for column, events in COLUMNS.items():
            for event in events:
                assert _command_in(command, github_runs(event)) == (row[column] == "yes"), (command, event)
    listed = {row["command"].strip("`").split()[0] for row in rows}
    code = "\n".join(line.split("#", 1)[0] for line in ci.splitlines())
    for script in set(re.findall(r"\.ci/(?:step|check)_\w+", code + github_runs("schedule"))):
        assert script in listed, f"{script} runs in CI but README's CI table has no row for it"


def test_ci_and_github_set_the_same_environment():
    """The variables .ci/run exports are set, with the same values, for every GitHub job; README names them."""
    import yaml

    ci = (REPO / ".ci" / "run").read_text()
    exported = dict(re.findall(r"^export (\w+)=(\S+)$", ci, flags=re.M))
    assert {"MPLBACKEND", "DPGRID_HYPOTHESIS_PROFILE", "DPGRID_CI_FULL_DETERMINISM"} <= set(exported)
    wf = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    readme_ci = (REPO / "README.md").read_text().split("\n## CI\n", 1)[1]
    for name, value in exported.items():
        assert str(wf["env"].get(name)) == value, name
        assert f"`{name}={value}`" in readme_ci, name


def test_a_push_cannot_cancel_the_weekly_run():
    """The concurrency group differs between events, and only pull requests cancel their own older runs."""
    import yaml

    wf = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    group, cancel = wf["concurrency"]["group"], str(wf["concurrency"]["cancel-in-progress"])
    assert "github.event_name" in group
    for event in EVENTS:
        expected = event == "pull_request"
        assert _runs_on(cancel if "event_name" in cancel else None, event) == expected or cancel == "false", event


def test_the_table_check_fails_on_a_wrong_row(monkeypatch):
    """A row claiming GitHub runs the SLURM check on pull requests contradicts ci.yml."""
    rows = readme_ci_table()
    slurm = next(r for r in rows if r["command"] == "`.ci/check_slurm`")
    assert not _command_in(".ci/check_slurm", github_runs("pull_request"))
    assert slurm["GitHub: pull requests"] == "no"
    assert _command_in(".ci/check_full_determinism", github_runs("push"))
    assert not _command_in(".ci/check_full_determinism", github_runs("pull_request"))
    assert _command_in(".ci/results_digest.py compare", github_runs("schedule"))
    assert not _command_in(".ci/results_digest.py compare", github_runs("push"))


def test_full_configuration_runs_once_in_ci_and_twice_on_github():
    """README's CI table: `.ci/run` runs the full configuration once (its determinism check is the quick
    configuration's three runs), the GitHub workflow twice and compares them byte for byte."""
    import yaml

    def calls(text):
        return [
            line.split("check_full_determinism", 1)[1].split()
            for line in text.splitlines()
            if ".ci/check_full_determinism" in line.split("#", 1)[0]
        ]

    ci_calls = calls((REPO / ".ci" / "run").read_text())
    assert ci_calls and all(args[1:] == ["1"] for args in ci_calls), ci_calls
    wf = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    gh_calls = calls("\n".join(s.get("run", "") for job in wf["jobs"].values() for s in job["steps"]))
    assert gh_calls and all(len(args) == 1 for args in gh_calls), gh_calls
    script = (REPO / ".ci" / "check_full_determinism").read_text()
    assert 'runs="${2:-2}"' in script and 'results_digest.py" compare "$work/run1.sha256" "$work/run2.sha256"' in script
    for ci_step in ("check_resume", "check_slurm"):
        assert "results_digest.py" in (REPO / ".ci" / ci_step).read_text(), ci_step


def test_commit_check_names_a_long_subject_and_a_missing_body(tmp_path):
    """.ci/check_commits (in .ci/step_lint): every commit after the base has a subject <= 72 characters and a body."""
    import subprocess

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    git("config", "user.email", "ci@example.org")
    git("config", "user.name", "ci")
    git("commit", "-q", "--allow-empty", "-m", "x" * 100)  # before the base: not checked
    base = git("rev-parse", "HEAD").strip()
    git("commit", "-q", "--allow-empty", "-m", "Good subject\n\nThe detail.")
    check = [str(REPO / ".ci" / "check_commits"), str(tmp_path), base]
    assert subprocess.run(check, capture_output=True, text=True).returncode == 0
    git("commit", "-q", "--allow-empty", "-m", "s" * 73 + "\n\nbody")
    git("commit", "-q", "--allow-empty", "-m", "No body")
    proc = subprocess.run(check, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "subject has 73 characters" in proc.stderr and "has no body after a blank line: 'No body'" in proc.stderr
    assert "x" * 80 not in proc.stderr
