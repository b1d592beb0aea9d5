"""No silent wrong answer at the edges (issue 40): each case a right answer or a clear error."""
import os
import subprocess

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
