# Peers (opt-in, config peers.enabled): the dpkmeans paper's Fig. 9 (centre) side by side with the
# authors' code (CEDSKMeans, pinned commit) and IBM diffprivlib's KMeans, on the same clustering and
# budgets. Each peer runs in its own pinned environment (workflow/envs/<peer>.yaml: a venv built by
# peers_env, or the conda env with --sdm conda), never in dpgrid's: the peer scripts
# (workflow/peers/<peer>_run.py) import numpy, the peer and workflow/peers/peerkit.py only, and exchange
# npz/csv files with the dpgrid rules below. Target: `snakemake --cores 2 peers` (rule peers at the end of this file).
# See workflow/papers/dpkmeans/dpkmeans.md (Peers).

import os

PEERS_ENABLED = config["peers"]["enabled"]
CEDSKMEANS_DIR = "resources/peers/cedskmeans/upstream"
CEDSKMEANS_FILES = [f"{CEDSKMEANS_DIR}/{rel}" for rel in config["peers"]["cedskmeans"]["files"]]
PEERS_TARGETS = {
    "peers_fig9": figure_files(f"{RUN_RESULTS}peers/fig9_peers"),
    "peers_table": f"{RUN_RESULTS}peers/table.csv",
}

# Every peers rule is a job of the pipeline only when the peers are enabled.
REGISTRY.on_demand_rules.update(
    {
        "peers_fetch_cedskmeans",
        "peers_env",
        "peers_cedskmeans_run",
        "peers_diffprivlib_run",
        "peers_table",
        "peers_figure",
        "peers_claims",
    }
)
if PEERS_ENABLED:
    register_targets("dpkmeans", PEERS_TARGETS)  # the claims rows are the dpkmeans paper's (claims_index)
    register_claims(f"{RUN_RESULTS}peers/claims.csv")  # every replicate's claims table holds the run's peers rows
    REGISTRY.extra_targets.extend(
        f for files in PEERS_TARGETS.values() for f in ([files] if isinstance(files, str) else files)
    )


rule peers_fetch_cedskmeans:
    output:
        CEDSKMEANS_FILES,
    log:
        "logs/peers/fetch_cedskmeans.log",
    benchmark:
        "benchmarks/peers_fetch_cedskmeans/fetch_cedskmeans.tsv"
    # downloads run on the submitting host (cluster compute nodes often have no internet)
    localrule: True
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=2,
    params:
        pin=cfg_slice("peers", "cedskmeans.base_url", "cedskmeans.mirror_dir", "cedskmeans.files")["cedskmeans"],
        mirror=mirror_param,  # derived: where the files come from is not a rerun trigger (common.smk)
    script:
        "scripts/peers/fetch_cedskmeans.py"


rule peers_env:
    input:
        env="workflow/envs/{peer}.yaml",
    output:
        venv=directory("resources/peers/{peer}/venv"),
        freeze="resources/peers/{peer}/venv.txt",
    log:
        "logs/peers/env_{peer}.log",
    benchmark:
        "benchmarks/peers_env/env_{peer}.tsv"
    wildcard_constraints:
        peer="cedskmeans|diffprivlib",
    # pip downloads from the package registry: on the submitting host
    localrule: True
    # measured: about 50 s each (downloads of about 60 MB); 10 min for slow links
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=400,
        runtime=10,
    script:
        "scripts/peers/env.py"


rule peers_cedskmeans_run:
    input:
        npz=f"{RUN_RESULTS}dpkmeans/clustering.npz",
        sources=CEDSKMEANS_FILES,
        env=peers_env_files("cedskmeans"),
    output:
        npz=f"{RUN_RESULTS}peers/cedskmeans/eps{{eps}}.npz",
        runtime=f"{RUN_BENCHMARKS}peers/cedskmeans_eps{{eps}}.csv",
    log:
        f"{RUN_LOGS}peers/cedskmeans_eps{{eps}}.log",
    benchmark:
        f"{RUN_BENCHMARKS}peers_cedskmeans_run/cedskmeans_eps{{eps}}.tsv"
    wildcard_constraints:
        eps=sweep_constraint(dpkmeans_fig9_eps()),
    conda:
        "../../envs/cedskmeans.yaml"
    resources:
        mem_mb=600,
        runtime=10,
    params:
        python=peers_python("cedskmeans"),
        # the folder of the package's modules (loaded by path, without its __init__)
        source=lambda wc, input: os.path.dirname(
            next(f for f in input.sources if os.path.basename(f) == "_cedskmeans.py")
        ),
        eps=lambda wc: swept_value(config["dpkmeans"]["fig9"]["eps_grid"], wc.eps, "dpkmeans.fig9.eps_grid", "eps"),
        delta=config["dpkmeans"]["fig9"]["delta_c"],
        max_iter=config["peers"]["cedskmeans"]["max_iter"],
        repeats=config["peers"]["n_repeats"],
        seed=lambda wc: peers_seed("cedskmeans", wc.eps),
        code=peers_code("cedskmeans"),
    shell:
        "{params.python} workflow/peers/cedskmeans_run.py --clustering {input.npz} --source {params.source} "
        "--eps {params.eps} --delta {params.delta} --max-iter {params.max_iter} --repeats {params.repeats} "
        "--seed {params.seed} --out {output.npz} --runtime {output.runtime} > {log} 2>&1"


