"""check.py -- the defaults of include/mmnc.h's table against every place that states them.

    python3 check.py cli MMNC SOURCE_DIR     the help texts and the header's comments
    python3 check.py python SOURCE_DIR       the library's *_default functions and Python's
                                             signatures and docstrings (mmnc importable)

The table is the block of `#define MMNC_DEFAULT_* value` (and cooc's bounds
MMNC_COOC_*) in include/mmnc.h.  Checked against it:

  cli     each "(default X)" of `mmnc COMMAND --help` for an option that HELP maps to a
          macro (a number compared as a number, a name of an enum default with the
          constant's name); a numeric default of an option that is neither mapped nor
          listed in CLI_ONLY fails (every number has one home); --max-iter's caps and
          cooc's bounds in the text.  The header: no comment outside the table states a
          default as a number or a quoted string ("default 2"), every MMNC_DEFAULT_* or
          MMNC_COOC_* a comment names is defined, and the algorithm the overview calls
          the default is MMNC_DEFAULT_ALGORITHM.
  python  what mmnc_params_default and the *_opts_default functions fill in (through
          mmnc._mmnc.defaults()), the defaults of MMNC(), cooc() and embed(), and the
          "default X" their docstrings show.

Prints one line per failure and exits 1 if there is any, else prints a summary and exits 0.
"""
import inspect
import os
import re
import subprocess
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


# ---- the table ----------------------------------------------------------------------------

def read_table(src):
    """{macro: value}: int, float, str, or the name of an enum constant (MMNC_ALG_...)."""
    path = os.path.join(src, "include", "mmnc.h")
    with open(path) as f:
        text = f.read()
    raw = dict(re.findall(r"^#define\s+(MMNC_(?:DEFAULT_\w+|COOC_\w+|\w+_DEFAULT))\s+(\S+)", text, re.M))
    table = {}

    def value(name, seen=()):
        v = raw[name]
        if re.fullmatch(r"\(-?[\d.]+\)", v):  # a negative number, parenthesised
            v = v[1:-1]
        if v.startswith('"'):
            return v.strip('"')
        for conv in (int, float):
            try:
                return conv(v)
            except ValueError:
                pass
        if v in raw and v not in seen:  # an alias
            return value(v, seen + (name,))
        if not re.search(r"\b%s\s*=" % re.escape(v), text):
            fail(f"mmnc.h: {name} is {v}, which is neither a number, a string, a macro of the table "
                 f"nor an enum constant")
        return v

    for name in raw:
        table[name] = value(name)
    if len(table) < 30:
        fail(f"mmnc.h: found only {len(table)} macros MMNC_DEFAULT_*: is the table still there?")
    return text, table


def enum_name(constant):
    """MMNC_ALG_INFORMATION -> "information": the name the CLI and Python give the constant."""
    return constant.split("_", 2)[2].lower().replace("kmeanspp", "kmeans++")


def same(table_value, shown):
    """Whether a default shown as text (help, docstring) is the table's value."""
    if isinstance(table_value, str) and table_value.startswith("MMNC_"):
        return shown == enum_name(table_value)
    if isinstance(table_value, str):
        return shown == table_value
    try:
        return float(shown) == float(table_value)
    except ValueError:
        return False


# ---- the help texts -------------------------------------------------------------------------

COMMANDS = ["cluster", "predict", "eval", "info", "cooc", "docs", "sweep", "generate", "embed", "msr", "convert"]

LOAD = {"--row-field": "ROW_FIELD", "--col-field": "COL_FIELD", "--value-field": "VALUE_FIELD",
        "--mat-var": "MAT_VAR"}
