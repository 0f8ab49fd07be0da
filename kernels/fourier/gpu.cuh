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
 * (gpu/accessor.cuh): the kernels never see layout or compression.
 *
 * On a t-slab (fourier/gpu.h) the kernels cover the owned local slices
 * tb .. tb+lt-1 only, the transforms follow fft/fft.h (3-D per owned
 * slice; Landau: the transpose to [kt][chunk] between the ranks, lines
 * along t, and back), the halo slices the stencils read are refreshed
 * device to device or through host memory (gpu_slab.cuh), and each per-slice sum is the same RED_NB blocks
 * over the same sites as on one rank, put in its global slot and summed
 * over the ranks exactly (comm_sum): R ranks give one rank's bits as long
 * as cuFFT's arithmetic per transform does not depend on the batch.
 *
 * Launches go through fa_launch (no barriers) and fa_launch_red (block
 * reductions); with FA_EMULATION defined the includer provides them, dim3,
 * the cuFFT calls and fa_host_alloc/fa_host_free (scripts/fourier-emulation.cpp
 * runs this file on the host). */
#include "fourier/gpu.h"
#include "gaugefix/gpu.h"
extern "C" {
#include "base/log.h"
#include "base/comm.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
}
#include "gaugefix/site.h"
#include "fourier/site.h"
#include "lattice/observables_site.h"
#include "gpu/reduce.cuh"
#include "gpu/launch.cuh"
#include "gpu/peer.h"
#ifndef FA_EMULATION
#include <cuda_runtime.h>
#include <cufft.h>
#endif
#include <stdlib.h>
#include <string.h>

#if !defined(FA_EMULATION) && !defined(FA_LAUNCHERS_DEFINED)
#define FA_LAUNCHERS_DEFINED
/* a launch through a pointer to the kernel (the emulation runs the same
 * calls thread by thread) */
template <class... P, class... A> static void fa_launch(dim3 grid, unsigned bs, void (*k)(P...), A... args)
{
    k<<<grid, bs>>>(args...);
}
template <class... P, class... A> static void fa_launch_red(dim3 grid, unsigned bs, void (*k)(P...), A... args)
{
    k<<<grid, bs>>>(args...);
}
/* pinned host memory for the messages between the ranks */
static void *fa_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess) lat_die(1, "GPU", "cannot allocate %zu bytes of pinned host memory", bytes);
    return p;
}
static void fa_host_free(void *p)
{
    if (p) cudaFreeHost(p);
}
#endif

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
    int tb, lt, t0;      /* owned local slices tb .. tb+lt-1, global slice of tb */
    long long cnt, kc;   /* buffer stride per component; momentum-space entries */
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
    const int t = blockIdx.y + g.tb;
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
    red_block_sum<3>(sh, v, partials + ((size_t)blockIdx.y * RED_NB + blockIdx.x) * 3);
}

/* ---- the preconditioner -------------------------------------------------- */
/* the owned sites' Delta into the buffer's position layout [t_own][V3] */
__global__ void k_pack(fgeo g, const lat_real *__restrict__ grad, fcx *buf)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.lt * g.V3) return;
    int s = g.tb * g.V3 + i;
    for (int c = 0; c < g.ncomp; c++) {
        fcx z;
        z.x = grad[(size_t)(2 * c) * g.V + s];
        z.y = 2 * c + 1 < g.ad ? grad[(size_t)(2 * c + 1) * g.V + s] : 0;
        buf[(size_t)c * g.cnt + i] = z;
    }
}

