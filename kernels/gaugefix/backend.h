/* gaugefix/backend.h -- what a gauge-fixing backend (CPU or CUDA) offers.
 *
 * Exported: struct gf_backend (below), gf_backend_cpu (cpu_backend.c),
 * gf_backend_gpu (gpu.c, CUDA builds only), gf_backend_for (the backend of
 * a --device decision, or NULL when not built), gf_backend_default_reunitarize
 * (the backend's default --reunitarize-every for a precision).
 *
 * A backend holds the field (and, if tracked, the gauge transformation g(x))
 * in its own storage and precision ('d' double, 's' single, 'm' mixed =
 * single storage with double arithmetic) and does whole sweeps: both
 * parities, every site, the update of gaugefix.h.  The driver
 * (gaugefix/driver.c) owns the iteration: stopping rule, annealing
 * schedule, logging, progress; it is the same for every backend.
 *
 * Random numbers: the site x of sweep k uses the stream
 *     rng_init(&r, seed, copy, x, k, purpose)
 * with purpose RNG_STOCHASTIC or RNG_ANNEAL (rng.h), created just before the
 * site's update -- so CPU and GPU draw the same numbers. */
#ifndef LAT_GAUGEFIX_BACKEND_H
#define LAT_GAUGEFIX_BACKEND_H

#include "lattice/field.h"
#include "gaugefix/site.h"
#include "gpu/gpu.h"
#include <stdint.h>

struct gf_state; /* backend-private */

struct gf_backend {
    const char *name; /* "cpu" or "gpu": --device, history entries, messages */
    /* What it can do, asked instead of its name (tools/shared/device_opt.h
     * refuses an N outside [min_nc, max_nc] with one message). */
    int min_nc, max_nc; /* the SU(N) it has kernels for */
    /* Default sweeps between reprojections for precision 'd', 's', 'm'
     * (0 = never): how fast its storage drifts off SU(N) (the backends'
     * .c files say why their numbers). */
    int reunitarize_every[3];
    /* Copy u (double host field) and optionally the transform (V*2*nc*nc
     * reals, may be NULL) into backend storage of the given precision. */
    struct gf_state *(*create)(const struct field *u, const double *transform, char precision);
    /* One sweep (even then odd parity).  active_t: per timeslice, 0 = skip
     * (Coulomb, converged slices); NULL = all. */
    void (*sweep)(struct gf_state *s, const struct gf_params *p, uint64_t seed, uint32_t copy,
                  uint32_t sweep_index, const unsigned char *active_t);
    /* F and theta in SPEC §3 normalisation (Coulomb: per timeslice too). */
    void (*measure)(struct gf_state *s, enum gauge_kind g, struct gauge_quality *q);
    /* Project every link (and the transform) back onto SU(N). */
    void (*reunitarize)(struct gf_state *s);
    /* Copy back into the double host field (and the transform if tracked). */
    void (*download)(struct gf_state *s, struct field *u, double *transform);
    void (*destroy)(struct gf_state *s);
    /* Tests only (LAT_FAULT_AT, driver.c): fail the way a broken kernel
     * does; NULL where the driver's die is the closest thing. */
    void (*inject_fault)(void);
    /* Reals per SU(3) link of the states created from now on: 12 or 8 (the
     * GPU: 8 for single and mixed precision, relaxation and overrelaxation;
     * lat-overrelax --links).  NULL: the backend stores whole matrices. */
    void (*set_link_reals)(int reals);
};

/* be's default --reunitarize-every for precision prec ('d', 's', 'm') */
static inline int gf_backend_default_reunitarize(const struct gf_backend *be, char prec)
{
    return be->reunitarize_every[prec == 'd' ? 0 : prec == 's' ? 1 : 2];
}

extern const struct gf_backend gf_backend_cpu;
extern const struct gf_backend gf_backend_gpu; /* only when built with CUDA */

/* The backend for b, or NULL when that backend is not built (BACKEND_GPU
 * in a build without CUDA). */
const struct gf_backend *gf_backend_for(enum backend b);

#endif
