/* solvers/blas_gpu_bicg_loop.cuh -- BiCGstab's iterations with their
 * scalars on the device (struct solver_blas's bicgstab_loop, solvers.h),
 * included by blas_gpu.cuh after blas_gpu_multishift.cuh (whose buffers,
 * reduction ends and host ring it shares), so nvcc and the host emulation
 * compile this very text.  Exported (to blas_gpu.cuh): bl_bicgstab_loop.
 *
 * Why (issue 20): bicgstab.c's iteration waits for the host three times
 * (<r0, v>; <t, s> with |t|^2; |r|^2 with <r0, r>), and in double-half at
 * 24^3x48 the vector calls took as long as the two operators, mostly in
 * fixed costs: the half caxpby 11.8 us back to back, 31.4 us in the solve
 * (docs/PERFORMANCE.md, session 23).  Here each of the three reductions
 * ends in its own kernel's last block (bl_ms_last_block, the slots in
 * global order: bl_ms_own_slots, bl_ms_sums), whose thread 0 takes the
 * scalar step of solvers/bicgstab_step.h into a state in device memory;
 * the vector kernels read their coefficients from it.  The host only
 * queues launches (the operator's too); it reads an iteration's |r| and
 * stop `ahead` iterations later (below) from a page-locked ring slot that the
 * last reduction's kernel stores (as the multi-shift loop's flags) and
 * reports it (the history).  Once an iteration stops -- a breakdown, a
 * reliable update due, omega or <r0, r> not usable -- every later kernel
 * leaves r, p, x alone; the operator's queued work on p and r is redone
 * (the same v) or wasted, nothing else; bicgstab.c takes that iteration on.
 * Measured (one H100, 24^3x48 Wilson-clover, 12 columns to 1e-10, session
 * 24): double-half 8.47 s against 9.56 with the host's loop, double 19.45
 * against 21.22 (docs/PERFORMANCE.md).
 *
 * Bits: bicgstab.c's loop with this blas's fused kernels, iteration by
 * iteration -- the same chunk walks (k_bl_red_chunk's cdot, blas_gpu_bicg
 * .cuh's three sums and their caxpby), the chunk sums and slots added in
 * the order bl_chunk_finish adds them, bicgstab_step.h's steps, caxpby and
 * caxpby2's item code (tests/gpu/blas_bicg_checks.h compares the two).
 * Scope: one process with a reduction layout (the multi-shift loop's
 * buffers enabled), r, r0, p, v, t of one precision and x of its
 * accumulator's; otherwise bl_bicgstab_loop answers 0 and bicgstab.c runs
 * its own loop.  LAT_GPU_BICGSTAB=host (read at open) turns it off. */
#ifndef LAT_SOLVERS_BLAS_GPU_BICG_LOOP_CUH
#define LAT_SOLVERS_BLAS_GPU_BICG_LOOP_CUH

#include "solvers/bicgstab_step.h"

/* The host queues iteration k after it has read iteration k - ahead's
 * ring slot (ahead = struct bl_ms's bi_ahead, LAT_GPU_BICG_AHEAD, at most
 * BL_BI_AHEAD: the ring's size).  A larger ahead keeps the device fed when
 * the host is late; a smaller one wastes fewer of the operator's
 * applications after a stop (a reliable update): up to ahead - 1 queued
 * iterations, two applications each, run on stale vectors. */
#define BL_BI_AHEAD 3
#ifndef BL_BI_AHEAD_DEFAULT
#define BL_BI_AHEAD_DEFAULT 1
#endif
/* LAT_GPU_MS_PROFILE=1 (blas_gpu.cu; timing only): events at the 8 phase
 * marks (BL_MS_MARK) of iterations 40 to 104 of a solve, the phases' mean
 * times printed by the part that queued past them */
#ifndef BL_BI_REPORT
#define BL_BI_REPORT(first, end) ((void)0)
#endif

/* the coefficients the vector kernels read */
enum { BL_BI_S, BL_BI_X1, BL_BI_X2, BL_BI_R, BL_BI_P1, BL_BI_P2, BL_BI_NOPS };

