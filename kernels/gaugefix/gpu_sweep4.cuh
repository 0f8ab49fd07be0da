/* gaugefix/gpu_sweep4.cuh -- device code: the gauge-fixing sweep kernels
 * with several threads per site.
 *   k_sweep4<U, G, UPD, TRACK, TPS, BS, MINB><<<ceil(TPS(h1-h0)/BS), BS>>>
 *       TPS = 2 or 4 threads per site, Step 1 shared by warp shuffles
 *   k_sweep_sh<U, G, UPD, TRACK, SB, MINB, LAZY><<<ceil((h1-h0)/SB), 4 SB>>>
 *       (..., rt_gauge, rt_update, rt_track): G, UPD, TRACK may be GF_RT
 *       (gpu_site.cuh), then the run-time arguments say them
 *       4 threads per site, g computed once per site through shared memory;
 *       LAZY: the SU(3) third rows rebuilt only where a subgroup uses them;
 *       any N (the kernel of every precision for N >= 4: gpu_sweep.cuh),
 *       thread mu carrying columns mu, mu + 4, ... of a tracked transform
 * Both take the arguments of k_sweep (gpu_sweep1.cuh) and compute its bits
 * (the sums in the fixed order of gf_landau_k / gf_mag_h).
 * U: the links' gauge_accessor (gpu/accessor.cuh); LAZY rebuilds through
 * U::load_stored / U::rebuild, so only the rows U does not store.
 * Contract: included after gaugefix/gpu_site.cuh, inside the namespace. */
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

