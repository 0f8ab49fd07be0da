/* solvers/blas_gpu.cu -- solver_blas_gpu_open/_close (blas_gpu.h): the GPU
 * vector kernels of blas_gpu.cuh launched with CUDA.  What this file adds
 * to the shared text: device memory that may run out (cudaMalloc; alloc
 * returns NULL then, as the contract of struct solver_blas says), device to
 * device copies, the launch (GPU_RED_BS threads per block, the default
 * stream, the launch error checked at once: one line, exit 1, gpu/util.cu),
 * the reductions' partials in page-locked host memory (one async copy, one
 * stream wait), the device multi-shift loop's flags (stored by a kernel
 * into page-locked memory, a spin on their number: BL_MS_WAIT),
 * and the checks of open: a usable GPU, one process without a layout. */
#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* a kernel that opens with gpu_chained_begin: a chained launch (gpu/chain.cuh) */
#include "gpu/chain.cuh"
template <class... P, class... A> static void blas_launch_chained(void (*kernel)(P...), unsigned nb, bool barriers, A... args)
{
    (void)barriers;
    gpu_launch_chained(kernel, nb, GPU_RED_BS, (cudaStream_t)0, args...);
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
/* the multi-shift loop's flags (blas_gpu_multishift.cuh): the |r|^2 end's
 * kernel stores them into the page-locked ring (cudaMallocHost memory is
 * mapped for the device under unified addressing), its sequence number
 * last; the host spins on that number.  Should it never come, the default
 * stream's state says why: an error, or idle with the number still
 * missing (an internal error) */
static void blas_ms_wait(const unsigned *at, unsigned seq, size_t flag_bytes)
{
    for (unsigned long n = 1; *(const volatile unsigned *)at != seq; n++) {
        if (n % (1ul << 20)) continue;
        const cudaError_t e = cudaStreamQuery(0);
        if (e == cudaSuccess && *(const volatile unsigned *)at != seq)
            lat_die(1, "GPU", "solver_blas_gpu: internal error: the multi-shift flags of iteration %u never came", seq);
        if (e != cudaSuccess && e != cudaErrorNotReady)
            lat_die(1, "GPU", "solver_blas_gpu multi-shift flags: %s", cudaGetErrorString(e));
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE); /* done and k were stored before seq */
    gpu_transfer_note_down(flag_bytes);
}
/* LAT_GPU_MS_PROFILE=1 (timing only, issue 21): events at the device
 * loop's 7 phase marks of iterations BL_PROF_FIRST .. + BL_PROF_N - 1; after
 * a solve that ran past them, one line on stderr: each phase's mean time
 * (the apply, q += sigma p with <p, q>, its end and alpha, r -= alpha q
 * with |r|^2, its end and beta and the flags, the updates, then the loop's
 * top: the host's flag wait; each with an event's cost, about 3 us) */
enum { BL_PROF_FIRST = 40, BL_PROF_N = 64, BL_PROF_MARKS = 8 }; /* marks: the multi-shift loop 7, BiCGstab's 8 */
static int blas_prof = -1;
static cudaEvent_t blas_prof_ev[BL_PROF_N + 1][BL_PROF_MARKS];
static void blas_ms_mark(int k, int phase)
{
    if (blas_prof < 0) {
        const char *e = getenv("LAT_GPU_MS_PROFILE");
        blas_prof = e && strcmp(e, "1") == 0;
    }
    const int i = k - BL_PROF_FIRST;
    if (!blas_prof || i < 0 || i > BL_PROF_N || (i == BL_PROF_N && phase > 0)) return;
    if (!blas_prof_ev[i][phase]) cudaEventCreate(&blas_prof_ev[i][phase]);
    cudaEventRecord(blas_prof_ev[i][phase], 0);
}
/* the mean time of each of the loop's nmarks phases (mark p to p + 1, the
 * last to the next iteration's first) over the profiled iterations */
static void blas_prof_report(int iterations, const char *loop, int nmarks, const char *const *phase)
{
    if (blas_prof <= 0 || iterations < BL_PROF_FIRST + BL_PROF_N + 1) return;
    cudaDeviceSynchronize();
    double us[BL_PROF_MARKS] = {0}, total = 0;
    for (int i = 0; i < BL_PROF_N; i++)
        for (int p = 0; p < nmarks; p++) {
            float ms = 0;
            cudaEvent_t a = blas_prof_ev[i][p], b = p + 1 < nmarks ? blas_prof_ev[i][p + 1] : blas_prof_ev[i + 1][0];
            if (a && b && cudaEventElapsedTime(&ms, a, b) == cudaSuccess) us[p] += 1e3 * ms / BL_PROF_N;
        }
    cudaGetLastError(); /* a timing that failed is not the next launch's error */
    fprintf(stderr, "%s device loop (rank %d, iterations %d to %d), us an iteration:", loop, comm_rank(), BL_PROF_FIRST,
            BL_PROF_FIRST + BL_PROF_N - 1);
    for (int p = 0; p < nmarks; p++) fprintf(stderr, "%s %s %.1f", p ? "," : "", phase[p], us[p]), total += us[p];
    fprintf(stderr, "; total %.1f\n", total);
}
static void blas_ms_report(int iterations)
{
    static const char *const phase[] = {"apply", "q+=sp<p,q>", "end+alpha", "r-=aq|r|^2", "end+beta+flags", "updates", "top"};
    blas_prof_report(iterations, "multi-shift", 7, phase);
}
static void blas_bi_report(int first, int end)
{
    if (first > BL_PROF_FIRST + BL_PROF_N) return; /* an earlier part of the solve reported */
    static const char *const phase[] = {"apply v", "<r0,v> alpha", "s=r-av", "apply t", "<t,s> |t|^2",
                                        "x+=ap+ws r=s-wt |r|^2 <r0,r>", "p=r+b(p-wv)", "top (the host's reliable updates)"};
    blas_prof_report(end, "BiCGstab", 8, phase);
}
#define BL_MS_MARK(k, phase) blas_ms_mark(k, phase)
#define BL_MS_REPORT(iterations) blas_ms_report(iterations)
#define BL_BI_REPORT(first, end) blas_bi_report(first, end)
#define BL_MS_WAIT(f, number) blas_ms_wait(&(f)->seq, number, sizeof *(f))
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