/* an iteration's ring slot (page-locked host memory): its stop (a struct
 * solver_bicg_loop stop, 0 none) and |r|, the sequence number stored last */
struct bl_bi_post {
    int stop, k;
    double rn;
    unsigned seq;
};

/* the recursion's state, in device memory */
struct bl_bi_state {
    int stop, stop_k; /* the first stop and its iteration (sticky: later kernels do nothing) */
    int mixed;
    double target, delta, maxr, rn;
    solver_complex rho, alpha, omega, rho_new;
    bl_op_complex op[BL_BI_NOPS]; /* caxpby's coefficients (a, b) of each vector update */
};

__global__ void k_bl_bi_start(struct bl_bi_state *st, solver_complex rho, double maxr, double target, double delta, int mixed)
{
    if (blockIdx.x || threadIdx.x) return;
    st->stop = st->stop_k = 0;
    st->rho = rho, st->maxr = maxr, st->target = target, st->delta = delta, st->mixed = mixed;
}

/* ---- a site in registers ----------------------------------------------------
 * The loop's kernels take a site's groups into registers as stored (int16,
 * float or double: blas_gpu_store.cuh's bl_raw), all at once, and keep a new value there as
 * stored, where the table's kernels store and read again (caxpby2's first
 * result, caxpby_norm2_cdot's stored r) and compute a half site's new
 * values twice from memory (once for the norm, once to store): the loads of
 * a site issue together, nothing is read twice, few registers a thread.
 * The same operations on the same values in the same order: the same bits
 * (blas_gpu_store.cuh's bl_dec, bl_enc, bl_half_norm: the steps of bl_load,
 * bl_store_half and bl_site_item).  Why: the
 * table's half site kernels moved their bytes at 25-63 % of the copy
 * bandwidth (H100, 24^3x48, docs/PERFORMANCE.md session 23).  At most
 * BL_BI_GROUPS groups a site (bl_bicgstab_loop declines larger sites). */
#define BL_BI_GROUPS 6 /* 24 reals: the Wilson spinor's */

/* site s's groups of x as stored (bl_fetch); returns its decode factor */
template <class X>
static __device__ __forceinline__ double bl_bi_fetch(bl_raw<X> *g, const X *x, const float *xnorm, int64_t s, int ncomp)
{
#pragma unroll
    for (int i = 0; i < BL_BI_GROUPS; i++)
        if (4 * i < ncomp) g[i] = bl_fetch(x, gpu_spinor_index(ncomp, 4 * i, s));
    return bl_site_scale<X>(xnorm, s);
}
template <class Y>
static __device__ __forceinline__ void bl_bi_put(const bl_raw<Y> *g, Y *y, float *ynorm, float nf, int64_t s, int ncomp)
{
#pragma unroll
    for (int i = 0; i < BL_BI_GROUPS; i++)
        if (4 * i < ncomp) bl_put(y, gpu_spinor_index(ncomp, 4 * i, s), g[i]);
    if constexpr (bl_is_half<Y>::value) ynorm[s] = nf;
}

/* g[i] = f(i), the site's new groups, in y's storage form (bl_enc); half:
 * the norm of them all first (bl_half_max, bl_half_norm; returned, it is
 * the site's decode factor), f computed twice as bl_site_item computes it.
 * f(i) may read g[i]. */
template <class Y, class F> static __device__ __forceinline__ float bl_bi_encode(bl_raw<Y> *g, int ncomp, const F &f)
{
    const Y *tag = NULL; /* bl_enc's storage */
    if constexpr (!bl_is_half<Y>::value) {
#pragma unroll
        for (int i = 0; i < BL_BI_GROUPS; i++)
            if (4 * i < ncomp) g[i] = bl_enc(tag, f(i), 1.0);
        return 1;
    } else {
        double mx = 0;
        int finite = 1;
#pragma unroll
        for (int i = 0; i < BL_BI_GROUPS; i++)
            if (4 * i < ncomp) bl_half_max(f(i), &mx, &finite);
        const bl_half_site h = bl_half_norm(mx, finite);
#pragma unroll
        for (int i = 0; i < BL_BI_GROUPS; i++)
            if (4 * i < ncomp) g[i] = h.zero ? bl_h4{0, 0, 0, 0} : bl_enc(tag, f(i), h.qs);
        return h.nf;
    }
}
/* the decode factor of a site that bl_bi_encode returned nf for */
template <class Y> static __device__ __forceinline__ double bl_bi_scale(float nf)
{
    if constexpr (bl_is_half<Y>::value) return half_decode_scale(nf);
    else return 1;
}

