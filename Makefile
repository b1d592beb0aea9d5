# Thin front over CMake (like CSparse's Makefile): `make deps demo`, `make check`.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= 2
CMAKE ?= cmake
DEPS = build-essential cmake pkg-config libopenblas-dev liblapacke-dev libglpk-dev libmatio-dev zlib1g-dev liblzma-dev gnuplot-nox libopenmpi-dev openmpi-bin
SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO = $(BUILD)/demo

.PHONY: all deps bench-deps bench-tools demo check asan bench clean

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
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends python3-numpy python3-scipy python3-sklearn python3-gensim

# The main job on the shipped novel: word co-occurrences, then 20 clusters of words.
demo: all
	mkdir -p $(DEMO)
	$(BUILD)/mmnc cooc data/great-expectations.txt.gz --window 5 --min-count 20 -o $(DEMO)/ge.mtx
	$(BUILD)/mmnc cluster $(DEMO)/ge.mtx --names $(DEMO)/ge.vocab --row-names $(DEMO)/ge.vocab \
	    -k 20 -o $(DEMO)/ge

check: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DMMNC_SANITIZE=ON
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# The benchmark tools alone (bench/stream.c, itertime.c, kernel-variants.c -> $(BUILD)/bench/).
bench-tools: $(BUILD)/Makefile
	$(CMAKE) --build $(BUILD) -j $(JOBS) --target mmnc_stream mmnc_itertime mmnc_kernel_variants

bench: all
	bench/run-all $(BUILD)/mmnc $(BUILD)/bench

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
