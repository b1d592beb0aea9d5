#!/usr/bin/env bash
#
# run.sh -- a shared library exports its public API and nothing else.
#
#   tests/exports/run.sh /path/to/libmmnc.so /path/to/source-dir [HEADER]
#
# Every dynamic symbol the library defines must be a function declared with
# MMNC_API in include/HEADER (default mmnc.h; mmnc_mpi.h for
# libmmnc_mpi.so), so no mmnc_i_* helper and no file-local name leaks; and
# every MMNC_API function of HEADER must be exported (a declaration without
# a definition is caught).  Prints what is wrong; exits 0 when the lists
# agree, 77 (skip) without nm.

set -u
LIB=${1:?usage: run.sh /path/to/libmmnc.so /path/to/source-dir [HEADER]}
SRC=${2:?usage: run.sh /path/to/libmmnc.so /path/to/source-dir [HEADER]}
HEADER=${3:-mmnc.h}
command -v nm >/dev/null || { echo "nm not found: skipped"; exit 77; }

# (.gomp_critical_user_* are the locks of named OpenMP critical sections,
# which GCC makes global so that every copy of a name shares one lock.)
exported=$(nm -D --defined-only "$LIB" | awk '$2 ~ /^[TDBRVWi]$/ {print $3}' |
           grep -v '^\.gomp_critical_user_' | sort -u)
declared=$(tr -s ' \n' ' ' < "$SRC/include/$HEADER" | grep -o 'MMNC_API [^(;]*(' |
           sed 's/($//; s/.*[ *]//' | grep '^mmnc_' | sort -u)

bad=0
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
if [ -n "$extra" ]; then
    echo "exported but not public API of $HEADER:"
    echo "$extra" | sed 's/^/  /'
    bad=1
fi
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [ -n "$missing" ]; then
    echo "declared in $HEADER but not exported:"
    echo "$missing" | sed 's/^/  /'
    bad=1
fi
n=$(echo "$exported" | grep -c .)
[ "$n" -gt 0 ] || { echo "no symbols exported"; bad=1; }
[ $bad -eq 0 ] && echo "$n symbols exported, all declared MMNC_API in include/$HEADER"
exit $bad