/* K = 2: sum conj(x) y (k_bl_red_chunk's bl_site_accumulate); K = 3: that
 * and |x|^2 (bl_sum3<false>) */
template <class X, int K> struct bl_bi_dot_site {
    const X *x;
    const float *xnorm;
    const X *y;
    const float *ynorm;
    int ncomp;
    __device__ __forceinline__ void operator()(double *acc, int64_t s) const
    {
        bl_raw<X> a[BL_BI_GROUPS], b[BL_BI_GROUPS];
        const double sa = bl_bi_fetch(a, x, xnorm, s, ncomp), sb = bl_bi_fetch(b, y, ynorm, s, ncomp);
#pragma unroll
        for (int i = 0; i < BL_BI_GROUPS; i++)
            if (4 * i < ncomp) {
                if (K == 2) bl_accumulate<2>(acc, bl_dec(a[i], sa), bl_dec(b[i], sb));
                else bl_sum3<false>(acc, bl_dec(a[i], sa), bl_dec(b[i], sb));
            }
    }
};

/* x = ox2(s, ox1(p, x)) (caxpby2's x += alpha p + omega s), then
 * r = op(t, s) stored over s, then <r0, r> and |r|^2 of r as stored
 * (blas_gpu_bicg.cuh's bl_sum3_site<X, true>): two of bicgstab.c's calls,
 * s read once */
template <class X, class Y> struct bl_bi_r_site {
    const X *r0;
    const float *r0norm;
    X *r;
    float *rnorm;
    const X *t;
    const float *tnorm;
    const X *p;
    const float *pnorm;
    Y *x;
    float *xnorm;
    int ncomp;
    bl_op_complex op, ox1, ox2;
    __device__ __forceinline__ void operator()(double *acc, int64_t s) const
    {
        bl_raw<X> a[BL_BI_GROUPS], y[BL_BI_GROUPS];
        bl_raw<Y> xg[BL_BI_GROUPS];
        const double sy = bl_bi_fetch(y, r, rnorm, s, ncomp), sp = bl_bi_fetch(a, p, pnorm, s, ncomp);
        double sx = bl_bi_fetch(xg, x, xnorm, s, ncomp);
        float nx = bl_bi_encode<Y>(xg, ncomp, [&](int i) { return ox1(bl_dec(a[i], sp), bl_dec(xg[i], sx)); });
        sx = bl_bi_scale<Y>(nx);
        nx = bl_bi_encode<Y>(xg, ncomp, [&](int i) { return ox2(bl_dec(y[i], sy), bl_dec(xg[i], sx)); });
        bl_bi_put(xg, x, xnorm, nx, s, ncomp);
        const double sa = bl_bi_fetch(a, t, tnorm, s, ncomp);
        const float nf = bl_bi_encode<X>(y, ncomp, [&](int i) { return op(bl_dec(a[i], sa), bl_dec(y[i], sy)); });
        bl_bi_put(y, r, rnorm, nf, s, ncomp);
        const double s0 = bl_bi_fetch(a, r0, r0norm, s, ncomp), sr = bl_bi_scale<X>(nf);
#pragma unroll
        for (int i = 0; i < BL_BI_GROUPS; i++)
            if (4 * i < ncomp) bl_sum3<true>(acc, bl_dec(a[i], s0), bl_dec(y[i], sr));
    }
};

