"""The Python binding against the mmnc tool, against scikit-learn's metrics, and on its own edge cases."""
import csv
import gzip
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import mmnc
from conftest import ROOT, planted


def read_cli_labels(prefix, n_rows):
    """labels.tsv of `mmnc cluster` (1-based ids and clusters) as 0-based labels, -1 for rows it dropped."""
    labels = np.full(n_rows, -1, dtype=np.int64)
    with open(prefix + ".labels.tsv") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    for row_id, cluster, _ in rows:
        labels[int(row_id) - 1] = int(cluster) - 1
    return labels


def run_cli(cli, *args):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    subprocess.run([cli, *map(str, args)], check=True, env=env, stdout=subprocess.DEVNULL)


# -- the same results as the command-line tool -------------------------------

CASES = [
    ({}, []),
    ({"random_state": 7, "n_init": 4}, ["--seed", 7, "--restarts", 4]),
    ({"algorithm": "information", "random_state": 3}, ["-a", "information", "--seed", 3]),
    ({"algorithm": "frobenius", "random_state": 2, "n_init": 3}, ["-a", "frobenius", "--seed", 2, "-r", 3]),
    ({"algorithm": "nuclear"}, ["--paper"]),
    ({"algorithm": "nuclear", "init": "spectral", "select": "predictive", "refine": "chosen", "size_prior": 0.0},
     ["-a", "nuclear", "--init", "spectral", "--select", "predictive", "--refine", "chosen", "--size-prior", 0]),
    ({"algorithm": "information", "size_prior": 2.5}, ["-a", "information", "--size-prior", 2.5]),
    ({"algorithm": "information", "move_tol": 0.0}, ["-a", "information", "--move-tol", 0]),
    ({"algorithm": "information", "move_tol": 0.05, "n_init": 3}, ["-a", "information", "--move-tol", 0.05, "-r", 3]),
    ({"algorithm": "information", "merge_split": 0}, ["-a", "information", "--merge-split", 0]),
    ({"algorithm": "information", "merge_split": 3, "n_init": 2}, ["-a", "information", "--merge-split", 3, "-r", 2]),
    ({"algorithm": "information", "agreement": False}, ["-a", "information", "--agreement", 0]),
    ({"algorithm": "information", "col_clusters": 4, "n_init": 3}, ["-a", "information", "--col-clusters", 4, "-r", 3]),
    ({"algorithm": "dmm", "random_state": 5, "n_init": 3}, ["-a", "dmm", "--seed", 5, "-r", 3]),
    ({"algorithm": "dmm", "dmm_beta": 0.0}, ["-a", "dmm", "--dmm-beta", 0]),
    ({"algorithm": "dmm", "dmm_beta": 2.0, "n_init": 3}, ["-a", "dmm", "--dmm-beta", 2, "-r", 3]),
    ({"algorithm": "nuclear", "init": "kmeans++", "refine": "each", "max_iter": 5}, ["-a", "nuclear", "--init", "kmeans++", "--refine", "each",
                                                            "--max-iter", 5]),
]


@pytest.mark.parametrize("params,flags", CASES)
def test_labels_equal_cli(tmp_path, cli, params, flags):
    X, _ = planted(n_rows=120, n_cols=50, k=4, inside=1.2, outside=0.7, seed=11)
    X[17] = 0  # a row and a column without mass: both sides drop them
    X[:, 9] = 0
    path = str(tmp_path / "x.mtx")
    scipy.io.mmwrite(path, sp.csr_matrix(X))
    run_cli(cli, "cluster", path, "-k", 4, "-q", "-o", tmp_path / "out", *flags)
    with warnings.catch_warnings():  # the max_iter = 5 case stops at its cap, as the CLI's does
        warnings.simplefilter("ignore", mmnc.ConvergenceWarning)
        model = mmnc.MMNC(4, **params).fit(X)
    expected = read_cli_labels(str(tmp_path / "out"), X.shape[0])
    assert expected[17] == -1
    np.testing.assert_array_equal(model.labels_, expected)
    with open(tmp_path / "out.json") as f:
        summary = json.load(f)
    assert model.nuclear_norm_ == pytest.approx(summary["nuclear_norm"], rel=1e-12)
    assert model.mutual_information_ == pytest.approx(summary["mutual_information"], rel=1e-12)
    np.testing.assert_allclose(model.singular_values_, summary["singular_values"], rtol=1e-12)
    np.testing.assert_allclose(model.cluster_marginal_, summary["pz"], rtol=1e-12)


