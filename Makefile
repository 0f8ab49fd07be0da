# lat -- lattice QCD toolkit.  GNU Make.
#
#   make            build every program into bin/
#   make check      C unit tests, the regression corpus and Bats tests (CPU)
#   make check-gpu  physics and GPU-vs-CPU checks on a GPU
#   make bench      benchmarks (print numbers)
#   make install PREFIX=/usr/local
#
# Switches (each detected when not given; the first build records what it
# used in build/config.mk, and later `make`s keep it unless told otherwise,
# so `make CUDA=0 && make install` does not rebuild with CUDA):
#   CUDA=0|1   the CUDA backend (nvcc and libcudart_static.a found)
#   MPI=0|1    MPI ranks (mpicc found)
#   FFT=0|1    FFTW3 on the CPU, cuFFT with CUDA (fftw3.h found)
# CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS from the command line are added to
# the project's own flags (LAT_CFLAGS, ...), never replace them:
#   make CFLAGS='-O1 -g -fsanitize=address,undefined' LDFLAGS=-fsanitize=address,undefined
#
# Layout (SPEC §10, bottom to top): common/{base,math,lattice,io},
# kernels/{cpu,gpu,fft}, kernels/{gaugefix,heatbath,fourier,solvers,hmc}, tools/shared, tools.
# Every folder with .c/.cu files becomes build/lib<folder>.a; a program
# links the archives in that order and takes only the objects it uses.
# kernels/*/cpu.c and kernels/dirac/staggered_cpu.c (the CPU sweeps) are compiled once per precision variant
# (d = double, s = single, m = mixed: single storage, double arithmetic).
# Header dependencies come from the compilers (-MMD): changing a header
# rebuilds only the objects that include it.

CC       ?= gcc
PREFIX   ?= /usr/local
CFLAGS   ?= -O2 -g
NVCC_OPT ?= -O3
LAT_CFLAGS := -fopenmp -std=c11 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
              -Icommon -Ikernels -Itools -MMD -MP
# MPFR (kernels/rational/remez.c, the RHMC's Remez algorithm): required;
# without its header remez.c stops the build with a message saying so
LAT_LDLIBS := -lmpfr -lgmp -lm

-include build/config.mk

# ---- CUDA -------------------------------------------------------------------
NVCC_FOUND := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
NVCC    ?= $(NVCC_FOUND)
ifeq ($(origin CUDA),undefined)
CUDA := $(if $(SAVED_CUDA),$(SAVED_CUDA),$(if $(NVCC_FOUND),1,0))
endif
CUDA_ARCH ?= -arch=sm_90
LAT_NVCCFLAGS := $(NVCC_OPT) $(CUDA_ARCH) -std=c++17 -Icommon -Ikernels -Xcompiler -Wall --expt-relaxed-constexpr -MMD -MP
# Where libcudart_static.a lives: nvcc may be a wrapper script elsewhere on
# PATH (/usr/local/bin/nvcc), so ask nvcc for its own top directory (TOP=)
# and try the usual library folders under it and under /usr/local/cuda.
ifeq ($(CUDA),1)
CUDA_TOP := $(shell $(NVCC) --dryrun -c -x cu /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p' | head -n1)
ifndef CUDA_LIBDIR
CUDA_LIBDIR := $(firstword $(foreach d,$(CUDA_TOP)/lib64 $(CUDA_TOP)/lib $(CUDA_TOP)/targets/x86_64-linux/lib \
    $(patsubst %/bin/nvcc,%,$(NVCC))/lib64 /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu,\
    $(if $(wildcard $(d)/libcudart_static.a),$(d))))
endif
ifeq ($(CUDA_LIBDIR),)
$(warning nvcc found at $(NVCC) but no libcudart_static.a beside it: building without CUDA (CUDA=0))
override CUDA := 0
endif
endif

# ---- MPI --------------------------------------------------------------------
# MPI=1: every program is built with MPI (-DLAT_HAVE_MPI) and runs as ranks
# when mpirun starts it; started plainly it does not touch MPI (base/comm.h).
ifeq ($(origin MPI),undefined)
MPI := $(if $(SAVED_MPI),$(SAVED_MPI),$(if $(shell command -v mpicc 2>/dev/null),1,0))
endif
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null || mpicc -compile_info 2>/dev/null | cut -d' ' -f2-)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null || mpicc -link_info 2>/dev/null | cut -d' ' -f2-)
LAT_CFLAGS += -DLAT_HAVE_MPI=1 $(MPI_CFLAGS)
LAT_LDLIBS += $(MPI_LIBS)
endif

