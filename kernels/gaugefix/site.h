/* gaugefix.h -- the physics of gauge fixing, written once for the CPU and the
 * GPU (header only, LAT_HD), plus the host-side measurement of F and theta.
 *
 * Paper: Schroeck & Vogt (seeds/gauge-fixing-multi-gpu.txt) §2, SPEC §3.
 * A site update (Algorithm 1) loops over the SU(2) subgroups (i,j) of SU(N)
 * and for each does
 *   Step 1: find the subgroup element g from the 2*Nd links touching x
 *           (gf_step1: relaxation, overrelaxation, microcanonical,
 *           stochastic relaxation or the annealing heatbath; Landau/Coulomb
 *           from K(x) = sum_mu [U_mu(x) + U_mu(x-mu)^dag], MAG from a 2x2
 *           Hermitian eigenproblem), and
 *   Step 2: apply it, U_mu(x) -> g U_mu(x), U_mu(x-mu) -> U_mu(x-mu) g^dag
 *           for the directions of the functional (gf_ndirs).  Coulomb
 *           gauge leaves the time links alone while it iterates: its
 *           timeslices are independent problems, so on R ranks nothing
 *           needs exchanging; the caller accumulates g(x) (gacc) and
 *           moves U_t once at the end (gauge_transform_apply_time), the
 *           same on every R and every backend.
 * The links are passed as two arrays of four n x n matrices, up[mu] =
 * U_mu(x) and dn[mu] = U_mu(x-mu), at up + mu*n*n.  gf_site_update is built
 * from per-direction parts (each direction's share of Step 1, Step 1 from
 * the summed shares, Step 2 on one direction's links or on one column of
 * the transform: "Step 1 in parts" below), so that a GPU can split a site
 * over several threads and still compute the bits the CPU computes.
 *
 * Normalisations (SPEC §3):
 *   Landau  F = 1/(Nc Nd V) sum Re tr U_mu(x);  Coulomb: mu spatial, Nd -> 3.
 *   theta = 1/(Nc V) sum_x tr Delta Delta^dag, Delta = sum_mu A_mu(x) -
 *           A_mu(x-mu), A = traceless part of (U - U^dag)/(2i).
 *   MAG     F = 1/(Nc Nd V) sum |U_ii|^2;  theta = 1/(Nc V) sum_x sum_{i<j}
 *           |(X - X^dag)_ij|^2 with X = sum_mu U_mu(x) D(U_mu(x))^dag +
 *           U_mu(x-mu)^dag D(U_mu(x-mu)), D(U) = diag(U).  The stationarity
 *           condition of F_MAG is exactly "off-diagonal of X - X^dag = 0";
 *           for SU(2) this theta equals the paper's eq. (13).
 * The local annealing weight is exp(f/T) with f the subgroup's share of
 * Re tr[g K] (Landau/Coulomb) or of sum |diag|^2 (MAG), unnormalised. */
#ifndef LAT_GAUGEFIX_H
#define LAT_GAUGEFIX_H

#include "math/sun.h"
#include "math/rng.h"
#include "math/su2_heatbath.h"

enum gauge_kind { GAUGE_LANDAU = 0, GAUGE_COULOMB = 1, GAUGE_MAG = 2 };
enum gf_update { GF_RELAX = 0, GF_OVERRELAX = 1, GF_MICRO = 2, GF_STOCHASTIC = 3, GF_ANNEAL = 4 };

struct gf_params {
    enum gauge_kind gauge;
    enum gf_update update;
    double omega;       /* GF_OVERRELAX: in [1,2) */
    double p;           /* GF_STOCHASTIC: probability of a microcanonical step */
    double temperature; /* GF_ANNEAL */
};

/* directions entering the functional: 3 for Coulomb, else 4 */
#define GF_NDIRS(g) ((g) == GAUGE_COULOMB ? 3 : 4) /* also a compile-time constant (GPU templates) */
LAT_HD int gf_ndirs(enum gauge_kind g) { return GF_NDIRS(g); }

/* ---- Step 1 ------------------------------------------------------------- */

/* Landau/Coulomb, one direction's share of k: the (i,j) block quaternion of
 * u + d^dag for u = U_mu(x), d = U_mu(x-mu).  The block of d^dag is the
 * dagger of d's block quaternion. */