rule peers_diffprivlib_run:
    input:
        npz=f"{RUN_RESULTS}dpkmeans/clustering.npz",
        env=peers_env_files("diffprivlib"),
    output:
        npz=f"{RUN_RESULTS}peers/diffprivlib/eps{{eps}}.npz",
        runtime=f"{RUN_BENCHMARKS}peers/diffprivlib_eps{{eps}}.csv",
    log:
        f"{RUN_LOGS}peers/diffprivlib_eps{{eps}}.log",
    benchmark:
        f"{RUN_BENCHMARKS}peers_diffprivlib_run/diffprivlib_eps{{eps}}.tsv"
    wildcard_constraints:
        eps=sweep_constraint(dpkmeans_fig9_eps()),
    conda:
        "../../envs/diffprivlib.yaml"
    resources:
        mem_mb=400,
        runtime=2,
    params:
        python=peers_python("diffprivlib"),
        eps=lambda wc: swept_value(config["dpkmeans"]["fig9"]["eps_grid"], wc.eps, "dpkmeans.fig9.eps_grid", "eps"),
        bound=config["dpkmeans"]["baselines"]["bound_kw"],
        repeats=config["peers"]["n_repeats"],
        seed=lambda wc: peers_seed("diffprivlib", wc.eps),
        code=peers_code("diffprivlib"),
    shell:
        "{params.python} workflow/peers/diffprivlib_run.py --clustering {input.npz} --eps {params.eps} "
        "--bound {params.bound} --repeats {params.repeats} --seed {params.seed} --out {output.npz} "
        "--runtime {output.runtime} > {log} 2>&1"


rule peers_table:
    input:
        unpack(peers_run_files),
        npz=f"{RUN_RESULTS}dpkmeans/clustering.npz",
        accuracy=f"{RUN_RESULTS}dpkmeans/fig9_accuracy.csv",
    output:
        table=report_entry(f"{RUN_RESULTS}peers/table.csv", "dpkmeans", "peers_table"),
        info=f"{RUN_RESULTS}peers/info.json",
        runtime=f"{RUN_BENCHMARKS}peers/runtime.csv",
    log:
        f"{RUN_LOGS}peers/table.log",
    benchmark:
        f"{RUN_BENCHMARKS}peers_table/table.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=2,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            "fig9.eps_grid",
            "fig9.delta_c",
            "fig9.n_repeats",
            "centroid_noise.calibration",
            "centroid_noise.solver_tol",
            "centroid_noise.solver_max_iter",
            "kmeans.max_iter",
        ),
    script:
        "scripts/peers/table.py"


rule peers_figure:
    input:
        table=f"{RUN_RESULTS}peers/table.csv",
        accuracy=f"{RUN_RESULTS}dpkmeans/fig9_accuracy.csv",
    output:
        pdf=f"{RUN_RESULTS}peers/{{fig}}.pdf",
        png=report_entry(f"{RUN_RESULTS}peers/{{fig}}.png", "dpkmeans", "peers_fig9", "png"),
    log:
        f"{RUN_LOGS}peers/figure_{{fig}}.log",
    benchmark:
        f"{RUN_BENCHMARKS}peers_figure/figure_{{fig}}.tsv"
    wildcard_constraints:
        fig="fig9_peers",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=350,
        runtime=2,
    script:
        "scripts/peers/figure.py"


rule peers_claims:
    input:
        table=f"{RUN_RESULTS}peers/table.csv",
        info=f"{RUN_RESULTS}peers/info.json",
    output:
        claims=f"{RUN_RESULTS}peers/claims.csv",
    log:
        f"{RUN_LOGS}peers/claims.log",
    benchmark:
        f"{RUN_BENCHMARKS}peers_claims/claims.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("peers", "cedskmeans.base_url"),
    script:
        "scripts/peers/claims.py"


if PEERS_ENABLED:
    register_benchmarks(rules.peers_fetch_cedskmeans)
    if not peers_use_conda():
        register_benchmarks(rules.peers_env, *[{"peer": p} for p in PEERS_NAMES])
    for _peer in PEERS_NAMES:
        register_benchmarks(getattr(rules, f"peers_{_peer}_run"), *[{"eps": e} for e in dpkmeans_fig9_eps()])
    register_benchmarks(rules.peers_table)
    register_benchmarks(rules.peers_figure, {"fig": "fig9_peers"})
    register_benchmarks(rules.peers_claims)


# The peer comparison (a target, not a job: no benchmark): `snakemake --cores 2 peers --configfile ... config/peers.yaml`.
rule peers:
    input:
        peers_targets,


REGISTRY.not_measured.add("peers")
