# Thin front over CMake (like CSparse's Makefile): `make deps demo`, `make check`.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= mtx triplets libsvm bin vectors labels names cooc model dense docs docs_files
JOBS ?= 2
CMAKE ?= cmake
DEPS = build-essential cmake pkg-config libopenblas-dev liblapacke-dev libglpk-dev libmatio-dev zlib1g-dev liblzma-dev gnuplot-nox libopenmpi-dev openmpi-bin \
       python3-dev python3-venv python3-wheel python3-setuptools python3-numpy python3-scipy python3-sklearn python3-pandas python3-pytest
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO = $(BUILD)/demo
PREFIX ?= /usr/local

.PHONY: all deps bench-deps bench-tools demo check install asan fuzz bench clean

all: $(BUILD)/Makefile
	$(CMAKE) --build $(BUILD) -j $(JOBS)

$(BUILD)/Makefile:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

# Debian/Ubuntu packages the build needs.
deps:
	$(SUDO) apt-get update
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(DEPS)

# Python peers for the benchmarks (not needed to build or test).
bench-deps:
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends python3-numpy python3-scipy python3-sklearn python3-gensim wordnet-base

# The main job on the shipped novel: word co-occurrences, then 20 clusters of words.
demo: all
	mkdir -p $(DEMO)
	$(BUILD)/mmnc cooc data/great-expectations.txt.gz --window 5 --min-count 20 -o $(DEMO)/ge.mtx
	$(BUILD)/mmnc cluster $(DEMO)/ge.mtx -k 20 -o $(DEMO)/ge

check: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The binaries, libmmnc (shared and static), mmnc.h, mmnc.pc and the man
# pages under PREFIX (make install PREFIX=$$HOME/.local).
install: all
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMMNC_SANITIZE=ON
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# libFuzzer on every reader (tests/fuzz/fuzz_*.c), FUZZ_SECONDS each, with
# clang, under ASan+UBSan and a memory limit: an allocation beyond 512 MB is
# a finding (issue 19).  Corpora grow in $(FUZZ_BUILD)/corpus/NAME, from the
# seeds of tests/fuzz/corpus/NAME; a crash is saved as
# $(FUZZ_BUILD)/artifacts/NAME-crash-*: fix it and keep it in
# tests/fuzz/regress/NAME/ (replayed by `make check`).
fuzz:
	CC=clang $(CMAKE) -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMMNC_FUZZ=ON -DMMNC_TESTS=OFF \
	    -DMMNC_BENCH=OFF -DMMNC_MPI=OFF -DMMNC_OPENMP=OFF -DMMNC_MATIO=OFF -DMMNC_GLPK=OFF
	$(CMAKE) --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_harnesses
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The benchmark tools alone (bench/stream.c, itertime.c, kernel-variants.c -> $(BUILD)/bench/).
bench-tools: $(BUILD)/Makefile
	$(CMAKE) --build $(BUILD) -j $(JOBS) --target mmnc_stream mmnc_itertime mmnc_kernel_variants

bench: all
	bench/run-all $(BUILD)/mmnc $(BUILD)/bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
