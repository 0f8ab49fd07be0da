/* dirac/staggered_gpu_kernel.cuh -- device code of the GPU staggered
 * operator (dirac/staggered_gpu.h): the vector storage of gpu/spinor.h for
 * one SU(3) colour vector per site, and the one kernel k_staggered_hop;
 * compiled by nvcc (staggered_gpu_launch.cuh) and, whole, by g++ for the
 * host emulation (scripts/staggered-emulation.cpp, scripts/cuda-on-host.h).
 * The includer first includes, outside any namespace, math/spinor.h (in its
 * LAT_REAL), dirac/staggered_gpu_impl.h, dirac/staggered_site.h (with
 * STAGGERED_NC_MAX 3), gpu/spinor.h and solvers/half.h; then, inside its
 * namespace, gpu/accessor.cuh and this file.
 *
 * Exported:
 *   sg_vec<VS>::load<L1>(v, norm, s, c) / store(v, norm, s, c)   the 3
 *       complex numbers of site s of a vector stored as VS (double, float,
 *       int16_t = half with norm[s]), converted to and from lat_complex;
 *       L1: through the non-coherent L1 path (the hop input: no thread of
 *       the launch writes it, and each site is read by 8 threads), else
 *       L2 only (the links and loc, read once a launch); half: plain
 *       8-byte loads either way (no 4 x int16 vector intrinsic the host
 *       emulation has); the half
 *       format is solvers/half.h's (half_block_encode/decode, one site a
 *       block); stores write the padding reals 6, 7 as zeros
 *   sg_args, sg_args_of(w)    the kernel's arguments from the launch
 *       contract (struct staggered_gpu_sweep, staggered_gpu_impl.h)
 *   k_staggered_hop<U, VS>(g, links, a)    one thread per output site h of
 *       parity a.parity (h < g.Vh): that contract's formula, the hops via
 *       staggered_site_hop_dir (staggered_site.h: the CPU's stencil), one
 *       direction at a time; links through gauge_accessor U (12, 18 or 8
 *       reals); eta_mu and the antiperiodic t sign multiplied into the
 *       neighbour vectors (exact sign flips, so (eta U) psi and U (eta psi)
 *       are the same bits)
 *       On a t-slab (staggered_gpu_impl.h) eta and the t boundary sign
 *       come from the global coordinates (tg0, ltg), the launch covers
 *       every, the interior or the boundary sites, and the t hops across
 *       the slab's ends read the received faces.
 *   k_staggered_face<U, VS>(g, links, a)   the pack of the two faces, one
 *       thread per spatial half index j < V3h
 *   sg_with_recon<S>(recon, f)   f(gauge_accessor<S, 3, R>()) for the
 *       field's recon 12, 18 or 8: the instantiations (3 per storage)
 *   sg_launch<S, VS>(w, launch)   one sweep of the contract: launch(kernel,
 *       blocks, g, links, a) with k_staggered_hop or, for a pack,
 *       k_staggered_face (the nvcc launch and the host emulation share it) */

#define SG_BLOCK 128
#define SG_NCOMP 8 /* gpu_spinor_ncomp(6) */

template <typename VS> struct sg_vec;

template <> struct sg_vec<double> {
    template <bool L1>
    static __device__ __forceinline__ void load(const double *v, const float *norm, int64_t s, lat_complex *c)
    {
        (void)norm;
        const double *p = v + gpu_spinor_index(SG_NCOMP, 0, s);
        const double *p2 = p + GPU_SPINOR_GROUP * GPU_SPINOR_LANES;
        double2 a = L1 ? ld16_l1(p) : ld16(p), b = L1 ? ld16_l1(p + 2) : ld16(p + 2), d = L1 ? ld16_l1(p2) : ld16(p2);
        c[0] = c_make((lat_real)a.x, (lat_real)a.y);
        c[1] = c_make((lat_real)b.x, (lat_real)b.y);
        c[2] = c_make((lat_real)d.x, (lat_real)d.y);
    }
    static __device__ __forceinline__ void store(double *v, float *norm, int64_t s, const lat_complex *c)
    {
        (void)norm;
        double *p = v + gpu_spinor_index(SG_NCOMP, 0, s);
        const double w[8] = {c[0].re, c[0].im, c[1].re, c[1].im, c[2].re, c[2].im, 0, 0};
        st16(p, w);
        st16(p + 2, w + 2);
        st16(p + GPU_SPINOR_GROUP * GPU_SPINOR_LANES, w + 4);
        st16(p + GPU_SPINOR_GROUP * GPU_SPINOR_LANES + 2, w + 6);
    }
};

