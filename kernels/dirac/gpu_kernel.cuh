/* dirac/gpu_kernel.cuh -- the device code of the GPU Wilson-clover operator
 * (dirac/gpu.h): one kernel, k_dslash, and its host-side dispatch
 * dslash_dispatch, in the compute precision lat_real of the including file
 * (gpu_d.cu: double; gpu_s.cu: float), also compiled whole by g++ for the
 * host emulation (scripts/dirac-emulation.cpp, with scripts/cuda-on-host.h).
 * Include it inside the precision's namespace after math/spinor.h,
 * dirac/site.h (DIRAC_NC_MAX 3), gpu/spinor.h, dirac/gpu_sweep.h,
 * dirac/gpu_link16.h (outside the namespace) and gpu/accessor.cuh; it
 * includes dirac/gpu_link16.cuh (the 16-bit links' accessor) itself.
 *
 *   k_dslash<SS, LS, RECON, SIGN>(a)   one thread per output site h < V/2
 *       of parity a.parity: dirac/gpu_sweep.h's sweep with w->sign = SIGN
 *       (+1: D, -1: D^dag; a template parameter, so every i^k of the spin
 *       projections is a constant: with the sign read at run time the half
 *       sweep issued a negation or a select a real, 7 % more PTX).  SS: spinor storage
 *       (double, float, or short = half: int16 and a float norm per site),
 *       LS: link and clover storage (double, float, or short: the 16-bit
 *       links and clover of dirac/gpu_link16.h), RECON: the links'
 *       compression (LINK_FULL, LINK_12, LINK_8 of gpu/accessor.cuh), read
 *       through dslash_links<LS, RECON>::type (gpu_link16.cuh).  The
 *       physics is site.h's, the CPU's one copy: the thread loads, per mu,
 *       U_mu(x) and psi(x+mu), calls dirac_hop_fwd_acc, then U_mu(x-mu) and
 *       psi(x-mu) and dirac_hop_bwd_acc (the order of dirac_site_hop, so the
 *       double kernel repeats the CPU's arithmetic), then clover_apply_site.
 *       Instantiated: (double, double), (float, float), (short, short) and
 *       (short, float), each with the three RECON: a half sweep reads
 *       spinors, links and clover in 16 bits (the bytes of single halved),
 *       or half spinors over the float links and clover
 *       (dirac_gpu_set_half_links 32: the normal equations' sloppy operator).
 *   k_dslash_face<SS, LS, RECON, SIGN>(a)  on a t-slab: one thread per face site
 *       j < V3h, the two half-spinor faces this rank sends (below).
 *   k_clover<SS, LS>(a)   one thread per site h < V/2: out = C loc, the
 *       clover term (or its inverse) alone, clover_apply_site as
 *       dirac_cpu_clover does it (C NULL: a copy); the even-odd system's
 *       source preparation and reconstruction (dirac/gpu.h), instantiated
 *       in double only.
 *   dslash_dispatch<Launch>(w, launch)   the instantiation for the sweep w
 *       of this compute precision and the kernel's arguments; calls
 *       launch(kernel, args, nthreads) (gpu_*.cu: a <<<...>>> launch; the
 *       emulation: every thread in turn).
 *
 * Half storage: solvers/half.h's format through its per-real steps in float
 * (the one copy of the formula: half_norm, half_fmax_nan,
 * half_encode_prescale_f, half_encode_scale_f, half_quantise_own_f,
 * half_decode_scale_f: no double operation and no float <-> int
 * conversion; every 16-bit load is decoded and scaled by its step in one
 * fma, load4_scaled through dirac/half16_decode.h): a zero site has norm 0, a
 * site with a NaN or infinity norm NaN and q = 0.  Padding sites
 * (h >= V/2) are never written: they stay zero.  The half clover is a block
 * of the same format per site (72 int16; clover_step[h], the factor
 * q -> real that half_decode_scale gives for its norm, computed on the
 * host: no division in the kernel); the half links
 * have fixed norms (dirac/gpu_link16.h). */