LAT_HD lat_su2 gf_landau_k_link(int n, const lat_complex *u, const lat_complex *d, int i, int j)
{
    lat_su2 a = sun_su2_block(n, u, i, j);
    lat_su2 b = sun_su2_block(n, d, i, j);
    lat_su2 c = {{a.q[0] + b.q[0], a.q[1] - b.q[1], a.q[2] - b.q[2], a.q[3] - b.q[3]}};
    return c;
}

/* k += c, componentwise: the one order of summation of the shares (mu = 0,
 * 1, ... in turn), which every backend keeps, so that a site's k has the
 * same bits whichever threads computed the shares */
LAT_HD void gf_su2_acc(lat_su2 *k, lat_su2 c)
{
    for (int a = 0; a < 4; a++) k->q[a] += c.q[a];
}

/* Landau/Coulomb: quaternion k of the (i,j) block of K = sum up + dn^dag */
LAT_HD lat_su2 gf_landau_k(int n, const lat_complex *up, const lat_complex *dn, int ndirs, int i, int j)
{
    lat_su2 k = {{0, 0, 0, 0}};
    for (int mu = 0; mu < ndirs; mu++) gf_su2_acc(&k, gf_landau_k_link(n, up + mu * n * n, dn + mu * n * n, i, j));
    return k;
}

/* a/|a| as a unit quaternion whose norm error has no sign bias (every g
 * that Step 2 applies goes through it).  Plain a * (1/sqrt(|a|^2)) and a
 * component recomputed as sqrt(1 - rest) both err to one side when g is
 * close to 1 (the numbers near 1 sit on a grid, and the roundings of sqrt
 * and 1/sqrt there are not symmetric): |g|^2 - 1 averaged +1.1e-16 for
 * overrelaxation near convergence, and since g is close to 1 at every site
 * in every sweep there, the links grew by that much per update -- a linear
 * loss of unitarity (2.4e-13 after 500 sweeps of 4^4; the plaquette of a
 * 16^4 configuration moved by 1.6e-12 in a Landau gauge fixing).  Here the
 * largest component is recomputed from the other three as
 * 1 - rest/(1 + sqrt(1 - rest)), a single rounding of a number off the
 * grid: the mean of |g|^2 - 1 drops below 1e-18 and the links keep
 * unitarity to ~1e-14 (random-walk level) over thousands of sweeps. */
LAT_HD lat_su2 gf_su2_unit(lat_su2 a)
{
    /* k and |r_k| found and used through comparisons only (no r.q[k] with a
     * run-time k: on the GPU that puts r in local memory) */
    lat_su2 r = su2_normalize(a);
    int k = 0;
    lat_real rk = (lat_real)fabs(r.q[0]);
    for (int i = 1; i < 4; i++)
        if ((lat_real)fabs(r.q[i]) > rk) {
            k = i;
            rk = (lat_real)fabs(r.q[i]);
        }
    lat_real rest = 0;
    for (int i = 0; i < 4; i++)
        if (i != k) rest += r.q[i] * r.q[i];
    /* sqrt(1 - rest) = 1 - rest/(1 + sqrt(1 - rest)); in the denominator
     * |r_k| is sqrt(1 - rest) to rounding, which is good enough there */
    lat_real v = 1 - rest / (1 + rk);
    for (int i = 0; i < 4; i++) r.q[i] = i != k ? r.q[i] : r.q[i] < 0 ? -v : v; /* a select for each */
    return r;
}

/* the maximiser of Re tr(g K) in the subgroup: k^dag/|k| (eq. 20) */
LAT_HD lat_su2 gf_relax_landau(lat_su2 k)
{
    lat_real n2 = su2_norm2(k);
    if (!(n2 > 0)) { lat_su2 one = {{1, 0, 0, 0}}; return one; }
    return gf_su2_unit(su2_dagger(k));
}

/* MAG: the Hermitian 2x2 matrix H (h = {H00, H11, Re H01, Im H01}) with
 * sum over the links of |diag(g U)|^2 restricted to (i,j) = v^dag H v, where
 * v = (alpha, beta) and g = [[alpha, beta], [-conj(beta), conj(alpha)]].
 * For each link block C (up: C = block of U; down: block of U^dag):
 *   (gC)_00 = alpha C00 + beta C10,  conj((gC)_11) = alpha conj(C11) - beta conj(C01). */
