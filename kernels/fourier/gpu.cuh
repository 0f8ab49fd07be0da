/* fourier/gpu.cuh -- the CUDA backend of Fourier-accelerated gauge fixing in
 * one precision (nvcc only; included by gpu_d.cu, gpu_s.cu, gpu_m.cu, which
 * define LAT_REAL, FA_STORE, FA_NS and FA_SFX).  Exports the fa_gpu_*_<sfx>
 * functions of fourier/gpu.h with the contracts of fourier/backend.h.
 *
 * The physics is the CPU's, from the same headers: gf_site_functional and
 * gf_site_theta (gaugefix/site.h), alg_pack_antiherm_part, alg_dot,
 * alg_unpack and sun_exp_i (math/algebra.h).  Sums per timeslice are made
 * deterministically: RED_NB blocks per slice, each thread over a fixed set
 * of sites, the block as a fixed tree (gpu/reduce.cuh), the blocks added on
 * the host in order -- the same bits run after run (not the CPU's bits:
 * another order of additions, FMA contraction and cuFFT's own algorithms).
 * Links and g are read and written through the accessor of the gpu_field
 * (gpu/accessor.cuh): the kernels never see layout or compression. */
#include "fourier/gpu.h"
#include "gaugefix/gpu.h"
extern "C" {
#include "base/log.h"
#include "lattice/field.h"
}
#include "gaugefix/site.h"
#include "fourier/site.h"
#include "lattice/observables_site.h"
#include "gpu/reduce.cuh"
#include "gpu/launch.cuh"
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdlib.h>
#include <string.h>

#define FA_CAT2(a, b) a##_##b
#define FA_CAT(a, b) FA_CAT2(a, b)
#define FA_ENTRY(name) FA_CAT(name, FA_SFX)

namespace FA_NS {

typedef FA_STORE store_t;
#include "gpu/accessor.cuh"

#define RED_BS GPU_RED_BS
#define RED_NB 32 /* blocks per timeslice of every per-slice sum */

/* cuFFT's complex type and calls for lat_real */
template <typename R> struct fft_traits;
template <> struct fft_traits<double> {
    typedef cufftDoubleComplex cx;
    static const cufftType type = CUFFT_Z2Z;
    static cufftResult exec(cufftHandle p, cx *a, int dir) { return cufftExecZ2Z(p, a, a, dir); }
};
template <> struct fft_traits<float> {
    typedef cufftComplex cx;
    static const cufftType type = CUFFT_C2C;
    static cufftResult exec(cufftHandle p, cx *a, int dir) { return cufftExecC2C(p, a, a, dir); }
};
typedef fft_traits<lat_real> FT;
typedef FT::cx fcx;

struct fgeo {
    kgeo k;
    int V, V3, nd, ad, ncomp;
};

/* parity, half index and coordinates of ILDG site s */
__device__ __forceinline__ int site_coords(const fgeo &g, int s, int x[4], int *h)
{
    x[0] = s % g.k.L[0];
    x[1] = s / g.k.s[1] % g.k.L[1];
    x[2] = s / g.k.s[2] % g.k.L[2];
    x[3] = s / g.k.s[3];
    *h = s >> 1;
    return (x[0] + x[1] + x[2] + x[3]) & 1;
}

template <class U, int NC>
__device__ __forceinline__ void load_link(const store_t *links, const fgeo &g, int s, int mu, lat_complex *m)
{
    int x[4], h;
    int p = site_coords(g, s, x, &h);
    U::load(U::at((store_t *)links, g.k, p, mu, h), m);
}

template <int NC>
__device__ __forceinline__ void load_alg(const lat_real *f, const fgeo &g, int s, lat_real *p)
{
    for (int a = 0; a < NC * NC - 1; a++) p[a] = f[(size_t)a * g.V + s];
}

/* ---- the gradient: Delta, and the sums of F, theta and tr(Delta s) ------- */
template <class U, int NC>
__global__ void __launch_bounds__(RED_BS)
k_gradient(fgeo g, const store_t *__restrict__ links, lat_real *grad, const lat_real *__restrict__ dir, int G,
           double *partials)
{
    constexpr int NN = NC * NC;
    __shared__ double sh[3][RED_BS];
    const int t = blockIdx.y;
    double v[3] = {0, 0, 0};
    for (int j = blockIdx.x * RED_BS + threadIdx.x; j < g.V3; j += RED_NB * RED_BS) {
        int s = t * g.V3 + j, x[4], h;
        site_coords(g, s, x, &h);
        lat_complex up[4 * NN], dn[4 * NN];
        for (int mu = 0; mu < 4; mu++) {
            load_link<U, NC>(links, g, s, mu, up + mu * NN);
            load_link<U, NC>(links, g, neighbour(g.k, s, x, mu, -1), mu, dn + mu * NN);
        }
        v[0] += (double)gf_site_functional(NC, (enum gauge_kind)G, up);
        v[1] += (double)gf_site_theta(NC, (enum gauge_kind)G, up, dn);
        lat_real d[NN - 1], q[NN - 1];
        fa_site_gradient(NC, g.nd, up, dn, d);
        load_alg<NC>(dir, g, s, q);
        v[2] += (double)alg_dot(NC, d, q);
        for (int a = 0; a < NN - 1; a++) grad[(size_t)a * g.V + s] = d[a];
    }
    red_block_sum<3>(sh, v, partials + ((size_t)t * RED_NB + blockIdx.x) * 3);
}

/* ---- the preconditioner -------------------------------------------------- */
__global__ void k_pack(fgeo g, const lat_real *__restrict__ grad, fcx *buf)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= g.V) return;
    for (int c = 0; c < g.ncomp; c++) {
        fcx z;
        z.x = grad[(size_t)(2 * c) * g.V + s];
        z.y = 2 * c + 1 < g.ad ? grad[(size_t)(2 * c + 1) * g.V + s] : 0;
        buf[(size_t)c * g.V + s] = z;
    }
}

