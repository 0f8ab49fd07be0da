/* hmc/staggered_monomial.h -- N_f flavours of unimproved staggered quarks
 * as terms of the HMC Hamiltonian (SPEC §9; the seed paper
 * staggered-rhmc-gpu eqs. (3)-(5), (10)-(11)), with the measurements lat-hmc
 * makes on the same operator (dirac/staggered.h).
 *
 * One monomial holds npf pseudofermion fields phi_k on the even sites, each
 * with the power nf/(4 npf) of det (M^dag M)_ee (= det M for the 4 tastes):
 *   S = sum_k phi_k^dag K^(-nf/(4 npf)) phi_k,   K = (M^dag M)_ee = m^2 - D_eo D_oe.
 * Exact mode (params.heatbath NULL, only for nf = 4 npf): the power is -1,
 *   refresh: chi Gaussian on ALL sites (E|chi_i|^2 = 1 per complex entry),
 *            phi = (M^dag chi)_e = m chi_e - D_eo chi_o;
 *   action:  phi^dag K^-1 phi (CG, tol_metropolis).
 *   The identity right after refresh: M^dag M is block diagonal, so
 *     chi^dag chi = phi^dag K^-1 phi + psi^dag K_oo^-1 psi,
 *     psi = (M^dag chi)_o, K_oo = m^2 - D_oe D_eo,
 *   i.e. S is the part of |chi|^2 in the range of (M^dag)_e (test_staggered).
 * Rational mode: r = a0 + sum_i a_i/(x + b_i) (rational/rational.h),
 *   refresh: eta Gaussian on the even sites, phi = r_hb(K) eta;
 *   action:  phi^dag r_metropolis(K) phi;
 *   S after refresh is eta^dag r_hb^2 r_met (K) eta = |eta|^2 up to the
 *   approximations' errors.
 * Force (both modes, the md rational; exact mode: x^-1), with X_i =
 * (K + b_i)^-1 phi from one multi-shift CG and Y_i = D_oe X_i:
 *   d/dt S = sum_i a_i X_i^dag (dD_eo D_oe + D_eo dD_oe) X_i
 *          = 2 Re sum_i a_i X_i^dag dD_eo Y_i          (D, dD anti-Hermitian),
 *   so for U_mu(y) -> exp(tX) U_mu(y), with U' the folded link (eta and the
 *   boundary sign, dirac/staggered.h), G_mu(y) = TA(W), TA the traceless
 *   anti-Hermitian part, and
 *     y even: W = U'_mu(y) sum_i a_i Y_i(y+mu) X_i(y)^dag,
 *     y odd:  W = sum_i a_i Y_i(y) X_i(y+mu)^dag U'_mu(y)^dag
 *   (hmc/monomial.h's convention: Re tr(X G) = d/dt S).
 * Solves: the double multi-shift CG on the normal view of the operator
 * (staggered_solver_op_normal); params.mixed makes the MD solves the
 * mixed multi-shift CG (the shared recursion in single, every pole refined
 * to the MD tolerance with true residuals in double); heatbath and action
 * always in double.  A solve
 * that does not converge ends the program (lat_die): the Hamiltonian would
 * be wrong otherwise.
 *
 * Random numbers: RNG_PSEUDOFERMION, stream (seed, copy k = pseudofermion
 * index, site = global site, sweep = trajectory); each site draws its n
 * complex numbers as (re, im) pairs of rng_normal / sqrt 2
 * (staggered_gaussian).  Noise of the condensate: RNG_NOISE, copy = noise
 * vector index, sweep = trajectory, complex Z2 entries (+-1 +- i)/sqrt 2.
 *
 * Over MPI ranks (u_shape->dom set: the slab of lattice/geometry.h) the
 * monomial's operator, fields and solves live on the slab: phi holds the
 * owned even sites, the noise is keyed by the global site, the force is
 * written for the owned links (X_i, Y_i with their halo slices for the hops
 * to y + mu), and every sum -- the solvers', the action's dot products, the
 * condensate's and the power iteration's -- goes through the solvers'
 * reduction with one slot per global timeslice (staggered_reduce_layout):
 * the same bits for any R.  Every call is then collective.
 *
 * Exported:
 *   staggered_monomial_create/_free   the monomial (refuses bad parameters
 *                                     with a one-line reason in why)
 *   staggered_monomial_take_solve_seconds  the time its solves took
 *   Solver backend: params.gpu NULL solves on the CPU as above; set, the
 *   same solves (same views, tolerances, precisions) run on the GPU
 *   (hmc/staggered_gpu_solver.h) and only the solutions come back.  With
 *   params.gpu set the monomial also has the device callbacks refresh_gpu,
 *   action_gpu, force_gpu (hmc/monomial.h; staggered_monomial_gpu.c): the
 *   same formulas, noise streams, solves and tolerances on device fields,
 *   the per-site formulas shared with the host loops
 *   (hmc/staggered_monomial_site.h); their pseudofermions live on the
 *   device, apart from the host callbacks' (refresh with the one you then
 *   use).
 *   staggered_gaussian               the pseudofermion noise of one site set
 *   staggered_condensate             (1/V) Re Tr M^-1 (staggered_measure.c)
 *   staggered_spectral_range         [lo, hi] of K (staggered_measure.c) */
