"""mmnc: probabilistic clustering by maximal matrix norm couplings (libmmnc from Python).

Three lines::

    import mmnc
    X, vocab = mmnc.cooc(["data/great-expectations.txt.gz"], window=5, min_count=20)
    labels = mmnc.MMNC(n_clusters=20).fit_predict(X)

``MMNC`` clusters the rows Y of a nonnegative co-occurrence matrix (documents x
terms, words x context words) by a kernel P(z|y) that maximises a matrix norm of
the divergence transition matrix; see the repository's README.md and
include/mmnc.h (the library's manual).  It follows scikit-learn's estimator
conventions and derives from its base classes when scikit-learn is installed;
without scikit-learn the package still imports and works (NumPy and SciPy are
required).

Also here: ``cooc`` (word co-occurrences of texts or files), ``embed`` (row
embeddings from the DTM's singular vectors), ``evaluate`` (ACC, NMI, ARI,
purity against reference labels) and ``load`` (a saved model).
"""
import ast
import collections
import contextlib
import errno
import inspect
import json
import numbers
import os
import pickle
import shutil
import string
import tempfile
import warnings

import numpy as np
import scipy.sparse as sp

from . import _mmnc
from ._mmnc import MmncError

__version__ = _mmnc.version
__all__ = ["MMNC", "ConvergenceWarning", "MmncError", "Scores", "cooc", "embed", "evaluate", "load", "__version__"]

try:  # scikit-learn is optional: its base classes and public validation functions when present
    from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.utils.validation import check_array, check_is_fitted, check_non_negative

    _SKLEARN = True
except ImportError:  # pragma: no cover - exercised only without scikit-learn
    _SKLEARN = False
    from ._compat import (BaseEstimator, ClusterMixin, ConvergenceWarning, TransformerMixin, check_is_fitted,
                          check_non_negative)

try:  # OpenBLAS's idle workers would spin on the cores OpenMP needs (include/mmnc.h, "Threads")
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover
    threadpool_limits = None

_ALGORITHMS = {"nuclear": _mmnc.ALG_NUCLEAR, "frobenius": _mmnc.ALG_FROBENIUS,
               "information": _mmnc.ALG_INFORMATION, "dmm": _mmnc.ALG_DMM, "auto": _mmnc.ALG_AUTO}
_INITS = {"spectral": _mmnc.INIT_SPECTRAL, "kmeans++": _mmnc.INIT_KMEANSPP, "random": _mmnc.INIT_RANDOM}
_SELECTS = {"predictive": _mmnc.SELECT_PREDICTIVE, "objective": _mmnc.SELECT_OBJECTIVE}
_REFINES = {"chosen": _mmnc.REFINE_CHOSEN, "each": _mmnc.REFINE_EACH, "none": _mmnc.REFINE_NONE}
_MOVES = {"auto": _mmnc.MOVES_AUTO, "sequential": _mmnc.MOVES_SEQUENTIAL, "batch": _mmnc.MOVES_BATCH}
_WEIGHTINGS = {"harmonic": 1, "flat": 0}

# The library's defaults (include/mmnc.h, "Defaults"), read once: the signatures below take
# theirs from here, so that MMNC() is `mmnc cluster` without options, and the docstrings show
# them through _fill_doc.
_DEFAULTS = _mmnc.defaults()
_P, _COOC, _EMBED = _DEFAULTS["params"], _DEFAULTS["cooc_opts"], _DEFAULTS["embed_opts"]


def _name(table, value):
    """The option name of a library constant (the key of table whose value it is)."""
    return next(k for k, v in table.items() if v == value)


def _fill_doc(obj, **more):
    """obj's docstring with $name replaced by the default of parameter name of obj (or of its
    __init__), shown as in Python source, and by the values of more."""
    if not obj.__doc__:  # python -OO
        return
    sig = inspect.signature(obj.__init__ if isinstance(obj, type) else obj)
    values = {n: repr(p.default).replace("'", '"') for n, p in sig.parameters.items() if p.default is not p.empty}
    obj.__doc__ = string.Template(obj.__doc__).substitute(values, **more)


def _one_blas_thread():
    if threadpool_limits is None:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _threads(n_jobs):
    """OpenMP threads from joblib's convention: None or -1 all cores, -2 all but one, ..."""
    if n_jobs is None:
        return 0
    if not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a nonzero integer, got {n_jobs!r}")
    if n_jobs > 0:
        return int(n_jobs)
    return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs)) if n_jobs < -1 else 0


def _seed(random_state):
    """The library's 64-bit seed: an int as is (like the CLI's --seed), None or a RandomState drawn from."""
    if random_state is None or isinstance(random_state, np.random.RandomState):
        rs = np.random.mtrand._rand if random_state is None else random_state
        return int(rs.randint(0, np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and 0 <= random_state < 2 ** 63:
        return int(random_state)
    raise ValueError(f"random_state must be None, an integer from 0 to 2**63 - 1 (the range of mmnc cluster "
                     f"--seed) or a RandomState, got {random_state!r}")


def _verbosity(verbose):
    """verbose= of MMNC, cooc and embed: False/True or 0, 1, 2 (more is 2)."""
    if not isinstance(verbose, (bool, numbers.Integral)) or verbose < 0:
        raise ValueError(f"verbose must be True, False or an integer >= 0, got {verbose!r}")
    return min(int(verbose), 2)


def _csr(X, what="X"):
    """X (validated: 2-D, finite, nonnegative) as a canonical CSR matrix the library reads in place.

    mmnc_csr holds int64 indices and float64 values with sorted columns and no
    duplicates or explicit zeros: the values of a SciPy CSR matrix of that form
    are read in place, and its indices too when they are int64.  SciPy stores
    indices as int32 whenever they fit, so those are converted (_arrays: 8
    bytes per nonzero and per row); another value type, unsorted or duplicate
    entries, explicit zeros or another format are converted too.
    """
    if not sp.issparse(X):
        X = sp.csr_matrix(np.asarray(X, dtype=np.float64))
    elif X.format != "csr":
        X = X.tocsr()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if X.data.dtype != np.float64:
        X = X.astype(np.float64)
    if X.nnz and not (X.data != 0).all():
        X = X.copy()
        X.eliminate_zeros()
    return X


def _arrays(X):
    return (np.ascontiguousarray(X.indptr, dtype=np.int64), np.ascontiguousarray(X.indices, dtype=np.int64),
            np.ascontiguousarray(X.data, dtype=np.float64), X.shape[1])


def _check_y(y, n_samples, k, rows):
    """fit's y as mmnc_params.fixed_label of the rows with mass (int64, -1 free), or None: y without
    a -1 is no semi-supervision (see fit).  ValueError unless y holds n_samples integers in -1..k-1
    with a row of mass left free."""
    y = np.asarray(y)
    if y.ndim == 1 and y.shape[0] == n_samples and not np.asarray(y == -1).any():  # str y: a scalar False
        import warnings
        warnings.warn("mmnc: y marks no row free (-1): taken for the y that a pipeline passes to every step "
                      "and ignored; for semi-supervision give -1 to the rows to cluster", UserWarning, stacklevel=3)
        return None
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(f"y must hold one label per row of X (n_samples = {n_samples}), got shape {y.shape}")
    if y.dtype.kind not in "iu" and not (y.dtype.kind == "f" and np.isfinite(y).all() and (y == np.round(y)).all()):
        raise ValueError(f"y must hold integers: -1 (free) or a cluster 0..n_clusters-1, got dtype {y.dtype}")
    y = y.astype(np.int64)
    bad = (y < -1) | (y >= k)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"y[{i}] = {y[i]}: expected -1 (free) or a cluster 0..{k - 1} (n_clusters = {k})")
    fixed = np.ascontiguousarray(y[rows])
    empty = np.flatnonzero((y >= 0) & ~rows)
    if empty.size and (fixed < 0).all():
        raise ValueError(f"y labels only rows without mass ({_shown(empty.tolist())}), which are left out of the "
                         f"fit: no row would be held at its label")
    if empty.size:
        import warnings
        warnings.warn(f"mmnc: y labels {empty.size} rows without mass ({_shown(empty.tolist())}): they are left out "
                      f"of the fit (labels_ -1 there)", UserWarning, stacklevel=3)
    if (fixed < 0).all():  # no row labelled: an unsupervised fit
        return None
    if (fixed >= 0).all():
        raise ValueError("y labels every row with mass (the free ones have none): nothing left to cluster")
    return fixed


def _drop_empty(X):
    """Rows and columns with mass (the CLI drops the others): (X restricted, row mask, column indices)."""
    rows = np.diff(X.indptr) > 0
    cols = np.bincount(X.indices, minlength=X.shape[1]) > 0
    if rows.all() and cols.all():
        return X, rows, np.arange(X.shape[1], dtype=np.int64)
    keep_cols = np.flatnonzero(cols).astype(np.int64)
    Y = _csr(X[rows][:, keep_cols])
    return Y, rows, keep_cols


def _validate_nonsklearn(X):
    if sp.issparse(X):
        data = X.data if hasattr(X, "data") else X.tocsr().data
        if np.iscomplexobj(data):
            raise ValueError("Complex data not supported")
        data = np.asarray(data, dtype=np.float64)
    else:
        X = np.asarray(X)
        if np.iscomplexobj(X):
            raise ValueError("Complex data not supported")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
        data = X
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"Found array with shape {X.shape}: at least one row and one column are needed")
    if not np.isfinite(data).all():
        raise ValueError("Input contains NaN or infinity")
    return X


