/* gaugefix_gpu_impl.cuh -- the CUDA kernels of the gauge-fixing backend, for
 * one precision.  Included by gaugefix_gpu_{d,s,m}.cu after they set
 *     LAT_REAL  arithmetic type (double, float, double)
 *     GF_STORE  storage type    (double, float, float)
 *     GF_NS     a namespace for this precision's kernels (gf_d, gf_s, gf_m)
 *     GF_SFX    the suffix of the extern "C" entry points (d, s, m)
 *     GF_MIXED  (m only) links in float registers between the double steps
 *               (the one-thread-per-site kernel)
 *     GF_THREADS_PER_SITE  the default sweep kernel: 1 (k_sweep, one thread
 *               per site), 2 or 4 (k_sweep4: 2 or 1 directions per thread)
 *     GF_MINB, GF_MINB_HEAVY  (2 or 4 threads per site) minimum blocks of
 *               128 threads per SM of the default kernels (sweep_default)
 *     GF_SHARED_G  (4 threads per site) 1: the default kernel is k_sweep_sh
 *               (g once per site, through shared memory), 0: k_sweep4
 *     GF_LAZY_ROW3  (k_sweep_sh) true: the third rows of SU(3) rebuilt only
 *               for the subgroups that use them (fewer live registers)
 * The storage layout is described in gaugefix_gpu.h.
 *
 * The physics is not here: each kernel loads the links of a site into
 * registers (rebuilding the third row of SU(3)), calls gf_site_update,
 * gf_site_functional or gf_site_theta of common/gaugefix.h -- the very
 * functions the CPU backend calls; the several-threads-per-site kernels call
 * the parts gf_site_update is built from (gf_landau_k_link, gf_mag_h_up/_dn,
 * gf_step1_k/_h, gf_step2_link, gf_step2_column) in its order -- and stores
 * the links back.  The gauge,
 * the update and N are template parameters, so each kernel is compiled with
 * the branches of gaugefix.h folded away and the matrices in registers.
 * k_sweep: one thread updates one site; k_sweep4: four threads, one per
 * direction (see there).  A sweep is a launch for the even sites, then one
 * for the odd sites.  Random numbers: site x of sweep k draws from
 * rng_init(seed, copy, x, k, purpose), the stream the CPU backend uses. */
#include "gaugefix/gpu.h"
extern "C" {
#include "base/log.h"
}
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#if !defined(GF_STORE) || !defined(GF_NS) || !defined(GF_SFX) || !defined(GF_THREADS_PER_SITE)
#error "define GF_STORE, GF_NS, GF_SFX and GF_THREADS_PER_SITE before including gaugefix_gpu_impl.cuh"
#endif
#ifndef GF_SHARED_G
#define GF_SHARED_G 0
#endif
#ifndef GF_LAZY_ROW3
#define GF_LAZY_ROW3 false
#endif
#if GF_THREADS_PER_SITE != 1 && (!defined(GF_MINB) || !defined(GF_MINB_HEAVY))
#error "define GF_MINB and GF_MINB_HEAVY (launch bounds of the default kernels) with GF_THREADS_PER_SITE 2 or 4"
#endif

#define GF_CAT2(a, b) a##_##b
#define GF_CAT(a, b) GF_CAT2(a, b)
#define GF_ENTRY(name) GF_CAT(name, GF_SFX)

namespace GF_NS {

typedef GF_STORE store_t;

#ifdef GF_MIXED
struct fcx { float re, im; }; /* a single-precision complex number in registers */
/* float -> double through PTX, which the compiler does not merge with a
 * plain conversion of the same value */
__device__ __forceinline__ double widen(float x)
{
    double d;
    asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(x));
    return d;
}
/* single-precision links: the third row of SU(3) rebuilt in double */
__device__ __forceinline__ void su3_rebuild_row3(fcx *m)
{
    lat_complex d[9];
#pragma unroll
    for (int k = 0; k < 6; k++) d[k] = c_make(m[k].re, m[k].im);
    ::su3_rebuild_row3(d);
#pragma unroll
    for (int k = 6; k < 9; k++) {
        m[k].re = (float)d[k].re;
        m[k].im = (float)d[k].im;
    }
}
#endif

/* the geometry and the link loads and stores of the device layout */
#include "gpu/accessor.cuh"

/* the update's parameters as gaugefix.h takes them (gauge and update fixed
 * at compile time) */
template <int G, int UPD>
__device__ __forceinline__ struct gf_params kernel_params(double omega, double prob, double temp)
{
    struct gf_params par;
    par.gauge = (enum gauge_kind)G;
    par.update = (enum gf_update)UPD;
    par.omega = omega;
    par.p = prob;
    par.temperature = temp;
    return par;
}

/* up[mu] = U_mu(x), dn[mu] = U_mu(x - mu) of site (p, h), mu < ND: the
 * directions a sweep reads and moves (GF_NDIRS: Coulomb leaves U_t alone) */
template <int NC, int ND, typename CX>
__device__ __forceinline__ void load_site(const store_t *links, const kgeo &g, int p, int h, int site, const int x[4],
                                          CX *up, CX *dn, int hb[4])
{
#pragma unroll
    for (int mu = 0; mu < ND; mu++) {
        hb[mu] = neighbour(g, site, x, mu, -1) >> 1;
        load_link<NC>(link_ptr<NC>(links, g, p, mu, h), up + mu * NC * NC);
        load_link<NC>(link_ptr<NC>(links, g, 1 - p, mu, hb[mu]), dn + mu * NC * NC);
    }
}

