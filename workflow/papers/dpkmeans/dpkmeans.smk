# Differentially private K-means (Ravi, Scaglione et al., IEEE TSG 2022): leave-one-out sensitivity,
# colored centroid noise, modulo-K labels, baselines, DP synthetic loads (Algorithm 2), Figs. 3, 5-11.
# Figs. 12-13 (AC OPF with the synthetic profiles) live in their own rules file.  See
# workflow/papers/dpkmeans/dpkmeans.md.

DPK_FIGS = ["fig3", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10", "fig11", "fig11_sweep"]
DPK_DATA = f"{RESOURCES}meters/{config['dpkmeans']['data_source']}"
register_data_used(config["dpkmeans"]["data_source"])

register_targets(
    "dpkmeans",
    {
        **{f: figure_files(f"{RESULTS}dpkmeans/{f}") for f in DPK_FIGS},
        "table_sensitivity": f"{DATA_RESULTS}dpkmeans/sensitivity.csv",
        "table_bic": f"{RESULTS}dpkmeans/bic.csv",
        "table_audit": f"{RESULTS}dpkmeans/audit.csv",
        "table_paper_variants": f"{DATA_RESULTS}dpkmeans/paper_variants.csv",
        "table_exact_delta": f"{DATA_RESULTS}dpkmeans/exact_delta.csv",
        "table_synthetic_sweep": f"{RESULTS}dpkmeans/synthetic_sweep.csv",
        "table_standin_draws": f"{DATA_RESULTS}dpkmeans/standin_draws.csv",
        "profiles_true": f"{RESULTS}dpkmeans/profiles_true.csv",
        "profiles_synthetic": f"{RESULTS}dpkmeans/profiles_synthetic.csv",
    },
)
register_claims(f"{RESULTS}dpkmeans/claims.csv")
# Fig. 9(b) over the replicates (target over_seeds, docs/seeds.md): the paper's losses are one draw each
register_spread(
    "dpkmeans",
    "fig9_accuracy",
    f"{RESULTS}dpkmeans/fig9_accuracy.csv",
    keys=["method", "eps_c", "delta_c"],
    values=["mean_loss", "expected_loss"],
    title="dpkmeans Fig. 9(b): DP accuracy loss over the replicates (data and noise drawn again)",
)
register_over_seeds_targets(figure_files(f"{RUN_RESULTS}over_seeds/dpkmeans/fig9"))

# Inputs of each figure (result tables only).
DPK_FIG_INPUTS = {
    "fig3": {"table": f"{RESULTS}dpkmeans/fig3_series.csv", "info": f"{RESULTS}dpkmeans/fig3_info.json"},
    "fig5": {
        "points": f"{RESULTS}dpkmeans/gm_points.csv",
        "centroids": f"{RESULTS}dpkmeans/gm_centroids.csv",
        "info": f"{RESULTS}dpkmeans/gm_info.json",
    },
    "fig6": {
        "noise": f"{RESULTS}dpkmeans/fig6_noise.csv",
        "variance": f"{RESULTS}dpkmeans/fig6_variance.csv",
        "labels": f"{RESULTS}dpkmeans/fig6_labels.csv",
    },
    "fig7": {"mds": f"{RESULTS}dpkmeans/mds.csv", "sensitivity": f"{DATA_RESULTS}dpkmeans/sensitivity.csv"},
    "fig8": {
        "mds": f"{RESULTS}dpkmeans/mds.csv",
        "sensitivity": f"{DATA_RESULTS}dpkmeans/sensitivity.csv",
        "release": f"{RESULTS}dpkmeans/release.json",
    },
    "fig9": {
        "privacy": f"{RESULTS}dpkmeans/fig9_privacy.csv",
        "accuracy": f"{RESULTS}dpkmeans/fig9_accuracy.csv",
        "labels": f"{RESULTS}dpkmeans/fig9_labels.csv",
        "variants": f"{DATA_RESULTS}dpkmeans/paper_variants.csv",
    },
    "fig10": {"profiles_true": f"{RESULTS}dpkmeans/profiles_true.csv", "bic": f"{RESULTS}dpkmeans/bic.csv"},
    "fig11": {
        "bands": f"{RESULTS}dpkmeans/synthetic_bands.csv",
        "profiles_synthetic": f"{RESULTS}dpkmeans/profiles_synthetic.csv",
        "info": f"{RESULTS}dpkmeans/synthetic.json",
    },
    "fig11_sweep": {"sweep": f"{RESULTS}dpkmeans/synthetic_sweep.csv", "info": f"{RESULTS}dpkmeans/synthetic.json"},
}


rule dpkmeans_profiles:
    input:
        readings=f"{DPK_DATA}/readings.csv",
        meters=f"{DPK_DATA}/meters.csv",
    output:
        profiles=f"{DATA_RESULTS}dpkmeans/profiles_all.csv",
    log:
        f"{DATA_LOGS}dpkmeans/profiles.log",
    benchmark:
        f"{DATA_BENCHMARKS}dpkmeans_profiles/profiles.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=600,
        runtime=1,
    script:
        "scripts/profiles.py"


rule dpkmeans_clustering:
    input:
        # the data hold more meters than k, checked before any job (dpkmeans/common.smk)
        unpack(checked_inputs(dpkmeans_meter_problems, {"profiles": f"{DATA_RESULTS}dpkmeans/profiles_all.csv"})),
    output:
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
        table=report_entry(f"{DATA_RESULTS}dpkmeans/sensitivity.csv", "dpkmeans", "table_sensitivity"),
        outliers=f"{DATA_RESULTS}dpkmeans/outliers.csv",
    log:
        f"{DATA_LOGS}dpkmeans/clustering.log",
    benchmark:
        f"{DATA_BENCHMARKS}dpkmeans_clustering/clustering.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            "data_source",
            "k",
            "kmeans",
            "outliers",
            "centroid_noise.solver_tol",
            "centroid_noise.solver_max_iter",
        ),
        seed=data_seed_param,
    script:
        "scripts/clustering.py"