def _feature_names(X):
    """The column names of a DataFrame X by scikit-learn's rule: an object array when every name is
    a str; None when none is (a RangeIndex, say) or X has no columns; TypeError when some are."""
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray) or sp.issparse(X):
        return None
    names = np.asarray(list(columns), dtype=object)
    is_str = [isinstance(n, str) for n in names]
    if names.size and all(is_str):
        return names
    if any(is_str):
        kinds = sorted({type(n).__name__ for n in names})
        raise TypeError(f"X's column names are of the types {kinds}: they are names only when all are str "
                        f"(X.columns = X.columns.astype(str) makes them so); mixed, they are refused")
    return None


def _check_names(names):
    """names as an object array of distinct, nonempty str without NUL, the ids a model knows columns by."""
    names = np.asarray(list(names), dtype=object)
    first = {}
    for j, n in enumerate(names):
        if not isinstance(n, str):
            raise TypeError(f"column name {j} is a {type(n).__name__}, not a str")
        if not n or "\0" in n:
            raise ValueError(f"column name {j} is {'empty' if not n else 'holding a NUL byte'}: "
                             f"the model knows columns by their names")
        if first.setdefault(n, j) != j:
            raise ValueError(f"column name {n!r} is given twice (columns {first[n]} and {j}): "
                             f"the model knows columns by their names")
    return names


def _positional_ids(ids):
    """True if a model's column ids are 1-based positions (ids "1", "2", ... increasing, as ``mmnc
    cluster`` names the columns of data without names), not names."""
    last = 0
    for i in ids:
        if not (i.isascii() and i.isdigit() and i[0] != "0") or int(i) <= last:
            return False
        last = int(i)
    return True


def _shown(names, most=20):
    return " ".join(map(str, names[:most])) + (" ..." if len(names) > most else "")


# mmnc_result.semi_kept's names (include/mmnc.h, MMNC_SEMI_MOVES ...)
_SEMI_NAMES = ("-", "moves", "classifier", "transduced")