def test_defaults_equal_cli(tmp_path, cli):
    """MMNC() is `mmnc cluster` without options: the same defaults (k, seed, ...), from the library."""
    X, _ = planted(n_rows=60, n_cols=30, k=2, seed=12)
    path = str(tmp_path / "x.mtx")
    scipy.io.mmwrite(path, sp.csr_matrix(X))
    run_cli(cli, "cluster", path, "-q", "-o", tmp_path / "out")
    model = mmnc.MMNC().fit(X)
    np.testing.assert_array_equal(model.labels_, read_cli_labels(str(tmp_path / "out"), X.shape[0]))
    with open(tmp_path / "out.json") as f:
        summary = json.load(f)
    assert model.objective_ == pytest.approx(summary["objective"], rel=1e-12)
    params = model.get_params()
    assert (summary["k"], summary["seed"], summary["restarts"]) == (params["n_clusters"], params["random_state"],
                                                                   params["n_init"])


def test_cli_model_predicts_like_python(tmp_path, cli):
    """A model saved by `mmnc cluster --save-model` and one fitted here predict alike."""
    X, _ = planted(seed=4)
    Xnew, _ = planted(n_rows=30, seed=5)
    path = str(tmp_path / "x.mtx")
    scipy.io.mmwrite(path, sp.csr_matrix(X))
    run_cli(cli, "cluster", path, "-k", 3, "--seed", 9, "-q", "-o", tmp_path / "out",
            "--save-model", tmp_path / "cli.model")
    ours = mmnc.MMNC(3, random_state=9).fit(X)
    theirs = mmnc.load(tmp_path / "cli.model")
    np.testing.assert_array_equal(theirs.predict(Xnew), ours.predict(Xnew))
    np.testing.assert_allclose(theirs.predict_proba(Xnew), ours.predict_proba(Xnew), rtol=1e-12, atol=1e-300)


# -- inputs ------------------------------------------------------------------

def test_input_forms_agree():
    X, _ = planted(seed=1)
    ref = mmnc.MMNC(3).fit(X).labels_
    S = sp.csr_matrix(X)
    assert S.indices.dtype == np.int32
    for form in (S, S.tocsc(), S.tocoo(), X.tolist(), X.astype(np.float32), X.astype(np.int64),
                 sp.csr_matrix((S.data, S.indices.astype(np.int64), S.indptr.astype(np.int64)), shape=S.shape)):
        np.testing.assert_array_equal(mmnc.MMNC(3).fit(form).labels_, ref)
    # a scaled matrix is the same joint pmf up to rounding: the same partition (numbered maybe otherwise)
    assert mmnc.evaluate(mmnc.MMNC(3).fit(X * 3.5).labels_, ref).ari == 1.0


def test_canonical_csr_is_not_copied():
    X, _ = planted(seed=2)
    S = sp.csr_matrix(X)
    indptr, indices, data, _ = mmnc._arrays(mmnc._csr(S))  # int32 indices: converted, values read in place
    assert indices.dtype == np.int64 and not np.shares_memory(indices, S.indices)
    assert np.shares_memory(data, S.data)
    S.indices = S.indices.astype(np.int64)  # SciPy keeps int64 indices it is given this way
    S.indptr = S.indptr.astype(np.int64)
    indptr, indices, data, _ = mmnc._arrays(mmnc._csr(S))
    assert np.shares_memory(indices, S.indices) and np.shares_memory(indptr, S.indptr)
    assert np.shares_memory(data, S.data)
    # and through fit's validation too
    indptr, indices, data, _ = mmnc._arrays(mmnc.MMNC(3)._check_X(S, reset=True)[0])
    assert np.shares_memory(indices, S.indices) and np.shares_memory(data, S.data)


