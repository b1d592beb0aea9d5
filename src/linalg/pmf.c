/*
 * pmf.c -- the joint pmf P_{Y,X} (of one process, or a rank's rows of it),
 * products with its DTM B_{Y,X} = [P_Y]^{-1/2} P_{Y,X} [P_X]^{-1/2} (its
 * truncated SVD is in svd.c), and the connected components of the
 * bipartite graph.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "linalg/kernel_i.h"

void mmnc_pmf_free(mmnc_pmf *p)
{
    if (!p) return;
    if (p->Pt != p->P) mmnc_csr_free(p->Pt);
    mmnc_csr_free(p->P);
    mmnc_i_free(p->py);
    mmnc_i_free(p->px);
    mmnc_i_free(p);
}

void mmnc_i_row_sums(const mmnc_csr *A, double *s)
{
#pragma omp parallel for schedule(static) if (A->nnz > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int i = 0; i < A->nrows; i++) {
        int64_t l[MMNC_I_FIX_LIMBS] = {0};
        for (mmnc_int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) mmnc_i_fix_add(l, A->val[e]);
        s[i] = mmnc_i_fix_value(l);
    }
}

/* 1 when the square A is its own transpose, entry for entry and bit for
 * bit, 0 when not, -1 when out of memory; without making the transpose.
 * The rows in order: an entry (i, j) below the diagonal must be the next
 * unmatched entry (j, i) above the diagonal of row j (pos[j]: row j's
 * columns increase, and its partners come in the order of their rows),
 * with the same value; at the end every entry above the diagonal must have
 * been matched.  O(nnz) time, |Y| indices of memory (making the transpose
 * to compare with would take 16 bytes a nonzero and more time;
 * bench/NOTES.md, "Loading: symmetry checked without a transpose"). */
static int csr_symmetric(const mmnc_csr *A)
{
    mmnc_int n = A->nrows, *pos;
    int sym = 1;
    if (A->nrows != A->ncols || A->nnz == 0) return 0;
    if (!(pos = mmnc_i_malloc((size_t)n, sizeof *pos))) return -1;
    for (mmnc_int j = 0; j < n; j++) {
        mmnc_int q = A->rowptr[j];
        while (q < A->rowptr[j + 1] && A->colind[q] <= j) q++;
        pos[j] = q;
    }
    for (mmnc_int i = 0; i < n && sym; i++)
        for (mmnc_int e = A->rowptr[i]; e < A->rowptr[i + 1] && A->colind[e] < i; e++) {
            mmnc_int j = A->colind[e], q = pos[j];
            if (q == A->rowptr[j + 1] || A->colind[q] != i || memcmp(&A->val[q], &A->val[e], sizeof(double)) != 0) {
                sym = 0;
                break;
            }
            pos[j] = q + 1;
        }
    for (mmnc_int j = 0; j < n && sym; j++) sym = pos[j] == A->rowptr[j + 1];
    mmnc_i_free(pos);
    return sym;
}