class MMNC(ClusterMixin, TransformerMixin, BaseEstimator):
    """Clustering of the rows of a co-occurrence matrix by maximal matrix norm couplings.

    The rows Y of a nonnegative matrix X (n_samples x n_features) are clustered
    into Z by a kernel W = P(z|y) that maximises the evidence of a Dirichlet
    mixture of the rows' counts (``"dmm"``, docs/dmm.md), the mutual information
    I(X;Z) with a prior on the cluster sizes (``"information"``; see
    docs/default.md), both by single-row moves, ||B_{Z,X}||_* (Algorithm 2 of Qiu, Makur,
    Zheng 2018; ``algorithm="nuclear"``) or ||B_{Z,X}||_F^2 (Algorithm 1,
    ``"frobenius"``, a soft kernel).  Only the direction of a row counts
    (P(x|y)) and its total as its weight P(y): scaling a row changes its
    weight, not its cluster's column profile.  The same options and defaults
    as ``mmnc cluster`` (the library's, include/mmnc.h) and, for the same
    ``random_state`` (= ``--seed``), the same labels: ``MMNC().fit(X)`` is
    ``mmnc cluster X``.

    Parameters
    ----------
    n_clusters : int, default $n_clusters
        k, at most the number of rows with nonzero mass.
    algorithm : {"auto", "dmm", "information", "nuclear", "frobenius"}, default $algorithm
        "auto" runs "dmm" where every value of X is a whole number (counts),
        else "information", with col_clusters > 0 in their co-clustering
        forms.
    init : {"random", "kmeans++", "spectral"}, default $init
        "spectral" cycles the starts through spectral, k-means++ and random
        starts (``--init``).
    n_init : int, default $n_init
        Independent starts (``--restarts``).
    random_state : int, RandomState or None, default $random_state
        The library's seed (an int from 0 to 2**63 - 1 is used as is, like ``--seed``).
    n_jobs : int or None, default None
        OpenMP threads: None or -1 all cores, -2 all but one, n > 0 n threads.
        Results do not depend on it.
    select : {"objective", "predictive"}, default $select
        Which start is kept (``--select``).
    select_tol : float, default $select_tol
    refine : {"none", "chosen", "each"}, default $refine
        Information moves after Algorithm 2 (``--refine``).
    size_prior : float, default $size_prior
        The information objective's prior on the cluster sizes
        (``--size-prior``): maximise
        I(X;Z) - size_prior (rows / nonzeros) H(cluster sizes); 0 is I(X;Z)
        alone (the sequential information bottleneck's objective).
    move_tol : float, default $move_tol
        The information moves' tolerance (``--move-tol``): each start stops
        once a sweep moves fewer than move_tol of the rows; the kept start then
        goes on until no row moves.  0 runs every start until no row moves.
    merge_split : int, default $merge_split
        Merge-split trials after the kept start (``--merge-split``;
        information objective, k >= 3): merge two close clusters, split the
        most mixed one, run as a start from there, keep the result if the
        objective rose; in rounds of two, a round without a gain ends them.
        0 turns them off.
    agreement : bool, default $agreement
        The agreement rule (``--agreement``; information objective with
        size_prior > 0, n_init >= 2, select="objective"): keep the size prior
        only if the starts' partitions with it agree with one another (mean
        adjusted Rand index over the pairs of starts) at least as well as
        their prior-free optima; else the result is that of size_prior=0.
        False applies the prior always.
    col_clusters : int, default $col_clusters
        Co-clustering (``--col-clusters``): the columns go to col_clusters
        clusters as well, rows and columns moved in turn so as to maximise,
        with "dmm", the Dirichlet mixture's evidence of the counts summed by
        column clusters (dmm_beta applies), with "information" I(Z;W) of
        the two partitions (information-theoretic co-clustering), with
        "nuclear" ||B_{Z,W}||_* by Algorithm 2 on each side in turn;
        size_prior, move_tol, merge_split and agreement do not apply, init
        is "random" or "kmeans++", select "objective", no target_marginal
        or refine.  0: the rows alone.
    moves : {"auto", "sequential", "batch"}, default $moves
        The information moves (``--moves``; information objective and
        refine): "sequential" (and "auto") single-row moves, each seeing the
        ones before; "batch" (experimental) first decides a block of rows
        side by side against fixed cluster sums, over threads, keeps a pass
        only if the objective rose, then polishes with sequential moves.
        Either gives the same result for any number of threads.  "batch" not
        with col_clusters.  The Dirichlet mixture makes its sequential moves
        in one process whatever the value (the values differ under
        ``mmnc-mpi``: docs/mpi.md).
    dmm_beta : float, default $dmm_beta
        The least value of the Dirichlet mixture's beta (``--dmm-beta``;
        algorithm "dmm", and "auto" on counts), the Dirichlet parameter of
        every cluster's column distribution, which the evidence fits above
        it; 1/2 is Jeffreys' prior.  A larger beta smooths every cluster
        more, so that the columns many rows share weigh more than rare ones
        a few rows share.  0 lets the evidence fit beta freely (docs/dmm.md).
    max_iter : int or None, default $max_iter
        Iterations per start; None is the library's default:
        $max_iter_nuclear for Algorithm 2, $max_iter_frobenius for Algorithm 1
        ($max_iter_exact with exact_marginal), $max_iter_information sweeps
        for the information objective.
    tol : float, default $tol
        Algorithm 1's stopping tolerance.
    target_marginal : array of k floats or None, default None
        P_Z: prescribed for Algorithm 2 (the transportation LP; needs GLPK),
        the target of Algorithm 1's penalty (``--pz``).
    marginal_penalty, step_size : float or None, default None
        Algorithm 1's lambda and step (``--lambda``, ``--step``); None:
        $lambda and 1 / lambda.
    exact_marginal : bool, default $exact_marginal
        Algorithm 1 with W P_Y = P_Z held exactly (``--exact-marginal``).
    verbose : int or bool, default $verbose
        1 (or True): the progress of a fit on ``sys.stderr`` about once a second
        after the first (the start, its iteration and objective), as
        ``mmnc cluster`` shows it; 2: every 50 ms, and the last iteration
        when the fit ends.  It does not change the result.

    Attributes
    ----------
    labels_ : ndarray (n_samples,) int64
        Cluster of each training row, 0..k-1; -1 for a row with no mass
        (dropped before clustering, as ``mmnc cluster`` drops it).
    row_proba_ : ndarray (n_samples, k)
        P(z | y) of each training row, rows summing to 1 (zeros for a row
        with no mass).  Where the fit's kernel W is hard and the model has
        a posterior (the Dirichlet mixture and the information objective, the
        default's two, and any
        ``refine``): that posterior, ``predict_proba(X)`` of the training
        rows (the mixture of smoothed multinomials of ``score``), whose
        argmax is ``labels_`` for most rows, not all (docs/predict.md, "The
        training rows predicted back").  Elsewhere ``kernel_`` itself: the
        soft W of Algorithm 1 and of a prescribed ``target_marginal``, and
        Algorithm 2's one-hot W without refinement, whose rule is hard and
        so has no posterior.
    kernel_ : ndarray (n_samples, k)
        The learned kernel W = P(z|y) that the solver optimised, what
        ``mmnc cluster`` writes to PREFIX.soft.tsv: one-hot for the hard
        algorithms (argmax = ``labels_``), soft for Algorithm 1 and the LP;
        zeros for a row with no mass.
    cluster_marginal_ : ndarray (k,)
        P_Z.
    singular_values_ : ndarray (k,)
        Singular values of B_{Z,X}, descending (the first is 1).
    nuclear_norm_, frobenius_norm_ : float
        ||B_{Z,X}||_* and ||B_{Z,X}||_F.
    mutual_information_ : float
        Exact I(X;Z) in nats.
    objective_ : float
        The solver's objective of the kept start (for the information
        objective J = I(X;Z) - size_prior (rows / nonzeros) H(cluster sizes)).
    dmm_alpha_, dmm_beta_ : float or None
        Where the Dirichlet mixture ran: the Dirichlet parameters of the cluster sizes and of
        each cluster's column distribution, fitted by the evidence (beta >= dmm_beta); else
        None.
    size_prior_kept_ : bool or None
        With the size prior (information moves, size_prior > 0): True if the
        clustering is the prior's partition, False if the guard returned the
        prior-free optimum (see docs/default.md); None without a prior.
    size_prior_refused_ : str or None
        Where size_prior_kept_ is False, why: "nuclear norm" (the prior's
        partition lowered it), "predictive information" (its clusters
        predicted held-out rows no better than no clustering) or "agreement"
        (the starts agreed less with the prior than without it: the whole
        run used I(X;Z) alone); else None.
    agreement_ : tuple of two floats or None
        The agreement rule's figures: the mean adjusted Rand index between
        the starts' partitions with the prior and between their prior-free
        optima; None where the rule did not apply.
    starts_agreement_ : float or None
        The mean adjusted Rand index between the starts' partitions under the
        result's objective (the Dirichlet mixture's starts; where the
        information objective's agreement rule ran, with or without the prior
        as the run kept it): near 1 where every start found the same
        clusters. None for one start, the information objective without the
        rule, Algorithms 1 and 2 and co-clustering.
    semi_supervision_ : tuple (str, float, float) or None
        fit(X, y) with labels (hard results): which candidate was kept,
        "moves" (the run's own partition), "classifier" (the seeded
        classifier of the labelled rows) or "transduced" (the same, then
        hard EM over all rows), and the moves' and the better seeded
        candidate's scores (the
        share of labelled rows put at their label with their fold left free,
        5-fold cross-validation); else None.
    semi_scores_ : dict or None
        With labels: every candidate's score, by the names above (NaN where
        the labelled rows have one label value: "moves" is kept unscored).
    column_labels_ : ndarray (n_features,) int64
        With col_clusters > 0: the cluster of each column, 0..col_clusters-1;
        -1 for a column with no mass.  Absent otherwise.
    block_marginal_ : ndarray (n_clusters, col_clusters)
        With col_clusters > 0: P(z, w) of each block; objective_ is its
        I(Z;W) (the Dirichlet form: the evidence a count; the nuclear form:
        ||B_{Z,W}||_*).  Absent otherwise.
    rows_, columns_ : ndarray of bool (n_clusters * col_clusters, n_samples or n_features)
        With col_clusters > 0, scikit-learn's bicluster indicators, made
        when read: bicluster z * col_clusters + w is row cluster z and
        column cluster w (``biclusters_`` is the pair).
    n_iter_ : int
        Iterations of the kept start.
    converged_ : bool
        Whether the kept start met its stopping rule before ``max_iter``;
        fit warns (``ConvergenceWarning``) where it did not.
    restart_objectives_, restart_scores_ : ndarray (n_init,)
        Each start's objective and, under ``select="predictive"``, its
        leave-one-row-out predictive information (else empty).
    restart_converged_ : ndarray of bool (n_init,)
        Whether each start met its stopping rule before ``max_iter``.
    best_restart_ : int
        The kept start.
    empty_rows_, empty_columns_ : ndarray of int64
        Rows and columns of X with no mass, left out of the clustering.
    n_features_in_ : int
    feature_names_in_ : ndarray of str (object)
        The names of X's columns, when fit had them: a pandas DataFrame
        whose column names are all str (scikit-learn's rule), or
        ``columns=``.  Then the model knows its columns by name, as a model
        of ``mmnc cluster --names`` does (a loaded one has the names of the
        training columns with mass): ``predict`` matches the columns of new
        data by name and refuses data without names.  Absent otherwise.
    """

    def __init__(self, n_clusters=_P["k"], *, algorithm=_name(_ALGORITHMS, _P["algorithm"]),
                 init=_name(_INITS, _P["init"]), n_init=_P["restarts"], random_state=_P["seed"], n_jobs=None,
                 select=_name(_SELECTS, _P["select"]), select_tol=_P["select_tol"],
                 refine=_name(_REFINES, _P["refine"]), size_prior=_P["size_prior"], move_tol=_P["move_tol"],
                 merge_split=_P["merge_split"], agreement=bool(_P["agreement"]), col_clusters=_P["col_clusters"],
                 moves=_name(_MOVES, _P["moves"]), dmm_beta=_P["dmm_beta"], max_iter=None, tol=_P["tol"],
                 target_marginal=None, marginal_penalty=None, step_size=None,
                 exact_marginal=bool(_P["exact_marginal"]), verbose=0):
        self.n_clusters = n_clusters
        self.size_prior = size_prior
        self.move_tol = move_tol
        self.merge_split = merge_split
        self.agreement = agreement
        self.col_clusters = col_clusters
        self.moves = moves
        self.dmm_beta = dmm_beta
        self.algorithm = algorithm
        self.init = init
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.select = select
        self.select_tol = select_tol
        self.refine = refine
        self.max_iter = max_iter
        self.tol = tol
        self.target_marginal = target_marginal
        self.marginal_penalty = marginal_penalty
        self.step_size = step_size
        self.exact_marginal = exact_marginal
        self.verbose = verbose

    # Nonnegative, sparse-capable input, float64 output, told to scikit-learn both ways: 1.6 and later
    # read __sklearn_tags__ (and accept _more_tags beside it in the same class without a warning;
    # 1.7 ignores it), older versions such as Debian's 1.2 read _more_tags and never call
    # __sklearn_tags__, whose super() exists only from 1.6.
    def _more_tags(self):
        return {"requires_positive_X": True, "preserves_dtype": [np.float64]}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        if tags.transformer_tags is not None:
            tags.transformer_tags.preserves_dtype = ["float64"]
        return tags

    # -- validation --------------------------------------------------------

    def _check_X(self, X, reset, columns=None):
        """X validated as a canonical CSR matrix, and the names of its columns (a DataFrame's str
        column names, or columns=) or None.  With reset (fit), n_features_in_ and
        feature_names_in_ are set.  Only public scikit-learn functions: BaseEstimator's
        _validate_data and its helpers are gone from scikit-learn 1.7."""
        names = _feature_names(X)
        if columns is not None:
            given = _check_names(columns)
            if names is not None and not np.array_equal(given, names):
                raise ValueError("columns= and the column names of the DataFrame X differ: give the names once")
            names = given
        if _SKLEARN:
            X = check_array(X, accept_sparse="csr", dtype=np.float64, estimator=self, input_name="X")
        else:
            X = _validate_nonsklearn(X)
        if names is not None and len(names) != X.shape[1]:
            raise ValueError(f"columns= names {len(names)} columns, but X has {X.shape[1]} columns")
        if reset:
            self.n_features_in_ = X.shape[1]
            if names is not None:
                self.feature_names_in_ = _check_names(names)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        check_non_negative(X, "MMNC (input X)")
        return _csr(X), names

    def _check_params(self):
        def choice(name, table):
            value = getattr(self, name)
            if value not in table:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, table))}, got {value!r}")
            return table[value]

        def integer(name, low):
            value = getattr(self, name)
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
            return int(value)

        def real(name, default=None):
            """The float of a parameter > 0; None: default (the library's), where there is one."""
            value = getattr(self, name)
            if value is None and default is not None:
                return default
            if not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
            return float(value)

        p = dict(k=integer("n_clusters", 1), algorithm=choice("algorithm", _ALGORITHMS),
                 init=choice("init", _INITS), restarts=integer("n_init", 1), select=choice("select", _SELECTS),
                 refine=choice("refine", _REFINES), seed=_seed(self.random_state), threads=_threads(self.n_jobs),
                 max_iter=_P["max_iter"] if self.max_iter is None else integer("max_iter", 1),
                 tol=real("tol"), lambda_=real("marginal_penalty", _P["lambda"]),
                 step=real("step_size", _P["step"]), exact_marginal=int(bool(self.exact_marginal)))
        if not isinstance(self.select_tol, numbers.Real) or not (self.select_tol >= 0):
            raise ValueError(f"select_tol must be a number >= 0, got {self.select_tol!r}")
        p["select_tol"] = float(self.select_tol)
        if not isinstance(self.size_prior, numbers.Real) or not (np.isfinite(self.size_prior) and self.size_prior >= 0):
            raise ValueError(f"size_prior must be a finite number >= 0, got {self.size_prior!r}")
        p["size_prior"] = float(self.size_prior)
        if not isinstance(self.move_tol, numbers.Real) or not (0 <= self.move_tol < 1):
            raise ValueError(f"move_tol must be a number in [0, 1), got {self.move_tol!r}")
        p["move_tol"] = float(self.move_tol)
        if isinstance(self.merge_split, bool) or not isinstance(self.merge_split, numbers.Integral) or \
                self.merge_split < 0:
            raise ValueError(f"merge_split must be an integer >= 0, got {self.merge_split!r}")
        p["merge_split"] = int(self.merge_split)
        if not isinstance(self.agreement, (bool, np.bool_)):
            raise ValueError(f"agreement must be True or False, got {self.agreement!r}")
        p["agreement"] = bool(self.agreement)
        p["col_clusters"] = integer("col_clusters", 0)
        if self.moves not in _MOVES:
            raise ValueError(f"moves must be one of {sorted(_MOVES)}, got {self.moves!r}")
        p["moves"] = _MOVES[self.moves]
        if isinstance(self.dmm_beta, bool) or not isinstance(self.dmm_beta, numbers.Real) or \
                not (np.isfinite(self.dmm_beta) and self.dmm_beta >= 0):
            raise ValueError(f"dmm_beta must be a finite number >= 0 (0: fitted), got {self.dmm_beta!r}")
        p["dmm_beta"] = float(self.dmm_beta)
        p["verbose"] = _verbosity(self.verbose)
        if self.target_marginal is not None:
            pz = np.ascontiguousarray(self.target_marginal, dtype=np.float64)
            if pz.shape != (p["k"],) or not np.isfinite(pz).all() or (pz <= 0).any():
                raise ValueError(f"target_marginal must hold n_clusters = {p['k']} positive numbers")
            p["pz"] = pz
        return p

    # -- fitting -----------------------------------------------------------

    def fit(self, X, y=None, *, columns=None):
        """Cluster the rows of X (dense, SciPy sparse or a DataFrame, nonnegative).

        y turns semi-supervision on (``mmnc cluster --labels``): None clusters
        without labels; else an array-like of n_samples integers, y[i] in
        0..n_clusters-1 holds row i in that cluster for the whole fit, -1
        leaves it free (scikit-learn's LabelSpreading convention), so that
        ``labels_[y != -1] == y[y != -1]`` and the free rows are clustered
        around the labelled ones.  Any other value, or no row with mass left
        free, raises ValueError.  A row without mass keeps label -1 whatever
        y says (see below).  A y with no -1 at all cannot be semi-supervision
        (nothing would be left to cluster): it is taken for the class labels
        that a scikit-learn pipeline passes to every step's fit, and ignored
        with a UserWarning.

        Rows and columns with no mass are left out, as ``mmnc cluster`` drops
        them: such a row gets label -1 and zero rows in ``row_proba_`` and ``kernel_``.
        Raises ValueError for negative, NaN or infinite values, for X without
        a positive entry, and for n_clusters above the rows with mass.
        columns: the names of X's columns (as ``mmnc cluster --names``), for a
        matrix without them (a cooc matrix and its vocabulary); a DataFrame's
        str column names are taken without it.  With names the model knows its
        columns by name (``feature_names_in_``); they must be distinct.
        """
        params = self._check_params()
        X, names = self._check_X(X, reset=True, columns=columns)
        A, rows, cols = _drop_empty(X)
        n_rows = int(rows.sum())
        if A.nnz == 0:
            raise ValueError("X has no positive entry: nothing to cluster")
        if params["k"] > n_rows:
            raise ValueError(f"n_clusters = {params['k']} exceeds the number of rows with nonzero mass "
                             f"(n_samples = {n_rows})")
        fixed = None if y is None else _check_y(y, X.shape[0], params["k"], rows)
        options = "python: " + " ".join(f"{k}={v!r}" for k, v in sorted(self.get_params().items())
                                        if k != "target_marginal") + f" n_features_in={X.shape[1]}"
        if names is not None:
            options += " feature_names=1"  # the model's column ids are names (_from_model)
        with _one_blas_thread():
            r = _mmnc.cluster(*_arrays(A), col_orig=cols, orig_cols=X.shape[1], model=True, options=options,
                              col_names=None if names is None else list(names[cols]), fixed=fixed, **params)
        k = params["k"]
        label = np.frombuffer(r["label"], dtype=np.int64)
        self.labels_ = np.full(X.shape[0], -1, dtype=np.int64)
        self.labels_[rows] = label
        self.kernel_ = np.zeros((X.shape[0], k))
        self.kernel_[rows] = np.frombuffer(r["W"], dtype=np.float64).reshape(n_rows, k)
        self.row_proba_ = self.kernel_
        model = r.get("model")
        if model is not None and _has_posterior(model):  # W is one-hot; the model's rule has a posterior
            self.row_proba_ = np.empty((X.shape[0], k))
            model.predict(*_arrays(X), np.empty(X.shape[0], dtype=np.int64), self.row_proba_,
                          None if names is None else list(names))
        self.cluster_marginal_ = np.frombuffer(r["pz"], dtype=np.float64).copy()
        self.singular_values_ = np.frombuffer(r["sigma"], dtype=np.float64).copy()
        self.nuclear_norm_ = r["nuclear_norm"]
        self.frobenius_norm_ = r["frobenius_norm"]
        self.mutual_information_ = r["mutual_information"]
        self.objective_ = r["objective"]
        dmm = not np.isnan(r["dmm_alpha"])  # the Dirichlet mixture ran ("dmm", or "auto" on counts)
        self.dmm_alpha_ = r["dmm_alpha"] if dmm else None
        self.dmm_beta_ = r["dmm_beta"] if dmm else None
        self.n_iter_ = r["iterations"]
        self.converged_ = bool(r["converged"])
        if not self.converged_:
            import warnings
            warnings.warn(f"mmnc: the kept start stopped at the iteration cap (max_iter={self.max_iter}) "
                          "without converging; raise max_iter",
                          ConvergenceWarning, stacklevel=2)
        self.size_prior_kept_ = None if r["size_prior_kept"] < 0 else bool(r["size_prior_kept"])
        self.size_prior_refused_ = ({1: "nuclear norm", 2: "predictive information", 3: "agreement"}
                                    .get(r["size_prior_refused"]) if r["size_prior_kept"] == 0 else None)
        self.agreement_ = (None if np.isnan(r["agreement_prior"])
                           else (float(r["agreement_prior"]), float(r["agreement_free"])))
        self.starts_agreement_ = None if np.isnan(r["agreement"]) else float(r["agreement"])
        self.semi_supervision_ = (None if r["semi_kept"] <= 0 else
                                  (_SEMI_NAMES[r["semi_kept"]], float(r["semi_score_moves"]),
                                   float(r["semi_score_seeded"])))
        self.semi_scores_ = (None if r["semi_kept"] <= 0 else
                             dict(zip(_SEMI_NAMES[1:], (float(v) for v in r["semi_scores"]))))
        self.restart_objectives_ = np.frombuffer(r["restart_objective"], dtype=np.float64).copy()
        self.restart_scores_ = np.frombuffer(r["restart_score"], dtype=np.float64).copy()
        self.restart_converged_ = np.frombuffer(r["restart_converged"], dtype=np.intc).astype(bool)
        self.best_restart_ = r["best_restart"]
        self.empty_rows_ = np.flatnonzero(~rows).astype(np.int64)
        self.empty_columns_ = np.setdiff1d(np.arange(X.shape[1], dtype=np.int64), cols)
        for attr in ("column_labels_", "block_marginal_"):
            if attr in self.__dict__:
                del self.__dict__[attr]
        if r["l"] > 0:
            self.column_labels_ = np.full(X.shape[1], -1, dtype=np.int64)
            self.column_labels_[cols] = np.frombuffer(r["col_label"], dtype=np.int64)
            self.block_marginal_ = np.frombuffer(r["block_pz"], dtype=np.float64).reshape(k, r["l"]).copy()
        self._model = model
        if model is not None:  # the run's diagnostics, known only now, go with the options (load)
            options += " fitted=" + json.dumps(self._fit_record(names), separators=(",", ":"))
            model.options = options
        self._options = options
        return self

    @property
    def rows_(self):
        """Row indicators of the biclusters (col_clusters > 0): row z * col_clusters + w is labels_ == z."""
        if "column_labels_" not in self.__dict__:
            raise AttributeError("rows_: fit with col_clusters > 0 first")
        if "labels_" not in self.__dict__:
            raise AttributeError("rows_: a loaded model holds no training rows (labels_); predict(X_train) gives "
                                 "their clusters")
        k, l = self.block_marginal_.shape
        return np.repeat(self.labels_[None, :] == np.arange(k)[:, None], l, axis=0)

    @property
    def columns_(self):
        """Column indicators of the biclusters (col_clusters > 0): row z * col_clusters + w is column_labels_ == w."""
        if "column_labels_" not in self.__dict__:
            raise AttributeError("columns_: fit with col_clusters > 0 first")
        k, l = self.block_marginal_.shape
        return np.tile(self.column_labels_[None, :] == np.arange(l)[:, None], (k, 1))

    @property
    def biclusters_(self):
        """(rows_, columns_), as scikit-learn's biclustering estimators give them."""
        return self.rows_, self.columns_

    def _fit_record(self, names):
        """What load restores beyond the model's arrays and header: the fit's diagnostics, the
        parameters that are no single token of the options (target_marginal) and, for columns known
        by name, the names of the training columns without mass, which the model's ids leave out."""
        record = {"n_iter": int(self.n_iter_), "converged": self.converged_, "best_restart": int(self.best_restart_),
                  "size_prior_kept": self.size_prior_kept_, "size_prior_refused": self.size_prior_refused_,
                  "dmm": [self.dmm_alpha_, self.dmm_beta_],
                  "agreement": None if self.agreement_ is None else list(self.agreement_),
                  "starts_agreement": self.starts_agreement_,
                  "semi_supervision": None if self.semi_supervision_ is None else list(self.semi_supervision_),
                  "semi_scores": self.semi_scores_,
                  "restart_objectives": self.restart_objectives_.tolist(),
                  "restart_scores": self.restart_scores_.tolist(),
                  "restart_converged": self.restart_converged_.tolist(),
                  "target_marginal": (None if self.target_marginal is None
                                      else np.asarray(self.target_marginal, dtype=np.float64).tolist())}
        if names is not None and self.empty_columns_.size:
            record["empty_columns"] = self.empty_columns_.tolist()
            record["empty_column_names"] = [str(names[j]) for j in self.empty_columns_]
        return record

    # -- prediction (the model API) -----------------------------------------

    def _require_model(self):
        check_is_fitted(self, "cluster_marginal_")
        if getattr(self, "_model", None) is None:
            raise NotImplementedError(
                "this libmmnc has no model API (mmnc_model_*): predict, predict_proba, transform and save "
                "need a library built with src/model/model.c; labels_ and row_proba_ hold the training results")
        return self._model

    def _check_new(self, X, columns):
        """The model, X validated as CSR and the names to match X's columns by (None: by position), as
        predict, predict_proba, transform and score take new data."""
        model = self._require_model()
        X, names = self._check_X(X, reset=False, columns=columns)
        if hasattr(self, "feature_names_in_"):
            names = self._named_columns(model, X, names)
        else:
            if getattr(self, "n_features_in_", None) is not None and X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but MMNC is expecting {self.n_features_in_} "
                                 f"features as input")
            if columns is not None:
                raise ValueError("columns= names X's columns for a model that knows its columns by name; this "
                                 "MMNC was fitted without column names: its columns are matched by position")
            if names is not None:  # scikit-learn's warning, and its rule: by position
                warnings.warn("X has feature names, but MMNC was fitted without feature names", UserWarning,
                              stacklevel=4)
                names = None
        return model, X, names

    def _predict(self, X, proba, columns):
        model, X, names = self._check_new(X, columns)
        labels = np.empty(X.shape[0], dtype=np.int64)
        out = np.empty((X.shape[0], model.k)) if proba else None
        model.predict(*_arrays(X), labels, out, None if names is None else list(names))
        return labels, out

    def _named_columns(self, model, X, names):
        """The names of X's columns for a model that knows its columns by name, as ``mmnc predict
        --names`` matches them: refused without names or when none is known, unknown ones said."""
        if names is None:
            raise ValueError(
                f"X has no column names, but this MMNC's columns are named ({_shown(self.feature_names_in_, 3)}; "
                f"fitted on a DataFrame or with columns=, or saved by mmnc cluster --names): pass X as a pandas "
                f"DataFrame with those column names, or name X's columns with columns=[...] "
                f"(columns=model.feature_names_in_ for X's columns in that order).  By position, the model "
                f"would know none of them and label every row -1")
        ids = set(model.col_ids)
        if not any(n in ids for n in names):
            raise ValueError(f"none of the {len(names)} columns of X is known to the model (X's columns like "
                             f"{names[0]!r}, the model's like {model.col_ids[0]!r})")
        seen = set(self.feature_names_in_)  # training columns without mass are known names, and ignored
        unknown = [n for n in names if n not in seen and n not in ids]
        if unknown:
            warnings.warn(f"{len(unknown)} of {X.shape[1]} columns of X are not in the model and are ignored: "
                          f"{_shown(unknown)}", UserWarning, stacklevel=5)
        return names

    def predict(self, X, *, columns=None):
        """Cluster of each row of X by the saved model's out-of-sample rule (mmnc_model_predict).

        A model fitted without column names matches X's columns to the
        training columns by position (a column that was empty in training is
        ignored); X must be as wide as the training data.  A model that knows
        its columns by name (``feature_names_in_``: fitted on a DataFrame or
        with ``columns=``, or loaded from ``mmnc cluster --names``) matches
        them by name, as ``mmnc predict --names`` does, in any order: X is a
        DataFrame with str column names, or any matrix with ``columns=`` the
        names of its columns (``columns=model.feature_names_in_`` for the
        training order); X without names is refused (ValueError), since by
        position no column would be known.  Columns the model does not know
        are ignored with a UserWarning naming them; none known is a
        ValueError.  A row with no mass on a known column gets -1.
        """
        return self._predict(X, False, columns)[0]

    def predict_proba(self, X, *, columns=None):
        """P(z | row) of each row of X under the model's rule, n x k, rows summing to 1 (zeros for a -1
        row).  Columns are matched as ``predict`` matches them."""
        return self._predict(X, True, columns)[1]

    def score(self, X, y=None, *, columns=None):
        """The log-likelihood of X's rows per unit of their mass under the model read as a mixture
        (higher is better; GridSearchCV uses it when no ``scoring`` is given; mmnc_model_loglik).

        ::

            score(X) = sum_y log p(row y)  /  sum_y sum_x n(y,x),

        with n(y,x) the values of X (as counts) on the columns the model
        knows, matched as ``predict`` matches them (mass on other columns is
        left out; a row with none counts for nothing), and p the mixture
        whose posterior ``predict_proba`` gives:

        - for the Dirichlet mixture (``algorithm="dmm"``, and ``"auto"`` on
          counts), its posterior predictive given the training partition:
          p(row) = sum_z (m_z + alpha) / (M + k alpha) prod_x Gamma(N_zx +
          n(x) + beta) / Gamma(N_zx + beta) * Gamma(N_z + V beta) /
          Gamma(N_z + n + V beta), m_z the training rows of cluster z (M in
          all), N_zx and N_z its training counts, V the model's columns,
          alpha and beta ``dmm_alpha_`` and ``dmm_beta_`` (with
          ``col_clusters``, the same over the row's counts summed by column
          cluster, times each column's share of its cluster);
        - for every other model, the mixture of multinomials p(row) = sum_z
          P_Z(z) prod_x q(x|z)^n(y,x), q(x|z) = (P(z,x) + a P(x)) / (P(z) +
          a), P_{Z,X}, P_X, P_Z and the smoothing a those of the model file
          (docs/predict.md): the information rule's posterior, and for
          Algorithms 1 and 2 without refinement, whose rules are no
          posteriors, the same generative reading of their learned joint
          P_{Z,X}.

        Both leave out the rows' multinomial coefficients, which do not
        depend on the model: exp(-score) is the perplexity per token.

        Score held-out rows: with one cluster the model is the unigram
        P_X (smoothed, for the mixture), and clusters that the held-out rows
        do not bear out lower their likelihood, whereas on the training rows
        it mostly grows with n_clusters.  So GridSearchCV(MMNC(),
        {"n_clusters": [...]}) compares k by cross-validated likelihood.  y
        is ignored; columns: as in ``predict``.  ValueError if no row of X
        has mass on a column the model knows.
        """
        model, X, names = self._check_new(X, columns)
        cmap = np.empty(X.shape[1], dtype=np.int64)
        model.match(X.shape[1], cmap, None if names is None else list(names))
        col = cmap[X.indices]
        known = col >= 0
        rows = np.repeat(np.arange(X.shape[0], dtype=np.int64), np.diff(X.indptr))
        N = sp.csr_matrix((X.data[known], (rows[known], col[known])), shape=(X.shape[0], model.ncols))
        N.sum_duplicates()
        loglik = np.empty(N.shape[0])
        mass = np.empty(N.shape[0])
        model.loglik(*_arrays(N)[:3], loglik, mass)
        total = mass.sum()
        if not total > 0:
            raise ValueError("score: no row of X has mass on a column the model knows")
        return float(loglik.sum() / total)

    def transform(self, X, *, columns=None):
        """The soft assignment P(z | row) of each row of X (predict_proba): n x k."""
        return self.predict_proba(X, columns=columns)

    def fit_predict(self, X, y=None, *, columns=None):
        """fit(X, y, columns=columns).labels_ (y: semi-supervision, see fit)."""
        return self.fit(X, y, columns=columns).labels_

    def fit_transform(self, X, y=None, *, columns=None):
        """fit(X, y, columns=columns).transform(X, columns=columns) (y: semi-supervision, see fit)."""
        return self.fit(X, y, columns=columns).transform(X, columns=columns)

    # -- model files and pickling -------------------------------------------

    def save(self, path):
        """Write the model file (mmnc_model_write; docs/model-format.md), read back by mmnc.load."""
        self._require_model().write(os.fspath(path))

    @classmethod
    def load(cls, path):
        """The fitted estimator of the model file at path (mmnc.load), as far as the file holds it.

        Restored from any model file (``MMNC.save`` or ``mmnc cluster
        --save-model``): ``cluster_marginal_``, ``objective_``,
        ``mutual_information_``, and ``singular_values_``, ``nuclear_norm_``,
        ``frobenius_norm_`` recomputed from the stored P_{Z,X}, P_Z, P_X
        (equal to the fit's to rounding); the parameters ``n_clusters``,
        ``algorithm``, ``refine`` and ``random_state`` (the seed the fit
        used); ``feature_names_in_`` when the columns are known by name.
        From a file of ``MMNC.save``, whose options text records the
        Python fit, also every other parameter, ``n_features_in_``,
        ``empty_columns_`` (and the names of the training columns without
        mass in ``feature_names_in_``), ``n_iter_``, ``best_restart_``,
        ``restart_objectives_``, ``restart_scores_``, ``restart_converged_``, ``size_prior_kept_``,
        ``size_prior_refused_`` and ``agreement_``: every fitted attribute
        but four.  From a co-clustering model (``col_clusters > 0``, from
        either): ``column_labels_`` (-1 for training columns without mass,
        as fit gives them), ``block_marginal_`` and ``columns_``; not
        ``rows_``, which needs ``labels_``.  A model whose fit held rows at
        given labels gives them back: ``predict`` assigns a row identical to
        a held row its label (docs/predict.md).

        Not restored: ``labels_``, ``row_proba_``, ``kernel_`` and
        ``empty_rows_``, one entry per training row.  The model file holds
        no rows, only their count (it is the learned P_{Z,X}, k x columns,
        whatever the rows); ``predict(X_train)`` and
        ``predict_proba(X_train)`` give the rule's labels and posterior of
        the training rows.  A pickled estimator keeps everything.  From a
        file of ``mmnc cluster``, whose options are its command line (shown
        by ``mmnc info``), the other parameters keep their defaults.
        """
        if not _mmnc.have_model:
            raise NotImplementedError("this libmmnc has no model API (mmnc_model_*): models cannot be read")
        return cls._from_model(_mmnc.model_read(os.fspath(path)))

    @classmethod
    def _from_model(cls, model):
        est = cls(n_clusters=model.k, algorithm=_name(_ALGORITHMS, model.algorithm), random_state=model.seed)
        if model.refine != _mmnc.REFINE_NONE:
            est.refine = _name(_REFINES, model.refine)
        est._model = model
        est._options = model.options
        head, _, tail = model.options.partition(" fitted=")
        items = head.split()
        python = items[:1] == ["python:"]
        fitted = {}
        if python:  # the parameters, the width and whether the columns are names, as fit wrote them
            params = set(est.get_params(deep=False)) - {"random_state", "target_marginal"}
            for item in items[1:]:
                key, _, value = item.partition("=")
                if key == "n_features_in":
                    est.n_features_in_ = int(value)
                elif key in params:
                    with contextlib.suppress(ValueError, SyntaxError):
                        setattr(est, key, ast.literal_eval(value))
            if tail:
                fitted = json.loads(tail)
        est.cluster_marginal_ = np.frombuffer(model.pz, dtype=np.float64).copy()
        est.singular_values_, est.nuclear_norm_, est.frobenius_norm_ = _spectrum(model)
        est.mutual_information_ = model.mutual_information
        est.objective_ = model.objective
        # Column ids are names when a Python fit had them, or when they are not the positions
        # "1", "2", ... that mmnc cluster gives the columns of data without names.
        ids = model.col_ids
        if ("feature_names=1" in items) if python else not _positional_ids(ids):
            empty = fitted.get("empty_columns", [])
            names = np.empty(len(ids) + len(empty), dtype=object)
            kept = np.ones(names.size, dtype=bool)
            kept[empty] = False
            names[kept] = ids
            names[~kept] = fitted.get("empty_column_names", [])
            est.feature_names_in_ = names
            est.n_features_in_ = names.size
            if fitted:  # a file written before fitted= named only the columns with mass
                est.empty_columns_ = np.asarray(empty, dtype=np.int64)
        elif python and hasattr(est, "n_features_in_"):
            est.empty_columns_ = np.setdiff1d(np.arange(est.n_features_in_, dtype=np.int64),
                                              np.asarray([int(i) - 1 for i in ids], dtype=np.int64))
        if model.l > 0:  # co-clustering: the training columns' clusters (-1 for those without mass) and blocks
            col = np.frombuffer(model.col_label, dtype=np.int64)
            width = getattr(est, "n_features_in_", model.ncols)
            est.column_labels_ = np.full(width, -1, dtype=np.int64)
            kept = np.ones(width, dtype=bool)
            kept[getattr(est, "empty_columns_", np.empty(0, dtype=np.int64))] = False
            if kept.sum() != col.size:  # a width the ids do not account for: the model's columns alone
                est.column_labels_, kept = np.full(col.size, -1, dtype=np.int64), np.ones(col.size, dtype=bool)
            est.column_labels_[kept] = col
            est.block_marginal_ = np.frombuffer(model.block_pz, dtype=np.float64).reshape(model.k, model.l).copy()
        if fitted:
            est.target_marginal = (None if fitted["target_marginal"] is None
                                   else np.asarray(fitted["target_marginal"], dtype=np.float64))
            est.n_iter_ = fitted["n_iter"]
            est.converged_ = fitted.get("converged", True)
            est.best_restart_ = fitted["best_restart"]
            est.size_prior_kept_ = fitted["size_prior_kept"]
            est.size_prior_refused_ = fitted["size_prior_refused"]
            est.agreement_ = None if fitted["agreement"] is None else tuple(fitted["agreement"])
            est.starts_agreement_ = fitted.get("starts_agreement")  # not in the files of earlier versions
            est.dmm_alpha_, est.dmm_beta_ = fitted.get("dmm", [None, None])
            semi = fitted.get("semi_supervision")
            est.semi_supervision_ = None if semi is None else tuple(semi)
            est.semi_scores_ = fitted.get("semi_scores")
            est.restart_objectives_ = np.asarray(fitted["restart_objectives"], dtype=np.float64)
            est.restart_scores_ = np.asarray(fitted["restart_scores"], dtype=np.float64)
            if "restart_converged" in fitted:  # not in the files of earlier versions
                est.restart_converged_ = np.asarray(fitted["restart_converged"], dtype=bool)
        return est

    def __getstate__(self):
        state = super().__getstate__() if hasattr(super(), "__getstate__") else self.__dict__.copy()
        state = dict(state or {})
        if state.get("_model") is not None:
            state["_model"] = _model_bytes(state["_model"])
        return state

    def __setstate__(self, state):
        state = dict(state)
        if isinstance(state.get("_model"), bytes):
            state["_model"] = _model_from_bytes(state["_model"])
        if hasattr(super(), "__setstate__"):
            super().__setstate__(state)
        else:
            self.__dict__.update(state)


