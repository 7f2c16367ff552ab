# classdp: Ramakrishna et al., "Differential Privacy for Class-based Data: A Practical Gaussian
# Mechanism". Synthetic labels (Sec. VI-A, Figs. 1-2) and household ARMA forecasts (Secs. V, VI-B,
# Figs. 3-4); proposed mechanism (Algorithm 1 + eq. 50) vs white noise vs no noise, exact delta(eps)
# (generalised chi-square tail), empirical audits and a Bayes-classifier attack. See workflow/papers/classdp/classdp.md.

CLASSDP = config["classdp"]
CLASSDP_DATA = f"{RESOURCES}meters/{CLASSDP['forecast']['data_source']}"
CLASSDP_SHARDS = list(range(CLASSDP["forecast"]["arma"]["shards"]))
CLASSDP_FIGS = ["fig1", "fig2", "fig3", "fig4", "fig_similarity_sweep"]
# forecast keys that shape the log-load series and the forecast origin (ARMA fits and the class model)
CLASSDP_SERIES_KEYS = [
    f"forecast.{k}" for k in ("log_floor_kw", "seasonal_period_days", "origin_hour", "train_samples", "horizon")
]


CLASSDP_DATA_SPEC = config["data"]["experiments"][CLASSDP["forecast"]["data_source"]]
register_data_used(CLASSDP["forecast"]["data_source"])
# the similarity sweep varies the stand-in's free property: with any other data source it has no points
CLASSDP_SIMILARITIES = (
    sweep_labels(
        CLASSDP["forecast"]["similarity_sweep"]["similarities"], "classdp.forecast.similarity_sweep.similarities"
    )
    if CLASSDP_DATA_SPEC["source"] == "synthetic_clustered"
    else []
)
# labels of classdp.forecast.rhos in the order of the sweep point's rows
CLASSDP_SWEEP_RHOS = [sweep_label(r) for r in CLASSDP["forecast"]["rhos"]]


CLASSDP_FIG_INPUTS = {
    "fig1": {
        "model": f"{DATA_RESULTS}classdp/synthetic/model.npz",
        "mechanisms": f"{DATA_RESULTS}classdp/synthetic/mechanisms_rho{sweep_label(CLASSDP['synthetic']['contour_rho'])}.npz",
    },
    "fig2": {"curves": f"{DATA_RESULTS}classdp/synthetic/delta_curves.csv"},
    "fig3": {
        "series": f"{RESULTS}classdp/forecast/fig3_series.csv",
        "table_mse": f"{RESULTS}classdp/table_mse.csv",
        "mse_definitions": f"{RESULTS}classdp/forecast/mse_definitions.csv",
        "summary": f"{DATA_RESULTS}classdp/forecast/model_summary.json",
    },
    "fig4": {
        "curves": f"{DATA_RESULTS}classdp/forecast/delta_curves.csv",
        "summary": f"{DATA_RESULTS}classdp/forecast/model_summary.json",
    },
    "fig_similarity_sweep": {
        "sweep": f"{DATA_RESULTS}classdp/forecast/similarity_sweep.csv",
        "curves": f"{DATA_RESULTS}classdp/forecast/delta_curves.csv",
        "summary": f"{DATA_RESULTS}classdp/forecast/model_summary.json",
    },
}

register_targets(
    "classdp",
    {
        "fig1": figure_files(f"{RESULTS}classdp/fig1"),
        "fig2": figure_files(f"{RESULTS}classdp/fig2"),
        "fig3": figure_files(f"{RESULTS}classdp/fig3"),
        "fig4": figure_files(f"{RESULTS}classdp/fig4"),
        "fig_similarity_sweep": figure_files(f"{RESULTS}classdp/fig_similarity_sweep"),
        "table_mse": f"{RESULTS}classdp/table_mse.csv",
        "table_mse_definitions": f"{RESULTS}classdp/forecast/mse_definitions.csv",
        "table_exact_delta": f"{DATA_RESULTS}classdp/exact_delta.csv",
        "table_similarity_sweep": f"{DATA_RESULTS}classdp/forecast/similarity_sweep.csv",
        "table_delta_synthetic": f"{DATA_RESULTS}classdp/synthetic/delta_curves.csv",
        "table_delta_forecast": f"{DATA_RESULTS}classdp/forecast/delta_curves.csv",
        "table_audit": [f"{RESULTS}classdp/synthetic/audit.csv", f"{RESULTS}classdp/forecast/audit.csv"],
        "table_attack": [f"{RESULTS}classdp/synthetic/attack.csv", f"{RESULTS}classdp/forecast/attack.csv"],
        "table_households": f"{DATA_RESULTS}classdp/forecast/households.csv",
    },
)
register_claims(f"{RESULTS}classdp/claims.csv")
# Fig. 4 over the data replicates (target over_seeds, docs/seeds.md): its curves depend on the data draw only
register_spread(
    "classdp",
    "fig4_delta",
    f"{DATA_RESULTS}classdp/forecast/delta_curves.csv",
    keys=["mechanism", "rho", "epsilon"],
    values=["delta"],
    title="classdp Fig. 4: delta(eps) of the household forecasts over the data replicates",
)
register_over_seeds_targets(figure_files(f"{RUN_RESULTS}over_seeds/classdp/fig4"))


