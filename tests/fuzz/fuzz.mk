# tests/fuzz/fuzz.mk -- fuzzing and sanitizer runs; included by the Makefile
# (-include tests/fuzz/fuzz.mk).  GNU Make.
#
#   make fuzz SECONDS=N      every fuzz target for N seconds (default 60);
#                            FUZZ_TARGETS="ildg xml" picks some
#   make fuzz-check          the fuzz smoke alone: FUZZ_CHECK_SECONDS
#                            per target (default 8: five targets in 40 s;
#                            0 skips it); the regression corpus is run
#                            first.  `make check` builds the fuzzers when
#                            clang is there and tests/run runs the smoke
#                            beside its other tests
#   make check-sanitize      the whole `make check` (tests/run; the fuzzers
#                            are sanitized already) under ASan + UBSan, built
#                            in a copy of the tree (build/sanitize/lat), so
#                            build/ and bin/ are not touched; every report is
#                            also written to build/sanitize/reports, and any
#                            report fails it (leak checking is off: the
#                            programs end by exit() with their data live,
#                            and Open MPI keeps its own); LAT_SANITIZE=1 is
#                            set for the tests (a test that cannot run
#                            under ASan skips, saying so)
#
# Targets (tests/fuzz/fuzz_*.c, libFuzzer, clang's -fsanitize=fuzzer with
# ASan and UBSan, every UBSan finding fatal; the target's stderr is closed
# (-close_fd_mask=2: the readers' error lines), sanitizer reports go to
# build/fuzz/TARGET.san.* and fail the run):
#   ildg   ildg_read on a stream (the pipe path), then the observables
#   nersc  nersc_read on a stream, then the plaquette
#   conf   conf_read on a regular file (format detection, size checks),
#          then a write to /dev/null
#   xml    the XML reader and the message sanitiser
#   prop   prop_read (propagator files, lat-meson's input) on a regular
#          file and on a stream, then every real of what it accepted
# Seeds: tests/fuzz/corpus/{ildg,nersc,xml} (made by mkhostile.py --seeds,
# plus hostile files); corpus/conf (a 2^4 SU(3) file in each of MILC,
# openQCD, HiRep and SciDAC: lat-heatbath --lattice 2 --seed 5, then
# lat-convert --to F; conf also reads the ILDG and NERSC seeds) and
# corpus/prop (lat-propagator -k 0.1 on a 2^4 SU(2) file: a point source in
# 32 bits, a wall source in 64 on its Coulomb-gauge copy); dictionary
# tests/fuzz/lat.dict; inputs the fuzzer found (crashes, slow or large
# inputs, minimised) go to tests/fuzz/regress, which every run reads first
# and tests/hostile.bats runs through the programs.  The corpus a run grows stays in build/fuzz/work (not kept).
# Limits (tests/fuzz/run-fuzz): one allocation at most 64 MiB
# (-malloc_limit_mb, the programs' budget), RSS 2 GiB (ASan's own overhead
# included), 2 s per input, inputs up to 64 KiB.

FUZZ_CC            ?= clang
SECONDS            ?= 60
FUZZ_CHECK_SECONDS ?= 8
FUZZ_TARGETS       ?= ildg nersc conf xml prop
FUZZ_DIR           := build/fuzz
FUZZ_CFLAGS        := -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Icommon -Ikernels \
                      -Wno-unknown-pragmas -fno-omit-frame-pointer \
                      -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_WRAP          := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=fopen,--wrap=fclose
FUZZ_OBJ           := $(patsubst common/%.c,$(FUZZ_DIR)/obj/%.o,$(wildcard common/*/*.c))
FUZZ_BINS          := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_HAVE_CLANG    := $(shell command -v $(FUZZ_CC) 2>/dev/null)

.PHONY: fuzz fuzz-build fuzz-check check-sanitize

$(FUZZ_DIR)/obj/%.o: common/%.c $(wildcard common/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h tests/fuzz/fuzz_stream.h $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests/fuzz -fsanitize=fuzzer $< $(FUZZ_OBJ) $(FUZZ_WRAP) -lm -o $@

fuzz-build: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_OBJ)

# tests/fuzz/run-fuzz TARGET SECONDS runs one (limits and verdict there)
fuzz: $(FUZZ_BINS)
	for t in $(FUZZ_TARGETS); do tests/fuzz/run-fuzz $$t $(SECONDS) || exit 1; done

ifneq ($(FUZZ_HAVE_CLANG),)
ifneq ($(FUZZ_CHECK_SECONDS),0)
check: fuzz-build
endif
fuzz-check: $(FUZZ_BINS)
	for t in $(FUZZ_TARGETS); do tests/fuzz/run-fuzz $$t $(FUZZ_CHECK_SECONDS) || exit 1; done
else
fuzz-check:
	@echo "fuzz-check: $(FUZZ_CC) not found: the fuzzers are skipped (apt-get install clang)"
endif

# ---- the whole make check under ASan + UBSan ---------------------------------
SAN_ROOT  := build/sanitize
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
check-sanitize:
	rm -rf $(SAN_ROOT)/lat && mkdir -p $(SAN_ROOT)/lat
	@# the tests look for ../shared beside the tree
	[ ! -d ../shared ] || ln -sfn $(abspath ../shared) $(SAN_ROOT)/shared
	tar --exclude=./build --exclude=./bin --exclude=./.git -cf - . | (cd $(SAN_ROOT)/lat && tar xf -)
	$(MAKE) -C $(SAN_ROOT)/lat CUDA=0 CFLAGS='$(SAN_FLAGS)' LDFLAGS='-fsanitize=address,undefined' all
	@# every report goes to a file of its own too: a report the tests do
	@# not look at (stderr of a helper, an MPI rank) still fails the run
	rm -rf $(SAN_ROOT)/reports && mkdir -p $(SAN_ROOT)/reports
	cd $(SAN_ROOT)/lat && LAT_SANITIZE=1 ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:allocator_may_return_null=1:log_path=$(abspath $(SAN_ROOT))/reports/asan \
	    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(abspath $(SAN_ROOT))/reports/ubsan tests/run
	@# the host emulation of the GPU kernels runs a block's threads as
	@# fibers (scripts/cuda-on-host.h: swapcontext); ASan warns once a
	@# process that it may then report falsely.  A file holding that warning
	@# alone is no report; any other line is
	@for r in $(SAN_ROOT)/reports/*; do [ -f "$$r" ] || continue; \
	    grep -qv "WARNING: ASan doesn't fully support makecontext/swapcontext" "$$r" || rm -f "$$r"; done
	@if [ -n "$$(ls -A $(SAN_ROOT)/reports)" ]; then head -50 $(SAN_ROOT)/reports/*; \
	    echo "check-sanitize: sanitizer reports in $(SAN_ROOT)/reports"; exit 1; fi
	@echo "check-sanitize: no sanitizer report"