typedef short dirac_half_t; /* the int16 of half storage */

struct dslash_args {
    kgeo g;
    const void *links, *clover;
    const float *clover_step; /* half clover: q -> real per site (else NULL) */
    const void *in, *loc;
    const float *in_norm, *loc_norm;
    void *out;
    float *out_norm;
    int parity, post_inv; /* the sign of D: k_dslash's SIGN */
    lat_real alpha;
    lat_complex phase[4];
    int phased; /* bit mu: phase[mu] != 1 (dslash_phased) */
    /* t-slabs (dirac/gpu_sweep.h): the received faces (NULL on one
     * process), the global t of local slice 0 and the global Lt (the
     * t boundary phase), which sites this launch covers */
    const lat_real *face_fwd, *face_bwd;
    lat_real *face_out_fwd, *face_out_bwd;
    int tg0, ltg, sites;
    /* a block of nrhs columns (dirac/gpu_sweep.h), col_sites apart; block
     * b of a launch is column b % nrhs of site block b / nrhs, so the nrhs
     * blocks that read the same links and clover run side by side and all
     * but the first find them in the L2 */
    int nrhs;
    long long col_sites;
};

/* the half index of thread i of a launch over a.sites (gpu_sweep.h) */
__device__ __forceinline__ int dslash_site(const dslash_args &a, int i)
{
    return dirac_sites_index(a.g.Vh, a.g.V3h, a.sites, i);
}
/* the threads of a launch over `sites` */
__host__ __device__ __forceinline__ int dslash_threads(const kgeo &g, int sites)
{
    return dirac_sites_threads(g.Vh, g.V3h, sites);
}
/* the blocks of 128 threads of a launch of n threads a column: a block of
 * columns takes a.nrhs times as many (k_dslash's BLOCK) */
__host__ __device__ __forceinline__ unsigned dslash_blocks(const dslash_args &a, int n)
{
    return (unsigned)((n + 127) / 128) * (unsigned)a.nrhs;
}
/* whether the forward hop of x in direction mu crosses the global boundary
 * (the backward hop of x crosses it where x_mu is global 0) */
__device__ __forceinline__ bool dslash_last(const dslash_args &a, const int x[4], int mu)
{
    return mu == 3 ? x[3] + a.tg0 == a.ltg - 1 : x[mu] == a.g.L[mu] - 1;
}
/* whether a hop across the boundary of mu multiplies its link by phase[mu]:
 * in the half sweep not where the phase is 1, whose product is the link's
 * bits again.  Why: a warp holds sites of two x rows, so with the test of
 * dslash_last alone every warp issued the x boundary's two 3x3 products
 * (0.8 % of the half Mhat on an H100).  The single and double sweeps, bound
 * by memory, keep the products: with the skip ptxas scheduled them into
 * spills (double 12: 255 registers, 44 bytes spilled, 2.8 % slower;
 * docs/PERFORMANCE.md, session 23). */
template <typename SS> __device__ __forceinline__ bool dslash_phased(const dslash_args &a, int mu)
{
    return sizeof(SS) != 2 || ((a.phased >> mu) & 1);
}
__device__ __forceinline__ bool dslash_first(const dslash_args &a, const int x[4], int mu)
{
    return mu == 3 ? x[3] + a.tg0 == 0 : x[mu] == 0;
}
/* a face site: 2 spins x 3 colours in lat_real, 12 reals */
__device__ __forceinline__ void face_load(const lat_real *f, int j, lat_complex *w)
{
#pragma unroll
    for (int k = 0; k < 6; k++) w[k] = face_cx_load(f, 6 * (size_t)j + k);
}
__device__ __forceinline__ void face_store(lat_real *f, int j, const lat_complex *w)
{
#pragma unroll
    for (int k = 0; k < 6; k++) face_cx_store(f, 6 * (size_t)j + k, w[k]);
}

/* ---- spinor storage: 6 groups of 4 reals per site (gpu/spinor.h) ------- */
__device__ __forceinline__ void load4(const double *p, lat_real *v)
{
    double t[4];
    unpack(ld16_l1(p), t);
    unpack(ld16_l1(p + 2), t + 2);
    for (int k = 0; k < 4; k++) v[k] = (lat_real)t[k];
}
__device__ __forceinline__ void load4(const float *p, lat_real *v)
{
    float t[4];
    unpack(ld16_l1(p), t);
    for (int k = 0; k < 4; k++) v[k] = (lat_real)t[k];
}
/* 4 int16 as one 8-byte load, decoded by dirac/half16_decode.h (the bits
 * of (float)(short), without a conversion instruction) */
__device__ __forceinline__ void load4(const dirac_half_t *p, lat_real *v)
{
    float t[4];
    half16_decode4(__ldg((const unsigned long long *)p), t);
    for (int k = 0; k < 4; k++) v[k] = (lat_real)t[k];
}
/* the same times a step of at most 15 significant bits (a half block's
 * norm, the 16-bit links' step): q * step, one fma a real
 * (half16_decode.h) */
__device__ __forceinline__ void load4_scaled(const dirac_half_t *p, float step, float off, lat_real *v)
{
    float m[4];
    half16_biased4(__ldg((const unsigned long long *)p), m);
    for (int k = 0; k < 4; k++) v[k] = (lat_real)half16_scale(m[k], step, off);
}

template <typename SS>
__device__ __forceinline__ void spinor_load(const SS *base, const float *norm, int h, lat_complex *psi)
{
    lat_real v[24];
    if constexpr (sizeof(SS) == 2) {
        const float step = half_decode_scale_f(__ldg(norm + h)), off = half16_offset(step);
#pragma unroll
        for (int q = 0; q < 6; q++) load4_scaled(base + gpu_spinor_index(24, 4 * q, h), step, off, v + 4 * q);
    } else {
#pragma unroll
        for (int q = 0; q < 6; q++) load4(base + gpu_spinor_index(24, 4 * q, h), v + 4 * q);
    }
#pragma unroll
    for (int k = 0; k < 12; k++) psi[k] = c_make(v[2 * k], v[2 * k + 1]);
}