/* ---- the sweep -----------------------------------------------------------
 * The site update is gf_site_update of gaugefix.h.  Mixed precision
 * (GF_MIXED: single storage, double arithmetic) keeps the eight links in
 * registers in single precision and runs every SU(2) subgroup step in
 * double: the rows/columns the step touches are widened, Step 1 (gf_step1)
 * and Step 2 (gf_step2) run in double -- the same header functions, in the
 * order of gf_site_update -- and the results are rounded back to single.
 * Measured on an H100 (docs/PERFORMANCE.md): the whole update in double
 * registers (gf_site_update on 8 x 18 doubles = 288 registers) spills and
 * runs at 61% of the single-precision rate; this version at 66-69%, with F
 * within 3e-12..5e-11 of double precision after fixing to theta < 1e-12;
 * Step 2 in single (paper §4.5) ran at 97% but biased F by 1.0-1.5e-6. */
#ifdef GF_MIXED
typedef fcx link_cx;
template <int NC>
__device__ __forceinline__ void site_update(link_cx *up, link_cx *dn, link_cx *gacc, const struct gf_params *p,
                                            struct lat_rng *r)
{
    constexpr int NN = NC * NC;
#pragma unroll
    for (int s = 0; s < NC * (NC - 1) / 2; s++) {
        int i, j;
        sun_subgroup(NC, s, &i, &j);
        /* Subgroup (i,j) reads and changes only rows i, j of U_mu(x) and
         * columns i, j of U_mu(x-mu) (gf_step1 reads their (i,j) blocks,
         * gf_step2 multiplies by g from the left and g^dag from the right):
         * only those are widened and rounded back, the rest stays zero and
         * folds away, so few doubles are live at a time. */
        lat_complex ud[4 * NN], dd[4 * NN];
#pragma unroll
        for (int k = 0; k < 4 * NN; k++) {
            int row = (k % NN) / NC, col = k % NC;
            ud[k] = row == i || row == j ? c_make(up[k].re, up[k].im) : c_make(0, 0);
            dd[k] = col == i || col == j ? c_make(dn[k].re, dn[k].im) : c_make(0, 0);
        }
        lat_su2 g = gf_step1(NC, ud, dd, i, j, p, r);
        /* widened again for Step 2 (a separate conversion, so that the
         * compiler does not keep the Step-1 copies alive across gf_step1) */
#pragma unroll
        for (int k = 0; k < 4 * NN; k++) {
            int row = (k % NN) / NC, col = k % NC;
            if (row == i || row == j) ud[k] = c_make(widen(up[k].re), widen(up[k].im));
            if (col == i || col == j) dd[k] = c_make(widen(dn[k].re), widen(dn[k].im));
        }
        gf_step2(NC, ud, dd, gf_ndirs(p->gauge), i, j, g);
#pragma unroll
        for (int k = 0; k < 4 * NN; k++) {
            int row = (k % NN) / NC, col = k % NC;
            if (row == i || row == j) {
                up[k].re = (float)ud[k].re;
                up[k].im = (float)ud[k].im;
            }
            if (col == i || col == j) {
                dn[k].re = (float)dd[k].re;
                dn[k].im = (float)dd[k].im;
            }
        }
        if (gacc) {
            lat_complex gd[NN];
#pragma unroll
            for (int k = 0; k < NN; k++) gd[k] = c_make(gacc[k].re, gacc[k].im);
            sun_su2_left(NC, gd, i, j, g);
#pragma unroll
            for (int k = 0; k < NN; k++) {
                gacc[k].re = (float)gd[k].re;
                gacc[k].im = (float)gd[k].im;
            }
        }
    }
}
#else
typedef lat_complex link_cx;
template <int NC>
__device__ __forceinline__ void site_update(link_cx *up, link_cx *dn, link_cx *gacc, const struct gf_params *p,
                                            struct lat_rng *r)
{
    gf_site_update(NC, up, dn, gacc, p, r);
}
#endif

template <int NC, int G, int UPD, bool TRACK, int BS, int MINB>
__global__ void __launch_bounds__(BS, MINB)
k_sweep(kgeo g, store_t *__restrict__ links, store_t *__restrict__ gt, const unsigned char *__restrict__ active,
        int p, double omega, double prob, double temp, uint64_t seed, uint32_t copy, uint32_t sweep)
{
    int h = g.h0 + blockIdx.x * BS + threadIdx.x;
    if (h >= g.h1) return;
    int x[4];
    int site = decode(g, p, h, x);
    if (active && !active[x[3]]) return; /* a frozen timeslice (Coulomb) */
    constexpr int NN = NC * NC, ND = GF_NDIRS(G);
    link_cx up[4 * NN], dn[4 * NN];
    int hb[4];
    load_site<NC, ND>(links, g, p, h, site, x, up, dn, hb);
    const struct gf_params par = kernel_params<G, UPD>(omega, prob, temp);
    struct lat_rng r;
    rng_init(&r, seed, copy, (uint64_t)(site + g.site0), sweep, UPD == GF_ANNEAL ? RNG_ANNEAL : RNG_STOCHASTIC);
    if (TRACK) {
        link_cx gm[NN];
        store_t *gb = transform_ptr<NC>(gt, g, p, h);
        load_rows<NC, NC, layout<NC>::ncomp_t>(gb, gm);
        site_update<NC>(up, dn, gm, &par, &r);
        store_rows<NC, NC, layout<NC>::ncomp_t>(gb, gm);
    } else {
        site_update<NC>(up, dn, (link_cx *)NULL, &par, &r);
    }
#pragma unroll
    for (int mu = 0; mu < ND; mu++) {
        store_link<NC>(link_ptr<NC>(links, g, p, mu, h), up + mu * NN);
        store_link<NC>(link_ptr<NC>(links, g, 1 - p, mu, hb[mu]), dn + mu * NN);
    }
}

