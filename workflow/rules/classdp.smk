# classdp: Ramakrishna et al., "Differential Privacy for Class-based Data: A Practical Gaussian
# Mechanism". Synthetic labels (Sec. VI-A, Figs. 1-2) and household ARMA forecasts (Secs. V, VI-B,
# Figs. 3-4); proposed mechanism (Algorithm 1 + eq. 50) vs white noise vs no noise, exact delta(eps)
# (generalised chi-square tail), empirical audits and a Bayes-classifier attack. See docs/classdp.md.

CLASSDP = config["classdp"]
CLASSDP_DATA = f"resources/meters/{CLASSDP['forecast']['data_source']}"
CLASSDP_SRC = source_hash("dpgrid.experiments.classdp", "dpgrid.privacy.gaussian_loss",
                          "dpgrid.mechanisms.gaussian_class", "dpgrid.models.arma")
CLASSDP_FIG_SRC = source_hash("dpgrid.experiments.classdp", "dpgrid.figures")
CLASSDP_SHARDS = list(range(CLASSDP["forecast"]["arma"]["shards"]))


CLASSDP_FORECAST_FIT_KEYS = ("data_source", "log_floor_kw", "seasonal_period_days", "origin_hour", "train_samples",
                             "conditioning_samples", "horizon", "arma")


register_targets("classdp", {
    "fig1": figure_files("results/classdp/fig1"),
    "fig2": figure_files("results/classdp/fig2"),
    "fig3": figure_files("results/classdp/fig3"),
    "fig4": figure_files("results/classdp/fig4"),
    "table_mse": "results/classdp/table_mse.csv",
    "table_delta_synthetic": "results/classdp/synthetic/delta_curves.csv",
    "table_delta_forecast": "results/classdp/forecast/delta_curves.csv",
    "table_audit": ["results/classdp/synthetic/audit.csv", "results/classdp/forecast/audit.csv"],
    "table_attack": ["results/classdp/synthetic/attack.csv", "results/classdp/forecast/attack.csv"],
    "table_households": "results/classdp/forecast/households.csv",
})
register_claims("results/classdp/claims.csv")


wildcard_constraints:
    setting="synthetic|forecast",
    rho=r"[0-9]+(\.[0-9]+)?(e-?[0-9]+)?",
    shard=r"[0-9]+",


rule classdp_synthetic_model:
    output:
        model="results/classdp/synthetic/model.npz",
        table="results/classdp/synthetic/model.csv",
    params:
        src=CLASSDP_SRC,
        cfg={"seed": config["seed"], "synthetic": CLASSDP["synthetic"]},
    log:
        "logs/classdp/synthetic_model.log",
    benchmark:
        "benchmarks/classdp_synthetic_model/synthetic_model.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/synthetic_model.py"


rule classdp_forecast_arma:
    input:
        readings=f"{CLASSDP_DATA}/readings.csv",
        meters=f"{CLASSDP_DATA}/meters.csv",
    output:
        npz="results/classdp/forecast/arma_shard{shard}.npz",
        fits="results/classdp/forecast/arma_shard{shard}.csv",
    params:
        src=CLASSDP_SRC,
        cfg={k: CLASSDP["forecast"][k] for k in CLASSDP_FORECAST_FIT_KEYS},
    log:
        "logs/classdp/forecast_arma_{shard}.log",
    benchmark:
        "benchmarks/classdp_forecast_arma/forecast_arma_{shard}.tsv"
    threads: 1
    resources:
        mem_mb=450,
        runtime=6,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/forecast_arma.py"


rule classdp_forecast_model:
    input:
        readings=f"{CLASSDP_DATA}/readings.csv",
        meters=f"{CLASSDP_DATA}/meters.csv",
        npz=expand("results/classdp/forecast/arma_shard{shard}.npz", shard=CLASSDP_SHARDS),
        fits=expand("results/classdp/forecast/arma_shard{shard}.csv", shard=CLASSDP_SHARDS),
    output:
        model="results/classdp/forecast/model.npz",
        households="results/classdp/forecast/households.csv",
        summary="results/classdp/forecast/model_summary.json",
    params:
        src=CLASSDP_SRC,
        cfg={"seed": config["seed"], **{k: CLASSDP["forecast"][k] for k in CLASSDP_FORECAST_FIT_KEYS + ("past_hours", "n_clusters", "kmeans_n_init")}},
    log:
        "logs/classdp/forecast_model.log",
    benchmark:
        "benchmarks/classdp_forecast_model/forecast_model.tsv"
    threads: 1
    resources:
        mem_mb=450,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/forecast_model.py"


rule classdp_no_noise:
    input:
        model="results/classdp/{setting}/model.npz",
    output:
        curves="results/classdp/{setting}/curves_no_noise.csv",
        audit="results/classdp/{setting}/audit_no_noise.csv",
        attack="results/classdp/{setting}/attack_no_noise.csv",
    params:
        src=CLASSDP_SRC,
        cfg=classdp_setting_cfg,
    log:
        "logs/classdp/{setting}_no_noise.log",
    benchmark:
        "benchmarks/classdp_no_noise/{setting}_no_noise.tsv"
    threads: 1
    resources:
        mem_mb=350,
        runtime=2,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/no_noise.py"


