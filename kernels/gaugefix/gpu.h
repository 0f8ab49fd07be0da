/* gaugefix/gpu.h -- the CUDA gauge-fixing backend: the entry points shared
 * by its host side (gpu.c, plain C) and its kernels (gpu_{d,s,m}.cu); the
 * device storage is the GPU layer's (gpu/field.h).
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
 * observables: out[0..2] plaquette sums (all, spatial, temporal) of Re tr,
 *   out[3] sum Re tr U, out[4..5] sum tr Polyakov (re, im), out[6] sum of
 *   ||U^dag U - 1||, out[7] max of it, out[8] sum |det U - 1|, out[9] max. */
#define GPU_DECLARE(sfx)                                                                            \
    void gpu_gf_sweep_##sfx(const struct gpu_field *f, const struct gf_params *p, uint64_t seed,     \
                            uint32_t copy, uint32_t sweep, int active, int parity);                  \
    void gpu_gf_quality_##sfx(const struct gpu_field *f, enum gauge_kind g, double *out);            \
    void gpu_gf_reunitarize_##sfx(const struct gpu_field *f);                                        \
    void gpu_gf_observables_##sfx(const struct gpu_field *f, double out[10]);
GPU_DECLARE(d)
GPU_DECLARE(s)
GPU_DECLARE(m)
#undef GPU_DECLARE

/* ---- extras of the GPU backend (gaugefix_gpu.c) for tools and tests ------ */
struct gf_state;
struct gpu_observables {
    double plaq, plaq_s, plaq_t; /* SPEC §3 normalisation */
    double link_trace;
    double poly_re, poly_im;
    double unit_mean, unit_max, det_mean, det_max;
};
void gf_gpu_observables(struct gf_state *s, struct gpu_observables *o);
const struct gpu_field *gf_gpu_field(struct gf_state *s);
/* On a slab of an MPI run (NULL: one rank): the domain, and one update step
 * of the sites of one global parity -- launch(f, local parity, arg) for the
 * boundary slices 1 and lt (f->h0/h1 set), the halo parts on their way, the
 * interior 2..lt-1, the halo received.  Gauge fixing and the heatbath both
 * run their slab sweeps through it; with nparts 0 (Coulomb gauge) the
 * owned slices are one launch and nothing is exchanged. */
const struct geometry *gf_gpu_domain(struct gf_state *s);
void gf_gpu_slab_step(struct gf_state *s, int parity, const struct halo_part *parts, int nparts,
                      void (*launch)(struct gpu_field *f, int local_parity, void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif
