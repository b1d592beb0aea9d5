/*
 * _mmnc.c -- the CPython extension behind `import mmnc`: thin calls into
 * libmmnc through its public header (include/mmnc.h) only.
 *
 * Arrays cross the boundary through the buffer protocol (no NumPy C API, so
 * the extension builds against any NumPy): the Python layer (mmnc/__init__.py)
 * validates inputs, hands C-contiguous int64 / float64 buffers that the
 * library reads in place (a mmnc_csr pointing into SciPy's arrays: no copy),
 * and preallocates the outputs, which the library fills.
 *
 * Long calls run in a worker thread while the calling thread waits without
 * the GIL and checks for signals every 50 ms: on Ctrl-C (or any signal
 * handler that raises) the clustering is told to stop through its progress
 * function (mmnc_params.progress returning nonzero), the worker is joined,
 * and the Python exception propagates.  Waiting in the calling thread, not
 * checking in the progress function, is what makes this work: Python runs
 * signal handlers only in the main thread, while the progress function may
 * be called from an OpenMP thread.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "mmnc.h"

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

static PyObject *MmncError; /* mmnc.MmncError: failures that are not bad input */

/* Raise the Python exception for a library status: bad input is a
 * ValueError, files an OSError, memory a MemoryError, a feature missing
 * from the build NotImplementedError; the rest MmncError. */
static PyObject *raise_status(int status, const mmnc_err *err)
{
    const char *msg = err && err->msg[0] ? err->msg : mmnc_strerror(status);
    PyObject *type = MmncError;
    switch (status) {
    case MMNC_EINVAL:
    case MMNC_EFORMAT: type = PyExc_ValueError; break;
    case MMNC_EIO: type = PyExc_OSError; break;
    case MMNC_ENOMEM: type = PyExc_MemoryError; break;
    case MMNC_EUNSUP: type = PyExc_NotImplementedError; break;
    case MMNC_ECANCELED: type = PyExc_KeyboardInterrupt; break;
    default: break;
    }
    PyErr_SetString(type, msg);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Buffers                                                                   */
/* ------------------------------------------------------------------------ */

/* A C-contiguous buffer of n items of the given struct format ('q' int64,
 * 'd' float64), writable if asked; n < 0 accepts any length. */
static int get_buffer(PyObject *o, Py_buffer *b, char fmt, Py_ssize_t n, int writable, const char *name)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    char f;
    if (PyObject_GetBuffer(o, b, flags) != 0) return -1;
    f = b->format ? b->format[0] : 'B';
    if (f == '<' || f == '=' || f == '@') f = b->format[1];
    if (fmt == 'q' && f == 'l' && b->itemsize == 8) f = 'q'; /* int64 is 'l' on LP64 */
    if (f != fmt || b->itemsize != 8 || (n >= 0 && b->len != n * 8)) {
        PyErr_Format(PyExc_ValueError, "%s: expected %s%zd %s values", name, n >= 0 ? "" : "any number of ",
                     n >= 0 ? n : (Py_ssize_t)0, fmt == 'q' ? "int64" : "float64");
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

/* A CSR matrix from three buffers (read in place), ncols columns. */
typedef struct csr_view {
    Py_buffer ptr, ind, val;
    int have;
    mmnc_csr A;
} csr_view;

static int csr_view_get(csr_view *v, PyObject *indptr, PyObject *indices, PyObject *data, Py_ssize_t ncols)
{
    memset(v, 0, sizeof *v);
    if (get_buffer(indptr, &v->ptr, 'q', -1, 0, "indptr") != 0) return -1;
    if (get_buffer(indices, &v->ind, 'q', -1, 0, "indices") != 0) {
        PyBuffer_Release(&v->ptr);
        return -1;
    }
    if (get_buffer(data, &v->val, 'd', v->ind.len / 8, 0, "data") != 0) {
        PyBuffer_Release(&v->ptr);
        PyBuffer_Release(&v->ind);
        return -1;
    }
    v->have = 1;
    v->A.nrows = v->ptr.len / 8 - 1;
    v->A.ncols = ncols;
    v->A.nnz = v->ind.len / 8;
    v->A.rowptr = v->ptr.buf;
    v->A.colind = v->ind.buf;
    v->A.val = v->val.buf;
    if (v->A.nrows < 0 || v->A.rowptr[v->A.nrows] != v->A.nnz) {
        PyErr_SetString(PyExc_ValueError, "indptr does not match indices");
        return -1;
    }
    return 0;
}

static void csr_view_release(csr_view *v)
{
    if (!v->have) return;
    PyBuffer_Release(&v->ptr);
    PyBuffer_Release(&v->ind);
    PyBuffer_Release(&v->val);
    v->have = 0;
}

/* ------------------------------------------------------------------------ */
/* Long calls: a worker thread, the caller waiting for it and for signals    */
/* ------------------------------------------------------------------------ */

enum { JOB_FIT, JOB_COOC, JOB_EMBED }; /* what a job's progress lines say */

typedef struct job {
    int (*fn)(struct job *);
    void *arg;
    int status;
    int done;
    atomic_int cancel; /* set by the waiting thread on a signal */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* verbose 1: the waiting thread writes the last progress call (p_*,
     * under mu) on sys.stderr about once a second, as the CLI's progress
     * line; 2: at every wake (each 50 ms) that finds a new one, and the
     * last one when the job ends */
    int verbose, kind, restarts;
    int p_new, p_restart, p_iter;
    double p_obj;
} job;

static void job_init(job *j, int (*fn)(job *), void *arg, int kind, int verbose)
{
    memset(j, 0, sizeof *j);
    j->fn = fn;
    j->arg = arg;
    j->kind = kind;
    j->verbose = verbose;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* With the GIL: the last progress call on sys.stderr, if there is a new one
 * and (verbose 1) a second has passed since the start and since the last
 * line. */
static void job_say(job *j, double t0, double *last)
{
    int fresh, r, it;
    double obj, now = now_s();
    if (j->verbose < 2 && (now - t0 < 1.0 || now - *last < 1.0)) return;
    pthread_mutex_lock(&j->mu);
    fresh = j->p_new, r = j->p_restart, it = j->p_iter, obj = j->p_obj;
    j->p_new = 0;
    pthread_mutex_unlock(&j->mu);
    if (!fresh) return;
    *last = now;
    if (j->kind == JOB_COOC)
        PySys_WriteStderr("[%6.1fs] mmnc.cooc: pass %d of 2, %.1f M tokens\n", now - t0, r, obj / 1e6);
    else if (j->kind == JOB_EMBED || r < 0)
        PySys_WriteStderr("[%6.1fs] mmnc: %s iteration %d, change of the singular values %.2g\n", now - t0,
                          j->kind == JOB_EMBED ? "embed," : "spectral embedding,", it, obj);
    else
        PySys_WriteStderr("[%6.1fs] mmnc: start %d/%d, iteration %d, objective %.6f\n", now - t0, r + 1,
                          j->restarts, it, obj);
}

static void *job_main(void *a)
{
    job *j = a;
    int s = j->fn(j);
    pthread_mutex_lock(&j->mu);
    j->status = s;
    j->done = 1;
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

/* Run j->fn without the GIL.  Returns 0, or -1 with a Python exception set
 * when a signal handler raised while waiting (j->cancel was then set and the
 * worker finished before returning). */
static int run_job(job *j)
{
    pthread_t t;
    pthread_attr_t attr;
    int interrupted = 0, started;
    double t0 = now_s(), last = t0;
    j->done = 0;
    j->status = MMNC_OK;
    atomic_store(&j->cancel, 0);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)16 << 20);
    started = pthread_create(&t, &attr, job_main, j) == 0;
    pthread_attr_destroy(&attr);
    if (!started) { /* no thread: run here, without interruption */
        Py_BEGIN_ALLOW_THREADS
        j->status = j->fn(j);
        Py_END_ALLOW_THREADS
    } else {
        for (;;) {
            int done;
            Py_BEGIN_ALLOW_THREADS
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 50000000L;
            if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
            pthread_mutex_lock(&j->mu);
            if (!j->done) pthread_cond_timedwait(&j->cv, &j->mu, &until);
            done = j->done;
            pthread_mutex_unlock(&j->mu);
            Py_END_ALLOW_THREADS
            if (done) break;
            if (j->verbose) job_say(j, t0, &last);
            if (!interrupted && PyErr_CheckSignals() != 0) {
                interrupted = 1;
                atomic_store(&j->cancel, 1);
            }
        }
        pthread_join(t, NULL);
        if (j->verbose >= 2 && !interrupted) job_say(j, t0, &last); /* the last call */
    }
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    return interrupted ? -1 : 0;
}

/* The progress functions (mmnc_params, mmnc_embed_opts, mmnc_cooc_opts):
 * keep the call for the verbose line; stop once the waiting thread saw a
 * signal. */
static int on_progress(void *ctx, int restart, int iter, double objective)
{
    job *j = ctx;
    if (j->verbose) {
        pthread_mutex_lock(&j->mu);
        j->p_new = 1, j->p_restart = restart, j->p_iter = iter, j->p_obj = objective;
        pthread_mutex_unlock(&j->mu);
    }
    return atomic_load(&j->cancel);
}

/* ------------------------------------------------------------------------ */
/* Column names                                                              */
/* ------------------------------------------------------------------------ */

/* names (None, or a sequence of n str) as the char ** of mmnc_data.col_names:
 * *out (NULL for None; PyMem_Free it) points into *keep (a list of UTF-8
 * bytes; Py_XDECREF it after the call that reads *out).  Returns 0, or -1
 * with an exception set.  The binding checks the names themselves (not
 * empty, no NUL, distinct) before; here only their number and type. */
static int names_get(PyObject *names, Py_ssize_t n, PyObject **keep, char ***out)
{
    PyObject *seq;
    *keep = NULL;
    *out = NULL;
    if (names == Py_None) return 0;
    if (!(seq = PySequence_Fast(names, "column names must be a sequence of str"))) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%zd column names for %zd columns", PySequence_Fast_GET_SIZE(seq), n);
        goto fail;
    }
    if (!(*keep = PyList_New(n)) || !(*out = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(char *)))) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, j), *b;
        if (!PyUnicode_Check(item)) {
            PyErr_Format(PyExc_TypeError, "column name %zd is a %s, not a str", j, Py_TYPE(item)->tp_name);
            goto fail;
        }
        if (!(b = PyUnicode_AsEncodedString(item, "utf-8", "surrogateescape"))) goto fail;
        PyList_SET_ITEM(*keep, j, b);
        (*out)[j] = PyBytes_AS_STRING(b);
    }
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    Py_CLEAR(*keep);
    PyMem_Free(*out);
    *out = NULL;
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Models (mmnc_model_*)                                                     */
/* ------------------------------------------------------------------------ */