rule classdp_mechanism:
    input:
        model="results/classdp/{setting}/model.npz",
    output:
        mechanisms="results/classdp/{setting}/mechanisms_rho{rho}.npz",
        curves="results/classdp/{setting}/curves_rho{rho}.csv",
        audit="results/classdp/{setting}/audit_rho{rho}.csv",
        attack="results/classdp/{setting}/attack_rho{rho}.csv",
        j_history="results/classdp/{setting}/algorithm1_rho{rho}.csv",
        summary="results/classdp/{setting}/algorithm1_rho{rho}.json",
    params:
        src=CLASSDP_SRC,
        cfg=classdp_setting_cfg,
    log:
        "logs/classdp/{setting}_mechanism_rho{rho}.log",
    benchmark:
        "benchmarks/classdp_mechanism/{setting}_mechanism_rho{rho}.tsv"
    threads: 1
    resources:
        mem_mb=450,
        runtime=4,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/mechanism.py"


rule classdp_collect:
    input:
        curves=lambda wc: [f"results/classdp/{wc.setting}/curves_no_noise.csv"]
        + expand("results/classdp/{setting}/curves_rho{rho}.csv", setting=wc.setting, rho=classdp_rhos(wc.setting)),
        audit=lambda wc: [f"results/classdp/{wc.setting}/audit_no_noise.csv"]
        + expand("results/classdp/{setting}/audit_rho{rho}.csv", setting=wc.setting, rho=classdp_rhos(wc.setting)),
        attack=lambda wc: [f"results/classdp/{wc.setting}/attack_no_noise.csv"]
        + expand("results/classdp/{setting}/attack_rho{rho}.csv", setting=wc.setting, rho=classdp_rhos(wc.setting)),
    output:
        curves="results/classdp/{setting}/delta_curves.csv",
        audit="results/classdp/{setting}/audit.csv",
        attack="results/classdp/{setting}/attack.csv",
    params:
        src=CLASSDP_SRC,
    log:
        "logs/classdp/{setting}_collect.log",
    benchmark:
        "benchmarks/classdp_collect/{setting}_collect.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/collect.py"


rule classdp_forecast_release:
    input:
        model="results/classdp/forecast/model.npz",
        mechanisms=f"results/classdp/forecast/mechanisms_rho{sweep_label(CLASSDP['forecast']['fig3_rho'])}.npz",
    output:
        table_mse="results/classdp/table_mse.csv",
        all_mse="results/classdp/forecast/release_mse_all.csv",
        series="results/classdp/forecast/fig3_series.csv",
    params:
        src=CLASSDP_SRC,
        cfg={"seed": config["seed"], "delta_tolerance": CLASSDP["delta_tolerance"], "forecast": CLASSDP["forecast"]},
    log:
        "logs/classdp/forecast_release.log",
    benchmark:
        "benchmarks/classdp_forecast_release/forecast_release.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/forecast_release.py"


rule classdp_fig1:
    input:
        model="results/classdp/synthetic/model.npz",
        mechanisms=f"results/classdp/synthetic/mechanisms_rho{sweep_label(CLASSDP['synthetic']['contour_rho'])}.npz",
    output:
        pdf=report("results/classdp/fig1.pdf", category="classdp"),
        png="results/classdp/fig1.png",
    params:
        src=CLASSDP_FIG_SRC,
    log:
        "logs/classdp/fig1.log",
    benchmark:
        "benchmarks/classdp_fig1/fig1.tsv"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/fig1.py"


rule classdp_fig2:
    input:
        curves="results/classdp/synthetic/delta_curves.csv",
    output:
        pdf=report("results/classdp/fig2.pdf", category="classdp"),
        png="results/classdp/fig2.png",
    params:
        src=CLASSDP_FIG_SRC,
        cfg=CLASSDP["synthetic"]["rhos"],
    log:
        "logs/classdp/fig2.log",
    benchmark:
        "benchmarks/classdp_fig2/fig2.tsv"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/fig2.py"


rule classdp_fig3:
    input:
        series="results/classdp/forecast/fig3_series.csv",
        table_mse="results/classdp/table_mse.csv",
    output:
        pdf=report("results/classdp/fig3.pdf", category="classdp"),
        png="results/classdp/fig3.png",
    params:
        src=CLASSDP_FIG_SRC,
    log:
        "logs/classdp/fig3.log",
    benchmark:
        "benchmarks/classdp_fig3/fig3.tsv"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/fig3.py"


rule classdp_fig4:
    input:
        curves="results/classdp/forecast/delta_curves.csv",
    output:
        pdf=report("results/classdp/fig4.pdf", category="classdp"),
        png="results/classdp/fig4.png",
    params:
        src=CLASSDP_FIG_SRC,
        cfg=CLASSDP["forecast"]["rhos"],
    log:
        "logs/classdp/fig4.log",
    benchmark:
        "benchmarks/classdp_fig4/fig4.tsv"
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/fig4.py"


rule classdp_claims:
    input:
        synthetic_curves="results/classdp/synthetic/delta_curves.csv",
        forecast_curves="results/classdp/forecast/delta_curves.csv",
        table_mse="results/classdp/table_mse.csv",
        forecast_summary="results/classdp/forecast/model_summary.json",
    output:
        claims="results/classdp/claims.csv",
    params:
        src=CLASSDP_SRC,
        cfg=CLASSDP,
    log:
        "logs/classdp/claims.log",
    benchmark:
        "benchmarks/classdp_claims/claims.tsv"
    threads: 1
    resources:
        mem_mb=250,
        runtime=1,
    conda:
        "../../environment.yml"
    script:
        "../scripts/classdp/claims.py"


register_benchmarks(rules.classdp_forecast_arma, *[{"shard": s} for s in CLASSDP_SHARDS])
for _proxy in (rules.classdp_no_noise, rules.classdp_collect):
    register_benchmarks(_proxy, {"setting": "synthetic"}, {"setting": "forecast"})
register_benchmarks(rules.classdp_mechanism, *[{"setting": s, "rho": r} for s in ("synthetic", "forecast")
                                                for r in classdp_rhos(s)])
