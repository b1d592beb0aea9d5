/*
 * outset.c -- the output files of a run, all of them or none (cli.h,
 * cli_outset): checked against the inputs and one another before any work,
 * written into a staging directory beside them, renamed into place
 * together under a lock with the signals held off.
 *
 * Why a staging directory rather than a temporary name per file: the files
 * keep their own base names there, so the library's writers that decide by
 * the name (".gz" compresses, ".mtx" gets ".rows" and ".cols" beside it)
 * work unchanged, and the temporary part of every name is the directory's
 * 12 bytes, whatever the outputs' names.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define OUTSET_MAX 8 /* the most a command writes: cluster's five */

typedef struct out_file {
    const char *path, *what; /* the caller's */
    int flags, dir;          /* dir: its index in dirs */
    char *canon;             /* the real path of its directory, '/', its base name */
    char *stage;             /* where it is written: its staging directory, '/', its base name */
} out_file;

typedef struct in_file {
    const char *path, *what; /* the caller's */
} in_file;

typedef struct out_dir {
    char *canon; /* the real path of a directory of outputs */
    char *stage; /* its staging directory */
    int fd;      /* open and locked during the renames, else -1 */
} out_dir;

struct cli_outset {
    const char *cmd;
    int n, ndir, nin, capin, bad, staged;
    out_file out[OUTSET_MAX];
    out_dir dirs[OUTSET_MAX];
    in_file *in;
};

cli_outset *cli_outset_new(const char *cmd)
{
    cli_outset *s = calloc(1, sizeof *s);
    if (s) s->cmd = cmd;
    return s;
}

void cli_outset_input(cli_outset *s, const char *path, const char *what)
{
    if (!path || !strcmp(path, "-")) return;
    if (s->nin == s->capin) {
        int cap = s->capin ? 2 * s->capin : 8;
        in_file *in = realloc(s->in, (size_t)cap * sizeof *in);
        if (!in) {
            s->bad = 1; /* said by cli_outset_check */
            return;
        }
        s->in = in, s->capin = cap;
    }
    s->in[s->nin++] = (in_file){path, what};
}

int cli_outset_add(cli_outset *s, const char *path, const char *what, int flags)
{
    if (s->n == OUTSET_MAX) {
        s->bad = 1;
        return OUTSET_MAX - 1;
    }
    s->out[s->n] = (out_file){path, what, flags, -1, NULL, NULL};
    return s->n++;
}

const char *cli_outset_path(const cli_outset *s, int i)
{
    return s && i >= 0 && i < s->n ? s->out[i].stage : NULL;
}

/* path's base name, and its directory in *dir (malloc'd; "." for none). */
static const char *split(const char *path, char **dir)
{
    const char *sl = strrchr(path, '/');
    *dir = !sl ? strdup(".") : sl == path ? strdup("/") : strndup(path, (size_t)(sl - path));
    return sl ? sl + 1 : path;
}

/* The real path of path's directory, '/', its base name: one spelling of
 * one name (symbolic links in the directories resolved, not in the base
 * name, which a rename replaces).  path as it is when its directory does
 * not exist; NULL when out of memory. */
static char *canon_name(const char *path)
{
    char *dir, *real, *c;
    const char *base = split(path, &dir);
    if (!dir) return NULL;
    real = realpath(dir, NULL);
    free(dir);
    if (!real) return strdup(path);
    if ((c = malloc(strlen(real) + strlen(base) + 2))) sprintf(c, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base);
    free(real);
    return c;
}

/* 1 if a and b (canonical names c1, c2) are one file: the same name, or
 * (both existing) the same device and inode. */
static int same_file(const char *a, const char *c1, const char *b, const char *c2)
{
    struct stat s1, s2;
    if (!strcmp(c1, c2)) return 1;
    return stat(a, &s1) == 0 && stat(b, &s2) == 0 && s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino;
}

/* The other file's name in a message, where it is spelled another way. */
#define SPELLED(path, other) strcmp(path, other) ? " '" : "", strcmp(path, other) ? other : "", strcmp(path, other) ? "'" : ""