template <> struct sg_vec<float> {
    template <bool L1>
    static __device__ __forceinline__ void load(const float *v, const float *norm, int64_t s, lat_complex *c)
    {
        (void)norm;
        const float *p = v + gpu_spinor_index(SG_NCOMP, 0, s);
        const float *p2 = p + GPU_SPINOR_GROUP * GPU_SPINOR_LANES;
        float4 a = L1 ? ld16_l1(p) : ld16(p), b = L1 ? ld16_l1(p2) : ld16(p2);
        c[0] = c_make((lat_real)a.x, (lat_real)a.y);
        c[1] = c_make((lat_real)a.z, (lat_real)a.w);
        c[2] = c_make((lat_real)b.x, (lat_real)b.y);
    }
    static __device__ __forceinline__ void store(float *v, float *norm, int64_t s, const lat_complex *c)
    {
        (void)norm;
        float *p = v + gpu_spinor_index(SG_NCOMP, 0, s);
        const float w[8] = {(float)c[0].re, (float)c[0].im, (float)c[1].re, (float)c[1].im,
                            (float)c[2].re, (float)c[2].im, 0, 0};
        st16(p, w);
        st16(p + GPU_SPINOR_GROUP * GPU_SPINOR_LANES, w + 4);
    }
};

/* one group of 4 int16 reals: one 8-byte access */
struct alignas(8) sg_q4 {
    int16_t q[4];
};

template <> struct sg_vec<int16_t> {
    template <bool L1>
    static __device__ __forceinline__ void load(const int16_t *v, const float *norm, int64_t s, lat_complex *c)
    {
        const int16_t *p = v + gpu_spinor_index(SG_NCOMP, 0, s);
        const sg_q4 a = *(const sg_q4 *)p, b = *(const sg_q4 *)(p + GPU_SPINOR_GROUP * GPU_SPINOR_LANES);
        const int16_t q[6] = {a.q[0], a.q[1], a.q[2], a.q[3], b.q[0], b.q[1]};
        double x[6];
        half_block_decode(6, q, norm[s], x);
        for (int k = 0; k < 3; k++) c[k] = c_make((lat_real)x[2 * k], (lat_real)x[2 * k + 1]);
    }
    static __device__ __forceinline__ void store(int16_t *v, float *norm, int64_t s, const lat_complex *c)
    {
        double x[6];
        for (int k = 0; k < 3; k++) x[2 * k] = c[k].re, x[2 * k + 1] = c[k].im;
        int16_t q[6];
        half_block_encode(6, x, q, &norm[s]);
        int16_t *p = v + gpu_spinor_index(SG_NCOMP, 0, s);
        sg_q4 a, b;
        for (int k = 0; k < 4; k++) a.q[k] = q[k];
        b.q[0] = q[4], b.q[1] = q[5], b.q[2] = 0, b.q[3] = 0;
        *(sg_q4 *)p = a;
        *(sg_q4 *)(p + GPU_SPINOR_GROUP * GPU_SPINOR_LANES) = b;
    }
};

struct sg_args {
    int parity, hop;
    lat_real alpha, beta;
    void *out;
    float *out_norm;
    long long out_off;
    const void *in;
    const float *in_norm;
    long long in_off;
    const void *loc;
    const float *loc_norm;
    long long loc_off;
    int sites, tg0, ltg; /* t-slabs: staggered_gpu_impl.h */
    const lat_real *face_fwd, *face_bwd;
    lat_real *face_out_fwd, *face_out_bwd;
};