__device__ __forceinline__ void store4(double *p, const lat_real *v)
{
    double t[4] = {(double)v[0], (double)v[1], (double)v[2], (double)v[3]};
    st16(p, t);
    st16(p + 2, t + 2);
}
__device__ __forceinline__ void store4(float *p, const lat_real *v)
{
    float t[4] = {(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
    st16(p, t);
}
/* 4 int16 (already quantised) as one 8-byte store */
__device__ __forceinline__ void store4(dirac_half_t *p, const int16_t *q)
{
    unsigned long long w = 0;
    for (int k = 0; k < 4; k++) w |= (unsigned long long)(uint16_t)q[k] << (16 * k);
    __stcg((unsigned long long *)p, w);
}

template <typename SS>
__device__ __forceinline__ void spinor_store(SS *base, float *norm, int h, const lat_complex *psi)
{
    lat_real v[24];
#pragma unroll
    for (int k = 0; k < 12; k++) {
        v[2 * k] = psi[k].re;
        v[2 * k + 1] = psi[k].im;
    }
    if constexpr (sizeof(SS) == 2) {
        /* quantise: solvers/half.h's format, its per-real steps in float
         * (the sweep's arithmetic is float: no double op, no conversion);
         * the largest |x| through a max that keeps NaN, so one test on it
         * finds a NaN or infinity anywhere in the site */
        float mx = 0;
#pragma unroll
        for (int k = 0; k < 24; k++) mx = half_fmax_nan(mx, fabsf((float)v[k]));
        const int finite = isfinite(mx);
        const float nf = half_norm(mx, finite); /* NaN: the solver sees the breakdown */
        int16_t q[24];
        if (finite && nf > 0) {
            const float pre = half_encode_prescale_f(nf), s = half_encode_scale_f(nf, pre);
#pragma unroll
            for (int k = 0; k < 24; k++) q[k] = half_quantise_own_f((float)v[k], pre, s);
        } else { /* a zero or non-finite site: q = 0 */
#pragma unroll
            for (int k = 0; k < 24; k++) q[k] = 0;
        }
        norm[h] = nf;
#pragma unroll
        for (int g = 0; g < 6; g++) store4(base + gpu_spinor_index(24, 4 * g, h), q + 4 * g);
    } else {
#pragma unroll
        for (int q = 0; q < 6; q++) store4(base + gpu_spinor_index(24, 4 * q, h), v + 4 * q);
    }
}

/* the packed clover block pair of site h (72 reals, ncomp 72); 16-bit
 * storage: the int16 times the site's step (step[h], made on the host: no
 * division in the kernel), one fma a real (load4_scaled) */
template <typename LS>
__device__ __forceinline__ void clover_load(const LS *base, const float *step, int h, lat_real *a)
{
    if constexpr (sizeof(LS) == 2) {
        const float st = __ldg(step + h), off = half16_offset(st);
#pragma unroll
        for (int q = 0; q < 18; q++) load4_scaled(base + gpu_spinor_index(72, 4 * q, h), st, off, a + 4 * q);
    } else {
#pragma unroll
        for (int q = 0; q < 18; q++) load4(base + gpu_spinor_index(72, 4 * q, h), a + 4 * q);
    }
}

#include "dirac/gpu_link16.cuh"
#include "gpu/chain.cuh" /* gpu_chained_begin (gpu_launch.cuh includes it first, outside the namespace) */

/* ---- the kernel ------------------------------------------------------------ */
/* The blocks of 128 threads an SM must hold: ptxas's register cap.  With
 * the sign constant ptxas left alone gives the half sweep 148 registers (3
 * blocks an SM) and the single one 210 (2).  Timed on an H100 at 32^4
 * (docs/PERFORMANCE.md, session 23): half is fastest with 5 (96
 * registers, no spills; 4 and 6 blocks 3-5 % slower, ptxas's own 13 %),
 * single with 4 (128 registers; 5: 96 with 16 bytes spilled, 3.5 %
 * slower), double with ptxas's choice (254, 2 blocks; a cap of 3 blocks is
 * 2 % slower with 12-real links).  -D DSLASH_MIN_BLOCKS_HALF, _SINGLE,
 * _DOUBLE for such a measurement. */
#ifndef DSLASH_MIN_BLOCKS_HALF
#define DSLASH_MIN_BLOCKS_HALF 5
#endif
#ifndef DSLASH_MIN_BLOCKS_SINGLE
#define DSLASH_MIN_BLOCKS_SINGLE 4
#endif
#ifndef DSLASH_MIN_BLOCKS_DOUBLE
#define DSLASH_MIN_BLOCKS_DOUBLE 1
#endif
template <typename SS> struct dslash_min_blocks {
    enum {
        value = sizeof(SS) == 2 ? DSLASH_MIN_BLOCKS_HALF : sizeof(SS) == 4 ? DSLASH_MIN_BLOCKS_SINGLE : DSLASH_MIN_BLOCKS_DOUBLE
    };
};
template <typename SS, typename LS, int RECON, int SIGN, bool BLOCK>
__global__ void __launch_bounds__(128, dslash_min_blocks<SS>::value) k_dslash(const dslash_args a)
{
    gpu_chained_begin(); /* launched chained (gpu/chain.cuh): nothing read before it */
    typedef typename dslash_links<LS, RECON>::type U;
    /* BLOCK (a block of columns, a.nrhs > 1): this thread block's column,
     * whose site h is site h + col of the block as one long vector
     * (gpu/spinor.h's layout with columns col_sites apart, col_sites a
     * multiple of its 32 lanes).  A template parameter: with the test at
     * run time the one column's kernels spilled (the 12-real double, single
     * and half sweeps: 4-16 bytes) */
    int blk = blockIdx.x, col = 0;
    if constexpr (BLOCK) {
        col = blk % a.nrhs * (int)a.col_sites;
        blk /= a.nrhs;
    }
    const int i = blk * blockDim.x + threadIdx.x;
    if (i >= dslash_threads(a.g, a.sites)) return;
    const int h = dslash_site(a, i);
    const int p = a.parity;
    int x[4];
    const int site = decode(a.g, p, h, x);
    LS *links = (LS *)a.links;
    lat_complex acc[12], u[9], psi[12];
#pragma unroll
    for (int k = 0; k < 12; k++) acc[k] = c_make(0, 0);
#pragma unroll
    for (int mu = 0; mu < 4; mu++) {
        /* forward: U_mu(x) psi(x+mu), the phase where x_mu = L_mu - 1
         * (globally); on a slab, past the last local slice, the next
         * rank's projected half spinor (k_dslash_face) from the face */
        U::template load<lat_complex, true>(U::at(links, a.g, p, mu, h), u);
        if (dslash_phased<SS>(a, mu) && dslash_last(a, x, mu))
            for (int k = 0; k < 9; k++) u[k] = c_mul(a.phase[mu], u[k]);
        if (mu == 3 && a.face_fwd && x[3] == a.g.L[3] - 1) {
            lat_complex hv[6], w[6];
            face_load(a.face_fwd, h - (a.g.L[3] - 1) * a.g.V3h, hv);
            colour_mul(3, u, hv, w);
            colour_mul(3, u, hv + 3, w + 3);
            spin_reconstruct_acc(3, mu, -SIGN, w, acc);
        } else {
            spinor_load<SS>((const SS *)a.in, a.in_norm, (neighbour(a.g, site, x, mu, +1) >> 1) + col, psi);
            dirac_hop_fwd_acc(3, mu, SIGN, u, psi, acc);
        }
        /* backward: U_mu(x-mu)^dag psi(x-mu); U_mu(x-mu) carries the phase
         * where x_mu = 0 (its site is at L_mu - 1), the hop its conjugate;
         * on a slab, before local slice 0, the previous rank's U^dag times
         * the projected half spinor, made there (k_dslash_face) */
        if (mu == 3 && a.face_bwd && x[3] == 0) {
            lat_complex w[6];
            face_load(a.face_bwd, h, w);
            spin_reconstruct_acc(3, mu, SIGN, w, acc);
        } else {
            const int sb = neighbour(a.g, site, x, mu, -1);
            U::template load<lat_complex, true>(U::at(links, a.g, 1 - p, mu, sb >> 1), u);
            if (dslash_phased<SS>(a, mu) && dslash_first(a, x, mu))
                for (int k = 0; k < 9; k++) u[k] = c_mul(a.phase[mu], u[k]);
            spinor_load<SS>((const SS *)a.in, a.in_norm, (sb >> 1) + col, psi);
            dirac_hop_bwd_acc(3, mu, SIGN, u, psi, acc);
        }
    }
    lat_complex v[12];
    lat_real cl[72];
    const LS *clov = (const LS *)a.clover;
    if (a.post_inv) {
#pragma unroll
        for (int k = 0; k < 12; k++) v[k] = c_scale(a.alpha, acc[k]);
        if (clov) {
            clover_load(clov, a.clover_step, h, cl);
            clover_apply_site(3, cl, v, psi);
            spinor_store<SS>((SS *)a.out, a.out_norm, h + col, psi);
        } else {
            spinor_store<SS>((SS *)a.out, a.out_norm, h + col, v);
        }
        return;
    }
    spinor_load<SS>((const SS *)a.loc, a.loc_norm, h + col, psi);
    if (clov) {
        clover_load(clov, a.clover_step, h, cl);
        clover_apply_site(3, cl, psi, v);
#pragma unroll
        for (int k = 0; k < 12; k++) v[k] = c_add(v[k], c_scale(a.alpha, acc[k]));
    } else {
#pragma unroll
        for (int k = 0; k < 12; k++) v[k] = c_add(psi[k], c_scale(a.alpha, acc[k]));
    }
    spinor_store<SS>((SS *)a.out, a.out_norm, h + col, v);
}

/* ---- the faces of a t-slab (dirac/gpu_sweep.h) -------------------------------
 * thread j < V3h, the input's sites (parity 1 - a.parity) of half index j
 * on local slice 0 and j + (Lt_local - 1) V3h on the last: face_out_fwd[j]
 * = the projection of psi(slice 0) a forward t hop of the previous rank
 * makes (dirac_hop_fwd_acc's first step), face_out_bwd[j] = U_t(y)^dag
 * times the projection of psi(y), y on the last slice (dirac_hop_bwd_acc's
 * first two steps, the phase where y is global Lt - 1): the next rank
 * only rebuilds the spins.  The same helpers in the same order as the
 * whole-lattice kernel, so every rank count gives the same bits. */
template <typename SS, typename LS, int RECON, int SIGN>
__global__ void __launch_bounds__(128) k_dslash_face(const dslash_args a)
{
    gpu_chained_begin(); /* launched chained (gpu/chain.cuh): nothing read before it */
    typedef typename dslash_links<LS, RECON>::type U;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= a.g.V3h) return;
    const int q = 1 - a.parity;
    const SS *in = (const SS *)a.in;
    lat_complex psi[12], hv[6], u[9], w[6];
    spinor_load<SS>(in, a.in_norm, j, psi);
    spin_project(3, 3, -SIGN, psi, hv);
    face_store(a.face_out_fwd, j, hv);
    const int hb = j + (a.g.L[3] - 1) * a.g.V3h;
    int x[4];
    decode(a.g, q, hb, x);
    U::template load<lat_complex, true>(U::at((LS *)a.links, a.g, q, 3, hb), u);
    if (dslash_phased<SS>(a, 3) && dslash_last(a, x, 3))
        for (int k = 0; k < 9; k++) u[k] = c_mul(a.phase[3], u[k]);
    spinor_load<SS>(in, a.in_norm, hb, psi);
    spin_project(3, 3, SIGN, psi, hv);
    colour_mul_dag(3, u, hv, w);
    colour_mul_dag(3, u, hv + 3, w + 3);
    face_store(a.face_out_bwd, j, w);
}

/* ---- the clover term alone (dirac/gpu_sweep.h's clover_only) ----------------
 * out(h) = C(h) loc(h): the arithmetic of dirac_cpu_clover's site (load,
 * clover_apply_site, store), so the double kernel gives the CPU's bits */
template <typename SS, typename LS>
__global__ void __launch_bounds__(128) k_clover(const dslash_args a)
{
    gpu_chained_begin(); /* launched chained (gpu/chain.cuh): nothing read before it */
    const int h = blockIdx.x * blockDim.x + threadIdx.x;
    if (h >= a.g.Vh) return;
    lat_complex psi[12], v[12];
    lat_real cl[72];
    spinor_load<SS>((const SS *)a.loc, a.loc_norm, h, psi);
    const LS *clov = (const LS *)a.clover;
    if (!clov) {
        spinor_store<SS>((SS *)a.out, a.out_norm, h, psi);
        return;
    }
    clover_load(clov, a.clover_step, h, cl);
    clover_apply_site(3, cl, psi, v);
    spinor_store<SS>((SS *)a.out, a.out_norm, h, v);
}

/* ---- host side: which instantiation, with which arguments ----------------- */
/* the kernels of w->sign (k_dslash's SIGN) */
template <typename SS, typename LS, int RECON, class Launch>
static void dslash_signed(bool face, int sign, const dslash_args &args, int n, const Launch &launch)
{
    const bool block = args.nrhs > 1;
    if (sign == 1)
        launch(face ? k_dslash_face<SS, LS, RECON, 1> : block ? k_dslash<SS, LS, RECON, 1, true> : k_dslash<SS, LS, RECON, 1, false>,
               args, n);
    else if (sign == -1)
        launch(face ? k_dslash_face<SS, LS, RECON, -1> : block ? k_dslash<SS, LS, RECON, -1, true> : k_dslash<SS, LS, RECON, -1, false>,
               args, n);
    else lat_die(1, "GPU Dirac", "internal error: the sign of D is %d, not +1 or -1", sign);
}

template <typename SS, typename LS, class Launch>
static void dslash_recon(const struct dirac_gpu_sweep *w, const dslash_args &args, const Launch &launch)
{
    const bool face = w->face_out_fwd != NULL;
    const int n = face ? args.g.V3h : dslash_threads(args.g, args.sites);
    if (n <= 0) return;
    switch (w->links->recon) {
    case GPU_RECON_FULL: dslash_signed<SS, LS, LINK_FULL>(face, w->sign, args, n, launch); break;
    case GPU_RECON_12: dslash_signed<SS, LS, LINK_12>(face, w->sign, args, n, launch); break;
    case GPU_RECON_8: dslash_signed<SS, LS, LINK_8>(face, w->sign, args, n, launch); break;
    default: lat_die(1, "GPU Dirac", "internal error: links stored in %d reals", w->links->recon);
    }
}

template <class Launch>
static void dslash_dispatch(const struct dirac_gpu_sweep *w, const Launch &launch)
{
    dslash_args args;
    args.g = make_geo(w->links);
    args.links = w->links16 ? w->links16 : w->links->links; /* half: 16 or 32 bits */
    args.clover = w->clover;
    args.clover_step = w->clover_step;
    args.in = w->in;
    args.loc = w->loc;
    args.in_norm = w->in_norm;
    args.loc_norm = w->loc_norm;
    args.out = w->out;
    args.out_norm = w->out_norm;
    args.parity = w->parity;
    args.post_inv = w->post_inv;
    args.alpha = (lat_real)w->alpha;
    args.phased = 0;
    for (int mu = 0; mu < 4; mu++) {
        args.phase[mu] = c_make((lat_real)w->phase[mu][0], (lat_real)w->phase[mu][1]);
        if (args.phase[mu].re != 1 || args.phase[mu].im != 0) args.phased |= 1 << mu;
    }
    args.face_fwd = (const lat_real *)w->face_fwd;
    args.face_bwd = (const lat_real *)w->face_bwd;
    args.face_out_fwd = (lat_real *)w->face_out_fwd;
    args.face_out_bwd = (lat_real *)w->face_out_bwd;
    args.tg0 = w->tg0;
    args.ltg = w->ltg > 0 ? w->ltg : args.g.L[3];
    args.sites = w->sites;
    args.nrhs = w->nrhs > 1 ? w->nrhs : 1;
    args.col_sites = w->col_sites;
    if (args.nrhs > 1 && (w->face_fwd || w->face_out_fwd || w->sites != DIRAC_SITES_ALL || w->clover_only))
        lat_die(1, "GPU Dirac", "internal error: a block of %d columns on a t-slab or in a clover-only sweep", args.nrhs);
    if constexpr (sizeof(lat_real) == sizeof(double)) {
        if (w->links->prec != 'd' || w->spinor_prec != SOLVER_DOUBLE)
            lat_die(1, "GPU Dirac", "internal error: the double kernels got precision %c/%d", w->links->prec,
                    w->spinor_prec);
        if (w->clover_only) {
            if (args.g.Vh > 0) launch(k_clover<double, double>, args, args.g.Vh);
        } else {
            dslash_recon<double, double>(w, args, launch);
        }
    } else {
        if (w->links->prec != 's' || w->spinor_prec == SOLVER_DOUBLE)
            lat_die(1, "GPU Dirac", "internal error: the float kernels got precision %c/%d", w->links->prec,
                    w->spinor_prec);
        if (w->clover_only) lat_die(1, "GPU Dirac", "internal error: a clover-only sweep in float");
        if (w->links16 && w->clover && !w->clover_step)
            lat_die(1, "GPU Dirac", "internal error: a half sweep over 16-bit links without its clover steps");
        if (w->spinor_prec == SOLVER_HALF && w->links16) dslash_recon<dirac_half_t, dirac_half_t>(w, args, launch);
        else if (w->spinor_prec == SOLVER_HALF) dslash_recon<dirac_half_t, float>(w, args, launch);
        else dslash_recon<float, float>(w, args, launch);
    }
}