wildcard_constraints:
    setting="synthetic|forecast",
    rho=r"[0-9]+(\.[0-9]+)?(e-?[0-9]+)?",
    shard=r"[0-9]+",
    similarity=r"[0-9]+(\.[0-9]+)?(e-?[0-9]+)?",


rule classdp_synthetic_model:
    output:
        model=f"{DATA_RESULTS}classdp/synthetic/model.npz",
        table=f"{DATA_RESULTS}classdp/synthetic/model.csv",
    log:
        f"{DATA_LOGS}classdp/synthetic_model.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_synthetic_model/synthetic_model.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "classdp", "synthetic.n_classes", "synthetic.dim", "synthetic.mean_spacing", "synthetic.wishart_df"
        ),
        seed=data_seed_param,
    script:
        "scripts/synthetic_model.py"


rule classdp_forecast_arma:
    input:
        readings=f"{CLASSDP_DATA}/readings.csv",
        meters=f"{CLASSDP_DATA}/meters.csv",
    output:
        npz=f"{DATA_RESULTS}classdp/forecast/arma_shard{{shard}}.npz",
        fits=f"{DATA_RESULTS}classdp/forecast/arma_shard{{shard}}.csv",
    log:
        f"{DATA_LOGS}classdp/forecast_arma_{{shard}}.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_forecast_arma/forecast_arma_{{shard}}.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=450,
        runtime=6,
    params:
        cfg=cfg_slice("classdp", *CLASSDP_SERIES_KEYS, "forecast.conditioning_samples", "forecast.arma"),
    script:
        "scripts/forecast_arma.py"


rule classdp_forecast_model:
    input:
        # the data hold more meters than forecast.n_clusters, checked before any job (classdp/common.smk)
        unpack(
            checked_inputs(
                classdp_meter_problems,
                {
                    "readings": f"{CLASSDP_DATA}/readings.csv",
                    "meters": f"{CLASSDP_DATA}/meters.csv",
                    "npz": expand(
                        f"{DATA_RESULTS}classdp/forecast/arma_shard{{shard}}.npz",
                        shard=CLASSDP_SHARDS,
                        allow_missing=True,
                    ),
                    "fits": expand(
                        f"{DATA_RESULTS}classdp/forecast/arma_shard{{shard}}.csv",
                        shard=CLASSDP_SHARDS,
                        allow_missing=True,
                    ),
                },
            )
        ),
    output:
        model=f"{DATA_RESULTS}classdp/forecast/model.npz",
        households=report_entry(f"{DATA_RESULTS}classdp/forecast/households.csv", "classdp", "table_households"),
        summary=f"{DATA_RESULTS}classdp/forecast/model_summary.json",
    log:
        f"{DATA_LOGS}classdp/forecast_model.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_forecast_model/forecast_model.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=450,
        runtime=1,
    params:
        cfg=cfg_slice(
            "classdp",
            *CLASSDP_SERIES_KEYS,
            "forecast.past_hours",
            "forecast.n_clusters",
            "forecast.kmeans_n_init",
            "forecast.arma.nonconverged_rule",
        ),
        seed=data_seed_param,
    script:
        "scripts/forecast_model.py"


