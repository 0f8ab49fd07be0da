/* dirac/site.h -- the Wilson(-clover) stencil of one site, written once for
 * C and CUDA (LAT_HD, in the including file's lat_real): the CPU backend
 * (dirac/cpu.c) calls these functions, a CUDA backend calls the same ones.
 * Spinors: 4 spins x n colours of lat_complex, spin slowest (math/spinor.h);
 * links: n x n row-major (math/sun.h).  The functions see registers only:
 * where the neighbours come from (a table on the CPU, a halo face later) is
 * the caller's business, and so are the boundary phases, which the caller
 * folds into the links it passes (dirac.h).
 *
 *   dirac_hop_fwd_acc(n, mu, s, u, psi, acc)
 *        acc += (1 - s gamma_mu) u psi         u = U_mu(x), psi = psi(x+mu)
 *   dirac_hop_bwd_acc(n, mu, s, u, psi, acc)
 *        acc += (1 + s gamma_mu) u^dag psi     u = U_mu(x-mu), psi = psi(x-mu)
 *        s = +1: the hopping term D of M; s = -1: that of M^dag (gamma_mu
 *        Hermitian, so D^dag is D with gamma_mu -> -gamma_mu).  Each hop
 *        projects psi to its half spinor (2 spins), multiplies the colour
 *        matrix on those 2n numbers only and rebuilds the 4 spins (the seed
 *        paper's spin projection: 1320 flop per site for the 8 hops).
 *   dirac_neighbour(lat, x, mu, dir, &crosses)   the site x +- mu and whether
 *        the hop crosses the lattice boundary (carries the boundary phase)
 *   dirac_site_hop(n, s, uf, pf, ub, pb, acc)   all 8 hops of a site,
 *        acc = sum_mu [...]; uf[mu] = U_mu(x), pf[mu] = psi(x+mu),
 *        ub[mu] = U_mu(x-mu), pb[mu] = psi(x-mu) (pointers, mu = x,y,z,t)
 *
 * The clover term of a site, A = 1 + i c_sw kappa sum_{mu<nu} sigma_mu_nu
 * F_mu_nu (= SPEC §8's (i c_sw kappa/2) sum over all mu,nu, since sigma and
 * F are both antisymmetric in mu,nu), is block diagonal in the DeGrand-Rossi
 * basis: block b = 0 (spins 0,1) and b = 1 (spins 2,3), each a Hermitian
 * 2n x 2n matrix over the index i = (spin - 2b) n + colour.  Packed storage,
 * CLOVER_SITE_REALS(n) = 8 n^2 reals per site (72 for SU(3), the seed's
 * count), block b at offset b * 4 n^2:
 *     [0, 2n)                the real diagonal a_ii
 *     2n + 2 (i(i-1)/2 + j)  Re a_ij, then Im a_ij, for i > j (lower triangle
 *                            by rows); a_ji = conj(a_ij)
 * The inverse A^-1 (Hermitian as well) is stored the same way.
 *   clover_apply_site(n, a, psi, out)   out = A psi (a: 8n^2 lat_real; out != psi)
 *   clover_pack_block(n, m, a)          pack a Hermitian 2n x 2n block m
 *                                       (lat_complex row-major; the lower
 *                                       triangle and the real diagonal kept)
 *   clover_unpack_block(n, a, m)        the full block m of packed a
 *   clover_site_build(n, ck, f, a)      a = packed A for ck = c_sw kappa and
 *                                       f = F_mu_nu of the 6 planes (mu,nu) =
 *                                       (x,y) (x,z) (x,t) (y,z) (y,t) (z,t),
 *                                       each n x n (anti-Hermitian)
 * DIRAC_NC_MAX (default LAT_NC_MAX; a CUDA build may set 3) sizes the local
 * arrays. */
#ifndef LAT_DIRAC_SITE_H
#define LAT_DIRAC_SITE_H

#include "math/spinor.h"
#include "lattice/sites.h"

#ifndef DIRAC_NC_MAX
#define DIRAC_NC_MAX LAT_NC_MAX
#endif
#define CLOVER_SITE_REALS(n) (8 * (n) * (n))
#define CLOVER_BLOCK_REALS(n) (4 * (n) * (n))

/* the neighbour x + dir mu (dir = +1 or -1) of site x on the periodic
 * lattice, and in *crosses whether the hop crosses the boundary of direction
 * mu, where it carries the boundary phase (forward) or its conjugate
 * (backward): the one place a backend with halo faces changes */
LAT_HD int64_t dirac_neighbour(const struct lattice *lat, int64_t x, int mu, int dir, int *crosses)
{
    int c[LAT_ND];
    lattice_coords(lat, x, c);
    *crosses = dir > 0 ? c[mu] == lat->L[mu] - 1 : c[mu] == 0;
    return lattice_neighbour(lat, x, mu, dir);
}

LAT_HD void dirac_hop_fwd_acc(int n, int mu, int s, const lat_complex *u, const lat_complex *psi, lat_complex *acc)
{
    lat_complex h[2 * DIRAC_NC_MAX], w[2 * DIRAC_NC_MAX];
    spin_project(n, mu, -s, psi, h);
    colour_mul(n, u, h, w);
    colour_mul(n, u, h + n, w + n);
    spin_reconstruct_acc(n, mu, -s, w, acc);
}