#ifdef MMNC_PY_HAVE_MODEL
typedef struct {
    PyObject_HEAD
    mmnc_model *m;
    PyObject *options; /* bytes that replace m->options when set (Model.options = str), or NULL */
} ModelObject;

static PyTypeObject ModelType;

static PyObject *model_wrap(mmnc_model *m)
{
    ModelObject *o = PyObject_New(ModelObject, &ModelType);
    if (!o) {
        mmnc_model_free(m);
        return NULL;
    }
    o->m = m;
    o->options = NULL;
    return (PyObject *)o;
}

static void model_dealloc(ModelObject *o)
{
    mmnc_model_free(o->m);
    Py_XDECREF(o->options);
    PyObject_Free(o);
}

/* The model as written and described: o->m with the options that Python set, if it did (a
 * shallow copy, so that the library's model, and its allocator's strings, stay as they are). */
static mmnc_model model_view(const ModelObject *o)
{
    mmnc_model v = *o->m;
    if (o->options) v.options = PyBytes_AS_STRING(o->options);
    return v;
}

/* Model.options = str: the free text of the options section (the Python fit's parameters and
 * diagnostics), without NUL bytes. */
static int model_set_options(ModelObject *o, PyObject *value, void *what)
{
    PyObject *b;
    (void)what;
    if (!value || !PyUnicode_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "Model.options must be a str");
        return -1;
    }
    if (!(b = PyUnicode_AsUTF8String(value))) return -1;
    if (strlen(PyBytes_AS_STRING(b)) != (size_t)PyBytes_GET_SIZE(b)) {
        Py_DECREF(b);
        PyErr_SetString(PyExc_ValueError, "Model.options must not hold a NUL byte");
        return -1;
    }
    Py_XSETREF(o->options, b);
    return 0;
}

static PyObject *model_get(ModelObject *o, void *what)
{
    const char *w = what;
    if (!strcmp(w, "k")) return PyLong_FromLongLong(o->m->k);
    if (!strcmp(w, "ncols")) return PyLong_FromLongLong(o->m->ncols);
    if (!strcmp(w, "train_rows")) return PyLong_FromLongLong(o->m->train_rows);
    if (!strcmp(w, "algorithm")) return PyLong_FromLong(o->m->algorithm);
    if (!strcmp(w, "hard")) return PyBool_FromLong(o->m->hard);
    if (!strcmp(w, "objective")) return PyFloat_FromDouble(o->m->objective);
    if (!strcmp(w, "mutual_information")) return PyFloat_FromDouble(o->m->mutual_information);
    if (!strcmp(w, "version")) return PyUnicode_FromString(o->m->version ? o->m->version : "");
    if (!strcmp(w, "options")) {
        mmnc_model v = model_view(o);
        return PyUnicode_DecodeUTF8(v.options ? v.options : "", v.options ? (Py_ssize_t)strlen(v.options) : 0,
                                    "surrogateescape");
    }
    if (!strcmp(w, "refine")) return PyLong_FromLong(o->m->refine);
    if (!strcmp(w, "alpha")) return PyFloat_FromDouble(o->m->alpha);
    if (!strcmp(w, "train_mass")) return PyFloat_FromDouble(o->m->train_mass);
    if (!strcmp(w, "seed")) return PyLong_FromUnsignedLongLong((unsigned long long)o->m->seed);
    if (!strcmp(w, "pz")) return PyByteArray_FromStringAndSize((const char *)o->m->pz, (Py_ssize_t)(o->m->k * 8));
    if (!strcmp(w, "px")) return PyByteArray_FromStringAndSize((const char *)o->m->px, (Py_ssize_t)(o->m->ncols * 8));
    if (!strcmp(w, "pzx"))
        return PyByteArray_FromStringAndSize((const char *)o->m->pzx, (Py_ssize_t)(o->m->k * o->m->ncols * 8));
    if (!strcmp(w, "l")) return PyLong_FromLongLong(o->m->l);
    if (!strcmp(w, "nheld")) return PyLong_FromLongLong(o->m->nheld);
    if (!strcmp(w, "col_label"))
        return PyByteArray_FromStringAndSize((const char *)o->m->col_label,
                                             (Py_ssize_t)(o->m->l > 0 ? o->m->ncols * 8 : 0));
    if (!strcmp(w, "block_pz"))
        return PyByteArray_FromStringAndSize((const char *)o->m->block_pz, (Py_ssize_t)(o->m->k * o->m->l * 8));
    if (!strcmp(w, "col_ids")) {
        PyObject *list = PyList_New((Py_ssize_t)o->m->ncols);
        for (mmnc_int j = 0; list && j < o->m->ncols; j++) {
            const char *id = o->m->col_ids[j];
            PyObject *str = PyUnicode_DecodeUTF8(id, (Py_ssize_t)strlen(id), "surrogateescape");
            if (!str) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)j, str);
        }
        return list;
    }
    Py_RETURN_NONE;
}