rule classdp_no_noise:
    input:
        model=f"{DATA_RESULTS}classdp/{{setting}}/model.npz",
    output:
        curves=f"{RESULTS}classdp/{{setting}}/curves_no_noise.csv",
        audit=f"{RESULTS}classdp/{{setting}}/audit_no_noise.csv",
        attack=f"{RESULTS}classdp/{{setting}}/attack_no_noise.csv",
    log:
        f"{LOGS}classdp/{{setting}}_no_noise.log",
    benchmark:
        f"{BENCHMARKS}classdp_no_noise/{{setting}}_no_noise.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=350,
        runtime=2,
    params:
        cfg=lambda wc: cfg_slice("classdp", "delta_tolerance", "audit", "attack", f"{wc.setting}.epsilon_grid"),
        seed=noise_seed_param,
    script:
        "scripts/no_noise.py"


rule classdp_mechanism:
    input:
        model=f"{DATA_RESULTS}classdp/{{setting}}/model.npz",
    output:
        mechanisms=f"{RESULTS}classdp/{{setting}}/mechanisms_rho{{rho}}.npz",
        curves=f"{RESULTS}classdp/{{setting}}/curves_rho{{rho}}.csv",
        audit=f"{RESULTS}classdp/{{setting}}/audit_rho{{rho}}.csv",
        attack=f"{RESULTS}classdp/{{setting}}/attack_rho{{rho}}.csv",
        j_history=f"{RESULTS}classdp/{{setting}}/algorithm1_rho{{rho}}.csv",
        summary=f"{RESULTS}classdp/{{setting}}/algorithm1_rho{{rho}}.json",
    log:
        f"{LOGS}classdp/{{setting}}_mechanism_rho{{rho}}.log",
    benchmark:
        f"{BENCHMARKS}classdp_mechanism/{{setting}}_mechanism_rho{{rho}}.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=450,
        runtime=4,
    params:
        cfg=lambda wc: cfg_slice(
            "classdp",
            "accuracy_budget_rule",
            "delta_tolerance",
            "algorithm1",
            "audit",
            "attack",
            f"{wc.setting}.epsilon_grid",
        ),
        rho=classdp_rho,
        seed=noise_seed_param,
    script:
        "scripts/mechanism.py"


rule classdp_collect:
    input:
        curves=lambda wc: [f"{RESULTS}classdp/{wc.setting}/curves_no_noise.csv"]
        + expand(
            f"{RESULTS}classdp/{{setting}}/curves_rho{{rho}}.csv",
            setting=wc.setting,
            rho=classdp_rhos(wc.setting),
            allow_missing=True,
        ),
        audit=lambda wc: [f"{RESULTS}classdp/{wc.setting}/audit_no_noise.csv"]
        + expand(
            f"{RESULTS}classdp/{{setting}}/audit_rho{{rho}}.csv",
            setting=wc.setting,
            rho=classdp_rhos(wc.setting),
            allow_missing=True,
        ),
        attack=lambda wc: [f"{RESULTS}classdp/{wc.setting}/attack_no_noise.csv"]
        + expand(
            f"{RESULTS}classdp/{{setting}}/attack_rho{{rho}}.csv",
            setting=wc.setting,
            rho=classdp_rhos(wc.setting),
            allow_missing=True,
        ),
    output:
        curves=report_entry(
            f"{RESULTS}classdp/{{setting}}/delta_curves.csv", "classdp", "table_delta_{setting}", "curves"
        ),
        audit=report_entry(f"{RESULTS}classdp/{{setting}}/audit.csv", "classdp", "table_audit", "audit"),
        attack=report_entry(f"{RESULTS}classdp/{{setting}}/attack.csv", "classdp", "table_attack", "attack"),
    log:
        f"{LOGS}classdp/{{setting}}_collect.log",
    benchmark:
        f"{BENCHMARKS}classdp_collect/{{setting}}_collect.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    script:
        "scripts/collect.py"


rule classdp_forecast_release:
    input:
        model=f"{DATA_RESULTS}classdp/forecast/model.npz",
        # Algorithm 1's noise depends on the data only: a noise replicate reads its data replicate's (n = 0)
        mechanisms=f"{DATA_RESULTS}classdp/forecast/mechanisms_rho{sweep_label(CLASSDP['forecast']['fig3_rho'])}.npz",
    output:
        table_mse=report_entry(f"{RESULTS}classdp/table_mse.csv", "classdp", "table_mse"),
        all_mse=f"{RESULTS}classdp/forecast/release_mse_all.csv",
        series=f"{RESULTS}classdp/forecast/fig3_series.csv",
        mse_definitions=report_entry(
            f"{RESULTS}classdp/forecast/mse_definitions.csv", "classdp", "table_mse_definitions"
        ),
    log:
        f"{LOGS}classdp/forecast_release.log",
    benchmark:
        f"{BENCHMARKS}classdp_forecast_release/forecast_release.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "classdp",
            "delta_tolerance",
            "forecast.log_floor_kw",
            "forecast.fig3_rho",
            "forecast.fig3_epsilon",
            "forecast.fig3_households",
            "forecast.release_mse_draws",
        ),
        seed=noise_seed_param,
    script:
        "scripts/forecast_release.py"


