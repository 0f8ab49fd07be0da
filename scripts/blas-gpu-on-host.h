/* blas-gpu-on-host.h -- the solvers' GPU vector kernels
 * (kernels/solvers/blas_gpu.cuh, kernels and their launching host code) as
 * host code, for the host emulations (scripts/{blas,dirac-slab,hmc-gpu,
 * hmc-stag}-emulation.cpp): the one copy of their stand-ins.  Include after
 * cuda-on-host.h.
 *
 * Device memory is host memory (blas_dev_alloc = calloc, zeroed;
 * blas_dev_copy = memcpy); blas_launch runs a launch's threads one after the
 * other, and a kernel with barriers (the reductions) block by block with
 * its threads as fibers (cuda_on_host_block).  If BLAS_ON_HOST_COUNT names
 * a counter (an unsigned long long declared before), every launch adds 1.
 * With BLAS_ON_HOST_ENTRY_POINTS defined: the C entry points of
 * solvers/blas_gpu.h (solver_blas_gpu_open, _open_layout, _close) too. */
#ifndef LAT_BLAS_GPU_ON_HOST_H
#define LAT_BLAS_GPU_ON_HOST_H

static void *blas_dev_alloc(size_t bytes) { return calloc(bytes ? bytes : 1, 1); }
static void blas_dev_copy(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); }
template <class K, class... A> static void blas_launch(K kernel, unsigned nb, bool barriers, A... args);
/* one launch at a time here: a chained launch is a launch */
#define blas_launch_chained blas_launch

#include "solvers/blas_gpu.cuh"

template <class K, class... A> static void blas_launch(K kernel, unsigned nb, bool barriers, A... args)
{
#ifdef BLAS_ON_HOST_COUNT
    BLAS_ON_HOST_COUNT++;
#endif
    if (!barriers) {
        cuda_on_host_grid(nb, GPU_RED_BS, [&] { kernel(args...); });
        return;
    }
    blockDim.x = GPU_RED_BS;
    for (unsigned b = 0; b < nb; b++) {
        blockIdx.x = b;
        cuda_on_host_block(GPU_RED_BS, [&] { kernel(args...); });
    }
}

#ifdef BLAS_ON_HOST_ENTRY_POINTS
#include "solvers/blas_gpu.h"
extern "C" struct solver_blas *solver_blas_gpu_open(void) { return blas_gpu_make(NULL); }
extern "C" struct solver_blas *solver_blas_gpu_open_layout(const struct solver_reduce_layout *l) { return blas_gpu_make(l); }
extern "C" void solver_blas_gpu_device_loop(struct solver_blas *b, const struct geometry *d) { blas_gpu_device_loop(b, d); }
extern "C" void solver_blas_gpu_close(struct solver_blas *b) { blas_gpu_destroy(b); }
#endif

#endif