_fill_doc(MMNC, **{"lambda": repr(_DEFAULTS["lambda"])},
          **{f"max_iter_{alg}": str(n) for alg, n in _DEFAULTS["max_iter"].items()})


def _spectrum(model):
    """The singular values of B_{Z,X} = [P_Z]^{-1/2} P_{Z,X} [P_X]^{-1/2} from a model's arrays (k of
    them, descending; an empty cluster adds a zero), with their sum and the root of their squares:
    singular_values_, nuclear_norm_ and frobenius_norm_ of the fit that made the model."""
    k, nx = model.k, model.ncols
    pz = np.frombuffer(model.pz, dtype=np.float64)
    px = np.frombuffer(model.px, dtype=np.float64)
    B = np.frombuffer(model.pzx, dtype=np.float64).reshape(k, nx) / np.sqrt(px)
    used = pz > 0
    B[used] /= np.sqrt(pz[used])[:, None]
    B[~used] = 0.0
    with _one_blas_thread():
        sigma = np.linalg.svd(B, compute_uv=False)
    sigma = np.concatenate([sigma, np.zeros(k - sigma.size)])
    return sigma, float(sigma.sum()), float(np.sqrt(np.square(sigma).sum()))


def _has_posterior(model):
    """True if model's kernel W was hard and its out-of-sample rule is a posterior (the information
    rule's mixture of multinomials, or the Dirichlet mixture's; src/model/model.c): then row_proba_
    is that posterior of the training rows, not W.  Algorithm 1 and the LP give a soft W; Algorithm 2 without refinement
    has a hard rule, whose one-hot answer would only repeat W less faithfully."""
    return bool(model.hard) and (model.algorithm in (_mmnc.ALG_INFORMATION, _mmnc.ALG_DMM) or
                                 model.refine != _mmnc.REFINE_NONE)


