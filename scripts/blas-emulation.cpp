/* blas-emulation.cpp -- the GPU vector kernels of the solvers
 * (kernels/solvers/blas_gpu.cuh, included whole: the kernels AND the host
 * code that launches them and reduces) run on the host without a GPU or
 * nvcc, checked against solver_blas_cpu (scripts/blas-emulation builds and
 * runs it; tests/emulation.bats in `make check`, any CUDA=).
 *
 * Device memory is host memory (blas_dev_alloc = calloc, the gpu_* copies
 * memcpy: scripts/gpu-util-on-host.h; gpu/spinor.c compiled as a CUDA
 * build compiles it); a launch runs
 * its blocks in order, each block's GPU_RED_BS threads one after the other,
 * or, for the reductions (__syncthreads in reduce.cuh's tree), as fibers
 * between the barriers (scripts/cuda-on-host.h).  Built with BL_RED_NB=2
 * (scripts/blas-emulation): a reduction has at most 2 blocks, so each
 * thread takes several grid-stride steps, as on a large vector on the GPU.  The checks are
 * tests/gpu/blas_checks.h's, the same the real GPU runs
 * (tests/gpu/test_gpu_blas.c):
 *   - kernels on 77 sites x 24 reals (Wilson) and 45 sites x 6 reals
 *     (staggered: ncomp 8, two padding reals per site), neither a multiple
 *     of 32 sites: every elementwise kernel in every pair of precisions
 *     gives the CPU's bits and keeps the padding zero, cdot and norm2 within
 *     1e-13, the half round trip within 2^-15;
 *   - whole solves (CG, BiCGstab, CGNE, multi-shift CG; double, single and
 *     half sloppy; tol 1e-10) with the emulated kernels and a site-local
 *     operator on the device layout against the same solves with
 *     solver_blas_cpu: converged, solutions within 1e-8, iterations within
 *     BLAS_EMU_MARGIN;
 *   - the fused kernels (multi_axpy, multi_caxpby, axpy_norm2, axpy_cdot;
 *     tests/gpu/blas_fused_checks.h) in every pair of precisions: the bits
 *     of the unfused GPU sequence (vectors and reductions), the CPU's bits
 *     for the vectors; 5 vectors on 77 x 24, BL_MULTI_MAX + 3 on 45 x 6;
 *   - determinism (trivial here: it is the real GPU's check).
 * Prints one line per case and "blas-emulation: N passed, M failed". */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"

static unsigned long long emu_launches;
#define BLAS_ON_HOST_COUNT emu_launches /* every launch counted */
#include "blas-gpu-on-host.h"

/* ---- the device entry points spinor.c and the checks call: host memory */
#include "gpu-util-on-host.h"

#include "unit.h"
#include "blas_checks.h"
#include "blas_fused_checks.h"

#ifndef BLAS_EMU_MARGIN
#define BLAS_EMU_MARGIN 3
#endif

int main(int argc, char **argv)
{
    bc_verbose = argc > 1 && !strcmp(argv[1], "-v");
    struct solver_blas *gpu = blas_gpu_make(NULL), *cpu = solver_blas_cpu_open(NULL);
    if (!gpu || !cpu) lat_die(1, "blas-emulation", "out of memory");
    bc_kernels(gpu, cpu, 77, 24);
    bc_kernels(gpu, cpu, 45, 6);
    bf_fused(gpu, cpu, 77, 24, 5);
    bf_fused(gpu, cpu, 45, 6, BL_MULTI_MAX + 3); /* two launches of a multi kernel */
    int w1 = bc_solves(gpu, cpu, 77, 24, BLAS_EMU_MARGIN);
    int w2 = bc_solves(gpu, cpu, 45, 6, BLAS_EMU_MARGIN);
    bc_determinism(gpu, 45, 6);
    printf("largest iteration difference GPU - CPU: %d (Wilson-sized), %d (staggered-sized); %llu kernel launches\n", w1, w2,
           emu_launches);
    blas_gpu_destroy(gpu);
    solver_blas_cpu_close(cpu);
    printf("blas-emulation: %d passed, %d failed\n", unit_pass, unit_fail);
    return unit_fail ? 1 : 0;
}
