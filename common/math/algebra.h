/* algebra.h -- the Lie algebra su(N) as traceless Hermitian matrices, header
 * only (LAT_HD: the same code on the CPU and in CUDA kernels).
 *
 * A traceless Hermitian N x N matrix H is stored "packed" in N^2 - 1 reals:
 * first the entries above the diagonal, row by row (a < b), each as
 * Re H_ab, Im H_ab; then the diagonal H_00 .. H_{N-2,N-2} (H_{N-1,N-1} is
 * minus their sum).  Every packed real is a real linear function of H, so
 * a real linear operation on fields of H (the Fourier preconditioner of
 * kernels/fourier) may act on the packed reals one by one.
 *
 *   alg_dim(n)                 N^2 - 1, the packed reals
 *   alg_pack_antiherm_part(n, S, p)   p = traceless part of (S - S^dag)/(2i)
 *                              -- the A_mu of SPEC §3 when S = U_mu
 *   alg_unpack(n, p, H)        the N x N matrix of p
 *   alg_dot(n, p, q)           tr(P Q) (real, symmetric, positive definite)
 *   alg_axpy(n, a, x, y)       y += a x
 *   sun_exp_i(n, a, H, R)      R = exp(i a H) for Hermitian H: Taylor series
 *                              with scaling and squaring, terms summed until
 *                              they are below the precision of lat_real, so
 *                              R is unitary to rounding and det R = 1 to
 *                              rounding when tr H = 0 (it is the exact
 *                              exponential, not a first-order step);
 *                              SU(3): su3_exp_i, the same series summed on
 *                              scalars through Cayley-Hamilton. */
#ifndef LAT_ALGEBRA_H
#define LAT_ALGEBRA_H

#include "math/sun.h"

LAT_HD int alg_dim(int n) { return n * n - 1; }

LAT_HD void alg_pack_antiherm_part(int n, const lat_complex *s, lat_real *p)
{
    int k = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            /* (S_ab - conj(S_ba)) / (2i) */
            lat_real wr = s[a * n + b].re - s[b * n + a].re, wi = s[a * n + b].im + s[b * n + a].im;
            p[k++] = wi / 2;
            p[k++] = -wr / 2;
        }
    lat_real tr = 0; /* tr of the Hermitian part: sum of Im S_aa */
    for (int a = 0; a < n; a++) tr += s[a * (n + 1)].im;
    for (int a = 0; a + 1 < n; a++) p[k++] = s[a * (n + 1)].im - tr / n;
}

LAT_HD void alg_unpack(int n, const lat_real *p, lat_complex *h)
{
    int k = 0;
    lat_real last = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            h[a * n + b] = c_make(p[k], p[k + 1]);
            h[b * n + a] = c_make(p[k], -p[k + 1]);
            k += 2;
        }
    for (int a = 0; a + 1 < n; a++) {
        h[a * (n + 1)] = c_make(p[k + a], 0);
        last -= p[k + a];
    }
    h[(n - 1) * (n + 1)] = c_make(last, 0);
}

LAT_HD lat_real alg_dot(int n, const lat_real *p, const lat_real *q)
{
    int off = n * (n - 1);
    lat_real o = 0, d = 0, sp = 0, sq = 0;
    for (int k = 0; k < off; k++) o += p[k] * q[k];
    for (int a = 0; a + 1 < n; a++) {
        d += p[off + a] * q[off + a];
        sp += p[off + a];
        sq += q[off + a];
    }
    return 2 * o + d + sp * sq;
}

LAT_HD void alg_axpy(int n, lat_real a, const lat_real *x, lat_real *y)
{
    for (int k = 0; k < n * n - 1; k++) y[k] += a * x[k];
}

/* exp(i a H) for 3 x 3 traceless Hermitian H: the same Taylor series, its
 * powers reduced by Cayley-Hamilton (Q^3 = c1 Q + c0 with c1 = tr Q^2 / 2,
 * c0 = det Q = tr Q^3 / 3 for traceless Q) to real coefficients of 1, Q,
 * Q^2, so that summing it costs scalars, not matrix products: one product
 * for Q^2, one per squaring (|Q| is first scaled below 1). */