LAT_HD void gf_mag_accumulate(lat_real h[4], lat_complex c00, lat_complex c01, lat_complex c10, lat_complex c11)
{
    h[0] += c_norm2(c00) + c_norm2(c11);
    h[1] += c_norm2(c10) + c_norm2(c01);
    lat_complex t = c_sub(c_cmul(c00, c10), c_mul(c11, c_conj(c01)));
    h[2] += t.re;
    h[3] += t.im;
}

/* the terms of H from one up link u = U_mu(x) and one down link d = U_mu(x-mu) */
LAT_HD void gf_mag_h_up(int n, const lat_complex *u, int i, int j, lat_real h[4])
{
    gf_mag_accumulate(h, u[i * n + i], u[i * n + j], u[j * n + i], u[j * n + j]);
}
LAT_HD void gf_mag_h_dn(int n, const lat_complex *d, int i, int j, lat_real h[4])
{
    /* block of d^dag: C00 = conj(d_ii), C01 = conj(d_ji), C10 = conj(d_ij), C11 = conj(d_jj) */
    gf_mag_accumulate(h, c_conj(d[i * n + i]), c_conj(d[j * n + i]), c_conj(d[i * n + j]), c_conj(d[j * n + j]));
}

/* H summed in the one order every backend keeps: up link, down link, for
 * mu = 0..3 */
LAT_HD void gf_mag_h(int n, const lat_complex *up, const lat_complex *dn, int i, int j, lat_real h[4])
{
    h[0] = h[1] = h[2] = h[3] = 0;
    for (int mu = 0; mu < 4; mu++) {
        gf_mag_h_up(n, up + mu * n * n, i, j, h);
        gf_mag_h_dn(n, dn + mu * n * n, i, j, h);
    }
}

/* Largest eigenvalue's eigenvector of H as a quaternion with alpha real and
 * >= 0 (the paper's g3 = 0: the abelian direction is left alone).  ev2 gets
 * the orthogonal eigenvector and lam the two eigenvalues (for annealing). */
LAT_HD void gf_mag_eigen(const lat_real h[4], lat_complex e1[2], lat_complex e2[2], lat_real lam[2])
{
    lat_real a = h[0], d = h[1];
    lat_complex b = c_make(h[2], h[3]);
    lat_real half = (a - d) / 2, bb = c_norm2(b);
    lat_real root = sqrt(half * half + bb);
    lam[0] = (a + d) / 2 + root;
    lam[1] = (a + d) / 2 - root;
    if (a >= d) { /* v = (lam - d, conj b): no cancellation when a >= d */
        lat_real v0 = half + root;
        lat_real nn = sqrt(v0 * v0 + bb);
        if (!(nn > 0)) { e1[0] = c_make(1, 0); e1[1] = c_make(0, 0); }
        else { e1[0] = c_make(v0 / nn, 0); e1[1] = c_scale(1 / nn, c_conj(b)); }
    } else {      /* v = (b, lam - a), then rotate the phase so alpha >= 0 */
        lat_real v1 = -half + root, bn = sqrt(bb);
        lat_real nn = sqrt(bb + v1 * v1);
        if (!(bn > 0)) { e1[0] = c_make(0, 0); e1[1] = c_make(1, 0); }
        else { e1[0] = c_make(bn / nn, 0); e1[1] = c_scale(v1 / (nn * bn), c_conj(b)); }
    }
    e2[0] = c_scale(-1, c_conj(e1[1]));
    e2[1] = c_conj(e1[0]);
}

LAT_HD lat_su2 gf_su2_from_v(lat_complex alpha, lat_complex beta)
{
    lat_su2 g = {{alpha.re, beta.im, beta.re, alpha.im}};
    return g;
}

LAT_HD lat_su2 gf_relax_mag(const lat_real h[4])
{
    lat_complex e1[2], e2[2];
    lat_real lam[2];
    gf_mag_eigen(h, e1, e2, lam);
    return gf_su2_unit(gf_su2_from_v(e1[0], e1[1]));
}

/* g^2 exactly: the microcanonical step (omega = 2) */
LAT_HD lat_su2 gf_square(lat_su2 g) { return su2_mul(g, g); }