/* ---- the sweep, four threads per site --------------------------------------
 * Paper §4.3 (finer granularity), with one thread per direction mu instead
 * of one per link: the four threads of a site sit in adjacent lanes (lane =
 * 4 * site + mu within the warp), and thread mu holds U_mu(x) and U_mu(x-mu)
 * only -- 2 x 18 reals instead of the 8 x 18 that spill in double (255
 * registers, 600-1100 B of spills per thread, ptxas).  Per SU(2) subgroup,
 * each thread computes its direction's share of Step 1 (gf_landau_k_link, or
 * gf_mag_h_up/_dn for MAG), the four shares are exchanged by warp shuffles
 * within the site's lanes and summed in the fixed order of gf_landau_k /
 * gf_mag_h (mu = 0, 1, 2, 3; so k has the bits the one-thread kernel and the
 * CPU compute), every thread finds the same g from the sum (gf_step1_k /
 * gf_step1_h, the random updates on identical copies of the site's Philox
 * stream), and applies it to its own two links (gf_step2_link) and, with a
 * tracked transform, to column mu of g(x) (gf_step2_column; mu < N).  All
 * arithmetic is lat_real (double for 'd' and 'm'); 'm' loads float links,
 * runs the whole site update in double and rounds once at the store, as the
 * CPU backend's 'm' does.  A warp reads 8 consecutive sites of each of its
 * four link slots per 16-byte group: 128 contiguous bytes per slot. */

/* half index of x - mu for a run-time mu (selects, no dynamic indexing of
 * the small arrays, which would move them to local memory) */
__device__ __forceinline__ int neighbour_dn_h(const kgeo &g, int site, const int x[4], int mu)
{
    int xm = x[0], sm = 1, lm = g.L[0];
#pragma unroll
    for (int m = 1; m < 4; m++)
        if (mu == m) {
            xm = x[m];
            sm = g.s[m];
            lm = g.L[m];
        }
    return (xm > 0 ? site - sm : site + (lm - 1) * sm) >> 1;
}

/* element (row, col) of a full N x N matrix stored at b (mat_ptr) */
template <int NC>
__device__ __forceinline__ store_t *elem_ptr(store_t *b, int row, int col, int im)
{
    int e = 2 * (row * NC + col) + im;
    return b + (e / VEC) * (GPU_LANES * VEC) + e % VEC;
}

/* column c of the tracked transform at pg (transform_ptr): load and store */
template <int NC>
__device__ __forceinline__ void load_column(store_t *pg, int c, lat_complex *col)
{
#pragma unroll
    for (int k = 0; k < NC; k++) col[k] = c_make(__ldcg(elem_ptr<NC>(pg, k, c, 0)), __ldcg(elem_ptr<NC>(pg, k, c, 1)));
}
template <int NC>
__device__ __forceinline__ void store_column(store_t *pg, int c, const lat_complex *col)
{
#pragma unroll
    for (int k = 0; k < NC; k++) {
        __stcg(elem_ptr<NC>(pg, k, c, 0), (store_t)col[k].re);
        __stcg(elem_ptr<NC>(pg, k, c, 1), (store_t)col[k].im);
    }
}