rule dpkmeans_release:
    input:
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
        profiles=f"{DATA_RESULTS}dpkmeans/profiles_all.csv",
    output:
        npz=f"{RESULTS}dpkmeans/release.npz",
        info=f"{RESULTS}dpkmeans/release.json",
        profiles_true=report_entry(f"{RESULTS}dpkmeans/profiles_true.csv", "dpkmeans", "profiles_true"),
    log:
        f"{LOGS}dpkmeans/release.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_release/release.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("dpkmeans", "release", "centroid_noise.calibration"),
        seed=noise_seed_param,
    script:
        "scripts/release.py"


rule dpkmeans_mds:
    input:
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
        release=f"{RESULTS}dpkmeans/release.npz",
    output:
        table=f"{RESULTS}dpkmeans/mds.csv",
    log:
        f"{LOGS}dpkmeans/mds.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_mds/mds.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=450,
        runtime=1,
    params:
        cfg=cfg_slice("dpkmeans", "mds_max_iter", "mds_max_points"),
        seed=noise_seed_param,
    script:
        "scripts/mds.py"


rule dpkmeans_gaussian_mixture:
    output:
        points=f"{RESULTS}dpkmeans/gm_points.csv",
        centroids=f"{RESULTS}dpkmeans/gm_centroids.csv",
        info=f"{RESULTS}dpkmeans/gm_info.json",
        fig6_noise=f"{RESULTS}dpkmeans/fig6_noise.csv",
        fig6_variance=f"{RESULTS}dpkmeans/fig6_variance.csv",
        fig6_labels=f"{RESULTS}dpkmeans/fig6_labels.csv",
    log:
        f"{LOGS}dpkmeans/gaussian_mixture.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_gaussian_mixture/gaussian_mixture.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            "gaussian_mixture",
            "fig6",
            "kmeans.n_init",
            "centroid_noise.solver_tol",
            "centroid_noise.calibration",
        ),
        seed=noise_seed_param,
        data_seed=data_seed_param,
    script:
        "scripts/gaussian_mixture.py"