def _model_bytes(model):
    with tempfile.TemporaryDirectory(prefix="mmnc-") as d:
        path = os.path.join(d, "model")
        model.write(path)
        with open(path, "rb") as f:
            return f.read()


def _model_from_bytes(data):
    with tempfile.TemporaryDirectory(prefix="mmnc-") as d:
        path = os.path.join(d, "model")
        with open(path, "wb") as f:
            f.write(data)
        return _mmnc.model_read(path)


def load(path):
    """The fitted MMNC estimator of a model file written by MMNC.save or ``mmnc cluster --save-model``:
    every fitted attribute the file holds (MMNC.load says which), predict, predict_proba and score."""
    return MMNC.load(path)


# -- co-occurrences, embeddings, scores ------------------------------------

def cooc(texts_or_paths, window=_COOC["window"], min_count=_COOC["min_count"], *,
         weighting=_name(_WEIGHTINGS, _COOC["weighting"]), max_vocab=None, sentences=bool(_COOC["sentences"]),
         input="auto", n_jobs=None, max_memory=None, verbose=False):
    """The word x word co-occurrence matrix of texts or text files (mmnc_cooc_build).

    texts_or_paths: a sequence (or one item) of file names (plain, gzip or xz
    text) or texts, told apart by their form, never by whether a file
    exists: an ``os.PathLike`` is a file name; with ``input="auto"`` a str
    (or bytes) with a line break ("\\n" or "\\r") is a text and one without is
    a file name, so a text of one line needs ``input="content"``;
    ``"filename"`` and ``"content"`` read every str one way.  A file name
    that names no file raises FileNotFoundError naming it.  Texts are written
    to a temporary file, separated by blank lines, which windows never cross
    (as they never cross the end of a file).  window: context words on each side
    (default $window, at most $window_max); min_count: the fewest occurrences of a
    vocabulary word (default $min_count); max_vocab: the most words kept, the most
    frequent (None: no limit); weighting: "harmonic" (a pair at distance d
    counts 1/d) or "flat" (default $weighting); sentences: windows stop at
    sentence ends (default $sentences).  max_memory: bytes for the pair counts
    (at least $memory_min), beyond which sorted runs are spilled to a temporary
    file in $$TMPDIR and merged (the same matrix, bit for bit); None: no
    limit.  verbose: the progress (the pass, the tokens read) on
    ``sys.stderr`` about once a second after the first (True or 1; 2: every
    50 ms and the last block).

    Returns (A, vocab): A a scipy.sparse.csr_matrix (float64 counts), rows and columns in order of decreasing word count, and vocab the
    list of words.  Words of the vocabulary may have empty rows (MMNC and embed
    leave them out).
    """
    if isinstance(texts_or_paths, (str, bytes, os.PathLike)):
        texts_or_paths = [texts_or_paths]
    if input not in ("auto", "filename", "content"):
        raise ValueError(f"input must be 'auto', 'filename' or 'content', got {input!r}")
    if weighting not in _WEIGHTINGS:
        raise ValueError(f"weighting must be 'harmonic' or 'flat', got {weighting!r}")
    items = list(texts_or_paths)
    if not items:
        raise ValueError("cooc: no text or file given")
    paths, texts = [], []
    for item in items:
        if not isinstance(item, (str, bytes, os.PathLike)):
            raise TypeError(f"cooc: expected file names or texts, got {type(item).__name__}")
        # The rule is one of form, never of whether a file happens to exist: a missing file
        # name read as a text would add its words to the vocabulary without a word of warning.
        if input == "filename" or isinstance(item, os.PathLike) or (
                input == "auto" and not any(c in item for c in (("\n", "\r") if isinstance(item, str)
                                                                else (b"\n", b"\r")))):
            if not os.path.exists(item):
                raise FileNotFoundError(errno.ENOENT, "mmnc.cooc: no such file (a str without a line break is "
                                        "a file name; pass texts of one line with input='content')",
                                        os.fspath(item))
            paths.append(os.fsdecode(item))
        else:
            texts.append(item if isinstance(item, str) else item.decode("utf-8", "surrogateescape"))
    tmpdir = tempfile.mkdtemp(prefix="mmnc-cooc-") if texts else None
    try:
        if texts:
            path = os.path.join(tmpdir, "texts.txt")
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("\n\n".join(texts))
            paths.append(path)
        nrows, ncols, indptr, indices, data, vocab, _ = _mmnc.cooc(
            paths, window=window, weighting=_WEIGHTINGS[weighting], min_count=min_count,
            max_vocab=0 if max_vocab is None else max_vocab, sentences=bool(sentences), threads=_threads(n_jobs),
            max_memory=0 if max_memory is None else int(max_memory), verbose=_verbosity(verbose))
    finally:
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)
    A = sp.csr_matrix((np.frombuffer(data, dtype=np.float64), np.frombuffer(indices, dtype=np.int64),
                       np.frombuffer(indptr, dtype=np.int64)), shape=(nrows, ncols))
    return A, vocab


