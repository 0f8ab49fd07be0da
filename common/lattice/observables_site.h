/* observables_site.h -- the per-site formulas of the gauge-invariant
 * observables (SPEC §3), written once for the CPU (lattice/observables.c)
 * and the GPU (kernels/gpu/observables.cu); header only, LAT_HD.
 *
 * Exported (all LAT_HD; n = N of SU(N); matrices row-major lat_complex):
 *   obs_plaquette(n, umu, unu_fmu, unu, umu_fnu)
 *       Re tr[U_mu(x) U_nu(x+mu) (U_nu(x) U_mu(x+nu))^dag], one plaquette.
 *   obs_site_plaquettes(n, u, fwd, &ps, &pt)
 *       the six plaquettes of site x in the order mu < nu (mu outer): u[mu]
 *       = U_mu(x), fwd[mu][nu] = U_nu(x+mu) (mu != nu); *ps = the sum of
 *       the spatial ones (nu < 3), *pt = of the temporal ones (nu = 3),
 *       each added in that order starting from 0.
 *   obs_site_link_trace(n, u)   sum over mu of Re tr U_mu(x), mu in order.
 *   obs_link_unitarity(n, m, &du, &dd)
 *       du = ||U^dag U - 1||_F, dd = |det U - 1| (hypot) of one link.
 *   obs_max_nan(a, b)  the larger, NaN if either is NaN (a broken link shows).
 *   obs_polyakov_start(n, p, u), obs_polyakov_mul(n, p, u)
 *       the running product of the Polyakov line: p = U_t(x, t0), then
 *       p = p U_t(x, t) for t in order; its trace (sun_trace) is the loop.
 * The callers fetch the links from their storage and add the per-site
 * values in their own fixed order (observables.c: chunks in site order;
 * observables.cu: a fixed grid, blocks added on the host in order).
 * Scratch matrices hold LAT_OBS_NN_MAX = LAT_NC_MAX^2 complex numbers, on
 * the host and in CUDA code (the GPU kernels exist for every N; with n a
 * compile-time constant there, only the first n^2 are used). */
#ifndef LAT_OBSERVABLES_SITE_H
#define LAT_OBSERVABLES_SITE_H

#include "base/lat.h"
#include "math/sun.h"
#include <math.h>

#ifndef LAT_OBS_NN_MAX
#define LAT_OBS_NN_MAX (LAT_NC_MAX * LAT_NC_MAX)
#endif

LAT_HD double obs_plaquette(int n, const lat_complex *umu, const lat_complex *unu_fmu, const lat_complex *unu,
                            const lat_complex *umu_fnu)
{
    lat_complex a[LAT_OBS_NN_MAX], b[LAT_OBS_NN_MAX];
    sun_mul(n, a, umu, unu_fmu); /* U_mu(x) U_nu(x+mu) */
    sun_mul(n, b, unu, umu_fnu); /* U_nu(x) U_mu(x+nu) */
    return sun_retrace_mul_nd(n, a, b);
}

LAT_HD void obs_site_plaquettes(int n, const lat_complex *u[LAT_ND], const lat_complex *fwd[LAT_ND][LAT_ND], double *ps,
                                double *pt)
{
    double s = 0, t = 0;
    for (int mu = 0; mu < LAT_ND; mu++)
        for (int nu = mu + 1; nu < LAT_ND; nu++) {
            double p = obs_plaquette(n, u[mu], fwd[mu][nu], u[nu], fwd[nu][mu]);
            if (nu == LAT_ND - 1) t += p;
            else s += p;
        }
    *ps = s;
    *pt = t;
}

LAT_HD double obs_site_link_trace(int n, const lat_complex *u[LAT_ND])
{
    double t = 0;
    for (int mu = 0; mu < LAT_ND; mu++) t += sun_retrace(n, u[mu]);
    return t;
}

LAT_HD void obs_link_unitarity(int n, const lat_complex *m, double *du, double *dd)
{
    *du = sun_unitarity_dev(n, m);
    lat_complex d = sun_det(n, m);
    *dd = hypot(d.re - 1, d.im);
}

LAT_HD double obs_max_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : (a > b ? a : b); }

LAT_HD void obs_polyakov_start(int n, lat_complex *p, const lat_complex *u) { sun_copy(n, p, u); }

LAT_HD void obs_polyakov_mul(int n, lat_complex *p, const lat_complex *u)
{
    lat_complex q[LAT_OBS_NN_MAX];
    sun_mul(n, q, p, u);
    sun_copy(n, p, q);
}

#endif