/* <r0, v>, then (its last block, thread 0) alpha = rho / <r0, v> or the stop */
template <class X>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_bi_alpha(const X *r0, const float *r0norm, const X *v, const float *vnorm, bl_chunk_grid g,
                  struct solver_reduce_layout l, bl_ms_where w, struct bl_bi_state *st, double *chunk, unsigned *count, int k)
{
    gpu_chained_begin();
    if (st->stop) return; /* every block sees the same: only the last block's thread 0 changes it */
    bl_chunk_walk<2>(g.chunk_sites, g.nsub, chunk, bl_bi_dot_site<X, 2>{r0, r0norm, v, vnorm, g.ncomp});
    if (!bl_ms_last_block(count, (unsigned)g.nb)) return;
    bl_ms_own_slots<2>(chunk, g, l, w);
    double sum[2];
    bl_ms_sums<2, 2>(w, sum);
    const solver_complex r0v = {sum[0], sum[1]};
    if (threadIdx.x) return;
    solver_complex a;
    if (!bicg_alpha(st->rho, r0v, &a)) {
        st->stop = SOLVER_BICG_BREAKDOWN, st->stop_k = k;
        return;
    }
    st->alpha = a;
    st->op[BL_BI_S] = bl_op_complex{-a.re, -a.im, 1, 0}; /* s = r - alpha v */
}

/* iteration k's ring slot: its stop and |r|, then its number */
static __device__ void bl_bi_post_slot(struct bl_bi_post *post, int stop, int k, double rn, unsigned seq)
{
    volatile struct bl_bi_post *p = post;
    p->stop = stop;
    p->k = k;
    p->rn = rn;
    bl_ms_publish(&p->seq, seq);
}

/* after the last sum of iteration k: r's test (bicgstab.c's tail up to
 * beta), then the ring slot */
static __device__ void bl_bi_after_r(struct bl_bi_state *st, const double *sum, int k, struct bl_bi_post *post, unsigned seq)
{
    const solver_complex rho_new = {sum[0], sum[1]};
    const double rn = RN_SQRT(sum[2]);
    const int goes_on = bicg_goes_on(rn, &st->maxr, st->target, st->delta, st->mixed, st->omega, rho_new);
    st->rn = rn, st->rho_new = rho_new;
    if (!goes_on) {
        st->stop = SOLVER_BICG_AFTER_R, st->stop_k = k;
    } else {
        const solver_complex b = bicg_beta(rho_new, st->rho, st->alpha, st->omega);
        st->op[BL_BI_P1] = bl_op_complex{-st->omega.re, -st->omega.im, 1, 0}; /* p = p - omega v */
        st->op[BL_BI_P2] = bl_op_complex{1, 0, b.re, b.im};                  /* p = r + beta p */
        st->rho = rho_new;
    }
    bl_bi_post_slot(post, st->stop, k, rn, seq);
}

/* UPD false: <t, s>, |t|^2 (u = t, v = s), then omega; UPD true:
 * x += alpha p + omega s, r = s - omega t (v = r, w = t) with <r0, r>,
 * |r|^2 (u = r0), then r's test and the ring slot (also when <r0, v>
 * stopped this iteration) */
template <class X, class Y, bool UPD>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_bi_sum3(const X *u, const float *unorm, X *v, float *vnorm, const X *wv, const float *wnorm, const X *p,
                 const float *pnorm, Y *x, float *xnorm, bl_chunk_grid g, int64_t nsites, int64_t nsites_pad,
                 struct solver_reduce_layout l, bl_ms_where w, struct bl_bi_state *st, double *chunk, unsigned *count, int k,
                 struct bl_bi_post *post, unsigned seq)
{
    gpu_chained_begin();
    if (st->stop) {
        if (UPD && st->stop_k == k && blockIdx.x == 0 && threadIdx.x == 0) bl_bi_post_slot(post, st->stop, k, 0, seq);
        return;
    }
    if constexpr (UPD) {
        const bl_bi_r_site<X, Y> site{u, unorm, v, vnorm, wv, wnorm, p, pnorm, x, xnorm, g.ncomp,
                                      st->op[BL_BI_R], st->op[BL_BI_X1], st->op[BL_BI_X2]};
        if (blockIdx.x == 0) { /* the padding sites: updated as the unfused calls do, never summed */
            double unused[3];
            for (int64_t s = nsites + threadIdx.x; s < nsites_pad; s += GPU_RED_BS) site(unused, s);
        }
        bl_chunk_walk<3>(g.chunk_sites, g.nsub, chunk, site);
    } else {
        bl_chunk_walk<3>(g.chunk_sites, g.nsub, chunk, bl_bi_dot_site<X, 3>{u, unorm, v, vnorm, g.ncomp});
    }
    if (!bl_ms_last_block(count, (unsigned)g.nb)) return;
    bl_ms_own_slots<3>(chunk, g, l, w);
    double sum[3];
    bl_ms_sums<3, 3>(w, sum);
    if (threadIdx.x) return;
    if (UPD) {
        bl_bi_after_r(st, sum, k, post, seq);
    } else {
        const solver_complex ts = {sum[0], sum[1]};
        const solver_complex om = bicg_omega(ts, sum[2]);
        st->omega = om;
        st->op[BL_BI_X1] = bl_op_complex{st->alpha.re, st->alpha.im, 1, 0}; /* x += alpha p */
        st->op[BL_BI_X2] = bl_op_complex{om.re, om.im, 1, 0};               /* x += omega s */
        st->op[BL_BI_R] = bl_op_complex{-om.re, -om.im, 1, 0};              /* r = s - omega t */
    }
}

