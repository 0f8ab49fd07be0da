/* dirac/staggered_cpu.c -- the CPU site loop of the staggered operator in
 * one precision; compiled per variant (kernels/cpu/variant.h, the
 * Makefile's variant rules): staggered_cpu_sweep_d / _s / _m, whose contract
 * is in dirac/staggered_cpu.h.  The physics is dirac/staggered_site.h's (the
 * only copy of the stencil); this file loads a site's 8 neighbour vectors
 * and 8 links into the compute precision, calls it, and stores.
 *
 * On a slab the input is a local field with halo slices (x >> shift) and
 * the output holds the owned sites ((x - off) >> shift), as dirac/cpu.c.
 * OpenMP over the output sites: each site writes only its own vector and
 * reads its inputs, no reductions, so any thread count gives the same bits.
 * SU(3) runs a separately inlined path with n = 3 (constant loop bounds). */
#include "cpu/variant.h"
#include "dirac/staggered_cpu.h"
#include "dirac/staggered_site.h"
#include <stddef.h>

#define VSFX CPU_VARIANT
typedef cpu_store store_t;

/* below this many output sites a loop runs on one thread */
#define STAGGERED_OMP_MIN 1024

#if defined(LAT_VARIANT_D)
#define OP_LINKS(op) ((const store_t *)(op)->links_d)
#else
#define OP_LINKS(op) ((const store_t *)(op)->links_f)
#endif

/* k complex numbers of storage p as lat_complex: in place when storage is
 * the compute precision, else widened into buf */
CPU_INLINE const lat_complex *view(int k, lat_complex *buf, const store_t *p)
{
    if (CPU_DIRECT) return (const lat_complex *)(const void *)p;
    cpu_load(k, buf, p);
    return buf;
}

CPU_INLINE void sweep_site(const struct staggered_op *op, int n, const struct staggered_sweep *w, int shift,
                           int64_t x, store_t *out, const store_t *in, const store_t *loc,
                           lat_complex *const *u, lat_complex *const *p, lat_complex *acc, lat_complex *t)
{
    const size_t lr = 2 * (size_t)n * n, sr = 2 * (size_t)n;
    const store_t *links = OP_LINKS(op);
    const lat_complex *uv[8], *pv[8];
    for (int mu = 0; mu < LAT_ND; mu++) {
        const int64_t xf = op->fwd[4 * x + mu], xb = op->bwd[4 * x + mu];
        uv[mu] = view(n * n, u[mu], links + ((size_t)x * LAT_ND + mu) * lr);
        pv[mu] = view(n, p[mu], in + (size_t)(xf >> shift) * sr);
        uv[4 + mu] = view(n * n, u[4 + mu], links + ((size_t)xb * LAT_ND + mu) * lr);
        pv[4 + mu] = view(n, p[4 + mu], in + (size_t)(xb >> shift) * sr);
    }
    staggered_site_hop(n, uv, pv, uv + 4, pv + 4, acc);
    const lat_real alpha = (lat_real)w->alpha, beta = (lat_real)w->beta;
    const size_t xo = (size_t)((x - op->off) >> shift);
    if (loc) {
        cpu_load(n, t, loc + xo * sr);
        for (int a = 0; a < n; a++) acc[a] = c_add(c_scale(alpha, acc[a]), c_scale(beta, t[a]));
    } else {
        for (int a = 0; a < n; a++) acc[a] = c_scale(alpha, acc[a]);
    }
    cpu_store_to(n, out + xo * sr, acc);
}

/* the site loop with buffers for NC colours (a constant: 3, or the most) */
#define SWEEP_LOOP(NC, nval)                                                                      \
    _Pragma("omp parallel for schedule(static) if (count >= STAGGERED_OMP_MIN)")                 \
    for (int64_t i = 0; i < count; i++) {                                                        \
        lat_complex ub[8][(NC) * (NC)], pb[8][(NC)], acc[(NC)], t[(NC)];                         \
        lat_complex *up[8], *pp[8];                                                               \
        for (int k = 0; k < 8; k++) { up[k] = ub[k]; pp[k] = pb[k]; }                           \
        const int64_t x = w->parity < 0 ? op->off + i : op->half_site[w->parity][i];            \
        sweep_site(op, nval, w, shift, x, o, src, lc, up, pp, acc, t);                           \
    }

void VSFX(staggered_cpu_sweep)(const struct staggered_op *op, const struct staggered_sweep *w, void *out,
                               const void *in, const void *loc)
{
    const int n = op->nc, shift = w->parity < 0 ? 0 : 1;
    const int64_t count = w->parity < 0 ? op->vo : op->vh;
    store_t *o = (store_t *)out;
    const store_t *src = (const store_t *)in, *lc = (const store_t *)loc;
    if (n == 3) {
        SWEEP_LOOP(3, 3)
    } else {
        SWEEP_LOOP(LAT_NC_MAX, n)
    }
}