/* the weights on this rank's momenta (the buffer's momentum layout) */
__global__ void k_weight(fgeo g, const lat_real *__restrict__ w, fcx *buf)
{
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= g.kc) return;
    for (int c = 0; c < g.ncomp; c++) {
        fcx z = buf[(size_t)c * g.cnt + j];
        z.x *= w[j];
        z.y *= w[j];
        buf[(size_t)c * g.cnt + j] = z;
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
    const int t = blockIdx.y + g.tb;
    double v[2] = {0, 0};
    for (int j = blockIdx.x * RED_BS + threadIdx.x; j < g.V3; j += RED_NB * RED_BS) {
        int s = t * g.V3 + j;
        lat_real p[AD + 1], d[AD], o[AD];
        for (int c = 0; c < g.ncomp; c++) {
            fcx z = buf[(size_t)c * g.cnt + (size_t)blockIdx.y * g.V3 + j];
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
    red_block_sum<2>(sh, v, partials + ((size_t)blockIdx.y * RED_NB + blockIdx.x) * 2);
}

/* s = P Delta + beta[t] s on the slices with set[t]; the sum of tr(Delta s) */
template <int NC>
__global__ void __launch_bounds__(RED_BS)
k_direction(fgeo g, const lat_real *__restrict__ pgrad, const lat_real *__restrict__ grad, lat_real *dir,
            const unsigned char *__restrict__ set, const double *__restrict__ beta, double *partials)
{
    constexpr int AD = NC * NC - 1;
    __shared__ double sh[1][RED_BS];
    const int t = blockIdx.y + g.tb, tg = blockIdx.y + g.t0;
    const lat_real b = (lat_real)beta[tg];
    double v[1] = {0};
    for (int j = blockIdx.x * RED_BS + threadIdx.x; j < g.V3; j += RED_NB * RED_BS) {
        int s = t * g.V3 + j;
        lat_real q[AD], d[AD];
        load_alg<NC>(dir, g, s, q);
        if (set[tg]) {
            for (int a = 0; a < AD; a++) q[a] = pgrad[(size_t)a * g.V + s] + b * q[a];
            for (int a = 0; a < AD; a++) dir[(size_t)a * g.V + s] = q[a];
        }
        load_alg<NC>(grad, g, s, d);
        v[0] += (double)alg_dot(NC, d, q);
    }
    red_block_sum<1>(sh, v, partials + ((size_t)blockIdx.y * RED_NB + blockIdx.x));
}

/* the curvature along s, per site as the CPU (fa_site_curvature) */
template <class U, int NC>
__global__ void __launch_bounds__(RED_BS)
k_curvature(fgeo g, const store_t *__restrict__ links, const lat_real *__restrict__ dir, double *partials)
{
    constexpr int NN = NC * NC;
    __shared__ double sh[1][RED_BS];
    const int t = blockIdx.y + g.tb;
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
    red_block_sum<1>(sh, v, partials + ((size_t)blockIdx.y * RED_NB + blockIdx.x));
}

/* ---- moving along the orbit ---------------------------------------------- */
template <int NC>
__global__ void k_exp(fgeo g, const lat_real *__restrict__ dir, const double *__restrict__ alpha, lat_complex *G)
{
    constexpr int NN = NC * NC;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.lt * g.V3) return;
    int s = g.tb * g.V3 + i;
    lat_real a = (lat_real)alpha[g.t0 + i / g.V3];
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

/* U_mu(x) -> G(x) U_mu(x) G(x+mu)^dag (mu < nd), g(x) -> G(x) g(x), on
 * the owned sites */
template <class U, int NC>
__global__ void k_apply(fgeo g, store_t *links, store_t *gt, const lat_complex *__restrict__ G)
{
    typedef typename U::transform T;
    constexpr int NN = NC * NC;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.lt * g.V3) return;
    int s = g.tb * g.V3 + i, x[4], h;
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
    g.tb = st->tb;
    g.lt = st->lt;
    g.t0 = st->t0;
    g.cnt = st->count;
    g.kc = st->nd == 4 ? (long long)st->nt * (st->k3e - st->k3b) : (long long)st->lt * st->V3;
    return g;
}

/* the per-slice sums of the last reduction kernel: out[stride*t + k] gets,
 * for every global slice t, the K sums (0 for the slices of other ranks,
 * then summed over the ranks exactly) */
static void slice_sums(struct fa_gpu_state *st, int K, double *out, int stride)
{
    size_t n = (size_t)st->lt * RED_NB * K;
    gpu_download(st->hpart, st->partials, n * sizeof(double));
    for (int t = 0; t < st->nt; t++)
        for (int k = 0; k < K; k++) out[(size_t)stride * t + k] = 0;
    for (int i = 0; i < st->lt; i++)
        for (int k = 0; k < K; k++) {
            double a = 0;
            for (int b = 0; b < RED_NB; b++) a += st->hpart[((size_t)i * RED_NB + b) * K + k];
            out[(size_t)stride * (st->t0 + i) + k] = a;
        }
    if (st->dom) comm_sum(out, (size_t)stride * st->nt);
}

static void fft_check(cufftResult r, const char *what)
{
    if (r != CUFFT_SUCCESS) lat_die(1, "GPU", "cuFFT %s failed (error %d)", what, (int)r);
}

static unsigned nblocks(long long n, unsigned bs) { return (unsigned)((n + bs - 1) / bs); }

#include "fourier/gpu_slab.cuh"

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
    const struct geometry *dom = u->dom;
    const struct lattice *glob = geometry_global(dom, &u->lat);
    st->dom = dom;
    st->nc = u->nc;
    st->nd = gf_ndirs(gauge);
    st->gauge = gauge;
    st->nt = glob->L[3];
    st->ad = u->nc * u->nc - 1;
    st->ncomp = (st->ad + 1) / 2;
    st->V = u->lat.V;
    st->V3 = u->lat.V / u->lat.L[3];
    st->tb = geometry_t_begin(dom);
    st->lt = dom ? dom->lt : st->nt;
    st->t0 = dom ? dom->t0 : 0;
    st->R = dom ? dom->size : 1;
    st->rank = dom ? dom->rank : 0;
    /* fft/fft.h's layouts: this rank's spatial momenta, the stride per component */
    st->k3b = st->nd == 4 ? chunk_begin(st, st->rank) : 0;
    st->k3e = st->nd == 4 ? chunk_begin(st, st->rank + 1) : st->V3;
    st->count = (int64_t)st->lt * st->V3;
    int64_t maxchunk = (st->V3 + st->R - 1) / st->R;
    if (st->nd == 4 && (int64_t)st->nt * maxchunk > st->count) st->count = (int64_t)st->nt * maxchunk;
    size_t alg = (size_t)st->ad * st->V * sizeof(lat_real);
    st->grad = gpu_alloc(alg, "the gradient");
    st->pgrad = gpu_alloc(alg, "the preconditioned gradient");
    st->pgrad_old = gpu_alloc(alg, "the previous preconditioned gradient");
    st->dir = gpu_alloc(alg, "the search direction");
    gpu_memset(st->dir, 0, alg);
    gpu_memset(st->pgrad, 0, alg);
    st->G = gpu_alloc((size_t)st->V * u->nc * u->nc * sizeof(lat_complex), "the step's G(x)");
    st->buf = gpu_alloc((size_t)st->ncomp * st->count * sizeof(fcx), "the FFT buffer");
    fgeo g = geo_of(st);
    st->weight = gpu_alloc((size_t)g.kc * sizeof(lat_real), "the preconditioner");
    st->partials = (double *)gpu_alloc((size_t)st->lt * RED_NB * 3 * sizeof(double), "block sums");
    st->hpart = (double *)malloc((size_t)st->lt * RED_NB * 3 * sizeof(double));
    st->beta_d = (double *)gpu_alloc((size_t)st->nt * sizeof(double), "beta per slice");
    st->set_d = (unsigned char *)gpu_alloc((size_t)st->nt, "slice mask");
    if (!st->hpart) lat_die(1, "GPU", "out of host memory");
    if (dom) slab_buffers_open(st);
    /* the weights p^2_max / p^2(k) / N in the buffer's momentum layout (the
     * transforms are in place: fft/fft.h's fft_momentum) */
    lat_real *w = (lat_real *)malloc((size_t)g.kc * sizeof(lat_real));
    if (!w) lat_die(1, "GPU", "out of host memory");
    const int *L = glob->L;
    double norm = st->nd == 4 ? (double)glob->V : (double)st->V3;
    const int64_t chunk = st->k3e - st->k3b;
    for (int64_t j = 0; j < g.kc; j++) {
        int k[4];
        int64_t s3;
        if (st->nd == 4) {
            k[3] = (int)(j / chunk);
            s3 = st->k3b + j % chunk;
        } else {
            k[3] = st->t0 + (int)(j / st->V3);
            s3 = j % st->V3;
        }
        k[0] = (int)(s3 % L[0]);
        k[1] = (int)(s3 / L[0] % L[1]);
        k[2] = (int)(s3 / ((int64_t)L[0] * L[1]));
        w[j] = fa_weight(L, st->nd, k, norm);
    }
    gpu_upload(st->weight, w, (size_t)g.kc * sizeof(lat_real));
    free(w);
    /* cuFFT: 3-D transforms of every (component, owned timeslice) block --
     * one batch when the components follow each other without a gap --
     * then the lines along t (stride chunk: V3 on one rank) of one
     * component at a time */
    int n3[3] = {L[2], L[1], L[0]};
    cufftHandle p3, p1 = 0;
    st->plan3_whole = st->count == (int64_t)st->lt * st->V3;
    int batch3 = st->plan3_whole ? st->ncomp * st->lt : st->lt;
    fft_check(cufftPlanMany(&p3, 3, n3, NULL, 1, 0, NULL, 1, 0, FT::type, batch3), "plan (3-D)");
    if (st->nd == 4 && chunk > 0) {
        int n1[1] = {L[3]};
        fft_check(cufftPlanMany(&p1, 1, n1, n1, (int)chunk, 1, n1, (int)chunk, 1, FT::type, (int)chunk), "plan (t)");
    }
    st->plan3 = (int)p3;
    st->plan1 = (int)p1;
    gpu_sync("Fourier state set-up");
    return st;
}

