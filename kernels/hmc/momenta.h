/* hmc/momenta.h -- the su(N) momenta of the HMC and what acts on them
 * alone: drawing them, their kinetic energy, the link update, and the
 * deterministic site sums every energy of lat-hmc is made of (SPEC §9).
 *
 * A momentum field is a double array of V * 4 * 2N^2 reals, V the sites of
 * u's lattice (on a slab, lattice/geometry.h: the local lattice, halo slices
 * included, whose entries nothing reads): P_mu(x) at p + (x*4 + mu) * 2N^2
 * for the local site x, a full N x N complex matrix (row-major re/im),
 * anti-Hermitian and traceless (hmc/monomial.h); forces have the same
 * layout.  Everything below works on the owned sites
 * [hmc_owned_begin(u), hmc_owned_end(u)) (all sites on one process) and
 * keys whatever depends on a site by its global site, so R ranks give the
 * bits of one process.
 *
 *   hmc_momenta_alloc(u)          a zeroed momentum field for u's lattice
 *   hmc_momenta_draw(p, u, seed, traj)
 *       P_mu(x) = i H with H Gaussian, traceless Hermitian, density
 *       exp(-1/2 tr H^2): off-diagonal H_ab = (g1 + i g2)/sqrt 2, the
 *       diagonal sum_k g_k D_k over the orthonormal Cartan basis
 *       D_k = diag(1,..,1,-k,0,..)/sqrt(k(k+1)) (k ones); so
 *       T = -1/2 tr P^2 = 1/2 sum g^2 has mean (N^2-1)/2 per link.  The
 *       normals g come from the Philox stream
 *       rng_init(seed, mu, global site, trajectory, RNG_MOMENTA): the
 *       momenta depend on (seed, trajectory, site, mu) only.
 *   hmc_kinetic_energy(p, u)      T = -1/2 sum_{x,mu} tr P_mu(x)^2
 *   hmc_link_update(u, p, eps)    U_mu(x) <- exp(eps P_mu(x)) U_mu(x), the
 *                                 exact exponential (math/su3_exp.h), then
 *                                 u's halo slices from the neighbour ranks
 *                                 (collective on a slab)
 *   hmc_site_sum(u, f, ctx)       sum_x f(ctx, x) over the owned local
 *       sites x of u in a fixed order: each global timeslice summed in long
 *       double site by site (one thread per slice) into its slot, the slots
 *       of the other ranks' slices added as zeros (comm_sum_ld, exact), the
 *       slots added in global t order.  The same bits for any thread and
 *       rank count (collective on a slab), and no double rounding per site
 *       on an 8^4 sum.
 * Threads: OpenMP over sites; each site writes only its own entries. */
#ifndef LAT_HMC_MOMENTA_H
#define LAT_HMC_MOMENTA_H

#include "lattice/field.h"
#include <stdint.h>

double *hmc_momenta_alloc(const struct field *u);
void hmc_momenta_draw(double *p, const struct field *u, uint64_t seed, uint32_t trajectory);
double hmc_kinetic_energy(const double *p, const struct field *u);
void hmc_link_update(struct field *u, const double *p, double eps);
long double hmc_site_sum(const struct field *u, long double (*f)(const void *ctx, int64_t site), const void *ctx);
/* the owned local sites of u: [begin, end) (V3 .. V3 (lt+1) on a slab) */
int64_t hmc_owned_begin(const struct field *u);
int64_t hmc_owned_end(const struct field *u);

#endif