__global__ void k_weight(fgeo g, const lat_real *__restrict__ w, fcx *buf)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= g.V) return;
    for (int c = 0; c < g.ncomp; c++) {
        fcx z = buf[(size_t)c * g.V + s];
        z.x *= w[s];
        z.y *= w[s];
        buf[(size_t)c * g.V + s] = z;
    }
}

/* P Delta out of the buffer; the sums of tr(Delta PDelta) and tr(Delta PDelta_old) */
template <int NC>
__global__ void __launch_bounds__(RED_BS)
k_unpack(fgeo g, const fcx *__restrict__ buf, lat_real *pgrad, const lat_real *__restrict__ grad,
         const lat_real *__restrict__ pold, int have_old, double *partials)
{
    constexpr int AD = NC * NC - 1;
    __shared__ double sh[2][RED_BS];
    const int t = blockIdx.y;
    double v[2] = {0, 0};
    for (int j = blockIdx.x * RED_BS + threadIdx.x; j < g.V3; j += RED_NB * RED_BS) {
        int s = t * g.V3 + j;
        lat_real p[AD + 1], d[AD], o[AD];
        for (int c = 0; c < g.ncomp; c++) {
            fcx z = buf[(size_t)c * g.V + s];
            p[2 * c] = z.x;
            p[2 * c + 1] = z.y;
        }
        for (int a = 0; a < AD; a++) pgrad[(size_t)a * g.V + s] = p[a];
        load_alg<NC>(grad, g, s, d);
        v[0] += (double)alg_dot(NC, d, p);
        if (have_old) {
            load_alg<NC>(pold, g, s, o);
            v[1] += (double)alg_dot(NC, d, o);
        }
    }
    red_block_sum<2>(sh, v, partials + ((size_t)t * RED_NB + blockIdx.x) * 2);
}

