/* gpu/observables.cu -- the observables kernel of the GPU layer: plaquette
 * (all, spatial, temporal), link trace, Polyakov loop and unitarity of a
 * device field, deterministic, with the per-site formulas of
 * lattice/observables_site.h (those lattice/observables.c uses on the CPU).
 *
 * Exported: gpu_observables_sums(f, out[10]) (contract in gpu/field.h; the
 * normalised gpu_field_observables is in field.c).
 * Grid: OBS_NB blocks of GPU_RED_BS threads, fixed by nothing but these
 * constants; thread j takes sites j, j + OBS_NB*GPU_RED_BS, ... (parity,
 * half index order; observables.cuh), a block adds its threads as a fixed
 * tree (reduce.cuh), the host adds the blocks in order.  Storage 'd'
 * (double) or 's'/'m' (float); the arithmetic is double in every case.
 * Every N of gpu/gpu.h (with_nc: one instantiation per N; the links of
 * SU(N >= 4) are whole N x N matrices, and a thread's 20 of them -- 20 KB
 * for SU(8) -- sit in local memory, which is slow but measures only); a
 * CUDA error ends the program (util.cu). */
#define LAT_REAL double
#include "lattice/observables_site.h"
#include "gpu/field.h"
extern "C" {
#include "base/log.h"
}
#include <cuda_runtime.h>
#include <stdlib.h>
#include "gpu/reduce.cuh"
#include "gpu/launch.cuh"

#include "gpu/accessor.cuh"
#include "gpu/observables.cuh"

template <class U>
__global__ void __launch_bounds__(GPU_RED_BS) k_observables(kgeo g, const typename U::store_type *__restrict__ links, double *partials)
{
    __shared__ double sh[5][GPU_RED_BS];
    double v[5] = {0, 0, 0, 0, 0}, m[2] = {0, 0};
    obs_thread<U>(g, links, blockIdx.x * GPU_RED_BS + threadIdx.x, v, m);
    red_block_sum<5>(sh, v, partials + (size_t)blockIdx.x * 7);
    red_block_max<2>(sh, m, partials + (size_t)blockIdx.x * 7 + 5);
}

template <class U>
__global__ void __launch_bounds__(GPU_RED_BS) k_polyakov(kgeo g, const typename U::store_type *__restrict__ links, double *partials)
{
    __shared__ double sh[2][GPU_RED_BS];
    double v[2] = {0, 0};
    obs_poly_thread<U>(g, links, blockIdx.x * GPU_RED_BS + threadIdx.x, v);
    red_block_sum<2>(sh, v, partials + (size_t)blockIdx.x * 2);
}

/* both kernels on the field's storage S through the accessor of SU(NC) */
template <class S, int NC>
static void launch(const struct gpu_field *f, double *d)
{
    typedef typename default_links<S, NC>::type U;
    kgeo g = make_geo(f);
    const S *l = (const S *)f->links;
    k_observables<U><<<OBS_NB, GPU_RED_BS>>>(g, l, d);
    k_polyakov<U><<<OBS_NB, GPU_RED_BS>>>(g, l, d + OBS_NB * 7);
}

/* a device buffer for the partial sums, kept between calls */
static double *scratch;

extern "C" void gpu_observables_sums(const struct gpu_field *f, double out[10])
{
    const size_t n = OBS_NB * 7 + OBS_NB * 2;
    if (!scratch) scratch = (double *)gpu_alloc(n * sizeof(double), "reduction buffer");
    with_nc(f->nc, [&](auto nc) {
        if (f->prec == 'd') launch<double, decltype(nc)::value>(f, scratch);
        else launch<float, decltype(nc)::value>(f, scratch);
    });
    gpu_check("observables kernel launch");
    double *hp = (double *)malloc(n * sizeof(double));
    if (!hp) lat_die(1, "GPU", "out of host memory");
    gpu_download(hp, scratch, n * sizeof(double));
    for (int k = 0; k < 10; k++) out[k] = 0;
    for (int b = 0; b < OBS_NB; b++) { /* blocks in order */
        const double *q = hp + (size_t)b * 7;
        out[1] += q[0]; /* spatial */
        out[2] += q[1]; /* temporal */
        out[3] += q[2];
        out[6] += q[3];
        out[8] += q[4];
        out[7] = obs_max_nan(out[7], q[5]);
        out[9] = obs_max_nan(out[9], q[6]);
        out[4] += hp[OBS_NB * 7 + 2 * b];
        out[5] += hp[OBS_NB * 7 + 2 * b + 1];
    }
    out[0] = out[1] + out[2];
    free(hp);
}
