/* hmc/gpu.h -- the gauge part of an HMC trajectory on the GPU (SU(3),
 * double): momenta, kinetic energy, link update, Wilson gauge force and
 * action, device copies, all on device fields (the 2MN integrator over
 * them is integrator.h's hmc_trajectory_gpu), with the
 * formulas and conventions of the CPU HMC (hmc/monomial.h, momenta.h,
 * gauge.h, integrator.h; the per-link formulas of hmc/site.h, the
 * plaquettes of lattice/observables_site.h, the staples of heatbath/link.h).
 *
 * Device fields: struct gpu_field (gpu/field.h) of u's lattice: the whole
 * periodic lattice on one process, or on a slab of an MPI run (u->dom,
 * lattice/geometry.h: one GPU per rank, an even number lt of owned
 * timeslices) the local lattice Lx Ly Lz (lt + 2) with both halo slices;
 * N = 3, storage 'd', recon GPU_RECON_FULL (18 reals: the
 * exponentiated links drift off SU(3) at 1e-15 and a reconstruction would
 * hide that).  The links U, the momenta P and forces F all have this shape:
 * P_mu(x) is the full anti-Hermitian traceless 3 x 3 matrix (18 reals, the
 * host layout of momenta.h) in link slot mu of x.
 *
 *   hmc_gpu_field_create(f, u)    such a field for u's lattice or slab
 *                                 (zeroed; exit 1, one line, if u is not
 *                                 SU(3) or its slab has an odd lt)
 *   hmc_gpu_field_free(f)         free it (without CUDA: nothing to free; a
 *                                 slab's links field that was refreshed:
 *                                 collective, its halo's peers unmapped)
 *   hmc_gpu_field_like(f, g)      such a field for g's lattice and slab (zeroed)
 *   hmc_gpu_copy(dst, src)        dst <- src, device to device
 *   hmc_gpu_sync()                wait for the queued kernels (timings)
 *   hmc_gpu_links_upload/_download(f, u)          links to and from u
 *   hmc_gpu_momenta_upload/_download(f, p, u)     a host momentum array
 *                                 (momenta.h layout, u's lattice) to and from f
 *   hmc_gpu_zero(f)               every matrix 0
 *   hmc_gpu_momenta_draw(P, seed, traj)   hmc_momenta_draw's numbers: the
 *                                 stream rng_init(seed, mu, site, traj,
 *                                 RNG_MOMENTA), hmc_site_momentum
 *   hmc_gpu_kinetic_energy(P)     T = -1/2 sum tr P^2
 *   hmc_gpu_link_update(U, P, eps)        U <- exp(eps P) U
 *   hmc_gpu_gauge_force(U, beta, coeff, F)  F += coeff G, G the Wilson force
 *                                 of gauge.h (-(beta/3) TA(U A))
 *   hmc_gpu_momenta_add(P, eps, F)  P += eps F (the kick dP/dt = G with F
 *                                 holding G: monomial.h's sign)
 *   hmc_gpu_gauge_action(U, beta) S = beta sum_P (1 - Re tr U_P / 3)
 *   hmc_gpu_links_refresh(U)      a slab's halo slices from the neighbours'
 *                                 owned links (collective; one rank: nothing)
 *   hmc_gpu_replicas_gather(parts, staging)  over the replicas of
 *                                 base/comm.h (collective): parts[0..R-1],
 *                                 fields of one shape, part comm_replica()
 *                                 this replica's; afterwards every part is
 *                                 its replica's, here too (device -> host,
 *                                 comm_replica_gather, host -> device through
 *                                 *staging, R x the field's bytes, allocated
 *                                 at the first call; the caller frees it)
 * The fields of one call must be different fields of one lattice (and
 * slab), each made by hmc_gpu_field_create or _like (else exit 1 with one
 * line).
 * On a slab: every site kernel (draw, update, force, add) works on the owned
 * slices 1..lt only (the field's h0, h1 are their half indices; the halo
 * slices of momenta and forces are never written or read); the momenta
 * draw keys its streams by the global site (site0 + local site), so any R
 * draws one process's numbers.  The links' halo slices hold the neighbours'
 * links of global slices t0 - 1 and t0 + lt, all four directions and both
 * parities (the force's staples read all four below and the spatial ones
 * above, the plaquettes the spatial ones above): hmc_gpu_link_update calls
 * hmc_gpu_links_refresh after every update (so every rank must call it
 * together); hmc_gpu_links_upload takes the halo slices of the host field
 * as they are (a field of geometry_scatter or after field_halo_refresh has
 * them current); hmc_gpu_copy copies them too.  The exchange is
 * gpu/halo.cu's (device to device through gpu/peer.h on one node, else, or
 * with LAT_GPU_HALO=host, through pinned host memory and MPI): four rounds,
 * one per direction mu, of four parts (slice 1 down, slice lt up, each
 * parity).
 * Sums (T, S) are deterministic and the same bits for every R: per global
 * timeslice, its 2 V3h sites cut into hmc_gpu_pieces(V3h) blocks of
 * GPU_RED_BS threads (set by V3h alone), a fixed tree per block
 * (gpu/reduce.cuh), the blocks added on the host in order in long double
 * into the timeslice's slot of an Lt array, the slots summed over the ranks
 * (comm_sum_ld: each slot has one non-zero contribution) and added in
 * global t order: the CPU's long-double sums (hmc_site_sum: the same
 * per-timeslice slots) to ~1e-14 relative.
 * Without CUDA (make CUDA=0) every entry point ends the program with one
 * line ("built without CUDA", exit 1); callers ask gpu_available first. */