int mmnc_i_pmf_fill(mmnc_pmf *p, mmnc_csr *A, int flags, mmnc_err *err)
{
    int status = MMNC_OK;
    double inv = 1.0 / p->total;
    if (flags & MMNC_PMF_TAKE) { /* the arrays move; A is left empty, as mmnc_data_drop_values leaves it */
        MMNC_CALLOC(p->P, 1, err, status);
        MMNC_ALLOC(p->P->rowptr, A->nrows + 1, err, status);
        memcpy(p->P->rowptr, A->rowptr, (size_t)(A->nrows + 1) * sizeof(mmnc_int));
        p->P->nrows = A->nrows;
        p->P->ncols = A->ncols;
        p->P->nnz = A->nnz;
        p->P->colind = A->colind;
        p->P->val = A->val;
        A->colind = NULL;
        A->val = NULL;
        A->nnz = 0;
        memset(A->rowptr, 0, (size_t)(A->nrows + 1) * sizeof(mmnc_int));
        for (mmnc_int e = 0; e < p->P->nnz; e++) p->P->val[e] *= inv;
    } else {
        p->P = mmnc_csr_alloc(A->nrows, A->ncols, A->nnz, err);
        if (!p->P) return err ? err->code : MMNC_ENOMEM;
        memcpy(p->P->rowptr, A->rowptr, (size_t)(A->nrows + 1) * sizeof(mmnc_int));
        memcpy(p->P->colind, A->colind, (size_t)A->nnz * sizeof(mmnc_int));
        for (mmnc_int e = 0; e < A->nnz; e++) p->P->val[e] = A->val[e] * inv;
    }
    if (!p->dist) { /* symmetric: one copy serves as both (the same arrays, the same bits), even with NO_TRANSPOSE */
        int sym = csr_symmetric(p->P);
        if (sym < 0) {
            status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
            goto cleanup;
        }
        if (sym) p->Pt = p->P;
    }
    if (!p->Pt && !(flags & MMNC_PMF_NO_TRANSPOSE) && (status = mmnc_csr_transpose(p->P, &p->Pt, err)) != MMNC_OK)
        goto cleanup;
    MMNC_ALLOC(p->py, p->ny ? p->ny : 1, err, status);
    MMNC_ALLOC(p->px, p->nx, err, status);
    mmnc_i_row_sums(p->P, p->py);
    if (!mmnc_i_distributed(p)) status = mmnc_i_pmf_px(p, err); /* distributed: once the ranks agree */
cleanup:
    return status;
}

double mmnc_i_total(const mmnc_csr *A, const mmnc_dist *dist)
{
    int64_t l[MMNC_I_FIX_LIMBS] = {0};
    double m = 0.0;
    int e;
    for (mmnc_int i = 0; i < A->nnz; i++)
        if (A->val[i] > m) m = A->val[i]; /* finite and >= 0 (mmnc_csr_check) */
    if (dist && dist->size > 1) dist->max(dist, &m, 1);
    if (!(m > 0.0)) return 0.0; /* on every rank alike: the caller reports it */
    e = ilogb(m) + 1; /* m < 2^e */
    for (mmnc_int i = 0; i < A->nnz; i++) {
        mmnc_i_fix_add(l, ldexp(A->val[i], -e));
        if ((i & 0x3fffffff) == 0x3fffffff) mmnc_i_fix_carry(l);
    }
    if (dist && dist->size > 1) dist->isum(dist, l, MMNC_I_FIX_LIMBS);
    return ldexp(mmnc_i_fix_value(l), e);
}

int mmnc_i_pmf_px(mmnc_pmf *p, mmnc_err *err)
{
    int64_t *l = mmnc_i_calloc((size_t)(p->nx > 0 ? p->nx : 1) * MMNC_I_FIX_LIMBS, sizeof *l);
    int status = l ? MMNC_OK : mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_i_agree(p->dist, status, err)) != MMNC_OK) {
        mmnc_i_free(l);
        return status;
    }
    if (p->Pt) {
        const mmnc_csr *Pt = p->Pt;
#pragma omp parallel for schedule(dynamic, 256) if (p->nnz > MMNC_I_OMP_MIN_WORK)
        for (mmnc_int x = 0; x < p->nx; x++)
            for (mmnc_int e = Pt->rowptr[x]; e < Pt->rowptr[x + 1]; e++)
                mmnc_i_fix_add(l + x * MMNC_I_FIX_LIMBS, Pt->val[e]);
    } else { /* one copy of the matrix: scatter its rows (the same exact sums) */
        const mmnc_csr *P = p->P;
        for (mmnc_int y = 0; y < P->nrows; y++)
            for (mmnc_int e = P->rowptr[y]; e < P->rowptr[y + 1]; e++)
                mmnc_i_fix_add(l + P->colind[e] * MMNC_I_FIX_LIMBS, P->val[e]);
    }
    mmnc_i_disum(p, l, p->nx * MMNC_I_FIX_LIMBS);
    for (mmnc_int x = 0; x < p->nx; x++) p->px[x] = mmnc_i_fix_value(l + x * MMNC_I_FIX_LIMBS);
    mmnc_i_free(l);
    return MMNC_OK;
}

