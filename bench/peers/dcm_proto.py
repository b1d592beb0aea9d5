#!/usr/bin/python3
"""A mixture of Dirichlet compound multinomials (DCM; Madsen, Kauchak and Elkan, ICML 2005) against
the multinomial mixture, both searched the same way, in NumPy (bench/NOTES.md, "A mixture of
Dirichlet compound multinomials").  Not part of mmnc: a prototype for issue 39's question whether a
model of burstiness weighs a document's repeated words better than counts do.

Model.  Row d in cluster c:

  log p(d | c) = lgamma(s) - lgamma(s + n_d) + sum_{w in d} [lgamma(x_dw + s m_cw) - lgamma(s m_cw)]

(the multinomial coefficient, the same for every c, left out), m_c = (N_cw + 1/2) / (N_c + V/2) the
counts of c's rows with Jeffreys' smoothing, one concentration s for all clusters fitted by Minka's
fixed point with the m_c held, the cluster prior log((n_c + 1) / (n + k)).  s -> infinity is the
multinomial (model M, log p(d | c) = sum_w x_dw log m_cw), s -> 0 depends on the distinct words only.

Search.  Batch hard EM: every row to its most likely cluster, then m (and s) refitted, until fewer
than 0.2% of the rows move or 40 rounds.  Start: the C default's partition (`mmnc cluster -k K -s 1`,
also scored as "default"), or with --random the best own likelihood of 4 random balanced starts.

Usage: dcm_proto.py MMNC OUT.json [--random] [--only a,b] [--corpus NAME=MAT:VAR:LABELS:K ...]
(the corpora of bench/corpora/describe.py DIR --peers, and classic3, reviews, Reuters21578 k = 65
from ../shared/data)
"""
import sys, os, json, time
import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, digamma
import semisup as S
from common import score, repo_data
from corpus_peers import load

args = sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
MMNC, out = args[0], args[1]
RANDOM = '--random' in args
ONLY = args[args.index('--only') + 1] if '--only' in args else None
corp = [('classic3', repo_data('classic3', 'classic3.mat'), 'A', 'labels', 3),
        ('reviews', repo_data('reviews', 'reviews.mat'), 'dtm', 'classid', 5)]
for i, a in enumerate(args):
    if a == '--corpus':
        name, rest = args[i + 1].split('=', 1)
        p, v, t, k = rest.rsplit(':', 3)
        corp.append((name, p, v, t, int(k)))
corp.append(('reuters65', repo_data('reuters21578', 'Reuters21578.mat'), 'fea', 'gnd', 65))
if ONLY: corp = [c for c in corp if c[0] in ONLY.split(',')]
for c in corp:
    if not os.path.exists(c[1]):
        sys.exit('dcm_proto.py: %s is absent (../shared/data beside the repository, or bench/corpora/build-all)' % c[1])


def fit_s(X, rows_c, M, s):
    """Minka's fixed point for one concentration s, m held (M: k x V row-stochastic)."""
    for _ in range(50):
        num = 0.0; den = 0.0
        for c, rows in enumerate(rows_c):
            if len(rows) == 0: continue
            Xc = X[rows]
            a = s * M[c, Xc.indices]
            num += (M[c, Xc.indices] * (digamma(Xc.data + a) - digamma(a))).sum()
            n = np.asarray(Xc.sum(axis=1)).ravel()
            den += (digamma(n + s) - digamma(s)).sum()
        s2 = s * num / den
        if abs(s2 - s) < 1e-4 * s: return s2
        s = min(max(s2, 1e-3), 1e7)
    return s


def loglik(X, M, s, n):
    """L[d, c] = log p(d | c), up to a term that is the same for every c; s None: multinomial."""
    N, k = X.shape[0], M.shape[0]
    L = np.empty((N, k))
    rowid = np.repeat(np.arange(N), np.diff(X.indptr))
    for c in range(k):
        if s is None:
            v = X.data * np.log(M[c, X.indices])
        else:
            a = s * M[c, X.indices]
            v = gammaln(X.data + a) - gammaln(a)
        L[:, c] = np.bincount(rowid, weights=v, minlength=N)
        if s is not None:
            L[:, c] += gammaln(s) - gammaln(s + n)
    return L


def run(X, z, k, dcm, beta=0.5, rounds=40):
    N, V = X.shape
    n = np.asarray(X.sum(axis=1)).ravel()
    s = 1.0 if dcm else None
    for it in range(rounds):
        Z = sp.csr_matrix((np.ones(N), (z, np.arange(N))), shape=(k, N))
        C = np.asarray((Z @ X).todense()) + beta
        M = C / C.sum(axis=1, keepdims=True)
        rows_c = [np.flatnonzero(z == c) for c in range(k)]
        if dcm: s = fit_s(X, rows_c, M, s)
        L = loglik(X, M, s, n)
        sizes = np.bincount(z, minlength=k)
        L += np.log((sizes + 1.0) / (N + k))
        z2 = L.argmax(axis=1)
        moved = int((z2 != z).sum())
        ll = float(L[np.arange(N), z2].sum())
        z = z2
        if moved < 0.002 * N: break
    return z, s, it + 1, ll


res = json.load(open(out)) if os.path.exists(out) else {}
for name, path, var, tvar, k in corp:
    if name in res: continue
    A, truth, tr = load(path, var, tvar)
    N = A.shape[0]
    lab0, sec, _ = S.run_mmnc(MMNC, path, var, tr, k, 1, N)
    keep = lab0 >= 0
    X = sp.csr_matrix(A[keep]); X.eliminate_zeros()
    cols = np.asarray((X != 0).sum(axis=0)).ravel() > 0
    X = sp.csr_matrix(X[:, cols])
    t = truth[keep]; z0 = lab0[keep]
    r = {'default': score(z0, t, k)}
    for lab, dcm in (('M', False), ('D', True)):
        t0 = time.perf_counter()
        if RANDOM:
            best = None
            for st in range(1, 5):
                zs = np.random.default_rng(st).permutation(np.arange(X.shape[0]) % k)
                z, s, its, ll = run(X, zs, k, dcm)
                if best is None or ll > best[3]: best = (z, s, its, ll)
            z, s, its, ll = best
        else:
            z, s, its, ll = run(X, z0.copy(), k, dcm)
        r[lab] = score(z, t, k); r[lab]['s'] = s; r[lab]['rounds'] = its
        r[lab]['sec'] = time.perf_counter() - t0
        r[lab]['nonempty'] = int(len(np.unique(z)))
    for lab in ('default', 'M', 'D'):
        r[lab] = {q: (float(v) if isinstance(v, (float, np.floating, int, np.integer)) else v)
                  for q, v in r[lab].items() if q in ('acc', 'nmi', 's', 'rounds', 'sec', 'nonempty')}
    res[name] = r
    print(name, json.dumps(r), flush=True)
    json.dump(res, open(out, 'w'), indent=1)
