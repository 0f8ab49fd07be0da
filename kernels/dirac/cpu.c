/* dirac/cpu.c -- the CPU site loops of the Dirac operators in one precision;
 * compiled per variant (kernels/cpu/variant.h, the Makefile's cpu.c rules):
 * dirac_cpu_sweep_d / _s / _m and dirac_cpu_clover_d / _s / _m, whose
 * contract is in dirac/cpu.h.  The physics is dirac/site.h's (the only copy
 * of the stencil); this file loads a site's 8 neighbour spinors and 8 links
 * from storage into the compute precision (cpu_load), calls it, and stores.
 *
 * OpenMP over the output sites: each site writes only its own spinor and
 * reads its inputs, no reductions, so any thread count gives the same bits.
 * SU(3) runs a separately inlined path with n = 3 (constant loop bounds). */
#include "cpu/variant.h"
#include "dirac/cpu.h"
#include "dirac/site.h"
#include <stddef.h>

#define VSFX CPU_VARIANT
typedef cpu_store store_t;

/* below this many output sites a loop runs on one thread */
#define DIRAC_OMP_MIN 1024

#if defined(LAT_VARIANT_D)
#define OP_LINKS(op) ((const store_t *)(op)->links_d)
#define OP_CLOV(op, inv) ((const store_t *)((inv) ? (op)->clovinv_d : (op)->clov_d))
#else
#define OP_LINKS(op) ((const store_t *)(op)->links_f)
#define OP_CLOV(op, inv) ((const store_t *)((inv) ? (op)->clovinv_f : (op)->clov_f))
#endif

/* out = (A or A^-1 of packed storage c) psi; a: the caller's buffer of
 * CLOVER_SITE_REALS(n) lat_real, used when storage is not lat_real */
CPU_INLINE void clover_site(int n, const store_t *c, lat_real *a, const lat_complex *psi, lat_complex *out)
{
    const lat_real *ap = (const lat_real *)c;
    if (!CPU_DIRECT) {
        for (int k = 0; k < CLOVER_SITE_REALS(n); k++) a[k] = (lat_real)c[k];
        ap = a;
    }
    clover_apply_site(n, ap, psi, out);
}

/* k complex numbers of storage p as lat_complex: in place when storage is
 * the compute precision, else widened into buf */
CPU_INLINE const lat_complex *view(int k, lat_complex *buf, const store_t *p)
{
    if (CPU_DIRECT) return (const lat_complex *)(const void *)p;
    cpu_load(k, buf, p);
    return buf;
}

/* One output site x (local full index; its storage index in out and loc
 * xo = (x - off) >> shift, in in x >> shift, of the clover x - off).  The
 * buffers: u[8] links (n*n each), p[8] spinors (4n each), acc, v (4n), a
 * (clover reals). */
CPU_INLINE void sweep_site(const struct dirac_op *op, int n, const struct dirac_sweep *w, int shift, int64_t x,
                           store_t *out, const store_t *in, const store_t *loc, lat_complex *const *u,
                           lat_complex *const *p, lat_complex *acc, lat_complex *v, lat_complex *t, lat_real *a)
{
    const size_t lr = 2 * (size_t)n * n, sr = 8 * (size_t)n;
    const store_t *links = OP_LINKS(op);
    const lat_complex *uv[8], *pv[8];
    for (int mu = 0; mu < LAT_ND; mu++) {
        const int64_t xf = op->fwd[4 * x + mu], xb = op->bwd[4 * x + mu];
        uv[mu] = view(n * n, u[mu], links + ((size_t)x * LAT_ND + mu) * lr);
        pv[mu] = view(4 * n, p[mu], in + (size_t)(xf >> shift) * sr);
        uv[4 + mu] = view(n * n, u[4 + mu], links + ((size_t)xb * LAT_ND + mu) * lr);
        pv[4 + mu] = view(4 * n, p[4 + mu], in + (size_t)(xb >> shift) * sr);
    }
    dirac_site_hop(n, w->sign, uv, pv, uv + 4, pv + 4, acc);
    const lat_real alpha = (lat_real)w->alpha;
    const size_t xo = (size_t)((x - op->off) >> shift), xc = (size_t)(x - op->off);
    if (w->local == DIRAC_LOCAL_NONE) {
        for (int k = 0; k < 4 * n; k++) v[k] = c_scale(alpha, acc[k]);
    } else {
        cpu_load(4 * n, t, loc + xo * sr);
        if (w->local == DIRAC_LOCAL_CLOVER && op->clover) {
            clover_site(n, OP_CLOV(op, 0) + xc * CLOVER_SITE_REALS(n), a, t, v);
            for (int k = 0; k < 4 * n; k++) v[k] = c_add(v[k], c_scale(alpha, acc[k]));
        } else {
            for (int k = 0; k < 4 * n; k++) v[k] = c_add(t[k], c_scale(alpha, acc[k]));
        }
    }
    if (w->post_inv && op->clover) {
        clover_site(n, OP_CLOV(op, 1) + xc * CLOVER_SITE_REALS(n), a, v, t);
        cpu_store_to(4 * n, out + xo * sr, t);
    } else {
        cpu_store_to(4 * n, out + xo * sr, v);
    }
}

/* the site loop with buffers for NC colours (a constant: 3, or the most) */
#define SWEEP_LOOP(NC, nval)                                                                                       \
    _Pragma("omp parallel for schedule(static) if (count >= DIRAC_OMP_MIN)")                                      \
    for (int64_t i = 0; i < count; i++) {                                                                         \
        lat_complex ub[8][(NC) * (NC)], pb[8][4 * (NC)], acc[4 * (NC)], v[4 * (NC)], t[4 * (NC)];                  \
        lat_complex *up[8], *pp[8];                                                                                \
        lat_real a[CLOVER_SITE_REALS(NC)];                                                                         \
        for (int k = 0; k < 8; k++) { up[k] = ub[k]; pp[k] = pb[k]; }                                            \
        const int64_t x = w->parity < 0 ? op->off + i : op->half_site[w->parity][i];                             \
        sweep_site(op, nval, w, shift, x, o, src, lc, up, pp, acc, v, t, a);                                      \
    }

void VSFX(dirac_cpu_sweep)(const struct dirac_op *op, const struct dirac_sweep *w, void *out, const void *in,
                           const void *loc)
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

void VSFX(dirac_cpu_clover)(const struct dirac_op *op, int parity, int inv, void *out, const void *in)
{
    const int n = op->nc;
    const size_t sr = 8 * (size_t)n;
    const int64_t count = parity < 0 ? op->vo : op->vh;
    store_t *o = (store_t *)out;
    const store_t *src = (const store_t *)in;
#pragma omp parallel for schedule(static) if (count >= DIRAC_OMP_MIN)
    for (int64_t i = 0; i < count; i++) {
        lat_complex t[4 * LAT_NC_MAX], v[4 * LAT_NC_MAX];
        lat_real a[CLOVER_SITE_REALS(LAT_NC_MAX)];
        const int64_t x = parity < 0 ? i : op->half_site[parity][i] - op->off; /* owned index */
        cpu_load(4 * n, t, src + (size_t)i * sr);
        if (op->clover) {
            clover_site(n, OP_CLOV(op, inv) + (size_t)x * CLOVER_SITE_REALS(n), a, t, v);
            cpu_store_to(4 * n, o + (size_t)i * sr, v);
        } else {
            cpu_store_to(4 * n, o + (size_t)i * sr, t);
        }
    }
}
