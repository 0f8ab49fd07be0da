/* hmc/integrator.h -- molecular dynamics and one HMC trajectory over a list
 * of monomials (hmc/monomial.h), SPEC §9.
 *
 * Integrator: Omelyan's second-order minimum-norm scheme (2MN; Omelyan,
 * Mryglod & Folk, Comput. Phys. Commun. 151 (2003) 272; Takaishi & de
 * Forcrand, PRE 73 (2006) 036706), one step of size h at time scale k:
 *     P += lam h F_k;  D_k(h/2);  P += (1 - 2 lam) h F_k;  D_k(h/2);  P += lam h F_k
 * with lam = HMC_OMELYAN_LAMBDA and F_k the forces of the monomials of
 * timescale k (the last kick of a step and the first of the next are
 * applied as one, 2 lam h).  D_k(s), the drift over time s, is the link update
 * U <- exp(s P) U on the finest scale, and on a coarser one `substeps`
 * 2MN steps of scale k+1 over s: each step of scale k contains
 * 2 x substeps steps of scale k+1 (substeps in each half).  Scale 0 (the
 * outermost) makes md_steps steps over tau.  The scheme is symmetric, so
 * integrating, flipping P and integrating again returns to the start;
 * its energy error is O(h^2) per trajectory (<dH> ~ h^4).
 *
 *   hmc_integrate(it, m, nm, u, p, timing)   evolve (u, p) over it->tau
 *   hmc_hamiltonian(m, nm, u, p, s)          T + sum_m S_m (s[i]: S of
 *                                            monomial i if s != NULL)
 *   hmc_trajectory(par, m, nm, u, traj, res) one trajectory: momenta from
 *       (seed, traj) (hmc_momenta_draw), refresh() of each monomial, H0,
 *       integrate, H1, dH = (T1 - T0) + sum_m (S1_m - S0_m) (differences
 *       of long-double site sums: accurate at 1e-9 on 8^4), Metropolis:
 *       accepted if dH <= 0 or r < exp(-dH), r = rng_uniform of
 *       rng_init(seed, 0, 0, traj, RNG_ACCEPT) (always drawn); a rejected
 *       trajectory restores the links bit for bit.  The result holds H0,
 *       H1, dH, exp(-dH), accepted, the solver iterations (sum of the
 *       monomials' iterations(), 0 without) and timings.
 * Deterministic: the same (seed, traj, links) give the same bits for any
 * thread count (every sum is hmc_site_sum's fixed order) and, on the
 * t-slabs of MPI ranks (u->dom set; every call collective), any number of
 * ranks: the momenta are keyed by global site, the energies are global
 * sums, the accept number is the same on every rank, and a rejected
 * trajectory restores the slab with its halo slices. */
#ifndef LAT_HMC_INTEGRATOR_H
#define LAT_HMC_INTEGRATOR_H

#include "hmc/monomial.h"
#include "lattice/field.h"
#include <stdint.h>

#define HMC_OMELYAN_LAMBDA 0.1931833275037836
#define HMC_MAX_MONOMIALS 16

struct hmc_integrator {
    double tau;    /* trajectory length */
    int md_steps;  /* 2MN steps of timescale 0 over tau (>= 1) */
    int substeps;  /* steps of scale k+1 per drift of scale k (>= 1) */
};

/* seconds spent, summed over the calls that were given it */
struct hmc_timing {
    double force[HMC_MAX_MONOMIALS]; /* force() of monomial i */
    double update;                   /* link updates */
    double energy;                   /* momenta, refresh, actions, accept/restore */
    long force_calls[HMC_MAX_MONOMIALS];
};

struct hmc_params {
    struct hmc_integrator it;
    uint64_t seed;
};

struct hmc_result {
    double H0, H1, dH, exp_minus_dH, uniform;
    int accepted;
    long iterations;
    double seconds;
};

void hmc_integrate(const struct hmc_integrator *it, const struct hmc_monomial *m, int nm, struct field *u,
                   double *p, struct hmc_timing *timing);
double hmc_hamiltonian(const struct hmc_monomial *m, int nm, const struct field *u, const double *p, double *s);
void hmc_trajectory(const struct hmc_params *par, const struct hmc_monomial *m, int nm, struct field *u,
                    uint32_t traj, struct hmc_result *res, struct hmc_timing *timing);

#endif
