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
    """With k = 1, q(x|z) = P_X whatever the smoothing: score = sum n log P_X / sum n (the
    information objective's mixture of multinomials)."""
    X, _ = planted(seed=1)
    held, _ = planted(n_rows=30, seed=2)
    m = mmnc.MMNC(1, algorithm="information").fit(X)
    px = X.sum(axis=0) / X.sum()
    assert m.score(held) == pytest.approx((held * np.log(px)).sum() / held.sum(), rel=1e-12)


def _dmm_terms(m, X, held):
    """log (m_z + alpha) / (M + k alpha) + log Polya(row | z) of each held row and cluster, the
    Dirichlet mixture's posterior predictive given the training partition, the long way."""
    special = pytest.importorskip("scipy.special")
    k, V = m.n_clusters, X.shape[1]
    a, b = m.dmm_alpha_, m.dmm_beta_
    rows = np.bincount(m.labels_, minlength=k)
    Nzx = np.stack([X[m.labels_ == z].sum(axis=0) for z in range(k)])
    Nz = Nzx.sum(axis=1)
    n = held.sum(axis=1)
    t = np.log((rows + a) / (rows.sum() + k * a))[None, :] + \
        (special.gammaln(Nz + V * b)[None, :] - special.gammaln(Nz[None, :] + n[:, None] + V * b))
    for z in range(k):
        t[:, z] += (special.gammaln(Nzx[z] + held + b) - special.gammaln(Nzx[z] + b)).sum(axis=1)
    return t


def test_score_of_the_dirichlet_mixture_is_its_posterior_predictive():
    """The default on counts scores by the Dirichlet mixture itself, not by the information rule's
    mixture of multinomials: the log of sum_z P(z) Polya(row | z) over the rows' mass, whose
    per-cluster terms normalised are predict_proba; k = 1 is the smoothed unigram model."""
    special = pytest.importorskip("scipy.special")
    X, _ = planted(n_rows=120, n_cols=40, k=3, seed=5)
    held, _ = planted(n_rows=40, n_cols=40, k=3, seed=6)
    for k in (1, 3):
        m = mmnc.MMNC(k).fit(X)
        assert m.dmm_alpha_ is not None
        t = _dmm_terms(m, X, held)
        want = special.logsumexp(t, axis=1).sum() / held.sum()
        assert m.score(held) == pytest.approx(want, rel=1e-10)
        proba = np.exp(t - special.logsumexp(t, axis=1, keepdims=True))
        np.testing.assert_allclose(m.predict_proba(held), proba, rtol=1e-8, atol=1e-12)
    info = mmnc.MMNC(3, algorithm="information").fit(X)
    assert info.dmm_alpha_ is None and info.score(held) != pytest.approx(m.score(held), rel=1e-6)


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
    """GridSearchCV(MMNC(), {"n_clusters": ...}) runs without scoring= and picks the planted k
    (with the information objective; the default's k = 3 and 4 score within 1e-4 there, its
    k = 4 adding a cluster of one row)."""
    model_selection = pytest.importorskip("sklearn.model_selection")
    X, _ = planted(n_rows=240, n_cols=40, k=3, seed=3)
    grid = model_selection.GridSearchCV(mmnc.MMNC(algorithm="information"), {"n_clusters": [1, 2, 3, 4, 6]},
                                        cv=3).fit(X)
    scores = grid.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all()
    assert grid.best_params_ == {"n_clusters": 3}
    assert scores[2] > scores[0]


# -- row_proba_ and kernel_ ----------------------------------------------------

def test_row_proba_is_the_posterior_where_the_kernel_is_hard():
    """The default's W is one-hot; row_proba_ is its rule's posterior of the training rows
    (predict_proba: the Dirichlet mixture's on counts, else the information rule's), soft where
    rows are ambiguous, and W stays as kernel_."""
    X, _ = planted(n_rows=90, n_cols=40, k=3, inside=1.2, outside=0.7, seed=5)
    X[7] = 0
    m = mmnc.MMNC(3).fit(X)
    np.testing.assert_array_equal(m.row_proba_, m.predict_proba(X))
    assert ((m.row_proba_ > 0.01) & (m.row_proba_ < 0.99)).any()  # real probabilities, not one-hot
    np.testing.assert_allclose(m.row_proba_[m.labels_ >= 0].sum(axis=1), 1.0)
    assert (m.row_proba_[7] == 0).all() and (m.kernel_[7] == 0).all()
    assert set(np.unique(m.kernel_)) == {0.0, 1.0}
    np.testing.assert_array_equal(m.kernel_[m.labels_ >= 0].argmax(axis=1), m.labels_[m.labels_ >= 0])
    # the posterior's argmax is the rule's label: the fitted label for most rows, not all
    assert (m.row_proba_.argmax(axis=1) == m.labels_)[m.labels_ >= 0].mean() > 0.9
    # any refine makes the rule the information rule
    r = mmnc.MMNC(3, algorithm="nuclear", refine="chosen").fit(X)
    np.testing.assert_array_equal(r.row_proba_, r.predict_proba(X))


