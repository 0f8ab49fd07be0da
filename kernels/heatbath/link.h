/* heatbath.h -- the link update of the SU(N) pure-gauge generator
 * (Cabibbo-Marinari heatbath and overrelaxation, Wilson action), written once
 * for the CPU and the GPU backends (header only, LAT_HD).
 *
 * Paper: Cardoso & Bicudo (seeds/sun-heatbath-gpu.txt) §2, SPEC §3.
 *
 * Action  S = beta sum_P (1 - Re tr U_P / N).  The part of S that depends on
 * one link U = U_mu(x) is  -(beta/N) Re tr(U A)  with the staple sum
 *   A = sum_{nu != mu} [ U_nu(x+mu) U_mu(x+nu)^dag U_nu(x)^dag
 *                      + U_nu(x+mu-nu)^dag U_mu(x-nu)^dag U_nu(x-nu) ],
 * accumulated one nu at a time by hb_staple_nu (the caller loads the six
 * links of that nu from whatever storage it has, and starts from A = 0).
 *
 * Link update, for each SU(2) subgroup (i,j), i<j, in the order of
 * sun_subgroup (s = 0 .. N(N-1)/2 - 1):  with W = U A and its block
 * quaternion w = sun_su2_block(W, i, j) (twice the SU(2)-proportional part
 * of the (i,j) block), a subgroup element g acting from the left, U <- g U,
 * changes Re tr(U A) by (g w)_0 + const (quaternion product).
 *   heatbath:      g = x v^dag, v = w/|w|, x drawn by su2_heatbath_x with
 *                  a = (beta/N)|w|: then (g w)_0 = |w| x0 and the weight
 *                  exp((beta/N)|w| x0) dHaar(x) is the SU(2) heatbath
 *                  (Kennedy-Pendleton for a >= 2, Creutz below).  For
 *                  SU(2), |w| = 2 sqrt(det A) and a = beta k as in eq. (12).
 *                  |w| = 0 (a vanishing block) gives a Haar-random g.
 *   overrelaxation: g = (v^dag)^2, so g w = w^dag: the action is unchanged,
 *                  and applying it twice gives back U (a reflection).
 * W follows U (W <- g W), so the staple is computed once per link.  After
 * the last subgroup the link is projected back onto SU(N) (sun_reunitarize),
 * so rounding never accumulates, in any precision.
 *
 * Random numbers: the caller hands one stream per link update; the CPU and
 * CUDA backends use (kernels/heatbath_backend.h)
 *     rng_init(&r, seed, 0, site, 4*sweep + mu, RNG_HEATBATH)
 * and sweep the links in the same order, so their chains agree. */
#ifndef LAT_HEATBATH_H
#define LAT_HEATBATH_H

#include "math/sun.h"
#include "math/rng.h"
#include "math/su2_heatbath.h"

/* CUDA: unroll the subgroup loop when N is a small compile-time constant
 * (N <= HB_UNROLL_MAX_NC: SU(2), SU(3), SU(4)), so the (i,j) indices are
 * constants and U and W stay in registers (without it the heatbath loop is
 * not unrolled and both go to local memory).  For N >= 5 the loop stays
 * rolled (HB_ROLLED): U and W (2 N^2 reals each, over 100 registers in
 * double) live in local memory anyway, and 10..28 unrolled subgroup steps
 * only cost instruction cache and compile time. */
#define HB_UNROLL_MAX_NC 4
#ifdef __CUDA_ARCH__ /* device code only: the host compiler would warn */
#define HB_UNROLL _Pragma("unroll")
#define HB_ROLLED _Pragma("unroll 1")
#else
#define HB_UNROLL
#define HB_ROLLED
#endif

/* A += U_nu(x+mu) U_mu(x+nu)^dag U_nu(x)^dag  (upper staple)
 *    + U_nu(x+mu-nu)^dag U_mu(x-nu)^dag U_nu(x-nu)  (lower staple).
 * Arguments: un_xpm = U_nu(x+mu), um_xpn = U_mu(x+nu), un_x = U_nu(x),
 * un_xpmmn = U_nu(x+mu-nu), um_xmn = U_mu(x-nu), un_xmn = U_nu(x-nu). */