/* y = op[i1](x1, y), then (i2 >= 0) y = op[i2](x2, y): caxpby's and
 * caxpby2's (blas_gpu_bicg.cuh) bits, a thread a site, the first result
 * kept in registers as y's storage holds it */
template <class X, class Y>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_bi_update(const X *x1, const float *x1norm, const X *x2, const float *x2norm, Y *y, float *ynorm, int64_t nsites_pad,
                   int ncomp, const struct bl_bi_state *st, int i1, int i2)
{
    gpu_chained_begin();
    const int64_t s = (int64_t)blockIdx.x * GPU_RED_BS + threadIdx.x;
    if (st->stop || s >= nsites_pad) return;
    bl_raw<X> a[BL_BI_GROUPS];
    bl_raw<Y> g[BL_BI_GROUPS];
    double sa = bl_bi_fetch(a, x1, x1norm, s, ncomp), sy = bl_bi_fetch(g, y, ynorm, s, ncomp);
    const bl_op_complex op1 = st->op[i1];
    float nf = bl_bi_encode<Y>(g, ncomp, [&](int i) { return op1(bl_dec(a[i], sa), bl_dec(g[i], sy)); });
    if (i2 >= 0) {
        sa = bl_bi_fetch(a, x2, x2norm, s, ncomp);
        sy = bl_bi_scale<Y>(nf);
        const bl_op_complex op2 = st->op[i2];
        nf = bl_bi_encode<Y>(g, ncomp, [&](int i) { return op2(bl_dec(a[i], sa), bl_dec(g[i], sy)); });
    }
    bl_bi_put(g, y, ynorm, nf, s, ncomp);
}

/* k_bl_bi_update for half vectors of Wilson sites (BL_BI_GROUPS groups):
 * BL_BI_PARTS threads a site, each with BL_BI_GROUPS / BL_BI_PARTS of its
 * groups, every new value computed once and kept in registers; the site's
 * largest |value| is the largest of the parts' (shared memory, one barrier
 * an update), so the norm, the quantisation and every stored bit are
 * k_bl_bi_update's.  Why: that kernel computes a half site's values twice
 * (once for the norm, once to store) in one long chain a thread, and moved
 * its bytes at half the copy bandwidth (docs/PERFORMANCE.md, session 24);
 * here a thread's chain is a part's, computed once.  A warp is 32 sites'
 * same part (the blocked layout's lanes: the loads stay coalesced); a block
 * is GPU_RED_BS / (BL_BI_PARTS 32) blocks of 32 sites.  Gained 1.3-1.7 %
 * of a 24^3x48 double-half solve on an H100 (session 26). */
#define BL_BI_PARTS 2
/* a block holds whole groups of 32 sites' parts (an emulation may build with 32-thread blocks: then the one-thread kernel) */
#define BL_BI_SPLIT_FITS (GPU_RED_BS % (BL_BI_PARTS * GPU_SPINOR_LANES) == 0)
/* blocks an SM in __launch_bounds__: 61 registers, no spill (H100, 24^3x48
 * double-half: 7.98 s; with 3, 75 registers: 8.03 s; unbounded, 98: 8.23 s) */
