"""Replicate seeds and folders (dpgrid.core.replicates): (0, 0) is the run itself, every other replicate has seeds
of its own, and a folder names exactly one replicate."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpgrid.core.replicates import (
    DATA_FOLDER_PATTERN,
    NOISE_FOLDER_PATTERN,
    data_folder,
    data_index,
    data_seed,
    noise_folder,
    noise_generator,
    noise_index,
    noise_seed,
    replicate_grid,
)
from dpgrid.core.seeds import job_rng

seeds = st.integers(0, 2**63 - 1)
indices = st.integers(0, 10**6)


@given(seeds)
def test_replicate_zero_is_the_run(seed):
    assert data_seed(seed, 0) == noise_seed(seed, 0, 0) == seed
    assert data_folder(0) == noise_folder(0) == ""


@given(seeds, st.integers(1, 10**6))
def test_noise_replicate_zero_uses_the_data_seed(seed, d):
    assert noise_seed(seed, d, 0) == data_seed(seed, d) != seed


@given(seeds)
def test_every_replicate_of_a_grid_has_its_own_seeds(seed):
    grid = list(replicate_grid(6, 5))
    assert grid[0] == (0, 0) and len(set(grid)) == 30
    noise = [noise_seed(seed, d, n) for d, n in grid]
    assert len(set(noise)) == len(grid)
    assert len({data_seed(seed, d) for d in range(6)}) == 6
    assert all(0 <= s < 2**64 for s in noise)


@given(seeds, indices, indices)
def test_seeds_are_functions_of_seed_and_indices(seed, d, n):
    assert noise_seed(seed, d, n) == noise_seed(seed, d, n)
    assert noise_seed(seed + 1, d, n) != noise_seed(seed, d, n)
    assert data_seed(seed + 1, d) != data_seed(seed, d)


@given(indices, indices)
def test_folders_round_trip_and_match_the_wildcard_patterns(d, n):
    df, nf = data_folder(d), noise_folder(n)
    assert data_index(df) == d and noise_index(nf) == n
    assert re.fullmatch(DATA_FOLDER_PATTERN, df) and re.fullmatch(NOISE_FOLDER_PATTERN, nf)
    # a data folder is never a noise folder and the reverse, so "{drep}{nrep}" splits one way only
    assert (df == "") or not re.fullmatch(NOISE_FOLDER_PATTERN, df)
    assert (nf == "") or not re.fullmatch(DATA_FOLDER_PATTERN, nf)


@pytest.mark.parametrize("folder", ["replicates/d0/", "replicates/d01/", "d1/", "replicates/d1", "n0/", "n1", "x"])
def test_other_folders_are_refused(folder):
    with pytest.raises(ValueError, match="replicate folder"):
        data_index(folder) if folder.startswith(("replicates", "d")) else noise_index(folder)
    assert not re.fullmatch(DATA_FOLDER_PATTERN, folder) or not re.fullmatch(NOISE_FOLDER_PATTERN, folder)


@pytest.mark.parametrize("bad", [-1, 1.0, True, "1", None])
def test_bad_indices_and_seeds_are_refused(bad):
    with pytest.raises(ValueError):
        data_folder(bad)
    with pytest.raises(ValueError):
        noise_seed(1, 0, bad)
    with pytest.raises(ValueError):
        data_seed(bad, 1)


@pytest.mark.parametrize("counts", [(0, 1), (1, 0), (1.5, 2), (True, 1)])
def test_a_grid_needs_positive_counts(counts):
    with pytest.raises(ValueError, match="replicates"):
        list(replicate_grid(*counts))


def test_noise_generator_continues_the_data_stream_only_for_noise_replicate_zero():
    seed, keys = 20241122, ("blowfish", "run", 3)
    data_root = data_seed(seed, 2)
    one = job_rng(data_root, *keys)
    assert noise_generator(one, data_root, noise_seed(seed, 2, 0), *keys) is one
    other = noise_generator(job_rng(data_root, *keys), data_root, noise_seed(seed, 2, 1), *keys)
    expected = job_rng(noise_seed(seed, 2, 1), *keys)
    assert np.array_equal(other.random(8), expected.random(8))