/* Why row (cols = 0) or column i of P (shown as number `shown`) has no
 * mass.  Either it has no positive entry, or its entries are below the
 * resolution of the exact sums (2^-91; mmnc_i_fix_add) once divided by the
 * total: values spanning more than about 27 orders of magnitude, which
 * cannot be held together (doubles could, the exact sums cannot).
 * O(nnz) for a column; collective for a column of a distributed pmf. */
static int no_mass(const mmnc_pmf *p, int cols, mmnc_int i, mmnc_int shown, mmnc_err *err)
{
    const mmnc_csr *P = p->P;
    const char *what = cols ? "column" : "row";
    double mx = 0.0;
    if (cols) { /* P_X is global, so every rank gets here for the same column: a collective is safe */
        for (mmnc_int e = 0; e < P->nnz; e++)
            if (P->colind[e] == i && P->val[e] > mx) mx = P->val[e];
        if (p->dist && p->dist->size > 1) p->dist->max(p->dist, &mx, 1);
    } else {
        for (mmnc_int e = P->rowptr[i]; e < P->rowptr[i + 1]; e++)
            if (P->val[e] > mx) mx = P->val[e];
    }
    if (!(mx > 0.0))
        return mmnc_i_err(err, MMNC_EINVAL, "%s %lld has zero mass: drop empty %ss first", what, (long long)shown,
                          what);
    return mmnc_i_err(err, MMNC_EINVAL, "%s %lld has values (up to %g) below 2^-91 of the total %g, under the "
                      "resolution of the exact sums: the values span more than about 27 orders of magnitude; "
                      "rescale them (e.g. a log1p map) or remove the outliers", what, (long long)shown,
                      mx * p->total, p->total);
}

/* MMNC_OK if total, the sum of the values, can normalise them: positive,
 * finite and a normal number.  A subnormal total's reciprocal overflows
 * (1 / 2^-1030 is Inf), and so would every entry of P. */
static int check_total(double total, mmnc_err *err)
{
    if (!(total > 0.0) || !isfinite(total))
        return mmnc_i_err(err, MMNC_EINVAL, "the matrix values sum to %g; need a positive finite sum", total);
    if (total < DBL_MIN || !isfinite(1.0 / total))
        return mmnc_i_err(err, MMNC_EINVAL, "the matrix values sum to %g, below DBL_MIN = %.17g (a subnormal "
                          "number, whose reciprocal overflows): the values cannot be normalised; scale them up",
                          total, DBL_MIN);
    return MMNC_OK;
}

int mmnc_pmf_build(const mmnc_csr *A, mmnc_pmf **out, mmnc_err *err)
{
    return mmnc_pmf_build_ex((mmnc_csr *)A, 0, out, err); /* without MMNC_PMF_TAKE, A is only read */
}