rule classdp_figure:
    input:
        unpack(lambda wc: CLASSDP_FIG_INPUTS[wc.fig]),
    output:
        pdf=f"{RESULTS}classdp/{{fig}}.pdf",
        png=report_entry(f"{RESULTS}classdp/{{fig}}.png", "classdp", "{fig}", "png"),
    log:
        f"{LOGS}classdp/{{fig}}.log",
    benchmark:
        f"{BENCHMARKS}classdp_figure/{{fig}}.tsv"
    wildcard_constraints:
        fig="|".join(CLASSDP_FIGS),
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        rhos=lambda wc: {
            "fig2": CLASSDP["synthetic"]["rhos"],
            "fig4": CLASSDP["forecast"]["rhos"],
            "fig_similarity_sweep": CLASSDP["forecast"]["rhos"],
        }.get(wc.fig),
        delta_tolerance=CLASSDP["delta_tolerance"],
        data=lambda wc: CLASSDP_DATA_SPEC if wc.fig in ("fig3", "fig4", "fig_similarity_sweep") else None,
    script:
        "scripts/figure.py"


# the figures over seeds: drawn from the spread tables of rule table_over_seeds (workflow/rules/report.smk)
rule classdp_figure_over_seeds:
    input:
        spread=f"{RUN_RESULTS}over_seeds/classdp/{{fig}}_delta.csv",
    output:
        pdf=f"{RUN_RESULTS}over_seeds/classdp/{{fig}}.pdf",
        png=f"{RUN_RESULTS}over_seeds/classdp/{{fig}}.png",
    log:
        f"{RUN_LOGS}classdp/{{fig}}_over_seeds.log",
    benchmark:
        f"{RUN_BENCHMARKS}classdp_figure_over_seeds/{{fig}}.tsv"
    wildcard_constraints:
        fig="fig4",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        rhos=CLASSDP["forecast"]["rhos"],
        delta_tolerance=CLASSDP["delta_tolerance"],
        data=CLASSDP_DATA_SPEC,
    script:
        "scripts/figure_over_seeds.py"


REGISTRY.on_demand_rules.add("classdp_figure_over_seeds")


rule classdp_claims:
    input:
        privacy_audits=f"{RUN_RESULTS}classdp/privacy_audit.csv",
        synthetic_curves=f"{DATA_RESULTS}classdp/synthetic/delta_curves.csv",
        forecast_curves=f"{DATA_RESULTS}classdp/forecast/delta_curves.csv",
        table_mse=f"{RESULTS}classdp/table_mse.csv",
        forecast_summary=f"{DATA_RESULTS}classdp/forecast/model_summary.json",
        exact_delta=f"{DATA_RESULTS}classdp/exact_delta.csv",
        similarity_sweep=f"{DATA_RESULTS}classdp/forecast/similarity_sweep.csv",
        mse_definitions=f"{RESULTS}classdp/forecast/mse_definitions.csv",
        model=f"{DATA_RESULTS}classdp/synthetic/model.npz",
    output:
        claims=f"{RESULTS}classdp/claims.csv",
    log:
        f"{LOGS}classdp/claims.log",
    benchmark:
        f"{BENCHMARKS}classdp_claims/claims.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice(
            "classdp",
            "delta_tolerance",
            "synthetic.rhos",
            "forecast.rhos",
            "forecast.n_clusters",
            "forecast.fig3_rho",
            "forecast.fig3_epsilon",
        ),
        data=CLASSDP_DATA_SPEC,
    script:
        "scripts/claims.py"


rule classdp_exact_delta:
    input:
        curves=[f"{DATA_RESULTS}classdp/synthetic/delta_curves.csv", f"{DATA_RESULTS}classdp/forecast/delta_curves.csv"],
    output:
        table=report_entry(f"{DATA_RESULTS}classdp/exact_delta.csv", "classdp", "table_exact_delta"),
    log:
        f"{DATA_LOGS}classdp/exact_delta.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_exact_delta/exact_delta.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("classdp", "audit.epsilons"),
    script:
        "scripts/exact_delta.py"