@pytest.mark.parametrize("params", [{"algorithm": "frobenius", "n_init": 2}, {"algorithm": "nuclear"}])
def test_row_proba_is_the_kernel_elsewhere(params):
    """Algorithm 1's W is soft, and Algorithm 2's rule is hard (one-hot): row_proba_ is W."""
    X, _ = planted(seed=9, inside=1.0, outside=0.8)
    m = mmnc.MMNC(3, **params).fit(X)
    assert m.row_proba_ is m.kernel_
    np.testing.assert_array_equal(m.kernel_.argmax(axis=1), m.labels_)


def test_kernel_is_the_cli_soft_tsv(tmp_path, cli):
    """kernel_ is what `mmnc cluster` writes to PREFIX.soft.tsv (its semantics are the CLI's)."""
    import csv
    import scipy.io
    import scipy.sparse as sp
    from test_mmnc import run_cli
    X, _ = planted(seed=9, inside=1.0, outside=0.8)
    X[4] = 0
    path = str(tmp_path / "x.mtx")
    scipy.io.mmwrite(path, sp.csr_matrix(X))
    for params, flags in (({}, []), ({"algorithm": "frobenius"}, ["-a", "frobenius"])):
        run_cli(cli, "cluster", path, "-k", 3, "-q", "-o", tmp_path / "out", *flags)
        with open(tmp_path / "out.soft.tsv") as f:
            rows = list(csv.reader(f, delimiter="\t"))[1:]
        soft = np.zeros((X.shape[0], 3))
        for row in rows:
            soft[int(row[0]) - 1] = [float(v) for v in row[1:]]
        m = mmnc.MMNC(3, **params).fit(X)
        np.testing.assert_allclose(m.kernel_, soft, atol=1e-6)


# -- load restores the fit -------------------------------------------------------

PER_ROW = {"labels_", "row_proba_", "kernel_", "empty_rows_"}  # the model file holds no rows


def assert_same(a, b, name):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14, err_msg=name)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(b, a, err_msg=name)
    elif isinstance(a, float):
        assert b == pytest.approx(a, rel=1e-12), name
    else:
        assert b == a and type(b) is type(a), name


def fitted(est):
    return {a: v for a, v in vars(est).items() if a.endswith("_") and not a.startswith("_")}


def assert_restored(m, back):
    """back = load(save(m)) has every fitted attribute of m but the per-row ones, equal (the spectrum
    to rounding: it is recomputed from the stored joint), and m's parameters."""
    ours, theirs = fitted(m), fitted(back)
    assert set(theirs) == set(ours) - PER_ROW
    for name in theirs:
        assert_same(ours[name], theirs[name], name)
    for name, value in m.get_params().items():
        assert_same(value if value is None or not hasattr(value, "__len__") or isinstance(value, str)
                    else np.asarray(value, dtype=np.float64), back.get_params()[name], name)


@pytest.mark.parametrize("params", [{}, {"n_init": 3, "random_state": 7, "merge_split": 0}, {"algorithm": "dmm"},
                                    {"algorithm": "nuclear", "select": "predictive", "refine": "chosen"},
                                    {"algorithm": "frobenius", "n_init": 2, "target_marginal": [0.2, 0.3, 0.5],
                                     "marginal_penalty": 0.5}])
def test_load_restores_every_fitted_attribute(tmp_path, params):
    X, _ = planted(seed=14)
    X[5] = 0
    X[:, [2, 7]] = 0
    m = mmnc.MMNC(3, **params).fit(X)
    m.save(tmp_path / "m.model")
    back = mmnc.load(tmp_path / "m.model")
    assert_restored(m, back)
    np.testing.assert_array_equal(back.empty_columns_, [2, 7])
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    assert back.score(X) == m.score(X)
    # what a fit gives of the training rows, the loaded model gives through its rule
    if m.row_proba_ is not m.kernel_:
        np.testing.assert_array_equal(back.predict_proba(X), m.row_proba_)
    # and a loaded model saves what it loaded
    back.save(tmp_path / "again.model")
    assert_restored(m, mmnc.load(tmp_path / "again.model"))


