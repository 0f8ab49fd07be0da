/* gaugefix/gpu_variant.c -- the launch variants of the gauge-fixing sweep
 * kernels (which one runs: LAT_GPU_VARIANT, gpu_set_sweep_variant) and their
 * names for the benchmark. */
#include "gaugefix/gpu.h"
#include <stdlib.h>

static int sweep_variant = -1;

void gpu_set_sweep_variant(int v) { sweep_variant = v; }

int gpu_get_sweep_variant(void)
{
    if (sweep_variant < 0) {
        const char *e = getenv("LAT_GPU_VARIANT");
        sweep_variant = e ? atoi(e) : 0;
        if (sweep_variant < 0 || sweep_variant >= GPU_SWEEP_VARIANTS) sweep_variant = 0;
    }
    return sweep_variant;
}

const char *gpu_sweep_variant_name(char prec, int v)
{
    /* the dispatch in gaugefix_gpu_impl.cuh (sweep_t, sweep_default) */
    static const char *one[GPU_SWEEP_VARIANTS] = {
        "1 thread/site (k_sweep), 128 threads, >= 2 blocks/SM", "1 thread/site (k_sweep), 256 threads, >= 1 block/SM",
        "1 thread/site (k_sweep), 128 threads, >= 3 blocks/SM", "1 thread/site (k_sweep), 64 threads, >= 4 blocks/SM",
        "4 threads/site, shuffles (k_sweep4), 128 threads, >= 4 blocks/SM",
        "4 threads/site, g once per site in shared memory (k_sweep_sh), 128 threads, >= 4 blocks/SM"};
    static const char *several[GPU_SWEEP_VARIANTS] = {
        NULL, "1 thread/site (k_sweep), 128 threads, >= 2 blocks/SM",
        "4 threads/site, shuffles (k_sweep4), 128 threads, >= 4 blocks/SM",
        "2 threads/site, shuffles (k_sweep4), 128 threads, >= 2 blocks/SM",
        "4 threads/site, g once per site in shared memory (k_sweep_sh), 128 threads, >= 4 blocks/SM",
        "4 threads/site, g once per site in shared memory (k_sweep_sh), 256 threads, >= 2 blocks/SM",
        "4 threads/site, g once per site in shared memory (k_sweep_sh), 128 threads, >= 5 blocks/SM",
        "4 threads/site, g once per site in shared memory (k_sweep_sh), 128 threads, >= 6 blocks/SM",
        "k_sweep_sh, third rows rebuilt where needed, 128 threads, >= 5 blocks/SM",
        "k_sweep_sh, third rows rebuilt where needed, 128 threads, >= 6 blocks/SM"};
    if (v < 0 || v >= GPU_SWEEP_VARIANTS) return NULL;
    if (prec == 's') return one[v];
    if (v == 0) return prec == 'm' ? several[8] : several[4]; /* the defaults of gaugefix_gpu_{d,m}.cu */
    return several[v];
}