def embed(X, d=_EMBED["dim"], *, sigma_power=_EMBED["sigma_power"], keep_trivial=bool(_EMBED["keep_trivial"]),
          oversample=None, tol=_EMBED["tol"], max_iter=_EMBED["maxit"], random_state=_EMBED["seed"], n_jobs=None,
          verbose=False):
    """Row embeddings from the DTM (mmnc_embed): E[y] = sigma^power U[y] / sqrt(P_Y(y)).

    X: nonnegative, dense or SciPy sparse.  d: the dimensions (default $d);
    sigma_power: scale coordinate j by sigma_j to this power (default
    $sigma_power; 0 is unscaled); oversample: extra columns of the subspace
    iteration (None: max(20, d/4)); tol: stop when the singular values move
    less than tol, relative, in an iteration (default $tol); max_iter: at most
    this many iterations (default $max_iter); random_state: the seed of the
    random start (default $random_state).  Returns (E, sigma): E an
    n_samples x d float64 array, sigma the d singular values used.  Rows with
    no mass get zero vectors (they have no direction); columns with no mass
    are left out.  If the subspace iteration stops at max_iter before tol, a
    RuntimeWarning says so and the best estimate is returned.  verbose: the
    progress (the iteration, how far the singular values still move) on
    ``sys.stderr`` about once a second after the first (True or 1; 2: every
    50 ms and the last iteration).
    """
    if _SKLEARN:
        from sklearn.utils import check_array
        X = check_array(X, accept_sparse="csr", dtype=np.float64)
    else:
        X = _validate_nonsklearn(X)
    check_non_negative(X, "mmnc.embed (input X)")
    X = _csr(X)
    A, rows, _ = _drop_empty(X)
    d = int(d)
    E = np.zeros((int(rows.sum()), d))
    sigma = np.zeros(d)
    with _one_blas_thread():
        converged, _, msg = _mmnc.embed(*_arrays(A), E, sigma, dim=d, keep_trivial=bool(keep_trivial),
                                        sigma_power=float(sigma_power),
                                        oversample=_EMBED["oversample"] if oversample is None else int(oversample), tol=float(tol),
                                        maxit=int(max_iter), seed=_seed(random_state), threads=_threads(n_jobs),
                                        verbose=_verbosity(verbose))
    if not converged:
        import warnings
        warnings.warn(f"mmnc.embed: {msg}", RuntimeWarning, stacklevel=2)
    if rows.all():
        return E, sigma
    full = np.zeros((X.shape[0], d))
    full[rows] = E
    return full, sigma


