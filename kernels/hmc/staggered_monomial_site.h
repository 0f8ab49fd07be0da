/* hmc/staggered_monomial_site.h -- the per-site formulas of the staggered
 * monomial (hmc/staggered_monomial.h), written once for the CPU loops
 * (staggered_monomial.c) and the CUDA kernels (staggered_gpu_kernel.cuh);
 * header only, LAT_HD.
 *
 *   stag_noise_site(n, seed, copy, site, traj, purpose, o)
 *       the 2n reals of one site's noise: the stream rng_init(seed, copy,
 *       site, traj, purpose) (site = global site); RNG_NOISE: complex Z2,
 *       each real +-1/sqrt 2 from one rng_u32's lowest bit; otherwise
 *       Gaussian, each real rng_normal / sqrt 2 (E|z|^2 = 1 per complex
 *       entry), in the order o[0], o[1], ...  Same numbers on every backend.
 *   stag_force_outer_add(n, a, v, w, o)   o += a v w^dag (v, w colour
 *       vectors, o n x n): one pole's term of O = sum_i a_i v_i w_i^dag
 *       (poles added in order i = 0, 1, ...).
 *   stag_force_link(n, even, coeff, ul, o, g)   g += coeff TA(W), W = ul O
 *       (y even) or O ul^dag (y odd), ul the folded link U'_mu(y) (eta and
 *       the boundary sign), TA(W) = i H with H the traceless Hermitian part
 *       of (W - W^dag)/(2i) (alg_pack_antiherm_part): the force of
 *       staggered_monomial.h on the link (y, mu), with O built from v =
 *       Y(y+mu), w = X(y) (y even) or v = Y(y), w = X(y+mu) (y odd).
 * Matrices row-major lat_complex.  Local arrays: STAG_MONO_NC_MAX colours
 * (default LAT_NC_MAX; the SU(3) kernels define it 3 first). */
#ifndef LAT_HMC_STAGGERED_MONOMIAL_SITE_H
#define LAT_HMC_STAGGERED_MONOMIAL_SITE_H

#include "base/lat.h"
#include "math/rng.h"
#include "math/sun.h"
#include "math/algebra.h"

#ifndef STAG_MONO_NC_MAX
#define STAG_MONO_NC_MAX LAT_NC_MAX
#endif

LAT_HD void stag_noise_site(int n, uint64_t seed, uint32_t copy, uint64_t site, uint32_t traj, int purpose, double *o)
{
    const double h = sqrt(0.5);
    struct lat_rng r;
    rng_init(&r, seed, copy, site, traj, (uint32_t)purpose);
    for (int k = 0; k < 2 * n; k++) {
        if (purpose == RNG_NOISE) o[k] = (rng_u32(&r) & 1u) ? h : -h;
        else o[k] = h * rng_normal(&r);
    }
}

LAT_HD void stag_force_outer_add(int n, lat_real a, const lat_complex *v, const lat_complex *w, lat_complex *o)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) o[i * n + j] = c_add(o[i * n + j], c_scale(a, c_mul(v[i], c_conj(w[j]))));
}

LAT_HD void stag_force_link(int n, int even, lat_real coeff, const lat_complex *ul, const lat_complex *o, lat_complex *g)
{
    lat_complex w[STAG_MONO_NC_MAX * STAG_MONO_NC_MAX], h[STAG_MONO_NC_MAX * STAG_MONO_NC_MAX];
    lat_real pk[STAG_MONO_NC_MAX * STAG_MONO_NC_MAX];
    if (even) sun_mul(n, w, ul, o);
    else sun_mul_nd(n, w, o, ul);
    alg_pack_antiherm_part(n, w, pk);
    alg_unpack(n, pk, h);
    for (int e = 0; e < n * n; e++) {
        g[e].re -= coeff * h[e].im;
        g[e].im += coeff * h[e].re;
    }
}

#endif
