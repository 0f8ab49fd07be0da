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
 * device pointers in gpu/spinor.h's layout, site_reals 6. */
#ifndef LAT_DIRAC_STAGGERED_GPU_IMPL_H
#define LAT_DIRAC_STAGGERED_GPU_IMPL_H

#include "dirac/staggered_gpu.h"
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
};

struct staggered_gpu {
    struct lattice lat;
    double mass;
    int recon;
    int64_t vh;
    struct gpu_field links_d, links_s;
    void *tmp[3]; /* an odd half field per precision (enum solver_prec) */
    float *tmp_norm;
};

#ifdef __cplusplus
extern "C" {
#endif
void staggered_gpu_sweep_d(const struct staggered_gpu_sweep *w);
void staggered_gpu_sweep_s(const struct staggered_gpu_sweep *w);
/* dst (the operator's links_d or links_s: 'd' or 's' storage, its recon)
 * = src (an HMC device field: 'd', 18 reals, the same lattice), device to
 * device (staggered_gpu_links.cu; the emulation supplies its own) */
void staggered_gpu_links_from_d(const struct gpu_field *dst, const struct gpu_field *src);
#ifdef __cplusplus
}
#endif

#endif
