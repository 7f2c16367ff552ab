"""Rebuild commands carry the run's configuration (dpgrid.core.rebuild), and the targets said to need a download
are exactly those whose jobs include a download (checked on the workflow's DAG)."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from dpgrid.core.rebuild import DEFAULT_CONFIGFILE, RunOptions, rebuild_command, run_options

_name = st.text(st.sampled_from("abcxyz_-./ 0"), min_size=1, max_size=12).filter(lambda s: s.strip() and s[0] != "-")


@given(
    files=st.lists(_name, min_size=1, max_size=4),
    configfiles=st.lists(_name, max_size=3),
    overrides=st.dictionaries(st.sampled_from(["seed", "a", "b"]), st.integers(0, 9), max_size=2),
    mirror=st.none() | _name,
    needs_download=st.booleans(),
)
def test_the_command_line_parses_back_to_the_runs_options(files, configfiles, overrides, mirror, needs_download):
    options = RunOptions(tuple(configfiles), overrides, mirror)
    words = shlex.split(rebuild_command(files, options, needs_download))
    env = []
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        env.append(words.pop(0))
    assert env == ([f"DPGRID_MIRROR={mirror}"] if needs_download and mirror else [])
    assert words[:3] == ["snakemake", "--cores", "2"]
    rest = words[3:]
    cut = (
        rest.index("--configfile")
        if "--configfile" in rest
        else rest.index("--config")
        if "--config" in rest
        else len(rest)
    )
    assert rest[:cut] == files  # targets before --configfile, which takes every following argument
    tail = rest[cut:]
    if configfiles:
        assert tail[0] == "--configfile" and tail[1 : 1 + len(configfiles)] == configfiles
        tail = tail[1 + len(configfiles) :]
    if overrides:
        assert tail[0] == "--config" and tail[1:] == [f"{k}={v}" for k, v in overrides.items()]
    else:
        assert tail == []


def test_run_options_drop_the_default_config_file_and_keep_the_order(tmp_path):
    (tmp_path / "config").mkdir()
    options = run_options(
        [DEFAULT_CONFIGFILE, "config/quick.yaml", tmp_path / "config" / "peers.yaml", "/elsewhere/x.yaml"],
        {"seed": 3},
        "/data/mirror",
        cwd=tmp_path,
    )
    assert options.configfiles == ("config/quick.yaml", "config/peers.yaml", "/elsewhere/x.yaml")
    assert RunOptions.from_params(options.as_params()) == options
    assert run_options([DEFAULT_CONFIGFILE], None, "", cwd=tmp_path) == RunOptions()
    command = rebuild_command(["results/a.pdf"], options, needs_download=True)
    assert command == (
        "DPGRID_MIRROR=/data/mirror snakemake --cores 2 results/a.pdf --configfile config/quick.yaml "
        "config/peers.yaml /elsewhere/x.yaml --config seed=3"
    )
    assert rebuild_command(["results/a.pdf"], options).startswith("snakemake ")
