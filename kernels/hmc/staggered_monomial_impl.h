/* hmc/staggered_monomial_impl.h -- private to the staggered monomial: its
 * state, shared by the host callbacks (staggered_monomial.c) and the device
 * callbacks (staggered_monomial_gpu.c).
 *
 *   struct stag_mono          the monomial's context (hmc_monomial.ctx)
 *   stag_mono_account(c, r, res, tol, what, t0)   after a multi-shift solve
 *       of rational r: the iterations (the most of any pole) into c->iters,
 *       every pole converged (else lat_die, one line), the seconds since t0
 *       into c->solve_md (r == &c->md) or c->solve_other
 *   stag_mono_refresh_gpu / _action_gpu / _force_gpu   the device callbacks
 *       of hmc/monomial.h (staggered_monomial_gpu.c; set by
 *       staggered_monomial_create when params.gpu is set)
 *   stag_mono_gpu_free(c)     the device fields of those (none: no-op)
 *   stag_mono_gpu_phi(c, k)   the device pseudofermion phi_k (for tests)
 *   struct stag_mono_poles, stag_mono_gpu_{noise,lincomb,force}_d   the
 *       device kernels' launchers (below) */
#ifndef LAT_HMC_STAGGERED_MONOMIAL_IMPL_H
#define LAT_HMC_STAGGERED_MONOMIAL_IMPL_H

#include "hmc/staggered_monomial.h"
#include "solvers/solvers.h"
#include "base/comm.h"
#include <stdint.h>

struct gpu_field;
struct geometry;

struct stag_mono_dev; /* staggered_monomial_gpu.c */

struct stag_mono {
    struct staggered_monomial_params p;
    struct rational hb, md, met; /* hb unused in exact mode */
    int exact;
    struct staggered_op *op;
    struct solver_blas *blas;      /* the normal view's vectors: [even | odd] */
    struct solver_blas *blas_half; /* even half fields (the action's dot products) */
    double **phi;                /* npf even half fields (the host path's) */
    long iters;
    const struct field *links;   /* the links of the current callback */
    int gpu_links_stale;         /* with p.gpu: the links changed since the last upload */
    double solve_md, solve_other; /* seconds (staggered_monomial_take_solve_seconds) */
    struct stag_mono_dev *dev;   /* the device path's fields (NULL until its first call) */
    const struct geometry *dom;  /* the links' t-slab (NULL: one process) */
    int ltg;                     /* global timeslices */
    double *fparts;              /* host force: comm_replicas() parts of a momentum array (first force call) */
};

/* Pseudofermions over replicas (base/comm.h: lat-hmc --split
 * pseudofermions): replica r refreshes, solves and differentiates the
 * fields k with k % R == r (R = comm_replicas(); one replica: every k).
 * The action is the sum over k, in k order, of each field's part, made
 * on its replica (stag_mono_action_total); the force of each field goes
 * into a zeroed part of its own, the parts of a round of R fields are
 * gathered on every replica and added to the momenta in k order -- the
 * same additions for every R, so R replicas give one process's bits. */
static inline int stag_mono_mine(int k) { return k % comm_replicas() == comm_replica(); }
double stag_mono_action_total(double *parts, int npf);

void stag_mono_account(struct stag_mono *c, const struct rational *r, const struct solver_result *res, double tol,
                       const char *what, double t0);
void stag_mono_refresh_gpu(void *ctx, const struct gpu_field *u, uint64_t seed, uint32_t trajectory);
double stag_mono_action_gpu(void *ctx, const struct gpu_field *u);
void stag_mono_force_gpu(void *ctx, const struct gpu_field *u, double coeff, struct gpu_field *out);
void stag_mono_gpu_free(struct stag_mono *c);
/* the device phi_k ([phi_e | 0], gpu/spinor.h's layout); NULL before the
 * first device callback (the tests read it) */
const double *stag_mono_gpu_phi(const struct stag_mono *c, int k);

/* the device kernels' launchers (staggered_monomial_gpu_d.cu, the host
 * emulation its own; staggered_monomial_gpu_kernel.cuh says what each
 * computes): vectors in gpu/spinor.h's layout, 6 doubles a site; u the
 * HMC's links (hmc/gpu.h) giving the lattice.
 *   noise_d: out = the RNG_PSEUDOFERMION noise of the even half (full 0:
 *            V/2 sites) or of [even | odd] (full 1: V sites), V the owned
 *            sites of u (its slab's owned slices), keyed by the global site
 *   lincomb_d: out_e = a0 eta_e + sum_i a_i x_i (even sites)
 *   face_pack_d: face = the first owned slice's X_i (even sites) and Y_i
 *            (odd sites) of every pole, the forward face the previous
 *            rank's force reads (order 2 x V3h sites x 6 doubles, plain)
 *   force_d: out += coeff G, G the force of the poles' X_i, Y_i on the
 *            owned links; ltg the global number of timeslices (the
 *            antiperiodic sign); poles->face the next rank's face (a slab)
 *            or NULL (one process: periodic in t) */
struct stag_mono_poles {
    int order;
    double a[RATIONAL_MAX_ORDER];
    const double *x[RATIONAL_MAX_ORDER]; /* X_i: even sites 0..V/2-1 */
    const double *y[RATIONAL_MAX_ORDER]; /* Y_i = D_oe X_i: odd half index h at V/2 + h */
    const double *face;                  /* force_d on a slab: the next rank's face_pack_d; else NULL */
};
void stag_mono_gpu_noise_d(const struct gpu_field *u, double *out, int full, uint64_t seed, uint32_t copy,
                           uint32_t trajectory);
void stag_mono_gpu_lincomb_d(int64_t vh, double *out, double a0, const double *eta, const struct stag_mono_poles *poles);
void stag_mono_gpu_face_pack_d(const struct gpu_field *u, const struct stag_mono_poles *poles, double *face);
void stag_mono_gpu_force_d(const struct gpu_field *u, int ltg, double coeff, const struct stag_mono_poles *poles,
                           const struct gpu_field *out);

#endif