/* g^omega to first order (paper §2.2.3 and Fig. A.11): the vector part is
 * scaled by b = (omega a0^2 + |a|^2)/(a0^2 + |a|^2) and the result
 * renormalised (gf_su2_unit); g need not be normalised (b and the result
 * do not change when g is scaled).  omega = 1 returns g up to rounding; omega = 2
 * is done exactly by gf_square. */
LAT_HD lat_su2 gf_overrelax(lat_su2 g, lat_real omega)
{
    if (omega == 2) return gf_square(g);
    lat_real a0 = g.q[0] * g.q[0];
    lat_real ai = g.q[1] * g.q[1] + g.q[2] * g.q[2] + g.q[3] * g.q[3];
    lat_real b = (omega * a0 + ai) / (a0 + ai);
    lat_su2 r = {{g.q[0], g.q[1] * b, g.q[2] * b, g.q[3] * b}};
    return gf_su2_unit(r);
}

/* Annealing, Landau/Coulomb: f = Re tr(g K)|_(i,j) = |k| x0 for g = x w with
 * w the relaxation optimum, so x comes from the SU(2) heatbath with a = |k|/T. */
LAT_HD lat_su2 gf_anneal_landau(struct lat_rng *r, lat_su2 k, double T)
{
    lat_su2 w = gf_relax_landau(k);
    double a = sqrt((double)su2_norm2(k)) / T;
    lat_su2 x = su2_heatbath_x(r, a);
    return su2_mul(x, w);
}

/* Annealing, MAG: weight exp(v^dag H v / T) on the unit sphere of C^2.
 * With c = |<e1,v>|^2 (uniform on [0,1] under the uniform measure) the
 * weight is exp(c (lam1 - lam2)/T): c by inversion, a random relative phase,
 * then the abelian phase fixed as in relaxation. */
LAT_HD lat_su2 gf_anneal_mag(struct lat_rng *r, const lat_real h[4], double T)
{
    lat_complex e1[2], e2[2];
    lat_real lam[2];
    gf_mag_eigen(h, e1, e2, lam);
    double s = (double)(lam[0] - lam[1]) / T;
    double u = rng_uniform(r);
    double c = s > 1e-12 ? 1.0 + log(u + (1.0 - u) * exp(-s)) / s : u;
    if (c < 0) c = 0;
    double phi = 6.283185307179586 * rng_uniform(r);
    lat_real s1 = (lat_real)sqrt(c), s2 = (lat_real)sqrt(1.0 - c);
    lat_complex ph = c_make((lat_real)cos(phi), (lat_real)sin(phi));
    lat_complex alpha = c_add(c_scale(s1, e1[0]), c_scale(s2, c_mul(ph, e2[0])));
    lat_complex beta = c_add(c_scale(s1, e1[1]), c_scale(s2, c_mul(ph, e2[1])));
    /* fix the abelian phase: alpha real >= 0 */
    lat_real an = sqrt(c_norm2(alpha));
    if (an > 0) {
        lat_complex f = c_scale(1 / an, c_conj(alpha));
        alpha = c_mul(alpha, f);
        beta = c_mul(beta, f);
    }
    return gf_su2_from_v(alpha, beta);
}

/* Step 1 in parts.  A site's update may be split over several threads (the
 * GPU's four threads per site, one per direction mu): each computes its
 * links' share (gf_landau_k_link; gf_mag_h_up/_dn), the shares are summed in
 * the fixed order of gf_landau_k/gf_mag_h, and then every thread finds the
 * same g from the sum with the functions below (the random updates draw from
 * the site's one stream: equal streams give equal g). */

/* the update type's change of the relaxation optimum g */
LAT_HD lat_su2 gf_step1_finish(lat_su2 g, const struct gf_params *p, struct lat_rng *r)
{
    switch (p->update) {
    case GF_OVERRELAX: return gf_overrelax(g, (lat_real)p->omega);
    case GF_MICRO: return gf_square(g);
    case GF_STOCHASTIC: return rng_uniform(r) < p->p ? gf_square(g) : g;
    default: return g;
    }
}

