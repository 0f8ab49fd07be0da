/* dirac/dirac.h -- the Wilson and Wilson-clover Dirac operators (SPEC §8) on
 * the CPU: M, M^dag, the clover term and its inverse, even-odd (Schur)
 * preconditioning, double and single precision, and their struct solver_op
 * for the solvers.  On one process or over MPI ranks: on a field cut into
 * t-slabs (lattice/geometry.h) every vector below holds this rank's owned
 * sites only (its slab, the same layout as the whole lattice's restricted
 * to the owned timeslices), each application fetches the spinor's halo
 * slices from the neighbour ranks (lattice/halo.h, through base/comm.c) and
 * is collective, and every owned site gets the bits one process gives it.
 *
 * The operator (SPEC §8, in the kappa normalisation):
 *   M psi(x) = A(x) psi(x) - kappa sum_mu [ (1 - gamma_mu) U_mu(x) psi(x+mu)
 *                                         + (1 + gamma_mu) U_mu(x-mu)^dag psi(x-mu) ]
 *            = A psi - kappa D psi,
 *   A(x) = 1 + (i c_sw kappa / 2) sum_{mu,nu} sigma_mu_nu F_mu_nu(x),
 *   sigma_mu_nu = (i/2)[gamma_mu, gamma_nu], gamma_mu the DeGrand-Rossi
 *   matrices (math/spinor.h, written out in lat(7)),
 *   F_mu_nu(x) = (1/8)[Q_mu_nu(x) - Q_mu_nu(x)^dag], Q_mu_nu the four
 *   plaquettes of the (mu,nu) plane at x, each leaf starting at x and run in
 *   the same sense (first mu, then nu: U_mu(x) U_nu(x+mu) U_mu(x+nu)^dag
 *   U_nu(x)^dag is the first).
 * Which sign of the clover term: exactly the one above, which is that of
 * Luescher, Sint, Sommer and Weisz (hep-lat/9605038): their
 * D_w + c_sw (i/4) sigma F with D_w = (1/2){gamma_mu(grad*_mu + grad_mu) -
 * grad*_mu grad_mu} is, times 2 kappa, the same hopping term (1 - gamma_mu)
 * forward and the same + (i c_sw kappa/2) sigma F, with the same
 * sigma_mu_nu and F_mu_nu.  A change of gamma basis moves both terms
 * together, but gamma_mu -> -gamma_mu would flip the hopping projectors and
 * not sigma: the sign is tied to "(1 - gamma_mu) forward".  The free field
 * cannot tell the signs apart (F = 0); the kappa_c study of issue 15 (c_sw =
 * 1.769 at beta = 6.0 must give kappa_c ~ 0.1352) decides it.  A pre-check
 * on one 8^4 beta = 6.0 configuration (lat-heatbath --start hot -n 150 -s 3,
 * plaquette 0.5961), CG on Mhat^dag Mhat to 1e-8: Wilson needs 42, 95, 168
 * iterations at kappa 0.130, 0.145, 0.152; c_sw = +1.769 (this sign) 95,
 * 168, 249 at 0.125, 0.130, 0.134, the opposite sign 47, 56, 66 -- this sign
 * moves kappa_c down from Wilson's (towards 0.135), the other one up.
 *
 * Boundary phases: psi(x + L_mu mu) = e^{i theta_mu} psi(x) -- a hop that
 * crosses the boundary of direction mu forward picks up e^{i theta_mu},
 * backward e^{-i theta_mu}.  dirac_params_default: periodic in space,
 * antiperiodic in time (phase -1).  The operator keeps its own copy of the
 * links with the phase multiplied into U_mu(x) at x_mu = L_mu - 1 (so the
 * backward hop, through U^dag, gets the conjugate); F_mu_nu is computed from
 * the links as given (closed loops: phases of modulus 1 cancel anyway).
 *
 * Vectors (double or float, re/im interleaved):
 *   full spinor field: V sites in ILDG order (x fastest, t slowest), per site
 *     4 spins x nc colours, real index ((site*4 + spin)*nc + colour)*2 + reim
 *     (24 reals per site for SU(3): lattice/field.h's FIELD_SPINOR);
 *   half (even-odd) field: the V/2 sites of one parity ((x+y+z+t) mod 2: 0
 *     even, 1 odd) in ascending ILDG order -- the order in which the
 *     gauge-fixing checkerboard visits them (gaugefix/cpu.h) -- so, Lx being
 *     even, the site s has half index s/2 (integer division), with the same
 *     per-site layout.
 *
 * Even-odd preconditioning (on the odd sites, exact Schur complement):
 *   M = [[A_ee, -kappa D_eo], [-kappa D_oe, A_oo]],
 *   Mhat = A_oo - kappa^2 D_oe A_ee^-1 D_eo       (odd half -> odd half)
 *   Mhat^dag = A_oo - kappa^2 (D^dag)_oe A_ee^-1 (D^dag)_eo,
 *   M x = b  <=>  Mhat x_o = bhat_o,  bhat_o = b_o + kappa D_oe A_ee^-1 b_e,
 *                 x_e = A_ee^-1 (b_e + kappa D_eo x_o).
 * (No A_oo^-1 in front: the solver sees the Schur complement itself, whose
 * residual is the full system's residual on the odd sites.)
 *
 * Precision: every application exists in double (double * vectors, links
 * and clover in double) and in single (_f: float vectors; links, clover and
 * A^-1 rounded once to float at dirac_create, arithmetic in float) -- the
 * same source (dirac/cpu.c) compiled per precision (kernels/cpu/variant.h).
 * Threads: OpenMP over the output sites, no reductions: the same bits for
 * any thread count.  An operator holds scratch space for Mhat, so one
 * application at a time runs on one dirac_op.
 *
 * Flop and byte counts per site (the seed paper's counting, for bench/): a
 * hopping term D 1320 flop (8 spin-projected hops), a clover block pair 504,
 * the final a x + b y 48; so M: 1320 + 48 (Wilson), + 504 (clover); Mhat per
 * odd site: 2 x 1320 + 48 (Wilson), 2 x 1320 + 2 x 504 + 48 = 3696 (clover). */
