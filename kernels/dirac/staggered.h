/* dirac/staggered.h -- the unimproved staggered operator (SPEC §9, the seed
 * paper staggered-rhmc-gpu eq. (4)) on the CPU: M = m + D on full fields,
 * the hops D_eo and D_oe between half fields, and the Hermitian positive
 * (M^dag M)_ee = m^2 - D_eo D_oe on the even sites, in double and single
 * precision, with struct solver_op views for the solvers, on one process or
 * over MPI ranks (the gauge field's t-slabs, lattice/geometry.h).
 *
 * The operator:
 *   D psi(x) = 1/2 sum_mu eta_mu(x) [ U_mu(x) psi(x+mu) - U_mu(x-mu)^dag psi(x-mu) ],
 *   eta_mu(x) = (-1)^(x_0 + ... + x_{mu-1}) (mu = 0..3 = x, y, z, t),
 *   antiperiodic in time: the hops across the t boundary carry -1.
 * D is anti-Hermitian (the phases are real and eta_mu(x-mu) = eta_mu(x)),
 * so M^dag = m - D and M^dag M = m^2 - D^2 >= m^2.  D joins sites of
 * opposite parity ((x+y+z+t) mod 2, every extent even): M^dag M is block
 * diagonal, (M^dag M)_ee = m^2 - D_eo D_oe, and D_eo = -(D_oe)^dag.
 * The operator keeps its own copy of the links with eta_mu(x) and the
 * boundary sign multiplied in (staggered_site.h), in double and rounded
 * once to float.
 *
 * Vectors (double or float, re/im interleaved): a full field has the V
 * owned sites in ILDG order, n = u->nc complex numbers per site (2n reals);
 * a half field holds the V/2 owned sites of one parity in ascending ILDG
 * order (the owned site s has half index s/2, as in dirac/dirac.h).
 *
 * Over MPI ranks (u->dom set, as dirac/dirac.h): the operator keeps the
 * links of its slab and the two halo slices (fetched by staggered_create
 * and staggered_set_links: collective), and neighbour tables over the local
 * slab; the public vectors hold the owned sites only (the whole lattice's
 * order restricted to the owned timeslices); every application copies its
 * input into a local field with halo slices, exchanges the boundary slices
 * with the neighbour ranks and runs the site loop over the owned sites:
 * each site gets the bits one process gives it.  Every application is
 * collective (all ranks call it, in the same order).  Parity, eta and the
 * boundary sign are those of the global site.  staggered_reduce_layout
 * gives the solvers one reduction slot per global timeslice (and parity),
 * so norms, dot products and iterations do not depend on R.
 *
 * Threads: OpenMP over output sites, no reductions: the same bits for any
 * thread count.  An operator holds scratch space for (M^dag M)_ee, so one
 * application at a time runs on one staggered_op.
 *
 * Flop counts (bench/staggered.c): D on one site 570 (SU(3)); (M^dag M)_ee
 * per even site 2 x 570 + 12 (the m^2 x - y). */
#ifndef LAT_DIRAC_STAGGERED_H
#define LAT_DIRAC_STAGGERED_H

#include "solvers/solvers.h"
#include "lattice/field.h"
#include <stddef.h>
#include <stdint.h>

struct staggered_op;

/* The operator of mass m (finite, >= 0) on the double links u (FIELD_LINKS,
 * prec 64, the whole lattice (u->dom NULL) or this rank's slab, every
 * global extent even, 2 <= N <= LAT_NC_MAX).  NULL with a one-line reason
 * in why[len] otherwise (the same on every rank).  u is copied, the halo
 * slices fetched from the neighbours whatever u's hold; staggered_set_links
 * copies new links of the same shape (the HMC after each link update).
 * Both collective on a slab. */
struct staggered_op *staggered_create(const struct field *u, double mass, char *why, size_t len);
void staggered_set_links(struct staggered_op *op, const struct field *u);
void staggered_free(struct staggered_op *op);
double staggered_mass(const struct staggered_op *op);
int staggered_nc(const struct staggered_op *op);
/* the local lattice: the whole one, or the slab with its two halo slices */
const struct lattice *staggered_lattice(const struct staggered_op *op);

/* reals of a full and of a half field of the owned sites (2 n V and n V, V
 * the owned sites), and of a local half field (halo slices included) */
size_t staggered_full_reals(const struct staggered_op *op);
size_t staggered_half_reals(const struct staggered_op *op);
size_t staggered_local_half_reals(const struct staggered_op *op);
/* the owned sites V, the local index of the first (0, or V3 on a slab),
 * the global site of an owned one, the global volume */
int64_t staggered_owned_sites(const struct staggered_op *op);
int64_t staggered_owned_offset(const struct staggered_op *op);
int64_t staggered_global_site(const struct staggered_op *op, int64_t owned);
int64_t staggered_global_volume(const struct staggered_op *op);
/* the owned site (index into a full field) of half index i of parity p */
int64_t staggered_half_site(const struct staggered_op *op, int parity, int64_t i);
/* the folded link U'_mu(x) = eta_mu(x) (boundary sign) U_mu(x), double, of
 * the LOCAL site x (owned sites are off .. off+V-1; halo slices included) */
const double *staggered_link(const struct staggered_op *op, int64_t x, int mu);
void staggered_full_to_half(const struct staggered_op *op, int parity, double *half, const double *full);
void staggered_half_to_full(const struct staggered_op *op, int parity, double *full, const double *half);
/* local (staggered_local_half_reals, the local site x at half index x/2)
 * = the owned half field half with its halo slices from the neighbour
 * ranks (collective; on one process a copy) */
void staggered_half_with_halo(const struct staggered_op *op, double *local, const double *half);
/* the solvers' reduction layout (solver_blas_cpu_open): one chunk per
 * global timeslice of a half field (normal 0), or of each half of the
 * normal view's [even | odd] vectors (normal 1: two parts) -- sums with the
 * same bits on any number of ranks */
void staggered_reduce_layout(const struct staggered_op *op, int normal, struct solver_reduce_layout *l);

/* full fields: out = M in, out = M^dag in (out != in) */
void staggered_apply(struct staggered_op *op, double *out, const double *in);
void staggered_apply_dag(struct staggered_op *op, double *out, const double *in);
/* out = D_{p,1-p} in: out a half field of parity p, in one of parity 1-p */
void staggered_hop(struct staggered_op *op, int parity, double *out, const double *in);
void staggered_hop_f(struct staggered_op *op, int parity, float *out, const float *in);
/* even half fields: out = (M^dag M)_ee in = m^2 in - D_eo D_oe in */
void staggered_mdagm_ee(struct staggered_op *op, double *out, const double *in);
void staggered_mdagm_ee_f(struct staggered_op *op, float *out, const float *in);

/* The solver's views (ctx is op, which must outlive s):
 *   _ee: A = (M^dag M)_ee on even half fields, apply = apply_dag (Hermitian):
 *        solver_cg solves (M^dag M)_ee x = b, single precision included;
 *   _normal: A = M^dag P_e on vectors of V sites stored as [even half | odd
 *        half] (P_e keeps the even half): A^dag A = diag((M^dag M)_ee, 0),
 *        so solver_multishift_cg (which solves A^dag A + sigma), given b
 *        with a zero odd half, solves (M^dag M)_ee + sigma on the even half
 *        and leaves the odd half zero (its Krylov vectors never leave the
 *        even half, so sigma = 0 is fine).  Double and single. */
void staggered_solver_op_ee(struct solver_op *s, struct staggered_op *op);
void staggered_solver_op_normal(struct solver_op *s, struct staggered_op *op);

#endif