/* Landau/Coulomb: g from the summed k */
LAT_HD lat_su2 gf_step1_k(lat_su2 k, const struct gf_params *p, struct lat_rng *r)
{
    if (p->update == GF_ANNEAL) return gf_anneal_landau(r, k, p->temperature);
    /* gf_overrelax is invariant under scaling of its argument, so k^dag goes
     * in as it is, without gf_relax_landau's normalisation: the same g to
     * rounding, and one square root, reciprocal and division fewer on the
     * path that the GPU's other threads of a site wait for (k_sweep_sh) */
    if (p->update == GF_OVERRELAX && p->omega != 2 && su2_norm2(k) > 0) return gf_overrelax(su2_dagger(k), (lat_real)p->omega);
    return gf_step1_finish(gf_relax_landau(k), p, r);
}

/* MAG: g from the summed H */
LAT_HD lat_su2 gf_step1_h(const lat_real h[4], const struct gf_params *p, struct lat_rng *r)
{
    if (p->update == GF_ANNEAL) return gf_anneal_mag(r, h, p->temperature);
    return gf_step1_finish(gf_relax_mag(h), p, r);
}

/* Step 1 for subgroup (i,j): r is used by GF_STOCHASTIC and GF_ANNEAL only */
LAT_HD lat_su2 gf_step1(int n, const lat_complex *up, const lat_complex *dn, int i, int j,
                        const struct gf_params *p, struct lat_rng *r)
{
    if (p->gauge == GAUGE_MAG) {
        lat_real h[4];
        gf_mag_h(n, up, dn, i, j, h);
        return gf_step1_h(h, p, r);
    }
    return gf_step1_k(gf_landau_k(n, up, dn, gf_ndirs(p->gauge), i, j), p, r);
}

/* ---- Step 2 ------------------------------------------------------------- */

/* one direction: U_mu(x) -> g U_mu(x), U_mu(x-mu) -> U_mu(x-mu) g^dag */
LAT_HD void gf_step2_link(int n, lat_complex *u, lat_complex *d, int i, int j, lat_su2 g)
{
    sun_su2_left(n, u, i, j, g);
    sun_su2_right_dagger(n, d, i, j, g);
}

/* the directions 0..ndirs-1 (gf_ndirs: Coulomb leaves U_t alone) */
LAT_HD void gf_step2(int n, lat_complex *up, lat_complex *dn, int ndirs, int i, int j, lat_su2 g)
{
    for (int mu = 0; mu < ndirs; mu++) gf_step2_link(n, up + mu * n * n, dn + mu * n * n, i, j, g);
}

/* the tracked transform, one column c of it (col[k] = g(x)_kc):
 * g(x) -> G g(x), which gf_site_update does with sun_su2_left */
LAT_HD void gf_step2_column(lat_complex *col, int i, int j, lat_su2 g)
{
    su2_left_pair(g, &col[i], &col[j]);
}

/* The whole update of one site: every subgroup in order, Steps 1 and 2.
 * gacc, if not NULL, accumulates the transformation: gacc <- g gacc
 * (Coulomb needs it: U_t follows only at the end). */
LAT_HD void gf_site_update(int n, lat_complex *up, lat_complex *dn, lat_complex *gacc,
                           const struct gf_params *p, struct lat_rng *r)
{
    int ns = sun_nsubgroups(n);
#ifdef __CUDA_ARCH__
#pragma unroll /* constant subgroup indices keep the matrices in registers */
#endif
    for (int s = 0; s < ns; s++) {
        int i, j;
        sun_subgroup(n, s, &i, &j);
        lat_su2 g = gf_step1(n, up, dn, i, j, p, r);
        gf_step2(n, up, dn, gf_ndirs(p->gauge), i, j, g);
        if (gacc) sun_su2_left(n, gacc, i, j, g);
    }
}

/* ---- local contributions to F and theta --------------------------------- */

/* sum over the functional's directions of Re tr U (Landau/Coulomb) or of
 * sum_i |U_ii|^2 over all four (MAG), for the links up[mu] = U_mu(x) */
LAT_HD lat_real gf_site_functional(int n, enum gauge_kind g, const lat_complex *up)
{
    lat_real f = 0;
    if (g == GAUGE_MAG) {
        for (int mu = 0; mu < 4; mu++)
            for (int i = 0; i < n; i++) f += c_norm2(up[mu * n * n + i * (n + 1)]);
        return f;
    }
    for (int mu = 0; mu < gf_ndirs(g); mu++) f += sun_retrace(n, up + mu * n * n);
    return f;
}

