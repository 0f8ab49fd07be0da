/* dirac/staggered_site.h -- the unimproved staggered stencil of one site,
 * written once for C and CUDA (LAT_HD, in the including file's lat_real):
 * the CPU backend (dirac/staggered_cpu.c) calls these functions, a CUDA
 * backend calls the same ones.  A staggered field has one colour vector (n
 * lat_complex) per site; links are n x n row-major (math/sun.h).
 *
 *   staggered_phase(lat, x, mu)   eta_mu(x) = (-1)^(x_0 + ... + x_{mu-1})
 *        (x = direction 0, ..., t = 3; eta_x = 1) times the boundary sign:
 *        -1 on U_t(x) at x_t = L_t - 1 (antiperiodic in time).  The operator
 *        multiplies it into its copy of U_mu(x) once (dirac/staggered.h):
 *        eta_mu does not depend on x_mu, so eta_mu(x - mu) = eta_mu(x) and
 *        the backward hop of x, through U_mu(x - mu)^dag, gets the right
 *        sign from the same folded link.  staggered_phase_coords: the same
 *        from x's coordinates (the GPU kernels multiply it on the fly,
 *        dirac/staggered_gpu.h).
 *   staggered_site_hop(n, uf, pf, ub, pb, acc)
 *        acc = sum_mu [ uf[mu] pf[mu] - ub[mu]^dag pb[mu] ]
 *        uf[mu] = U'_mu(x), pf[mu] = psi(x + mu), ub[mu] = U'_mu(x - mu),
 *        pb[mu] = psi(x - mu); U' the folded links: this is 2 D psi(x) of
 *        the seed's eq. (4) (the caller scales by 1/2 with its other
 *        coefficients).  8 colour products and the sum: 570 flop per site
 *        for SU(3) (8 x 66 + 7 x 6, the usual count).
 *   staggered_site_hop_dir(n, uf, pf, ub, pb, acc)
 *        one direction of it: acc += uf pf - ub^dag pb (staggered_site_hop
 *        is the four in order, so both give the same bits).
 *   staggered_site_hop_dir_made(n, uf, pf, wb, acc)
 *        the same with wb = ub^dag pb made by the caller (or another rank):
 *        the same bits as staggered_site_hop_dir. */
#ifndef LAT_DIRAC_STAGGERED_SITE_H
#define LAT_DIRAC_STAGGERED_SITE_H

#include "math/spinor.h"
#include "lattice/sites.h"

#ifndef STAGGERED_NC_MAX
#define STAGGERED_NC_MAX LAT_NC_MAX
#endif

/* eta_mu(x) times the boundary sign from x's coordinates c and the extents
 * L (the GPU kernels have the coordinates at hand) */
LAT_HD int staggered_phase_coords(const int c[LAT_ND], const int L[LAT_ND], int mu)
{
    int s = 0;
    for (int nu = 0; nu < mu; nu++) s += c[nu];
    int sign = (s & 1) ? -1 : 1;
    if (mu == LAT_ND - 1 && c[mu] == L[mu] - 1) sign = -sign;
    return sign;
}

LAT_HD int staggered_phase(const struct lattice *lat, int64_t x, int mu)
{
    int c[LAT_ND];
    lattice_coords(lat, x, c);
    return staggered_phase_coords(c, lat->L, mu);
}

/* the hops of one direction: acc += uf pf - ub^dag pb (a GPU thread loads
 * and applies one direction at a time, keeping few links in registers) */
/* the same with the backward product made already: acc += uf pf - wb, wb =
 * ub^dag pb (the GPU operator on a t-slab gets wb of its first slice from
 * the previous rank, which has the link) */
LAT_HD void staggered_site_hop_dir_made(int n, const lat_complex *uf, const lat_complex *pf, const lat_complex *wb,
                                        lat_complex *acc)
{
    lat_complex w[STAGGERED_NC_MAX];
    colour_mul(n, uf, pf, w);
    for (int a = 0; a < n; a++) acc[a] = c_add(acc[a], w[a]);
    for (int a = 0; a < n; a++) acc[a] = c_sub(acc[a], wb[a]);
}

LAT_HD void staggered_site_hop_dir(int n, const lat_complex *uf, const lat_complex *pf, const lat_complex *ub,
                                   const lat_complex *pb, lat_complex *acc)
{
    lat_complex wb[STAGGERED_NC_MAX];
    colour_mul_dag(n, ub, pb, wb);
    staggered_site_hop_dir_made(n, uf, pf, wb, acc);
}

/* acc = sum_mu [uf pf - ub^dag pb] (the factor 1/2 is the caller's: it
 * folds it into the coefficient of the hopping term) */
LAT_HD void staggered_site_hop(int n, const lat_complex *const *uf, const lat_complex *const *pf,
                               const lat_complex *const *ub, const lat_complex *const *pb, lat_complex *acc)
{
    for (int a = 0; a < n; a++) acc[a] = c_make(0, 0);
    for (int mu = 0; mu < LAT_ND; mu++) staggered_site_hop_dir(n, uf[mu], pf[mu], ub[mu], pb[mu], acc);
}

#endif
