/* dirac/clover.c -- the clover term of every site, built once per operator
 * on the host in double (private to the module, declared in dirac/cpu.h):
 *
 *   dirac_clover_build(op, why, len)
 *       op->clov_d / clovinv_d (and their float roundings clov_f /
 *       clovinv_f): the packed A(x) and A(x)^-1 of site.h for every owned
 *       site (index x - op->off), from op->links_d before the boundary
 *       phases are folded in (dirac.c calls it then), halo slices current:
 *       a leaf of an owned site reaches at most one slice across the cut.  F_mu_nu(x) =
 *       (Q - Q^dag)/8 with Q the four clover leaves of the (mu,nu) plane at
 *       x, each starting at x in the sense mu then nu (dirac.h); A from
 *       site.h's clover_site_build.  Each 2n x 2n block is inverted by
 *       Gauss-Jordan elimination with partial pivoting; the inverse is
 *       packed from its lower triangle (it is Hermitian up to rounding).
 *       Returns 0, or -1 with why[len] naming the first site whose block is
 *       singular (or not finite).  Deterministic: OpenMP over sites, each
 *       site on its own. */
#include "dirac/cpu.h"
#include "dirac/site.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>

#define NN (LAT_NC_MAX * LAT_NC_MAX)

/* the links as given: op->links_d before the phases go in */
static const double *link_at(const struct dirac_op *op, int64_t x, int mu)
{ return op->links_d + ((size_t)x * LAT_ND + (size_t)mu) * 2 * (size_t)op->nc * (size_t)op->nc; }

static void load(int n, lat_complex *m, const double *p)
{
    for (int k = 0; k < n * n; k++) m[k] = c_make(p[2 * k], p[2 * k + 1]);
}

/* Q_mu_nu(x): the four leaves, each a closed loop from x */
static void clover_leaves(const struct dirac_op *op, int n, int64_t x, int mu, int nu,
                          lat_complex *q)
{
    const int32_t *f = op->fwd, *b = op->bwd;
    const int64_t xpm = f[4 * x + mu], xpn = f[4 * x + nu], xmm = b[4 * x + mu], xmn = b[4 * x + nu];
    const int64_t xmmpn = f[4 * xmm + nu], xmmmn = b[4 * xmm + nu], xpmmn = f[4 * xmn + mu];
    lat_complex a[NN], c[NN], t[NN], l1[NN], l2[NN], l3[NN], l4[NN];
    lat_complex umx[NN], unx[NN], m1[NN], m2[NN];
    load(n, umx, link_at(op, x, mu));
    load(n, unx, link_at(op, x, nu));
    /* U_mu(x) U_nu(x+mu) U_mu(x+nu)^dag U_nu(x)^dag */
    load(n, m1, link_at(op, xpm, nu));
    sun_mul(n, a, umx, m1);
    load(n, m1, link_at(op, xpn, mu));
    sun_mul_nd(n, c, a, m1);
    sun_mul_nd(n, l1, c, unx);
    /* U_nu(x) U_mu(x-mu+nu)^dag U_nu(x-mu)^dag U_mu(x-mu) */
    load(n, m1, link_at(op, xmmpn, mu));
    sun_mul_nd(n, a, unx, m1);
    load(n, m1, link_at(op, xmm, nu));
    sun_mul_nd(n, c, a, m1);
    load(n, m2, link_at(op, xmm, mu));
    sun_mul(n, l2, c, m2);
    /* U_mu(x-mu)^dag U_nu(x-mu-nu)^dag U_mu(x-mu-nu) U_nu(x-nu) */
    load(n, m1, link_at(op, xmmmn, nu));
    sun_mul(n, t, m1, m2); /* U_nu(x-mu-nu) U_mu(x-mu) */
    sun_dagger(n, a, t);
    load(n, m1, link_at(op, xmmmn, mu));
    sun_mul(n, c, a, m1);
    load(n, m1, link_at(op, xmn, nu));
    sun_mul(n, l3, c, m1);
    /* U_nu(x-nu)^dag U_mu(x-nu) U_nu(x+mu-nu) U_mu(x)^dag */
    load(n, m2, link_at(op, xmn, mu));
    sun_mul_dn(n, a, m1, m2);
    load(n, m1, link_at(op, xpmmn, nu));
    sun_mul(n, c, a, m1);
    sun_mul_nd(n, l4, c, umx);
    for (int k = 0; k < n * n; k++) q[k] = c_add(c_add(l1[k], l2[k]), c_add(l3[k], l4[k]));
}

/* inverse of the d x d complex matrix m (Gauss-Jordan, partial pivoting);
 * -1 when a pivot is zero or the result is not finite */