def test_load_restores_names_of_empty_columns(tmp_path, pandas):
    X, _ = planted(seed=15)
    X[:, 4] = 0
    names = [f"w{j}" for j in range(X.shape[1])]
    m = mmnc.MMNC(3).fit(pandas.DataFrame(X, columns=names))
    m.save(tmp_path / "m.model")
    back = mmnc.load(tmp_path / "m.model")
    assert_restored(m, back)
    assert list(back.feature_names_in_) == names and list(back.empty_columns_) == [4]


def test_load_of_a_cli_model(tmp_path, cli):
    """A model of `mmnc cluster --save-model`: the header's parameters, the norms and spectrum of
    its run (as its PREFIX.json reports them); its options are a command line, not a Python fit."""
    import json
    import scipy.io
    import scipy.sparse as sp
    from test_mmnc import run_cli
    X, _ = planted(seed=16)
    path = str(tmp_path / "x.mtx")
    scipy.io.mmwrite(path, sp.csr_matrix(X))
    run_cli(cli, "cluster", path, "-k", 3, "--seed", 5, "-a", "nuclear", "--refine", "chosen", "-q",
            "-o", tmp_path / "out", "--save-model", tmp_path / "cli.model")
    back = mmnc.load(tmp_path / "cli.model")
    with open(tmp_path / "out.json") as f:
        summary = json.load(f)
    params = back.get_params()
    assert (params["n_clusters"], params["algorithm"], params["refine"], params["random_state"]) == \
        (3, "nuclear", "chosen", 5)
    np.testing.assert_allclose(back.singular_values_, summary["singular_values"], rtol=1e-9)
    assert back.nuclear_norm_ == pytest.approx(summary["nuclear_norm"], rel=1e-12)
    assert back.mutual_information_ == pytest.approx(summary["mutual_information"], rel=1e-12)
    np.testing.assert_allclose(back.cluster_marginal_, summary["pz"], rtol=1e-12)
    assert set(fitted(back)) == {"cluster_marginal_", "singular_values_", "nuclear_norm_", "frobenius_norm_",
                                 "mutual_information_", "objective_"}


def test_load_of_a_file_without_the_fit_record(tmp_path, pandas):
    """A file that MMNC.save wrote before the options carried `fitted=`: what its options and
    arrays give (parameters, width, names of the columns with mass, spectrum), nothing invented."""
    X, _ = planted(seed=17)
    X[:, 4] = 0
    names = [f"w{j}" for j in range(X.shape[1])]
    for data in (X, pandas.DataFrame(X, columns=names)):
        m = mmnc.MMNC(3, n_init=3).fit(data)
        m._model.options = m._options.partition(" fitted=")[0]
        m.save(tmp_path / "old.model")
        back = mmnc.load(tmp_path / "old.model")
        assert back.get_params() == m.get_params()
        np.testing.assert_allclose(back.singular_values_, m.singular_values_, rtol=1e-12)
        assert not hasattr(back, "n_iter_") and not hasattr(back, "restart_objectives_")
        if hasattr(m, "feature_names_in_"):
            assert list(back.feature_names_in_) == names[:4] + names[5:] and not hasattr(back, "empty_columns_")
        else:
            assert back.n_features_in_ == X.shape[1] and list(back.empty_columns_) == [4]


# -- co-clustering (col_clusters) ---------------------------------------------