# (command, option) -> the macro (without MMNC_DEFAULT_) of its default
HELP = {
    "cluster": dict(LOAD, **{
        "--clusters": "K", "--algorithm": "ALGORITHM", "--seed": "SEED", "--restarts": "RESTARTS",
        "--init": "INIT", "--select": "SELECT", "--select-tol": "SELECT_TOL", "--refine": "REFINE",
        "--size-prior": "SIZE_PRIOR", "--move-tol": "MOVE_TOL", "--merge-split": "MERGE_SPLIT",
        "--agreement": "AGREEMENT", "--moves": "MOVES", "--col-clusters": "COL_CLUSTERS", "--dmm-beta": "DMM_BETA", "--max-iter": "MAX_ITER", "--tol": "TOL", "--lambda": "LAMBDA",
        "--threads": "THREADS", "--top": "TOP", "--truth-var": "LABELS_VAR"}),
    "sweep": dict(LOAD, **{"--algorithm": "ALGORITHM", "--seed": "SEED", "--restarts": "RESTARTS", "--init": "INIT",
                           "--threads": "THREADS"}),
    "embed": dict(LOAD, **{"--dim": "EMBED_DIM", "--sigma-power": "EMBED_SIGMA_POWER",
                           "--oversample": "EMBED_OVERSAMPLE", "--tol": "EMBED_TOL",
                           "--max-iter": "EMBED_MAX_ITER", "--seed": "SEED", "--threads": "THREADS"}),
    "cooc": {"--window": "COOC_WINDOW", "--weighting": "COOC_WEIGHTING", "--min-count": "COOC_MIN_COUNT",
             "--max-vocab": "COOC_MAX_VOCAB", "--threads": "THREADS", "--memory": "COOC_MAX_MEMORY"},
    "docs": {"--min-df": "DOCS_MIN_DF", "--max-df": "DOCS_MAX_DF", "--min-count": "DOCS_MIN_COUNT",
             "--max-vocab": "DOCS_MAX_VOCAB"},
    "info": dict(LOAD, **{"--seed": "SEED", "--threads": "THREADS"}),
    "predict": dict(LOAD, **{"--threads": "THREADS"}),
    "convert": dict(LOAD, **{"--threads": "THREADS"}),
    "eval": {"--mat-var": "LABELS_VAR"},
    "generate": {"--seed": "SEED"},
    "msr": {},
}
# Numeric defaults of the tool alone (one macro or variable each in their file)
CLI_ONLY = {("sweep", "--kmin"), ("sweep", "--kmax"), ("info", "--sv"),
            ("generate", "--rows"), ("generate", "--cols"), ("generate", "--groups"), ("generate", "--draws"),
            ("generate", "--ratio"), ("generate", "--skew"), ("msr", "--window"), ("msr", "--ignore-top")}
WEIGHTINGS = {"harmonic": 1, "flat": 0}


def number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def help_entries(text):
    """[(option, its description joined on one line)] of a help text."""
    entries = []
    table = False  # mmnc cluster's table of the runs each option applies to: no descriptions
    for line in text.splitlines():
        table = line.startswith("Which runs an option applies to") or (table and line != "")
        m = None if table else re.match(r"^ {2,6}(?:-\w, )?(--[a-z][a-z0-9-]*)", line)
        if m:
            entries.append([m.group(1), line[m.end():].strip()])
        elif entries and re.match(r"^ {7,}\S", line):
            entries[-1][1] += " " + line.strip()
        else:
            entries.append([None, ""])
    return [(o, d) for o, d in entries if o]


def shown_default(desc):
    """The X of "(default X ...)" in desc: None for "(default: ...)" or no default."""
    i = desc.find("(default")
    if i < 0:
        return None
    j, depth = i + 1, 1
    while j < len(desc) and depth:
        depth += {"(": 1, ")": -1}.get(desc[j], 0)
        j += 1
    inner = desc[i + len("(default"):j - 1]
    if not inner.startswith(" "):
        return None
    return re.match(r"max\([^)]*\)|[^\s,;:]*", inner.strip()).group(0)


