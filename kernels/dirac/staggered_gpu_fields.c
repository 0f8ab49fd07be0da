/* dirac/staggered_gpu_fields.c -- the GPU staggered operator for callers
 * that keep their fields on the device (the HMC's device path,
 * hmc/staggered_monomial_gpu.c; dirac/staggered_gpu.h):
 * staggered_gpu_set_links_device (checks, then the launches of
 * staggered_gpu_links_from_d into the double and float link storage) and
 * staggered_gpu_hop_d (one double sweep of staggered_gpu_impl.h, through
 * staggered_gpu_run: on a slab with its faces).  Plain
 * C.  Without CUDA (make CUDA=0) no operator exists: both end the program
 * with one line (an internal error). */
#include "dirac/staggered_gpu.h"
#include "dirac/staggered_gpu_impl.h"
#include "base/log.h"

#ifndef LAT_HAVE_CUDA

void staggered_gpu_set_links_device(struct staggered_gpu *g, const struct gpu_field *u)
{
    (void)g, (void)u;
    lat_die(1, "staggered_gpu_set_links_device", "internal error: no GPU operator exists without CUDA");
}
void staggered_gpu_hop_d(struct staggered_gpu *g, int parity, double alpha, double *out, int64_t out_off, const double *in,
                         int64_t in_off, double beta, const double *loc, int64_t loc_off)
{
    (void)g, (void)parity, (void)alpha, (void)out, (void)out_off, (void)in, (void)in_off, (void)beta, (void)loc,
        (void)loc_off;
    lat_die(1, "staggered_gpu_hop_d", "internal error: no GPU operator exists without CUDA");
}

#else

void staggered_gpu_set_links_device(struct staggered_gpu *g, const struct gpu_field *u)
{
    /* on a slab u holds a halo slice on each side (hmc/gpu.c's slab
     * fields): local slice 0 is global t0 - 1, the operator's slice 0 is u's 1 */
    staggered_gpu_drop_early(g); /* faces made of the links before */
    const int shift = g->dom ? 1 : 0;
    const int64_t v3 = (int64_t)g->lat.L[0] * g->lat.L[1] * g->lat.L[2];
    int same = u->nc == 3 && u->prec == 'd' && u->recon == GPU_RECON_FULL && u->links &&
               u->Vh == g->vh + shift * v3 && u->L[3] == g->lat.L[3] + 2 * shift &&
               (!g->dom || u->site0 == (int64_t)(g->tg0 - 1) * v3);
    for (int mu = 0; mu < 3; mu++) same = same && u->L[mu] == g->lat.L[mu];
    if (!same)
        lat_die(1, "staggered_gpu_set_links_device",
                "the device links (%dx%dx%dx%d, first global site %lld, SU(%d), '%c', %d reals) are not the operator's %s in 18 doubles a link",
                u->L[0], u->L[1], u->L[2], u->L[3], (long long)u->site0, u->nc, u->prec, u->recon,
                g->dom ? "slab with a halo slice on each side" : "lattice");
    staggered_gpu_links_from_d(&g->links_d, u, shift);
    staggered_gpu_links_from_d(&g->links_s, u, shift);
}

void staggered_gpu_hop_d(struct staggered_gpu *g, int parity, double alpha, double *out, int64_t out_off, const double *in,
                         int64_t in_off, double beta, const double *loc, int64_t loc_off)
{
    if (parity != 0 && parity != 1) lat_die(1, "staggered_gpu_hop_d", "internal error: parity %d", parity);
    /* D = 1/2 the hop sum (staggered_hop); 0.5 alpha is exact */
    struct staggered_gpu_sweep w = {&g->links_d, SOLVER_DOUBLE, parity, 1,  g->vh, 0.5 * alpha, beta, out, NULL,
                                    out_off,     in,            NULL,   in_off, loc,  NULL,        loc_off,
                                    0,           0,             0,      NULL,   NULL, NULL,        NULL, NULL};
    staggered_gpu_run(g, &w);
}

#endif
