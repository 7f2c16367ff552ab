# Input and params functions of the blowfish rules files (Snakemake's style: functions apart from rules).


# blowfish.smk
def blowfish_seeds():
    return [str(k) for k in range(int(config["blowfish"]["seeds"]))]


def blowfish_thresholds():
    return sweep_labels(config["blowfish"]["zero_sweep"]["thresholds"], "blowfish.zero_sweep.thresholds")


def blowfish_run_seed_files(wildcards):
    """Per-seed outputs of blowfish_run_seed, in seed order (inputs of the merge blowfish_runs)."""
    return {
        key: expand(f"{RESULTS}blowfish/seeds/{key}_seed{{seed}}.csv", seed=blowfish_seeds(), allow_missing=True)
        for key in ("runs", "profiles", "adversary")
    }


def blowfish_zero_sweep_files(wildcards):
    """Per-threshold outputs of blowfish_zero_sweep_threshold, in threshold order (inputs of blowfish_zero_sweep)."""
    return {
        key: expand(
            f"{RESULTS}blowfish/zero_sweep/{key}_threshold{{threshold}}.csv",
            threshold=blowfish_thresholds(),
            allow_missing=True,
        )
        for key in ("runs", "table")
    }