# ---- FFT (the Fourier-accelerated gauge fixing) -----------------------------
ifeq ($(origin FFT),undefined)
FFT := $(if $(SAVED_FFT),$(SAVED_FFT),$(if $(wildcard /usr/include/fftw3.h),1,0))
endif
ifeq ($(FFT),1)
LAT_CFLAGS += -DLAT_HAVE_FFTW=1
FFT_LIBS   := -lfftw3f -lfftw3
ifeq ($(CUDA),1)
# cuFFT: the static library when the toolkit has it, else the shared one
# (then lat-fourier needs libcufft.so.12 at run time: LD_LIBRARY_PATH)
CUFFT_SO_DIR := $(firstword $(foreach d,$(CUDA_LIBDIR) $(CUDA_TOP)/lib $(CUDA_TOP)/lib64,$(if $(wildcard $(d)/libcufft.so),$(d))))
ifneq ($(wildcard $(CUDA_LIBDIR)/libcufft_static.a),)
LAT_CFLAGS += -DLAT_HAVE_CUFFT=1
LAT_NVCCFLAGS += -DLAT_HAVE_CUFFT=1
FFT_LIBS   += -L$(CUDA_LIBDIR) -lcufft_static -lculibos
else ifneq ($(CUFFT_SO_DIR),)
LAT_CFLAGS += -DLAT_HAVE_CUFFT=1
LAT_NVCCFLAGS += -DLAT_HAVE_CUFFT=1
FFT_LIBS   += -L$(CUFFT_SO_DIR) -lcufft
endif
endif
endif

# ---- sources ----------------------------------------------------------------
# the folders in link order, top of SPEC §10 first
LIB_DIRS := tools/shared kernels/hmc kernels/heatbath kernels/fourier kernels/gaugefix kernels/dirac kernels/solvers kernels/rational kernels/gpu kernels/fft kernels/cpu \
            common/io common/lattice common/base
