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
 *
 * The same scheme on one GPU (hmc/gpu.h's device fields: links U, momenta
 * P; SU(3); one process, or one GPU per rank on t-slabs, every call then
 * collective): the kicks call each monomial's force_gpu into P,
 * the drifts hmc_gpu_link_update, the energies hmc_gpu_kinetic_energy and
 * action_gpu; steps, kicks and drifts are the host's code (one copy, a
 * device flag), so both paths make the same sequence of calls.
 *   hmc_on_device(m, nm)                     1 if every monomial has its
 *       device callbacks (action_gpu, force_gpu, and refresh_gpu where it
 *       has refresh), else 0
 *   hmc_integrate_gpu(it, m, nm, U, P, timing)   evolve (U, P) over it->tau
 *   hmc_hamiltonian_gpu(m, nm, U, P, s)      T + sum_m S_m on the device
 *   hmc_trajectory_gpu(par, m, nm, U, traj, res, timing)  hmc_trajectory
 *       on the device: momenta drawn there (hmc_gpu_momenta_draw: the same
 *       numbers), refresh_gpu, H0, a device copy of U, integrate, H1, dH,
 *       the same Metropolis number (drawn on the host), U restored from
 *       the copy on reject; nothing crosses to the host but the scalars.
 * The device functions refuse (exit 1, one line, "GPU HMC") a monomial
 * without device callbacks; every integrator refuses md_steps or substeps
 * below 1.  Timings on the device wait for the kernels (hmc_gpu_sync) around
 * each force and link update.
 *
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
#include "gpu/field.h"
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

int hmc_on_device(const struct hmc_monomial *m, int nm);
void hmc_integrate_gpu(const struct hmc_integrator *it, const struct hmc_monomial *m, int nm, struct gpu_field *u,
                       struct gpu_field *p, struct hmc_timing *timing);
double hmc_hamiltonian_gpu(const struct hmc_monomial *m, int nm, const struct gpu_field *u, const struct gpu_field *p,
                           double *s);
void hmc_trajectory_gpu(const struct hmc_params *par, const struct hmc_monomial *m, int nm, struct gpu_field *u,
                        uint32_t traj, struct hmc_result *res, struct hmc_timing *timing);

#endif