def test_duplicates_and_explicit_zeros():
    X, _ = planted(seed=3)
    coo = sp.coo_matrix(X)
    # every entry split in two halves, plus explicit zeros: the same matrix
    rows = np.concatenate([coo.row, coo.row, [0, 1]])
    cols = np.concatenate([coo.col, coo.col, [5, 7]])
    vals = np.concatenate([coo.data / 2, coo.data / 2, [0.0, 0.0]])
    D = sp.csr_matrix((vals, (rows, cols)), shape=X.shape)
    D.has_canonical_format = False
    np.testing.assert_array_equal(mmnc.MMNC(3).fit(D).labels_, mmnc.MMNC(3).fit(X).labels_)


@pytest.mark.parametrize("bad,match", [(-1.0, "Negative"), (np.nan, "NaN"), (np.inf, "infinity")])
def test_bad_values_refused(bad, match):
    X, _ = planted(seed=1)
    X[3, 4] = bad
    with pytest.raises(ValueError, match=match):
        mmnc.MMNC(3).fit(X)
    with pytest.raises(ValueError, match=match):
        mmnc.MMNC(3).fit(sp.csr_matrix(X))


def test_empty_rows_and_columns():
    X, truth = planted(seed=6)
    X[[0, 10, 11]] = 0
    X[:, 3] = 0
    m = mmnc.MMNC(3).fit(X)
    np.testing.assert_array_equal(m.empty_rows_, [0, 10, 11])
    np.testing.assert_array_equal(m.empty_columns_, [3])
    assert (m.labels_[[0, 10, 11]] == -1).all() and (m.labels_[1:10] >= 0).all()
    assert (m.row_proba_[[0, 10, 11]] == 0).all()
    np.testing.assert_allclose(m.row_proba_[m.labels_ >= 0].sum(axis=1), 1.0)
    # the rows that remain are clustered as if the empty ones were never there
    keep = m.labels_ >= 0
    alone = mmnc.MMNC(3).fit(np.delete(X[keep], 3, axis=1))
    np.testing.assert_array_equal(alone.labels_, m.labels_[keep])
    # predicting: rows with no mass on a known column get -1
    assert m.predict(X)[0] == -1


def test_nothing_to_cluster():
    with pytest.raises(ValueError, match="no positive entry"):
        mmnc.MMNC(2).fit(np.zeros((5, 4)))
    X, _ = planted(n_rows=6, seed=1)
    with pytest.raises(ValueError, match="n_samples = 6"):
        mmnc.MMNC(7).fit(X)


@pytest.mark.parametrize("param,value", [("n_clusters", 0), ("algorithm", "kmeans"), ("init", "k-means"),
                                         ("n_init", 0), ("refine", "all"), ("select", "best"), ("n_jobs", 0),
                                         ("random_state", -3), ("max_iter", 0), ("target_marginal", [1.0]),
                                         ("merge_split", -1), ("merge_split", 2.5), ("agreement", 2)])
def test_bad_parameters(param, value):
    X, _ = planted(seed=1)
    with pytest.raises(ValueError, match=param):
        mmnc.MMNC(**dict({"n_clusters": 3}, **{param: value})).fit(X)


# -- results -----------------------------------------------------------------

def test_planted_partition_and_attributes():
    X, truth = planted(seed=8)
    m = mmnc.MMNC(3, n_init=4, algorithm="nuclear", select="predictive").fit(X)
    assert m.size_prior_kept_ is None and m.size_prior_refused_ is None
    assert mmnc.MMNC(3, n_init=2, algorithm="information").fit(X).size_prior_kept_ in (True, False)
    assert mmnc.MMNC(3, n_init=2).fit(X).size_prior_kept_ is None  # the default, dmm: no size prior
    scores = mmnc.evaluate(m.labels_, truth)
    assert scores.acc > 0.95
    assert m.row_proba_.shape == (X.shape[0], 3)
    np.testing.assert_array_equal(m.row_proba_.argmax(axis=1), m.labels_)
    assert m.cluster_marginal_.sum() == pytest.approx(1.0)
    assert m.singular_values_[0] == pytest.approx(1.0)
    assert m.nuclear_norm_ == pytest.approx(m.singular_values_.sum())
    assert m.restart_objectives_.shape == (4,) and m.restart_scores_.shape == (4,)
    assert 0 <= m.best_restart_ < 4 and m.n_iter_ >= 1