int mmnc_pmf_build_ex(mmnc_csr *A, int flags, mmnc_pmf **out, mmnc_err *err)
{
    mmnc_pmf *p = NULL;
    int status = MMNC_OK;
    if (!A || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_pmf_build: NULL argument");
    *out = NULL;
    if ((status = mmnc_csr_check(A, err)) != MMNC_OK) return status;
    if (A->nrows == 0 || A->ncols == 0 || A->nnz == 0)
        return mmnc_i_err(err, MMNC_EINVAL, "the matrix is empty (%lld x %lld, %lld nonzeros)",
                          (long long)A->nrows, (long long)A->ncols, (long long)A->nnz);
    MMNC_CALLOC(p, 1, err, status);
    p->ny = A->nrows;
    p->ny_all = A->nrows;
    p->nx = A->ncols;
    p->nnz = A->nnz;
    p->total = mmnc_i_total(A, NULL);
    if ((status = check_total(p->total, err)) != MMNC_OK) goto cleanup;
    if ((status = mmnc_i_pmf_fill(p, A, flags, err)) != MMNC_OK) goto cleanup;
    for (mmnc_int y = 0; y < p->ny; y++)
        if (!(p->py[y] > 0.0)) {
            status = no_mass(p, 0, y, y + 1, err);
            goto cleanup;
        }
    for (mmnc_int x = 0; x < p->nx; x++)
        if (!(p->px[x] > 0.0)) {
            status = no_mass(p, 1, x, x + 1, err);
            goto cleanup;
        }
    *out = p;
    return MMNC_OK;
cleanup:
    mmnc_pmf_free(p);
    return status;
}

/* A rank's pmf: the rows of A, P_X and the total summed across the ranks. */
int mmnc_pmf_build_dist(mmnc_csr *A, int flags, const mmnc_dist *dist, mmnc_pmf **out, mmnc_err *err)
{
    mmnc_pmf *p = NULL;
    int64_t cnt[2], *ny_of = NULL;
    int status = MMNC_OK;
    if (!A || !out) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_pmf_build_dist: NULL argument");
    if (!dist || dist->size <= 1) {
        if ((status = mmnc_pmf_build_ex(A, flags, out, err)) == MMNC_OK) (*out)->dist = dist;
        return status;
    }
    *out = NULL;
    /* Every step below either fails on all ranks alike (global quantities)
     * or is followed by mmnc_i_agree, so no rank is left in a collective. */
    status = mmnc_i_agree(dist, mmnc_csr_check(A, err), err);
    if (status != MMNC_OK) return status;
    cnt[0] = A->nrows;
    cnt[1] = A->nnz;
    dist->isum(dist, cnt, 2);
    if (cnt[0] == 0 || A->ncols == 0 || cnt[1] == 0)
        return mmnc_i_err(err, MMNC_EINVAL, "the matrix is empty (%lld x %lld, %lld nonzeros)", (long long)cnt[0],
                          (long long)A->ncols, (long long)cnt[1]);
    p = mmnc_i_calloc(1, sizeof *p);
    ny_of = mmnc_i_malloc((size_t)dist->size, sizeof(int64_t));
    if (!p || !ny_of) status = mmnc_i_err(err, MMNC_ENOMEM, "out of memory");
    if ((status = mmnc_i_agree(dist, status, err)) != MMNC_OK) goto cleanup;
    p->ny = A->nrows;
    p->nx = A->ncols;
    p->nnz = A->nnz;
    p->dist = dist;
    p->total = mmnc_i_total(A, dist); /* the same on every rank, and so is its check */
    if ((status = check_total(p->total, err)) != MMNC_OK) goto cleanup;
    {
        int64_t me = A->nrows;
        dist->allgather(dist, &me, sizeof me, ny_of);
        p->y0 = 0;
        p->ny_all = 0;
        for (int r = 0; r < dist->size; r++) {
            if (r < dist->rank) p->y0 += ny_of[r];
            p->ny_all += ny_of[r];
        }
    }
    status = mmnc_i_pmf_fill(p, A, flags, err); /* P_X below, once the ranks agree */
    for (mmnc_int y = 0; y < p->ny && status == MMNC_OK; y++)
        if (!(p->py[y] > 0.0)) status = no_mass(p, 0, y, p->y0 + y + 1, err);
    if ((status = mmnc_i_agree(dist, status, err)) != MMNC_OK) goto cleanup;
    if ((status = mmnc_i_pmf_px(p, err)) != MMNC_OK) goto cleanup; /* P_X summed across the ranks */
    for (mmnc_int x = 0; x < p->nx; x++)
        if (!(p->px[x] > 0.0)) {
            status = no_mass(p, 1, x, x + 1, err);
            goto cleanup;
        }
    *out = p;
    p = NULL;
cleanup:
    mmnc_pmf_free(p);
    mmnc_i_free(ny_of);
    return status;
}


/* Y = D_r^{-1/2} M D_c^{-1/2} X for M = P (rows py, cols px) or Pt, one row
 * at a time (the whole m-row of X per nonzero).  The fallback of
 * blocked_mul below when its workspace cannot be had; the same bits. */
static void rowwise_mul(const mmnc_csr *M, const double *dr, const double *dc, mmnc_int m, const double *X,
                        double *Y)
{
#pragma omp parallel for schedule(dynamic, 256) if (M->nnz * m > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int i = 0; i < M->nrows; i++) {
        double *yi = Y + i * m;
        for (mmnc_int j = 0; j < m; j++) yi[j] = 0.0;
        for (mmnc_int e = M->rowptr[i]; e < M->rowptr[i + 1]; e++) {
            mmnc_int c = M->colind[e];
            double v = M->val[e] / sqrt(dc[c]);
            const double *xc = X + c * m;
            for (mmnc_int j = 0; j < m; j++) yi[j] += v * xc[j];
        }
        double s = 1.0 / sqrt(dr[i]);
        for (mmnc_int j = 0; j < m; j++) yi[j] *= s;
    }
}

