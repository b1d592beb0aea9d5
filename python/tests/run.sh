#!/bin/sh
# The `python` CTest: build the extension into the build tree (BUILD/python,
# against BUILD/libmmnc.so) and run the binding's tests with pytest.
# Usage: run.sh BUILD_DIR SOURCE_DIR MMNC_CLI
# Exits 77 (skipped) when no Python has NumPy, SciPy, pytest, setuptools and
# Python.h (make deps installs them); $MMNC_PYTHON picks the interpreter.
set -eu
build=$1 src=$2 cli=$3
probe='import os, sysconfig, numpy, scipy, pytest, setuptools
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))'
py=
for cand in ${MMNC_PYTHON:-} /usr/bin/python3 python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c "$probe" >/dev/null 2>&1; then
        py=$cand
        break
    fi
done
if [ -z "$py" ]; then
    echo "python: skipped: no python3 with numpy, scipy, pytest, setuptools and Python.h" \
         "(make deps: python3-dev python3-numpy python3-scipy python3-pytest python3-setuptools)"
    exit 77
fi
out=$build/python
rm -rf "$out/lib"
(cd "$src/python" && MMNC_BUILD_DIR=$build "$py" setup.py -q build --build-base "$out/tmp" --build-lib "$out/lib") \
    >"$out.log" 2>&1 || { cat "$out.log"; exit 1; }
cd "$out"
PYTHONPATH=$out/lib PYTHONDONTWRITEBYTECODE=1 MMNC_CLI=$cli \
    exec "$py" -m pytest "$src/python/tests" -q -p no:cacheprovider -rs
