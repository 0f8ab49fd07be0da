/* gaugefix_cpu.c -- the CPU gauge-fixing kernels in one precision; compiled
 * three times (Makefile): LAT_VARIANT_D (double storage and arithmetic,
 * functions *_d), LAT_VARIANT_S (float, *_s) and LAT_VARIANT_M (float
 * storage, double arithmetic, *_m).  kernels/gaugefix_cpu_backend.c turns
 * them into gf_backend_cpu.
 *
 * Contract: a sweep updates every site of parity 0, then of parity 1, each
 * with gf_site_update (common/gaugefix.h, the only copy of the math) and the
 * Philox stream (seed, copy, site, sweep_index, purpose).  A site's update
 * reads and writes only its eight links U_mu(x), U_mu(x-mu) (Coulomb: the
 * six spatial ones; U_t waits for the end, gaugefix.h); every link joins
 * one site of each parity, so the sites of one parity work on disjoint links:
 * OpenMP over them is race-free and the result does not depend on the
 * number of threads.  SU(3) runs a separately inlined path with n = 3. */
#include "cpu/variant.h"
#include "gaugefix/cpu.h"
#include "gaugefix/site.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

#define VSFX CPU_VARIANT
typedef cpu_store store_t;
#define ALWAYS_INLINE CPU_INLINE

#define NN (LAT_NC_MAX * LAT_NC_MAX)
/* below this many sites (per parity) a loop runs on one thread: thread
 * start-up and barriers would cost more than the work */
#define GF_OMP_MIN 1024
#define GF_OMP_MIN_COPY 32768 /* memory-bound copies */

/* One site: load the links of the functional's directions (eight, or six
 * for Coulomb, which leaves U_t alone) and g, update, store.  up/dn/g are
 * the caller's buffers, sized for n. */
ALWAYS_INLINE void site_update(struct gf_state *s, int n, int64_t x, const struct gf_params *p, uint64_t seed,
                               uint32_t copy, uint32_t sweep, uint32_t purpose, lat_complex *up, lat_complex *dn,
                               lat_complex *g)
{
    const int nn = n * n;
    const size_t lr = 2 * (size_t)nn;
    store_t *U = (store_t *)s->links;
    store_t *ux = U + (size_t)x * LAT_ND * lr;
    const int32_t *bw = s->bwd + 4 * x;
    const int nd = gf_ndirs(p->gauge);
    cpu_load(nd * nn, up, ux);
    for (int mu = 0; mu < nd; mu++) cpu_load(nn, dn + mu * nn, U + ((size_t)bw[mu] * LAT_ND + mu) * lr);
    lat_complex *gp = NULL;
    store_t *T = (store_t *)s->transform;
    if (T) {
        cpu_load(nn, g, T + (size_t)x * lr);
        gp = g;
    }
    struct lat_rng r;
    rng_init(&r, seed, copy, (uint64_t)geometry_global_site(s->dom, x), sweep, purpose);
    gf_site_update(n, up, dn, gp, p, &r);
    cpu_store_to(nd * nn, ux, up);
    for (int mu = 0; mu < nd; mu++) cpu_store_to(nn, U + ((size_t)bw[mu] * LAT_ND + mu) * lr, dn + mu * nn);
    if (T) cpu_store_to(nn, T + (size_t)x * lr, g);
}

/* the sites list[i0..i1) of one parity, in parallel */
static void update_sites(struct gf_state *s, const int32_t *list, int64_t i0, int64_t i1, const struct gf_params *pl,
                         uint64_t seed, uint32_t copy, uint32_t sweep_index, uint32_t purpose,
                         const unsigned char *active_t)
{
    const int n = s->nc;
    const int64_t ns = i1 - i0;
    if (n == 3) {
#pragma omp parallel for schedule(static) if (ns >= GF_OMP_MIN)
        for (int64_t i = i0; i < i1; i++) {
            int64_t x = list[i];
            if (active_t && !active_t[geometry_t_global(s->dom, (int)(x / s->v3))]) continue;
            lat_complex up[4 * 9], dn[4 * 9], g[9];
            site_update(s, 3, x, pl, seed, copy, sweep_index, purpose, up, dn, g);
        }
    } else {
#pragma omp parallel for schedule(static) if (ns >= GF_OMP_MIN)
        for (int64_t i = i0; i < i1; i++) {
            int64_t x = list[i];
            if (active_t && !active_t[geometry_t_global(s->dom, (int)(x / s->v3))]) continue;
            lat_complex up[4 * NN], dn[4 * NN], g[NN];
            site_update(s, n, x, pl, seed, copy, sweep_index, purpose, up, dn, g);
        }
    }
}