/*
 * The same product for wide X (the subspace iteration of svd.c, m ~ 10^2 ..
 * 10^3), cache-blocked.  X is copied into panels of PANEL columns, each
 * panel contiguous (nc x PANEL, zero-padded, on huge pages where the system
 * gives them), so that the PANEL values of a column are four aligned cache
 * lines (PANEL = 32 doubles) on one page.  The panels are taken a few at a
 * time (as many as fit in SWEEP_BYTES, at least one: L3-sized), copied just
 * before their sweep into one buffer of that size (not a panel copy of all
 * of X, which would be as large as X), and all the rows of M are swept
 * over them before the next ones, so that the gathered slices come from the
 * cache, not from memory; sweeping every panel for a group of rows before
 * the next group would read X from memory once per group, which is much
 * slower (bench/NOTES.md, "Embeddings", also for the variants not taken:
 * float32 panels, column blocks for L2, wider panels).  Within a sweep the
 * rows go in groups of about GROUP_NNZ nonzeros (the unit of the dynamic
 * schedule), with the PANEL sums of a row in registers; the slices of the
 * frequent columns stay in L2 across the group's rows.  Each nonzero's
 * scaled value val / sqrt(dc) is divided where it is used, once per sweep:
 * the divider works beside the multiply-adds, where a separate pass over
 * the group would wait on the divisions, and one pass for the whole product
 * would cost 8 bytes per nonzero for no gain (bench/NOTES.md, "Embeddings",
 * "divisions beside the multiply-adds").  The row-at-a-time loop instead
 * streams the whole m-row of X (6.4 KB at m = 800, a new page each) from
 * memory for every nonzero and keeps its sums in memory.  Every sum is made
 * in the same order and with the same roundings as rowwise_mul (v = val /
 * sqrt(dc), no fused multiply-add), so the bits do not depend on the kernel
 * nor on the number of threads (each row is one thread's).
 */
#define PANEL 32        /* columns per sweep: 32 sums, 8 AVX registers */
#define GROUP_NNZ 8192  /* nonzeros per group of rows */
#define PANEL_AHEAD 8   /* nonzeros ahead whose X slices are prefetched */
#define HUGE_PAGE 2097152
#define SWEEP_BYTES ((size_t)16 << 20) /* panels swept over all rows at a time: L3-sized */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__has_attribute)
#if __has_attribute(target_clones)
/* AVX2 where the processor has it (chosen once at load time), SSE2 elsewhere;
 * no FMA in either, so both round alike. */
#define MMNC_I_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef MMNC_I_CLONES
#define MMNC_I_CLONES
#endif

/* Rows [i0, i1) of M; sq[c] = sqrt(dc[c]); Xp holds the panels (nc x PANEL
 * each) of columns [ja, jb) of X, for the same columns of Y (ja a multiple of
 * PANEL). */