static sg_args sg_args_of(const struct staggered_gpu_sweep *w)
{
    sg_args a;
    a.parity = w->parity;
    a.hop = w->hop;
    a.alpha = (lat_real)w->alpha;
    a.beta = (lat_real)w->beta;
    a.out = w->out, a.out_norm = w->out_norm, a.out_off = w->out_off;
    a.in = w->in, a.in_norm = w->in_norm, a.in_off = w->in_off;
    a.loc = w->loc, a.loc_norm = w->loc_norm, a.loc_off = w->loc_off;
    a.sites = w->sites;
    a.tg0 = w->tg0;
    a.ltg = w->ltg > 0 ? w->ltg : w->links->L[3];
    a.face_fwd = (const lat_real *)w->face_fwd, a.face_bwd = (const lat_real *)w->face_bwd;
    a.face_out_fwd = (lat_real *)w->face_out_fwd, a.face_out_bwd = (lat_real *)w->face_out_bwd;
    return a;
}

/* the threads of a launch over `sites`, and the half index of thread i */
__host__ __device__ __forceinline__ int sg_threads(const kgeo &g, int sites)
{
    return dirac_sites_threads(g.Vh, g.V3h, sites);
}
__device__ __forceinline__ int sg_site(const kgeo &g, int sites, int i)
{
    return dirac_sites_index(g.Vh, g.V3h, sites, i);
}
/* a face site: 3 complex in lat_real */
__device__ __forceinline__ void sg_face_load(const lat_real *f, int j, lat_complex *c)
{
    for (int k = 0; k < 3; k++) c[k] = face_cx_load(f, 3 * (size_t)j + k);
}
__device__ __forceinline__ void sg_face_store(lat_real *f, int j, const lat_complex *c)
{
    for (int k = 0; k < 3; k++) face_cx_store(f, 3 * (size_t)j + k, c[k]);
}
__device__ __forceinline__ void sg_negate(lat_complex *c)
{
    for (int k = 0; k < 3; k++) c[k] = c_make(-c[k].re, -c[k].im);
}

#include "gpu/chain.cuh" /* gpu_chained_begin (staggered_gpu_launch.cuh includes it first, outside the namespace) */
template <class U, typename VS>
__global__ void __launch_bounds__(SG_BLOCK) k_staggered_hop(kgeo g, typename U::store_type *__restrict__ links, sg_args a)
{
    gpu_chained_begin(); /* launched chained (gpu/chain.cuh): nothing read before it */
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= sg_threads(g, a.sites)) return;
    const int h = sg_site(g, a.sites, i);
    const VS *in = (const VS *)a.in;
    lat_complex acc[3];
    for (int k = 0; k < 3; k++) acc[k] = c_make(0, 0);
    if (a.hop) {
        int x[4];
        const int site = decode(g, a.parity, h, x);
        /* the global coordinates and extents: eta and the t boundary sign */
        const int Lg[4] = {g.L[0], g.L[1], g.L[2], a.ltg};
        const int xg[4] = {x[0], x[1], x[2], x[3] + a.tg0};
#pragma unroll
        for (int mu = 0; mu < 4; mu++) {
            lat_complex uf[9], pf[3], wb[3];
            U::load(U::at(links, g, a.parity, mu, h), uf);
            /* forward: past the last local slice, the next rank's in(x + t) */
            if (mu == 3 && a.face_fwd && x[3] == g.L[3] - 1)
                sg_face_load(a.face_fwd, h - (g.L[3] - 1) * g.V3h, pf);
            else
                sg_vec<VS>::template load<true>(in, a.in_norm, a.in_off + (neighbour(g, site, x, mu, +1) >> 1), pf);
            if (staggered_phase_coords(xg, Lg, mu) < 0) sg_negate(pf);
            /* backward: before local slice 0, the previous rank's product */
            if (mu == 3 && a.face_bwd && x[3] == 0) {
                sg_face_load(a.face_bwd, h, wb);
            } else {
                const int sb = neighbour(g, site, x, mu, -1);
                lat_complex ub[9], pb[3];
                U::load(U::at(links, g, 1 - a.parity, mu, sb >> 1), ub);
                sg_vec<VS>::template load<true>(in, a.in_norm, a.in_off + (sb >> 1), pb);
                int xb[4] = {xg[0], xg[1], xg[2], xg[3]};
                xb[mu] = xg[mu] > 0 ? xg[mu] - 1 : Lg[mu] - 1;
                if (staggered_phase_coords(xb, Lg, mu) < 0) sg_negate(pb);
                colour_mul_dag(3, ub, pb, wb);
            }
            staggered_site_hop_dir_made(3, uf, pf, wb, acc);
        }
    }
    /* alpha acc + beta loc, as the CPU's site loop combines them */
    if (a.loc) {
        lat_complex t[3];
        sg_vec<VS>::template load<false>((const VS *)a.loc, a.loc_norm, a.loc_off + h, t);
        for (int k = 0; k < 3; k++) acc[k] = c_add(c_scale(a.alpha, acc[k]), c_scale(a.beta, t[k]));
    } else {
        for (int k = 0; k < 3; k++) acc[k] = c_scale(a.alpha, acc[k]);
    }
    sg_vec<VS>::store((VS *)a.out, a.out_norm, a.out_off + h, acc);
}