static PyGetSetDef model_getset[] = {
    {"k", (getter)model_get, NULL, "clusters", "k"},
    {"ncols", (getter)model_get, NULL, "columns of the training data (after drops)", "ncols"},
    {"train_rows", (getter)model_get, NULL, "rows of the training data", "train_rows"},
    {"algorithm", (getter)model_get, NULL, "mmnc_algorithm of the run", "algorithm"},
    {"hard", (getter)model_get, NULL, "the training kernel was hard", "hard"},
    {"objective", (getter)model_get, NULL, "the run's objective", "objective"},
    {"mutual_information", (getter)model_get, NULL, "I(X;Z) of the training clustering", "mutual_information"},
    {"version", (getter)model_get, NULL, "mmnc version that made it", "version"},
    {"options", (getter)model_get, (setter)model_set_options, "options of the run (free text; settable)",
     "options"},
    {"refine", (getter)model_get, NULL, "mmnc_refine applied (REFINE_NONE for soft results)", "refine"},
    {"alpha", (getter)model_get, NULL, "the information rule's smoothing, in average training rows", "alpha"},
    {"train_mass", (getter)model_get, NULL, "the training matrix's sum before normalisation", "train_mass"},
    {"seed", (getter)model_get, NULL, "the run's seed", "seed"},
    {"pz", (getter)model_get, NULL, "P_Z as float64 bytes", "pz"},
    {"px", (getter)model_get, NULL, "P_X of the training columns as float64 bytes", "px"},
    {"pzx", (getter)model_get, NULL, "P_{Z,X} as k x ncols float64 bytes, row-major", "pzx"},
    {"col_ids", (getter)model_get, NULL, "the id of each column (a name, or its 1-based index as text)",
     "col_ids"},
    {"l", (getter)model_get, NULL, "column clusters of a co-clustering model (0: none)", "l"},
    {"col_label", (getter)model_get, NULL, "the cluster of each training column as int64 bytes (empty: none)",
     "col_label"},
    {"block_pz", (getter)model_get, NULL, "P(z, w) as k x l float64 bytes, row-major (empty: none)", "block_pz"},
    {"nheld", (getter)model_get, NULL, "rows held at a label in training that predict gives their label", "nheld"},
    {NULL, NULL, NULL, NULL, NULL}};

static PyObject *model_write(ModelObject *o, PyObject *args)
{
    const char *path;
    mmnc_err err = {0, ""};
    mmnc_model v = model_view(o);
    PyObject *keep = o->options; /* v.options points into it: kept while another thread may set options */
    int s;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    Py_XINCREF(keep);
    Py_BEGIN_ALLOW_THREADS
    s = mmnc_model_write(&v, path, &err);
    Py_END_ALLOW_THREADS
    Py_XDECREF(keep);
    if (s != MMNC_OK) return raise_status(s, &err);
    Py_RETURN_NONE;
}

/* predict(indptr, indices, data, ncols, labels_out, proba_out or None,
 * col_names=None): the rows of a CSR matrix whose columns are col_names, or
 * without them ids 1..ncols, matched to the model's by id
 * (mmnc_model_match); returns (unknown columns, empty rows). */
static PyObject *model_predict(ModelObject *o, PyObject *args)
{
    PyObject *indptr, *indices, *data, *lab_o, *proba_o, *names_o = Py_None, *keep = NULL;
    Py_ssize_t ncols;
    csr_view v;
    Py_buffer lab, proba;
    int have_proba = 0, s = MMNC_OK;
    mmnc_int *map = NULL, unknown = 0, empty = 0;
    mmnc_err err = {0, ""};
    mmnc_data d;
    char **names = NULL;
    if (!PyArg_ParseTuple(args, "OOOnOO|O", &indptr, &indices, &data, &ncols, &lab_o, &proba_o, &names_o))
        return NULL;
    if (names_get(names_o, ncols, &keep, &names) != 0) return NULL;
    if (csr_view_get(&v, indptr, indices, data, ncols) != 0) goto fail1;
    if (get_buffer(lab_o, &lab, 'q', v.A.nrows, 1, "labels") != 0) goto fail1;
    if (proba_o != Py_None) {
        if (get_buffer(proba_o, &proba, 'd', v.A.nrows * o->m->k, 1, "proba") != 0) goto fail2;
        have_proba = 1;
    }
    map = PyMem_RawMalloc((size_t)(ncols > 0 ? ncols : 1) * sizeof(mmnc_int));
    if (!map) {
        PyErr_NoMemory();
        goto fail3;
    }
    memset(&d, 0, sizeof d);
    d.A = &v.A;
    d.orig_rows = v.A.nrows;
    d.orig_cols = ncols;
    d.col_names = names;
    Py_BEGIN_ALLOW_THREADS
    s = mmnc_csr_check(&v.A, &err);
    if (s == MMNC_OK) s = mmnc_model_match(o->m, &d, map, &unknown, &err);
    if (s == MMNC_OK)
        s = mmnc_model_predict(o->m, &v.A, map, lab.buf, have_proba ? proba.buf : NULL, &empty, &err);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(map);
    if (have_proba) PyBuffer_Release(&proba);
    PyBuffer_Release(&lab);
    csr_view_release(&v);
    PyMem_Free(names);
    Py_XDECREF(keep);
    if (s != MMNC_OK) return raise_status(s, &err);
    return Py_BuildValue("LL", (long long)unknown, (long long)empty);
fail3:
    if (have_proba) PyBuffer_Release(&proba);
fail2:
    PyBuffer_Release(&lab);
fail1:
    csr_view_release(&v);
fail0:
    PyMem_Free(names);
    Py_XDECREF(keep);
    return NULL;
}

/* loglik(indptr, indices, data, loglik_out, mass_out): the rows of a CSR
 * matrix on the model's own columns (ncols of them), their log-likelihood
 * and mass under the model's mixture (mmnc_model_loglik). */
