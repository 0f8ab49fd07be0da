/* hmc/monomial.h -- one term of the HMC Hamiltonian (gauge action, one
 * pseudofermion field), as the integrator sees it: callbacks, so the
 * integrator never knows what the term is (SPEC §9).
 *
 * Conventions every monomial keeps (the whole HMC depends on them):
 *   - links U_mu(x) as in lattice/field.h (2 N^2 reals, row-major re/im);
 *   - momenta P_mu(x) in su(N): anti-Hermitian, traceless, stored as full
 *     N x N complex matrices (2 N^2 reals), kinetic energy
 *     T = -1/2 sum_{x,mu} tr(P_mu(x)^2) (>= 0);
 *   - the link update is U_mu(x) -> exp(eps P_mu(x)) U_mu(x);
 *   - force: the derivative G_mu(x) in su(N) (anti-Hermitian, traceless)
 *     such that for every X in su(N)
 *         d/dt S(U with U_mu(x) -> exp(t X) U_mu(x)) at t = 0
 *             = Re tr(X G_mu(x)),
 *     so the equations of motion are dU/dt = P U, dP/dt = G and
 *     H = T + S is conserved.  force() ADDS coeff * G to its output.
 *   - the device path (lat-hmc --device gpu, the whole trajectory on one
 *     GPU): refresh_gpu, action_gpu, force_gpu keep the same contracts on
 *     device fields (hmc/gpu.h: links u, momenta and forces as full
 *     anti-Hermitian matrices in link slots); force_gpu adds coeff * G into
 *     out, which the integrator passes as the momenta themselves, as on the
 *     CPU.  A term whose three are NULL has no device path, and the device
 *     integrator refuses it.  Same seed, same trajectory: the same random
 *     fields as the host callbacks (Philox streams keyed alike).
 *   - refresh() draws the monomial's own random fields (pseudofermions) at
 *     the start of a trajectory from Philox streams keyed by (seed,
 *     trajectory); action() is the value S at the current links (after
 *     refresh: at the start, it equals the Gaussian norm drawn). */
#ifndef LAT_HMC_MONOMIAL_H
#define LAT_HMC_MONOMIAL_H

#include <stdint.h>

struct field;
struct gpu_field;

struct hmc_monomial {
    const char *name;   /* "gauge", "staggered-rhmc", ... (for logs) */
    void *ctx;
    int timescale;      /* 0 = outermost (fermions); higher = finer steps */
    /* start of trajectory: draw random fields; NULL if none */
    void (*refresh)(void *ctx, const struct field *u, uint64_t seed, uint32_t trajectory);
    double (*action)(void *ctx, const struct field *u);
    /* out[(x*4+mu)*2N^2 ...] += coeff * G_mu(x) */
    void (*force)(void *ctx, const struct field *u, double coeff, double *out);
    /* solver iterations spent since the last call (for the log); NULL if none */
    long (*iterations)(void *ctx);
    /* the device versions of refresh, action and force (NULL: none) */
    void (*refresh_gpu)(void *ctx, const struct gpu_field *u, uint64_t seed, uint32_t trajectory);
    double (*action_gpu)(void *ctx, const struct gpu_field *u);
    void (*force_gpu)(void *ctx, const struct gpu_field *u, double coeff, struct gpu_field *out);
};

#endif
