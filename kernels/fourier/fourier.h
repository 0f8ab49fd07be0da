/* fourier/fourier.h -- Fourier-accelerated gauge fixing (SPEC §7), Landau
 * and Coulomb gauge, any SU(N): the iteration every backend shares.
 *
 * Exported (driver.c):
 *   fa_open, fa_close   the backend state of a run and its end (Coulomb:
 *                       the run's own g(x), U_t moved once at the end, as
 *                       gaugefix/driver.h gf_open/gf_close do)
 *   fa_iterate          steepest descent or conjugate gradient to the
 *                       stopping rule
 *
 * The step.  With Delta(x) of SPEC §3 and the preconditioner
 * P = FFT^-1 p^2_max/p^2(k) FFT (backend.h), a step moves the links by
 * G(x) = exp(-i alpha s(x)) (exact exponential), which raises F to first
 * order by alpha/(Nc Nd V) sum_x tr(Delta s) (the slope dphi).
 *   --method sd: s = P Delta, alpha fixed (--alpha; 1/p^2_max = 1/16 would
 *     remove every mode of a free field in one step, GLU and Davies et al.
 *     use 0.08), halved when a step lowers F.
 *   --method cg: s = P Delta + beta s_previous, beta by --cg-beta:
 *     pr (default, SPEC §7): Polak-Ribiere,
 *       beta = tr(Delta (P Delta - P Delta_prev)) / tr(Delta_prev P Delta_prev);
 *     hs: Hestenes-Stiefel, the same numerator over the drop of the slope
 *       along s_previous across the last step, dphi_start - dphi_end
 *       (Polak-Ribiere's denominator when the slope did not drop; equal to
 *       Polak-Ribiere's under an exact line search): fewer iterations at
 *       8^4-24^4 and no returns from near-saddles, the same growth with L
 *       (docs/PERFORMANCE.md "lat-fourier iteration growth");
 *     clipped at 0 (a restart along P Delta); s = P Delta whenever s is
 *     not uphill.  Line search: Newton's step along s,
 *     alpha = -dphi/d2 with the curvature d2 summed exactly over the links
 *     (backend.h), capped, scaled by a damping factor that halves when a
 *     step lowers F and recovers by doubling.
 *   A step that lowers F halves alpha and restarts along P Delta.
 *   Stall: when theta has not fallen below half its best value for `stall`
 *   iterations, the run restarts from a fresh random point of the gauge
 *   orbit (Philox stream seed, copy, site, restart number, RNG_ORBIT), at
 *   most `restarts` times, else it ends not converged.
 * Coulomb gauge: every timeslice is its own problem (3-D transforms, its
 * own alpha, beta, stall count and theta_t); a slice below eps is frozen.
 * Stopping rule, reports and the result as gaugefix/driver.h (struct
 * gf_sample, gf_observer, gf_result: iterations = sweeps = iterations). */
#ifndef LAT_FOURIER_H
#define LAT_FOURIER_H

#include "fourier/backend.h"
#include "gaugefix/driver.h"

enum fa_method { FA_CG = 0, FA_SD = 1 };
enum fa_cg_beta { FA_BETA_PR = 0, FA_BETA_HS = 1 };

struct fa_opts {
    enum fa_method method;
    double alpha;   /* > 0 */
    double theta;   /* eps > 0 */
    long max_iter;
    int restarts;   /* random-orbit restarts allowed */
    long stall;     /* iterations without progress before one */
    enum fa_cg_beta cg_beta; /* the CG's beta (--method cg) */
};

struct fa_run {
    const struct fa_backend *be;
    struct fa_state *st;
    struct lattice glob;
    int nc;
    enum gauge_kind gauge;
    char prec;              /* 'd', 's', 'm': how much F may wobble */
    uint64_t seed;
    uint32_t copy;
    int reunitarize_every;  /* iterations, 0 = never */
    int check_every;        /* progress reports */
    struct gf_observer obs;
};

struct fa_state *fa_open(const struct fa_backend *be, const struct field *u, const double *transform, char prec,
                         enum gauge_kind g, double **time_g);
void fa_close(const struct fa_backend *be, struct fa_state *st, struct field *u, double *transform, double *time_g);
/* *restarts: random-orbit restarts made */
void fa_iterate(const struct fa_run *r, const struct fa_opts *o, struct gf_result *res, int *restarts);

#endif
