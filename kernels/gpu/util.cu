/* gpu_util.cu -- device memory, copies, errors and timing for the CUDA
 * backend (declared in gaugefix_gpu.h).
 *
 * Contract: every function checks the CUDA status and, on failure, ends the
 * program with one line "PROG: GPU: what: CUDA's reason" and exit status 1
 * (lat_die runs the cleanup hooks, so no partial output file is left).
 * gpu_alloc reports the size asked for and the free device memory. */
#include "gpu/field.h"
extern "C" {
#include "base/log.h"
}
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

static void die_cuda(const char *what, cudaError_t e)
{
    lat_die(1, "GPU", "%s: %s", what, cudaGetErrorString(e));
}

extern "C" void *gpu_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        size_t fr = 0, tot = 0;
        cudaGetLastError();
        if (cudaMemGetInfo(&fr, &tot) == cudaSuccess)
            lat_die(1, "GPU", "out of device memory: %s needs %.1f MiB, %.1f MiB of %.1f MiB free", what,
                    bytes / 1048576.0, fr / 1048576.0, tot / 1048576.0);
        die_cuda(what, e);
    }
    return p;
}

extern "C" void gpu_free(void *p)
{
    if (p) cudaFree(p);
}

static struct gpu_transfer_count transfers; /* the process's copies (gpu_transfer_take) */

static void count_copy(unsigned long long *bytes_sum, unsigned long long *calls, size_t bytes)
{
    *bytes_sum += bytes;
    ++*calls;
    if (bytes > transfers.largest) transfers.largest = bytes;
}

extern "C" void gpu_transfer_take(struct gpu_transfer_count *c)
{
    *c = transfers;
    transfers = gpu_transfer_count{0, 0, 0, 0, 0};
}

extern "C" void gpu_upload(void *dst, const void *src, size_t bytes)
{
    count_copy(&transfers.up_bytes, &transfers.up_calls, bytes);
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) die_cuda("copy to the device", e);
}

extern "C" void gpu_download(void *dst, const void *src, size_t bytes)
{
    count_copy(&transfers.down_bytes, &transfers.down_calls, bytes);
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) die_cuda("copy from the device", e);
}

extern "C" void gpu_transfer_note_down(size_t bytes) { count_copy(&transfers.down_bytes, &transfers.down_calls, bytes); }

extern "C" void gpu_memset(void *dst, int v, size_t bytes)
{
    cudaError_t e = cudaMemset(dst, v, bytes);
    if (e != cudaSuccess) die_cuda("memset", e);
}

extern "C" void gpu_sync(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) die_cuda(what, e);
}

extern "C" void gpu_check(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) die_cuda(what, e);
}

extern "C" void gpu_device_name(char *buf, int len)
{
    int dev = 0;
    cudaDeviceProp pr;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&pr, dev) != cudaSuccess) {
        snprintf(buf, (size_t)len, "unknown CUDA device");
        return;
    }
    snprintf(buf, (size_t)len, "%s (sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB)", pr.name, pr.major, pr.minor,
             pr.multiProcessorCount, pr.totalGlobalMem / 1073741824.0, pr.l2CacheSize >> 20);
}

extern "C" void gpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    cudaError_t e = cudaMemGetInfo(free_bytes, total_bytes);
    if (e != cudaSuccess) die_cuda("memory information", e);
}

extern "C" double gpu_copy_bandwidth(size_t bytes, int reps)
{
    char *a = (char *)gpu_alloc(bytes, "copy-bandwidth source");
    char *b = (char *)gpu_alloc(bytes, "copy-bandwidth destination");
    gpu_memset(a, 1, bytes);
    gpu_memset(b, 2, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> t;
    for (int r = -1; r < reps; r++) {
        cudaEventRecord(e0);
        cudaError_t e = cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess) die_cuda("device-to-device copy", e);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 0) t.push_back(ms * 1e-3);
    }
    gpu_sync("device-to-device copy");
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    gpu_free(a);
    gpu_free(b);
    std::sort(t.begin(), t.end());
    return 2.0 * (double)bytes / t[t.size() / 2];
}

static cudaEvent_t tev0, tev1;
static int tev_init;

extern "C" void gpu_timer_start(void)
{
    if (!tev_init) {
        cudaEventCreate(&tev0);
        cudaEventCreate(&tev1);
        tev_init = 1;
    }
    cudaEventRecord(tev0);
}

extern "C" double gpu_timer_stop(void)
{
    cudaEventRecord(tev1);
    cudaError_t e = cudaEventSynchronize(tev1);
    if (e != cudaSuccess) die_cuda("timer", e);
    gpu_check("kernel");
    float ms = 0;
    cudaEventElapsedTime(&ms, tev0, tev1);
    return ms * 1e-3;
}