MMNC_I_CLONES static void group_mul(const mmnc_csr *M, mmnc_int i0, mmnc_int i1, const double *sq, const double *dr,
                                    mmnc_int m, mmnc_int ja, mmnc_int jb, const double *Xp, double *Y)
{
    const mmnc_int *ci = M->colind;
    const double *val = M->val;
    mmnc_int end = M->rowptr[i1], nc = M->ncols;
    for (mmnc_int j0 = ja; j0 < jb; j0 += PANEL) {
        mmnc_int w = m - j0 < PANEL ? m - j0 : PANEL;
        const double *X = Xp + ((j0 - ja) / PANEL) * nc * PANEL;
        for (mmnc_int i = i0; i < i1; i++) {
            mmnc_int e0 = M->rowptr[i], e1 = M->rowptr[i + 1];
            double s = 1.0 / sqrt(dr[i]), *yi = Y + i * m + j0, acc[PANEL];
            for (int z = 0; z < PANEL; z++) acc[z] = 0.0;
            for (mmnc_int e = e0; e < e1; e++) {
                const double *x = X + ci[e] * PANEL;
                double a = val[e] / sq[ci[e]];
                if (e + PANEL_AHEAD < end) { /* the 4 lines of a slice a few nonzeros ahead */
                    const char *f = (const char *)(X + ci[e + PANEL_AHEAD] * PANEL);
                    __builtin_prefetch(f);
                    __builtin_prefetch(f + 64);
                    __builtin_prefetch(f + 128);
                    __builtin_prefetch(f + 192);
                }
                for (int z = 0; z < PANEL; z++) acc[z] += a * x[z];
            }
            if (w == PANEL)
                for (int z = 0; z < PANEL; z++) yi[z] = acc[z] * s;
            else
                for (mmnc_int z = 0; z < w; z++) yi[z] = acc[z] * s;
        }
    }
}