#define BL_BI_HALF_BLOCKS 4
template <class X>
__global__ void __launch_bounds__(GPU_RED_BS, BL_BI_HALF_BLOCKS)
    k_bl_bi_update_half(const X *x1, const float *x1norm, const X *x2, const float *x2norm, X *y, float *ynorm,
                        int64_t nsites_pad, const struct bl_bi_state *st, int i1, int i2)
{
    static_assert(bl_is_half<X>::value && BL_BI_SPLIT_FITS, "k_bl_bi_update_half: half vectors, whole parts in a block");
    constexpr int P = BL_BI_PARTS, G = BL_BI_GROUPS / P, L = GPU_SPINOR_LANES, SB = BL_BI_SPLIT_FITS ? GPU_RED_BS / (P * L) : 1;
    static_assert(G * P == BL_BI_GROUPS, "k_bl_bi_update_half: the groups in parts");
    __shared__ double part_max[2][SB][P][L]; /* a buffer an update: no barrier between them */
    __shared__ int part_finite[2][SB][P][L];
    gpu_chained_begin();
    if (st->stop) return; /* every thread of the grid sees the same: no barrier is left waiting */
    const int lane = threadIdx.x % L, part = threadIdx.x / L % P, sb = threadIdx.x / (L * P);
    const int64_t s = ((int64_t)blockIdx.x * SB + sb) * L + lane;
    const bool live = s < nsites_pad;
    const int ncomp = 4 * BL_BI_GROUPS, g0 = part * G;
    const X *tag = NULL; /* bl_enc's storage */
    bl_raw<X> a[G], yg[G];
    double sa = 0, sy = 0;
    if (live) {
#pragma unroll
        for (int i = 0; i < G; i++) {
            a[i] = bl_fetch(x1, gpu_spinor_index(ncomp, 4 * (g0 + i), s));
            yg[i] = bl_fetch(y, gpu_spinor_index(ncomp, 4 * (g0 + i), s));
        }
        sa = bl_site_scale<X>(x1norm, s), sy = bl_site_scale<X>(ynorm, s);
    }
    float nf = 0;
    for (int u = 0; u < (i2 >= 0 ? 2 : 1); u++) {
        if (u && live) { /* the second update's operand */
#pragma unroll
            for (int i = 0; i < G; i++) a[i] = bl_fetch(x2, gpu_spinor_index(ncomp, 4 * (g0 + i), s));
            sa = bl_site_scale<X>(x2norm, s);
        }
        const bl_op_complex op = st->op[u ? i2 : i1];
        bl_g v[G];
        double mx = 0;
        int finite = 1;
#pragma unroll
        for (int i = 0; i < G; i++) {
            v[i] = op(bl_dec(a[i], sa), bl_dec(yg[i], sy));
            bl_half_max(v[i], &mx, &finite);
        }
        part_max[u][sb][part][lane] = mx, part_finite[u][sb][part][lane] = finite;
        __syncthreads();
        /* the site's largest |value| and whether all were finite: what
         * bl_half_max over all its groups gives, in any order */
        mx = 0, finite = 1;
        for (int q = 0; q < P; q++) {
            if (part_max[u][sb][q][lane] > mx) mx = part_max[u][sb][q][lane];
            finite &= part_finite[u][sb][q][lane];
        }
        const bl_half_site h = bl_half_norm(mx, finite);
#pragma unroll
        for (int i = 0; i < G; i++) yg[i] = h.zero ? bl_h4{0, 0, 0, 0} : bl_enc(tag, v[i], h.qs);
        nf = h.nf, sy = bl_bi_scale<X>(nf); /* the second update reads the first as stored */
    }
    if (!live) return;
#pragma unroll
    for (int i = 0; i < G; i++) bl_put(y, gpu_spinor_index(ncomp, 4 * (g0 + i), s), yg[i]);
    if (part == 0) ynorm[s] = nf;
}

/* ---- host ------------------------------------------------------------------ */

