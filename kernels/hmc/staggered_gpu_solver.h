/* hmc/staggered_gpu_solver.h -- the staggered monomial's and the
 * condensate's solves on one GPU, or under mpirun on one GPU per rank with
 * the links' t-slabs (lat-hmc --device gpu; issue 16's GPU path,
 * issue 21): host even half fields in, host even half fields out, the
 * Krylov solvers of solvers/solvers.h run in between on the GPU staggered
 * operator (dirac/staggered_gpu.h) with the GPU vector kernels
 * (solvers/blas_gpu.h).  Only the solves move: the callers' formulas
 * (heatbath, action, force, condensate) stay on the CPU with the
 * downloaded solutions -- except for the monomial's device callbacks
 * (hmc/staggered_monomial_gpu.c), which solve on device vectors
 * (staggered_gpu_solver_multishift_device) and keep everything there.
 *
 * Vectors: the CPU's even half fields (dirac/staggered.h's half index
 * x/2, 6 reals a site, V/2 sites) are uploaded into gpu/spinor.h's layout;
 * vectors are [even | odd] storage of V sites (the normal view's, b's odd
 * half zero, kept on the device), and both the multi-shift solve and CG run
 * on their even halves with the _ee view's K (the multi-shift through its
 * Hermitian form, solver_op.hermitian: one K an iteration, V/2-site
 * vectors; the odd halves of its solutions zeroed).  The device
 * copies of the links are refreshed only by staggered_gpu_solver_set_links:
 * call it whenever the links changed.
 *
 *   staggered_gpu_solver_create(u, mass, why, len)  for the double SU(3)
 *       links u of the whole lattice (one process) or of this rank's t-slab
 *       (u->dom; collective, and so is every solve: the operator exchanges
 *       its faces, the sums go over the ranks) and the mass; NULL with a
 *       one-line reason in why[len] (no CUDA, no usable GPU, not SU(3), an
 *       odd number of timeslices per rank, ...).  The links are uploaded.
 *       Vectors on a slab: the owned even half fields (dirac/staggered.h's
 *       slab order), host or device.  Dot products and norms: the GPU
 *       vector kernels opened with staggered_reduce_layout (normal: the
 *       multi-shift's [even | odd]; half: CG), one slot per global
 *       timeslice, so every R (one process included) gives the same bits.
 *   staggered_gpu_solver_free(s)
 *   staggered_gpu_solver_mass(s)
 *   staggered_gpu_solver_set_links(s, u)  new links of the same lattice
 *   staggered_gpu_solver_multishift(s, b, nshift, sigma, x, par, res)
 *       x[i] = (K + sigma[i])^-1 b, K = (M^dag M)_ee, by solver_multishift_cg
 *       (par as there: tol, max_iter, sloppy double/single/half); x[i] are
 *       host even half fields, overwritten; the status of the shared solve
 *   staggered_gpu_solver_cg(s, b, x, par, res)   K x = b by solver_cg, x the
 *       start (host) and the answer
 *   staggered_gpu_solver_multishift_device(s, b, nshift, sigma, x, par, res)
 *       the same solve on device vectors of the normal view (V sites,
 *       [even | odd], 6 doubles a site in gpu/spinor.h's layout): b with a
 *       zero odd half, x[i] overwritten; nothing moves to the host (the
 *       HMC's device path, hmc/staggered_monomial_gpu.c)
 *   staggered_gpu_solver_operator(s), _blas(s)   the GPU operator and the
 *       solvers' GPU vector kernels of the normal view's vectors s works with (the device path applies
 *       the hops and takes its dot products with them)
 *   staggered_gpu_solver_even(s, op)   *op = K on even half fields of the
 *       device (Hermitian: apply = apply_dag), and the GPU vector kernels of
 *       such fields returned (CG's; the spectral range's power iteration,
 *       hmc/staggered_measure.c, which so needs nothing of dirac/'s GPU
 *       code itself: the host emulations link this file without CUDA);
 *       staggered_gpu_solver_upload_even(s, dev, host): a host even half
 *       field into such a device vector (its storage from that blas's alloc)
 *   staggered_gpu_solver_take_transfer_seconds(s)  seconds spent moving
 *       links and vectors between host and device (wall clock, included in
 *       the solves' time by the callers) since the last call; resets
 * Without CUDA (make CUDA=0) create answers NULL, "this lat was built
 * without CUDA"; nothing else is reachable. */
#ifndef LAT_HMC_STAGGERED_GPU_SOLVER_H
#define LAT_HMC_STAGGERED_GPU_SOLVER_H

#include "solvers/solvers.h"
#include <stddef.h>

struct field;
struct staggered_gpu_solver;
struct staggered_gpu;

struct staggered_gpu_solver *staggered_gpu_solver_create(const struct field *u, double mass, char *why, size_t len);
void staggered_gpu_solver_free(struct staggered_gpu_solver *s);
double staggered_gpu_solver_mass(const struct staggered_gpu_solver *s);
void staggered_gpu_solver_set_links(struct staggered_gpu_solver *s, const struct field *u);
enum solver_status staggered_gpu_solver_multishift(struct staggered_gpu_solver *s, const double *b, int nshift,
                                                   const double *sigma, double **x, const struct solver_params *par,
                                                   struct solver_result *res);
enum solver_status staggered_gpu_solver_cg(struct staggered_gpu_solver *s, const double *b, double *x,
                                           const struct solver_params *par, struct solver_result *res);
enum solver_status staggered_gpu_solver_multishift_device(struct staggered_gpu_solver *s, const double *b, int nshift,
                                                          const double *sigma, double **x,
                                                          const struct solver_params *par, struct solver_result *res);
struct staggered_gpu *staggered_gpu_solver_operator(struct staggered_gpu_solver *s);
struct solver_blas *staggered_gpu_solver_blas(struct staggered_gpu_solver *s);
struct solver_blas *staggered_gpu_solver_even(struct staggered_gpu_solver *s, struct solver_op *op);
void staggered_gpu_solver_upload_even(struct staggered_gpu_solver *s, double *dev, const double *host);
double staggered_gpu_solver_take_transfer_seconds(struct staggered_gpu_solver *s);

#endif