/* The usage errors: an output that is an input, or another output. */
static int check_names(cli_outset *s)
{
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < s->n && rc == CLI_EXIT_OK; i++) {
        out_file *o = &s->out[i];
        if (!o->path) continue;
        for (int j = 0; j < s->nin && rc == CLI_EXIT_OK; j++) {
            struct stat st;
            char *c;
            if (stat(s->in[j].path, &st) == 0 && S_ISDIR(st.st_mode)) continue; /* docs' folders */
            if (!(c = canon_name(s->in[j].path))) return cli_fail(s->cmd, "out of memory");
            if (same_file(o->path, o->canon, s->in[j].path, c))
                rc = cli_usage_error(s->cmd, "%s '%s' is an input of this run (%s%s%s%s): it would be overwritten",
                                     o->what, o->path, s->in[j].what, SPELLED(o->path, s->in[j].path));
            free(c);
        }
        for (int j = 0; j < i && rc == CLI_EXIT_OK; j++)
            if (s->out[j].path && same_file(o->path, o->canon, s->out[j].path, s->out[j].canon))
                rc = cli_usage_error(s->cmd, "%s '%s' is also %s%s%s%s: one file cannot hold both", o->what, o->path,
                                     s->out[j].what, SPELLED(o->path, s->out[j].path));
    }
    return rc;
}

/* Each output's place: not a directory or a device, a base name that fits,
 * a staging directory made in each directory (which proves it writable). */
static int make_stages(cli_outset *s)
{
    for (int i = 0; i < s->n; i++) {
        out_file *o = &s->out[i];
        struct stat st;
        char *dir = NULL, *dcanon;
        const char *base;
        long name_max;
        int d, e;
        if (!o->path) continue;
        base = split(o->path, &dir);
        if (!dir) return cli_fail(s->cmd, "out of memory");
        name_max = pathconf(dir, _PC_NAME_MAX);
        dcanon = realpath(dir, NULL);
        e = errno;
        free(dir);
        if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
            return cli_fail(s->cmd, "cannot write the outputs (checked before any work): %s: is a directory", o->path);
        if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode))
            return cli_fail(s->cmd, "cannot write the outputs (checked before any work): %s: %s", o->path,
                            S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file (it would be replaced)");
        if (!dcanon || strlen(base) > (size_t)(name_max > 0 ? name_max : NAME_MAX)) {
            e = dcanon ? ENAMETOOLONG : e;
            free(dcanon);
            return cli_fail(s->cmd, "cannot write the outputs (checked before any work): %s: %s", o->path, strerror(e));
        }
        for (d = 0; d < s->ndir && strcmp(s->dirs[d].canon, dcanon); d++) {}
        if (d < s->ndir) {
            free(dcanon);
        } else {
            out_dir *od = &s->dirs[s->ndir++];
            od->canon = dcanon;
            od->fd = -1;
            if (!(od->stage = malloc(strlen(dcanon) + sizeof "/.mmnc-XXXXXX")))
                return cli_fail(s->cmd, "out of memory");
            sprintf(od->stage, "%s/.mmnc-XXXXXX", strcmp(dcanon, "/") ? dcanon : "");
            cli_tmp_hold(); /* made and registered, or neither: a signal between would leave it */
            int ok = mkdtemp(od->stage) != NULL;
            e = errno;
            if (ok) cli_tmp_name(od->stage, 1);
            cli_tmp_release();
            if (!ok) {
                free(od->stage);
                od->stage = NULL;
                return cli_fail(s->cmd, "cannot write the outputs (checked before any work): %s: %s", o->path,
                                strerror(e));
            }
        }
        o->dir = d;
        if (!(o->stage = malloc(strlen(s->dirs[d].stage) + strlen(base) + 2))) return cli_fail(s->cmd, "out of memory");
        sprintf(o->stage, "%s/%s", s->dirs[d].stage, base);
        cli_tmp_name(o->stage, 0);
        cli_tmp_watch(o->stage); /* the library's temporary file of it */
    }
    return CLI_EXIT_OK;
}

int cli_outset_check(cli_outset *s)
{
    int rc = CLI_EXIT_OK;
    if (cli_rank() == 0) {
        if (s->bad) rc = cli_fail(s->cmd, "out of memory (or more than %d outputs)", OUTSET_MAX);
        for (int i = 0; i < s->n && rc == CLI_EXIT_OK; i++)
            if (s->out[i].path && !(s->out[i].canon = canon_name(s->out[i].path)))
                rc = cli_fail(s->cmd, "out of memory");
        if (rc == CLI_EXIT_OK) rc = check_names(s);
        if (rc == CLI_EXIT_OK) rc = make_stages(s);
        s->staged = 1;
    }
    return cli_agree(rc);
}