/* the state and ring, kept in the multi-shift loop's struct bl_ms */
static void bl_bi_buffers(struct bl_ms *m)
{
    if (m->bi_st) return;
    m->bi_st = (struct bl_bi_state *)gpu_alloc(sizeof *m->bi_st, "BiCGstab state");
    m->bi_ring = (struct bl_bi_post *)BL_HOST_ALLOC(BL_BI_AHEAD * sizeof *m->bi_ring);
    if (!m->bi_ring) lat_die(1, "solver_blas_gpu", "out of host memory for the BiCGstab ring");
    memset(m->bi_ring, 0, BL_BI_AHEAD * sizeof *m->bi_ring);
    /* LAT_GPU_BICG_AHEAD=1..BL_BI_AHEAD, for timing: the bits do not depend on it */
    const char *e = getenv("LAT_GPU_BICG_AHEAD");
    m->bi_ahead = e && atoi(e) >= 1 && atoi(e) <= BL_BI_AHEAD ? atoi(e) : BL_BI_AHEAD_DEFAULT;
    /* LAT_GPU_BICG_SPLIT=0, for timing: the half updates a thread a site (the same bits) */
    e = getenv("LAT_GPU_BICG_SPLIT");
    m->bi_split = !(e && strcmp(e, "0") == 0);
}

/* the ring slot of iteration k (the j-th of this call: sequence number
 * seq0 + j + 1): its |r| into the history; 1 when it stopped */
static int bl_bi_read(struct bl_ms *m, struct solver_bicg_loop *L, int k, unsigned seq0)
{
    const unsigned j = (unsigned)(k - L->k_first);
    const struct bl_bi_post *p = &m->bi_ring[j % BL_BI_AHEAD];
    BL_MS_WAIT(p, seq0 + j + 1);
    const int stop = ((const volatile struct bl_bi_post *)p)->stop;
    if (stop != SOLVER_BICG_BREAKDOWN) L->iteration(L->actx, k, ((const volatile struct bl_bi_post *)p)->rn);
    return stop;
}