/* s = P Delta + beta[t] s on the slices with set[t]; the sum of tr(Delta s) */
template <int NC>
__global__ void __launch_bounds__(RED_BS)
k_direction(fgeo g, const lat_real *__restrict__ pgrad, const lat_real *__restrict__ grad, lat_real *dir,
            const unsigned char *__restrict__ set, const double *__restrict__ beta, double *partials)
{
    constexpr int AD = NC * NC - 1;
    __shared__ double sh[1][RED_BS];
    const int t = blockIdx.y;
    const lat_real b = (lat_real)beta[t];
    double v[1] = {0};
    for (int j = blockIdx.x * RED_BS + threadIdx.x; j < g.V3; j += RED_NB * RED_BS) {
        int s = t * g.V3 + j;
        lat_real q[AD], d[AD];
        load_alg<NC>(dir, g, s, q);
        if (set[t]) {
            for (int a = 0; a < AD; a++) q[a] = pgrad[(size_t)a * g.V + s] + b * q[a];
            for (int a = 0; a < AD; a++) dir[(size_t)a * g.V + s] = q[a];
        }
        load_alg<NC>(grad, g, s, d);
        v[0] += (double)alg_dot(NC, d, q);
    }
    red_block_sum<1>(sh, v, partials + ((size_t)t * RED_NB + blockIdx.x));
}

/* the curvature along s, per site as the CPU (fa_site_curvature) */
template <class U, int NC>
__global__ void __launch_bounds__(RED_BS)
k_curvature(fgeo g, const store_t *__restrict__ links, const lat_real *__restrict__ dir, double *partials)
{
    constexpr int NN = NC * NC;
    __shared__ double sh[1][RED_BS];
    const int t = blockIdx.y;
    double v[1] = {0};
    for (int j = blockIdx.x * RED_BS + threadIdx.x; j < g.V3; j += RED_NB * RED_BS) {
        int s = t * g.V3 + j, x[4], h0;
        site_coords(g, s, x, &h0);
        lat_real p[NN - 1];
        lat_complex h[NN], hy[4 * NN], up[4 * NN], dn[4 * NN];
        load_alg<NC>(dir, g, s, p);
        alg_unpack(NC, p, h);
        for (int mu = 0; mu < g.nd; mu++) {
            load_link<U, NC>(links, g, s, mu, up + mu * NN);
            load_link<U, NC>(links, g, neighbour(g.k, s, x, mu, -1), mu, dn + mu * NN);
            load_alg<NC>(dir, g, neighbour(g.k, s, x, mu, +1), p);
            alg_unpack(NC, p, hy + mu * NN);
        }
        v[0] += (double)fa_site_curvature(NC, g.nd, h, up, dn, hy);
    }
    red_block_sum<1>(sh, v, partials + ((size_t)t * RED_NB + blockIdx.x));
}

/* ---- moving along the orbit ---------------------------------------------- */
template <int NC>
__global__ void k_exp(fgeo g, const lat_real *__restrict__ dir, const double *__restrict__ alpha, lat_complex *G)
{
    constexpr int NN = NC * NC;
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= g.V) return;
    lat_real a = (lat_real)alpha[s / g.V3];
    lat_complex *gs = G + (size_t)s * NN;
    if (a == 0) {
        sun_unit(NC, gs);
        return;
    }
    lat_real p[NN - 1];
    lat_complex h[NN];
    load_alg<NC>(dir, g, s, p);
    alg_unpack(NC, p, h);
    sun_exp_i(NC, -a, h, gs);
}

/* U_mu(x) -> G(x) U_mu(x) G(x+mu)^dag (mu < nd), g(x) -> G(x) g(x) */
template <class U, int NC>
__global__ void k_apply(fgeo g, store_t *links, store_t *gt, const lat_complex *__restrict__ G)
{
    typedef typename U::transform T;
    constexpr int NN = NC * NC;
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= g.V) return;
    int x[4], h;
    int p = site_coords(g, s, x, &h);
    const lat_complex *gs = G + (size_t)s * NN;
    lat_complex u[NN], a[NN], r[NN];
    for (int mu = 0; mu < g.nd; mu++) {
        store_t *b = U::at(links, g.k, p, mu, h);
        U::load(b, u);
        sun_mul(NC, a, gs, u);
        sun_mul_nd(NC, r, a, G + (size_t)neighbour(g.k, s, x, mu, +1) * NN);
        U::store(b, r);
    }
    if (gt) {
        store_t *b = T::at(gt, g.k, p, h);
        T::load(b, u);
        sun_mul(NC, r, gs, u);
        T::store(b, r);
    }
}