rule dpkmeans_fig9_accuracy:
    input:
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
    output:
        accuracy=f"{RESULTS}dpkmeans/fig9/accuracy_eps{{eps}}.csv",
        info=f"{RESULTS}dpkmeans/fig9/info_eps{{eps}}.json",
    log:
        f"{LOGS}dpkmeans/fig9_accuracy_eps{{eps}}.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_fig9_accuracy/fig9_accuracy_eps{{eps}}.tsv"
    wildcard_constraints:
        eps=sweep_constraint(dpkmeans_fig9_eps()),
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            "fig9.delta_c",
            "fig9.eps_l",
            "fig9.delta_l",
            "fig9.n_repeats",
            "baselines",
            "centroid_noise.calibration",
        ),
        eps=lambda wc: swept_value(config["dpkmeans"]["fig9"]["eps_grid"], wc.eps, "dpkmeans.fig9.eps_grid", "eps"),
        seed=noise_seed_param,
    script:
        "scripts/fig9_accuracy.py"


rule dpkmeans_fig9_tables:
    input:
        unpack(dpkmeans_fig9_points),
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
    output:
        accuracy=f"{RESULTS}dpkmeans/fig9_accuracy.csv",
        privacy=f"{RESULTS}dpkmeans/fig9_privacy.csv",
        labels=f"{RESULTS}dpkmeans/fig9_labels.csv",
        info=f"{RESULTS}dpkmeans/fig9_info.json",
    log:
        f"{LOGS}dpkmeans/fig9_tables.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_fig9_tables/fig9_tables.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            *[
                f"fig9.{k}"
                for k in (
                    "eps_grid",
                    "delta_c",
                    "left_eps_calibrated",
                    "left_eps_min",
                    "left_eps_max",
                    "left_n",
                    "right_delta_l",
                    "right_eps_min",
                    "right_eps_max",
                    "right_n",
                )
            ],
            "centroid_noise.calibration",
        ),
    script:
        "scripts/fig9_tables.py"


rule dpkmeans_white_noise_pitfall:
    input:
        readings=f"{DPK_DATA}/readings.csv",
        meters=f"{DPK_DATA}/meters.csv",
    output:
        table=f"{RESULTS}dpkmeans/fig3_series.csv",
        info=f"{RESULTS}dpkmeans/fig3_info.json",
    log:
        f"{LOGS}dpkmeans/white_noise_pitfall.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_white_noise_pitfall/white_noise_pitfall.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=600,
        runtime=1,
    params:
        cfg=cfg_slice("dpkmeans", "white_noise_pitfall"),
        seed=noise_seed_param,
    script:
        "scripts/white_noise_pitfall.py"


rule dpkmeans_synthetic:
    input:
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
        profiles_true=f"{RESULTS}dpkmeans/profiles_true.csv",
    output:
        profiles_synthetic=report_entry(f"{RESULTS}dpkmeans/profiles_synthetic.csv", "dpkmeans", "profiles_synthetic"),
        bands=f"{RESULTS}dpkmeans/synthetic_bands.csv",
        info=f"{RESULTS}dpkmeans/synthetic.json",
    log:
        f"{LOGS}dpkmeans/synthetic.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_synthetic/synthetic.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            *[
                f"synthetic.{k}"
                for k in (
                    "alpha",
                    "eps_c",
                    "delta_c",
                    "cov_mechanism",
                    "eps_w",
                    "delta_w",
                    "row_bound",
                    "debias_wishart",
                    "cov_floor",
                    "oversample",
                    "n_band_samples",
                    "band",
                )
            ],
            "centroid_noise.calibration",
        ),
        seed=noise_seed_param,
    script:
        "scripts/synthetic.py"


rule dpkmeans_synthetic_sweep:
    input:
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
        profiles_true=f"{RESULTS}dpkmeans/profiles_true.csv",
    output:
        table=report_entry(f"{RESULTS}dpkmeans/synthetic_sweep.csv", "dpkmeans", "table_synthetic_sweep"),
    log:
        f"{LOGS}dpkmeans/synthetic_sweep.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_synthetic_sweep/synthetic_sweep.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=400,
        runtime=10,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            "synthetic_sweep",
            *[f"synthetic.{k}" for k in ("alpha", "eps_c", "delta_c", "eps_w", "row_bound", "cov_floor", "band")],
            "centroid_noise.calibration",
        ),
        seed=noise_seed_param,
    script:
        "scripts/synthetic_sweep.py"


