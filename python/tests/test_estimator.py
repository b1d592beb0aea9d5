"""The estimator of issue 41: score, the posteriors of the training rows, and load restoring a fit."""
import numpy as np
import pytest

import mmnc
from conftest import planted


# -- score -------------------------------------------------------------------

def test_score_is_heldout_likelihood_peaking_at_planted_k():
    """score is the held-out log-likelihood per token: finite, higher at the planted k than at k = 1
    (the unigram model) and than at k = 8, while on the training rows it keeps growing with k."""
    X, _ = planted(n_rows=120, n_cols=40, k=3, seed=0)
    held, _ = planted(n_rows=60, n_cols=40, k=3, seed=100)
    fits = {k: mmnc.MMNC(k).fit(X) for k in (1, 3, 8)}
    out = {k: m.score(held) for k, m in fits.items()}
    assert all(np.isfinite(v) and v < 0 for v in out.values())
    assert out[3] > out[1] + 0.2  # nats per token: three clusters explain the rows far better
    assert out[3] > out[8]  # clusters the held-out rows do not bear out lower it
    assert fits[8].score(X) > fits[3].score(X)  # in sample it grows with k: score held-out rows


def test_score_of_one_cluster_is_the_unigram_model():
    """With k = 1, q(x|z) = P_X whatever the smoothing: score = sum n log P_X / sum n."""
    X, _ = planted(seed=1)
    held, _ = planted(n_rows=30, seed=2)
    m = mmnc.MMNC(1).fit(X)
    px = X.sum(axis=0) / X.sum()
    assert m.score(held) == pytest.approx((held * np.log(px)).sum() / held.sum(), rel=1e-12)


def test_score_matches_columns_as_predict_does(pandas):
    X, _ = planted(seed=3)
    held, _ = planted(n_rows=30, seed=4)
    names = [f"w{j}" for j in range(X.shape[1])]
    m = mmnc.MMNC(3).fit(pandas.DataFrame(X, columns=names))
    df = pandas.DataFrame(held, columns=names)
    base = m.score(df)
    assert m.score(df[names[::-1]]) == pytest.approx(base, rel=1e-12)  # by name, in any order
    assert m.score(held, columns=names) == pytest.approx(base, rel=1e-12)
    with pytest.warns(UserWarning, match="not in the model"):  # mass on unknown columns is left out
        assert m.score(df.assign(zzz=5.0)) == pytest.approx(base, rel=1e-12)
    with pytest.raises(ValueError, match="columns are named"):
        m.score(held)
    plain = mmnc.MMNC(3).fit(X)
    with pytest.raises(ValueError, match="features"):
        plain.score(held[:, :-1])
    with pytest.raises(ValueError, match="no row of X has mass"):
        plain.score(np.zeros((2, X.shape[1])))


def test_gridsearch_without_scoring():
    """GridSearchCV(MMNC(), {"n_clusters": ...}) runs without scoring= and picks the planted k."""
    model_selection = pytest.importorskip("sklearn.model_selection")
    X, _ = planted(n_rows=240, n_cols=40, k=3, seed=3)
    grid = model_selection.GridSearchCV(mmnc.MMNC(), {"n_clusters": [1, 2, 3, 4, 6]}, cv=3).fit(X)
    scores = grid.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all()
    assert grid.best_params_ == {"n_clusters": 3}
    assert scores[2] > scores[0]
