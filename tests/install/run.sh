#!/usr/bin/env bash
#
# run.sh -- `make install` works for a user: the binaries, the library, the
# header, mmnc.pc and the man pages land under a prefix, and a C program
# built with pkg-config against that prefix alone runs.
#
#   tests/install/run.sh BUILD_DIR SOURCE_DIR
#
# Installs BUILD_DIR into a temporary prefix (cmake --install), then:
# examples/cluster.c compiled with `pkg-config --cflags --libs mmnc` (shared)
# and with `--static` gives the labels that BUILD_DIR/example_cluster gives;
# the installed mmnc runs; every command has its man page, `man` finds it
# through MANPATH, and every option of `mmnc CMD --help` is on its page.
# Exits 77 (skip) without pkg-config or a C compiler.
set -u
B=$(cd "${1:?usage: run.sh BUILD_DIR SOURCE_DIR}" && pwd)
S=$(cd "${2:?usage: run.sh BUILD_DIR SOURCE_DIR}" && pwd)
CC=${CC:-cc}
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config not found"; exit 77; }
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler ($CC)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=$tmp/prefix
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

if cmake --install "$B" --prefix "$P" >"$tmp/install.log" 2>&1; then ok "cmake --install to a fresh prefix"
else bad "cmake --install failed:"; cat "$tmp/install.log"; echo "$pass passed, $fail failed"; exit 1; fi
for f in bin/mmnc include/mmnc.h; do
    [ -e "$P/$f" ] && ok "installed $f" || bad "missing $P/$f"
done
pc=$(find "$P" -name mmnc.pc | head -1)
lib=$(find "$P" -name 'libmmnc.so' | head -1)
[ -n "$pc" ] && ok "installed mmnc.pc" || bad "no mmnc.pc under $P"
[ -n "$lib" ] && ok "installed libmmnc.so" || bad "no libmmnc.so under $P"

export PKG_CONFIG_PATH=$(dirname "$pc")
want=$("$B/example_cluster" "$S/tests/cli/blocks.mtx" 3 2>&1)
# shellcheck disable=SC2046
if $CC -o "$tmp/ex_shared" "$S/examples/cluster.c" $(pkg-config --cflags --libs mmnc) 2>"$tmp/cc.log"; then
    got=$(LD_LIBRARY_PATH=$(dirname "$lib") "$tmp/ex_shared" "$S/tests/cli/blocks.mtx" 3 2>&1)
    [ "$got" = "$want" ] && ok "examples/cluster.c built with pkg-config (shared) gives the build's labels" \
                         || bad "the pkg-config (shared) example printed other labels"
    LD_LIBRARY_PATH=$(dirname "$lib") ldd "$tmp/ex_shared" | grep -q "$(dirname "$lib")/libmmnc.so" && ok "it loads the installed libmmnc.so" \
        || bad "the example does not load the installed libmmnc.so: $(ldd "$tmp/ex_shared" | grep mmnc)"
else
    bad "examples/cluster.c did not compile with pkg-config --cflags --libs mmnc:"; cat "$tmp/cc.log"
fi
# shellcheck disable=SC2046
if $CC -o "$tmp/ex_static" "$S/examples/cluster.c" $(pkg-config --static --cflags mmnc) \
      "$(dirname "$lib")/libmmnc.a" $(pkg-config --static --libs-only-L --libs-only-other mmnc) \
      $(pkg-config --static --libs-only-l mmnc | sed 's/-lmmnc//') 2>"$tmp/cc.log"; then
    got=$("$tmp/ex_static" "$S/tests/cli/blocks.mtx" 3 2>&1)
    [ "$got" = "$want" ] && ok "examples/cluster.c linked statically with pkg-config --static gives the build's labels" \
                         || bad "the static example printed other labels"
else
    bad "examples/cluster.c did not link with pkg-config --static:"; cat "$tmp/cc.log"
fi
"$P/bin/mmnc" --version >/dev/null 2>&1 && ok "the installed mmnc runs" || bad "the installed mmnc does not run"

# man pages: one per command, found by man, every option on its page
M=$(find "$P" -type d -name man1 | head -1)
cmds=$("$P/bin/mmnc" --help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
[ -n "$M" ] && [ -f "$M/mmnc.1" ] && ok "man page mmnc.1" || bad "no mmnc.1 under $P"
for c in $cmds; do
    page=$M/mmnc-$c.1
    if [ ! -f "$page" ]; then bad "no man page for mmnc $c"; continue; fi
    text=$(sed 's/\\-/-/g; s/\\e/\\/g' "$page")
    missing=""
    for o in $("$P/bin/mmnc" "$c" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -q -- "$o" <<<"$text" || missing="$missing $o"
    done
    [ -z "$missing" ] && ok "mmnc-$c.1 has every option of mmnc $c --help" || bad "mmnc-$c.1 lacks:$missing"
done
if command -v man >/dev/null; then
    MANPATH=$(dirname "$M") man -w mmnc-cluster >/dev/null 2>&1 && ok "man finds mmnc-cluster through MANPATH" \
        || bad "man -w mmnc-cluster failed with MANPATH=$(dirname "$M")"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