/* ws (may be NULL) keeps the panels' buffer from one product to the next. */
static void blocked_mul(const mmnc_csr *M, const double *dr, const double *dc, mmnc_int m, const double *X, double *Y,
                        mmnc_i_mulws *ws)
{
    mmnc_int n = M->nrows, nc = M->ncols, np = (m + PANEL - 1) / PANEL, ng = 0, *g = NULL;
    mmnc_int sweep = (mmnc_int)(SWEEP_BYTES / ((size_t)(nc ? nc : 1) * PANEL * sizeof(double))); /* panels per sweep */
    double *sq = NULL, *Xp;
    char *raw = NULL;
    size_t xbytes, align;
    int nt = 1;
    if (sweep < 1) sweep = 1;
    if (m < PANEL || n == 0) {
        rowwise_mul(M, dr, dc, m, X, Y);
        return;
    }
#ifdef _OPENMP
    if (M->nnz * m > MMNC_I_OMP_MIN_WORK) nt = omp_get_max_threads();
#endif
    if (sweep > np) sweep = np;
    xbytes = (size_t)(sweep * nc * PANEL) * sizeof(double); /* one sweep's panels at a time */
    align = xbytes >= 2 * (size_t)HUGE_PAGE ? HUGE_PAGE : 64; /* huge pages only for big blocks */
    if (ws && ws->raw && ws->rawcap >= xbytes + align) {
        raw = ws->raw;
    } else {
        if (ws) {
            mmnc_i_free(ws->raw);
            ws->raw = NULL;
            ws->rawcap = 0;
        }
        raw = mmnc_i_malloc(xbytes + align, 1);
        if (ws && raw) {
            ws->raw = raw;
            ws->rawcap = xbytes + align;
        }
    }
    /* groups of whole rows, about GROUP_NNZ nonzeros each (a longer row alone) */
    g = mmnc_i_malloc((size_t)n + 1, sizeof(mmnc_int));
    sq = mmnc_i_malloc((size_t)nc + 1, sizeof(double));
    if (!g || !sq || !raw) {
        rowwise_mul(M, dr, dc, m, X, Y);
        goto done;
    }
    g[0] = 0;
    for (mmnc_int i = 0; i < n;) {
        mmnc_int i1 = i + 1;
        while (i1 < n && M->rowptr[i1 + 1] - M->rowptr[i] <= GROUP_NNZ) i1++;
        g[++ng] = i1;
        i = i1;
    }
    Xp = (double *)(void *)(raw + (align - (uintptr_t)raw % align) % align);
#ifdef MADV_HUGEPAGE
    if (align == HUGE_PAGE) madvise(Xp, xbytes / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    for (mmnc_int c = 0; c < nc; c++) sq[c] = sqrt(dc[c]);
#pragma omp parallel num_threads(nt)
    {
        for (mmnc_int p0 = 0; p0 < np; p0 += sweep) {
            mmnc_int ja = p0 * PANEL, jb = p0 + sweep < np ? (p0 + sweep) * PANEL : m;
#pragma omp for schedule(static)
            for (mmnc_int c = 0; c < nc; c++)
                for (mmnc_int j0 = ja; j0 < jb; j0 += PANEL) {
                    double *d = Xp + (((j0 - ja) / PANEL) * nc + c) * PANEL;
                    mmnc_int w = m - j0 < PANEL ? m - j0 : PANEL;
                    memcpy(d, X + c * m + j0, (size_t)w * sizeof(double));
                    for (mmnc_int z = w; z < PANEL; z++) d[z] = 0.0;
                }
#pragma omp for schedule(dynamic, 1)
            for (mmnc_int b = 0; b < ng; b++) group_mul(M, g[b], g[b + 1], sq, dr, m, ja, jb, Xp, Y);
        }
    }
done:
    mmnc_i_free(g);
    mmnc_i_free(sq);
    if (!ws) mmnc_i_free(raw);
}

void mmnc_i_mulws_free(mmnc_i_mulws *ws)
{
    mmnc_i_free(ws->raw);
    ws->raw = NULL;
    ws->rawcap = 0;
}

void mmnc_i_dtm_mul_ws(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y, mmnc_i_mulws *ws)
{
    blocked_mul(p->P, p->py, p->px, m, X, Y, ws);
}

void mmnc_dtm_mul(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y)
{
    blocked_mul(p->P, p->py, p->px, m, X, Y, NULL);
}

void mmnc_dtm_tmul(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y)
{
    mmnc_i_dtm_tmul_ws(p, m, X, Y, NULL);
}

void mmnc_i_dtm_tmul_ws(const mmnc_pmf *p, mmnc_int m, const double *X, double *Y, mmnc_i_mulws *ws)
{
    if (p->Pt) {
        blocked_mul(p->Pt, p->px, p->py, m, X, Y, ws);
        mmnc_i_dsum(p, Y, p->nx * m); /* distributed: every rank's rows contribute */
        return;
    }
    /* one copy of the matrix: the rows of P scattered (the same sums, the
     * square roots taken as blocked_mul takes them), then the column scaling */
    mmnc_i_col_scatter(p, m, NULL, NULL, X, NULL, p->py, Y);
#pragma omp parallel for schedule(static) if (p->nx * m > MMNC_I_OMP_MIN_WORK)
    for (mmnc_int x = 0; x < p->nx; x++) {
        double s = 1.0 / sqrt(p->px[x]);
        for (mmnc_int j = 0; j < m; j++) Y[x * m + j] *= s;
    }
    mmnc_i_dsum(p, Y, p->nx * m);
}

/* ---- connected components (union-find over rows and columns) ----------- */

int mmnc_components(const mmnc_csr *A, mmnc_int *ncomp, mmnc_int *comp_row, mmnc_err *err)
{
    mmnc_int *parent = NULL, *id = NULL, n, count = 0;
    int status = MMNC_OK;
    if (!A || !ncomp) return mmnc_i_err(err, MMNC_EINVAL, "mmnc_components: NULL argument");
    n = A->nrows + A->ncols;
    MMNC_ALLOC(parent, n, err, status);
    MMNC_ALLOC(id, n, err, status);
    for (mmnc_int i = 0; i < n; i++) parent[i] = i, id[i] = -1;
    for (mmnc_int i = 0; i < A->nrows; i++)
        for (mmnc_int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
            if (A->val[e] == 0.0) continue;
            mmnc_int a = mmnc_i_uf_find(parent, i), b = mmnc_i_uf_find(parent, A->nrows + A->colind[e]);
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
    /* Count components that contain at least one edge or one row/column
     * vertex: isolated vertices (empty rows or columns) count too. */
    for (mmnc_int i = 0; i < n; i++) {
        mmnc_int r = mmnc_i_uf_find(parent, i);
        if (id[r] < 0) id[r] = count++;
    }
    if (comp_row)
        for (mmnc_int i = 0; i < A->nrows; i++) comp_row[i] = id[mmnc_i_uf_find(parent, i)];
    *ncomp = count;
cleanup:
    mmnc_i_free(parent);
    mmnc_i_free(id);
    return status;
}