static int invert(int d, const lat_complex *m, lat_complex *inv)
{
    lat_complex a[4 * NN];
    for (int k = 0; k < d * d; k++) {
        a[k] = m[k];
        inv[k] = c_make(k % (d + 1) == 0 ? 1 : 0, 0);
    }
    for (int c = 0; c < d; c++) {
        int p = c;
        for (int r = c + 1; r < d; r++)
            if (c_norm2(a[r * d + c]) > c_norm2(a[p * d + c])) p = r;
        if (!(c_norm2(a[p * d + c]) > 0)) return -1;
        if (p != c)
            for (int k = 0; k < d; k++) {
                lat_complex t = a[c * d + k];
                a[c * d + k] = a[p * d + k];
                a[p * d + k] = t;
                t = inv[c * d + k];
                inv[c * d + k] = inv[p * d + k];
                inv[p * d + k] = t;
            }
        const lat_complex piv = a[c * d + c];
        const lat_complex r = c_scale(1 / c_norm2(piv), c_conj(piv));
        for (int k = 0; k < d; k++) {
            a[c * d + k] = c_mul(r, a[c * d + k]);
            inv[c * d + k] = c_mul(r, inv[c * d + k]);
        }
        for (int row = 0; row < d; row++) {
            if (row == c) continue;
            const lat_complex f = a[row * d + c];
            for (int k = 0; k < d; k++) {
                a[row * d + k] = c_sub(a[row * d + k], c_mul(f, a[c * d + k]));
                inv[row * d + k] = c_sub(inv[row * d + k], c_mul(f, inv[c * d + k]));
            }
        }
    }
    for (int k = 0; k < d * d; k++)
        if (!isfinite(inv[k].re) || !isfinite(inv[k].im)) return -1;
    return 0;
}

int dirac_clover_build(struct dirac_op *op, char *why, size_t len)
{
    const int n = op->nc, d = 2 * n;
    const int64_t V = op->vo;
    const size_t cr = CLOVER_SITE_REALS(n);
    op->clov_d = (double *)lat_malloc((size_t)V * cr * sizeof(double));
    op->clovinv_d = (double *)lat_malloc((size_t)V * cr * sizeof(double));
    int64_t bad = -1;
#pragma omp parallel for schedule(static) if (V >= 1024)
    for (int64_t xo = 0; xo < V; xo++) {
        const int64_t x = xo + op->off;
        lat_complex f[6 * NN], q[NN], blk[4 * NN], inv[4 * NN];
        int p = 0;
        for (int mu = 0; mu < LAT_ND; mu++)
            for (int nu = mu + 1; nu < LAT_ND; nu++, p++) {
                clover_leaves(op, n, x, mu, nu, q);
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++)
                        f[p * n * n + i * n + j] = c_scale(0.125, c_sub(q[i * n + j], c_conj(q[j * n + i])));
            }
        double *a = op->clov_d + (size_t)xo * cr, *ai = op->clovinv_d + (size_t)xo * cr;
        clover_site_build(n, op->csw * op->kappa, f, a);
        for (int b = 0; b < 2; b++) {
            clover_unpack_block(n, a + b * CLOVER_BLOCK_REALS(n), blk);
            if (invert(d, blk, inv) != 0) {
#pragma omp critical(dirac_clover_bad)
                if (bad < 0 || x < bad) bad = x;
                for (int k = 0; k < d * d; k++) inv[k] = c_make(0, 0);
            }
            clover_pack_block(n, inv, ai + b * CLOVER_BLOCK_REALS(n));
        }
    }
    /* on a slab every rank must take the same way out: the first singular
     * global site over all ranks (-1: none) */
    int64_t gbad = bad >= 0 ? geometry_global_site(op->dom, bad) : -1;
    if (op->dom) {
        double m = gbad >= 0 ? -(double)gbad : -1e300;
        comm_max(&m, 1);
        gbad = m > -1e300 ? (int64_t)-m : -1;
    }
    if (gbad >= 0) {
        int c[LAT_ND];
        lattice_coords(geometry_global(op->dom, &op->lat), gbad, c);
        snprintf(why, len, "the clover term A = 1 + i c_sw kappa sigma F is singular at site (%d,%d,%d,%d) "
                 "(kappa %g, c_sw %g)", c[0], c[1], c[2], c[3], op->kappa, op->csw);
        return -1;
    }
    op->clov_f = (float *)lat_malloc((size_t)V * cr * sizeof(float));
    op->clovinv_f = (float *)lat_malloc((size_t)V * cr * sizeof(float));
    for (size_t k = 0; k < (size_t)V * cr; k++) {
        op->clov_f[k] = (float)op->clov_d[k];
        op->clovinv_f[k] = (float)op->clovinv_d[k];
    }
    return 0;
}