LAT_HD void hb_staple_nu(int n, lat_complex *A, const lat_complex *un_xpm, const lat_complex *um_xpn,
                         const lat_complex *un_x, const lat_complex *un_xpmmn, const lat_complex *um_xmn,
                         const lat_complex *un_xmn)
{
    lat_complex t[LAT_NC_MAX * LAT_NC_MAX], s[LAT_NC_MAX * LAT_NC_MAX];
    sun_mul_nd(n, t, un_xpm, um_xpn); /* U_nu(x+mu) U_mu(x+nu)^dag */
    sun_mul_nd(n, s, t, un_x);        /* ... U_nu(x)^dag */
    sun_acc(n, A, s);
    sun_mul(n, t, um_xmn, un_xpmmn);  /* U_mu(x-nu) U_nu(x+mu-nu) */
    sun_mul_dn(n, s, t, un_xmn);      /* (...)^dag U_nu(x-nu) */
    sun_acc(n, A, s);
}

/* Re tr(U A): the link's share of sum_P Re tr U_P (tests, diagnostics). */
LAT_HD lat_real hb_link_action(int n, const lat_complex *U, const lat_complex *A)
{
    return sun_retrace_mul(n, U, A);
}

/* Subgroup s of the sweep below: the block w of W gives v^dag =
 * w^dag/|w|, and U, W are multiplied from the left by g -- heatbath:
 * g = x v^dag with x drawn at beta_n |w| (Haar when w = 0);
 * overrelaxation: g = (v^dag)^2, the reflection (skipped when w = 0). */
LAT_HD void hb_subgroup_step(int n, lat_complex *U, lat_complex *W, int s, int heatbath, double beta_n,
                             struct lat_rng *r)
{
    int i, j;
    sun_subgroup(n, s, &i, &j);
    lat_su2 w = sun_su2_block(n, W, i, j);
    double norm = sqrt((double)su2_norm2(w));
    lat_su2 g;
    if (norm > 0) {
        lat_real inv = (lat_real)(1.0 / norm);
        lat_su2 vd = {{w.q[0] * inv, -w.q[1] * inv, -w.q[2] * inv, -w.q[3] * inv}};
        g = heatbath ? su2_mul(su2_heatbath_x(r, beta_n * norm), vd) : su2_mul(vd, vd);
    } else if (heatbath) {
        g = su2_heatbath_x(r, 0.0); /* no force: Haar */
    } else {
        return;
    }
    sun_su2_left(n, U, i, j, g);
    sun_su2_left(n, W, i, j, g);
}

/* The subgroup sweep both link updates share: W = U A, hb_subgroup_step
 * for s = 0 .. N(N-1)/2 - 1 in order, then U is reprojected.  The two
 * loops are the same steps in the same order (the same bits); they differ
 * only in what the CUDA compiler is told to unroll. */
LAT_HD void hb_link_subgroups(int n, lat_complex *U, const lat_complex *A, int heatbath, double beta_n,
                              struct lat_rng *r)
{
    lat_complex W[LAT_NC_MAX * LAT_NC_MAX];
    sun_mul(n, W, U, A);
    int ns = sun_nsubgroups(n);
    if (n <= HB_UNROLL_MAX_NC) {
        HB_UNROLL
        for (int s = 0; s < ns; s++) hb_subgroup_step(n, U, W, s, heatbath, beta_n, r);
    } else {
        HB_ROLLED
        for (int s = 0; s < ns; s++) hb_subgroup_step(n, U, W, s, heatbath, beta_n, r);
    }
    sun_reunitarize(n, U);
}

/* One heatbath update of the link U (in place) in the field of its staple
 * sum A; beta_n = beta/N.  Draws from r (see the header comment). */
LAT_HD void hb_link_heatbath(int n, lat_complex *U, const lat_complex *A, double beta_n, struct lat_rng *r)
{
    hb_link_subgroups(n, U, A, 1, beta_n, r);
}

/* One overrelaxation (microcanonical reflection) of the link U in place:
 * Re tr(U A) is unchanged up to rounding. */
LAT_HD void hb_link_overrelax(int n, lat_complex *U, const lat_complex *A)
{
    hb_link_subgroups(n, U, A, 0, 0, (struct lat_rng *)0);
}

#include "lattice/geometry.h"

/* The links a heatbath step (parity p, direction mu: U_mu(x) for x of
 * parity p) changed that the neighbours' staples read: the first and last
 * owned slices' U_mu of parity p, to the halos below and above. */
static inline int halo_parts_heatbath(const struct geometry *d, int p, int mu, struct halo_part *parts)
{
    struct halo_part down = {-1, 1, d->lt + 1, mu, p}, up = {+1, d->lt, 0, mu, p};
    parts[0] = down;
    parts[1] = up;
    return 2;
}

#endif