template <class U, int G, int UPD, bool TRACK, int TPS, int BS, int MINB>
__global__ void __launch_bounds__(BS, MINB)
k_sweep4(kgeo g, typename U::store_type *__restrict__ links, typename U::store_type *__restrict__ gt, const unsigned char *__restrict__ active,
         int p, double omega, double prob, double temp, uint64_t seed, uint32_t copy, uint32_t sweep)
{
    static_assert(BS % 32 == 0 && (TPS == 2 || TPS == 4), "whole warps; 2 or 4 threads per site");
    static_assert(!TRACK || U::nc <= 4, "a tracked transform of N > 4 has more columns than the site's threads: k_sweep_sh");
    constexpr int DPT = 4 / TPS; /* directions per thread */
    int t = blockIdx.x * BS + threadIdx.x;
    int h = g.h0 + t / TPS, tid = t % TPS;
    if (h >= g.h1) return; /* the site's lanes leave together */
    int x[4];
    int site = decode(g, p, h, x);
    if (active && !active[x[3]]) return; /* a frozen timeslice (Coulomb) */
    const int lead = threadIdx.x & (32 - TPS);            /* lane of this site's tid = 0 */
    const unsigned grp = ((1u << TPS) - 1) << lead;       /* the site's lanes */
    typedef typename U::transform T;
    typedef typename U::store_type S;
    constexpr int NC = U::nc, NN = NC * NC, ND = GF_NDIRS(G);
    lat_complex u[DPT][NN], d[DPT][NN];
    S *pu[DPT], *pd[DPT];
    bool moves[DPT]; /* direction tid*DPT+e is read and moved (Coulomb: not U_t) */
#pragma unroll
    for (int e = 0; e < DPT; e++) {
        int mu = tid * DPT + e;
        moves[e] = mu < ND;
        pu[e] = U::at(links, g, p, mu, h);
        pd[e] = U::at(links, g, 1 - p, mu, neighbour_dn_h(g, site, x, mu));
        if (moves[e]) {
            U::load(pu[e], u[e]);
            U::load(pd[e], d[e]);
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
    S *pg = TRACK ? T::at(gt, g, p, h) : NULL;
    if (TRACK) {
#pragma unroll
        for (int e = 0; e < DPT; e++) {
            int c = tid * DPT + e;
            if (c < NC) T::load_column(pg, c, col[e]);
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
        U::store(pu[e], u[e]);
        U::store(pd[e], d[e]);
    }
    if (TRACK) {
#pragma unroll
        for (int e = 0; e < DPT; e++) {
            int c = tid * DPT + e;
            if (c < NC) T::store_column(pg, c, col[e]);
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
template <class U, int G_, int UPD_, int TRACK_, int SB, int MINB, bool LAZY = false>
__global__ void __launch_bounds__(4 * SB, MINB)
k_sweep_sh(kgeo g, typename U::store_type *__restrict__ links, typename U::store_type *__restrict__ gt, const unsigned char *__restrict__ active,
           int p, double omega, double prob, double temp, uint64_t seed, uint32_t copy, uint32_t sweep, int rt_gauge,
           int rt_update, int rt_track)
{
    static_assert(SB % 32 == 0, "whole warps");
    /* the gauge, update and tracking: template constants, or GF_RT */
    const int G = G_ == GF_RT ? rt_gauge : G_, UPD = UPD_ == GF_RT ? rt_update : UPD_;
    const bool TRACK = TRACK_ == GF_RT ? rt_track != 0 : TRACK_ != 0;
    constexpr int NS = G_ == GAUGE_MAG || G_ == GF_RT ? 8 : 4; /* reals of one share */
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
    typedef typename U::transform T;
    typedef typename U::store_type S;
    constexpr int NC = U::nc, NN = NC * NC;
    lat_complex u[NN], d[NN];
    S *pu = NULL, *pd = NULL;
    /* Coulomb: the threads of mu = t move no link (they may carry a column
     * of the transform when N > 3) */
    const bool moves = mu < GF_NDIRS(G);
    if (!moves) {
#pragma unroll
        for (int k = 0; k < NN; k++) u[k] = d[k] = c_make(0, 0);
    }
    if (live && moves) {
        pu = U::at(links, g, p, mu, h);
        pd = U::at(links, g, 1 - p, mu, neighbour_dn_h(g, site, x, mu));
        if (LAZY && U::recon == LINK_12) { /* the third rows only where a subgroup needs them (below) */
            U::load_stored(pu, u);
            U::load_stored(pd, d);
#pragma unroll
            for (int k = U::nrows * NC; k < NN; k++) u[k] = d[k] = c_make(0, 0);
        } else {
            U::load(pu, u);
            U::load(pd, d);
        }
    }
    const struct gf_params par = kernel_params<G_, UPD_>(omega, prob, temp, rt_gauge, rt_update);
    struct lat_rng r; /* used by the threads of mu = 0 */
    rng_init(&r, seed, copy, (uint64_t)(site + g.site0), sweep, UPD == GF_ANNEAL ? RNG_ANNEAL : RNG_STOCHASTIC);
    /* the tracked transform: thread mu holds its columns mu, mu + 4, ...
     * (< N; one for N <= 4) */
    constexpr int NCOL = (NC + 3) / 4;
    lat_complex col[NCOL][NC];
    S *pg = NULL;
    if (TRACK && live) {
        pg = T::at(gt, g, p, h);
#pragma unroll
        for (int e = 0; e < NCOL; e++)
            if (mu + 4 * e < NC) T::load_column(pg, mu + 4 * e, col[e]);
    }
    /* every subgroup unrolled up to SU(4) (constant i, j keep the matrices
     * in registers); from SU(5) on the links no longer fit in registers
     * anyway, and a loop keeps the kernel (and its compile time) small */
#pragma unroll(NC <= 4 ? NC * (NC - 1) / 2 : 1)
    for (int s = 0; s < NC * (NC - 1) / 2; s++) {
        int i, j;
        sun_subgroup(NC, s, &i, &j);
        if (live) {
            /* LAZY: rebuilt from the two first rows before each subgroup that
             * uses it (both links stay in SU(3)); in between it is dead, which
             * frees 24 registers: more blocks per SM */
            if (LAZY && U::recon == LINK_12 && j == 2 && moves) {
                U::rebuild(u);
                U::rebuild(d);
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
            if (TRACK) {
#pragma unroll
                for (int e = 0; e < NCOL; e++)
                    if (mu + 4 * e < NC) gf_step2_column(col[e], i, j, gs);
            }
        }
        /* no races: the next subgroup writes sh_c after this subgroup's
         * second barrier, by which the mu = 0 warps have read it; sh_g is
         * read before the next subgroup's first barrier, written after it */
    }
    if (live) {
        if (moves) {
            U::store(pu, u);
            U::store(pd, d);
        }
        if (TRACK) {
#pragma unroll
            for (int e = 0; e < NCOL; e++)
                if (mu + 4 * e < NC) T::store_column(pg, mu + 4 * e, col[e]);
        }
    }
}