template <int NC, int G, int UPD, bool TRACK, int TPS, int BS, int MINB>
__global__ void __launch_bounds__(BS, MINB)
k_sweep4(kgeo g, store_t *__restrict__ links, store_t *__restrict__ gt, const unsigned char *__restrict__ active,
         int p, double omega, double prob, double temp, uint64_t seed, uint32_t copy, uint32_t sweep)
{
    static_assert(BS % 32 == 0 && (TPS == 2 || TPS == 4), "whole warps; 2 or 4 threads per site");
    constexpr int DPT = 4 / TPS; /* directions per thread */
    int t = blockIdx.x * BS + threadIdx.x;
    int h = g.h0 + t / TPS, tid = t % TPS;
    if (h >= g.h1) return; /* the site's lanes leave together */
    int x[4];
    int site = decode(g, p, h, x);
    if (active && !active[x[3]]) return; /* a frozen timeslice (Coulomb) */
    const int lead = threadIdx.x & (32 - TPS);            /* lane of this site's tid = 0 */
    const unsigned grp = ((1u << TPS) - 1) << lead;       /* the site's lanes */
    constexpr int NN = NC * NC, ND = GF_NDIRS(G);
    lat_complex u[DPT][NN], d[DPT][NN];
    store_t *pu[DPT], *pd[DPT];
    bool moves[DPT]; /* direction tid*DPT+e is read and moved (Coulomb: not U_t) */
#pragma unroll
    for (int e = 0; e < DPT; e++) {
        int mu = tid * DPT + e;
        moves[e] = mu < ND;
        pu[e] = link_ptr<NC>(links, g, p, mu, h);
        pd[e] = link_ptr<NC>(links, g, 1 - p, mu, neighbour_dn_h(g, site, x, mu));
        if (moves[e]) {
            load_link<NC>(pu[e], u[e]);
            load_link<NC>(pd[e], d[e]);
        } else {
#pragma unroll
            for (int k = 0; k < NN; k++) u[e][k] = d[e][k] = c_make(0, 0);
        }
    }
    const struct gf_params par = kernel_params<G, UPD>(omega, prob, temp);
    struct lat_rng r; /* the same stream in the site's lanes */
    rng_init(&r, seed, copy, (uint64_t)(site + g.site0), sweep, UPD == GF_ANNEAL ? RNG_ANNEAL : RNG_STOCHASTIC);
    /* tracked transform: this thread's columns c = tid * DPT + e < N */
    lat_complex col[DPT][NC];
    store_t *pg = TRACK ? transform_ptr<NC>(gt, g, p, h) : NULL;
    if (TRACK) {
#pragma unroll
        for (int e = 0; e < DPT; e++) {
            int c = tid * DPT + e;
            if (c < NC) load_column<NC>(pg, c, col[e]);
        }
    }
#pragma unroll
    for (int s = 0; s < NC * (NC - 1) / 2; s++) {
        int i, j;
        sun_subgroup(NC, s, &i, &j);
        lat_su2 gs;
        if (G == GAUGE_MAG) {
            lat_real hu[DPT][4], hd[DPT][4], hh[4] = {0, 0, 0, 0};
#pragma unroll
            for (int e = 0; e < DPT; e++) {
#pragma unroll
                for (int a = 0; a < 4; a++) hu[e][a] = hd[e][a] = 0;
                gf_mag_h_up(NC, u[e], i, j, hu[e]);
                gf_mag_h_dn(NC, d[e], i, j, hd[e]);
            }
#pragma unroll
            for (int m = 0; m < 4; m++) /* the order of gf_mag_h */
#pragma unroll
                for (int a = 0; a < 4; a++) {
                    hh[a] += __shfl_sync(grp, hu[m % DPT][a], lead + m / DPT);
                    hh[a] += __shfl_sync(grp, hd[m % DPT][a], lead + m / DPT);
                }
            gs = gf_step1_h(hh, &par, &r);
        } else {
            lat_su2 c[DPT];
#pragma unroll
            for (int e = 0; e < DPT; e++) c[e] = gf_landau_k_link(NC, u[e], d[e], i, j);
            lat_su2 k = {{0, 0, 0, 0}};
#pragma unroll
            for (int m = 0; m < gf_ndirs((enum gauge_kind)G); m++) { /* the order of gf_landau_k */
                lat_su2 cm;
#pragma unroll
                for (int a = 0; a < 4; a++) cm.q[a] = __shfl_sync(grp, c[m % DPT].q[a], lead + m / DPT);
                gf_su2_acc(&k, cm);
            }
            gs = gf_step1_k(k, &par, &r);
        }
#pragma unroll
        for (int e = 0; e < DPT; e++) {
            if (moves[e]) gf_step2_link(NC, u[e], d[e], i, j, gs);
            if (TRACK && tid * DPT + e < NC) gf_step2_column(col[e], i, j, gs);
        }
    }
#pragma unroll
    for (int e = 0; e < DPT; e++) {
        if (!moves[e]) continue;
        store_link<NC>(pu[e], u[e]);
        store_link<NC>(pd[e], d[e]);
    }
    if (TRACK) {
#pragma unroll
        for (int e = 0; e < DPT; e++) {
            int c = tid * DPT + e;
            if (c < NC) store_column<NC>(pg, c, col[e]);
        }
    }
}

/* ---- the sweep, four threads per site, g once per site -------------------
 * k_sweep4 computes g in every thread of a site: with 4 threads per site a
 * warp holds 8 sites, so each warp instruction of Step 1 serves 8 sites
 * instead of 32, and Step 1 (sqrt, divisions, normalisation, the
 * overrelaxation) becomes ~55% of the FP64 work (ptxas/PTX: ~4700 FP64
 * instructions per site update against ~2700 in one thread per site).  In
 * double that fits (memory-bound at 1.95 G/s needs ~9 T FP64 op/s of ~16.7),
 * in mixed it does not (3.4 G/s would need ~95% of the FP64 peak).  Here a
 * block holds SB sites x 4 directions; warp (mu, chunk) holds direction mu
 * of 32 consecutive sites (every load and store is 512 contiguous bytes, as
 * in k_sweep).  Per subgroup the threads write their shares to shared
 * memory, the warps of mu = 0 sum them in the fixed order, find g (once per
 * site) and write it back, and every thread applies it: two barriers per
 * subgroup, ~2700 FP64 instructions per site update. */