def test_convergence_warning(tmp_path):
    # a start stopped at its iteration cap is said plainly: converged_ False and a ConvergenceWarning
    X, _ = planted(seed=8)
    with pytest.warns(mmnc.ConvergenceWarning, match="iteration cap"):
        m = mmnc.MMNC(3, n_init=2, max_iter=1).fit(X)
    assert m.converged_ is False
    assert m.restart_converged_.shape == (2,) and not m.restart_converged_.any()
    m.save(tmp_path / "m.model")
    assert mmnc.load(str(tmp_path / "m.model")).converged_ is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mmnc.MMNC(3, n_init=2).fit(X).converged_ is True
        assert mmnc.MMNC(3, n_init=2).fit(X).restart_converged_.all()


def test_moves():
    # moves="batch" (information objective): the same bits for any thread count; the default
    # is "auto", the sequential moves in one process; a bad value, or batch with co-clustering,
    # is a ValueError
    X, truth = planted(n_rows=300, n_cols=60, k=4, inside=1.0, outside=0.6, seed=12)
    one = mmnc.MMNC(4, algorithm="information", moves="batch", n_jobs=1).fit(X)
    two = mmnc.MMNC(4, algorithm="information", moves="batch", n_jobs=2).fit(X)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.objective_ == two.objective_
    seq = mmnc.MMNC(4, moves="sequential").fit(X)
    assert seq.get_params()["moves"] == "sequential" and mmnc.MMNC(4).moves == "auto"
    np.testing.assert_array_equal(seq.labels_, mmnc.MMNC(4).fit(X).labels_)
    with pytest.raises(ValueError, match="moves"):
        mmnc.MMNC(4, moves="parallel").fit(X)
    with pytest.raises(ValueError, match="moves|sequential"):
        mmnc.MMNC(4, algorithm="information", moves="batch", col_clusters=3).fit(X)


def test_soft_kernel_frobenius():
    X, truth = planted(seed=9, inside=1.0, outside=0.8)
    m = mmnc.MMNC(3, algorithm="frobenius", n_init=2).fit(X)
    np.testing.assert_allclose(m.row_proba_.sum(axis=1), 1.0)
    assert ((m.row_proba_ > 0) & (m.row_proba_ < 1)).any()  # a soft kernel


def test_threads_do_not_change_results():
    X, _ = planted(n_rows=200, n_cols=60, k=4, inside=1.0, outside=0.6, seed=10)
    one = mmnc.MMNC(4, n_jobs=1).fit(X)
    two = mmnc.MMNC(4, n_jobs=2).fit(X)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.nuclear_norm_ == two.nuclear_norm_


def test_predict_and_proba():
    X, truth = planted(seed=12)
    m = mmnc.MMNC(3).fit(X)
    agree = (m.predict(X) == m.labels_).mean()
    assert agree > 0.9
    P = m.predict_proba(X)
    assert P.shape == (X.shape[0], 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(m.transform(X), P)
    # held-out rows of the same groups are predicted into their group's cluster
    Xnew, tnew = planted(n_rows=60, seed=13)
    assert mmnc.evaluate(m.predict(Xnew), tnew).acc > 0.9
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :-1])


def test_unfitted():
    with pytest.raises(Exception, match="not fitted"):
        mmnc.MMNC().predict(np.ones((2, 2)))


def test_save_load_and_pickle(tmp_path):
    X, _ = planted(seed=14)
    m = mmnc.MMNC(3).fit(X)
    m.save(tmp_path / "m.model")
    back = mmnc.load(str(tmp_path / "m.model"))
    assert back.n_clusters == 3 and back.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(back.predict(X), m.predict(X))
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    again = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(again.predict_proba(X), m.predict_proba(X))
    np.testing.assert_array_equal(again.labels_, m.labels_)
    # a damaged file is refused with the library's message
    data = bytearray((tmp_path / "m.model").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "bad.model").write_bytes(bytes(data))
    with pytest.raises(ValueError):
        mmnc.load(tmp_path / "bad.model")
    with pytest.raises(OSError):
        mmnc.load(tmp_path / "missing.model")


