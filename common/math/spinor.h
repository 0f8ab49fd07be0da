/* spinor.h -- Dirac spinors, the DeGrand-Rossi gamma matrices, spin
 * projection and sigma_mu_nu; header only, C and CUDA (LAT_HD, like sun.h,
 * in the precision lat_real the including file chose).
 *
 * A spinor of one site is 4 spins x n colours of lat_complex, spin slowest:
 * psi[spin * n + colour] (the FIELD_SPINOR layout of lattice/field.h).  n is
 * an argument (3 for SU(3)); callers pass a constant so that the loops unroll.
 *
 * Gamma matrices: Euclidean, Hermitian, the DeGrand-Rossi (chiral) basis of
 * Chroma/QDP++ and MILC, mu = 0,1,2,3 = x,y,z,t; every row has one non-zero
 * entry, a power of i:  (gamma_mu)_{r, gamma_col(mu,r)} = i^gamma_ipow(mu,r)
 *     gamma_x = [[0,0,0,i],[0,0,i,0],[0,-i,0,0],[-i,0,0,0]]
 *     gamma_y = [[0,0,0,-1],[0,0,1,0],[0,1,0,0],[-1,0,0,0]]
 *     gamma_z = [[0,0,i,0],[0,0,0,-i],[-i,0,0,0],[0,i,0,0]]
 *     gamma_t = [[0,0,1,0],[0,0,0,1],[1,0,0,0],[0,1,0,0]]
 *     gamma_5 = gamma_x gamma_y gamma_z gamma_t = diag(1,1,-1,-1)  (mu = 4 here)
 * Each gamma_mu maps the upper spins (0,1) to the lower (2,3) and back, so
 * sigma_mu_nu = (i/2)[gamma_mu, gamma_nu] is block diagonal: two 2x2 chiral
 * blocks (spins 0,1 and 2,3), which is why the clover term is two Hermitian
 * 2n x 2n blocks (kernels/dirac).
 *
 *   c_mul_ipow(k, z)           i^k z (k taken mod 4; free when k is constant)
 *   gamma_col(mu, r), gamma_ipow(mu, r)   the table above (mu = 0..4)
 *   spinor_gamma(n, mu, in, out)          out = gamma_mu in (out != in)
 *   spin_project(n, mu, s, psi, h)        h = spins 0,1 of (1 + s gamma_mu) psi
 *                                         (s = +1 or -1; 2n complex: the half
 *                                         spinor the seed paper carries)
 *   spin_reconstruct_acc(n, mu, s, h, acc)  acc += (1 + s gamma_mu) psi, from
 *                                         its half spinor h: rows 2,3 of the
 *                                         projection are s i^k times rows 0,1
 *                                         (gamma_mu^2 = 1), so two spins carry it
 *   colour_mul(n, u, v, w), colour_mul_dag(n, u, v, w)   w = u v, w = u^dag v
 *   sigma_munu(mu, nu, s)                 s = (i/2)[gamma_mu, gamma_nu], 4x4
 *                                         complex row-major */
#ifndef LAT_SPINOR_H
#define LAT_SPINOR_H

#include "math/sun.h"

#define LAT_NS 4 /* spins */

LAT_HD lat_complex c_mul_ipow(int k, lat_complex z)
{
    switch (k & 3) {
    case 0: return z;
    case 1: return c_make(-z.im, z.re);
    case 2: return c_make(-z.re, -z.im);
    default: return c_make(z.im, -z.re);
    }
}

/* the column of the non-zero entry in row r of gamma_mu (mu = 4: gamma_5) */
LAT_HD int gamma_col(int mu, int r)
{
    if (mu == 4) return r;
    return mu < 2 ? 3 - r : r ^ 2;
}

