/* gaugefix/gpu.h -- the CUDA gauge-fixing backend: the entry points shared
 * by its host side (gpu.c, plain C) and its kernels (gpu_{d,s,m}.cu); the
 * device field, its upload/download, the slab step and the observables are
 * the GPU layer's (gpu/field.h).
 * Exported: gpu_gf_{sweep,quality,reunitarize}_{d,s,m} (kernels),
 * gf_gpu_field (the device field of a gf_backend_gpu state), the launch
 * candidates of the sweep kernels (GF_CANDIDATES, gf_gpu_candidate_name).
 *
 * Reductions are deterministic: a fixed grid (independent of the device),
 * per-block partial sums in double, summed on the host in a fixed order. */
#ifndef LAT_GAUGEFIX_GPU_H
#define LAT_GAUGEFIX_GPU_H

#include "gaugefix/site.h"
#include "gpu/field.h"
#include <stddef.h>
#include <stdint.h>

/* ---- launch candidates of the sweep kernels ------------------------------
 * SU(3) and SU(4) overrelaxation and annealing kernels (every gauge, with or
 * without a transform) have GF_CANDIDATES launch shapes of one kernel code
 * (gf_gpu_candidate_name_su4 names SU(4)'s), which
 * the tuner of gpu/tune.h chooses from (the others have one);
 * gf_gpu_candidate_name(prec, c) names candidate c of precision 'd', 's' or
 * 'm' (NULL past the last); gpu_tune_force(c) makes every kernel launch c
 * (tests, the benchmark). */
#define GF_CANDIDATES 4

#ifdef __cplusplus
extern "C" {
#endif

const char *gf_gpu_candidate_name(char prec, int c);
const char *gf_gpu_candidate_name_su4(char prec, int c); /* SU(4)'s own four shapes */

/* ---- per precision (gaugefix_gpu_{d,s,m}.cu) ----------------------------
 * sweep: even sites, then odd (parity < 0), or the sites of one (local)
 *   parity; active: use f->active (Coulomb mask); f->h0, h1, site0 as above.
 * quality: per timeslice t, sums over the sites of t of the local functional
 *   (out[2t]) and theta (out[2t+1]) as gf_site_functional/gf_site_theta give
 *   them (unnormalised).
 * The observables (plaquette, Polyakov loop, unitarity) are the GPU layer's
 * (gpu/field.h: gpu_observables_sums, gpu_field_observables). */
#define GPU_DECLARE(sfx)                                                                            \
    void gpu_gf_sweep_##sfx(const struct gpu_field *f, const struct gf_params *p, uint64_t seed,     \
                            uint32_t copy, uint32_t sweep, int active, int parity);                  \
    void gpu_gf_quality_##sfx(const struct gpu_field *f, enum gauge_kind g, double *out);            \
    void gpu_gf_reunitarize_##sfx(const struct gpu_field *f);
GPU_DECLARE(d)
GPU_DECLARE(s)
GPU_DECLARE(m)
#undef GPU_DECLARE

/* ---- extras of the GPU backend (gpu.c) for tools and tests --------------
 * the device field of a state (for gpu_field_observables and the tests) */
struct gf_state;
const struct gpu_field *gf_gpu_field(struct gf_state *s);

#ifdef __cplusplus
}
#endif

#endif