/* tr Delta Delta^dag (Landau/Coulomb) or sum_{i<j} |(X - X^dag)_ij|^2 (MAG) */
LAT_HD lat_real gf_site_theta(int n, enum gauge_kind g, const lat_complex *up, const lat_complex *dn)
{
    lat_real t = 0;
    if (g == GAUGE_MAG) {
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                lat_complex xij = c_make(0, 0), xji = c_make(0, 0);
                for (int mu = 0; mu < 4; mu++) {
                    const lat_complex *u = up + mu * n * n, *d = dn + mu * n * n;
                    /* (U D^dag)_ab = U_ab conj(U_bb);  (U^dag D)_ab = conj(U_ba) U_bb */
                    xij = c_add(xij, c_add(c_mul(u[i * n + j], c_conj(u[j * n + j])), c_mul(c_conj(d[j * n + i]), d[j * n + j])));
                    xji = c_add(xji, c_add(c_mul(u[j * n + i], c_conj(u[i * n + i])), c_mul(c_conj(d[i * n + j]), d[i * n + i])));
                }
                t += c_norm2(c_sub(xij, c_conj(xji)));
            }
        return t;
    }
    /* Delta = A(S) with S = sum_mu up - dn (A is linear) */
    lat_complex s[LAT_NC_MAX * LAT_NC_MAX];
    for (int a = 0; a < n * n; a++) s[a] = c_make(0, 0);
    for (int mu = 0; mu < gf_ndirs(g); mu++)
        for (int a = 0; a < n * n; a++) s[a] = c_add(s[a], c_sub(up[mu * n * n + a], dn[mu * n * n + a]));
    /* A_ab = (S_ab - conj(S_ba))/(2i); subtract tr(A)/n from the diagonal */
    lat_real tr_im = 0; /* tr A = sum_a Im S_aa (real) */
    for (int a = 0; a < n; a++) tr_im += s[a * (n + 1)].im;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            lat_complex w = c_sub(s[a * n + b], c_conj(s[b * n + a]));
            lat_complex A = c_make(w.im / 2, -w.re / 2);
            if (a == b) A.re -= tr_im / n;
            t += c_norm2(A);
        }
    return t;
}

/* ---- host-side measurement (common/gauge_quality.c) ---------------------- */
#ifndef __CUDACC__
#include "lattice/field.h"

struct gauge_quality {
    double F, theta;
    int nt;                 /* Coulomb: number of timeslices, else 0 */
    double *F_t, *theta_t;  /* Coulomb: per timeslice (malloc'd), else NULL */
};

/* F and theta of a double-precision host field in SPEC §3 normalisation.
 * Coulomb: theta = mean over timeslices of theta_t (= 1/(Nc V) sum_x). */
void gauge_quality_measure(const struct field *u, enum gauge_kind g, struct gauge_quality *q);
/* The same from raw per-timeslice sums (sums[2t] = sum of gf_site_functional,
 * sums[2t+1] = sum of gf_site_theta over timeslice t): the one place of the
 * normalisation, shared by every backend. */
void gauge_quality_from_sums(struct gauge_quality *q, enum gauge_kind g, int n, int64_t V, int nt, const double *sums);
void gauge_quality_free(struct gauge_quality *q);
int gauge_kind_parse(const char *s, enum gauge_kind *g); /* 0 ok, -1 unknown */
const char *gauge_kind_name(enum gauge_kind g);
#endif

#include "lattice/geometry.h"

/* The links a gauge-fixing half-sweep of parity p changed that another
 * rank holds (common/gaugefix.h: the update at x changes U_mu(x) and
 * U_mu(x-mu) for the ndirs directions of the functional): the halo links
 * U_t(t0-1) of the other parity go back to their owner, and the owned
 * U_t(t0+lt-1) of parity p go to the rank above, whose halo they are.
 * Coulomb gauge (ndirs 3) moves no time link while it iterates: nothing.
 * Fills parts, returns their number. */
static inline int halo_parts_gaugefix(const struct geometry *d, int ndirs, int p, struct halo_part *parts)
{
    if (ndirs < 4) return 0;
    struct halo_part back = {-1, 0, d->lt, 3, 1 - p}, up = {+1, d->lt, 0, 3, p};
    parts[0] = back;
    parts[1] = up;
    return 2;
}
#endif