template <int NC, int G, int UPD, bool TRACK, int SB, int MINB, bool LAZY = false>
__global__ void __launch_bounds__(4 * SB, MINB)
k_sweep_sh(kgeo g, store_t *__restrict__ links, store_t *__restrict__ gt, const unsigned char *__restrict__ active,
           int p, double omega, double prob, double temp, uint64_t seed, uint32_t copy, uint32_t sweep)
{
    static_assert(SB % 32 == 0, "whole warps");
    constexpr int NS = G == GAUGE_MAG ? 8 : 4; /* reals of one share */
    __shared__ lat_real sh_c[NS][4][SB];
    __shared__ lat_real sh_g[4][SB];
    const int mu = threadIdx.x / SB, sl = threadIdx.x % SB;
    const int h = g.h0 + blockIdx.x * SB + sl;
    int x[4] = {0, 0, 0, 0}, site = 0;
    bool live = h < g.h1; /* every thread stays for the barriers */
    if (live) {
        site = decode(g, p, h, x);
        live = !active || active[x[3]];
    }
    constexpr int NN = NC * NC;
    lat_complex u[NN], d[NN];
    store_t *pu = NULL, *pd = NULL;
    /* Coulomb: the threads of mu = t move no link (they may carry a column
     * of the transform when N > 3) */
    const bool moves = mu < GF_NDIRS(G);
    if (!moves) {
#pragma unroll
        for (int k = 0; k < NN; k++) u[k] = d[k] = c_make(0, 0);
    }
    if (live && moves) {
        pu = link_ptr<NC>(links, g, p, mu, h);
        pd = link_ptr<NC>(links, g, 1 - p, mu, neighbour_dn_h(g, site, x, mu));
        if (LAZY && NC == 3) { /* the third rows only where a subgroup needs them (below) */
            load_rows<NC, layout<NC>::nrows, layout<NC>::ncomp>(pu, u);
            load_rows<NC, layout<NC>::nrows, layout<NC>::ncomp>(pd, d);
#pragma unroll
            for (int k = 2 * NC; k < NN; k++) u[k] = d[k] = c_make(0, 0);
        } else {
            load_link<NC>(pu, u);
            load_link<NC>(pd, d);
        }
    }
    const struct gf_params par = kernel_params<G, UPD>(omega, prob, temp);
    struct lat_rng r; /* used by the threads of mu = 0 */
    rng_init(&r, seed, copy, (uint64_t)(site + g.site0), sweep, UPD == GF_ANNEAL ? RNG_ANNEAL : RNG_STOCHASTIC);
    lat_complex col[NC]; /* column mu of the tracked transform (mu < N) */
    store_t *pg = NULL;
    if (TRACK && live && mu < NC) {
        pg = transform_ptr<NC>(gt, g, p, h);
        load_column<NC>(pg, mu, col);
    }
#pragma unroll
    for (int s = 0; s < NC * (NC - 1) / 2; s++) {
        int i, j;
        sun_subgroup(NC, s, &i, &j);
        if (live) {
            /* LAZY: rebuilt from the two first rows before each subgroup that
             * uses it (both links stay in SU(3)); in between it is dead, which
             * frees 24 registers: more blocks per SM */
            if (LAZY && NC == 3 && j == 2 && moves) {
                su3_rebuild_row3(u);
                su3_rebuild_row3(d);
            }
            if (G == GAUGE_MAG) {
                lat_real hu[4] = {0, 0, 0, 0}, hd[4] = {0, 0, 0, 0};
                gf_mag_h_up(NC, u, i, j, hu);
                gf_mag_h_dn(NC, d, i, j, hd);
#pragma unroll
                for (int a = 0; a < 4; a++) {
                    sh_c[a][mu][sl] = hu[a];
                    sh_c[NS - 4 + a][mu][sl] = hd[a];
                }
            } else {
                lat_su2 c = gf_landau_k_link(NC, u, d, i, j);
#pragma unroll
                for (int a = 0; a < 4; a++) sh_c[a][mu][sl] = c.q[a];
            }
        }
        __syncthreads();
        if (live && mu == 0) {
            lat_su2 gs;
            if (G == GAUGE_MAG) {
                lat_real hh[4] = {0, 0, 0, 0};
#pragma unroll
                for (int m = 0; m < 4; m++) /* the order of gf_mag_h */
#pragma unroll
                    for (int a = 0; a < 4; a++) {
                        hh[a] += sh_c[a][m][sl];
                        hh[a] += sh_c[NS - 4 + a][m][sl];
                    }
                gs = gf_step1_h(hh, &par, &r);
            } else {
                lat_su2 k = {{0, 0, 0, 0}};
#pragma unroll
                for (int m = 0; m < gf_ndirs((enum gauge_kind)G); m++) { /* the order of gf_landau_k */
                    lat_su2 cm;
#pragma unroll
                    for (int a = 0; a < 4; a++) cm.q[a] = sh_c[a][m][sl];
                    gf_su2_acc(&k, cm);
                }
                gs = gf_step1_k(k, &par, &r);
            }
#pragma unroll
            for (int a = 0; a < 4; a++) sh_g[a][sl] = gs.q[a];
        }
        __syncthreads();
        if (live) {
            lat_su2 gs;
#pragma unroll
            for (int a = 0; a < 4; a++) gs.q[a] = sh_g[a][sl];
            if (moves) gf_step2_link(NC, u, d, i, j, gs);
            if (TRACK && mu < NC) gf_step2_column(col, i, j, gs);
        }
        /* no races: the next subgroup writes sh_c after this subgroup's
         * second barrier, by which the mu = 0 warps have read it; sh_g is
         * read before the next subgroup's first barrier, written after it */
    }
    if (live) {
        if (moves) {
            store_link<NC>(pu, u);
            store_link<NC>(pd, d);
        }
        if (TRACK && mu < NC) store_column<NC>(pg, mu, col);
    }
}