static PyObject *model_loglik(ModelObject *o, PyObject *args)
{
    PyObject *indptr, *indices, *data, *ll_o, *mass_o;
    csr_view v;
    Py_buffer ll, mass;
    int s;
    mmnc_err err = {0, ""};
    if (!PyArg_ParseTuple(args, "OOOOO", &indptr, &indices, &data, &ll_o, &mass_o)) return NULL;
    if (csr_view_get(&v, indptr, indices, data, o->m->ncols) != 0) {
        csr_view_release(&v);
        return NULL;
    }
    if (get_buffer(ll_o, &ll, 'd', v.A.nrows, 1, "loglik") != 0) {
        csr_view_release(&v);
        return NULL;
    }
    if (get_buffer(mass_o, &mass, 'd', v.A.nrows, 1, "mass") != 0) {
        PyBuffer_Release(&ll);
        csr_view_release(&v);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    s = mmnc_model_loglik(o->m, &v.A, NULL, ll.buf, mass.buf, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&mass);
    PyBuffer_Release(&ll);
    csr_view_release(&v);
    if (s != MMNC_OK) return raise_status(s, &err);
    Py_RETURN_NONE;
}

/* match(ncols, map_out, col_names=None): map_out[j] = the model's column
 * whose id is that of column j of data with ncols columns (col_names, or
 * without them ids 1..ncols), or -1 (mmnc_model_match); returns the number
 * of columns the model does not know. */
static PyObject *model_match(ModelObject *o, PyObject *args)
{
    PyObject *map_o, *names_o = Py_None, *keep = NULL;
    Py_ssize_t ncols;
    Py_buffer map;
    mmnc_int unknown = 0, rowptr0 = 0;
    mmnc_csr A;
    mmnc_data d;
    mmnc_err err = {0, ""};
    char **names = NULL;
    int s;
    if (!PyArg_ParseTuple(args, "nO|O", &ncols, &map_o, &names_o)) return NULL;
    if (ncols < 0) {
        PyErr_SetString(PyExc_ValueError, "ncols < 0");
        return NULL;
    }
    if (names_get(names_o, ncols, &keep, &names) != 0) return NULL;
    if (get_buffer(map_o, &map, 'q', ncols, 1, "map") != 0) {
        PyMem_Free(names);
        Py_XDECREF(keep);
        return NULL;
    }
    /* mmnc_model_match reads the ids of the columns only: a matrix without rows stands for the data */
    memset(&A, 0, sizeof A);
    A.ncols = ncols;
    A.rowptr = &rowptr0;
    memset(&d, 0, sizeof d);
    d.A = &A;
    d.orig_cols = ncols;
    d.col_names = names;
    Py_BEGIN_ALLOW_THREADS
    s = mmnc_model_match(o->m, &d, map.buf, &unknown, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&map);
    PyMem_Free(names);
    Py_XDECREF(keep);
    if (s != MMNC_OK) return raise_status(s, &err);
    return PyLong_FromLongLong((long long)unknown);
}

static PyMethodDef model_methods[] = {
    {"write", (PyCFunction)model_write, METH_VARARGS, "write(path): the model file (mmnc_model_write)"},
    {"match", (PyCFunction)model_match, METH_VARARGS,
     "match(ncols, map, col_names=None) -> unknown columns: mmnc_model_match into the int64 buffer map"},
    {"predict", (PyCFunction)model_predict, METH_VARARGS,
     "predict(indptr, indices, data, ncols, labels, proba, col_names=None): mmnc_model_predict"},
    {"loglik", (PyCFunction)model_loglik, METH_VARARGS,
     "loglik(indptr, indices, data, loglik, mass): mmnc_model_loglik on the model's columns"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mmnc._mmnc.Model",
    .tp_basicsize = sizeof(ModelObject),
    .tp_dealloc = (destructor)model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A learned clustering (mmnc_model): predicts new rows, written as the model file.",
    .tp_methods = model_methods,
    .tp_getset = model_getset,
};

static PyObject *py_model_read(PyObject *self, PyObject *args)
{
    const char *path;
    mmnc_model *m = NULL;
    mmnc_err err = {0, ""};
    int s;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = mmnc_model_read(path, &m, &err);
    Py_END_ALLOW_THREADS
    if (s != MMNC_OK) return raise_status(s, &err);
    return model_wrap(m);
}
#endif /* MMNC_PY_HAVE_MODEL */

/* ------------------------------------------------------------------------ */
/* cluster                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct cluster_job {
    const mmnc_csr *A;
    mmnc_params prm;
    mmnc_pmf *p;
    mmnc_result *r;
    mmnc_err err;
} cluster_job;

static int cluster_run(job *j)
{
    cluster_job *c = j->arg;
    int s = mmnc_csr_check(c->A, &c->err);
    if (s == MMNC_OK) s = mmnc_pmf_build(c->A, &c->p, &c->err);
    c->prm.progress = on_progress;
    c->prm.progress_ctx = j;
    if (s == MMNC_OK) s = mmnc_cluster(c->p, &c->prm, &c->r, &c->err);
    return s;
}

#define SET_ITEM(dict, key, value)                                                         \
    do {                                                                                   \
        PyObject *v_ = (value);                                                            \
        if (!v_ || PyDict_SetItemString((dict), (key), v_) != 0) {                         \
            Py_XDECREF(v_);                                                                \
            goto done;                                                                     \
        }                                                                                  \
        Py_DECREF(v_);                                                                     \
    } while (0)

static PyObject *bytes_of(const void *p, Py_ssize_t n)
{
    return PyByteArray_FromStringAndSize(p ? (const char *)p : "", p ? n : 0);
}

/* cluster(indptr, indices, data, ncols, *, k, algorithm, seed, restarts,
 * init, select, select_tol, max_iter, refine, tol, pz, lambda_, step,
 * exact_marginal, threads, col_orig, orig_cols, model, options, size_prior, move_tol, merge_split,
 * agreement, verbose, col_names, col_clusters, fixed, moves, dmm_beta) -> dict:
 * the rows of
 * a nonnegative CSR matrix without empty rows or columns clustered by
 * mmnc_cluster.  col_orig (int64, ncols) are the original column indices
 * that the model names its columns by, unless col_names (ncols str) name
 * them.  fixed (int64, nrows; -1 free) is mmnc_params.fixed_label. */
static PyObject *py_cluster(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"indptr", "indices", "data", "ncols", "k", "seed", "algorithm", "restarts", "init",
                             "select", "select_tol", "max_iter", "refine", "tol", "pz", "lambda_", "step",
                             "exact_marginal", "threads", "col_orig", "orig_cols", "model", "options", "size_prior",
                             "move_tol", "merge_split", "agreement", "verbose", "col_names", "col_clusters", "fixed",
                             "moves", "dmm_beta", NULL};
    PyObject *indptr, *indices, *data, *pz_o = Py_None, *corig_o = Py_None, *out = NULL;
    PyObject *names_o = Py_None, *keep = NULL, *fixed_o = Py_None;
    char **names = NULL;
    Py_ssize_t ncols, k, orig_cols = 0, col_clusters;
    const char *options = NULL;
    unsigned long long seed;
    int algorithm, restarts, init, select, max_iter, refine, exact_marginal, threads, want_model = 0, s;
    int merge_split, agreement, verbose = 0, moves;
    double select_tol, tol, lambda, step, size_prior, move_tol, dmm_beta;
    csr_view v;
    Py_buffer pzb, corig, fixedb;
    int have_pz = 0, have_corig = 0, have_fixed = 0;
    cluster_job c;
    job j;
    memset(&c, 0, sizeof c);
    mmnc_params_default(&c.prm); /* the keywords not given */
    k = c.prm.k, seed = c.prm.seed, algorithm = c.prm.algorithm, restarts = c.prm.restarts, init = c.prm.init;
    select = c.prm.select, max_iter = c.prm.max_iter, refine = c.prm.refine, exact_marginal = c.prm.exact_marginal;
    threads = c.prm.threads, merge_split = c.prm.merge_split, agreement = c.prm.agreement, moves = c.prm.moves;
    select_tol = c.prm.select_tol, tol = c.prm.tol, lambda = c.prm.lambda, step = c.prm.step;
    size_prior = c.prm.size_prior, move_tol = c.prm.move_tol, col_clusters = (Py_ssize_t)c.prm.col_clusters;
    dmm_beta = c.prm.dmm_beta;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOn|$nKiiiidiidOddiiOnpzddipiOnOid", kwlist, &indptr, &indices, &data,
                                     &ncols, &k, &seed, &algorithm, &restarts, &init, &select, &select_tol,
                                     &max_iter, &refine, &tol, &pz_o, &lambda, &step, &exact_marginal, &threads,
                                     &corig_o, &orig_cols, &want_model, &options, &size_prior,
                                     &move_tol, &merge_split, &agreement, &verbose, &names_o, &col_clusters, &fixed_o,
                                     &moves, &dmm_beta))
        return NULL;
    if (names_get(names_o, ncols, &keep, &names) != 0) return NULL;
    if (csr_view_get(&v, indptr, indices, data, ncols) != 0) {
        csr_view_release(&v);
        PyMem_Free(names);
        Py_XDECREF(keep);
        return NULL;
    }
    if (pz_o != Py_None) {
        if (get_buffer(pz_o, &pzb, 'd', k, 0, "pz") != 0) goto done;
        have_pz = 1;
    }
    if (corig_o != Py_None) {
        if (get_buffer(corig_o, &corig, 'q', ncols, 0, "col_orig") != 0) goto done;
        have_corig = 1;
    }
    if (fixed_o != Py_None) {
        if (get_buffer(fixed_o, &fixedb, 'q', v.A.nrows, 0, "fixed") != 0) goto done;
        have_fixed = 1;
    }
    c.prm.k = k;
    c.prm.algorithm = algorithm;
    c.prm.seed = seed;
    c.prm.restarts = restarts;
    c.prm.init = init;
    c.prm.select = select;
    c.prm.select_tol = select_tol;
    c.prm.size_prior = size_prior;
    c.prm.move_tol = move_tol;
    c.prm.merge_split = merge_split;
    c.prm.agreement = agreement;
    c.prm.max_iter = max_iter;
    c.prm.refine = refine;
    c.prm.tol = tol;
    c.prm.pz = have_pz ? pzb.buf : NULL;
    c.prm.lambda = lambda;
    c.prm.step = step;
    c.prm.exact_marginal = exact_marginal;
    c.prm.threads = threads;
    c.prm.col_clusters = col_clusters;
    c.prm.moves = moves;
    c.prm.dmm_beta = dmm_beta;
    c.prm.fixed_label = have_fixed ? fixedb.buf : NULL;
    c.A = &v.A;
    job_init(&j, cluster_run, &c, JOB_FIT, verbose);
    j.restarts = restarts;
    if (run_job(&j) != 0) goto done; /* interrupted: the signal's exception */
    if ((s = j.status) != MMNC_OK) {
        raise_status(s, &c.err);
        goto done;
    }
    {
        mmnc_result *r = c.r;
        mmnc_int kk = r->k, ny = r->ny;
        PyObject *d = PyDict_New();
        if (!d) goto done;
        out = d;
        SET_ITEM(d, "label", bytes_of(r->label, (Py_ssize_t)(ny * 8)));
        SET_ITEM(d, "W", bytes_of(r->W, (Py_ssize_t)(ny * kk * 8)));
        SET_ITEM(d, "pz", bytes_of(r->stats.pz, (Py_ssize_t)(kk * 8)));
        SET_ITEM(d, "sigma", bytes_of(r->stats.sigma, (Py_ssize_t)(kk * 8)));
        SET_ITEM(d, "restart_objective", bytes_of(r->restart_objective, (Py_ssize_t)r->restarts * 8));
        SET_ITEM(d, "restart_converged", bytes_of(r->restart_converged,
                                                  r->restart_converged ? (Py_ssize_t)r->restarts * sizeof(int) : 0));
        SET_ITEM(d, "restart_score",
                 bytes_of(r->restart_score, r->restart_score ? (Py_ssize_t)r->restarts * 8 : 0));
        SET_ITEM(d, "frobenius_norm", PyFloat_FromDouble(r->stats.frob));
        SET_ITEM(d, "nuclear_norm", PyFloat_FromDouble(r->stats.nuclear));
        SET_ITEM(d, "mutual_information", PyFloat_FromDouble(r->stats.mi));
        SET_ITEM(d, "mutual_information_local", PyFloat_FromDouble(r->stats.mi_local));
        SET_ITEM(d, "objective", PyFloat_FromDouble(r->objective));
        SET_ITEM(d, "iterations", PyLong_FromLong(r->iterations));
        SET_ITEM(d, "converged", PyBool_FromLong(r->converged));
        SET_ITEM(d, "size_prior_kept", PyLong_FromLong(r->size_prior_kept));
        SET_ITEM(d, "dmm_alpha", PyFloat_FromDouble(r->dmm_alpha));
        SET_ITEM(d, "dmm_beta", PyFloat_FromDouble(r->dmm_beta));
        SET_ITEM(d, "size_prior_refused", PyLong_FromLong(r->size_prior_refused));
        SET_ITEM(d, "agreement_prior", PyFloat_FromDouble(r->agreement_prior));
        SET_ITEM(d, "agreement_free", PyFloat_FromDouble(r->agreement_free));
        SET_ITEM(d, "agreement", PyFloat_FromDouble(r->agreement));
        SET_ITEM(d, "semi_kept", PyLong_FromLong(r->semi_kept));
        SET_ITEM(d, "semi_score_moves", PyFloat_FromDouble(r->semi_score_moves));
        SET_ITEM(d, "semi_score_seeded", PyFloat_FromDouble(r->semi_score_seeded));
        SET_ITEM(d, "semi_scores", Py_BuildValue("(ddd)", r->semi_scores[0], r->semi_scores[1], r->semi_scores[2]));
        SET_ITEM(d, "best_restart", PyLong_FromLong(r->best_restart));
        SET_ITEM(d, "objective_restart", PyLong_FromLong(r->objective_restart));
        SET_ITEM(d, "seconds", PyFloat_FromDouble(r->seconds));
        SET_ITEM(d, "l", PyLong_FromLongLong((long long)r->l));
        SET_ITEM(d, "col_label", bytes_of(r->col_label, (Py_ssize_t)(r->l > 0 ? r->nx * 8 : 0)));
        SET_ITEM(d, "block_pz", bytes_of(r->block_pz, (Py_ssize_t)(r->l > 0 ? kk * r->l * 8 : 0)));
#ifdef MMNC_PY_HAVE_MODEL
        if (want_model) {
            mmnc_model *m = NULL;
            mmnc_data dd;
            memset(&dd, 0, sizeof dd);
            dd.A = &v.A;
            dd.col_orig = have_corig ? corig.buf : NULL;
            dd.col_names = names;
            dd.orig_rows = v.A.nrows;
            dd.orig_cols = orig_cols > 0 ? orig_cols : ncols;
            Py_BEGIN_ALLOW_THREADS
            s = mmnc_model_from_result(c.p, &dd, r, &c.prm, 0, options, &m, &c.err);
            Py_END_ALLOW_THREADS
            if (s != MMNC_OK) {
                raise_status(s, &c.err);
                Py_CLEAR(out);
                goto done;
            }
            SET_ITEM(d, "model", model_wrap(m));
        }
#else
        (void)want_model, (void)orig_cols, (void)options;
#endif
    }
