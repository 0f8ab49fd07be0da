/* fourier/site.h -- the per-site physics of Fourier-accelerated gauge
 * fixing, written once for the CPU (fourier/cpu.c) and the GPU
 * (fourier/gpu.cuh); header only, LAT_HD.
 *
 *   fa_weight(L, nd, k, norm)   p^2_max / p^2(k) / norm, p^2(k) = sum_mu<nd
 *                               4 sin^2(pi k_mu / L_mu), p^2_max = 4 nd; 0 for
 *                               the zero mode (norm: the transform's N, since
 *                               the backward transform is unnormalised)
 *   fa_site_gradient(n, nd, up, dn, d)   Delta(x) packed (math/algebra.h):
 *                               the traceless part of (S - S^dag)/(2i), S =
 *                               sum_mu<nd U_mu(x) - U_mu(x-mu)
 *   fa_site_curvature(n, nd, h, up, dn, hy)   this site's share of the second
 *                               derivative of sum Re tr U along s:
 *                               2 sum_mu Re tr(h U_mu(x) hy_mu) - Re tr(h^2
 *                               K(x)), K = sum_mu U_mu(x) + U_mu(x-mu), with h
 *                               = s(x) and hy_mu = s(x+mu) unpacked
 * up[mu], dn[mu]: U_mu(x), U_mu(x-mu) at up + mu n^2 (as gaugefix/site.h). */
#ifndef LAT_FOURIER_SITE_H
#define LAT_FOURIER_SITE_H

#include "math/algebra.h"

LAT_HD lat_real fa_weight(const int *L, int nd, const int *k, double norm)
{
    double p2 = 0;
    for (int mu = 0; mu < nd; mu++) {
        double sn = sin(M_PI * k[mu] / L[mu]);
        p2 += 4 * sn * sn;
    }
    return p2 > 1e-12 ? (lat_real)(4.0 * nd / p2 / norm) : 0;
}

LAT_HD void fa_site_gradient(int n, int nd, const lat_complex *up, const lat_complex *dn, lat_real *d)
{
    lat_complex S[LAT_NC_MAX * LAT_NC_MAX];
    const int nn = n * n;
    for (int a = 0; a < nn; a++) S[a] = c_make(0, 0);
    for (int mu = 0; mu < nd; mu++)
        for (int a = 0; a < nn; a++) S[a] = c_add(S[a], c_sub(up[mu * nn + a], dn[mu * nn + a]));
    alg_pack_antiherm_part(n, S, d);
}

LAT_HD lat_real fa_site_curvature(int n, int nd, const lat_complex *h, const lat_complex *up, const lat_complex *dn,
                                  const lat_complex *hy)
{
    lat_complex h2[LAT_NC_MAX * LAT_NC_MAX], K[LAT_NC_MAX * LAT_NC_MAX], a[LAT_NC_MAX * LAT_NC_MAX];
    const int nn = n * n;
    sun_mul(n, h2, h, h);
    for (int k = 0; k < nn; k++) K[k] = c_make(0, 0);
    lat_real cross = 0;
    for (int mu = 0; mu < nd; mu++) {
        sun_acc(n, K, up + mu * nn);
        sun_acc(n, K, dn + mu * nn);
        sun_mul(n, a, h, up + mu * nn);
        cross += sun_retrace_mul(n, a, hy + mu * nn);
    }
    return 2 * cross - sun_retrace_mul(n, h2, K);
}

#endif
