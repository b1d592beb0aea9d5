"""scikit-learn's estimator checks (sklearn.utils.estimator_checks), one test each.

Every check of check_estimator runs, except those listed in SKIPPED with the
reason it does not apply; ADAPTED checks run on a differently configured MMNC.
"""
import numpy as np
import pytest

import mmnc
from conftest import planted

estimator_checks = pytest.importorskip("sklearn.utils.estimator_checks")
from sklearn.base import clone  # noqa: E402

SKIPPED = {
    "check_clustering": (
        "fits StandardScaler output, which has negative entries, ignoring the requires_positive_X tag "
        "(scikit-learn 1.2); MMNC clusters nonnegative co-occurrence rows and refuses negative input. "
        "The clusterer contract it checks besides (int labels, fit_predict == labels_, consecutive labels) "
        "is test_clusterer_contract below, on nonnegative data"),
}

# check name -> parameters of the MMNC it runs on, and why
ADAPTED = {
    "check_estimator_sparse_data": (
        {"n_clusters": 4},
        "asserts that predict_proba has 4 columns, the number of classes of the y it passes (a classifier's "
        "predict_proba); MMNC's has n_clusters columns, so the check runs with n_clusters=4"),
}


def _name(check):
    return getattr(check, "func", check).__name__


def _checks():
    for est, check in estimator_checks.check_estimator(mmnc.MMNC(), generate_only=True):
        name = _name(check)
        keywords = getattr(check, "keywords", {})
        label = name + "".join(f"[{k}={v}]" for k, v in sorted(keywords.items()))
        yield pytest.param(est, check, id=label)


@pytest.mark.parametrize("estimator,check", list(_checks()))
def test_sklearn_check(estimator, check):
    name = _name(check)
    if name in SKIPPED:
        pytest.skip(SKIPPED[name])
    if name in ADAPTED:
        estimator = clone(estimator).set_params(**ADAPTED[name][0])
    check(estimator)


def test_every_listed_check_exists():
    """The lists above name checks that scikit-learn runs (no stale entry hides a check)."""
    names = {_name(check) for _, check in estimator_checks.check_estimator(mmnc.MMNC(), generate_only=True)}
    assert set(SKIPPED) <= names and set(ADAPTED) <= names


def test_clusterer_contract():
    X, truth = planted(n_rows=60, n_cols=30, k=3, seed=21)
    est = mmnc.MMNC(3)
    labels = est.fit(X).labels_
    assert labels.dtype == np.int64 and labels.shape == (60,)
    np.testing.assert_array_equal(clone(est).fit_predict(X), labels)
    np.testing.assert_array_equal(clone(est).fit(X.tolist()).labels_, labels)
    np.testing.assert_array_equal(np.unique(labels), np.arange(3))
    assert mmnc.evaluate(labels, truth).ari > 0.9


def test_params_roundtrip():
    est = mmnc.MMNC(5, algorithm="information", n_init=3)
    params = est.get_params()
    assert params["n_clusters"] == 5 and params["algorithm"] == "information"
    other = clone(est).set_params(refine="chosen", n_clusters=2)
    assert other.get_params()["refine"] == "chosen" and est.get_params()["refine"] == "none"
