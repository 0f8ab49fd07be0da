/* dirac/gpu_sweep.h -- private to the Dirac module: one sweep of the GPU
 * operator as the host side (dirac/gpu.c) hands it to the launches of one
 * compute precision (gpu_d.cu: double storage; gpu_s.cu: float and half
 * spinor storage over float links) and to the host emulation
 * (scripts/dirac-emulation.cpp).  Plain C.
 *
 * dirac_gpu_sweep_<d|s>(w): for every site x of parity w->parity (half
 * index h < V/2; one thread each), with D_s the hopping term of sign
 * w->sign (site.h; +1 D, -1 D^dag) over the neighbours in `in` (the other
 * parity) and the links of w->links (no boundary phases stored: the kernel
 * multiplies phase[mu] into a link whose hop crosses the boundary):
 *   post_inv:  out(x) = C(x) (alpha D_s in)(x)          (C = A^-1 here)
 *   else:      out(x) = C(x) loc(x) + alpha (D_s in)(x) (C = A here)
 * C = 1 when clover is NULL.  clover: 72 reals per site of parity
 * w->parity in gpu/spinor.h's blocked layout (ncomp 72), the storage type
 * of the links.  Spinors: gpu/spinor.h's layout, ncomp 24, of spinor_prec
 * (SOLVER_DOUBLE: double; SOLVER_SINGLE: float; SOLVER_HALF: int16 + norm).
 * SOLVER_HALF sweeps with links16 non-NULL read 16-bit links and clover
 * (dirac/gpu_link16.h): links16 (the int16 links in the places of links'
 * float layout; links still gives the geometry and the compression) and
 * the clover as int16 with clover_step, one float per site: the factor
 * q -> real (half_decode_scale of the site's norm); with links16 NULL
 * they read the float links and clover (clover_step unused).
 *
 * On a t-slab of an MPI run (dirac/gpu.h) the fields are this rank's
 * owned slices (local Lt = lt, even; local parity = global parity), and
 * the t hops across the slab's ends read faces: half spinors of 2 spins x
 * 3 colours, 12 reals of the compute precision (double for the double
 * kernels, float for single and half) per site j < V3h (the spatial half
 * index: output site h = j on slice 0, j + (lt-1) V3h on the last):
 *   face_fwd[j]  the projection (1 - sign gamma_t) psi(x + t) the next rank
 *                made of its slice 0 (dirac_hop_fwd_acc's first step);
 *   face_bwd[j]  U_t(x - t)^dag (1 + sign gamma_t) psi(x - t) the previous
 *                rank made of its last slice (the first two steps of
 *                dirac_hop_bwd_acc, its boundary phase included);
 * sites: DIRAC_SITES_ALL (every h; one process), _INTERIOR (slices 1 ..
 * lt-2, no face read), _BOUNDARY (slices 0 and lt-1, the faces read):
 * dirac_sites_threads and dirac_sites_index map a launch's threads.
 * tg0, ltg: the global t of local slice 0 and the global Lt (ltg 0: one
 * process, the local Lt).  face_out_fwd non-NULL: instead of a sweep, the
 * pack kernel: it writes this rank's two faces from `in` -- face_out_fwd
 * (of slice 0, for the previous rank) and face_out_bwd (of the last slice,
 * for the next), the same formulas as above with parity = the output
 * parity of the sweep they feed.
 *
 * clover_only (double sweeps only; the even-odd system's ends, dirac/gpu.h):
 * no hopping term and no faces: out(x) = C(x) loc(x) on every site h of
 * the half field (C = 1 when clover is NULL: a copy), the arithmetic of
 * dirac_cpu_clover (dirac/cpu.h) site by site. */
#ifndef LAT_DIRAC_GPU_SWEEP_H
#define LAT_DIRAC_GPU_SWEEP_H

#include "base/lat.h"
#include "gpu/field.h"

struct dirac_gpu_sweep {
    const struct gpu_field *links; /* 'd' (gpu_d) or 's' (gpu_s) storage, recon 18/12/8 */
    const void *clover;            /* A or A^-1 of the output parity, or NULL (A = 1) */
    const void *links16;           /* half: the 16-bit links, or NULL: the float ones */
    const float *clover_step;      /* half: the clover's q -> real factor per site */
    const void *in;                /* neighbours: a half field of parity 1 - parity */
    const float *in_norm;          /* half: its norms */
    const void *loc;               /* not post_inv: the local term, parity `parity` */
    const float *loc_norm;
    void *out;
    float *out_norm;
    int spinor_prec;               /* enum solver_prec */
    int parity, sign, post_inv;
    double alpha;
    double phase[4][2];            /* e^{i theta_mu} (re, im) */
    const void *face_fwd, *face_bwd; /* slab: the received faces, else NULL */
    void *face_out_fwd, *face_out_bwd; /* non-NULL: pack the faces instead */
    int tg0, ltg, sites;
    int clover_only;               /* out = C loc, no hop (double only) */
    /* nrhs > 1 (one process, every site, not clover_only): the sweep of
     * nrhs columns in one launch; in, loc and out (and their norms) are
     * blocks: column c's site h is site h + c col_sites of the block as one
     * vector of gpu/spinor.h's layout (col_sites a multiple of
     * GPU_SPINOR_LANES: each column is laid out as a vector alone).  0 or
     * 1: one column */
    int nrhs;
    long long col_sites;
};

enum { DIRAC_SITES_ALL = 0, DIRAC_SITES_INTERIOR = 1, DIRAC_SITES_BOUNDARY = 2 };

/* the threads of a launch over `sites` of a half field of vh sites, v3h a
 * timeslice, and the half index of its thread i (the Wilson and the
 * staggered kernels alike) */
LAT_HD int dirac_sites_threads(int vh, int v3h, int sites)
{
    return sites == DIRAC_SITES_INTERIOR ? vh - 2 * v3h : sites == DIRAC_SITES_BOUNDARY ? 2 * v3h : vh;
}
LAT_HD int dirac_sites_index(int vh, int v3h, int sites, int i)
{
    if (sites == DIRAC_SITES_INTERIOR) return i + v3h;
    if (sites == DIRAC_SITES_BOUNDARY) return i < v3h ? i : i + vh - 2 * v3h;
    return i;
}

#ifdef __cplusplus
extern "C" {
#endif
void dirac_gpu_sweep_d(const struct dirac_gpu_sweep *w);
void dirac_gpu_sweep_s(const struct dirac_gpu_sweep *w);
#ifdef __cplusplus
}
#endif
#endif
