#!/usr/bin/env bash
# Build IBM's sequential information bottleneck (github.com/IBM/sib: Python front, C++
# optimizer through Cython) from a snapshot of that repository, for bench/peers/ibm_sib.py.
#
#   bench/peers/build_ibm_sib.sh SNAPSHOT OUTDIR
#
# SNAPSHOT: a checkout (or `git archive` extract) of IBM/sib, whose src/sib/ holds the package.
# OUTDIR:   where the importable package goes (OUTDIR/sib, with its compiled extension);
#           then PYTHONPATH=OUTDIR, or ibm_sib.py --sib OUTDIR.
# Needs Debian's cython3, g++, python3-dev, python3-numpy, python3-scipy, python3-joblib and
# python3-sklearn (apt-get install cython3 python3-joblib). Nothing of IBM/sib enters this
# repository: the snapshot is read where it is, the build goes to OUTDIR.
set -euo pipefail
snap=${1:?usage: build_ibm_sib.sh SNAPSHOT OUTDIR}
out=${2:?usage: build_ibm_sib.sh SNAPSHOT OUTDIR}
py=/usr/bin/python3
if [ ! -f "$snap/src/sib/c_package/c_sib_optimizer.pyx" ]; then
  echo "build_ibm_sib: $snap is not a snapshot of IBM/sib (no src/sib/c_package/c_sib_optimizer.pyx)" >&2
  exit 1
fi
command -v cython3 >/dev/null || { echo "build_ibm_sib: cython3 not found (apt-get install cython3)" >&2; exit 1; }
mkdir -p "$out"
rm -rf "$out/sib"
cp -r "$snap/src/sib" "$out/sib"
# the package reads its version through versioneer, which a snapshot may not configure
printf 'def get_versions():\n    return {"version": "snapshot"}\n' >"$out/sib/_version.py"
cd "$out/sib/c_package"
cython3 -3 --cplus c_sib_optimizer.pyx -o c_sib_optimizer.cpp
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
npinc=$("$py" -c 'import numpy; print(numpy.get_include())')
suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
g++ -O3 -shared -fPIC -I"$inc" -I"$npinc" -I. c_sib_optimizer.cpp sib_optimizer.cpp -o "c_sib_optimizer$suffix"
cd "$out"
"$py" -c 'import sib; print("build_ibm_sib: sib", sib.__version__, "from", sib.__file__)'