template <int NC> struct links_of {
    typedef typename default_links<store_t, NC>::type type;
};

static fgeo geo_of(const struct fa_gpu_state *st)
{
    fgeo g;
    g.k = make_geo(&st->f);
    g.V = (int)st->V;
    g.V3 = (int)st->V3;
    g.nd = st->nd;
    g.ad = st->ad;
    g.ncomp = st->ncomp;
    return g;
}

/* the per-slice sums of the last reduction kernel: out[k*nt..] gets, for
 * every slice, the K sums at stride `stride` (offset k) */
static void slice_sums(struct fa_gpu_state *st, int K, double *out, int stride)
{
    size_t n = (size_t)st->nt * RED_NB * K;
    gpu_download(st->hpart, st->partials, n * sizeof(double));
    for (int t = 0; t < st->nt; t++)
        for (int k = 0; k < K; k++) {
            double a = 0;
            for (int b = 0; b < RED_NB; b++) a += st->hpart[((size_t)t * RED_NB + b) * K + k];
            out[(size_t)stride * t + k] = a;
        }
}

static void fft_check(cufftResult r, const char *what)
{
    if (r != CUFFT_SUCCESS) lat_die(1, "GPU", "cuFFT %s failed (error %d)", what, (int)r);
}

static void transform(struct fa_gpu_state *st, int dir)
{
    fcx *b = (fcx *)st->buf;
    fft_check(FT::exec(st->plan3, b, dir), "3-D transform");
    if (st->nd == 4)
        for (int c = 0; c < st->ncomp; c++) fft_check(FT::exec(st->plan1, b + (size_t)c * st->V, dir), "t transform");
}

} /* namespace FA_NS */

using namespace FA_NS;

/* the launch for the state's N: one instantiation per N of gpu/gpu.h
 * (with_nc, gpu/launch.cuh); the launch names NC */
#define BY_NC(st, launch)                                  \
    with_nc((st)->nc, [&](auto nc_) {                      \
        constexpr int NC = decltype(nc_)::value;           \
        launch;                                            \
    })

