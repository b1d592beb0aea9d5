"""No silent wrong answer at the edges (issue 40): each case a right answer or a clear error."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mmnc


def run(cli, *args):
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True,
                          env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))


# -- evaluate: -1 is an unassigned row, not a cluster --------------------------

def test_evaluate_refuses_unassigned_rows():
    """-1 (a row MMNC.fit or predict left unassigned, DBSCAN's noise) was scored as one more
    cluster: [-1, 1, 1] against [0, 1, 1] scored 1.0 everywhere.  It is refused, with the count
    and the explicit way to score the assigned rows."""
    with pytest.raises(ValueError, match=r"1 of 3 predicted labels are -1 \(unassigned\)") as e:
        mmnc.evaluate([-1, 1, 1], [0, 1, 1])
    assert "labels >= 0" in str(e.value)
    for labels in (np.array([-1.0, 0.0]), np.array([[0], [-1]]), [5, -1]):
        with pytest.raises(ValueError, match="unassigned"):
            mmnc.evaluate(labels, [0, 1])
    # a -1 in the truth is a class like any other (libsvm's binary labels are -1 and +1)
    assert mmnc.evaluate([0, 0, 1], [-1, -1, 1]).acc == 1.0
    # other labels are still any hashable values
    assert mmnc.evaluate(["b", "a", "a"], [0, 1, 1]).acc == 1.0
    # scoring the assigned rows is one line, and says what it scores
    labels, truth = np.array([-1, 1, 1, 0]), np.array([0, 1, 1, 0])
    keep = labels >= 0
    assert mmnc.evaluate(labels[keep], truth[keep]).acc == 1.0


def test_evaluate_unassigned_rows_agrees_with_cli(tmp_path, cli):
    """`mmnc eval` refuses a PRED line with cluster -1 (as `mmnc predict` writes an unassigned
    row) with the same rule and remedy, and exit status 1."""
    pred = tmp_path / "p.labels.tsv"
    pred.write_text("id\tcluster\tprobability\n1\t-1\t0\n2\t2\t1\n3\t2\t1\n")
    truth = tmp_path / "truth.txt"
    truth.write_text("a\nb\nb\n")
    out = run(cli, "eval", pred, truth)
    assert out.returncode == 1 and out.stdout == ""
    assert "cluster -1 (unassigned)" in out.stderr and "p.labels.tsv:2" in out.stderr


# -- cooc: a file name that names no file is an error, not a text ----------------

def test_cooc_missing_path_is_an_error(tmp_path, monkeypatch):
    """mmnc.cooc([existing, 'typo.txt']) read the missing name as a text: the vocabulary gained
    'typo'.  A str without a line break is a file name, and a missing one is FileNotFoundError
    naming it; a text of one line is passed with input='content'."""
    path = tmp_path / "t.txt"
    path.write_text("the cat sat on the mat\nthe dog sat on the log\n")
    monkeypatch.chdir(tmp_path)
    for item in ("typo.txt", tmp_path / "typo.txt", str(tmp_path / "typo.txt")):
        with pytest.raises(FileNotFoundError, match="typo.txt") as e:
            mmnc.cooc([str(path), item], window=2, min_count=1)
        assert e.value.filename == os.fspath(item)
        assert "input='content'" in str(e.value)
    with pytest.raises(FileNotFoundError, match="typo.txt"):
        mmnc.cooc(["typo.txt"], input="filename")
    # one-line texts: input="content"; a text with a line break is a text as before
    A, vocab = mmnc.cooc(["alpha beta alpha"], window=2, min_count=1, input="content")
    B, vocab_b = mmnc.cooc(["alpha beta alpha\n"], window=2, min_count=1)
    assert vocab == vocab_b == ["alpha", "beta"] and (A != B).nnz == 0
    with pytest.raises(FileNotFoundError, match="alpha beta alpha"):
        mmnc.cooc(["alpha beta alpha"], window=2, min_count=1)
    # a file and a text in one call
    C, vocab_c = mmnc.cooc([path, "alpha beta alpha\n"], window=2, min_count=1)
    assert "alpha" in vocab_c and "cat" in vocab_c and "typo" not in vocab_c


# -- predict on a model whose columns are named -----------------------------------

def named_data(seed=4):
    from conftest import planted
    X, _ = planted(seed=seed)
    Xnew, _ = planted(n_rows=30, seed=seed + 1)
    return X, Xnew, [f"w{j}" for j in range(X.shape[1])]


def cli_predict_labels(cli, tmp_path, model, Xnew, names):
    """The 0-based labels of `mmnc predict MODEL xnew.mtx --names`, -1 for an unassigned row."""
    import scipy.io
    import scipy.sparse as sp
    path = tmp_path / "xnew.mtx"
    scipy.io.mmwrite(str(path), sp.csr_matrix(Xnew))
    (tmp_path / "xnew.names").write_text("\n".join(names) + "\n")
    out = run(cli, "predict", model, path, "--names", tmp_path / "xnew.names", "-q", "-o", tmp_path / "p")
    assert out.returncode == 0, out.stderr
    lines = (tmp_path / "p.labels.tsv").read_text().splitlines()[1:]
    labels = np.full(Xnew.shape[0], -1, dtype=np.int64)
    for line in lines:
        row, cluster, _ = line.split("\t")
        labels[int(row) - 1] = int(cluster) - 1 if int(cluster) > 0 else -1
    return labels


def test_named_model_refuses_a_plain_matrix(tmp_path, cli):
    """A model saved by `mmnc cluster --names` gave -1 for every row of a NumPy matrix, silently
    (its columns are known by name; `mmnc predict` refuses such data).  Now a ValueError that says
    how to pass the names; given them (a DataFrame or columns=), it predicts as `mmnc predict
    --names` does, in any column order."""
    import scipy.io
    import scipy.sparse as sp
    X, Xnew, names = named_data()
    scipy.io.mmwrite(str(tmp_path / "x.mtx"), sp.csr_matrix(X))
    (tmp_path / "x.names").write_text("\n".join(names) + "\n")
    out = run(cli, "cluster", tmp_path / "x.mtx", "-k", 3, "--seed", 9, "-q", "-o", tmp_path / "out",
              "--names", tmp_path / "x.names", "--save-model", tmp_path / "named.model")
    assert out.returncode == 0, out.stderr
    model = mmnc.load(tmp_path / "named.model")
    for method in (model.predict, model.predict_proba, model.transform):
        with pytest.raises(ValueError, match="columns are named") as e:
            method(Xnew)
        assert "DataFrame" in str(e.value) and "columns=" in str(e.value)
    want = cli_predict_labels(cli, tmp_path, tmp_path / "named.model", Xnew, names)
    assert (want >= 0).all()
    np.testing.assert_array_equal(model.predict(Xnew, columns=names), want)
    np.testing.assert_array_equal(model.predict(sp.csr_matrix(Xnew), columns=names), want)
    order = np.random.default_rng(0).permutation(len(names))
    shuffled = [names[j] for j in order]
    np.testing.assert_array_equal(model.predict(Xnew[:, order], columns=shuffled), want)
    np.testing.assert_allclose(model.predict_proba(Xnew[:, order], columns=shuffled),
                               model.predict_proba(Xnew, columns=names), rtol=1e-9)
    try:
        import pandas
    except ImportError:
        pandas = None
    if pandas is not None:
        df = pandas.DataFrame(Xnew, columns=names)
        np.testing.assert_array_equal(model.predict(df), want)
        np.testing.assert_array_equal(model.predict(df.iloc[:, order]), want)
    # the same model fitted here with the names predicts alike
    ours = mmnc.MMNC(3, random_state=9).fit(X, columns=names)
    np.testing.assert_array_equal(ours.predict(Xnew[:, order], columns=shuffled), want)
    with pytest.raises(ValueError, match="columns are named"):
        ours.predict(Xnew)
    ours.save(tmp_path / "ours.model")  # and its file knows the names too, for mmnc predict --names
    np.testing.assert_array_equal(cli_predict_labels(cli, tmp_path, tmp_path / "ours.model", Xnew, names), want)
    # columns= names X's columns: as many names as columns
    with pytest.raises(ValueError, match="40 columns"):
        model.predict(Xnew, columns=names[:-1])


def test_dataframe_columns_matched_by_name(tmp_path, pandas):
    """fit records feature_names_in_ (str column names only) and n_features_in_; predict matches a
    DataFrame's columns by name: reordered, unknown (ignored, with a warning naming them) and
    missing columns (no mass there) are handled as `mmnc predict` handles them."""
    import pickle
    import warnings
    X, Xnew, names = named_data(seed=6)
    df = pandas.DataFrame(X, columns=names)
    m = mmnc.MMNC(3, random_state=1).fit(df)
    assert isinstance(m.feature_names_in_, np.ndarray) and m.feature_names_in_.dtype == object
    assert list(m.feature_names_in_) == names and m.n_features_in_ == len(names)
    new = pandas.DataFrame(Xnew, columns=names)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        base = m.predict(new)
    np.testing.assert_array_equal(m.predict(new[names[::-1]]), base)
    # an unknown column: ignored, and said
    extra = new.assign(zzz=1.0, yyy=2.0)
    with pytest.warns(UserWarning, match=r"2 of 42 columns of X are not in the model and are ignored: zzz yyy"):
        np.testing.assert_array_equal(m.predict(extra), base)
    # missing columns: no mass there
    gone = names[:5]
    np.testing.assert_array_equal(m.predict(new.drop(columns=gone)), m.predict(new.assign(**{g: 0.0 for g in gone})))
    # no known column at all: refused, as `mmnc predict` refuses it
    with pytest.raises(ValueError, match="none of the 2 columns of X is known"):
        m.predict(pandas.DataFrame(np.ones((3, 2)), columns=["a", "b"]))
    # a known name given to two columns: refused, as fit refuses it, not summed into one column
    twice = pandas.concat([new, new[[names[3]]]], axis=1)
    with pytest.raises(ValueError, match=f"column id '{names[3]}' is given to two columns of the data"):
        m.predict(twice)
    with pytest.raises(ValueError, match="given to two columns"):
        m.score(twice)
    # names go with the model: saved, loaded and pickled
    m.save(tmp_path / "m.model")
    back = mmnc.load(tmp_path / "m.model")
    assert list(back.feature_names_in_) == names
    np.testing.assert_array_equal(back.predict(new[names[::-1]]), base)
    with pytest.raises(ValueError, match="columns are named"):
        back.predict(Xnew)
    again = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(again.predict(new[names[::-1]]), base)
    # a training column with no mass is a known name, not reported as unknown
    df2 = df.assign(w0=0.0)
    m2 = mmnc.MMNC(3, random_state=1).fit(df2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m2.predict(new)


def test_dataframe_names_and_plain_matrices_mixed(pandas):
    """scikit-learn's conventions where names appear on one side only, and for non-str names."""
    X, Xnew, names = named_data(seed=8)
    plain = mmnc.MMNC(3, random_state=2).fit(X)
    assert not hasattr(plain, "feature_names_in_")
    # fitted without names, given names: scikit-learn's warning, then by position
    with pytest.warns(UserWarning, match="X has feature names, but MMNC was fitted without feature names"):
        got = plain.predict(pandas.DataFrame(Xnew, columns=names))
    np.testing.assert_array_equal(got, plain.predict(Xnew))
    with pytest.raises(ValueError, match="fitted without column names"):
        plain.predict(Xnew, columns=names)
    # columns that are not all str are no names (scikit-learn's rule); mixed ones are refused
    m = mmnc.MMNC(3, random_state=2).fit(pandas.DataFrame(X))
    assert not hasattr(m, "feature_names_in_")
    np.testing.assert_array_equal(m.labels_, plain.labels_)
    with pytest.raises(TypeError, match="str"):
        mmnc.MMNC(3).fit(pandas.DataFrame(X, columns=names[:-1] + [7]))
    # names the model cannot keep apart are refused at fit
    with pytest.raises(ValueError, match="w1"):
        mmnc.MMNC(3).fit(pandas.DataFrame(X, columns=names[:-1] + ["w1"]))
    with pytest.raises(ValueError, match="empty"):
        mmnc.MMNC(3).fit(X, columns=names[:-1] + [""])
    # columns= at fit names the columns like a DataFrame's
    byarg = mmnc.MMNC(3, random_state=2).fit(X, columns=names)
    assert list(byarg.feature_names_in_) == names
    np.testing.assert_array_equal(byarg.labels_, plain.labels_)
    np.testing.assert_array_equal(byarg.predict(pandas.DataFrame(Xnew, columns=names)), plain.predict(Xnew))


def test_no_private_sklearn_validation():
    """scikit-learn 1.6 deprecated BaseEstimator._validate_data (and _check_feature_names,
    _check_n_features) and 1.7 removed them: MMNC validates with public functions only."""
    code = ("import sklearn.base as b\n"
            "for name in ('_validate_data', '_check_feature_names', '_check_n_features'):\n"
            "    if hasattr(b.BaseEstimator, name):\n"
            "        delattr(b.BaseEstimator, name)\n"
            "import numpy as np, mmnc\n"
            "X = np.kron(np.eye(2), np.ones((5, 4))) + 0.1\n"
            "m = mmnc.MMNC(2, algorithm='information', n_init=2).fit(X)\n"
            "assert (m.predict(X) == m.labels_).all() and m.n_features_in_ == 8\n"
            "try:\n    m.predict(X[:, :3])\nexcept ValueError as e:\n    assert 'features' in str(e)\n"
            "print('ok')\n")
    pytest.importorskip("sklearn")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