done:
    if (PyErr_Occurred()) Py_CLEAR(out);
    mmnc_result_free(c.r);
    mmnc_pmf_free(c.p);
    if (have_pz) PyBuffer_Release(&pzb);
    if (have_corig) PyBuffer_Release(&corig);
    if (have_fixed) PyBuffer_Release(&fixedb);
    csr_view_release(&v);
    PyMem_Free(names);
    Py_XDECREF(keep);
    return out;
}

/* ------------------------------------------------------------------------ */
/* cooc, embed, evaluate                                                     */
/* ------------------------------------------------------------------------ */

typedef struct cooc_job {
    const char **paths;
    int npaths;
    mmnc_cooc_opts o;
    mmnc_csr *A;
    char **vocab;
    mmnc_int nvocab, ntokens;
    mmnc_err err;
} cooc_job;

static int cooc_run(job *j)
{
    cooc_job *c = j->arg;
    c->o.progress = on_progress; /* Ctrl-C stops the counting (see run_job) */
    c->o.progress_ctx = j;
    return mmnc_cooc_build(c->paths, c->npaths, &c->o, &c->A, &c->vocab, &c->nvocab, &c->ntokens, &c->err);
}

/* cooc(paths, *, window, weighting, min_count, max_vocab, sentences,
 * threads, max_memory, verbose) -> (nrows, ncols, indptr, indices, data, vocab,
 * ntokens), the arrays as bytearrays of int64 / float64. */
