"""Shared fixtures: planted-partition data and the mmnc command-line tool to compare with."""
import os
import shutil

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def planted(n_rows=90, n_cols=40, k=3, inside=3.0, outside=0.6, seed=0):
    """Poisson counts whose rows fall in k groups, each heavier on its own block of columns."""
    rng = np.random.default_rng(seed)
    truth = np.arange(n_rows) % k
    rate = np.where(np.arange(n_cols)[None, :] % k == truth[:, None], inside, outside)
    X = rng.poisson(rate).astype(np.float64)
    X[np.arange(n_rows), np.arange(n_rows) % n_cols] += 1  # no empty row
    return X, truth


@pytest.fixture(scope="session")
def cli():
    """The mmnc binary: $MMNC_CLI (set by the CTest), else build/mmnc of this repository."""
    path = os.environ.get("MMNC_CLI") or os.path.join(ROOT, "build", "mmnc")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        found = shutil.which("mmnc")
        if not found:
            pytest.skip("the mmnc tool is not built (make) and MMNC_CLI is not set")
        path = found
    return path


@pytest.fixture(scope="session")
def pandas():
    """pandas, or the test is skipped (make deps installs python3-pandas)."""
    return pytest.importorskip("pandas")