/* that entry is i^gamma_ipow(mu, r) */
LAT_HD int gamma_ipow(int mu, int r)
{
    switch (mu) {
    case 0: return r < 2 ? 1 : 3;                  /* +i +i -i -i */
    case 1: return (r == 0 || r == 3) ? 2 : 0;     /* -1 +1 +1 -1 */
    case 2: return (r == 0 || r == 3) ? 1 : 3;     /* +i -i -i +i */
    case 3: return 0;                              /* +1 +1 +1 +1 */
    default: return r < 2 ? 0 : 2;                 /* gamma_5: +1 +1 -1 -1 */
    }
}

LAT_HD void spinor_gamma(int n, int mu, const lat_complex *in, lat_complex *out)
{
    for (int r = 0; r < LAT_NS; r++) {
        const int c = gamma_col(mu, r), k = gamma_ipow(mu, r);
        for (int a = 0; a < n; a++) out[r * n + a] = c_mul_ipow(k, in[c * n + a]);
    }
}

/* i^k for s = +1, i^(k+2) = -i^k for s = -1 */
LAT_HD int spin_sign_ipow(int s, int k) { return s > 0 ? k : k + 2; }

LAT_HD void spin_project(int n, int mu, int s, const lat_complex *psi, lat_complex *h)
{
    for (int r = 0; r < 2; r++) {
        const int c = gamma_col(mu, r), k = spin_sign_ipow(s, gamma_ipow(mu, r));
        for (int a = 0; a < n; a++) h[r * n + a] = c_add(psi[r * n + a], c_mul_ipow(k, psi[c * n + a]));
    }
}

LAT_HD void spin_reconstruct_acc(int n, int mu, int s, const lat_complex *h, lat_complex *acc)
{
    for (int r = 0; r < 2; r++)
        for (int a = 0; a < n; a++) acc[r * n + a] = c_add(acc[r * n + a], h[r * n + a]);
    for (int r = 2; r < LAT_NS; r++) {
        const int c = gamma_col(mu, r), k = spin_sign_ipow(s, gamma_ipow(mu, r));
        for (int a = 0; a < n; a++) acc[r * n + a] = c_add(acc[r * n + a], c_mul_ipow(k, h[c * n + a]));
    }
}

/* w = u v (u n x n row-major, v and w n complex; w != v) */
LAT_HD void colour_mul(int n, const lat_complex *u, const lat_complex *v, lat_complex *w)
{
    for (int a = 0; a < n; a++) {
        lat_complex t = c_make(0, 0);
        for (int b = 0; b < n; b++) t = c_add(t, c_mul(u[a * n + b], v[b]));
        w[a] = t;
    }
}

/* w = u^dagger v */
LAT_HD void colour_mul_dag(int n, const lat_complex *u, const lat_complex *v, lat_complex *w)
{
    for (int a = 0; a < n; a++) {
        lat_complex t = c_make(0, 0);
        for (int b = 0; b < n; b++) t = c_add(t, c_cmul(u[b * n + a], v[b]));
        w[a] = t;
    }
}

/* s = (i/2)(gamma_mu gamma_nu - gamma_nu gamma_mu), from the table: row r of
 * gamma_mu gamma_nu has its entry in column gamma_col(nu, gamma_col(mu, r)) */
LAT_HD void sigma_munu(int mu, int nu, lat_complex *s)
{
    for (int k = 0; k < 16; k++) s[k] = c_make(0, 0);
    for (int r = 0; r < LAT_NS; r++) {
        int c1 = gamma_col(mu, r), c2 = gamma_col(nu, c1);
        lat_complex e = c_mul_ipow(gamma_ipow(mu, r) + gamma_ipow(nu, c1) + 1, c_make(0.5, 0));
        s[r * 4 + c2] = c_add(s[r * 4 + c2], e);
        c1 = gamma_col(nu, r);
        c2 = gamma_col(mu, c1);
        e = c_mul_ipow(gamma_ipow(nu, r) + gamma_ipow(mu, c1) + 1, c_make(0.5, 0));
        s[r * 4 + c2] = c_sub(s[r * 4 + c2], e);
    }
}

#endif
