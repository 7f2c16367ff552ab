# Input and params functions of the dpkmeans rules files (Snakemake's style: functions apart from rules).


# dpkmeans.smk
def dpkmeans_fig9_eps():
    return sweep_labels(config["dpkmeans"]["fig9"]["eps_grid"], "dpkmeans.fig9.eps_grid")


def dpkmeans_fig9_points(wildcards):
    """Per-eps_c outputs of dpkmeans_fig9_accuracy, in eps_grid order (inputs of the merge dpkmeans_fig9_tables)."""
    eps = dpkmeans_fig9_eps()
    return {
        "accuracy": expand(f"{RESULTS}dpkmeans/fig9/accuracy_eps{{eps}}.csv", eps=eps, allow_missing=True),
        "info": expand(f"{RESULTS}dpkmeans/fig9/info_eps{{eps}}.json", eps=eps, allow_missing=True),
    }


# grid.smk
def grid_profile_sets():
    n = int(config["grid"]["experiment"]["n_reference_draws"])
    return ["true", "synthetic"] + [f"reference{r}" for r in range(1, n + 1)]


def grid_hour_batches():
    e = config["grid"]["experiment"]
    return batches(e["hours"], int(e["hours_per_job"]))


def grid_feeder_inputs(wildcards):
    """The feeder's files: every file of the pinned IEEE 123 set (the master file reads the others)."""
    if wildcards.feeder == "ieee123":
        return {"master": GRID_IEEE123_MASTER, "files": IEEE123_FILES}
    return {}


def grid_feeder_pins(wildcards):
    """SHA-256 of every downloaded file the feeder reads (checked again before use)."""
    if wildcards.feeder == "ieee123":
        return {
            f"{IEEE123_DIR}/{rel}": digest for rel, digest in config["data"]["downloads"]["ieee123"]["files"].items()
        }
    return {}


# peers.smk
PEERS_NAMES = ["cedskmeans", "diffprivlib"]


def peers_use_conda():
    """True when Snakemake deploys conda envs (--sdm conda): the peers then run in workflow/envs/<peer>.yaml."""
    from snakemake_interface_executor_plugins.settings import DeploymentMethod

    return DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method


def peers_env_files(peer):
    """The venv a peer's run needs (its freeze file, output of peers_env); none under conda."""
    return [] if peers_use_conda() else [f"resources/peers/{peer}/venv.txt"]


def peers_python(peer):
    """The interpreter of a peer's run: its venv's, or the conda env's `python` under --sdm conda."""
    return "python" if peers_use_conda() else f"resources/peers/{peer}/venv/bin/python"


def peers_seed(peer, eps_label):
    """A peer run's seed (an int for its own process), from the root seed and the job's keys (dpgrid.core.seeds)."""
    from dpgrid.core.seeds import job_seed_sequence

    return int(job_seed_sequence(config["seed"], "peers", peer, eps_label).generate_state(1)[0])


def peers_code(peer):
    """Code provenance of a peer run (a shell rule): SHA-256 of its script and of workflow/peers/peerkit.py."""
    import hashlib

    h = hashlib.sha256()
    for name in (f"{peer}_run.py", "peerkit.py"):
        h.update(name.encode() + b"\0" + (REPO / "workflow" / "peers" / name).read_bytes())
    return h.hexdigest()


def peers_run_files(wildcards):
    """Per-eps_c outputs of the peer runs, in eps_grid order (inputs of peers_table)."""
    eps = dpkmeans_fig9_eps()
    files = {p: expand(f"{RUN_RESULTS}peers/{p}/eps{{eps}}.npz", eps=eps) for p in PEERS_NAMES}
    files["runtime"] = [f for p in PEERS_NAMES for f in expand(f"{RUN_BENCHMARKS}peers/{p}_eps{{eps}}.csv", eps=eps)]
    return files


def peers_targets(wildcards):
    """Inputs of the peers target (Snakefile) - the comparison's figure, table, claims and run times."""
    if not config["peers"]["enabled"]:
        raise WorkflowError(
            "target peers: the peer comparison is disabled (config peers.enabled: false); "
            "enable it with an overlay, e.g. `snakemake --cores 2 peers --configfile "
            "config/quick.yaml config/peers.yaml`"
        )
    files = [f for v in PEERS_TARGETS.values() for f in ([v] if isinstance(v, str) else v)]
    return files + [f"{RUN_RESULTS}peers/claims.csv", f"{RUN_BENCHMARKS}peers/runtime.csv"]


# dpkmeans.smk
def dpkmeans_meter_problems(cfg, wildcards):
    """More meters than dpkmeans.k (dpgrid.papers.dpkmeans.descriptor.meter_problems)."""
    from dpgrid.papers.dpkmeans.descriptor import meter_problems

    return meter_problems(cfg)


# grid.smk
def opf_meter_problems(cfg, wildcards):
    """One meter per load bus of the feeder (dpgrid.papers.dpkmeans.opf.minimum)."""
    from dpgrid.papers.dpkmeans.opf.minimum import opf_meter_problems as problems

    return problems(cfg, wildcards.feeder)


def opf_loads_inputs(wildcards):
    return {
        "net": f"{RUN_RESOURCES}grid/{wildcards.feeder}.json",
        "true": f"{RESULTS}dpkmeans/profiles_true.csv",
        "synthetic": f"{RESULTS}dpkmeans/profiles_synthetic.csv",
    }
