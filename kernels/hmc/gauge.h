/* hmc/gauge.h -- the Wilson gauge action as an HMC monomial (SPEC §3, §9).
 *
 *   S = beta sum_P (1 - Re tr U_P / N)
 *
 * The part of S holding one link U = U_mu(x) is -(beta/N) Re tr(U A) with
 * A the staple sum of heatbath/link.h (hb_staple_nu, reused), so along
 * U -> exp(tX) U:  d/dt S = -(beta/N) Re tr(X U A), and the force of the
 * convention of hmc/monomial.h is
 *     G_mu(x) = -(beta/N) TA(U_mu(x) A_mu(x)),
 *     TA(W) = (W - W^dag)/2 - tr(W - W^dag)/(2N)
 * (Re tr(X W) = Re tr(X TA(W)) for every traceless anti-Hermitian X).
 *
 *   hmc_gauge_action(u, beta)           S, from lat-measure's plaquette sum
 *                                       (measure_plaquette_sum: the same
 *                                       bits for any thread count)
 *   (S from a plaquette sum: hmc_gauge_action_of_sum of hmc/site.h, which
 *   the GPU's action uses too)
 *   hmc_gauge_force(u, beta, coeff, f)  f_mu(x) += coeff * G_mu(x)
 *   hmc_gauge_monomial(&ctx, beta, ts)  a struct hmc_monomial for the
 *                                       integrator ("gauge", timescale ts,
 *                                       no refresh, no iterations; device
 *                                       callbacks hmc_gpu_gauge_action and
 *                                       hmc_gpu_gauge_force of hmc/gpu.h); ctx
 *                                       holds beta and must outlive it
 * The whole periodic lattice (u->dom NULL) or a slab (lattice/geometry.h)
 * whose halo slices hold the neighbours' links (hmc_link_update keeps them
 * so): the force is computed on the owned sites, the action is the global
 * sum (collective), the same bits for any R. */
#ifndef LAT_HMC_GAUGE_H
#define LAT_HMC_GAUGE_H

#include "hmc/monomial.h"
#include "lattice/field.h"

struct hmc_gauge_ctx {
    double beta;
};

double hmc_gauge_action(const struct field *u, double beta);
void hmc_gauge_force(const struct field *u, double beta, double coeff, double *out);
struct hmc_monomial hmc_gauge_monomial(struct hmc_gauge_ctx *ctx, double beta, int timescale);

#endif