rule classdp_similarity_sweep_data:
    # the stand-in's meter data at one within-cluster similarity (the meter_data rule's stream, similarity replaced);
    # the point's forecast chain then runs through the main chain's rules (sharded ARMA fits, forecast model)
    output:
        readings=f"{RESOURCES}meters/classdp_similarity_sweep/similarity{{similarity}}/readings.csv",
        meters=f"{RESOURCES}meters/classdp_similarity_sweep/similarity{{similarity}}/meters.csv",
    log:
        f"{DATA_LOGS}classdp/similarity_sweep_{{similarity}}_data.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_similarity_sweep_data/similarity_sweep_{{similarity}}_data.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=400,
        runtime=1,
    params:
        similarity=lambda wc: swept_value(
            CLASSDP["forecast"]["similarity_sweep"]["similarities"],
            wc.similarity,
            "classdp.forecast.similarity_sweep.similarities",
            "similarity",
        ),
        # the stand-in's spec without its similarity (each point replaces it): the calibrated value does not rerun the sweep
        data={k: v for k, v in CLASSDP_DATA_SPEC.items() if k != "within_cluster_similarity"},
        data_source=CLASSDP["forecast"]["data_source"],
        seed=data_seed_param,
    script:
        "scripts/similarity_sweep_data.py"


use rule classdp_forecast_arma as classdp_similarity_sweep_arma with:
    input:
        readings=f"{RESOURCES}meters/classdp_similarity_sweep/similarity{{similarity}}/readings.csv",
        meters=f"{RESOURCES}meters/classdp_similarity_sweep/similarity{{similarity}}/meters.csv",
    output:
        npz=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/arma_shard{{shard}}.npz",
        fits=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/arma_shard{{shard}}.csv",
    log:
        f"{DATA_LOGS}classdp/similarity_sweep_{{similarity}}_arma_{{shard}}.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_similarity_sweep_arma/similarity_sweep_{{similarity}}_arma_{{shard}}.tsv"


use rule classdp_forecast_model as classdp_similarity_sweep_model with:
    input:
        readings=f"{RESOURCES}meters/classdp_similarity_sweep/similarity{{similarity}}/readings.csv",
        meters=f"{RESOURCES}meters/classdp_similarity_sweep/similarity{{similarity}}/meters.csv",
        npz=expand(
            f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{{{similarity}}}}/arma_shard{{shard}}.npz",
            shard=CLASSDP_SHARDS,
            allow_missing=True,
        ),
        fits=expand(
            f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{{{similarity}}}}/arma_shard{{shard}}.csv",
            shard=CLASSDP_SHARDS,
            allow_missing=True,
        ),
    output:
        model=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/model.npz",
        households=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/households.csv",
        summary=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/model_summary.json",
    log:
        f"{DATA_LOGS}classdp/similarity_sweep_{{similarity}}_model.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_similarity_sweep_model/similarity_sweep_{{similarity}}_model.tsv"


rule classdp_similarity_sweep_part:
    # delta at the sweep's eps on the forecast class model at one similarity: white + proposed at one rho
    # (part = rho<label>) or the no-noise release (part = no_noise)
    input:
        model=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/model.npz",
    output:
        table=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/{{part}}.csv",
    log:
        f"{DATA_LOGS}classdp/similarity_sweep_{{similarity}}_{{part}}.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_similarity_sweep_part/similarity_sweep_{{similarity}}_{{part}}.tsv"
    wildcard_constraints:
        part=r"no_noise|rho[0-9]+(\.[0-9]+)?(e-?[0-9]+)?",
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=450,
        runtime=2,
    params:
        cfg=cfg_slice(
            "classdp", "accuracy_budget_rule", "delta_tolerance", "algorithm1", "forecast.similarity_sweep.epsilons"
        ),
        rho=lambda wc: (
            None
            if wc.part == "no_noise"
            else swept_value(CLASSDP["forecast"]["rhos"], wc.part.removeprefix("rho"), "classdp.forecast.rhos", "rho")
        ),
    script:
        "scripts/similarity_sweep_part.py"


