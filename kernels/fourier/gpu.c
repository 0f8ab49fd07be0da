/* fourier/gpu.c -- fa_backend_gpu (backend.h): the dispatch on the
 * precision to the three builds of fourier/gpu.cuh, and the random orbit
 * move of a restart (G drawn on the host, in double, from the CPU's
 * Philox streams of the global sites -- on a slab for the halo slices too,
 * so no exchange is needed -- then applied on the device).  One rank or a
 * t-slab per rank (one GPU each).  Built with CUDA and cuFFT only. */
#if defined(LAT_HAVE_CUDA) && defined(LAT_HAVE_CUFFT)
#include "fourier/gpu.h"
#include "math/rng.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

#define GPU_CALL(st, name, ...)                                   \
    do {                                                          \
        switch ((st)->prec) {                                     \
        case 'd': name##_d(st, __VA_ARGS__); break;               \
        case 's': name##_s(st, __VA_ARGS__); break;               \
        default: name##_m(st, __VA_ARGS__); break;                \
        }                                                         \
    } while (0)

static struct fa_gpu_state *S(struct fa_state *s) { return (struct fa_gpu_state *)s; }

static struct fa_state *gpu_create(const struct field *u, const double *transform, char prec, enum gauge_kind g)
{
    switch (prec) {
    case 'd': return (struct fa_state *)fa_gpu_create_d(u, transform, g);
    case 's': return (struct fa_state *)fa_gpu_create_s(u, transform, g);
    default: return (struct fa_state *)fa_gpu_create_m(u, transform, g);
    }
}
static void gpu_gradient(struct fa_state *s, double *f, double *d) { GPU_CALL(S(s), fa_gpu_gradient, f, d); }
static void gpu_precondition(struct fa_state *s, double *dots) { GPU_CALL(S(s), fa_gpu_precondition, dots); }
static void gpu_direction(struct fa_state *s, const unsigned char *set, const double *beta, double *dphi)
{
    GPU_CALL(S(s), fa_gpu_direction, set, beta, dphi);
}
static void gpu_curvature(struct fa_state *s, double *d2) { GPU_CALL(S(s), fa_gpu_curvature, d2); }
static void gpu_step(struct fa_state *s, const double *alpha) { GPU_CALL(S(s), fa_gpu_step, alpha); }

static void gpu_orbit(struct fa_state *s, const unsigned char *set, uint64_t seed, uint32_t copy, uint32_t k)
{
    struct fa_gpu_state *st = S(s);
    const int n = st->nc, nn = n * n;
    double *G = lat_malloc(sizeof(double) * 2 * (size_t)nn * (size_t)st->V);
    for (int64_t x = 0; x < st->V; x++) {
        double *g = G + 2 * (size_t)nn * (size_t)x;
        int64_t xg = geometry_any_global_site(st->dom, x);
        if (!set[xg / st->V3]) {
            memset(g, 0, sizeof(double) * 2 * (size_t)nn);
            for (int a = 0; a < n; a++) g[2 * a * (n + 1)] = 1;
            continue;
        }
        struct lat_rng r;
        rng_init(&r, seed, copy, (uint64_t)xg, k, RNG_ORBIT);
        sun_random_haar(n, g, &r);
    }
    GPU_CALL(st, fa_gpu_apply_host_G, G);
    free(G);
}
static void gpu_reunitarize(struct fa_state *s)
{
    struct fa_gpu_state *st = S(s);
    switch (st->prec) {
    case 'd': fa_gpu_reunitarize_d(st); break;
    case 's': fa_gpu_reunitarize_s(st); break;
    default: fa_gpu_reunitarize_m(st); break;
    }
}
static void gpu_fetch(struct fa_state *s, struct field *u, double *transform)
{
    gpu_field_download(&S(s)->f, u, transform);
}
static void gpu_destroy(struct fa_state *s)
{
    struct fa_gpu_state *st = S(s);
    if (!st) return;
    switch (st->prec) {
    case 'd': fa_gpu_destroy_d(st); break;
    case 's': fa_gpu_destroy_s(st); break;
    default: fa_gpu_destroy_m(st); break;
    }
}

const struct fa_backend fa_backend_gpu = {
    "gpu", gpu_create, gpu_gradient, gpu_precondition, gpu_direction, gpu_curvature, gpu_step, gpu_orbit,
    gpu_reunitarize, NULL, gpu_fetch, gpu_destroy,
};
#else
typedef int fourier_gpu_not_built; /* make CUDA=0 or no cuFFT: fa_backend_gpu does not exist */
#endif
