/* hmc/gpu.h -- the gauge part of an HMC trajectory on the GPU (SU(3),
 * double): momenta, kinetic energy, link update, Wilson gauge force and
 * action, device copies, all on device fields (the 2MN integrator over
 * them is integrator.h's hmc_trajectory_gpu), with the
 * formulas and conventions of the CPU HMC (hmc/monomial.h, momenta.h,
 * gauge.h, integrator.h; the per-link formulas of hmc/site.h, the
 * plaquettes of lattice/observables_site.h, the staples of heatbath/link.h).
 *
 * Device fields: struct gpu_field (gpu/field.h) of a whole periodic lattice
 * (no MPI slab), N = 3, storage 'd', recon GPU_RECON_FULL (18 reals: the
 * exponentiated links drift off SU(3) at 1e-15 and a reconstruction would
 * hide that).  The links U, the momenta P and forces F all have this shape:
 * P_mu(x) is the full anti-Hermitian traceless 3 x 3 matrix (18 reals, the
 * host layout of momenta.h) in link slot mu of x.
 *
 *   hmc_gpu_field_create(f, u)    such a field for u's lattice (zeroed;
 *                                 exit 1, one line, if u is not SU(3) on one
 *                                 process)
 *   hmc_gpu_field_free(f)         free it (without CUDA: nothing to free)
 *   hmc_gpu_field_like(f, g)      such a field for g's lattice (zeroed)
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
 * The fields of one call must be different fields of one lattice, each
 * made by hmc_gpu_field_create (else exit 1 with one line).
 * Sums (T, S) are deterministic: a fixed grid (HMC_GPU_RED_NB blocks of
 * GPU_RED_BS threads, set by nothing but these constants), a fixed tree per
 * block (gpu/reduce.cuh), the blocks added on the host in block order, in
 * long double: the CPU's long-double sums to ~1e-14 relative.
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

/* ---- the kernels' launchers (gpu_d.cu; the host emulation has its own):
 * partials: HMC_GPU_RED_NB doubles, one per block, in block order */
#define HMC_GPU_RED_NB 512
void hmc_gpu_draw_d(const struct gpu_field *p, uint64_t seed, uint32_t trajectory);
void hmc_gpu_kinetic_d(const struct gpu_field *p, double *partials);
void hmc_gpu_update_d(const struct gpu_field *u, const struct gpu_field *p, double eps);
void hmc_gpu_force_d(const struct gpu_field *u, double c, const struct gpu_field *f);
void hmc_gpu_add_d(const struct gpu_field *p, double eps, const struct gpu_field *f);
void hmc_gpu_plaquette_d(const struct gpu_field *u, double *partials);
void hmc_gpu_copy_d(const struct gpu_field *dst, const struct gpu_field *src, size_t bytes);
void hmc_gpu_sync_d(void);

#ifdef __cplusplus
}
#endif

#endif
