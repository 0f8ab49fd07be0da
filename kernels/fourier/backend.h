/* fourier/backend.h -- what a backend of Fourier-accelerated gauge fixing
 * offers (the CPU today: fourier/cpu.c; a CUDA one with cuFFT does the same
 * calls).  The driver (fourier/driver.c) owns the iteration -- conjugate
 * gradient, line search, back-off, restarts, stopping rule -- and sees only
 * numbers per timeslice; the backend owns the fields.
 *
 * State of a run: the links U (storage precision), the accumulated
 * transformation g (always for Coulomb gauge, which moves U_t once at the
 * end; for Landau when tracked), the gradient Delta(x) of SPEC §3 (as a
 * packed su(N) element, math/algebra.h), the preconditioned gradient
 * P Delta and the one of the previous iteration, the search direction s.
 * Every per-timeslice array has one slot per global timeslice (nt = Lt);
 * a rank fills its own slots, the others are 0, and sums are combined with
 * comm_sum (exact, base/comm.h), so the numbers do not depend on R. */
#ifndef LAT_FOURIER_BACKEND_H
#define LAT_FOURIER_BACKEND_H

#include "gaugefix/site.h"
#include "lattice/field.h"
#include <stdint.h>

struct fa_state;

struct fa_backend {
    const char *name;
    /* copy u (double host field, on a slab with halo slices) and the
     * transform (may be NULL) into storage of precision 'd', 's' or 'm' */
    struct fa_state *(*create)(const struct field *u, const double *transform, char prec, enum gauge_kind g);
    /* Delta(x) of the current links; fsums[2t], fsums[2t+1]: the sums of
     * gf_site_functional and gf_site_theta over slice t (the input of
     * gauge_quality_from_sums); dphi[t]: sum of tr(Delta s) (the slope of
     * F along the current direction s; 0 before the first direction) */
    void (*gradient)(struct fa_state *s, double *fsums, double *dphi);
    /* P Delta = FFT^-1 [p^2_max / p^2(k) FFT[Delta]] (zero mode left out),
     * the previous one kept; dots[2t], dots[2t+1]: sums of tr(Delta PDelta)
     * and tr(Delta PDelta_previous) */
    void (*precondition)(struct fa_state *s, double *dots);
    /* on the slices with set[t]: s = P Delta + beta[t] s; dphi[t] = sum of
     * tr(Delta s) (all slices) */
    void (*direction)(struct fa_state *s, const unsigned char *set, const double *beta, double *dphi);
    /* d2[t]: the second derivative in alpha, at alpha = 0, of the sum of
     * the functional's Re tr U over slice t when every G(x) below is
     * exp(-i alpha s(x)): sum_x,mu Re tr(2 s(x) U s(x+mu) - s(x)^2 U -
     * U s(x+mu)^2) -- the line search's curvature */
    void (*curvature)(struct fa_state *s, double *d2);
    /* U_mu(x) -> G(x) U_mu(x) G(x+mu)^dag, g -> G g, with G(x) =
     * exp(-i alpha[t] s(x)) (exact exponential); alpha[t] = 0: slice left */
    void (*step)(struct fa_state *s, const double *alpha);
    /* the same with G(x) Haar-random (Philox: seed, copy, global site,
     * sweep k, RNG_ORBIT) on the slices with set[t]: a fresh random point
     * of the gauge orbit for a restart */
    void (*orbit)(struct fa_state *s, const unsigned char *set, uint64_t seed, uint32_t copy, uint32_t k);
    void (*reunitarize)(struct fa_state *s);
    /* Coulomb: the slices with on[t] = 0 have converged and stay frozen;
     * later calls may skip them (gradient then returns their last fsums,
     * and 0 for every other per-slice number of a frozen slice; step
     * leaves them, as alpha[t] = 0 asks).  NULL: the backend works on
     * every slice every time. */
    void (*freeze)(struct fa_state *s, const unsigned char *on);
    /* the links into u (double, same shape) and g into transform if both */
    void (*download)(struct fa_state *s, struct field *u, double *transform);
    void (*destroy)(struct fa_state *s);
};

extern const struct fa_backend fa_backend_cpu;
extern const struct fa_backend fa_backend_gpu; /* CUDA builds with cuFFT only (LAT_HAVE_CUFFT): fourier/gpu.c */

#endif