LAT_HD void dirac_hop_bwd_acc(int n, int mu, int s, const lat_complex *u, const lat_complex *psi, lat_complex *acc)
{
    lat_complex h[2 * DIRAC_NC_MAX], w[2 * DIRAC_NC_MAX];
    spin_project(n, mu, s, psi, h);
    colour_mul_dag(n, u, h, w);
    colour_mul_dag(n, u, h + n, w + n);
    spin_reconstruct_acc(n, mu, s, w, acc);
}

/* the directions spelled out: mu is a constant in every call, so the gamma
 * table folds away */
LAT_HD void dirac_site_hop(int n, int s, const lat_complex *const *uf, const lat_complex *const *pf,
                           const lat_complex *const *ub, const lat_complex *const *pb, lat_complex *acc)
{
    for (int k = 0; k < LAT_NS * n; k++) acc[k] = c_make(0, 0);
    dirac_hop_fwd_acc(n, 0, s, uf[0], pf[0], acc);
    dirac_hop_bwd_acc(n, 0, s, ub[0], pb[0], acc);
    dirac_hop_fwd_acc(n, 1, s, uf[1], pf[1], acc);
    dirac_hop_bwd_acc(n, 1, s, ub[1], pb[1], acc);
    dirac_hop_fwd_acc(n, 2, s, uf[2], pf[2], acc);
    dirac_hop_bwd_acc(n, 2, s, ub[2], pb[2], acc);
    dirac_hop_fwd_acc(n, 3, s, uf[3], pf[3], acc);
    dirac_hop_bwd_acc(n, 3, s, ub[3], pb[3], acc);
}

/* offset of the packed a_ij, i > j */
LAT_HD int clover_offdiag(int n, int i, int j) { return 2 * n + 2 * (i * (i - 1) / 2 + j); }

LAT_HD void clover_apply_site(int n, const lat_real *a, const lat_complex *psi, lat_complex *out)
{
    const int m = 2 * n;
    for (int b = 0; b < 2; b++) {
        const lat_real *ab = a + b * CLOVER_BLOCK_REALS(n);
        const lat_complex *v = psi + b * m;
        lat_complex *w = out + b * m;
        for (int i = 0; i < m; i++) w[i] = c_scale(ab[i], v[i]);
        for (int i = 1; i < m; i++)
            for (int j = 0; j < i; j++) {
                const lat_complex aij = c_make(ab[clover_offdiag(n, i, j)], ab[clover_offdiag(n, i, j) + 1]);
                w[i] = c_add(w[i], c_mul(aij, v[j]));
                w[j] = c_add(w[j], c_cmul(aij, v[i]));
            }
    }
}

LAT_HD void clover_pack_block(int n, const lat_complex *m, lat_real *a)
{
    const int d = 2 * n;
    for (int i = 0; i < d; i++) {
        a[i] = m[i * d + i].re;
        for (int j = 0; j < i; j++) {
            a[clover_offdiag(n, i, j)] = m[i * d + j].re;
            a[clover_offdiag(n, i, j) + 1] = m[i * d + j].im;
        }
    }
}

LAT_HD void clover_unpack_block(int n, const lat_real *a, lat_complex *m)
{
    const int d = 2 * n;
    for (int i = 0; i < d; i++) {
        m[i * d + i] = c_make(a[i], 0);
        for (int j = 0; j < i; j++) {
            m[i * d + j] = c_make(a[clover_offdiag(n, i, j)], a[clover_offdiag(n, i, j) + 1]);
            m[j * d + i] = c_conj(m[i * d + j]);
        }
    }
}

LAT_HD void clover_site_build(int n, lat_real ck, const lat_complex *f, lat_real *a)
{
    const int d = 2 * n;
    lat_complex blk[4 * DIRAC_NC_MAX * DIRAC_NC_MAX], sig[16];
    for (int b = 0; b < 2; b++) {
        for (int k = 0; k < d * d; k++) blk[k] = c_make(0, 0);
        for (int i = 0; i < d; i++) blk[i * d + i] = c_make(1, 0);
        int p = 0;
        for (int mu = 0; mu < LAT_ND; mu++)
            for (int nu = mu + 1; nu < LAT_ND; nu++, p++) {
                sigma_munu(mu, nu, sig);
                for (int s1 = 0; s1 < 2; s1++)
                    for (int s2 = 0; s2 < 2; s2++) {
                        /* i ck sigma_{s1 s2} F_ac */
                        const lat_complex c = c_mul_ipow(1, c_scale(ck, sig[(2 * b + s1) * 4 + 2 * b + s2]));
                        for (int x = 0; x < n; x++)
                            for (int y = 0; y < n; y++) {
                                lat_complex *e = &blk[(s1 * n + x) * d + s2 * n + y];
                                *e = c_add(*e, c_mul(c, f[p * n * n + x * n + y]));
                            }
                    }
            }
        clover_pack_block(n, blk, a + b * CLOVER_BLOCK_REALS(n));
    }
}

#endif
