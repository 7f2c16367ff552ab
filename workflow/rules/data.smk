# Meter data per experiment (synthetic, UCI household, UCI ELD, bring-your-own CSV) and the
# pinned downloads (UCI zips, IEEE 123-bus OpenDSS files). See docs/data.md.

from dpgrid.data.download import mirror_root
from dpgrid.data.resources import meter_data_mem_mb, meter_data_runtime_min, register_experiments

EXPERIMENTS = list(config["data"]["experiments"])
# for the SLURM profile's meter_data memory, an expression of the job's wildcards (dpgrid.data.resources)
register_experiments(config["data"]["experiments"])
DOWNLOAD_FILES = {
    "uci_household": "resources/downloads/uci_household/household_power_consumption.txt",
    "uci_eld": "resources/downloads/uci_eld/LD2011_2014.txt",
}
IEEE123_DIR = "resources/downloads/ieee123"
REGISTRY.job_modules["meter_data"] = meter_data_modules
IEEE123_FILES = [f"{IEEE123_DIR}/{rel}" for rel in config["data"]["downloads"]["ieee123"]["files"]]
_mirror = mirror_root(config["data"]["mirror"])
DOWNLOAD_MIRROR = str(_mirror) if _mirror else None


wildcard_constraints:
    experiment="|".join(EXPERIMENTS),


rule meter_data:
    input:
        unpack(meter_data_inputs),
    output:
        readings=f"{RESOURCES}meters/{{experiment}}/readings.csv",
        meters=f"{RESOURCES}meters/{{experiment}}/meters.csv",
    log:
        f"{DATA_LOGS}data/meter_data_{{experiment}}.log",
    benchmark:
        f"{DATA_BENCHMARKS}meter_data/meter_data_{{experiment}}.tsv"
    conda:
        "../../environment.yml"
    resources:
        # scale with the input file (measured on a 221 MB CSV) or, without one, the readings the source makes
        mem_mb=lambda wc, input: meter_data_mem_mb(list(input), experiment_spec(wc)),
        runtime=lambda wc, input: meter_data_runtime_min(list(input)),
    params:
        spec=lambda wc: config["data"]["experiments"][wc.experiment],
        # real sources are resampled to the experiment's step; only the synthesised sources draw random numbers
        resample=lambda wc: None if synthesised(wc.experiment) else config["data"]["resample"],
        plausible_kw=lambda wc: None if synthesised(wc.experiment) else config["data"]["plausible_kw"],
        seed=lambda wc: data_seed_param(wc) if synthesised(wc.experiment) else None,
        # the user's files (source: csv) by content, not only by modification time
        user_files_sha256=user_file_digests,
    script:
        "../scripts/data/meter_data.py"


rule download_uci_household:
    output:
        data=DOWNLOAD_FILES["uci_household"],
        digest=DOWNLOAD_FILES["uci_household"] + ".sha256",
    log:
        "logs/data/download_uci_household.log",
    benchmark:
        "benchmarks/download_uci_household/download_uci_household.tsv"
    # downloads run on the submitting host (cluster compute nodes often have no internet)
    localrule: True
    # not measured here (no internet); the transfer dominates: 15 min
    conda:
        "../../environment.yml"
    resources:
        mem_mb=500,
        runtime=15,
    params:
        dataset="uci_household",
        pin=config["data"]["downloads"]["uci_household"],
        # what the file is, not where it comes from: the pinned SHA-256 of the file fetched (the mirror's
        # file may be an excerpt with its own pin, so switching to it reruns the job; a mirror of the
        # canonical zip does not)
        fetched_sha256=fetched_sha256("uci_household"),
        mirror=mirror_param,
    script:
        "../scripts/data/download_archive_member.py"


rule download_uci_eld:
    output:
        data=DOWNLOAD_FILES["uci_eld"],
        digest=DOWNLOAD_FILES["uci_eld"] + ".sha256",
    log:
        "logs/data/download_uci_eld.log",
    benchmark:
        "benchmarks/download_uci_eld/download_uci_eld.tsv"
    # downloads run on the submitting host (cluster compute nodes often have no internet)
    localrule: True
    # not measured here (no internet); the transfer dominates: 15 min
    conda:
        "../../environment.yml"
    resources:
        mem_mb=500,
        runtime=15,
    params:
        dataset="uci_eld",
        pin=config["data"]["downloads"]["uci_eld"],
        # what the file is, not where it comes from: the pinned SHA-256 of the file fetched (the mirror's
        # file may be an excerpt with its own pin, so switching to it reruns the job; a mirror of the
        # canonical zip does not)
        fetched_sha256=fetched_sha256("uci_eld"),
        mirror=mirror_param,
    script:
        "../scripts/data/download_archive_member.py"


rule download_ieee123:
    output:
        IEEE123_FILES,
    log:
        "logs/data/download_ieee123.log",
    benchmark:
        "benchmarks/download_ieee123/download_ieee123.tsv"
    # downloads run on the submitting host (cluster compute nodes often have no internet)
    localrule: True
    conda:
        "../../environment.yml"
    resources:
        mem_mb=250,
        runtime=1,
    params:
        pin=config["data"]["downloads"]["ieee123"],
        mirror=mirror_param,  # the mirror holds the pinned files themselves: not a rerun trigger
    script:
        "../scripts/data/download_ieee123.py"


# Jobs measured by rule pipeline_costs: the meter data of the experiments the papers use (each paper's rules
# file registers its experiments with register_data_used; report.smk registers their jobs), and the UCI
# downloads only when some experiment reads them.
REGISTRY.on_demand_rules.update({"download_uci_household", "download_uci_eld"})
