/* gpu/tune.cu -- gpu_tune_choose of gpu/tune.h: the measurement of a
 * kernel's launch candidates on the device (the cache file itself is
 * tune_cache.c).  Launch files call it through gpu/launch.cuh. */
#include "gpu/tune.h"
#include "gpu/field.h"
extern "C" {
#include "base/log.h"
}
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t links_bytes(const struct gpu_field *f)
{
    return (size_t)8 * (size_t)f->nblk * (size_t)f->ncomp * GPU_LANES * (f->prec == 'd' ? 8 : 4);
}
static size_t transform_bytes(const struct gpu_field *f)
{
    return f->transform ? (size_t)2 * (size_t)f->nblk * (size_t)f->ncomp_t * GPU_LANES * (f->prec == 'd' ? 8 : 4) : 0;
}

static void restore(const struct gpu_field *f, const void *save)
{
    size_t lb = links_bytes(f), tb = transform_bytes(f);
    cudaMemcpy(f->links, save, lb, cudaMemcpyDeviceToDevice);
    if (tb) cudaMemcpy(f->transform, (const char *)save + lb, tb, cudaMemcpyDeviceToDevice);
}

/* seconds per launch of candidate c: TUNE_REPS launches back to back (a
 * kernel sequence as a run has them; the field changes, and is restored
 * by the caller at the end) */
#define TUNE_REPS 5
static double batch(int c, void (*run)(int, void *), void *arg, cudaEvent_t e0, cudaEvent_t e1)
{
    cudaEventRecord(e0);
    for (int r = 0; r < TUNE_REPS; r++) run(c, arg);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    gpu_check("a kernel launched for tuning");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return ms * 1e-3 / TUNE_REPS;
}

static int choose(const char *kernel, const struct gpu_field *f, int ncand, void (*run)(int, void *), void *arg);

extern "C" int gpu_tune_choose(const char *kernel, const struct gpu_field *f, int ncand, void (*run)(int, void *),
                               void *arg)
{
    int c = choose(kernel, f, ncand, run, arg);
    gpu_tune_note_last(c);
    return c;
}

static int choose(const char *kernel, const struct gpu_field *f, int ncand, void (*run)(int, void *), void *arg)
{
    if (ncand <= 1) return 0;
    int forced = gpu_tune_forced();
    if (forced >= 0) return forced < ncand ? forced : 0;
    const char *off = getenv("LAT_TUNE");
    if (off && strcmp(off, "0") == 0) return 0;
    static char device[160];
    if (!device[0]) gpu_device_name(device, sizeof device);
    char key[256];
    snprintf(key, sizeof key, "%s|%s|%dx%dx%dx%d|h%d-%d|%c%d", device, kernel, f->L[0], f->L[1], f->L[2], f->L[3],
             f->h0, f->h1 > 0 ? f->h1 : (int)f->Vh, f->prec, f->ncomp);
    int c = tune_cache_find(key, ncand);
    if (c >= 0) return c;

    size_t lb = links_bytes(f), tb = transform_bytes(f);
    void *save = NULL;
    cudaDeviceSynchronize();
    if (cudaMalloc(&save, lb + tb) != cudaSuccess) {
        cudaGetLastError(); /* clear it: not an error of the run */
        static int noted;
        if (!noted++) lat_info("GPU: no device memory to tune %s; its first launch shape is used", kernel);
        return 0;
    }
    cudaMemcpy(save, f->links, lb, cudaMemcpyDeviceToDevice);
    if (tb) cudaMemcpy((char *)save + lb, f->transform, tb, cudaMemcpyDeviceToDevice);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    /* each candidate: a launch that loads the kernel, then timed batches in
     * two rounds over all candidates (the first candidates must not lose
     * to a GPU still raising its clocks), the better of its two kept;
     * candidate 0 (the known good shape) stays unless another is at least
     * 2 % faster: timing noise must not move it */
    double t[64];
    if (ncand > 64) ncand = 64;
    static int warm; /* the first tuning of a process: the GPU busy for 0.2 s first */
    for (double spent = 0; !warm && spent < 0.2;) spent += TUNE_REPS * batch(0, run, arg, e0, e1);
    warm = 1;
    for (int k = 0; k < ncand; k++) {
        run(k, arg);
        t[k] = batch(k, run, arg, e0, e1);
    }
    for (int k = 0; k < ncand; k++) {
        double b = batch(k, run, arg, e0, e1);
        if (b < t[k]) t[k] = b;
    }
    int best = 0;
    for (int k = 1; k < ncand; k++)
        if (t[k] < 0.98 * t[0] && t[k] < t[best]) best = k;
    double tbest = t[best];
    restore(f, save);
    cudaDeviceSynchronize();
    gpu_check("restoring the field after tuning");
    cudaFree(save);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    tune_cache_keep(key, best, tbest);
    return best;
}