struct sweep_args {
    kgeo g;
    store_t *links, *gt;
    const unsigned char *active;
    double omega, prob, temp;
    uint64_t seed;
    uint32_t copy, sweep;
    int parity; /* < 0: both */
};

template <int NC, int G, int UPD, bool TRACK, int BS, int MINB>
static void launch(const sweep_args &a, int p)
{
    static bool configured;
    if (!configured) { /* no shared memory: all of it as L1 (spills, if any) */
        cudaFuncSetAttribute(k_sweep<NC, G, UPD, TRACK, BS, MINB>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
        configured = true;
    }
    int nb = (a.g.h1 - a.g.h0 + BS - 1) / BS;
    if (nb <= 0) return;
    k_sweep<NC, G, UPD, TRACK, BS, MINB><<<nb, BS>>>(a.g, a.links, a.gt, a.active, p, a.omega, a.prob, a.temp,
                                                       a.seed, a.copy, a.sweep);
}

template <int NC, int G, int UPD, bool TRACK, int TPS, int BS, int MINB>
static void launch4(const sweep_args &a, int p)
{
    static bool configured;
    if (!configured) {
        cudaFuncSetAttribute(k_sweep4<NC, G, UPD, TRACK, TPS, BS, MINB>, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
        configured = true;
    }
    size_t nt = TPS * (size_t)(a.g.h1 - a.g.h0);
    unsigned nb = (unsigned)((nt + BS - 1) / BS);
    if (nb == 0) return;
    k_sweep4<NC, G, UPD, TRACK, TPS, BS, MINB><<<nb, BS>>>(a.g, a.links, a.gt, a.active, p, a.omega, a.prob, a.temp,
                                                             a.seed, a.copy, a.sweep);
}

template <int NC, int G, int UPD, bool TRACK, int SB, int MINB, bool LAZY = false>
static void launch_sh(const sweep_args &a, int p)
{
    static bool configured;
    if (!configured) { /* shared memory for MINB blocks and more; the rest L1 */
        cudaFuncSetAttribute(k_sweep_sh<NC, G, UPD, TRACK, SB, MINB, LAZY>, cudaFuncAttributePreferredSharedMemoryCarveout, 25);
        configured = true;
    }
    unsigned nb = (unsigned)((a.g.h1 - a.g.h0 + SB - 1) / SB);
    if (nb == 0) return;
    k_sweep_sh<NC, G, UPD, TRACK, SB, MINB, LAZY><<<nb, 4 * SB>>>(a.g, a.links, a.gt, a.active, p, a.omega, a.prob, a.temp,
                                                               a.seed, a.copy, a.sweep);
}

/* The kernel of each precision and launch variant (names in gpu_util.cu,
 * gpu_sweep_variant_name).  Default (variant 0): one thread per site in
 * single precision (bound by memory at 95-98% of the copy bandwidth);
 * GF_THREADS_PER_SITE threads per site in 'd' and 'm' (k_sweep4, or
 * k_sweep_sh with GF_SHARED_G), for every gauge, update and N, with 128
 * threads per block and at least default_minb blocks per SM.  The other
 * variants exist for SU(3) OR of Landau/Coulomb without a transform and of
 * Coulomb with one (the benchmark compares them); elsewhere the default
 * runs. */
/* Minimum blocks per SM of the default kernels: GF_MINB, or GF_MINB_HEAVY
 * for those with more live values (annealing, MAG, a tracked transform).
 * Coulomb always carries the run's g (gf_open), but its threads of mu = t
 * hold no links: tracked Coulomb relaxation gets one block more than the
 * heavy kernels (ptxas, mixed: 372 B of spills at 5 blocks/SM, none at 4) */
#if GF_THREADS_PER_SITE != 1
template <int G, int UPD, bool TRACK> struct default_minb {
    static constexpr bool heavy = UPD == GF_ANNEAL || G == GAUGE_MAG || TRACK;
    static constexpr int value =
        !heavy ? GF_MINB : (G == GAUGE_COULOMB && UPD != GF_ANNEAL) ? GF_MINB_HEAVY + 1 : GF_MINB_HEAVY;
};
#endif

template <int NC, int G, int UPD, bool TRACK>
static void sweep_default(const sweep_args &a, int p)
{
#if GF_THREADS_PER_SITE == 1
    launch<NC, G, UPD, TRACK, 128, 2>(a, p);
#elif GF_SHARED_G
    launch_sh<NC, G, UPD, TRACK, 32, default_minb<G, UPD, TRACK>::value, GF_LAZY_ROW3>(a, p);
#else
    launch4<NC, G, UPD, TRACK, GF_THREADS_PER_SITE, 128, default_minb<G, UPD, TRACK>::value>(a, p);
#endif
}

template <int NC, int G, int UPD, bool TRACK>
static void sweep_t(const sweep_args &a)
{
    for (int p = a.parity < 0 ? 0 : a.parity; p < (a.parity < 0 ? 2 : a.parity + 1); p++) {
        /* the variants: SU(3) overrelaxation of Landau gauge without a
         * transform, and of Coulomb gauge with the run's g it always carries */
        if constexpr (NC == 3 && UPD == GF_OVERRELAX && (TRACK ? G == GAUGE_COULOMB : G != GAUGE_MAG)) {
            switch (gpu_get_sweep_variant()) { /* the benchmark compares these */
#if GF_THREADS_PER_SITE == 1
            case 1: launch<NC, G, UPD, TRACK, 256, 1>(a, p); break;
            case 2: launch<NC, G, UPD, TRACK, 128, 3>(a, p); break;
            case 3: launch<NC, G, UPD, TRACK, 64, 4>(a, p); break;
            case 4: launch4<NC, G, UPD, TRACK, 4, 128, 4>(a, p); break;
            case 5: launch_sh<NC, G, UPD, TRACK, 32, 4>(a, p); break;
#else
            case 1: launch<NC, G, UPD, TRACK, 128, 2>(a, p); break;
            case 2: launch4<NC, G, UPD, TRACK, 4, 128, 4>(a, p); break;
            case 3: launch4<NC, G, UPD, TRACK, 2, 128, 2>(a, p); break;
            case 4: launch_sh<NC, G, UPD, TRACK, 32, 4>(a, p); break;
            case 5: launch_sh<NC, G, UPD, TRACK, 64, 2>(a, p); break;
            case 6: launch_sh<NC, G, UPD, TRACK, 32, 5>(a, p); break;
            case 7: launch_sh<NC, G, UPD, TRACK, 32, 6>(a, p); break;
            case 8: launch_sh<NC, G, UPD, TRACK, 32, 5, true>(a, p); break;
            case 9: launch_sh<NC, G, UPD, TRACK, 32, 6, true>(a, p); break;
#endif
            default: sweep_default<NC, G, UPD, TRACK>(a, p); break;
            }
        } else {
            sweep_default<NC, G, UPD, TRACK>(a, p);
        }
    }
}

template <int NC, int G, bool TRACK>
static void sweep_u(const sweep_args &a, int upd)
{
    switch (upd) {
    case GF_RELAX: sweep_t<NC, G, GF_RELAX, TRACK>(a); break;
    case GF_OVERRELAX: sweep_t<NC, G, GF_OVERRELAX, TRACK>(a); break;
    case GF_MICRO: sweep_t<NC, G, GF_MICRO, TRACK>(a); break;
    case GF_STOCHASTIC: sweep_t<NC, G, GF_STOCHASTIC, TRACK>(a); break;
    case GF_ANNEAL: sweep_t<NC, G, GF_ANNEAL, TRACK>(a); break;
    default: lat_die(1, "GPU", "unknown update type %d", upd);
    }
}

template <int NC, bool TRACK>
static void sweep_g(const sweep_args &a, int gauge, int upd)
{
    switch (gauge) {
    case GAUGE_LANDAU: sweep_u<NC, GAUGE_LANDAU, TRACK>(a, upd); break;
    case GAUGE_COULOMB: sweep_u<NC, GAUGE_COULOMB, TRACK>(a, upd); break;
    case GAUGE_MAG: sweep_u<NC, GAUGE_MAG, TRACK>(a, upd); break;
    default: lat_die(1, "GPU", "unknown gauge %d", gauge);
    }
}

/* ---- deterministic reductions --------------------------------------------
 * RED_BS threads per block, a grid fixed by the lattice alone; each thread
 * sums its sites in a fixed order, the block adds its threads as a tree in
 * shared memory, the host adds the blocks in order. */
#define RED_BS 256
#define RED_NB 32 /* blocks per timeslice (quality) */

template <int K>
__device__ __forceinline__ void block_sum(double (*sh)[RED_BS], double v[K], double *out)
{
    int tid = threadIdx.x;
#pragma unroll
    for (int k = 0; k < K; k++) sh[k][tid] = v[k];
    __syncthreads();
    for (int w = RED_BS / 2; w > 0; w >>= 1) {
        if (tid < w)
#pragma unroll
            for (int k = 0; k < K; k++) sh[k][tid] += sh[k][tid + w];
        __syncthreads();
    }
    if (tid == 0)
#pragma unroll
        for (int k = 0; k < K; k++) out[k] = sh[k][0];
}

template <int NC, int G>
__global__ void __launch_bounds__(RED_BS) k_quality(kgeo g, const store_t *__restrict__ links, double *partials)
{
    __shared__ double sh[2][RED_BS];
    int t = blockIdx.y;
    double v[2] = {0, 0};
    for (int j = blockIdx.x * RED_BS + threadIdx.x; j < 2 * g.V3h; j += RED_NB * RED_BS) {
        int p = j >= g.V3h;
        int h = t * g.V3h + j - p * g.V3h;
        int x[4], hb[4];
        int site = decode(g, p, h, x);
        lat_complex up[4 * NC * NC], dn[4 * NC * NC];
        load_site<NC, GF_NDIRS(G)>(links, g, p, h, site, x, up, dn, hb);
        v[0] += (double)gf_site_functional(NC, (enum gauge_kind)G, up);
        v[1] += (double)gf_site_theta(NC, (enum gauge_kind)G, up, dn);
    }
    block_sum<2>(sh, v, partials + ((size_t)t * RED_NB + blockIdx.x) * 2);
}

/* ---- reprojection onto SU(N) -------------------------------------------- */
template <int NC>
__global__ void __launch_bounds__(RED_BS) k_reunitarize(kgeo g, store_t *__restrict__ links, store_t *__restrict__ gt)
{
    constexpr int NN = NC * NC;
    int h = blockIdx.x * RED_BS + threadIdx.x;
    if (h >= g.Vh) return;
    int p = blockIdx.y & 1, mu = blockIdx.y >> 1; /* mu = 4: the transform */
    lat_complex m[NN];
    if (mu < 4) {
        store_t *b = link_ptr<NC>(links, g, p, mu, h);
        load_link<NC>(b, m);
        sun_reunitarize(NC, m);
        store_link<NC>(b, m);
    } else if (gt) {
        store_t *b = transform_ptr<NC>(gt, g, p, h);
        load_rows<NC, NC, layout<NC>::ncomp_t>(b, m);
        sun_reunitarize(NC, m);
        store_rows<NC, NC, layout<NC>::ncomp_t>(b, m);
    }
}

/* a device scratch buffer for partial sums, kept between calls */
static double *scratch;
static size_t scratch_n;
static double *partials_buffer(size_t n)
{
    if (n > scratch_n) {
        gpu_free(scratch);
        scratch = (double *)gpu_alloc(n * sizeof(double), "reduction buffer");
        scratch_n = n;
    }
    return scratch;
}

static void check_nc(int nc)
{
    if (nc != 2 && nc != 3) lat_die(1, "GPU", "the CUDA backend has kernels for SU(2) and SU(3), not SU(%d): use --device cpu", nc);
}

} // namespace GF_NS

/* ---- entry points ------------------------------------------------------- */

extern "C" void GF_ENTRY(gpu_gf_sweep)(const struct gpu_field *f, const struct gf_params *p, uint64_t seed,
                                        uint32_t copy, uint32_t sweep, int active, int parity)
{
    using namespace GF_NS;
    check_nc(f->nc);
    sweep_args a;
    a.g = make_geo(f);
    a.links = (store_t *)f->links;
    a.gt = (store_t *)f->transform;
    a.active = active ? f->active : NULL;
    a.omega = p->omega;
    a.prob = p->p;
    a.temp = p->temperature;
    a.seed = seed;
    a.copy = copy;
    a.sweep = sweep;
    a.parity = parity;
    bool track = a.gt != NULL;
    if (f->nc == 3) {
        if (track) sweep_g<3, true>(a, p->gauge, p->update);
        else sweep_g<3, false>(a, p->gauge, p->update);
    } else {
        if (track) sweep_g<2, true>(a, p->gauge, p->update);
        else sweep_g<2, false>(a, p->gauge, p->update);
    }
    gpu_check("sweep kernel launch");
}

extern "C" void GF_ENTRY(gpu_gf_quality)(const struct gpu_field *f, enum gauge_kind gauge, double *out)
{
    using namespace GF_NS;
    check_nc(f->nc);
    kgeo g = make_geo(f);
    int lt = f->L[3];
    size_t n = (size_t)lt * RED_NB * 2;
    double *d = partials_buffer(n);
    dim3 grid(RED_NB, lt);
    const store_t *l = (const store_t *)f->links;
#define QL(NC_)                                                                             \
    switch (gauge) {                                                                        \
    case GAUGE_LANDAU: k_quality<NC_, GAUGE_LANDAU><<<grid, RED_BS>>>(g, l, d); break;     \
    case GAUGE_COULOMB: k_quality<NC_, GAUGE_COULOMB><<<grid, RED_BS>>>(g, l, d); break;   \
    default: k_quality<NC_, GAUGE_MAG><<<grid, RED_BS>>>(g, l, d); break;                  \
    }
    if (f->nc == 3) { QL(3) } else { QL(2) }
#undef QL
    gpu_check("measurement kernel launch");
    double *hp = (double *)malloc(n * sizeof(double));
    if (!hp) lat_die(1, "GPU", "out of host memory");
    gpu_download(hp, d, n * sizeof(double));
    for (int t = 0; t < lt; t++) {
        double a = 0, b = 0;
        for (int k = 0; k < RED_NB; k++) {
            a += hp[((size_t)t * RED_NB + k) * 2];
            b += hp[((size_t)t * RED_NB + k) * 2 + 1];
        }
        out[2 * t] = a;
        out[2 * t + 1] = b;
    }
    free(hp);
}

extern "C" void GF_ENTRY(gpu_gf_reunitarize)(const struct gpu_field *f)
{
    using namespace GF_NS;
    check_nc(f->nc);
    kgeo g = make_geo(f);
    dim3 grid((unsigned)((f->Vh + RED_BS - 1) / RED_BS), f->transform ? 10 : 8);
    if (f->nc == 3) k_reunitarize<3><<<grid, RED_BS>>>(g, (store_t *)f->links, (store_t *)f->transform);
    else k_reunitarize<2><<<grid, RED_BS>>>(g, (store_t *)f->links, (store_t *)f->transform);
    gpu_check("reunitarization kernel launch");
}