_fill_doc(cooc, window_max=str(_DEFAULTS["cooc_window_max"]), memory_min=str(_DEFAULTS["cooc_memory_min"]))
_fill_doc(embed)


Scores = collections.namedtuple("Scores", "acc nmi ari purity coverage overall kacc")
Scores.__doc__ = """Scores of a clustering against reference labels (mmnc_evaluate): accuracy under the best
one-to-one matching (Hungarian), NMI (arithmetic mean), adjusted Rand index, purity, and the paper's
coverage, overall and k-accuracy against the as many largest classes as there are clusters."""


def evaluate(labels, truth):
    """Score predicted labels against truth: a Scores tuple.

    Labels and classes are any hashable values, except that a predicted label
    -1 is an unassigned row, not a cluster: the -1 that ``MMNC.fit`` gives a
    row with no mass, that ``predict`` gives a row with no known column, and
    that scikit-learn's DBSCAN and HDBSCAN give noise.  An unassigned row has
    no cluster to be scored in, so labels holding -1 are refused (ValueError,
    as ``mmnc eval`` refuses cluster -1): score the assigned rows explicitly,
    ``keep = labels >= 0; evaluate(labels[keep], truth[keep])``, and report
    the share left out beside the scores.  In truth, -1 is a class like any
    other (libsvm's binary classes are -1 and +1).
    """
    labels = np.asarray(labels).ravel()
    truth = np.asarray(truth).ravel()
    if labels.shape != truth.shape:
        raise ValueError(f"labels ({labels.size}) and truth ({truth.size}) differ in length")
    if labels.size == 0:
        raise ValueError("evaluate: no labels")
    unassigned = int(np.count_nonzero(labels == -1)) if labels.dtype.kind in "iufcbO" else 0
    if unassigned:
        raise ValueError(
            f"evaluate: {unassigned} of {labels.size} predicted labels are -1 (unassigned): a row with no "
            f"mass, or DBSCAN's noise, has no cluster to be scored in; score the assigned rows explicitly with "
            f"keep = labels >= 0; evaluate(labels[keep], truth[keep]), and report the "
            f"{unassigned / labels.size:.1%} left out")
    pred = np.unique(labels, return_inverse=True)[1].astype(np.int64)
    ref = np.unique(truth, return_inverse=True)[1].astype(np.int64)
    r = _mmnc.evaluate(np.ascontiguousarray(pred), np.ascontiguousarray(ref))
    return Scores(*(r[f] for f in Scores._fields))