static PyObject *py_cooc(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"paths", "window", "weighting", "min_count", "max_vocab", "sentences", "threads",
                             "max_memory", "verbose", NULL};
    PyObject *paths_o, *seq = NULL, *out = NULL, *vocab = NULL, **bytes = NULL;
    Py_ssize_t n, min_count, max_vocab, max_memory;
    int window, weighting, sentences, threads, verbose = 0;
    cooc_job c;
    job j;
    memset(&c, 0, sizeof c);
    mmnc_cooc_opts_default(&c.o); /* the keywords not given */
    min_count = c.o.min_count, max_vocab = c.o.max_vocab, max_memory = (Py_ssize_t)c.o.max_memory;
    window = c.o.window, weighting = c.o.weighting, sentences = c.o.sentences, threads = c.o.threads;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$iinnpini", kwlist, &paths_o, &window, &weighting, &min_count,
                                     &max_vocab, &sentences, &threads, &max_memory, &verbose))
        return NULL;
    if (max_memory < 0) {
        PyErr_SetString(PyExc_ValueError, "max_memory must be 0 (no limit) or a number of bytes");
        return NULL;
    }
    if (!(seq = PySequence_Fast(paths_o, "paths: expected a sequence of file names"))) return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 1000000) {
        PyErr_SetString(PyExc_ValueError, "paths: expected at least one file");
        goto done;
    }
    c.paths = PyMem_Calloc((size_t)n, sizeof(char *));
    bytes = PyMem_Calloc((size_t)n, sizeof(PyObject *));
    if (!c.paths || !bytes) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &bytes[i])) goto done;
        c.paths[i] = PyBytes_AS_STRING(bytes[i]);
    }
    c.npaths = (int)n;
    c.o.window = window;
    c.o.weighting = weighting;
    c.o.min_count = min_count;
    c.o.max_vocab = max_vocab;
    c.o.sentences = sentences;
    c.o.threads = threads;
    c.o.max_memory = (size_t)max_memory;
    job_init(&j, cooc_run, &c, JOB_COOC, verbose);
    if (run_job(&j) != 0) goto done;
    if (j.status != MMNC_OK) {
        raise_status(j.status, &c.err);
        goto done;
    }
    if (!(vocab = PyList_New((Py_ssize_t)c.nvocab))) goto done;
    for (mmnc_int i = 0; i < c.nvocab; i++) {
        PyObject *w = PyUnicode_DecodeUTF8(c.vocab[i], (Py_ssize_t)strlen(c.vocab[i]), "surrogateescape");
        if (!w) goto done;
        PyList_SET_ITEM(vocab, (Py_ssize_t)i, w);
    }
    out = Py_BuildValue("LLNNNOL", (long long)c.A->nrows, (long long)c.A->ncols,
                        bytes_of(c.A->rowptr, (Py_ssize_t)(c.A->nrows + 1) * 8),
                        bytes_of(c.A->colind, (Py_ssize_t)c.A->nnz * 8), bytes_of(c.A->val, (Py_ssize_t)c.A->nnz * 8),
                        vocab, (long long)c.ntokens);
done:
    if (bytes)
        for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(bytes[i]);
    PyMem_Free(bytes);
    PyMem_Free((void *)c.paths);
    Py_XDECREF(vocab);
    Py_XDECREF(seq);
    mmnc_csr_free(c.A);
    if (c.vocab) mmnc_names_free(c.nvocab, c.vocab);
    return out;
}

typedef struct embed_job {
    const mmnc_csr *A;
    mmnc_embed_opts o;
    double *sigma, *E;
    int iters;
    mmnc_err err;
} embed_job;

static int embed_run(job *j)
{
    embed_job *c = j->arg;
    mmnc_pmf *p = NULL;
    int s = mmnc_csr_check(c->A, &c->err);
    if (s == MMNC_OK) s = mmnc_pmf_build(c->A, &p, &c->err);
    c->o.progress = on_progress; /* Ctrl-C stops the iteration (see run_job) */
    c->o.progress_ctx = j;
    if (s == MMNC_OK) s = mmnc_embed(p, &c->o, c->sigma, c->E, &c->iters, &c->err);
    mmnc_pmf_free(p);
    return s;
}

/* embed(indptr, indices, data, ncols, E, sigma, *, dim, keep_trivial,
 * sigma_power, oversample, tol, maxit, seed, threads, verbose) -> (converged,
 * iterations, message); E (nrows x dim) and sigma (dim) are filled. */