extern "C" void FA_ENTRY(fa_gpu_gradient)(struct fa_gpu_state *st, double *fsums, double *dphi)
{
    fgeo g = geo_of(st);
    dim3 grid(RED_NB, st->lt);
    const store_t *l = (const store_t *)st->f.links;
    BY_NC(st, (fa_launch_red(grid, RED_BS, k_gradient<typename links_of<NC>::type, NC>, g, l, (lat_real *)st->grad, (const lat_real *)st->dir, (int)st->gauge, st->partials)));
    gpu_check("gradient kernel launch");
    double *tmp = (double *)malloc(sizeof(double) * 3 * (size_t)st->nt);
    if (!tmp) lat_die(1, "GPU", "out of host memory");
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
    fa_launch(dim3(nblocks((long long)st->lt * st->V3, 256)), 256, k_pack, g, (const lat_real *)st->grad, (fcx *)st->buf);
    transform(st, CUFFT_FORWARD);
    fa_launch(dim3(nblocks(g.kc, 256)), 256, k_weight, g, (const lat_real *)st->weight, (fcx *)st->buf);
    transform(st, CUFFT_INVERSE);
    dim3 grid(RED_NB, st->lt);
    BY_NC(st, (fa_launch_red(grid, RED_BS, k_unpack<NC>, g, (const fcx *)st->buf, (lat_real *)st->pgrad, (const lat_real *)st->grad, (const lat_real *)st->pgrad_old, st->have_pold, st->partials)));
    gpu_check("preconditioner kernel launch");
    st->have_pold = 1;
    slice_sums(st, 2, dots, 2);
}