void VSFX(gf_cpu_sweep)(struct gf_state *s, const struct gf_params *p, uint64_t seed, uint32_t copy,
                        uint32_t sweep_index, const unsigned char *active_t)
{
    const uint32_t purpose = p->update == GF_ANNEAL ? RNG_ANNEAL : RNG_STOCHASTIC;
    const struct gf_params pl = *p;
    const size_t lr = 2 * (size_t)s->nc * s->nc;
    for (int par = 0; par < 2; par++) {
        /* boundary slices first; their links travel while the interior
         * is updated (one rank: every site is "boundary") */
        update_sites(s, s->sites[par], 0, s->nbound[par], &pl, seed, copy, sweep_index, purpose, active_t);
        struct halo_xfer x;
        struct halo_part parts[2];
        if (s->dom)
            halo_start(&x, s->dom, s->links, sizeof(store_t), lr, parts,
                       halo_parts_gaugefix(s->dom, gf_ndirs(p->gauge), par, parts));
        update_sites(s, s->sites[par], s->nbound[par], s->nsites[par], &pl, seed, copy, sweep_index, purpose, active_t);
        if (s->dom) halo_finish(&x);
    }
}

/* Copy the storage into a double host field of the same geometry (and the
 * transform into t when both exist). */
static void to_double(struct gf_state *s, struct field *u, double *t)
{
    const size_t lr = 2 * (size_t)s->nc * s->nc;
    const store_t *U = (const store_t *)s->links;
    const int64_t nl = s->lat.V * LAT_ND;
#pragma omp parallel for schedule(static) if (nl >= 4 * GF_OMP_MIN_COPY)
    for (int64_t l = 0; l < nl; l++)
        for (size_t a = 0; a < lr; a++) u->d[(size_t)l * lr + a] = (double)U[(size_t)l * lr + a];
    if (t && s->transform) {
        const store_t *T = (const store_t *)s->transform;
#pragma omp parallel for schedule(static) if (s->lat.V >= GF_OMP_MIN_COPY)
        for (int64_t x = 0; x < s->lat.V; x++)
            for (size_t a = 0; a < lr; a++) t[(size_t)x * lr + a] = (double)T[(size_t)x * lr + a];
    }
}

void VSFX(gf_cpu_upload)(struct gf_state *s, const struct field *u, const double *transform)
{
    const size_t lr = 2 * (size_t)s->nc * s->nc;
    const size_t nreal = (size_t)s->lat.V * LAT_ND * lr;
    store_t *U = (store_t *)lat_malloc(nreal * sizeof(store_t));
#pragma omp parallel for schedule(static) if (s->lat.V >= GF_OMP_MIN_COPY)
    for (int64_t l = 0; l < s->lat.V * LAT_ND; l++)
        for (size_t a = 0; a < lr; a++) U[(size_t)l * lr + a] = (store_t)u->d[(size_t)l * lr + a];
    s->links = U;
    s->transform = NULL;
    if (transform) {
        store_t *T = (store_t *)lat_malloc((size_t)s->lat.V * lr * sizeof(store_t));
#pragma omp parallel for schedule(static) if (s->lat.V >= GF_OMP_MIN_COPY)
        for (int64_t x = 0; x < s->lat.V; x++)
            for (size_t a = 0; a < lr; a++) T[(size_t)x * lr + a] = (store_t)transform[(size_t)x * lr + a];
        s->transform = T;
    }
}

void VSFX(gf_cpu_measure)(struct gf_state *s, enum gauge_kind g, struct gauge_quality *q)
{
#if defined(LAT_VARIANT_D)
    struct field f = {.lat = s->lat, .nc = s->nc, .prec = 64, .d = (double *)s->links, .dom = s->dom};
    gauge_quality_measure(&f, g, q);
#else
    if (!s->scratch.d) {
        field_alloc(&s->scratch, &s->lat, s->nc, 64);
        s->scratch.dom = s->dom;
    }
    to_double(s, &s->scratch, NULL);
    gauge_quality_measure(&s->scratch, g, q);
#endif
}

ALWAYS_INLINE void reunitarize_matrix(int n, store_t *p)
{
    lat_complex m[NN];
    cpu_load(n * n, m, p);
    sun_reunitarize(n, m);
    cpu_store_to(n * n, p, m);
}

void VSFX(gf_cpu_reunitarize)(struct gf_state *s)
{
    const int n = s->nc;
    const size_t lr = 2 * (size_t)n * n;
    store_t *U = (store_t *)s->links;
    const int64_t nl = s->lat.V * LAT_ND;
    if (n == 3) {
#pragma omp parallel for schedule(static) if (nl >= 4 * GF_OMP_MIN)
        for (int64_t l = 0; l < nl; l++) reunitarize_matrix(3, U + (size_t)l * lr);
    } else {
#pragma omp parallel for schedule(static) if (nl >= 4 * GF_OMP_MIN)
        for (int64_t l = 0; l < nl; l++) reunitarize_matrix(n, U + (size_t)l * lr);
    }
    store_t *T = (store_t *)s->transform;
    if (T) {
#pragma omp parallel for schedule(static) if (s->lat.V >= GF_OMP_MIN_COPY)
        for (int64_t x = 0; x < s->lat.V; x++) reunitarize_matrix(n, T + (size_t)x * lr);
    }
}

void VSFX(gf_cpu_download)(struct gf_state *s, struct field *u, double *transform)
{
    if (u->prec != 64 || u->nc != s->nc || u->lat.V != s->lat.V)
        lat_die(1, NULL, "internal error: gauge-fixing download into a field of another shape");
    to_double(s, u, transform);
}