rule dpkmeans_fidelity:
    input:
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
    output:
        variants=report_entry(f"{DATA_RESULTS}dpkmeans/paper_variants.csv", "dpkmeans", "table_paper_variants"),
        exact_delta=report_entry(f"{DATA_RESULTS}dpkmeans/exact_delta.csv", "dpkmeans", "table_exact_delta"),
        commercial_sweep=f"{DATA_RESULTS}dpkmeans/commercial_sweep.csv",
    log:
        f"{DATA_LOGS}dpkmeans/fidelity.log",
    benchmark:
        f"{DATA_BENCHMARKS}dpkmeans_fidelity/fidelity.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=400,
        runtime=2,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            "release",
            "fig9.eps_grid",
            "fig9.delta_c",
            "fig9.eps_l",
            "fig9.delta_l",
            "synthetic.eps_c",
            "synthetic.delta_c",
            "gaussian_mixture.eps_c",
            "gaussian_mixture.delta_c",
            "audit.centroid_budgets",
            "centroid_noise.calibration",
            "kmeans",
            "fidelity",
        ),
        seed=data_seed_param,
    script:
        "scripts/fidelity.py"


rule dpkmeans_standin_draws:
    output:
        table=report_entry(f"{DATA_RESULTS}dpkmeans/standin_draws.csv", "dpkmeans", "table_standin_draws"),
    log:
        f"{DATA_LOGS}dpkmeans/standin_draws.log",
    benchmark:
        f"{DATA_BENCHMARKS}dpkmeans_standin_draws/standin_draws.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=900,
        runtime=8,
    params:
        cfg=cfg_slice("dpkmeans", "data_source", "k", "kmeans", "outliers", "fidelity.n_draws"),
        spec=config["data"]["experiments"][config["dpkmeans"]["data_source"]],
        seed=data_seed_param,
    script:
        "scripts/standin_draws.py"


rule dpkmeans_bic:
    input:
        profiles_true=f"{RESULTS}dpkmeans/profiles_true.csv",
    output:
        table=report_entry(f"{RESULTS}dpkmeans/bic.csv", "dpkmeans", "table_bic"),
    log:
        f"{LOGS}dpkmeans/bic.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_bic/bic.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("dpkmeans", "fig10.candidates", "fig10.min_samples", "fig10.min_kw"),
    script:
        "scripts/bic.py"


rule dpkmeans_audit:
    input:
        npz=f"{DATA_RESULTS}dpkmeans/clustering.npz",
    output:
        table=report_entry(f"{RESULTS}dpkmeans/audit.csv", "dpkmeans", "table_audit"),
    log:
        f"{LOGS}dpkmeans/audit.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_audit/audit.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=1600,
        runtime=2,
    params:
        cfg=cfg_slice("dpkmeans", "audit", "synthetic.row_bound", "synthetic.eps_w"),
        seed=noise_seed_param,
    script:
        "scripts/audit.py"


rule dpkmeans_figure:
    input:
        unpack(lambda wc: DPK_FIG_INPUTS[wc.fig]),
    output:
        pdf=f"{RESULTS}dpkmeans/{{fig}}.pdf",
        png=report_entry(f"{RESULTS}dpkmeans/{{fig}}.png", "dpkmeans", "{fig}", "png"),
    log:
        f"{LOGS}dpkmeans/figure_{{fig}}.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_figure/figure_{{fig}}.tsv"
    wildcard_constraints:
        fig="|".join(DPK_FIGS),
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=350,
        runtime=4,
    params:
        cfg=lambda wc: cfg_slice(
            "dpkmeans", *{"fig10": ["fig10.hours_shown"], "fig11": ["synthetic.n_shown"]}.get(wc.fig, [])
        ),
        data=config["data"]["experiments"][config["dpkmeans"]["data_source"]],
    script:
        "scripts/figure.py"


# the figures over seeds: drawn from the spread tables of rule table_over_seeds (workflow/rules/report.smk)
rule dpkmeans_figure_over_seeds:
    input:
        spread=f"{RUN_RESULTS}over_seeds/dpkmeans/{{fig}}_accuracy.csv",
    output:
        pdf=f"{RUN_RESULTS}over_seeds/dpkmeans/{{fig}}.pdf",
        png=f"{RUN_RESULTS}over_seeds/dpkmeans/{{fig}}.png",
    log:
        f"{RUN_LOGS}dpkmeans/figure_{{fig}}_over_seeds.log",
    benchmark:
        f"{RUN_BENCHMARKS}dpkmeans_figure_over_seeds/figure_{{fig}}.tsv"
    wildcard_constraints:
        fig="fig9",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=350,
        runtime=1,
    params:
        data=config["data"]["experiments"][config["dpkmeans"]["data_source"]],
    script:
        "scripts/figure_over_seeds.py"


