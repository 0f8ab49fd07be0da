/* dirac/staggered_gpu_impl.h -- private to the Dirac module: the GPU
 * staggered operator's state (staggered_gpu.c) and the contract of its one
 * kernel launch per compute precision (staggered_gpu_{d,s}.cu; the host
 * emulation scripts/staggered-emulation.cpp supplies both entry points with
 * the same kernels run thread by thread), and of the link refresh from a
 * device field (staggered_gpu_links.cu, staggered_gpu_fields.c).
 *
 * staggered_gpu_sweep_<d|s>(w): for every half index h < w->nsites of
 * output parity w->parity, with the site x of (parity, h):
 *     out[out_off + h] = alpha * sum_mu [ eta U_mu(x) in(x + mu)
 *                                         - eta' U_mu(x - mu)^dag in(x - mu) ]
 *                        + beta * loc[loc_off + h]
 * (in(y) = in[in_off + y/2], eta = staggered_phase_coords(x, mu), eta' the
 * same of x - mu; hop 0: no hop sum; loc NULL: no loc term, so hop 0 and
 * loc NULL write zeros).  _d: double vectors and w->links in double
 * storage, double arithmetic; _s: float or half vectors (w->vprec), float
 * links, float arithmetic.  out must not alias in or loc.  Vectors are
 * device pointers in gpu/spinor.h's layout, site_reals 6.
 *
 * On a t-slab (staggered_gpu.h) the fields hold this rank's lt owned
 * slices (lt even: local parity = global parity), tg0 and ltg are the
 * global t of local slice 0 and the global Lt (ltg 0: one process), and
 * eta and the antiperiodic sign are those of the global site.  `sites`
 * (gpu_sweep.h's DIRAC_SITES_*): ALL (every h), INTERIOR (slices 1 ..
 * lt-2: no face read), BOUNDARY (slices 0 and lt-1), where the t hops
 * across the slab's ends read faces, 3 complex of the compute precision
 * (lat_real: double for _d, float for _s) per spatial half index j < V3h
 * (output h = j on slice 0, j + (lt-1) V3h on the last):
 *   face_fwd[j]  in(x + t), from slice 0 of the next rank, as stored (the
 *                receiver multiplies the sign of x);
 *   face_bwd[j]  U_t(y)^dag (sign of y) in(y), y = x - t on the previous
 *                rank's last slice: the product the receiver subtracts.
 * face_out_fwd non-NULL: instead of the sweep, the pack: one thread per j
 * writes this rank's faces of `in` (parity 1 - parity, at in_off):
 * face_out_fwd (its slice 0, for the previous rank) and face_out_bwd (its
 * last slice times U_t^dag and the sign, for the next), in the kernel's
 * arithmetic: the receiver's sums get the bits of one process.  The faces
 * may be the neighbours' memory (gpu_faces_pack_to): then `stream` is the
 * peer's and the pack runs there. */
#ifndef LAT_DIRAC_STAGGERED_GPU_IMPL_H
#define LAT_DIRAC_STAGGERED_GPU_IMPL_H

#include "dirac/staggered_gpu.h"
#include "dirac/gpu_sweep.h" /* DIRAC_SITES_* */
#include "gpu/field.h"
#include "lattice/lattice.h"
#include <stdint.h>

#define STAGGERED_GPU_SITE_REALS 6 /* SU(3): 3 complex per site */

struct staggered_gpu_sweep {
    const struct gpu_field *links; /* the storage of this precision ('d' for _d, 's' for _s) */
    int vprec;                     /* enum solver_prec of out, in and loc */
    int parity;                    /* of the output sites */
    int hop;                       /* 0: no hop sum */
    int64_t nsites;                /* output sites: V/2 */
    double alpha, beta;
    void *out;
    float *out_norm;
    int64_t out_off;
    const void *in;
    const float *in_norm;
    int64_t in_off;
    const void *loc; /* NULL: no beta term */
    const float *loc_norm;
    int64_t loc_off;
    /* t-slabs (zero on one process: every site, no faces) */
    int sites, tg0, ltg;
    const void *face_fwd, *face_bwd; /* received, or NULL */
    void *face_out_fwd, *face_out_bwd; /* non-NULL: the pack instead */
    void *stream; /* the launch's stream (a cudaStream_t; NULL: the default) */
};

struct staggered_gpu {
    struct lattice lat;
    double mass;
    int recon;
    int64_t vh;
    struct gpu_field links_d, links_s;
    void *tmp[3]; /* an odd half field per precision (enum solver_prec) */
    float *tmp_norm;
    /* a t-slab (dom NULL: one process) and its faces (dirac/gpu_faces.h,
     * face_bytes 3 V3h doubles; made by staggered_gpu.c) */
    const struct geometry *dom;
    int tg0, ltg;
    struct gpu_faces *faces;
    int sweeps_in_order; /* LAT_GPU_K_ORDER=sweeps: K's two sweeps one after the other (timing) */
    /* the pack staggered_gpu_prepare queued ahead of its sweep (in NULL:
     * none): that sweep's input, offset, parity, links and vector
     * precision, its face bytes */
    struct {
        const void *in;
        int64_t in_off;
        int parity;
        const struct gpu_field *links;
        int vprec;
        size_t fb;
    } early;
};

#ifdef __cplusplus
extern "C" {
#endif
void staggered_gpu_sweep_d(const struct staggered_gpu_sweep *w);
void staggered_gpu_sweep_s(const struct staggered_gpu_sweep *w);
/* one sweep of g (w's precision: 'd' links double, else single): on one
 * process, or hop 0, one launch over every site; on a slab the pack, the
 * faces sent, the interior, the boundary (staggered_gpu.c) */
void staggered_gpu_run(struct staggered_gpu *g, struct staggered_gpu_sweep *w);
/* a pack queued ahead (the solver's prepare, staggered_gpu.c) whose sweep
 * will not come: its round completed, its faces dropped; nothing when none
 * is pending.  Whatever changes the links calls it first. */
void staggered_gpu_drop_early(struct staggered_gpu *g);
/* dst (the operator's links_d or links_s: 'd' or 's' storage, its recon)
 * = src (an HMC device field: 'd', 18 reals) from `shift` timeslices on:
 * 0 on one process (the same lattice), 1 on a t-slab (src holds the halo
 * slice first, then dst's lt slices, then the other halo slice), device to
 * device (staggered_gpu_links.cu; the emulation supplies its own) */
void staggered_gpu_links_from_d(const struct gpu_field *dst, const struct gpu_field *src, int shift);
#ifdef __cplusplus
}
#endif

#endif