def check_cli(mmnc, src, table):
    n = 0
    for cmd in COMMANDS:
        out = subprocess.run([mmnc, cmd, "--help"], capture_output=True, text=True)
        if out.returncode != 0 or not out.stdout:
            fail(f"mmnc {cmd} --help: exit {out.returncode}, {len(out.stdout)} bytes")
            continue
        for opt, desc in help_entries(out.stdout):
            shown = shown_default(desc)
            macro = HELP[cmd].get(opt)
            where = f"mmnc {cmd} --help, {opt}"
            if macro:
                want = table.get("MMNC_DEFAULT_" + macro)
                n += 1
                if shown is None:
                    fail(f"{where}: no (default X) for MMNC_DEFAULT_{macro}")
                elif macro == "EMBED_OVERSAMPLE":
                    if not (shown.startswith("max(") and want < 0):
                        fail(f"{where}: shows '{shown}' for MMNC_DEFAULT_{macro} = {want}")
                elif macro == "COOC_WEIGHTING":
                    if WEIGHTINGS.get(shown) != want:
                        fail(f"{where}: shows '{shown}', the table has MMNC_DEFAULT_{macro} {want}")
                elif not same(want, shown):
                    fail(f"{where}: shows '{shown}', the table has MMNC_DEFAULT_{macro} {want}")
            elif shown and number(shown) and (cmd, opt) not in CLI_ONLY:
                fail(f"{where}: the number {shown} is in no macro of the table (map it in HELP, "
                     f"tests/defaults/check.py, or list it in CLI_ONLY)")
            if cmd == "cluster" and opt == "--max-iter":
                m = re.search(r"0 = (\d+) \(nuclear\), (\d+) \(frobenius; (\d+) with --exact-marginal\) or (\d+) "
                              r"\(information", desc)
                caps = ["NUCLEAR", "FROBENIUS", "EXACT", "INFORMATION"]
                if not m:
                    fail(f"{where}: the caps are not where this test reads them: {desc}")
                else:
                    n += 4
                    for cap, got in zip(caps, m.groups()):
                        if not same(table["MMNC_DEFAULT_MAX_ITER_" + cap], got):
                            fail(f"{where}: shows {got}, the table has MMNC_DEFAULT_MAX_ITER_{cap} "
                                 f"{table['MMNC_DEFAULT_MAX_ITER_' + cap]}")
            if cmd == "cooc" and opt == "--window":
                m = re.search(r"at most (\d+)", desc)
                n += 1
                if not m or int(m.group(1)) != table["MMNC_COOC_WINDOW_MAX"]:
                    fail(f"{where}: 'at most N' is not MMNC_COOC_WINDOW_MAX: {desc}")
            if cmd == "cooc" and opt == "--memory":
                m = re.search(r"at least (\d+)K", desc)
                n += 1
                if not m or int(m.group(1)) * 1024 != table["MMNC_COOC_MEMORY_MIN"]:
                    fail(f"{where}: 'at least NK' is not MMNC_COOC_MEMORY_MIN: {desc}")
            if cmd == "cooc" and opt == "--no-sentences" and table["MMNC_DEFAULT_COOC_SENTENCES"] != 1:
                fail(f"{where}: a flag that turns sentences off, but MMNC_DEFAULT_COOC_SENTENCES is not 1")
        for opt, macro in HELP[cmd].items():
            if opt not in dict(help_entries(out.stdout)):
                fail(f"mmnc {cmd} --help: no option {opt} (mapped to MMNC_DEFAULT_{macro})")
    return n