lib_name = build/lib$(notdir $(1)).a
VARIANT_SRC := $(wildcard kernels/*/cpu.c) kernels/dirac/staggered_cpu.c
ifeq ($(CUDA),1)
GPU_ONLY_EXCLUDE := kernels/gpu/nocuda.c
else
GPU_ONLY_EXCLUDE :=
endif
# the objects of one folder: plain C once, cpu.c per variant, .cu with CUDA
dir_objs = $(patsubst %.c,build/%.o,$(filter-out $(VARIANT_SRC) $(GPU_ONLY_EXCLUDE),$(wildcard $(1)/*.c))) \
           $(foreach v,d s m,$(patsubst %.c,build/%_$(v).o,$(filter $(1)/%,$(VARIANT_SRC)))) \
           $(if $(filter 1,$(CUDA)),$(patsubst %.cu,build/%.cu.o,$(wildcard $(1)/*.cu)))
LIBS := $(foreach d,$(LIB_DIRS),$(if $(strip $(call dir_objs,$(d))),$(call lib_name,$(d))))

TOOLS       := $(patsubst tools/%.c,bin/%,$(wildcard tools/lat-*.c))
UNIT_TESTS  := $(patsubst tests/unit/%.c,build/tests/%,$(wildcard tests/unit/test_*.c))
# bench/*.c are programs, but for the helpers linked into some of them
BENCH_HELPERS := bench/gpu_metrics.c
BENCHES     := $(patsubst bench/%.c,build/bench/%,$(filter-out $(BENCH_HELPERS),$(wildcard bench/*.c)))
GPU_TESTS   :=
LINK_CUDA   :=
ifeq ($(CUDA),1)
GPU_TESTS   := $(patsubst tests/gpu/%.c,build/gpu-tests/%,$(wildcard tests/gpu/test_*.c))
LAT_CFLAGS  += -DLAT_HAVE_CUDA=1
LINK_CUDA   := -L$(CUDA_LIBDIR) -lcudart_static -lrt -lpthread -ldl -lstdc++
endif
# archives as a group (an archive may use one further down and, inside a
# folder, back); --as-needed: no shared library a program does not call
LINK = -Wl,--as-needed -Wl,--start-group $(LIBS) -Wl,--end-group $(LINK_CUDA) $(FFT_LIBS) $(LAT_LDLIBS) $(LDFLAGS) $(LDLIBS)
COMPILE = $(CC) $(LAT_CFLAGS) $(CPPFLAGS) $(CFLAGS)

.DEFAULT_GOAL := all
.PHONY: FORCE all check check-gpu bench install clean deps demo

# The switches of this build, kept for later makes; every object is rebuilt
# when the configuration changes (make CUDA=0 after a CUDA build must not
# link stale GPU objects).
CONFIG := CUDA=$(CUDA) MPI=$(MPI) FFT=$(FFT) CC=$(CC) CFLAGS=$(CFLAGS) CPPFLAGS=$(CPPFLAGS) NVCC_OPT=$(NVCC_OPT)
build/.config: FORCE
	@mkdir -p build; echo '$(CONFIG)' | cmp -s - $@ || echo '$(CONFIG)' > $@
	@printf 'SAVED_CUDA := $(CUDA)\nSAVED_MPI := $(MPI)\nSAVED_FFT := $(FFT)\n' | cmp -s - build/config.mk || \
	    printf 'SAVED_CUDA := $(CUDA)\nSAVED_MPI := $(MPI)\nSAVED_FFT := $(FFT)\n' > build/config.mk
FORCE:

all: $(TOOLS) $(UNIT_TESTS) $(BENCHES) $(GPU_TESTS)

build/%.o: %.c build/.config
	@mkdir -p $(dir $@)
	$(COMPILE) -c $< -o $@
build/%_d.o: %.c build/.config
	@mkdir -p $(dir $@)
	$(COMPILE) -DLAT_VARIANT_D -DLAT_REAL=double -c $< -o $@
build/%_s.o: %.c build/.config
	@mkdir -p $(dir $@)
	$(COMPILE) -DLAT_VARIANT_S -DLAT_REAL=float -c $< -o $@
build/%_m.o: %.c build/.config
	@mkdir -p $(dir $@)
	$(COMPILE) -DLAT_VARIANT_M -DLAT_REAL=double -c $< -o $@
build/%.cu.o: %.cu build/.config
	@mkdir -p $(dir $@)
	$(NVCC) $(LAT_NVCCFLAGS) -c $< -o $@

define lib_rule
$(call lib_name,$(1)): $(call dir_objs,$(1))
	@mkdir -p build
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach d,$(LIB_DIRS),$(eval $(call lib_rule,$(d))))

bin/%: tools/%.c $(LIBS) build/.config
	@mkdir -p bin build/tools
	$(COMPILE) -MF build/tools/$*.d $< $(LINK) -o $@
build/tests/%: tests/unit/%.c $(LIBS) build/.config
	@mkdir -p build/tests
	$(COMPILE) -Itests/unit $< $(LINK) -o $@
# GPU tests (tests/gpu, CUDA=1 only) live apart from build/tests, which
# `make check` runs on GPU-less machines; `make check-gpu` runs them.
build/gpu-tests/%: tests/gpu/%.c $(LIBS) build/.config
	@mkdir -p build/gpu-tests
	$(COMPILE) -Itests/unit -Itests/gpu $< $(LINK) -o $@
build/bench/%: bench/%.c $(LIBS) build/.config
	@mkdir -p build/bench
	$(COMPILE) $< $(LINK) -o $@
# bench/dirac_gpu's and bench/staggered_gpu's hardware counters
# (LAT_GPU_METRICS, bench/gpu_metrics.h): CUPTI's range profiler, for those
# programs alone.  libcupti loads
# libnvperf_host and libnvperf_target itself; they are linked all the same
# (--no-as-needed) so that ldd names all three (scripts/gpu-dirac-run's pack
# copies what ldd names).  cupti_profiler_host.h includes C++'s <string>: an empty
# one in build/cupti-c, searched after the system headers, for this C file.
# Without CUPTI in the toolkit gpu_metrics.c compiles to stubs.
ifeq ($(CUDA),1)
CUPTI_LIBDIR := $(firstword $(foreach d,$(CUDA_LIBDIR) $(CUDA_TOP)/extras/CUPTI/lib64,$(if $(wildcard $(d)/libcupti.so),$(d))))
CUPTI_INCDIR := $(firstword $(foreach d,$(CUDA_TOP)/include $(CUDA_TOP)/extras/CUPTI/include,$(if $(wildcard $(d)/cupti_range_profiler.h),$(d))))
ifneq ($(and $(CUPTI_LIBDIR),$(CUPTI_INCDIR)),)
CUPTI_CFLAGS := -DLAT_HAVE_CUPTI=1 $(addprefix -I,$(sort $(CUDA_TOP)/include $(CUPTI_INCDIR))) -idirafter build/cupti-c
CUPTI_LIBS   := -L$(CUPTI_LIBDIR) -Wl,-rpath,$(abspath $(CUPTI_LIBDIR)) -lcupti -Wl,--no-as-needed -lnvperf_host -lnvperf_target -Wl,--as-needed
endif
build/cupti-c/string:
	@mkdir -p build/cupti-c && : > $@
build/bench/gpu_metrics.o: bench/gpu_metrics.c build/.config | build/cupti-c/string
	@mkdir -p build/bench
	$(COMPILE) $(CUPTI_CFLAGS) -c $< -o $@
METRICS_BENCHES := build/bench/dirac_gpu build/bench/staggered_gpu
$(METRICS_BENCHES): build/bench/%: bench/%.c build/bench/gpu_metrics.o $(LIBS) build/.config
	@mkdir -p build/bench
	$(COMPILE) $< build/bench/gpu_metrics.o $(LINK) $(CUPTI_LIBS) -o $@
endif

-include $(shell find build -name '*.d' 2>/dev/null)

deps:
	sh scripts/install-deps

demo: all
	sh scripts/demo

check: all
	FUZZ_CHECK_SECONDS=$(FUZZ_CHECK_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" tests/run

check-gpu: all
	tests/run-gpu

bench: all
	sh bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	for p in pipelines/lat-*; do [ -f "$$p" ] && install -m 755 "$$p" $(DESTDIR)$(PREFIX)/bin/ || true; done
	install -m 644 man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/man7/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/

clean:
	rm -rf build bin

-include tests/fuzz/fuzz.mk