extern "C" struct fa_gpu_state *FA_ENTRY(fa_gpu_create)(const struct field *u, const double *transform_in,
                                                          enum gauge_kind gauge)
{
    struct fa_gpu_state *st = (struct fa_gpu_state *)calloc(1, sizeof *st);
    if (!st) lat_die(1, "GPU", "out of host memory");
    st->prec = sizeof(store_t) == sizeof(double) ? 'd' : sizeof(lat_real) == sizeof(double) ? 'm' : 's';
    gpu_field_create(&st->f, u, st->prec, transform_in != NULL);
    gpu_field_upload(&st->f, u, transform_in);
    st->nc = u->nc;
    st->nd = gf_ndirs(gauge);
    st->gauge = gauge;
    st->nt = u->lat.L[3];
    st->ad = u->nc * u->nc - 1;
    st->ncomp = (st->ad + 1) / 2;
    st->V = u->lat.V;
    st->V3 = u->lat.V / u->lat.L[3];
    size_t alg = (size_t)st->ad * st->V * sizeof(lat_real);
    st->grad = gpu_alloc(alg, "the gradient");
    st->pgrad = gpu_alloc(alg, "the preconditioned gradient");
    st->pgrad_old = gpu_alloc(alg, "the previous preconditioned gradient");
    st->dir = gpu_alloc(alg, "the search direction");
    gpu_memset(st->dir, 0, alg);
    gpu_memset(st->pgrad, 0, alg);
    st->G = gpu_alloc((size_t)st->V * u->nc * u->nc * sizeof(lat_complex), "the step's G(x)");
    st->buf = gpu_alloc((size_t)st->ncomp * st->V * sizeof(fcx), "the FFT buffer");
    st->weight = gpu_alloc((size_t)st->V * sizeof(lat_real), "the preconditioner");
    st->partials = (double *)gpu_alloc((size_t)st->nt * RED_NB * 3 * sizeof(double), "block sums");
    st->hpart = (double *)malloc((size_t)st->nt * RED_NB * 3 * sizeof(double));
    st->beta_d = (double *)gpu_alloc((size_t)st->nt * sizeof(double), "beta per slice");
    st->set_d = (unsigned char *)gpu_alloc((size_t)st->nt, "slice mask");
    if (!st->hpart) lat_die(1, "GPU", "out of host memory");
    /* the weights p^2_max / p^2(k) / N in the buffer's momentum layout (the
     * transforms are in place: momentum k sits where site x = k was) */
    lat_real *w = (lat_real *)malloc((size_t)st->V * sizeof(lat_real));
    if (!w) lat_die(1, "GPU", "out of host memory");
    const int *L = u->lat.L;
    double norm = st->nd == 4 ? (double)st->V : (double)st->V3;
    for (int64_t s = 0; s < st->V; s++) {
        int k[4];
        lattice_coords(&u->lat, s, k);
        w[s] = fa_weight(L, st->nd, k, norm);
    }
    gpu_upload(st->weight, w, (size_t)st->V * sizeof(lat_real));
    free(w);
    /* cuFFT: 3-D transforms of every (component, timeslice) block, then the
     * lines along t (stride V3) of one component at a time */
    int n3[3] = {L[2], L[1], L[0]};
    cufftHandle p3, p1 = 0;
    fft_check(cufftPlanMany(&p3, 3, n3, NULL, 1, 0, NULL, 1, 0, FT::type, st->ncomp * L[3]), "plan (3-D)");
    if (st->nd == 4) {
        int n1[1] = {L[3]};
        fft_check(cufftPlanMany(&p1, 1, n1, n1, (int)st->V3, 1, n1, (int)st->V3, 1, FT::type, (int)st->V3), "plan (t)");
    }
    st->plan3 = (int)p3;
    st->plan1 = (int)p1;
    gpu_sync("Fourier state set-up");
    return st;
}

extern "C" void FA_ENTRY(fa_gpu_gradient)(struct fa_gpu_state *st, double *fsums, double *dphi)
{
    fgeo g = geo_of(st);
    dim3 grid(RED_NB, st->nt);
    const store_t *l = (const store_t *)st->f.links;
    BY_NC(st, (k_gradient<typename links_of<NC>::type, NC><<<grid, RED_BS>>>(g, l, (lat_real *)st->grad, (const lat_real *)st->dir, st->gauge, st->partials)));
    gpu_check("gradient kernel launch");
    double *tmp = (double *)malloc(sizeof(double) * 3 * (size_t)st->nt);
    slice_sums(st, 3, tmp, 3);
    for (int t = 0; t < st->nt; t++) {
        fsums[2 * t] = tmp[3 * t];
        fsums[2 * t + 1] = tmp[3 * t + 1];
        dphi[t] = tmp[3 * t + 2];
    }
    free(tmp);
}

extern "C" void FA_ENTRY(fa_gpu_precondition)(struct fa_gpu_state *st, double *dots)
{
    fgeo g = geo_of(st);
    void *sw = st->pgrad_old;
    st->pgrad_old = st->pgrad;
    st->pgrad = sw;
    int nb = (int)((st->V + 255) / 256);
    k_pack<<<nb, 256>>>(g, (const lat_real *)st->grad, (fcx *)st->buf);
    transform(st, CUFFT_FORWARD);
    k_weight<<<nb, 256>>>(g, (const lat_real *)st->weight, (fcx *)st->buf);
    transform(st, CUFFT_INVERSE);
    dim3 grid(RED_NB, st->nt);
    BY_NC(st, (k_unpack<NC><<<grid, RED_BS>>>(g, (const fcx *)st->buf, (lat_real *)st->pgrad, (const lat_real *)st->grad, (const lat_real *)st->pgrad_old, st->have_pold, st->partials)));
    gpu_check("preconditioner kernel launch");
    st->have_pold = 1;
    slice_sums(st, 2, dots, 2);
}

