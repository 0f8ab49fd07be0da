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
 * (SOLVER_DOUBLE: double; SOLVER_SINGLE: float; SOLVER_HALF: int16 + norm). */
#ifndef LAT_DIRAC_GPU_SWEEP_H
#define LAT_DIRAC_GPU_SWEEP_H

#include "gpu/field.h"

struct dirac_gpu_sweep {
    const struct gpu_field *links; /* 'd' (gpu_d) or 's' (gpu_s) storage, recon 18/12/8 */
    const void *clover;            /* A or A^-1 of the output parity, or NULL (A = 1) */
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
};

#ifdef __cplusplus
extern "C" {
#endif
void dirac_gpu_sweep_d(const struct dirac_gpu_sweep *w);
void dirac_gpu_sweep_s(const struct dirac_gpu_sweep *w);
#ifdef __cplusplus
}
#endif
#endif