#ifndef LAT_DIRAC_H
#define LAT_DIRAC_H

#include "solvers/solvers.h" /* struct solver_op: the solver module's operator interface */
#include "lattice/field.h"
#include <stddef.h>
#include <stdint.h>

struct dirac_params {
    double kappa;     /* hopping parameter, > 0 */
    double csw;       /* clover coefficient; 0: Wilson (A = 1) */
    double phase[LAT_ND][2]; /* boundary phase e^{i theta_mu} per direction (re, im), modulus 1 */
};

struct dirac_op;

/* kappa, csw; periodic in x, y, z, antiperiodic in t */
void dirac_params_default(struct dirac_params *p, double kappa, double csw);

/* The operator on the double links field u (FIELD_LINKS, prec 64, the
 * whole lattice or this rank's slab: then collective, and the links of the
 * halo slices are fetched from the neighbours, whatever u's halo holds).
 * Returns NULL with a one-line reason in why[len] (kappa not > 0 or not
 * finite, a phase not of modulus 1, a field of another kind, odd global
 * extents, a singular clover block -- on a slab every rank returns NULL
 * with the same reason).  u is copied (with the phases folded in): it may
 * change or go afterwards. */
struct dirac_op *dirac_create(const struct field *u, const struct dirac_params *p, char *why, size_t len);
void dirac_free(struct dirac_op *op);

/* reals of a full and of a half spinor field of the owned sites (8 nc V
 * and 4 nc V, V the owned sites) */
size_t dirac_full_reals(const struct dirac_op *op);
size_t dirac_half_reals(const struct dirac_op *op);
/* reals of one site of either (8 nc) */
size_t dirac_site_reals(const struct dirac_op *op);
/* the owned global timeslices t0 .. t0+n-1: returns n, sets *t0 */
int dirac_owned_timeslices(const struct dirac_op *op, int *t0);
/* the solvers' reduction layout (solver_blas_cpu_open) for full (half 0)
 * or half fields: one chunk per global timeslice, so sums (norms, dot
 * products) have the same bits on any number of ranks */
void dirac_reduce_layout(const struct dirac_op *op, int half, struct solver_reduce_layout *l);
/* the owned full site (index into a full field) of half index i of parity p */
int64_t dirac_half_site(const struct dirac_op *op, int parity, int64_t i);
/* copy the sites of parity p between a full field and a half field */
void dirac_full_to_half(const struct dirac_op *op, int parity, double *half, const double *full);
void dirac_half_to_full(const struct dirac_op *op, int parity, double *full, const double *half);

/* full lattice: out = M in, out = M^dag in (out != in) */
void dirac_apply(struct dirac_op *op, double *out, const double *in);
void dirac_apply_dag(struct dirac_op *op, double *out, const double *in);
void dirac_apply_f(struct dirac_op *op, float *out, const float *in);
void dirac_apply_dag_f(struct dirac_op *op, float *out, const float *in);

/* the clover term of every site of a full field: out = A in, out = A^-1 in
 * (out != in; A = 1 when c_sw = 0).  dirac_clover_site: the packed A (inv
 * 0) or A^-1 (inv 1) of one site (site.h's layout), NULL when c_sw = 0. */
void dirac_clover_apply(const struct dirac_op *op, double *out, const double *in);
void dirac_clover_inv_apply(const struct dirac_op *op, double *out, const double *in);
const double *dirac_clover_site(const struct dirac_op *op, int64_t site, int inv); /* site: owned index */

/* even-odd: out_o = Mhat in_o, Mhat^dag in_o (half fields of the odd sites) */
void dirac_eo_apply(struct dirac_op *op, double *out, const double *in);
void dirac_eo_apply_dag(struct dirac_op *op, double *out, const double *in);
void dirac_eo_apply_f(struct dirac_op *op, float *out, const float *in);
void dirac_eo_apply_dag_f(struct dirac_op *op, float *out, const float *in);
/* bhat_o (odd half) from the full source b */
void dirac_eo_prepare(struct dirac_op *op, double *bhat_odd, const double *b_full);
/* the full solution x from the odd solution x_o and the full source b */
void dirac_eo_reconstruct(struct dirac_op *op, double *x_full, const double *x_odd, const double *b_full);

/* the solver's view: Mhat on odd half fields, or M on full fields; double
 * and single; ctx is op, which must outlive s */
void dirac_solver_op_eo(struct solver_op *s, struct dirac_op *op);
void dirac_solver_op_full(struct solver_op *s, struct dirac_op *op);

#endif
