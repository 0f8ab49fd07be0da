/* dirac/staggered_gpu.h -- the staggered operator of dirac/staggered.h on
 * one GPU (SU(3); one process, or one GPU per rank on t-slabs): K = (M^dag M)_ee = m^2 - D_eo D_oe on even
 * half fields in double, single and half storage, and the struct
 * solver_op views the solvers need (issue 21: lat-hmc's solver on the
 * device).  Plain C interface; the kernels are staggered_gpu_{d,s}.cu
 * (device code: staggered_gpu_kernel.cuh), the host side staggered_gpu.c.
 *
 * Links: gpu_field (gpu/field.h) copies of the plain links U (no eta, no
 * boundary sign), in double ('d') and float ('s') storage, compressed as
 * `recon` says: 12 (two rows, the third rebuilt), 18 (whole) or 8
 * (su3_pack8).  The kernels multiply eta_mu(x) and the antiperiodic t sign
 * (staggered_phase_coords of staggered_site.h) on the fly, so the operator
 * is exactly dirac/staggered.h's.  Arithmetic: double for double vectors,
 * float for single and half vectors (half: QUDA's compute in single, store
 * in 16 bits; the float links).
 *
 * Vectors: device memory in gpu/spinor.h's layout with site_reals 6 (ncomp
 * 8: reals 6, 7 of each site padding, kept zero), sites in staggered.h's
 * half-index order (site x has half index x/2), double, float, or half =
 * int16 with one float norm per site (solvers/half.h's format: the CPU's
 * half_block_encode, one site a block).  An even half field has V/2 sites;
 * the normal view's vectors have V sites, [even half | odd half] (site
 * V/2 + i is odd half index i).  The kernels write only the sites of their
 * range: padding sites and reals stay as allocated (zero).
 *
 *   staggered_gpu_create(cpu, u, recon, why, len)  the operator of cpu's
 *       mass on u (the double links cpu was made from: same lattice,
 *       SU(3), the whole lattice or this rank's slab); recon 0 (12), 12,
 *       18 or 8.  NULL with a one-line reason in why[len]: no GPU (or a
 *       build without CUDA), not SU(3), another lattice, an odd number of
 *       timeslices per rank, a bad recon.  On a slab (u->dom set,
 *       collective): the device holds the owned slices, vectors are the
 *       owned half fields (the CPU slab operator's order: owned site s at
 *       half index s/2), eta and the antiperiodic sign those of the global
 *       site, and every application exchanges the faces of its input with
 *       the neighbour ranks (device to device through gpu/peer.h, else
 *       through the host; LAT_GPU_HALO=host chooses the host), so it is
 *       collective: every rank applies in the same order.  Sums over the
 *       vectors: open the GPU vector kernels with staggered_reduce_layout
 *       (one slot per global timeslice: the same bits for any R).
 *   staggered_gpu_set_links(g, u)   new links of the same lattice or slab
 *       (the HMC)
 *   staggered_gpu_set_links_device(g, u)   the same from a device field u
 *       (hmc/gpu.h's: SU(3), 'd', 18 reals, g's lattice; on a slab the
 *       HMC's slab field: g's slices with a halo slice on each side,
 *       L[3] = lt + 2, site0 = (t0 - 1) V3; else exit 1, one line; the
 *       halo slices are not read), converted on the device into the double and float storage
 *       (the bits gpu_field_upload stores from the same links), no host
 *       copy (staggered_gpu_fields.c, kernel staggered_gpu_links.cu)
 *   staggered_gpu_hop_d(g, parity, alpha, out, out_off, in, in_off, beta,
 *       loc, loc_off)   for the sites x of parity p = parity, in double:
 *       out[out_off + x/2] = alpha (D_{p,1-p} in)(x) + beta loc[loc_off + x/2]
 *       with D staggered_hop's (half the hop sum; in(y) = in[in_off + y/2])
 *       and no beta term when loc is NULL; device vectors as below, out not
 *       overlapping in or loc (one kernel, asynchronous)
 *   staggered_gpu_free(g)
 *   staggered_gpu_half_sites(g)     V/2
 *   staggered_gpu_ee_apply(g, prec, out, in)   out = K in; prec the
 *       storage of both (SOLVER_DOUBLE, _SINGLE, _HALF); out, in (and for
 *       half their norms) device pointers of V/2 sites; out != in.  Two
 *       kernels, one thread per output site: t_o = D_oe in (into the
 *       operator's odd scratch of that precision), out = m^2 in - D_eo t_o.
 *       One application at a time per operator (the scratch).
 *   staggered_gpu_solver_op_ee(s, g)   A = K (Hermitian: apply = apply_dag,
 *       apply_f = apply_dag_f, apply_vec for every precision; n = 6 V/2,
 *       site_reals 6): for solver_cg, like staggered_solver_op_ee.
 *   staggered_gpu_solver_op_normal(s, g)   A = M^dag P_e on [even | odd]
 *       vectors of V sites (n = 6 V), A^dag = P_e M: for
 *       solver_multishift_cg, which builds A^dag A = diag(K, 0) from A and
 *       A^dag (the view staggered_solver_op_normal gives on the CPU; the
 *       _ee view would give K^2 there).  Double, single, apply_vec.
 * Every application is asynchronous on the default stream (the solvers'
 * vector kernels follow it there).  A CUDA error ends the program with one
 * line (gpu/util.cu). */
#ifndef LAT_DIRAC_STAGGERED_GPU_H
#define LAT_DIRAC_STAGGERED_GPU_H

#include "dirac/staggered.h"
#include "solvers/solvers.h"
#include "lattice/field.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct staggered_gpu;
struct gpu_field;

struct staggered_gpu *staggered_gpu_create(const struct staggered_op *cpu, const struct field *u, int recon, char *why,
                                           size_t len);
void staggered_gpu_set_links(struct staggered_gpu *g, const struct field *u);
void staggered_gpu_set_links_device(struct staggered_gpu *g, const struct gpu_field *u);
void staggered_gpu_hop_d(struct staggered_gpu *g, int parity, double alpha, double *out, int64_t out_off, const double *in,
                         int64_t in_off, double beta, const double *loc, int64_t loc_off);
void staggered_gpu_free(struct staggered_gpu *g);
int64_t staggered_gpu_half_sites(const struct staggered_gpu *g);
int staggered_gpu_recon(const struct staggered_gpu *g);
void staggered_gpu_ee_apply(struct staggered_gpu *g, enum solver_prec prec, struct solver_vec *out,
                            const struct solver_vec *in);
void staggered_gpu_solver_op_ee(struct solver_op *s, struct staggered_gpu *g);
void staggered_gpu_solver_op_normal(struct solver_op *s, struct staggered_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
