/* solvers/blas_gpu.cu -- solver_blas_gpu_open/_close (blas_gpu.h): the GPU
 * vector kernels of blas_gpu.cuh launched with CUDA.  What this file adds
 * to the shared text: device memory that may run out (cudaMalloc; alloc
 * returns NULL then, as the contract of struct solver_blas says), device to
 * device copies, the launch (GPU_RED_BS threads per block, the default
 * stream, the launch error checked at once: one line, exit 1, gpu/util.cu),
 * the reductions' partials in page-locked host memory (one async copy, one
 * stream wait), the device multi-shift loop's flags (an async copy and an
 * event per ring slot, blas_gpu_multishift.cuh's BL_MS_POST / BL_MS_WAIT),
 * and the checks of open: a usable GPU, one process without a layout. */
#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
extern "C" {
#include "solvers/solvers.h"
#include "gpu/gpu.h"
#include "base/comm.h"
#include "base/log.h"
}
#include "solvers/blas_gpu.h"
#include "gpu/field.h"
#include "lattice/observables_site.h"
#include "gpu/reduce.cuh" /* GPU_RED_BS */

static void *blas_dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError(); /* out of memory is an answer here, not a sticky error */
        return NULL;
    }
    return p;
}

static void blas_dev_copy(void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
    if (e != cudaSuccess) lat_die(1, "GPU", "solver_blas_gpu copy: %s", cudaGetErrorString(e));
}

template <class K, class... A> static void blas_launch(K kernel, unsigned nb, bool barriers, A... args)
{
    (void)barriers;
    kernel<<<nb, GPU_RED_BS>>>(args...);
    gpu_check("solver_blas_gpu kernel");
}

/* the reductions' block partials: a page-locked host buffer, fetched by one
 * async copy on the default stream and one wait for that stream (a copy
 * into pageable memory is staged through a driver buffer: slower for the
 * few KiB of partials a reduction returns) */
static void *blas_pinned_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMallocHost(&p, bytes) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}
static void blas_fetch_partials(void *host, const void *dev, size_t bytes)
{
    cudaError_t e = cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, 0);
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) lat_die(1, "GPU", "solver_blas_gpu reduction: %s", cudaGetErrorString(e));
}
/* the multi-shift loop's flags (blas_gpu_multishift.cuh): an async copy
 * into page-locked memory and an event per ring slot, waited for
 * BL_MS_AHEAD iterations later (one table solves at a time in a process:
 * the events are shared) */
static cudaEvent_t blas_ms_events[8]; /* >= BL_MS_AHEAD */
static void blas_ms_post(int slot, void *host, const void *dev, size_t bytes)
{
    cudaError_t e = cudaSuccess;
    if (!blas_ms_events[slot]) e = cudaEventCreateWithFlags(&blas_ms_events[slot], cudaEventDisableTiming);
    if (e == cudaSuccess) gpu_download_async(host, dev, bytes);
    if (e == cudaSuccess) e = cudaEventRecord(blas_ms_events[slot], 0);
    if (e != cudaSuccess) lat_die(1, "GPU", "solver_blas_gpu multi-shift flags: %s", cudaGetErrorString(e));
}
static void blas_ms_wait(int slot)
{
    cudaError_t e = cudaEventSynchronize(blas_ms_events[slot]);
    if (e != cudaSuccess) lat_die(1, "GPU", "solver_blas_gpu multi-shift flags: %s", cudaGetErrorString(e));
}
#define BL_MS_POST(slot, host, dev, bytes) blas_ms_post(slot, host, dev, bytes)
#define BL_MS_WAIT(slot) blas_ms_wait(slot)
#define BL_HOST_ALLOC(bytes) blas_pinned_alloc(bytes)
#define BL_HOST_FREE(p) cudaFreeHost(p)
#define BL_FETCH_PARTIALS(host, dev, bytes) blas_fetch_partials(host, dev, bytes)

#include "solvers/blas_gpu.cuh"

extern "C" struct solver_blas *solver_blas_gpu_open(void)
{
    if (!gpu_available(NULL, 0)) return NULL;
    if (comm_size() > 1)
        lat_die(1, "solver_blas_gpu_open", "the GPU vector kernels without a reduction layout run in one process (%d ranks here)",
                comm_size());
    return blas_gpu_make(NULL);
}

extern "C" struct solver_blas *solver_blas_gpu_open_layout(const struct solver_reduce_layout *layout)
{
    if (!gpu_available(NULL, 0)) return NULL;
    return blas_gpu_make(layout);
}

extern "C" void solver_blas_gpu_device_loop(struct solver_blas *blas, const struct geometry *d)
{
    blas_gpu_device_loop(blas, d);
}

extern "C" void solver_blas_gpu_close(struct solver_blas *blas)
{
    blas_gpu_destroy(blas);
}