def check_header(text, table):
    """No default stated as a number or a string outside the table; no unknown macro named."""
    start = text.index("/* Defaults ")
    end = text.index("/* -----", text.index("\n#define MMNC_DEFAULT_"))
    rest = text[:start] + text[end:]
    comments = " ".join(re.findall(r"/\*.*?\*/", rest, re.S))
    comments = re.sub(r"\s+", " ", comments)
    for m in re.finditer(r"\bdefaults?[ :=(]+(-?\d[\d.eE+-]*|\"[^\"]*\")", comments):
        fail(f"mmnc.h: a comment states a default as a value, not as the table's macro: "
             f"'...{comments[max(0, m.start() - 60):m.end() + 10]}...'")
    for m in re.finditer(r"(?<![\w.])(-?\d[\d.eE-]*) \((?:the )?default\)", comments):
        fail(f"mmnc.h: a comment states a default as a value: '...{comments[max(0, m.start() - 60):m.end()]}'")
    m = re.search(r"\((MMNC_ALG_\w+), the default of", text)
    if not m or m.group(1) != table["MMNC_DEFAULT_ALGORITHM"]:
        fail(f"mmnc.h: the overview calls {m and m.group(1)} the default, the table has MMNC_DEFAULT_ALGORITHM "
             f"{table['MMNC_DEFAULT_ALGORITHM']}")
    named = set(re.findall(r"\bMMNC_(?:DEFAULT|COOC)_[A-Z_]*[A-Z]\b", text))
    for name in sorted(named - set(table)):
        fail(f"mmnc.h: names {name}, which the table does not define")
    return len(named)


# ---- Python ---------------------------------------------------------------------------------