def test_keyboard_interrupt_stops_a_fit():
    """SIGINT during a long fit raises KeyboardInterrupt soon, and the next fit works."""
    X, _ = planted(n_rows=3000, n_cols=300, k=10, inside=0.5, outside=0.3, seed=15)
    # about a minute uninterrupted (2000 gradient steps; tol never met)
    long_fit = mmnc.MMNC(10, algorithm="frobenius", n_init=1, tol=1e-300, max_iter=2000)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        long_fit.fit(X)
    elapsed = time.monotonic() - t0
    timer.join()
    assert elapsed < 10.0
    assert not hasattr(long_fit, "labels_")
    small, _ = planted(seed=1)
    assert mmnc.MMNC(3).fit(small).labels_.shape == (small.shape[0],)


def test_verbose_progress(capsys):
    """verbose writes the progress on sys.stderr (2: at least the last iteration, whatever the
    speed), and changes nothing else."""
    X, _ = planted(n_rows=600, n_cols=100, k=4, seed=15)
    loud = mmnc.MMNC(4, verbose=2).fit(X)
    err = capsys.readouterr().err
    assert "mmnc: start " in err and "iteration" in err and "objective" in err
    quiet = mmnc.MMNC(4).fit(X)
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(loud.labels_, quiet.labels_)
    assert loud.objective_ == quiet.objective_
    E, s = mmnc.embed(X, 3, verbose=2)
    assert "mmnc: embed, iteration " in capsys.readouterr().err
    E2, s2 = mmnc.embed(X, 3)
    assert (E == E2).all() and (s == s2).all()
    A, _ = mmnc.cooc([TEXT], window=3, min_count=1, verbose=2)
    assert "mmnc.cooc: pass 2 of 2" in capsys.readouterr().err
    with pytest.raises(ValueError, match="verbose"):
        mmnc.MMNC(3, verbose=-1).fit(X)
    with pytest.raises(ValueError, match="verbose"):
        mmnc.embed(X, 3, verbose="yes")


# -- cooc, embed, evaluate ---------------------------------------------------

TEXT = ("The cat sat on the mat. The dog sat on the log!\n\nA cat and a dog met on the mat; "
        "the cat ran. Mr. Smith saw the dog and the cat.\n")


def test_cooc_texts_files_and_cli(tmp_path, cli):
    path = tmp_path / "t.txt"
    path.write_text(TEXT)
    A, vocab = mmnc.cooc([TEXT], window=3, min_count=2)
    B, vocab_b = mmnc.cooc(path, window=3, min_count=2)
    C, vocab_c = mmnc.cooc([str(path)], window=3, min_count=2, input="filename")
    assert vocab == vocab_b == vocab_c and vocab[0] == "the"
    assert isinstance(A, sp.csr_matrix) and A.dtype == np.float64
    assert (A != B).nnz == 0 and (A != C).nnz == 0
    assert (A != A.T).nnz == 0  # symmetric
    run_cli(cli, "cooc", path, "--window", 3, "--min-count", 2, "-o", tmp_path / "c.mtx")
    M = scipy.io.mmread(str(tmp_path / "c.mtx")).tocsr()
    np.testing.assert_allclose(M.toarray(), A.toarray(), rtol=1e-12)
    assert (tmp_path / "c.vocab").read_text().split("\n")[:len(vocab)] == vocab
    # two texts do not share windows: the pair across them is not counted
    D, v = mmnc.cooc(["alpha beta", "gamma delta"], window=5, min_count=1, weighting="flat",
                     input="content")
    i, j = v.index("beta"), v.index("gamma")
    assert D[i, j] == 0 and D[v.index("alpha"), i] == 1


def test_cooc_gzip_and_errors(tmp_path):
    path = tmp_path / "t.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write(TEXT)
    A, vocab = mmnc.cooc(path, window=3, min_count=2)
    assert A.shape == (len(vocab), len(vocab))
    with pytest.raises(ValueError, match="occurs at least 5 times"):
        mmnc.cooc(["one two three"], min_count=5, input="content")
    with pytest.raises(OSError):
        mmnc.cooc(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="NUL"):
        mmnc.cooc(["a\0b a b a b"], min_count=1, input="content")