def test_col_clusters_column_labels_and_biclusters(tmp_path, cli):
    """col_clusters sets column_labels_ (-1 for a column without mass), block_marginal_ whose
    I(Z;W) is objective_, and the bicluster indicators; the columns are those of mmnc cluster."""
    import csv
    import subprocess
    X, truth = planted(n_rows=120, n_cols=40, k=3, seed=5)
    X[:, 7] = 0  # a column without mass
    m = mmnc.MMNC(3, algorithm="information", col_clusters=3, random_state=2).fit(X)
    assert m.column_labels_.shape == (40,) and m.column_labels_[7] == -1
    assert set(m.column_labels_[m.column_labels_ >= 0]) == {0, 1, 2}
    q = m.block_marginal_
    assert q.shape == (3, 3) and q.sum() == pytest.approx(1.0)
    qz, qw = q.sum(axis=1, keepdims=True), q.sum(axis=0, keepdims=True)
    assert m.objective_ == pytest.approx(float((q * np.log(q / (qz * qw))).sum()), rel=1e-12)
    rows, cols = m.biclusters_
    assert rows.shape == (9, 120) and cols.shape == (9, 40)
    assert (rows.sum(axis=0)[m.labels_ >= 0] == 3).all() and (cols.sum(axis=0)[m.column_labels_ >= 0] == 3).all()
    path = tmp_path / "x.mtx"
    with open(path, "w") as f:
        nz = np.argwhere(X > 0)
        f.write("%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (X.shape[0], X.shape[1], len(nz)))
        for i, j in nz:
            f.write("%d %d %.17g\n" % (i + 1, j + 1, X[i, j]))
    subprocess.run([cli, "cluster", "-q", "-a", "information", "-k", "3", "--col-clusters", "3", "-s", "2", "-o", str(tmp_path / "c"),
                    str(path)], check=True)
    with open(tmp_path / "c.col_labels.tsv") as f:
        got = {int(r[0]) - 1: int(r[2]) - 1 for r in list(csv.reader(f, delimiter="\t"))[1:]}
    assert got == {j: int(m.column_labels_[j]) for j in range(40) if m.column_labels_[j] >= 0}
    plain = mmnc.MMNC(3).fit(X)
    assert not hasattr(plain, "column_labels_") and not hasattr(plain, "rows_")


def test_col_clusters_default_is_the_dirichlet_form():
    """On counts the default co-clusters in the Dirichlet mixture's model: dmm_alpha_ and
    dmm_beta_ are set (beta >= dmm_beta), objective_ is the evidence a count (below zero, not
    the blocks' I(Z;W)), and the planted rows and column groups come back; the information form
    sets no dmm_alpha_."""
    X, truth = planted(n_rows=120, n_cols=42, k=3, seed=4)
    m = mmnc.MMNC(3, col_clusters=3, random_state=1).fit(X)
    assert m.dmm_alpha_ > 0 and m.dmm_beta_ >= m.dmm_beta and m.objective_ < 0
    def same(a, b):  # the same partition up to renaming
        return len(set(zip(a, b))) == len(set(a)) == len(set(b))
    assert same(truth.tolist(), m.labels_.tolist())
    assert same((np.arange(42) % 3).tolist(), m.column_labels_.tolist())
    q = m.block_marginal_
    assert q.shape == (3, 3) and q.sum() == pytest.approx(1.0)
    qz, qw = q.sum(axis=1, keepdims=True), q.sum(axis=0, keepdims=True)
    assert m.objective_ != pytest.approx(float((q * np.log(q / (qz * qw))).sum()))
    i = mmnc.MMNC(3, algorithm="information", col_clusters=3, random_state=1).fit(X)
    assert i.dmm_alpha_ is None and i.dmm_beta_ is None


def test_load_of_a_cocluster_model(tmp_path, cli):
    """A co-clustering model, saved by MMNC.save or by mmnc cluster --save-model, loads with
    column_labels_ (-1 for a column without mass), block_marginal_ and columns_; rows_ needs the
    training labels, which no model file holds."""
    import scipy.io
    import scipy.sparse as sp
    from test_mmnc import run_cli
    X, _ = planted(n_rows=120, n_cols=40, k=3, seed=5)
    X[:, 7] = 0
    m = mmnc.MMNC(3, algorithm="information", col_clusters=3, random_state=2).fit(X)
    m.save(tmp_path / "m.model")
    back = mmnc.load(tmp_path / "m.model")
    np.testing.assert_array_equal(back.column_labels_, m.column_labels_)
    np.testing.assert_array_equal(back.block_marginal_, m.block_marginal_)
    np.testing.assert_array_equal(back.columns_, m.columns_)
    with pytest.raises(AttributeError, match="no training rows"):
        back.rows_
    np.testing.assert_array_equal(back.predict(X), m.predict(X))
    path = str(tmp_path / "x.mtx")
    scipy.io.mmwrite(path, sp.csr_matrix(X))
    run_cli(cli, "cluster", path, "-a", "information", "-k", 3, "--col-clusters", 3, "--seed", 2, "-q", "-o", tmp_path / "c",
            "--save-model", tmp_path / "cli.model")
    cli_back = mmnc.MMNC.load(tmp_path / "cli.model")
    with open(tmp_path / "c.col_labels.tsv") as f:
        trained = [int(line.split("\t")[2]) - 1 for line in list(f)[1:]]
    assert list(cli_back.column_labels_) == trained  # the CLI's model knows the columns with mass alone
    assert cli_back.block_marginal_.shape == (3, 3) and cli_back.block_marginal_.sum() == pytest.approx(1.0)


def test_dmm_fits_its_dirichlet_parameters():
    X, truth = planted(seed=3)
    m = mmnc.MMNC(3, algorithm="dmm").fit(X)
    assert m.dmm_alpha_ > 0 and m.dmm_beta_ > 0
    assert mmnc.MMNC(3, algorithm="information").fit(X).dmm_alpha_ is None
    assert np.array_equal(m.labels_, mmnc.MMNC(3, algorithm="dmm").fit(X).labels_)