extern "C" void FA_ENTRY(fa_gpu_direction)(struct fa_gpu_state *st, const unsigned char *set, const double *beta, double *dphi)
{
    fgeo g = geo_of(st);
    gpu_upload(st->set_d, set, (size_t)st->nt);
    gpu_upload(st->beta_d, beta, (size_t)st->nt * sizeof(double));
    dim3 grid(RED_NB, st->nt);
    BY_NC(st, (k_direction<NC><<<grid, RED_BS>>>(g, (const lat_real *)st->pgrad, (const lat_real *)st->grad, (lat_real *)st->dir, st->set_d, st->beta_d, st->partials)));
    gpu_check("direction kernel launch");
    slice_sums(st, 1, dphi, 1);
}

extern "C" void FA_ENTRY(fa_gpu_curvature)(struct fa_gpu_state *st, double *d2)
{
    fgeo g = geo_of(st);
    dim3 grid(RED_NB, st->nt);
    const store_t *l = (const store_t *)st->f.links;
    BY_NC(st, (k_curvature<typename links_of<NC>::type, NC><<<grid, RED_BS>>>(g, l, (const lat_real *)st->dir, st->partials)));
    gpu_check("curvature kernel launch");
    slice_sums(st, 1, d2, 1);
}

static void apply(struct fa_gpu_state *st)
{
    fgeo g = geo_of(st);
    int nb = (int)((st->V + 127) / 128);
    store_t *l = (store_t *)st->f.links, *gt = (store_t *)st->f.transform;
    BY_NC(st, (k_apply<typename links_of<NC>::type, NC><<<nb, 128>>>(g, l, gt, (const lat_complex *)st->G)));
    gpu_check("step kernel launch");
}

extern "C" void FA_ENTRY(fa_gpu_step)(struct fa_gpu_state *st, const double *alpha)
{
    fgeo g = geo_of(st);
    /* alpha per slice, reusing the beta array on the device */
    gpu_upload(st->beta_d, alpha, (size_t)st->nt * sizeof(double));
    int nb = (int)((st->V + 127) / 128);
    BY_NC(st, (k_exp<NC><<<nb, 128>>>(g, (const lat_real *)st->dir, st->beta_d, (lat_complex *)st->G)));
    gpu_check("exponential kernel launch");
    apply(st);
}

extern "C" void FA_ENTRY(fa_gpu_apply_host_G)(struct fa_gpu_state *st, const double *G)
{
    size_t n = (size_t)st->V * st->nc * st->nc;
    lat_complex *h = (lat_complex *)malloc(n * sizeof(lat_complex));
    if (!h) lat_die(1, "GPU", "out of host memory");
    for (size_t i = 0; i < n; i++) h[i] = c_make((lat_real)G[2 * i], (lat_real)G[2 * i + 1]);
    gpu_upload(st->G, h, n * sizeof(lat_complex));
    free(h);
    apply(st);
}

extern "C" void FA_ENTRY(fa_gpu_reunitarize)(struct fa_gpu_state *st) { FA_ENTRY(gpu_gf_reunitarize)(&st->f); }

extern "C" void FA_ENTRY(fa_gpu_destroy)(struct fa_gpu_state *st)
{
    if (!st) return;
    cufftDestroy((cufftHandle)st->plan3);
    if (st->nd == 4) cufftDestroy((cufftHandle)st->plan1);
    gpu_field_free(&st->f);
    gpu_free(st->grad);
    gpu_free(st->pgrad);
    gpu_free(st->pgrad_old);
    gpu_free(st->dir);
    gpu_free(st->G);
    gpu_free(st->buf);
    gpu_free(st->weight);
    gpu_free(st->partials);
    gpu_free(st->beta_d);
    gpu_free(st->set_d);
    free(st->hpart);
    free(st);
}
