/* hmc/site.h -- the per-link formulas of the HMC's molecular dynamics,
 * written once for the CPU (momenta.c, gauge.c) and the CUDA kernels
 * (gpu_kernel.cuh); header only, LAT_HD.  Conventions: hmc/monomial.h.
 *
 *   hmc_site_momentum(n, r, m)   one su(N) momentum P = i H from the stream
 *       r (momenta.h: off-diagonal H_ab = (g1 + i g2)/sqrt 2, the diagonal
 *       over the orthonormal Cartan basis; the normals in this order), so a
 *       stream keyed as momenta.h says gives the same P on every backend.
 *   hmc_site_link_update(n, eps, p, l)   l <- exp(eps P) l, the exact
 *       exponential of math/su3_exp.h (sun_exp_antiherm).
 *   hmc_site_gauge_force(n, c, U, A, f)  f += c TA(U A), TA(W) = (W - W^dag)/2
 *       - tr(W - W^dag)/(2N) (gauge.h: the Wilson force is c = -coeff beta/N,
 *       A the staple sum of heatbath/link.h).
 *   hmc_site_kinetic(n, p)   -1/2 tr P^2 = 1/2 sum_ab |P_ab|^2 of one
 *       anti-Hermitian link momentum (momenta.c sums it over the lattice in
 *       long double, the GPU kernel in a fixed tree of doubles).
 *   hmc_gauge_action_of_sum(beta, nc, V, re)   the Wilson action (gauge.h)
 *       from the sum re of Re tr U_P over the 6V plaquettes of V sites: the
 *       CPU's (gauge.c) and the GPU's (gpu.c) action; host only.
 * Matrices row-major lat_complex (n x n); l and f are updated in place. */
#ifndef LAT_HMC_SITE_H
#define LAT_HMC_SITE_H

#include "base/lat.h"
#include "math/rng.h"
#include "math/su3_exp.h"

LAT_HD void hmc_site_momentum(int n, struct lat_rng *r, lat_complex *m)
{
    sun_zero(n, m);
    /* P = i H: off-diagonal P_ab = i (g1 + i g2)/sqrt 2, P_ba = -conj(P_ab) */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double g1 = rng_normal(r) * M_SQRT1_2, g2 = rng_normal(r) * M_SQRT1_2;
            m[a * n + b] = c_make(-g2, g1);
            m[b * n + a] = c_make(g2, g1);
        }
    for (int k = 1; k < n; k++) { /* diagonal: g_k D_k, times i */
        double g = rng_normal(r) / sqrt((double)k * (k + 1));
        for (int a = 0; a < k; a++) m[a * (n + 1)].im += g;
        m[k * (n + 1)].im -= k * g;
    }
}

LAT_HD double hmc_site_kinetic(int n, const lat_complex *p)
{
    double s = 0;
    for (int i = 0; i < n * n; i++) s += p[i].re * p[i].re + p[i].im * p[i].im;
    return s / 2;
}

LAT_HD void hmc_site_link_update(int n, double eps, const lat_complex *p, lat_complex *l)
{
    lat_complex q[LAT_NC_MAX * LAT_NC_MAX], e[LAT_NC_MAX * LAT_NC_MAX], r[LAT_NC_MAX * LAT_NC_MAX];
    for (int i = 0; i < n * n; i++) q[i] = c_scale(eps, p[i]);
    sun_exp_antiherm(n, q, e);
    sun_mul(n, r, e, l);
    sun_copy(n, l, r);
}

LAT_HD void hmc_site_gauge_force(int n, double c, const lat_complex *U, const lat_complex *A, lat_complex *f)
{
    lat_complex W[LAT_NC_MAX * LAT_NC_MAX];
    sun_mul(n, W, U, A);
    double tr = 0; /* Im tr W: TA(W) has the diagonal i (Im W_aa - Im tr W / N) */
    for (int a = 0; a < n; a++) tr += W[a * (n + 1)].im;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            /* (W_ab - conj W_ba) / 2 */
            double re = (W[a * n + b].re - W[b * n + a].re) / 2, im = (W[a * n + b].im + W[b * n + a].im) / 2;
            if (a == b) im -= tr / n;
            f[a * n + b].re += c * re;
            f[a * n + b].im += c * im;
        }
}

/* host only: long double, which device code does not have */
static inline double hmc_gauge_action_of_sum(double beta, int nc, int64_t volume, long double plaquette_sum)
{
    long double nplaq = (long double)volume * 6;
    return (double)((long double)beta * (nplaq - plaquette_sum / nc));
}

#endif