/* Remove what is staged (the files, the library's temporary files of them,
 * the staging directories). */
static void unstage(cli_outset *s)
{
    for (int i = 0; i < s->n; i++) {
        char *tmp = NULL;
        if (!s->out[i].stage) continue;
        unlink(s->out[i].stage);
        if (mmnc_outfile_tmp_path(s->out[i].stage, &tmp, NULL) == MMNC_OK) unlink(tmp);
        mmnc_free(tmp);
    }
    for (int d = 0; d < s->ndir; d++)
        if (s->dirs[d].stage) rmdir(s->dirs[d].stage);
}

static int by_canon(const void *a, const void *b)
{
    return strcmp((*(out_dir *const *)a)->canon, (*(out_dir *const *)b)->canon);
}

int cli_outset_commit(cli_outset *s)
{
    out_dir *order[OUTSET_MAX];
    struct stat st;
    int rc = CLI_EXIT_OK, renamed = 0, e = 0, failed = -1;
    if (cli_rank() != 0 || !s->staged) return CLI_EXIT_OK;
    for (int i = 0; i < s->n; i++)
        if (s->out[i].path && !(s->out[i].flags & CLI_OUT_SIDE) && lstat(s->out[i].stage, &st) != 0)
            return cli_fail(s->cmd, "%s: not written", s->out[i].path);
    /* the locks in the order of the directories' names: two runs wait for
     * each other, never each for the other.  Where a file system has no
     * locks (or the directory cannot be opened), the renames still happen
     * with the signals held off. */
    for (int d = 0; d < s->ndir; d++) order[d] = &s->dirs[d];
    qsort(order, (size_t)s->ndir, sizeof order[0], by_canon);
    for (int d = 0; d < s->ndir; d++) {
        order[d]->fd = open(order[d]->canon, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        while (order[d]->fd >= 0 && flock(order[d]->fd, LOCK_EX) != 0 && errno == EINTR) {}
    }
    cli_tmp_hold();
    for (int i = 0; i < s->n && failed < 0; i++) {
        out_file *o = &s->out[i];
        if (!o->path) continue;
        if (lstat(o->stage, &st) == 0) {
            if (rename(o->stage, o->path) != 0) failed = i, e = errno;
            else renamed++;
        } else if (unlink(o->path) != 0 && errno != ENOENT) { /* a CLI_OUT_SIDE file this run has not written */
            failed = i, e = errno;
        }
    }
    for (int d = 0; d < s->ndir; d++)
        if (s->dirs[d].fd >= 0) fsync(s->dirs[d].fd); /* the renames on the disk */
    if (failed >= 0) {
        unstage(s);
    } else {
        for (int d = 0; d < s->ndir; d++) rmdir(s->dirs[d].stage);
    }
    cli_tmp_forget();
    s->staged = 0;
    cli_tmp_release(); /* a signal that came meanwhile ends the process here, the outputs in place */
    for (int d = 0; d < s->ndir; d++) {
        if (s->dirs[d].fd >= 0) close(s->dirs[d].fd); /* and the lock with it */
        s->dirs[d].fd = -1;
    }
    if (failed >= 0)
        rc = cli_fail(s->cmd, "%s: cannot put it in place: %s (%d of the outputs were)", s->out[failed].path,
                      strerror(e), renamed);
    return rc;
}

int cli_outset_lib_fail(const cli_outset *s, const mmnc_err *err)
{
    char msg[sizeof err->msg + PATH_MAX];
    const char *m = err->msg[0] ? err->msg : mmnc_strerror(err->code), *at = NULL;
    int i;
    for (i = 0; i < s->n && !at; i++)
        if (s->out[i].stage) at = strstr(m, s->out[i].stage);
    if (!at) return cli_fail(s->cmd, "%s", m);
    i--;
    snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - m), m, s->out[i].path, at + strlen(s->out[i].stage));
    return cli_fail(s->cmd, "%s", msg);
}

void cli_outset_free(cli_outset *s)
{
    if (!s) return;
    if (s->staged) { /* not committed: nothing of this run appears */
        unstage(s);
        cli_tmp_forget();
    }
    for (int i = 0; i < s->n; i++) {
        free(s->out[i].canon);
        free(s->out[i].stage);
    }
    for (int d = 0; d < s->ndir; d++) {
        free(s->dirs[d].canon);
        free(s->dirs[d].stage);
    }
    free(s->in);
    free(s);
}
