"""scikit-learn's estimator checks (sklearn.utils.estimator_checks), one test each.

Every check of check_estimator runs on MMNC() with its nonnegative-input
tags (``requires_positive_X`` for scikit-learn < 1.6, ``input_tags.positive_only``
from 1.6), and passes, except the two of EXPECTED, which do not hold for a
clusterer of nonnegative data and say why.  The checks are listed with
``estimator_checks_generator`` where it exists (1.6 and later) and with
``check_estimator(generate_only=True)`` before (1.2, Debian's).
"""
import inspect
import types

import numpy as np
import pytest

import mmnc
from conftest import planted

estimator_checks = pytest.importorskip("sklearn.utils.estimator_checks")
from sklearn.base import clone  # noqa: E402

# The two checks that MMNC is expected to fail, each under the names that scikit-learn's versions
# give it, and why.  docs/python.md ("scikit-learn") says the same.
EXPECTED = {
    "check_clustering": (
        ("check_clustering",),
        "fits make_blobs output standardised by StandardScaler, which has negative entries, whatever "
        "the estimator's positive-input tag; MMNC clusters the rows of a nonnegative co-occurrence "
        "matrix and refuses negative input (check_fit_non_negative, which does follow the tag, passes). "
        "What it checks besides (int labels, fit_predict == labels_, labels 0..k-1, a planted partition "
        "found) is test_clusterer_contract below, on nonnegative data: skipped"),
    "the sparse-data check": (
        ("check_estimator_sparse_data", "check_estimator_sparse_array", "check_estimator_sparse_matrix"),
        "asserts that predict_proba is a classifier's: (n_samples, 4) for the 4 classes of the y it "
        "passes.  MMNC's has n_clusters columns, so it runs with n_clusters=4, which is enough for "
        "scikit-learn < 1.6 (check_estimator_sparse_data: passes).  From 1.6 "
        "(check_estimator_sparse_array and _matrix) it reads tags.classifier_tags.multi_class, which is "
        "None for any estimator that is not a classifier: an AttributeError whatever n_clusters, an "
        "expected failure there"),
}
SKIPPED = {"check_clustering"}  # the others of EXPECTED run, adapted, and may fail only as said
ALIASES = {name: key for key, (names, _) in EXPECTED.items() for name in names}
SPARSE_PARAMS = {"n_clusters": 4}

_generator = getattr(estimator_checks, "estimator_checks_generator", None)  # scikit-learn >= 1.6


def _all_checks(estimator):
    """(estimator, check) pairs of check_estimator, check(estimator) running one check."""
    if _generator is not None:
        return list(_generator(estimator, legacy=True, mark=None))
    return list(estimator_checks.check_estimator(estimator, generate_only=True))


def _name(check):
    while hasattr(check, "__wrapped__"):
        check = check.__wrapped__
    return getattr(check, "func", check).__name__


def _params():
    for est, check in _all_checks(mmnc.MMNC()):
        keywords = getattr(check, "keywords", {})
        label = _name(check) + "".join(f"[{k}={v}]" for k, v in sorted(keywords.items()))
        yield pytest.param(est, check, id=label)


@pytest.mark.parametrize("estimator,check", list(_params()))
def test_sklearn_check(estimator, check):
    expected = ALIASES.get(_name(check))
    if expected in SKIPPED:
        pytest.skip(EXPECTED[expected][1])
    if expected is None:
        check(estimator)
        return
    try:
        check(clone(estimator).set_params(**SPARSE_PARAMS))
    except AttributeError as e:  # scikit-learn >= 1.6: classifier_tags is None for a clusterer
        if "multi_class" not in str(e):
            raise
        pytest.xfail(EXPECTED[expected][1])


def test_exactly_two_expected_and_each_exists():
    """EXPECTED holds two checks, and each is one that this scikit-learn runs (no stale entry hides
    a check), so every other check runs and must pass."""
    names = {_name(check) for _, check in _all_checks(mmnc.MMNC())}
    assert len(EXPECTED) == 2
    for key, (aliases, _) in EXPECTED.items():
        assert names & set(aliases), key
    assert len(names) > 30  # the whole list, not a stub


@pytest.mark.skipif(not hasattr(estimator_checks, "check_n_features_in_after_fitting"),
                    reason="scikit-learn without check_n_features_in_after_fitting")
def test_n_features_in_after_fitting():
    """An API check of check_estimator from 1.6 (predict, transform, predict_proba and score refuse
    X of another width with scikit-learn's message); 1.2 has it but does not run it."""
    estimator_checks.check_n_features_in_after_fitting("MMNC", mmnc.MMNC())


@pytest.mark.skipif("expected_failed_checks" not in inspect.signature(estimator_checks.check_estimator).parameters,
                    reason="check_estimator without expected_failed_checks (scikit-learn < 1.6)")
def test_check_estimator_as_users_call_it():
    """scikit-learn >= 1.6: check_estimator itself, told the expected failures, raises nothing."""
    expected = {name: reason for names, reason in EXPECTED.values() for name in names}
    estimator_checks.check_estimator(mmnc.MMNC(), expected_failed_checks=expected)


def test_tags_for_old_and_new_scikit_learn():
    """MMNC's own class defines __sklearn_tags__ (1.6) beside _more_tags (before 1.6): then 1.6 uses
    __sklearn_tags__ without a deprecation warning and its check_estimator_tags_renamed passes,
    while 1.2 reads _more_tags.  __sklearn_tags__ is checked on a stand-in for 1.6's base class."""
    assert "__sklearn_tags__" in vars(mmnc.MMNC) and "_more_tags" in vars(mmnc.MMNC)
    assert mmnc.MMNC()._more_tags()["requires_positive_X"] is True

    class Base16:  # what scikit-learn 1.6's BaseEstimator and TransformerMixin give a transformer
        def __sklearn_tags__(self):
            return types.SimpleNamespace(
                input_tags=types.SimpleNamespace(positive_only=False, sparse=False),
                transformer_tags=types.SimpleNamespace(preserves_dtype=["float64", "float32"]))

    class Estimator16(mmnc.MMNC, Base16):
        pass

    tags = Estimator16().__sklearn_tags__()
    assert tags.input_tags.positive_only and tags.input_tags.sparse
    assert tags.transformer_tags.preserves_dtype == ["float64"]


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