#ifndef LAT_HMC_GPU_H
#define LAT_HMC_GPU_H

#include "gpu/field.h"
#include "lattice/field.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void hmc_gpu_field_create(struct gpu_field *f, const struct field *u);
void hmc_gpu_field_free(struct gpu_field *f);
void hmc_gpu_field_like(struct gpu_field *f, const struct gpu_field *g);
void hmc_gpu_copy(struct gpu_field *dst, const struct gpu_field *src);
void hmc_gpu_sync(void);
void hmc_gpu_links_upload(struct gpu_field *f, const struct field *u);
void hmc_gpu_links_download(const struct gpu_field *f, struct field *u);
void hmc_gpu_momenta_upload(struct gpu_field *f, const double *p, const struct field *u);
void hmc_gpu_momenta_download(const struct gpu_field *f, double *p, const struct field *u);
void hmc_gpu_zero(struct gpu_field *f);
void hmc_gpu_momenta_draw(struct gpu_field *p, uint64_t seed, uint32_t trajectory);
double hmc_gpu_kinetic_energy(const struct gpu_field *p);
void hmc_gpu_link_update(struct gpu_field *u, const struct gpu_field *p, double eps);
void hmc_gpu_gauge_force(const struct gpu_field *u, double beta, double coeff, struct gpu_field *f);
void hmc_gpu_momenta_add(struct gpu_field *p, double eps, const struct gpu_field *f);
double hmc_gpu_gauge_action(const struct gpu_field *u, double beta);
void hmc_gpu_links_refresh(struct gpu_field *u);
void hmc_gpu_replicas_gather(struct gpu_field *parts, double **staging);

/* ---- the kernels' launchers (gpu_d.cu; the host emulation has its own):
 * the site kernels cover the field's h0..h1 (0, 0: all); the sums the local
 * timeslices t0 .. t0 + nt - 1, nsub = hmc_gpu_pieces(V3h) blocks each:
 * partials, nt nsub doubles, block b = piece b % nsub of slice t0 + b / nsub */
static inline int hmc_gpu_pieces(int64_t v3h) /* 4 x GPU_RED_BS (256) sites a block, 1 .. 32 */
{
    int64_t n = (2 * v3h + 1023) / 1024;
    return n < 1 ? 1 : n > 32 ? 32 : (int)n;
}
void hmc_gpu_draw_d(const struct gpu_field *p, uint64_t seed, uint32_t trajectory);
void hmc_gpu_kinetic_d(const struct gpu_field *p, int t0, int nt, int nsub, double *partials);
void hmc_gpu_update_d(const struct gpu_field *u, const struct gpu_field *p, double eps);
void hmc_gpu_force_d(const struct gpu_field *u, double c, const struct gpu_field *f);
void hmc_gpu_add_d(const struct gpu_field *p, double eps, const struct gpu_field *f);
void hmc_gpu_plaquette_d(const struct gpu_field *u, int t0, int nt, int nsub, double *partials);
void hmc_gpu_copy_d(const struct gpu_field *dst, const struct gpu_field *src, size_t bytes);
void hmc_gpu_sync_d(void);

#ifdef __cplusplus
}
#endif

#endif