static PyObject *py_embed(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"indptr", "indices", "data", "ncols", "E", "sigma", "dim", "keep_trivial",
                             "sigma_power", "oversample", "tol", "maxit", "seed", "threads", "verbose", NULL};
    PyObject *indptr, *indices, *data, *E_o, *sig_o, *out = NULL;
    Py_ssize_t ncols, dim, oversample;
    int keep_trivial, maxit, threads, verbose = 0;
    double sigma_power, tol;
    unsigned long long seed;
    csr_view v;
    Py_buffer Eb, sb;
    int haveE = 0, haves = 0;
    embed_job c;
    job j;
    memset(&c, 0, sizeof c);
    mmnc_embed_opts_default(&c.o); /* the keywords not given */
    dim = c.o.dim, oversample = c.o.oversample, keep_trivial = c.o.keep_trivial, maxit = c.o.maxit;
    threads = c.o.threads, sigma_power = c.o.sigma_power, tol = c.o.tol, seed = c.o.seed;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOnOO|$npdndiKii", kwlist, &indptr, &indices, &data, &ncols, &E_o,
                                     &sig_o, &dim, &keep_trivial, &sigma_power, &oversample, &tol, &maxit, &seed,
                                     &threads, &verbose))
        return NULL;
    if (csr_view_get(&v, indptr, indices, data, ncols) != 0) goto done;
    if (get_buffer(E_o, &Eb, 'd', v.A.nrows * dim, 1, "E") != 0) goto done;
    haveE = 1;
    if (get_buffer(sig_o, &sb, 'd', dim, 1, "sigma") != 0) goto done;
    haves = 1;
    c.o.dim = dim;
    c.o.keep_trivial = keep_trivial;
    c.o.sigma_power = sigma_power;
    c.o.oversample = oversample;
    c.o.tol = tol;
    c.o.maxit = maxit;
    c.o.seed = seed;
    c.o.threads = threads;
    c.A = &v.A;
    c.E = Eb.buf;
    c.sigma = sb.buf;
    job_init(&j, embed_run, &c, JOB_EMBED, verbose);
    if (run_job(&j) != 0) goto done;
    if (j.status != MMNC_OK && j.status != MMNC_ENOCONV) {
        raise_status(j.status, &c.err);
        goto done;
    }
    out = Py_BuildValue("Nis", PyBool_FromLong(j.status == MMNC_OK), c.iters, c.err.msg);
done:
    if (haveE) PyBuffer_Release(&Eb);
    if (haves) PyBuffer_Release(&sb);
    csr_view_release(&v);
    return out;
}