def test_cooc_max_memory(tmp_path):
    # enough distinct pairs to fill a 64 KB table many times: the same bits
    rng = np.random.default_rng(3)
    words = [f"w{int(3000 * u * u)}" for u in rng.random(60000)]
    path = tmp_path / "t.txt"
    path.write_text("\n".join(" ".join(words[i:i + 12]) for i in range(0, len(words), 12)))
    A, vocab = mmnc.cooc(path, window=5, min_count=1)
    B, vocab_b = mmnc.cooc(path, window=5, min_count=1, max_memory=64 << 10)
    assert vocab == vocab_b and A.nnz > 20000
    assert np.array_equal(A.indptr, B.indptr) and np.array_equal(A.indices, B.indices)
    assert np.array_equal(A.data, B.data)
    with pytest.raises(ValueError, match="max_memory"):
        mmnc.cooc(path, max_memory=1000)


def test_embed():
    X, truth = planted(n_rows=120, n_cols=60, k=3, seed=16)
    E, sigma = mmnc.embed(X, 2)
    assert E.shape == (120, 2) and sigma.shape == (2,)
    assert 1 > sigma[0] >= sigma[1] > 0
    # the two leading nontrivial directions separate the three planted groups
    centres = np.array([E[truth == g].mean(axis=0) for g in range(3)])
    spread = max(np.linalg.norm(E[truth == g] - centres[g], axis=1).mean() for g in range(3))
    assert min(np.linalg.norm(centres[a] - centres[b]) for a in range(3) for b in range(a)) > spread
    # scale-free, and an empty row gets a zero vector
    E2, _ = mmnc.embed(X * 10, 2)
    np.testing.assert_allclose(np.abs(E2), np.abs(E), rtol=1e-6, atol=1e-9)
    X[5] = 0
    E3, _ = mmnc.embed(X, 2)
    assert (E3[5] == 0).all()
    with pytest.raises(ValueError):
        mmnc.embed(X, 200)


def test_keyboard_interrupt_stops_an_embed():
    """SIGINT during a long embedding raises KeyboardInterrupt soon, and the next embed works."""
    X = sp.random(3000, 3000, density=0.01, format="csr", random_state=18) + sp.eye(3000, format="csr")
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):  # a tolerance never met: minutes uninterrupted
        mmnc.embed(X, 200, tol=1e-300, max_iter=100000)
    elapsed = time.monotonic() - t0
    timer.join()
    assert elapsed < 10.0
    assert mmnc.embed(X, 2)[0].shape == (3000, 2)