def check_python(table):
    import mmnc  # noqa: the package built against this library

    T = {k[len("MMNC_DEFAULT_"):]: v for k, v in table.items() if k.startswith("MMNC_DEFAULT_")}
    D = mmnc._mmnc.defaults()
    n = 0

    def const(v):
        return getattr(mmnc._mmnc, v[len("MMNC_"):]) if isinstance(v, str) and v.startswith("MMNC_") else v

    def expect(where, got, want):
        nonlocal n
        n += 1
        if got != want:
            fail(f"{where} is {got!r}, the table says {want!r}")

    # what the library's *_default functions fill in
    lib = {
        "params": dict(algorithm="ALGORITHM", k="K", seed="SEED", restarts="RESTARTS", init="INIT",
                       select="SELECT", select_tol="SELECT_TOL", refine="REFINE", size_prior="SIZE_PRIOR",
                       max_iter="MAX_ITER", tol="TOL", move_tol="MOVE_TOL", merge_split="MERGE_SPLIT",
                       agreement="AGREEMENT", moves="MOVES", threads="THREADS", col_clusters="COL_CLUSTERS",
                       dmm_beta="DMM_BETA"),
        "read_opts": dict(row_field="ROW_FIELD", col_field="COL_FIELD", value_field="VALUE_FIELD",
                          mat_var="MAT_VAR"),
        "embed_opts": dict(dim="EMBED_DIM", sigma_power="EMBED_SIGMA_POWER", oversample="EMBED_OVERSAMPLE",
                           tol="EMBED_TOL", maxit="EMBED_MAX_ITER", seed="SEED", threads="THREADS"),
        "cooc_opts": dict(window="COOC_WINDOW", weighting="COOC_WEIGHTING", min_count="COOC_MIN_COUNT",
                          max_vocab="COOC_MAX_VOCAB", sentences="COOC_SENTENCES", max_memory="COOC_MAX_MEMORY",
                          threads="THREADS"),
        "docs_opts": dict(min_df="DOCS_MIN_DF", max_df="DOCS_MAX_DF", min_count="DOCS_MIN_COUNT",
                          max_vocab="DOCS_MAX_VOCAB"),
    }
    for struct, fields in lib.items():
        for field, macro in fields.items():
            fn = "mmnc_params_default" if struct == "params" else f"mmnc_{struct}_default"
            expect(f"the library's {field} of {fn}", D[struct][field], const(T[macro]))
    for alg in ("nuclear", "information", "frobenius", "exact"):
        expect(f"_mmnc.defaults() max_iter[{alg}]", D["max_iter"][alg], T["MAX_ITER_" + alg.upper()])
    expect("_mmnc.defaults() lambda", D["lambda"], T["LAMBDA"])
    expect("_mmnc.defaults() cooc_window_max", D["cooc_window_max"], table["MMNC_COOC_WINDOW_MAX"])
    expect("_mmnc.defaults() cooc_memory_min", D["cooc_memory_min"], table["MMNC_COOC_MEMORY_MIN"])

    # Python's signatures: the table's value, or None where None stands for it
    def name(v):
        return enum_name(v)

    none_means = {"MAX_ITER": 0, "THREADS": 0, "COOC_MAX_VOCAB": 0, "COOC_MAX_MEMORY": 0}
    sigs = {
        "MMNC()": (mmnc.MMNC().get_params(), dict(
            n_clusters="K", random_state="SEED", n_init="RESTARTS", algorithm="ALGORITHM", init="INIT",
            select="SELECT", select_tol="SELECT_TOL", refine="REFINE", size_prior="SIZE_PRIOR",
            move_tol="MOVE_TOL", merge_split="MERGE_SPLIT", agreement="AGREEMENT", col_clusters="COL_CLUSTERS", tol="TOL",
            dmm_beta="DMM_BETA",
            max_iter="MAX_ITER", n_jobs="THREADS")),
        "cooc()": ({k: p.default for k, p in inspect.signature(mmnc.cooc).parameters.items()}, dict(
            window="COOC_WINDOW", min_count="COOC_MIN_COUNT", weighting="COOC_WEIGHTING", sentences="COOC_SENTENCES",
            max_vocab="COOC_MAX_VOCAB", max_memory="COOC_MAX_MEMORY", n_jobs="THREADS")),
        "embed()": ({k: p.default for k, p in inspect.signature(mmnc.embed).parameters.items()}, dict(
            d="EMBED_DIM", sigma_power="EMBED_SIGMA_POWER", tol="EMBED_TOL", max_iter="EMBED_MAX_ITER",
            random_state="SEED", n_jobs="THREADS")),
    }
    for where, (params, fields) in sigs.items():
        for param, macro in fields.items():
            got, want = params[param], T[macro]
            if isinstance(want, str) and want.startswith("MMNC_"):
                want = name(want)
            elif macro == "COOC_WEIGHTING":
                want = {v: k for k, v in WEIGHTINGS.items()}[want]
            elif got is None and macro in none_means:
                want = None if want == none_means[macro] else want
            elif isinstance(got, bool):
                want = bool(want)
            expect(f"Python's {where} {param}", got, want)
    oversample = inspect.signature(mmnc.embed).parameters["oversample"].default
    expect("Python's embed() oversample (None: the library's, max(20, d/4))",
           oversample is None and T["EMBED_OVERSAMPLE"] < 0, True)

    # the defaults the docstrings show: those of the signatures
    doc = mmnc.MMNC.__doc__
    params = mmnc.MMNC().get_params()
    for m in re.finditer(r"^    ([a-z_, ]+) : [^\n]*?, default (.+)$", doc, re.M):
        for param in m.group(1).split(", "):
            expect(f"MMNC's docstring: {param}'s default", m.group(2), repr(params[param]).replace("'", '"'))
    for fn in (mmnc.cooc, mmnc.embed):
        sig = inspect.signature(fn).parameters
        text = re.sub(r"\s+", " ", fn.__doc__)
        found = 0
        for m in re.finditer(r"(\w+): [^;.]*?\(default ([^,;:)]+)", text):
            if m.group(1) in sig:
                found += 1
                expect(f"{fn.__name__}'s docstring: {m.group(1)}'s default", m.group(2),
                       repr(sig[m.group(1)].default).replace("'", '"'))
        expect(f"{fn.__name__}'s docstring states defaults", found >= 4, True)
    for obj in (mmnc.MMNC, mmnc.cooc, mmnc.embed):
        left = re.findall(r"\$\w+", obj.__doc__.replace("$TMPDIR", ""))
        expect(f"{obj.__name__}'s docstring: placeholders left", left, [])
    return n


def main():
    mode = sys.argv[1]
    src = sys.argv[-1]
    text, table = read_table(src)
    if mode == "cli":
        n = check_cli(sys.argv[2], src, table)
        h = check_header(text, table)
        what = f"{n} help defaults against {len(table)} macros; the header's comments ({h} macros named)"
    else:
        n = check_python(table)
        what = f"{n} library and Python defaults against the table"
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        return 1
    print("ok: " + what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