REGISTRY.on_demand_rules.add("dpkmeans_figure_over_seeds")


rule dpkmeans_claims:
    input:
        privacy_audits=f"{RUN_RESULTS}dpkmeans/privacy_audit.csv",
        sensitivity=f"{DATA_RESULTS}dpkmeans/sensitivity.csv",
        accuracy=f"{RESULTS}dpkmeans/fig9_accuracy.csv",
        synthetic=f"{RESULTS}dpkmeans/synthetic.json",
        bic=f"{RESULTS}dpkmeans/bic.csv",
        audit=f"{RESULTS}dpkmeans/audit.csv",
        pitfall=f"{RESULTS}dpkmeans/fig3_info.json",
        release=f"{RESULTS}dpkmeans/release.json",
        variants=f"{DATA_RESULTS}dpkmeans/paper_variants.csv",
        exact_delta=f"{DATA_RESULTS}dpkmeans/exact_delta.csv",
        sweep=f"{RESULTS}dpkmeans/synthetic_sweep.csv",
        commercial_sweep=f"{DATA_RESULTS}dpkmeans/commercial_sweep.csv",
        standin_draws=f"{DATA_RESULTS}dpkmeans/standin_draws.csv",
        gm_info=f"{RESULTS}dpkmeans/gm_info.json",
        gm_points=f"{RESULTS}dpkmeans/gm_points.csv",
        gm_centroids=f"{RESULTS}dpkmeans/gm_centroids.csv",
        fig6_noise=f"{RESULTS}dpkmeans/fig6_noise.csv",
        fig6_variance=f"{RESULTS}dpkmeans/fig6_variance.csv",
        fig6_labels=f"{RESULTS}dpkmeans/fig6_labels.csv",
        mds=f"{RESULTS}dpkmeans/mds.csv",
        outliers=f"{DATA_RESULTS}dpkmeans/outliers.csv",
        profiles_true=f"{RESULTS}dpkmeans/profiles_true.csv",
    output:
        claims=f"{RESULTS}dpkmeans/claims.csv",
    log:
        f"{LOGS}dpkmeans/claims.log",
    benchmark:
        f"{BENCHMARKS}dpkmeans_claims/claims.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("dpkmeans", "claims", "release"),
        data=config["data"]["experiments"][config["dpkmeans"]["data_source"]],
        # with the peers on, the diffprivlib row comes from results/peers/claims.csv (peers.smk)
        peers_enabled=config["peers"]["enabled"],
    script:
        "scripts/claims.py"


register_benchmarks(rules.dpkmeans_figure, *[{"fig": f} for f in DPK_FIGS])
register_benchmarks(rules.dpkmeans_fig9_accuracy, *[{"eps": e} for e in dpkmeans_fig9_eps()])


# Black-box privacy audit of Algorithm 1's releases, the Wishart covariance and the DP Lloyd step
# (dpgrid.papers.dpkmeans.privacy_audit).
rule dpkmeans_privacy_audit:
    input:
        npz=f"{RUN_RESULTS}dpkmeans/clustering.npz",
    output:
        table=f"{RUN_RESULTS}dpkmeans/privacy_audit.csv",
    log:
        f"{RUN_LOGS}dpkmeans/privacy_audit.log",
    benchmark:
        f"{RUN_BENCHMARKS}dpkmeans_privacy_audit/privacy_audit.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=2400,
        runtime=8,
    params:
        cfg=cfg_slice(
            "dpkmeans",
            "audit.centroid_budgets",
            "audit.label_budgets",
            "synthetic.alpha",
            "synthetic.eps_w",
            "synthetic.row_bound",
            "baselines.bound_kw",
        ),
        audit=config["privacy_audits"]["dpkmeans"],
        level=config["privacy_audits"]["level"],
        seed=config["seed"],
    script:
        "scripts/privacy_audit.py"


register_privacy_audit(f"{RUN_RESULTS}dpkmeans/privacy_audit.csv")