template <class X> static void bl_bi_run(struct bl_blas *c, struct solver_bicg_loop *L)
{
    using Y = typename std::conditional<bl_is_half<X>::value, float, X>::type; /* the accumulator x */
    struct bl_ms *m = c->ms;
    bl_bi_buffers(m);
    blas_launch(k_bl_bi_start, 1, false, m->bi_st, L->rho, L->maxr, L->target, L->delta, L->mixed);
    const bl_chunk_grid g = bl_chunk_prepare<3>(c, L->r);
    const int64_t nsites = bl_nsites(L->r), nsites_pad = bl_sites_pad(L->r);
    const unsigned nb_up = bl_blocks((uint64_t)nsites_pad);
    const int ncomp = g.ncomp;
    X *r = (X *)L->r->data, *p = (X *)L->p->data;
    const X *r0 = (const X *)L->r0->data, *v = (const X *)L->v->data, *t = (const X *)L->t->data;
    Y *x = (Y *)L->x->data;
    float *rn_ = L->r->norm, *pn = L->p->norm;
    const float *r0n = L->r0->norm, *vn = L->v->norm, *tn = L->t->norm;
    struct bl_bi_state *st = m->bi_st;
    /* y = op[i1](x1, y), then (i2 >= 0) y = op[i2](x2, y) */
    auto update = [&](const X *x1, const float *x1n, const X *x2, const float *x2n, X *y, float *yn, int i1, int i2) {
        if constexpr (bl_is_half<X>::value && BL_BI_SPLIT_FITS)
            if (m->bi_split && ncomp == 4 * BL_BI_GROUPS) {
                const int64_t per_block = GPU_RED_BS / BL_BI_PARTS; /* sites */
                blas_launch_chained(k_bl_bi_update_half<X>, (unsigned)((nsites_pad + per_block - 1) / per_block), true, x1, x1n, x2,
                                    x2n, y, yn, nsites_pad, (const struct bl_bi_state *)st, i1, i2);
                return;
            }
        blas_launch_chained(k_bl_bi_update<X, X>, nb_up, false, x1, x1n, x2, x2n, y, yn, nsites_pad, ncomp,
                            (const struct bl_bi_state *)st, i1, i2);
    };
    const unsigned seq0 = m->seq;
    int k, stop = 0, read = L->k_first - 1; /* the last iteration whose slot was read */
    for (k = L->k_first; k <= L->k_last; k++) {
        if (k - L->k_first >= m->bi_ahead && (stop = bl_bi_read(m, L, ++read, seq0))) break;
        const unsigned j = (unsigned)(k - L->k_first);
        struct bl_bi_post *post = &m->bi_ring[j % BL_BI_AHEAD];
        BL_MS_MARK(k, 0);
        L->apply(L->actx, L->v, L->p);
        BL_MS_MARK(k, 1);
        blas_launch_chained(k_bl_bi_alpha<X>, (unsigned)g.nb, true, r0, r0n, v, vn, g, c->layout, bl_ms_where_next(m), st, c->chunk_dev,
                    m->count, k);
        BL_MS_MARK(k, 2);
        update(v, vn, (const X *)NULL, (const float *)NULL, r, rn_, (int)BL_BI_S, -1);
        BL_MS_MARK(k, 3);
        L->apply(L->actx, L->t, L->r);
        BL_MS_MARK(k, 4);
        blas_launch_chained(k_bl_bi_sum3<X, Y, false>, (unsigned)g.nb, true, t, tn, r, rn_, (const X *)NULL, (const float *)NULL,
                    (const X *)NULL, (const float *)NULL, (Y *)NULL, (float *)NULL, g, nsites, nsites_pad, c->layout,
                    bl_ms_where_next(m), st, c->chunk_dev, m->count, k, (struct bl_bi_post *)NULL, 0u);
        BL_MS_MARK(k, 5);
        blas_launch_chained(k_bl_bi_sum3<X, Y, true>, (unsigned)g.nb, true, r0, r0n, r, rn_, t, tn, (const X *)p, (const float *)pn, x,
                    L->x->norm, g, nsites, nsites_pad, c->layout, bl_ms_where_next(m), st, c->chunk_dev, m->count, k, post,
                    seq0 + j + 1);
        BL_MS_MARK(k, 6);
        update(v, vn, (const X *)r, (const float *)rn_, p, pn, (int)BL_BI_P1, (int)BL_BI_P2);
        BL_MS_MARK(k, 7);
    }
    const int queued = k - L->k_first; /* iterations queued */
    BL_BI_REPORT(L->k_first, k); /* this part queued iterations k_first .. k - 1 */
    while (!stop && read < L->k_first + queued - 1) stop = bl_bi_read(m, L, ++read, seq0);
    m->seq = seq0 + (unsigned)queued + 1; /* past every number queued */
    struct bl_bi_state s;
    gpu_download(&s, st, sizeof s);
    L->stop = stop ? (enum solver_bicg_stop)s.stop : SOLVER_BICG_RAN;
    L->k = stop ? s.stop_k : L->k_last + 1;
    L->rho = s.rho, L->alpha = s.alpha, L->omega = s.omega, L->rho_new = s.rho_new, L->rn = s.rn, L->maxr = s.maxr;
}

static int bl_bicgstab_loop(void *ctx, struct solver_bicg_loop *L)
{
    struct bl_blas *c = (struct bl_blas *)ctx;
    struct bl_ms *m = c->ms;
    if (!m || !m->enabled || m->bi_off || m->nranks != 1 || comm_size() != 1 || !c->layout.chunk_reals) return 0;
    const enum solver_prec p = L->r->prec;
    if (L->r0->prec != p || L->p->prec != p || L->v->prec != p || L->t->prec != p) return 0;
    if (L->x->prec != (p == SOLVER_HALF ? SOLVER_SINGLE : p) || L->r->n == 0 || L->k_first > L->k_last) return 0;
    if (gpu_spinor_ncomp((int)L->r->site_reals) > 4 * BL_BI_GROUPS) return 0; /* the kernels' sites in registers */
    const struct solver_vec *all[] = {L->r0, L->p, L->v, L->t, L->x};
    for (int i = 0; i < 5; i++) solver_vec_same_shape(L->r, all[i], "solver_blas_gpu bicgstab_loop");
    bl_with_store(p, [&](auto t) { bl_bi_run<BL_T(t)>(c, L); });
    return 1;
}

#endif
