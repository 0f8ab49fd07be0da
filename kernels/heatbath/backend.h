/* heatbath/backend.h -- what a heatbath backend (CPU or CUDA) offers to
 * lat-heatbath (through heatbath/chain.h) and to the tests and benchmarks.
 *
 * Exported: struct hb_backend (below), hb_backend_cpu (backend.c),
 * hb_backend_gpu (gpu.cu, CUDA builds only), hb_backend_for (the backend
 * of a --device decision, or NULL when not built).
 *
 * A backend holds the field in its own storage and precision ('d' double,
 * 's' single, 'm' mixed = single storage, double arithmetic) and does whole
 * sweeps with the link update of common/heatbath.h.
 *
 * Sweep order (the same on every backend, so chains agree):
 *     for parity = 0, 1:  for mu = 0..3:  every site x of that parity
 *     (in any order, in parallel) updates U_mu(x).
 * Updating U_mu(x) for all x of one parity at fixed mu is race-free: its
 * staple holds no link that is being updated at the same time.
 * Random numbers: the heatbath update of U_mu(x) in heatbath sweep k
 * (k = the chain's sweep counter, see lat-heatbath(1)) draws from
 *     rng_init(&r, seed, 0, x, 4*k + mu, RNG_HEATBATH)
 * created just before the update; so the chain depends only on the seed,
 * the start and the counter, never on threads or the device.  k < 2^30.
 * Overrelaxation draws nothing.
 * Backends agree to rounding, not bit for bit (FMA contraction differs
 * between compilers); a rounding difference could in principle flip one
 * accept/reject decision of the SU(2) sampler, after which that link's
 * stream is used differently -- compare CPU and GPU over the first sweeps
 * with a tolerance (the reference loop is in tests/unit/test_heatbath.c). */
#ifndef LAT_HEATBATH_BACKEND_H
#define LAT_HEATBATH_BACKEND_H

#include "lattice/field.h"
#include "lattice/observables.h"
#include "gpu/gpu.h"
#include <stdint.h>

struct hb_state; /* backend-private */

struct hb_backend {
    const char *name; /* "cpu" or "gpu": --device, history entries, messages */
    /* What it can do, asked instead of its name (tools/shared/device_opt.h
     * refuses an N outside [min_nc, max_nc] with one message).  No
     * reunitarisation default: a heatbath sweep draws every link afresh in
     * SU(N), so storage drift never accumulates. */
    int min_nc, max_nc; /* the SU(N) it has kernels for */
    /* Copy u (double host field) into backend storage of the given precision. */
    struct hb_state *(*create)(const struct field *u, char precision);
    /* One heatbath sweep with counter k (see above). */
    void (*heatbath)(struct hb_state *s, double beta, uint64_t seed, uint32_t k);
    /* One overrelaxation sweep. */
    void (*overrelax)(struct hb_state *s);
    /* Plaquette (all, spatial, temporal) and Polyakov loop, SPEC §3. */
    void (*measure)(struct hb_state *s, struct plaquette *p, double *poly_re, double *poly_im);
    /* Copy back into the double host field u (allocated by the caller with
     * the lattice and N of the field given to create). */
    void (*download)(struct hb_state *s, struct field *u);
    void (*destroy)(struct hb_state *s);
};

extern const struct hb_backend hb_backend_cpu;
/* heatbath/gpu.cu: SU(GPU_MIN_NC) .. SU(GPU_MAX_NC) (gpu/gpu.h); only when built with CUDA
 * (LAT_HAVE_CUDA) */
extern const struct hb_backend hb_backend_gpu;

/* The backend for b, or NULL when that backend is not built (BACKEND_GPU
 * in a build without CUDA). */
const struct hb_backend *hb_backend_for(enum backend b);

#endif