def test_evaluate_against_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(17)
    truth = rng.integers(0, 4, 200)
    pred = np.where(rng.random(200) < 0.7, truth, rng.integers(0, 5, 200))
    s = mmnc.evaluate(pred, truth)
    assert s.ari == pytest.approx(metrics.adjusted_rand_score(truth, pred), abs=1e-12)
    assert s.nmi == pytest.approx(metrics.normalized_mutual_info_score(truth, pred), abs=1e-12)
    cm = metrics.cluster.contingency_matrix(truth, pred)
    assert s.purity == pytest.approx(cm.max(axis=0).sum() / 200)
    # a permutation of the truth (with string labels) is a perfect score
    perm = np.array(["d", "a", "c", "b"])[truth]
    assert mmnc.evaluate(perm, truth)[:4] == (1.0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        mmnc.evaluate([0, 1], [0])


def test_imports_without_sklearn():
    """The package works without scikit-learn (its stand-ins in mmnc/_compat.py)."""
    code = ("import sys; sys.modules['sklearn'] = None\n"
            "import numpy as np, mmnc\n"
            "assert not mmnc._SKLEARN\n"
            "X = np.kron(np.eye(2), np.ones((5, 4))) + 0.1\n"
            "m = mmnc.MMNC(2, n_init=2).fit(X)\n"
            "assert len(set(m.labels_[:5])) == 1 and m.labels_[0] != m.labels_[9]\n"
            "assert (m.predict(X) == m.labels_).all()\n"
            "import pickle; assert (pickle.loads(pickle.dumps(m)).predict_proba(X) == m.predict_proba(X)).all()\n"
            "assert m.get_params()['n_init'] == 2 and m.set_params(n_init=3).n_init == 3\n"
            "try:\n    mmnc.MMNC(2).fit(-X)\nexcept ValueError as e:\n    assert 'Negative' in str(e)\n"
            "else:\n    raise SystemExit('negative input accepted')\n"
            "try:\n    mmnc.MMNC().predict(X)\nexcept ValueError:\n    pass\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def short_rows(X, rng, groups, per, vocab, own):
    """Six-token rows in equal groups (rows g * per ..): a token is one of the group's own
    vocab columns with probability own, else any of the groups' columns."""
    for y in range(groups * per):
        for _ in range(6):
            X[y, (y // per) * vocab + rng.integers(vocab) if rng.random() < own else rng.integers(groups * vocab)] += 1


def test_guard_reason():
    # short rows of five planted groups and four outlier rows with words of their own: the
    # prior's partition (one giant cluster beside the outliers) has the higher nuclear norm,
    # and the guard refuses it for its predictive information (tests/test_information.c)
    rng = np.random.default_rng(3)
    X = np.zeros((204, 120))
    short_rows(X, rng, groups=5, per=40, vocab=20, own=0.7)
    for o in range(4):
        X[200 + o, rng.integers(100)] += 1
        for w in range(5):
            X[200 + o, 100 + 5 * o + w] = 3
            X[rng.integers(200), 100 + 5 * o + w] += 1
    # the guard alone; seed 2: starts where no start that keeps the prior holds more information
    # than the refused one of best objective (which is then kept: docs/default.md)
    m = mmnc.MMNC(5, algorithm="information", agreement=False, random_state=2).fit(X)
    assert m.size_prior_kept_ is False and m.size_prior_refused_ == "predictive information"
    assert np.bincount(m.labels_).max() <= 100
    assert m.agreement_ is None


def test_agreement_rule():
    # short rows in six equal groups: the prior pulls the starts into different merges, so
    # they agree less with it than without it, and the result is that of size_prior=0
    # (tests/test_information.c, test_agreement_rule)
    rng = np.random.default_rng(1)
    X = np.zeros((360, 180))
    short_rows(X, rng, groups=6, per=60, vocab=30, own=0.6)
    m = mmnc.MMNC(6, algorithm="information").fit(X)
    assert m.size_prior_kept_ is False and m.size_prior_refused_ == "agreement"
    assert m.agreement_[0] < m.agreement_[1]
    assert m.starts_agreement_ == m.agreement_[1]  # the prior-free starts, as the run kept them
    m0 = mmnc.MMNC(6, algorithm="information", size_prior=0.0).fit(X)
    assert np.array_equal(m.labels_, m0.labels_) and m.objective_ == m0.objective_
    assert m0.agreement_ is None and m0.starts_agreement_ is None
    # the default (the Dirichlet mixture on these counts): its starts' agreement, also after load
    d = mmnc.MMNC(6).fit(X)
    assert 0.0 < d.starts_agreement_ <= 1.0
    assert mmnc.MMNC(6, n_init=1).fit(X).starts_agreement_ is None


# -- semi-supervision: fit(X, y) --------------------------------------------

@pytest.mark.parametrize("y,match", [
    (np.zeros(10, dtype=np.int64), "one label per row"),
    (np.r_[-1, np.full(89, 3)], r"y\[1\] = 3: expected -1 \(free\) or a cluster 0..2"),
    (np.r_[np.full(89, -1), -2], r"y\[89\] = -2"),
    (np.r_[np.full(89, -1), 0.5], "must hold integers"),
    (np.array([-1] + ["a"] * 89, dtype=object), "must hold integers"),
])
def test_fit_y_refused(y, match):
    X, _ = planted()
    with pytest.raises(ValueError, match=match):
        mmnc.MMNC(3).fit(X, y)


def test_fit_y_all_free_is_unsupervised():
    """y of -1 alone (floats too) is the fit without y."""
    X, _ = planted()
    free = mmnc.MMNC(3).fit(X, np.full(90, -1.0))
    np.testing.assert_array_equal(free.labels_, mmnc.MMNC(3).fit(X).labels_)


def test_fit_y_on_rows_without_mass():
    """Labels on all-zero rows (left out of the fit) are said: a warning where other rows are held,
    a ValueError where they were the only labels (the fit would silently run unsupervised)."""
    X, truth = planted()
    X = X.copy()
    X[[4, 9]] = 0
    y = np.full(90, -1)
    y[[4, 9]] = truth[[4, 9]]
    with pytest.raises(ValueError, match=r"y labels only rows without mass \(4 9\)"):
        mmnc.MMNC(3).fit(X, y)
    y[[0, 1, 2]] = truth[[0, 1, 2]]
    with pytest.warns(UserWarning, match=r"y labels 2 rows without mass \(4 9\)"):
        m = mmnc.MMNC(3).fit(X, y)
    assert (m.labels_[[0, 1, 2]] == truth[[0, 1, 2]]).all() and (m.labels_[[4, 9]] == -1).all()


def test_random_state_in_the_cli_seed_range():
    """random_state is the CLI's --seed: 0 to 2**63 - 1."""
    X, _ = planted()
    mmnc.MMNC(3, n_init=1, random_state=2 ** 63 - 1).fit(X)
    with pytest.raises(ValueError, match=r"0 to 2\*\*63 - 1"):
        mmnc.MMNC(3, random_state=2 ** 63).fit(X)


def test_fit_y_without_free_rows_is_a_pipelines():
    """y with no -1 (the class labels a pipeline passes, of any kind) is ignored, with a warning."""
    X, truth = planted()
    plain = mmnc.MMNC(3).fit(X).labels_
    for y in (truth, np.array(["a", "b"] * 45), truth + 7):
        with pytest.warns(UserWarning, match="marks no row free"):
            np.testing.assert_array_equal(mmnc.MMNC(3).fit(X, y).labels_, plain)
    row_without_mass = X.copy()
    row_without_mass[4] = 0  # its -1 in y is no free row with mass
    y = (truth + 1) % 3
    y[4] = -1
    with pytest.raises(ValueError, match="labels every row with mass"):
        mmnc.MMNC(3).fit(row_without_mass, y)


def _given(truth, k, seed, share=0.1):
    """y with a share of the rows labelled by their planted group, the group numbers turned by one
    (so that no unsupervised numbering matches by chance), -1 elsewhere."""
    rng = np.random.default_rng(seed)
    y = np.full(truth.shape[0], -1, dtype=np.int64)
    pick = rng.choice(truth.shape[0], max(k, int(share * truth.shape[0])), replace=False)
    y[pick] = (truth[pick] + 1) % k
    return y


@pytest.mark.parametrize("algorithm", ["information", "nuclear", "frobenius"])
def test_fit_y_rows_held(algorithm):
    """Labelled rows keep their labels, against the data too: rows 0 and 3 of one planted group given
    two clusters (needs the library's mmnc_params.fixed_label)."""
    X, truth = planted(seed=5)
    y = _given(truth, 3, seed=1)
    y[0], y[3] = 0, 1  # rows 0 and 3 are of planted group 0
    model = mmnc.MMNC(3, algorithm=algorithm).fit(X, y)
    np.testing.assert_array_equal(model.labels_[y != -1], y[y != -1])
    np.testing.assert_array_equal(model.fit_predict(X, y)[y != -1], y[y != -1])


def test_fit_y_equal_cli(tmp_path, cli):
    """fit(X, y) is `mmnc cluster --labels` of the same rows (needs the library's part)."""
    X, truth = planted(n_rows=120, n_cols=50, k=4, inside=1.2, outside=0.7, seed=11)
    y = _given(truth, 4, seed=2)
    path = str(tmp_path / "x.mtx")
    scipy.io.mmwrite(path, sp.csr_matrix(X))
    with open(tmp_path / "given.tsv", "w") as f:
        f.write("id\tcluster\n" + "".join(f"{i + 1}\t{c + 1}\n" for i, c in enumerate(y) if c >= 0))
    run_cli(cli, "cluster", path, "-k", 4, "-q", "-o", tmp_path / "out", "--labels", tmp_path / "given.tsv")
    model = mmnc.MMNC(4).fit(X, y)
    np.testing.assert_array_equal(model.labels_, read_cli_labels(str(tmp_path / "out"), X.shape[0]))
    np.testing.assert_array_equal(model.labels_[y != -1], y[y != -1])
    with open(tmp_path / "out.json") as f:
        semi = json.load(f)["semi_supervision"]
    assert model.semi_supervision_[0] == semi["kept"]
    assert model.semi_scores_ == pytest.approx(semi["scores"], rel=1e-15)
    assert set(model.semi_scores_) == {"moves", "classifier", "transduced"}
