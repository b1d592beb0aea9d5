#!/bin/sh
# The `defaults` CTest: every default stated by `mmnc COMMAND --help`, by the
# comments of include/mmnc.h, by the library's *_default functions and by the
# Python package equals the table "Defaults" of include/mmnc.h (issue 42: a
# default is written once).  The checks are tests/defaults/check.py's.
# Usage: run.sh MMNC_CLI BUILD_DIR SOURCE_DIR
# The help and header checks need only python3; the library and Python checks
# build the extension (BUILD/defaults-python, against BUILD/libmmnc.so) with a
# python3 that has NumPy, SciPy, setuptools and Python.h.  Exits 77 (skipped)
# when there is no python3, or, once the help and header checks passed, when
# the extension cannot be built for want of those or MMNC_DEFAULTS_NO_PYTHON is
# set (the sanitizer build, whose libmmnc.so a plain python3 cannot load).
set -eu
cli=$1 build=$2 src=$3
case $cli in /*) ;; *) cli=$PWD/$cli ;; esac
case $build in /*) ;; *) build=$PWD/$build ;; esac
case $src in /*) ;; *) src=$PWD/$src ;; esac
here=$src/tests/defaults
py=
for cand in ${MMNC_PYTHON:-} /usr/bin/python3 python3; do
    if command -v "$cand" >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -z "$py" ]; then
    echo "defaults: skipped: no python3"
    exit 77
fi
"$py" "$here/check.py" cli "$cli" "$src"

probe='import os, sysconfig, numpy, scipy, setuptools
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))'
pyx=
for cand in ${MMNC_PYTHON:-} /usr/bin/python3 python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c "$probe" >/dev/null 2>&1; then pyx=$cand; break; fi
done
if [ -n "${MMNC_DEFAULTS_NO_PYTHON:-}" ]; then
    echo "defaults: the help and header passed; the library and Python part skipped (MMNC_DEFAULTS_NO_PYTHON)"
    exit 77
fi
if [ -z "$pyx" ]; then
    echo "defaults: the help and header passed; the library and Python part skipped: no python3 with numpy," \
         "scipy, setuptools and Python.h"
    exit 77
fi
out=$build/defaults-python
rm -rf "$out"
mkdir -p "$out"
(cd "$src/python" && MMNC_BUILD_DIR=$build "$pyx" setup.py -q build --build-base "$out/tmp" --build-lib "$out/lib") \
    >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
cd "$out"
PYTHONPATH=$out/lib PYTHONDONTWRITEBYTECODE=1 exec "$pyx" "$here/check.py" python "$src"