rule classdp_similarity_sweep_point:
    # one point of the sweep: its parts in order (no noise, then classdp.forecast.rhos) and the model's size
    input:
        model=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/model.npz",
        parts=[f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/no_noise.csv"]
        + [
            f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}/rho{r}.csv"
            for r in CLASSDP_SWEEP_RHOS
        ],
    output:
        table=f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}.csv",
    log:
        f"{DATA_LOGS}classdp/similarity_sweep_{{similarity}}.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_similarity_sweep_point/similarity_sweep_{{similarity}}.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=300,
        runtime=1,
    params:
        similarity=lambda wc: swept_value(
            CLASSDP["forecast"]["similarity_sweep"]["similarities"],
            wc.similarity,
            "classdp.forecast.similarity_sweep.similarities",
            "similarity",
        ),
    script:
        "scripts/similarity_sweep_point.py"


rule classdp_similarity_sweep:
    input:
        points=expand(
            f"{DATA_RESULTS}classdp/forecast/similarity_sweep/similarity{{similarity}}.csv",
            similarity=CLASSDP_SIMILARITIES,
            allow_missing=True,
        ),
    output:
        table=report_entry(f"{DATA_RESULTS}classdp/forecast/similarity_sweep.csv", "classdp", "table_similarity_sweep"),
    log:
        f"{DATA_LOGS}classdp/similarity_sweep.log",
    benchmark:
        f"{DATA_BENCHMARKS}classdp_similarity_sweep/similarity_sweep.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        cfg=cfg_slice("classdp", "forecast.similarity_sweep.similarities"),
        source=CLASSDP_DATA_SPEC["source"],
    script:
        "scripts/similarity_sweep.py"


for _proxy in (
    rules.classdp_similarity_sweep_data,
    rules.classdp_similarity_sweep_model,
    rules.classdp_similarity_sweep_point,
):
    register_benchmarks(_proxy, *[{"similarity": s} for s in CLASSDP_SIMILARITIES])
register_benchmarks(
    rules.classdp_similarity_sweep_part,
    *[
        {"similarity": s, "part": p}
        for s in CLASSDP_SIMILARITIES
        for p in ["no_noise", *[f"rho{r}" for r in CLASSDP_SWEEP_RHOS]]
    ],
)
register_benchmarks(
    rules.classdp_similarity_sweep_arma,
    *[{"similarity": s, "shard": k} for s in CLASSDP_SIMILARITIES for k in CLASSDP_SHARDS],
)
register_benchmarks(rules.classdp_forecast_arma, *[{"shard": s} for s in CLASSDP_SHARDS])
register_benchmarks(rules.classdp_figure, *[{"fig": f} for f in CLASSDP_FIGS])
for _proxy in (rules.classdp_no_noise, rules.classdp_collect):
    register_benchmarks(_proxy, {"setting": "synthetic"}, {"setting": "forecast"})
register_benchmarks(
    rules.classdp_mechanism, *[{"setting": s, "rho": r} for s in ("synthetic", "forecast") for r in classdp_rhos(s)]
)


# Black-box privacy audit of the proposed and white mechanisms of both settings (dpgrid.papers.classdp.privacy_audit).
rule classdp_privacy_audit:
    input:
        **{f"model_{s}": f"{RUN_RESULTS}classdp/{s}/model.npz" for s in ("synthetic", "forecast")},
        **{f"audit_{s}": f"{RUN_RESULTS}classdp/{s}/audit.csv" for s in ("synthetic", "forecast")},
        **{
            f"mechanisms_{s}": expand(
                f"{RUN_RESULTS}classdp/{{setting}}/mechanisms_rho{{rho}}.npz",
                setting=s,
                rho=classdp_rhos(s),
                allow_missing=True,
            )
            for s in ("synthetic", "forecast")
        },
    output:
        table=f"{RUN_RESULTS}classdp/privacy_audit.csv",
    log:
        f"{RUN_LOGS}classdp/privacy_audit.log",
    benchmark:
        f"{RUN_BENCHMARKS}classdp_privacy_audit/privacy_audit.tsv"
    conda:
        "../../../environment.yml"
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        settings=["synthetic", "forecast"],
        audit=config["privacy_audits"]["classdp"],
        level=config["privacy_audits"]["level"],
        seed=config["seed"],
    script:
        "scripts/privacy_audit.py"


register_privacy_audit(f"{RUN_RESULTS}classdp/privacy_audit.csv")
