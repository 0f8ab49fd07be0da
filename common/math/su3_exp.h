/* su3_exp.h -- the exact exponential of a traceless anti-Hermitian matrix
 * (an su(N) momentum), header only, LAT_HD: the same code in C and CUDA.
 * It is the link update U -> exp(eps P) U of the HMC (SPEC §9).
 *
 *   su3_exp_antiherm(Q, R)      R = exp(Q) for 3 x 3 traceless anti-Hermitian
 *                               Q, by Cayley-Hamilton with the eigenvalue
 *                               formulas of Morningstar & Peardon,
 *                               PRD 69 (2004) 054501, eqs. (29)-(38):
 *                               exp(iH) = f0 + f1 H + f2 H^2, H = -iQ.
 *                               Unitary and det 1 to rounding (~1e-15).
 *   sun_exp_antiherm(n, Q, R)   any N: SU(3) as above, other N through the
 *                               scaling-and-squaring Taylor series of
 *                               algebra.h (sun_exp_i, accurate to rounding).
 *
 * Stability: the coefficients f_j = h_j / (9u^2 - w^2) are formed for
 * c0 = det H >= 0 only (c0 < 0 by the symmetry f_j(-c0) = (-1)^j conj
 * f_j(c0), eq. 34), where 9u^2 - w^2 >= 2 c1 > 0, so no division comes
 * near zero except at H -> 0.  There the cancellations in h1, h2 lose
 * relative accuracy ~eps/c1, but f1 and f2 multiply H and H^2 (of size
 * sqrt(c1) and c1), so the absolute error of R stays at rounding; only
 * for c1 = tr H^2 / 2 below 1e-8 (|Q| < 1e-4) the quotient itself is
 * unsafe, and the Cayley-Hamilton Taylor series su3_exp_i takes over.
 * sin(w)/w is its Taylor polynomial for |w| < 0.05 (eq. 33). */
#ifndef LAT_SU3_EXP_H
#define LAT_SU3_EXP_H

#include "math/algebra.h"

LAT_HD void su3_exp_antiherm(const lat_complex *q, lat_complex *r)
{
    lat_complex h[9], h2[9];
    for (int i = 0; i < 9; i++) h[i] = c_make(q[i].im, -q[i].re); /* H = -i Q */
    sun_mul(3, h2, h, h);
    lat_real c1 = sun_retrace(3, h2) / 2;
    if (!(c1 >= (lat_real)1e-8)) {
        su3_exp_i(1, h, r);
        return;
    }
    lat_real c0 = sun_retrace_mul(3, h, h2) / 3; /* det H = tr H^3 / 3 */
    int flip = c0 < 0;
    if (flip) c0 = -c0;
    lat_real s1 = sqrt(c1 / 3);
    lat_real c0max = 2 * s1 * s1 * s1;
    lat_real ratio = c0 / c0max;
    if (ratio > 1) ratio = 1; /* rounding at degenerate eigenvalues */
    lat_real theta = acos(ratio);
    lat_real u = s1 * cos(theta / 3), w = sqrt(c1) * sin(theta / 3);
    lat_real u2 = u * u, w2 = w * w;
    lat_real xi0 = fabs(w) < (lat_real)0.05 ? 1 - w2 / 6 * (1 - w2 / 20 * (1 - w2 / 42 * (1 - w2 / 72))) : sin(w) / w;
    lat_real cw = cos(w);
    lat_complex e2 = c_make(cos(2 * u), sin(2 * u)), em = c_make(cos(u), -sin(u));
    /* h0 = (u^2 - w^2) e^{2iu} + e^{-iu} [8u^2 cos w + 2iu (3u^2 + w^2) xi0] */
    lat_complex h0 = c_add(c_scale(u2 - w2, e2), c_mul(em, c_make(8 * u2 * cw, 2 * u * (3 * u2 + w2) * xi0)));
    /* h1 = 2u e^{2iu} - e^{-iu} [2u cos w - i (3u^2 - w^2) xi0] */
    lat_complex h1 = c_sub(c_scale(2 * u, e2), c_mul(em, c_make(2 * u * cw, -(3 * u2 - w2) * xi0)));
    /* h2 = e^{2iu} - e^{-iu} [cos w + 3iu xi0] */
    lat_complex hh2 = c_sub(e2, c_mul(em, c_make(cw, 3 * u * xi0)));
    lat_real inv = 1 / (9 * u2 - w2);
    lat_complex f0 = c_scale(inv, h0), f1 = c_scale(inv, h1), f2 = c_scale(inv, hh2);
    if (flip) { /* f_j(-c0) = (-1)^j conj(f_j(c0)) */
        f0 = c_conj(f0);
        f1 = c_scale(-1, c_conj(f1));
        f2 = c_conj(f2);
    }
    for (int i = 0; i < 9; i++) r[i] = c_add(c_mul(f1, h[i]), c_mul(f2, h2[i]));
    for (int i = 0; i < 3; i++) r[i * 4] = c_add(r[i * 4], f0);
}

LAT_HD void sun_exp_antiherm(int n, const lat_complex *q, lat_complex *r)
{
    if (n == 3) {
        su3_exp_antiherm(q, r);
        return;
    }
    lat_complex h[LAT_NC_MAX * LAT_NC_MAX];
    for (int i = 0; i < n * n; i++) h[i] = c_make(q[i].im, -q[i].re); /* H = -i Q: exp(Q) = exp(i H) */
    sun_exp_i(n, 1, h, r);
}

#endif