#ifndef LAT_HMC_STAGGERED_MONOMIAL_H
#define LAT_HMC_STAGGERED_MONOMIAL_H

#include "hmc/monomial.h"
#include "rational/rational.h"
#include <stddef.h>
#include <stdint.h>

struct field;
struct staggered_op;
struct staggered_gpu_solver;

struct staggered_monomial_params {
    double mass; int nf; int npf;          /* npf pseudofermion fields, each with power nf/(4 npf) */
    const struct rational *heatbath;       /* x^(+nf/(8 npf)); NULL: exact mode, only when nf == 4*npf (phi = M^dag chi restricted to even sites) */
    const struct rational *md;             /* x^(-nf/(4 npf)) for the force */
    const struct rational *metropolis;     /* x^(-nf/(4 npf)) at high accuracy for the action */
    double tol_md, tol_metropolis;         /* relative CG residuals (e.g. 1e-8, 1e-12) */
    int mixed;                             /* 1: MD solves by the mixed (single) multi-shift CG; heatbath/action always double */
    int max_iter; int timescale;
    /* NULL: the solves run on the CPU.  Otherwise the solver backend of
     * lat-hmc --device gpu (hmc/staggered_gpu_solver.h, the caller's, made
     * for the same mass, on the same lattice or slab): every solve (heatbath, action, MD)
     * runs there, the links uploaded before a solve whenever they changed;
     * the host callbacks' formulas stay on the CPU, the device callbacks
     * (refresh_gpu, action_gpu, force_gpu) keep everything on the GPU */
    struct staggered_gpu_solver *gpu;
};

/* 0, or -1 with a one-line reason in why[len]: mass not > 0, nf or npf < 1,
 * exact mode with nf != 4 npf, a missing rational or one of the wrong power
 * (num/den), order out of [0, RATIONAL_MAX_ORDER], a shift < 0 or a
 * coefficient not finite, tolerances not in (0, 1), max_iter < 1, a link
 * field the staggered operator refuses.  In exact mode md and metropolis may
 * be NULL (then x^-1 exactly).  The rationals are copied; u_shape gives the
 * lattice and N. */
int staggered_monomial_create(struct hmc_monomial *m, const struct staggered_monomial_params *p,
                              const struct field *u_shape, char *why, size_t len);
void staggered_monomial_free(struct hmc_monomial *m);
/* wall-clock seconds (clock_gettime) in the monomial's solves since the
 * last call, and reset: md the force's multi-shift solves, other the
 * heatbath's and the action's (with --device gpu the transfers included) */
void staggered_monomial_take_solve_seconds(const struct hmc_monomial *m, double *md, double *other);

/* the noise above on the sites of parity 0 or 1 (a half field) or all
 * sites (parity -1, a full field) of op's lattice: Gaussian (purpose
 * RNG_PSEUDOFERMION) or complex Z2 (RNG_NOISE) */
void staggered_gaussian(const struct staggered_op *op, int parity, uint64_t seed, uint32_t copy, uint32_t trajectory,
                        double *out);
void staggered_z2(const struct staggered_op *op, int parity, uint64_t seed, uint32_t copy, uint32_t trajectory,
                  double *out);

/* The chiral condensate of one staggered field (4 tastes), (1/V) Re Tr M^-1,
 * trace over sites and colour (divide by 4 per taste; N_f flavours of the
 * rooted theory: times N_f/4).  Tr M^-1 = 2 m Tr K^-1 (M^-1 = M^dag (M
 * M^dag)^-1 has D's off-parity terms traceless, and K_oo has K's spectrum),
 * estimated as 2 m Re eta^dag K^-1 eta / V over nnoise complex Z2 vectors
 * eta on the even sites (E eta eta^dag = 1); *err the standard error of the
 * mean (NAN for nnoise < 2); *iters the CG iterations spent (may be NULL).
 * mass > 0, nnoise >= 1 (lat_die otherwise). */
double staggered_condensate(const struct field *u, double mass, int nnoise, uint64_t seed, uint32_t trajectory,
                            double *err, long *iters);
/* the same with its CG on the GPU solver gpu (NULL: the CPU; gpu's mass
 * must be mass, its links u's: staggered_gpu_solver_set_links, which the
 * caller does once for this and staggered_spectral_range_on) */
double staggered_condensate_on(const struct field *u, double mass, int nnoise, uint64_t seed, uint32_t trajectory,
                               double *err, long *iters, struct staggered_gpu_solver *gpu);
/* estimated [lo, hi] of (M^dag M)_ee: lo = m^2 (a bound: D anti-Hermitian),
 * hi = STAGGERED_SPECTRAL_SAFETY x the power-iteration estimate of the largest eigenvalue, never
 * above m^2 + 16 (a bound: |D| <= 4, 8 hops of norm 1/2) */
#define STAGGERED_SPECTRAL_SAFETY 1.1
void staggered_spectral_range(const struct field *u, double mass, double *lo, double *hi);
/* the same with the power iteration on the GPU solver gpu (NULL: the CPU;
 * gpu's mass must be mass, its links u's, as for staggered_condensate_on); the estimate
 * within rounding of the CPU's (the GPU's sums run in another order) */
void staggered_spectral_range_on(const struct field *u, double mass, double *lo, double *hi, struct staggered_gpu_solver *gpu);

#endif
