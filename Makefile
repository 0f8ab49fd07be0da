# lat -- lattice gauge-fixing toolkit.  GNU Make.
#
#   make            build every program into bin/ (CUDA backend when nvcc is
#                   found, CUDA=0 skips it; MPI variants when mpicc is found,
#                   MPI=0 skips them)
#   make check      C unit tests and Bats tests (CPU only)
#   make check-gpu  physics and GPU-vs-CPU checks on a GPU
#   make bench      benchmarks (print numbers)
#   make install PREFIX=/usr/local
#
# Layout: common/*.c -> build/libcommon.a; kernels/*_cpu.c are compiled once
# per precision variant (d = double, s = single, m = mixed: single storage,
# double arithmetic); kernels/*.cu with nvcc; tools/lat-*.c -> bin/lat-*;
# tests/unit/test_*.c -> build/tests/; tests/gpu/test_*.c -> build/gpu-tests/
# (CUDA only, run by make check-gpu); bench/*.c -> build/bench/.

CC      ?= gcc
PREFIX  ?= /usr/local
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
override CFLAGS += -fopenmp -std=c11 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Icommon -Ikernels
LDLIBS  += -lm

NVCC_FOUND := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
NVCC    ?= $(NVCC_FOUND)
ifeq ($(NVCC_FOUND),)
CUDA    ?= 0
else
CUDA    ?= 1
endif
CUDA_ARCH ?= -arch=sm_90
NVCCFLAGS ?= -O3 $(CUDA_ARCH) -std=c++17 -Icommon -Ikernels -Xcompiler -Wall --expt-relaxed-constexpr
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

MPICC_FOUND := $(shell command -v mpicc 2>/dev/null)
ifeq ($(MPICC_FOUND),)
MPI     ?= 0
else
MPI     ?= 1
endif
# MPI=1: every program is built with MPI (-DLAT_HAVE_MPI) and runs as ranks
# when mpirun starts it; started plainly it does not touch MPI (common/comm.h).
ifeq ($(MPI),1)
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null || mpicc -compile_info 2>/dev/null | cut -d' ' -f2-)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null || mpicc -link_info 2>/dev/null | cut -d' ' -f2-)
override CFLAGS += -DLAT_HAVE_MPI=1 $(MPI_CFLAGS)
LDLIBS     += $(MPI_LIBS)
endif

COMMON_SRC  := $(wildcard common/*.c)
COMMON_OBJ  := $(COMMON_SRC:%.c=build/%.o)
VARIANT_SRC := $(wildcard kernels/*_cpu.c)
KERNEL_SRC  := $(filter-out $(VARIANT_SRC),$(wildcard kernels/*.c))
KERNEL_OBJ  := $(KERNEL_SRC:%.c=build/%.o) \
               $(foreach v,d s m,$(VARIANT_SRC:kernels/%.c=build/kernels/%_$(v).o))
CUDA_SRC    := $(wildcard kernels/*.cu)
TOOLS       := $(patsubst tools/%.c,bin/%,$(wildcard tools/lat-*.c))
UNIT_TESTS  := $(patsubst tests/unit/%.c,build/tests/%,$(wildcard tests/unit/test_*.c))
BENCHES     := $(patsubst bench/%.c,build/bench/%,$(wildcard bench/*.c))

GPU_TESTS   :=
ifeq ($(CUDA),1)
GPU_TESTS   := $(patsubst tests/gpu/%.c,build/gpu-tests/%,$(wildcard tests/gpu/test_*.c))
CUDA_OBJ    := $(CUDA_SRC:kernels/%.cu=build/cuda/%.o)
override CFLAGS += -DLAT_HAVE_CUDA=1
LINK_CUDA   := -L$(CUDA_LIBDIR) -lcudart_static -lrt -lpthread -ldl -lstdc++
else
CUDA_OBJ    := build/kernels/nocuda/gpu_stub.o
LINK_CUDA   :=
endif

.DEFAULT_GOAL := all
LIBS := build/libkernels.a build/libcommon.a

# Everything is rebuilt when the configuration changes (make CUDA=0 after a
# CUDA build must not link stale GPU objects).
CONFIG := CUDA=$(CUDA) MPI=$(MPI) CC=$(CC) CFLAGS=$(CFLAGS) NVCCFLAGS=$(NVCCFLAGS)
build/.config: FORCE
	@mkdir -p build; echo '$(CONFIG)' | cmp -s - $@ || echo '$(CONFIG)' > $@
FORCE:

.PHONY: FORCE all check check-gpu bench install clean deps demo
all: $(TOOLS) $(UNIT_TESTS) $(BENCHES) $(GPU_TESTS)

build/%.o: %.c $(wildcard common/*.h kernels/*.h) build/.config
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

build/kernels/%_cpu_d.o: kernels/%_cpu.c $(wildcard common/*.h kernels/*.h) build/.config
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DLAT_VARIANT_D -DLAT_REAL=double -c $< -o $@
build/kernels/%_cpu_s.o: kernels/%_cpu.c $(wildcard common/*.h kernels/*.h) build/.config
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DLAT_VARIANT_S -DLAT_REAL=float -c $< -o $@
build/kernels/%_cpu_m.o: kernels/%_cpu.c $(wildcard common/*.h kernels/*.h) build/.config
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DLAT_VARIANT_M -DLAT_REAL=double -c $< -o $@

build/cuda/%.o: kernels/%.cu $(wildcard common/*.h kernels/*.h kernels/*.cuh) build/.config
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

build/libcommon.a: $(COMMON_OBJ)
	@mkdir -p build
	rm -f $@ && ar rcs $@ $^
build/libkernels.a: $(KERNEL_OBJ) $(CUDA_OBJ)
	@mkdir -p build
	rm -f $@ && ar rcs $@ $^

bin/%: tools/%.c $(LIBS)
	@mkdir -p bin
	$(CC) $(CFLAGS) $< $(LIBS) $(LINK_CUDA) $(LDLIBS) -o $@

build/tests/%: tests/unit/%.c tests/unit/unit.h $(LIBS)
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -Itests/unit $< $(LIBS) $(LINK_CUDA) $(LDLIBS) -o $@

# GPU tests (tests/gpu, CUDA=1 only) live apart from build/tests, which
# `make check` runs on GPU-less machines; `make check-gpu` runs them.
build/gpu-tests/%: tests/gpu/%.c $(wildcard tests/gpu/*.h) tests/unit/unit.h $(LIBS)
	@mkdir -p build/gpu-tests
	$(CC) $(CFLAGS) -Itests/unit -Itests/gpu $< $(LIBS) $(LINK_CUDA) $(LDLIBS) -o $@

build/bench/%: bench/%.c $(LIBS)
	@mkdir -p build/bench
	$(CC) $(CFLAGS) $< $(LIBS) $(LINK_CUDA) $(LDLIBS) -o $@

deps:
	sh scripts/install-deps

demo: all
	sh scripts/demo

check: all
	tests/run

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