LAT_HD void su3_exp_i(lat_real a, const lat_complex *h, lat_complex *r)
{
    lat_complex q[9], q2[9], t[9];
    lat_real nrm = 0;
    for (int i = 0; i < 3; i++) {
        lat_real row = 0;
        for (int j = 0; j < 3; j++) row += fabs(h[i * 3 + j].re) + fabs(h[i * 3 + j].im);
        if (row > nrm) nrm = row;
    }
    nrm *= fabs(a);
    int sq = 0;
    lat_real scale = a;
    while (nrm > 1 && sq < 60) {
        nrm /= 2;
        scale /= 2;
        sq++;
    }
    for (int i = 0; i < 9; i++) q[i] = c_scale(scale, h[i]);
    sun_mul(3, q2, q, q);
    const lat_real c1 = sun_retrace(3, q2) / 2, c0 = sun_retrace_mul(3, q, q2) / 3;
    const lat_real eps = sizeof(lat_real) < sizeof(double) ? (lat_real)3e-8 : (lat_real)1e-17;
    /* Q^k = pa + pb Q + pc Q^2; coef = i^k / k! */
    lat_real pa = 1, pb = 0, pc = 0;
    lat_complex f0 = c_make(1, 0), f1 = c_make(0, 0), f2 = c_make(0, 0), coef = c_make(1, 0);
    lat_real bound = 1; /* nrm^k / k!: bounds |Q^k| / k! */
    for (int k = 1; k < 40 && bound > eps; k++) {
        lat_real na = pc * c0, nb = pa + pc * c1, nc = pb;
        pa = na, pb = nb, pc = nc;
        coef = c_scale((lat_real)1 / k, c_make(-coef.im, coef.re));
        f0 = c_add(f0, c_scale(pa, coef));
        f1 = c_add(f1, c_scale(pb, coef));
        f2 = c_add(f2, c_scale(pc, coef));
        bound *= nrm / k;
    }
    for (int i = 0; i < 9; i++) r[i] = c_add(c_mul(f1, q[i]), c_mul(f2, q2[i]));
    for (int i = 0; i < 3; i++) r[i * 4] = c_add(r[i * 4], f0);
    for (int s = 0; s < sq; s++) {
        sun_mul(3, t, r, r);
        sun_copy(3, r, t);
    }
}

LAT_HD void sun_exp_i(int n, lat_real a, const lat_complex *h, lat_complex *r)
{
    if (n == 3) {
        su3_exp_i(a, h, r);
        return;
    }
    lat_complex x[LAT_NC_MAX * LAT_NC_MAX], t[LAT_NC_MAX * LAT_NC_MAX];
    /* X = i a H, scaled by 2^-j until its row-sum norm is <= 1/2 */
    lat_real nrm = 0;
    for (int i = 0; i < n; i++) {
        lat_real row = 0;
        for (int j = 0; j < n; j++) row += fabs(h[i * n + j].re) + fabs(h[i * n + j].im);
        if (row > nrm) nrm = row;
    }
    nrm *= fabs(a);
    int sq = 0;
    lat_real scale = a;
    while (nrm > (lat_real)0.5 && sq < 60) {
        nrm /= 2;
        scale /= 2;
        sq++;
    }
    for (int i = 0; i < n * n; i++) x[i] = c_make(-scale * h[i].im, scale * h[i].re);
    /* the number of terms: the first K with nrm^K / K! below the unit
     * roundoff of lat_real (nrm <= 1/2: at most 17 in double, 10 in float) */
    const lat_real eps = sizeof(lat_real) < sizeof(double) ? (lat_real)3e-8 : (lat_real)1e-17;
    int K = 1;
    lat_real term = nrm;
    while (term > eps && K < 30) {
        K++;
        term *= nrm / K;
    }
    /* Horner: R = 1 + X (1 + X/2 (1 + ... (1 + X/K))) */
    sun_unit(n, r);
    for (int k = K; k >= 1; k--) {
        sun_mul(n, t, x, r);
        lat_real inv = (lat_real)1 / k;
        for (int i = 0; i < n * n; i++) r[i] = c_scale(inv, t[i]);
        for (int i = 0; i < n; i++) r[i * (n + 1)].re += 1;
    }
    for (int s = 0; s < sq; s++) {
        sun_mul(n, t, r, r);
        sun_copy(n, r, t);
    }
}

#endif