/* evaluate(pred, truth) -> dict of mmnc_scores (int64 buffers, labels >= 0). */
static PyObject *py_evaluate(PyObject *self, PyObject *args)
{
    PyObject *pred_o, *truth_o, *out = NULL, *d = NULL;
    Py_buffer pb, tb;
    mmnc_scores sc;
    mmnc_err err = {0, ""};
    int s;
    if (!PyArg_ParseTuple(args, "OO", &pred_o, &truth_o)) return NULL;
    if (get_buffer(pred_o, &pb, 'q', -1, 0, "labels") != 0) return NULL;
    if (get_buffer(truth_o, &tb, 'q', pb.len / 8, 0, "truth") != 0) {
        PyBuffer_Release(&pb);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    s = mmnc_evaluate((mmnc_int)(pb.len / 8), pb.buf, tb.buf, &sc, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&pb);
    PyBuffer_Release(&tb);
    if (s != MMNC_OK) return raise_status(s, &err);
    if (!(d = PyDict_New())) return NULL;
    SET_ITEM(d, "acc", PyFloat_FromDouble(sc.acc));
    SET_ITEM(d, "nmi", PyFloat_FromDouble(sc.nmi));
    SET_ITEM(d, "ari", PyFloat_FromDouble(sc.ari));
    SET_ITEM(d, "purity", PyFloat_FromDouble(sc.purity));
    SET_ITEM(d, "coverage", PyFloat_FromDouble(sc.coverage));
    SET_ITEM(d, "overall", PyFloat_FromDouble(sc.overall));
    SET_ITEM(d, "kacc", PyFloat_FromDouble(sc.kacc));
    SET_ITEM(d, "n", PyLong_FromLongLong(sc.n));
    SET_ITEM(d, "nclusters", PyLong_FromLongLong(sc.nclusters));
    SET_ITEM(d, "nclasses", PyLong_FromLongLong(sc.nclasses));
    out = d;
    d = NULL;
done:
    Py_XDECREF(d);
    return out;
}

/* ------------------------------------------------------------------------ */
/* Defaults                                                                  */
/* ------------------------------------------------------------------------ */

/* key -> value into d; steals value; -1 on failure (value may be NULL: an error set) */
static int put(PyObject *d, const char *key, PyObject *value)
{
    int rc = value ? PyDict_SetItemString(d, key, value) : -1;
    Py_XDECREF(value);
    return rc;
}

#define PUT_INT(d, s, f) put((d), #f, PyLong_FromLongLong((long long)(s).f))
#define PUT_FLOAT(d, s, f) put((d), #f, PyFloat_FromDouble((s).f))

/* defaults() -> dict: the library's defaults, from which mmnc/__init__.py
 * takes the defaults of its signatures: "params", "read_opts",
 * "embed_opts", "cooc_opts", "docs_opts" (what mmnc_params_default and the
 * *_opts_default functions fill in), "max_iter" (the caps that max_iter = 0
 * selects, by algorithm), "lambda" (Algorithm 1's where lambda <= 0) and
 * cooc's bounds "cooc_window_max", "cooc_memory_min", from mmnc.h's table. */
static PyObject *py_defaults(PyObject *self, PyObject *unused)
{
    mmnc_params p;
    mmnc_read_opts ro;
    mmnc_embed_opts eo;
    mmnc_cooc_opts co;
    mmnc_docs_opts dc;
    PyObject *d = PyDict_New(), *prm = PyDict_New(), *rd = PyDict_New(), *em = PyDict_New(),
             *cc = PyDict_New(), *dd = PyDict_New(), *mi = PyDict_New();
    int bad = !d || !prm || !rd || !em || !cc || !dd || !mi;
    mmnc_params_default(&p);
    mmnc_read_opts_default(&ro);
    mmnc_embed_opts_default(&eo);
    mmnc_cooc_opts_default(&co);
    mmnc_docs_opts_default(&dc);
    if (!bad)
        bad = PUT_INT(prm, p, algorithm) || PUT_INT(prm, p, k) || PUT_INT(prm, p, seed) ||
              PUT_INT(prm, p, restarts) || PUT_INT(prm, p, init) || PUT_INT(prm, p, select) ||
              PUT_FLOAT(prm, p, select_tol) || PUT_INT(prm, p, max_iter) || PUT_INT(prm, p, refine) ||
              PUT_FLOAT(prm, p, size_prior) || PUT_FLOAT(prm, p, tol) || PUT_FLOAT(prm, p, move_tol) ||
              PUT_FLOAT(prm, p, lambda) || PUT_FLOAT(prm, p, step) || PUT_INT(prm, p, exact_marginal) ||
              PUT_INT(prm, p, threads) || PUT_INT(prm, p, merge_split) || PUT_INT(prm, p, agreement) ||
              PUT_INT(prm, p, moves) ||
              PUT_INT(prm, p, col_clusters) || PUT_FLOAT(prm, p, dmm_beta) ||
              PUT_INT(rd, ro, format) || PUT_INT(rd, ro, row_field) || PUT_INT(rd, ro, col_field) ||
              PUT_INT(rd, ro, value_field) || PUT_INT(rd, ro, delim) ||
              put(rd, "mat_var", PyUnicode_FromString(ro.mat_var ? ro.mat_var : "")) ||
              PUT_INT(rd, ro, libsvm_zero_based) || PUT_INT(rd, ro, bin_no_verify) ||
              PUT_INT(rd, ro, extra_fields) || PUT_INT(rd, ro, header) || PUT_INT(rd, ro, dense_header) ||
              PUT_INT(rd, ro, dense_row_names) ||
              PUT_INT(em, eo, dim) || PUT_INT(em, eo, keep_trivial) || PUT_FLOAT(em, eo, sigma_power) ||
              PUT_INT(em, eo, oversample) || PUT_FLOAT(em, eo, tol) || PUT_INT(em, eo, maxit) ||
              PUT_INT(em, eo, seed) || PUT_INT(em, eo, threads) ||
              PUT_INT(cc, co, window) || PUT_INT(cc, co, weighting) || PUT_INT(cc, co, min_count) ||
              PUT_INT(cc, co, max_vocab) || PUT_INT(cc, co, sentences) || PUT_INT(cc, co, threads) ||
              PUT_INT(cc, co, max_memory) ||
              PUT_INT(dd, dc, lines) || PUT_FLOAT(dd, dc, min_df) || PUT_FLOAT(dd, dc, max_df) ||
              PUT_INT(dd, dc, min_count) || PUT_INT(dd, dc, max_vocab) || PUT_INT(dd, dc, drop_empty) ||
              put(mi, "nuclear", PyLong_FromLong(MMNC_DEFAULT_MAX_ITER_NUCLEAR)) ||
              put(mi, "information", PyLong_FromLong(MMNC_DEFAULT_MAX_ITER_INFORMATION)) ||
              put(mi, "frobenius", PyLong_FromLong(MMNC_DEFAULT_MAX_ITER_FROBENIUS)) ||
              put(mi, "exact", PyLong_FromLong(MMNC_DEFAULT_MAX_ITER_EXACT)) ||
              put(d, "lambda", PyFloat_FromDouble(MMNC_DEFAULT_LAMBDA)) ||
              put(d, "cooc_window_max", PyLong_FromLong(MMNC_COOC_WINDOW_MAX)) ||
              put(d, "cooc_memory_min", PyLong_FromLong(MMNC_COOC_MEMORY_MIN)) ||
              PyDict_SetItemString(d, "params", prm) || PyDict_SetItemString(d, "read_opts", rd) ||
              PyDict_SetItemString(d, "embed_opts", em) || PyDict_SetItemString(d, "cooc_opts", cc) ||
              PyDict_SetItemString(d, "docs_opts", dd) || PyDict_SetItemString(d, "max_iter", mi);
    Py_XDECREF(prm);
    Py_XDECREF(rd);
    Py_XDECREF(em);
    Py_XDECREF(cc);
    Py_XDECREF(dd);
    Py_XDECREF(mi);
    if (bad) {
        Py_XDECREF(d);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    return d;
}

/* ------------------------------------------------------------------------ */
/* Module                                                                    */
/* ------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"cluster", (PyCFunction)(void (*)(void))py_cluster, METH_VARARGS | METH_KEYWORDS, "mmnc_cluster on a CSR matrix"},
    {"cooc", (PyCFunction)(void (*)(void))py_cooc, METH_VARARGS | METH_KEYWORDS, "mmnc_cooc_build"},
    {"embed", (PyCFunction)(void (*)(void))py_embed, METH_VARARGS | METH_KEYWORDS, "mmnc_embed on a CSR matrix"},
    {"evaluate", py_evaluate, METH_VARARGS, "mmnc_evaluate"},
    {"defaults", py_defaults, METH_NOARGS, "the library's defaults (mmnc.h, \"Defaults\")"},
#ifdef MMNC_PY_HAVE_MODEL
    {"model_read", py_model_read, METH_VARARGS, "mmnc_model_read(path) -> Model"},
#endif
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_mmnc",
                                       "libmmnc through its public header (see mmnc/__init__.py)", -1, methods,
                                       NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__mmnc(void)
{
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    MmncError = PyErr_NewExceptionWithDoc("mmnc.MmncError", "A libmmnc failure that is not bad input.",
                                          PyExc_RuntimeError, NULL);
    if (!MmncError || PyModule_AddObjectRef(m, "MmncError", MmncError) < 0) goto fail;
    if (PyModule_AddStringConstant(m, "version", MMNC_VERSION_STRING) < 0) goto fail;
    if (PyModule_AddIntConstant(m, "ALG_FROBENIUS", MMNC_ALG_FROBENIUS) < 0 ||
        PyModule_AddIntConstant(m, "ALG_NUCLEAR", MMNC_ALG_NUCLEAR) < 0 ||
        PyModule_AddIntConstant(m, "ALG_INFORMATION", MMNC_ALG_INFORMATION) < 0 ||
        PyModule_AddIntConstant(m, "ALG_DMM", MMNC_ALG_DMM) < 0 ||
        PyModule_AddIntConstant(m, "ALG_AUTO", MMNC_ALG_AUTO) < 0 ||
        PyModule_AddIntConstant(m, "INIT_RANDOM", MMNC_INIT_RANDOM) < 0 ||
        PyModule_AddIntConstant(m, "INIT_KMEANSPP", MMNC_INIT_KMEANSPP) < 0 ||
        PyModule_AddIntConstant(m, "INIT_SPECTRAL", MMNC_INIT_SPECTRAL) < 0 ||
        PyModule_AddIntConstant(m, "SELECT_OBJECTIVE", MMNC_SELECT_OBJECTIVE) < 0 ||
        PyModule_AddIntConstant(m, "SELECT_PREDICTIVE", MMNC_SELECT_PREDICTIVE) < 0 ||
        PyModule_AddIntConstant(m, "REFINE_NONE", MMNC_REFINE_NONE) < 0 ||
        PyModule_AddIntConstant(m, "REFINE_EACH", MMNC_REFINE_EACH) < 0 ||
        PyModule_AddIntConstant(m, "REFINE_CHOSEN", MMNC_REFINE_CHOSEN) < 0 ||
        PyModule_AddIntConstant(m, "MOVES_SEQUENTIAL", MMNC_MOVES_SEQUENTIAL) < 0 ||
        PyModule_AddIntConstant(m, "MOVES_BATCH", MMNC_MOVES_BATCH) < 0 ||
        PyModule_AddIntConstant(m, "MOVES_AUTO", MMNC_MOVES_AUTO) < 0)
        goto fail;
#ifdef MMNC_PY_HAVE_MODEL
    if (PyType_Ready(&ModelType) < 0) goto fail;
    if (PyModule_AddIntConstant(m, "have_model", 1) < 0) goto fail;
#else
    if (PyModule_AddIntConstant(m, "have_model", 0) < 0) goto fail;
#endif
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
