/* gaugefix/gpu.h -- the CUDA gauge-fixing backend: the entry points shared
 * by its host side (gpu.c, plain C) and its kernels (gpu_{d,s,m}.cu); the
 * device field, its upload/download, the slab step and the observables are
 * the GPU layer's (gpu/field.h).
 * Exported: gpu_gf_{sweep,quality,reunitarize}_{d,s,m} (kernels),
 * gf_gpu_field (the device field of a gf_backend_gpu state), the launch
 * variants (GPU_SWEEP_VARIANTS, gpu/field.h's gpu_*_sweep_variant*).
 *
 * Reductions are deterministic: a fixed grid (independent of the device),
 * per-block partial sums in double, summed on the host in a fixed order. */
#ifndef LAT_GAUGEFIX_GPU_H
#define LAT_GAUGEFIX_GPU_H

#include "gaugefix/site.h"
#include "gpu/field.h"
#include <stddef.h>
#include <stdint.h>

/* ---- launch configuration of the sweep kernels (for the benchmark) ------
 * variant 0 is the default (one thread per site for 's', four for 'd' and
 * 'm'); gpu_sweep_variant_name(prec, v) names each, NULL past the last.
 * Only the Landau/Coulomb overrelaxation SU(3) kernels without a transform
 * exist in several variants; the others always run the default.  The
 * environment variable LAT_GPU_VARIANT sets the variant of a program. */
#define GPU_SWEEP_VARIANTS 10

#ifdef __cplusplus
extern "C" {
#endif

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