extern "C" void FA_ENTRY(fa_gpu_direction)(struct fa_gpu_state *st, const unsigned char *set, const double *beta, double *dphi)
{
    fgeo g = geo_of(st);
    gpu_upload(st->set_d, set, (size_t)st->nt);
    gpu_upload(st->beta_d, beta, (size_t)st->nt * sizeof(double));
    dim3 grid(RED_NB, st->lt);
    BY_NC(st, (fa_launch_red(grid, RED_BS, k_direction<NC>, g, (const lat_real *)st->pgrad, (const lat_real *)st->grad, (lat_real *)st->dir, (const unsigned char *)st->set_d, (const double *)st->beta_d, st->partials)));
    gpu_check("direction kernel launch");
    slice_sums(st, 1, dphi, 1);
}

extern "C" void FA_ENTRY(fa_gpu_curvature)(struct fa_gpu_state *st, double *d2)
{
    refresh_upper(st, st->dir, st->ad, sizeof(lat_real)); /* s(x + t) of the last owned slice */
    fgeo g = geo_of(st);
    dim3 grid(RED_NB, st->lt);
    const store_t *l = (const store_t *)st->f.links;
    BY_NC(st, (fa_launch_red(grid, RED_BS, k_curvature<typename links_of<NC>::type, NC>, g, l, (const lat_real *)st->dir, st->partials)));
    gpu_check("curvature kernel launch");
    slice_sums(st, 1, d2, 1);
}

/* G (set on the owned slices and, on a Landau slab, the upper halo slice)
 * applied on the owned sites; then the halo links the gradient reads */
static void apply(struct fa_gpu_state *st)
{
    fgeo g = geo_of(st);
    store_t *l = (store_t *)st->f.links, *gt = (store_t *)st->f.transform;
    BY_NC(st, (fa_launch(dim3(nblocks((long long)st->lt * st->V3, 128)), 128, k_apply<typename links_of<NC>::type, NC>, g, l, gt, (const lat_complex *)st->G)));
    gpu_check("step kernel launch");
    refresh_tlinks(st);
}

extern "C" void FA_ENTRY(fa_gpu_step)(struct fa_gpu_state *st, const double *alpha)
{
    fgeo g = geo_of(st);
    /* alpha per slice, reusing the beta array on the device */
    gpu_upload(st->beta_d, alpha, (size_t)st->nt * sizeof(double));
    BY_NC(st, (fa_launch(dim3(nblocks((long long)st->lt * st->V3, 128)), 128, k_exp<NC>, g, (const lat_real *)st->dir, (const double *)st->beta_d, (lat_complex *)st->G)));
    gpu_check("exponential kernel launch");
    refresh_upper(st, st->G, 1, (size_t)st->nc * st->nc * sizeof(lat_complex)); /* G(x + t) of the last owned slice */
    apply(st);
}

/* G for every local site (halo slices included: fourier/gpu.c draws them
 * from the global sites' streams) */
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
    if (st->nd == 4 && st->k3e > st->k3b) cufftDestroy((cufftHandle)st->plan1);
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
    if (st->dom) slab_buffers_close(st);
    free(st->hpart);
    free(st);
}