/* the pack of a t-slab (staggered_gpu_impl.h): thread j < V3h, the input
 * (parity q = 1 - a.parity) at half index j of slice 0 and j + (lt-1) V3h
 * of the last slice; the same loads, sign and product as k_staggered_hop
 * makes of them on one process */
template <class U, typename VS>
__global__ void __launch_bounds__(SG_BLOCK) k_staggered_face(kgeo g, typename U::store_type *__restrict__ links, sg_args a)
{
    gpu_chained_begin(); /* launched chained (gpu/chain.cuh): nothing read before it */
    const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (j >= g.V3h) return;
    const int q = 1 - a.parity;
    const VS *in = (const VS *)a.in;
    lat_complex c[3], u[9], w[3];
    sg_vec<VS>::template load<true>(in, a.in_norm, a.in_off + j, c);
    sg_face_store(a.face_out_fwd, j, c);
    const int hb = j + (g.L[3] - 1) * g.V3h;
    int x[4];
    decode(g, q, hb, x);
    const int Lg[4] = {g.L[0], g.L[1], g.L[2], a.ltg};
    const int xg[4] = {x[0], x[1], x[2], x[3] + a.tg0};
    U::load(U::at(links, g, q, 3, hb), u);
    sg_vec<VS>::template load<true>(in, a.in_norm, a.in_off + hb, c);
    if (staggered_phase_coords(xg, Lg, 3) < 0) sg_negate(c);
    colour_mul_dag(3, u, c, w);
    sg_face_store(a.face_out_bwd, j, w);
}

template <typename S, class F> static void sg_with_recon(int recon, const F &f)
{
    if (recon == GPU_RECON_12) f(gauge_accessor<S, 3, LINK_12>());
    else if (recon == GPU_RECON_FULL) f(gauge_accessor<S, 3, LINK_FULL>());
    else if (recon == GPU_RECON_8) f(gauge_accessor<S, 3, LINK_8>());
    else lat_die(1, "staggered GPU", "internal error: links stored in %d reals (12, 18 or 8 expected)", recon);
}

/* one sweep's launch (staggered_gpu_impl.h's contract) for links stored as
 * S and vectors as VS: launch(kernel, blocks, g, links, a) runs it
 * (<<<blocks, SG_BLOCK>>> on a GPU, thread by thread in the emulation) */
template <typename S, typename VS, class Launch> static void sg_launch(const struct staggered_gpu_sweep *w, const Launch &launch)
{
    const kgeo g = make_geo(w->links);
    const sg_args a = sg_args_of(w);
    const int n = a.face_out_fwd ? g.V3h : sg_threads(g, a.sites);
    if (n <= 0) return;
    const unsigned nb = (unsigned)((n + SG_BLOCK - 1) / SG_BLOCK);
    S *links = (S *)w->links->links;
    sg_with_recon<S>(w->links->recon, [&](auto acc) {
        typedef decltype(acc) U;
        launch(a.face_out_fwd ? k_staggered_face<U, VS> : k_staggered_hop<U, VS>, nb, g, links, a);
    });
}
