/* heatbath_cpu.c -- CPU heatbath and overrelaxation sweeps (OpenMP), one
 * object per precision variant: _d (double), _s (single), _m (single
 * storage, double arithmetic); see heatbath_cpu.h.
 *
 * Each link update loads the staple's links from the field into registers
 * (converting in the mixed variant), calls hb_staple_nu and
 * hb_link_heatbath / hb_link_overrelax of common/heatbath.h, and stores the
 * link back.  Sweep order and random streams are those of
 * heatbath_backend.h, so the result does not depend on the thread count. */
#include "cpu/variant.h"
#include "heatbath/cpu.h"
#include "heatbath/link.h"

typedef cpu_store hb_store;
#define HB_FN CPU_VARIANT
#define HB_DIRECT CPU_DIRECT /* storage and arithmetic share one layout: use the field in place */
#define HB_INLINE CPU_INLINE

#define NN (LAT_NC_MAX * LAT_NC_MAX)

/* below this many sites per parity a sweep runs on one thread (the result
 * is the same; tiny parallel regions only cost time) */
#define HB_OMP_MIN 256

/* a pointer to U_mu(x) as lat_complex: the field itself, or buf converted */
HB_INLINE const lat_complex *load(int n, const hb_store *links, int64_t x, int mu, lat_complex *buf)
{
    const hb_store *p = links + ((size_t)x * LAT_ND + mu) * 2 * n * n;
    if (HB_DIRECT) return (const lat_complex *)(const void *)p;
    cpu_load(n * n, buf, p);
    return buf;
}

HB_INLINE void store(int n, hb_store *links, int64_t x, int mu, const lat_complex *m)
{
    cpu_store_to(n * n, links + ((size_t)x * LAT_ND + mu) * 2 * n * n, m);
}

/* the staple sum A of U_mu(x) */
HB_INLINE void staple(int n, const struct hb_geom *g, const hb_store *links, int64_t x, int mu, lat_complex *A)
{
    lat_complex b[6][NN];
    const uint32_t *nbx = g->nb + 8 * x;
    int64_t xpm = nbx[mu];
    sun_zero(n, A);
    for (int nu = 0; nu < LAT_ND; nu++) {
        if (nu == mu) continue;
        int64_t xpn = nbx[nu], xmn = nbx[4 + nu];
        int64_t xpmmn = g->nb[8 * xpm + 4 + nu];
        hb_staple_nu(n, A, load(n, links, xpm, nu, b[0]), load(n, links, xpn, mu, b[1]),
                     load(n, links, x, nu, b[2]), load(n, links, xpmmn, nu, b[3]),
                     load(n, links, xmn, mu, b[4]), load(n, links, xmn, nu, b[5]));
    }
}

/* update U_mu(x): heatbath (with the stream of heatbath_backend.h) or OR */
HB_INLINE void link_update(int n, int heatbath, const struct hb_geom *g, hb_store *links, int64_t x, int mu,
                           double beta_n, uint64_t seed, uint32_t k)
{
    lat_complex A[NN], U[NN], buf[NN];
    staple(n, g, links, x, mu, A);
    sun_copy(n, U, load(n, links, x, mu, buf));
    if (heatbath) {
        struct lat_rng r;
        rng_init(&r, seed, 0, (uint64_t)geometry_global_site(g->dom, x), 4 * k + (uint32_t)mu, RNG_HEATBATH);
        hb_link_heatbath(n, U, A, beta_n, &r);
    } else {
        hb_link_overrelax(n, U, A);
    }
    store(n, links, x, mu, U);
}

/* One instantiation per N = 2, 3 with a constant n, and one for any N;
 * flatten inlines the whole header math into each, so the loops over n
 * unroll (a plain inline hint leaves the big helpers out of line). */
#if defined(__GNUC__)
#define HB_FLATTEN __attribute__((flatten, noinline))
#else
#define HB_FLATTEN
#endif
HB_FLATTEN static void link_update_2(int hb, const struct hb_geom *g, hb_store *l, int64_t x, int mu, double b, uint64_t s, uint32_t k)
{ link_update(2, hb, g, l, x, mu, b, s, k); }
HB_FLATTEN static void link_update_3(int hb, const struct hb_geom *g, hb_store *l, int64_t x, int mu, double b, uint64_t s, uint32_t k)
{ link_update(3, hb, g, l, x, mu, b, s, k); }
HB_FLATTEN static void link_update_n(int n, int hb, const struct hb_geom *g, hb_store *l, int64_t x, int mu, double b, uint64_t s, uint32_t k)
{ link_update(n, hb, g, l, x, mu, b, s, k); }

/* the links U_mu(sites[i0..i1)) */
static void update_links(int n, int heatbath, const struct hb_geom *g, hb_store *links, const uint32_t *sites,
                         int64_t i0, int64_t i1, int mu, double beta_n, uint64_t seed, uint32_t k)
{
#pragma omp parallel for schedule(static) if (i1 - i0 >= HB_OMP_MIN)
    for (int64_t i = i0; i < i1; i++) {
        if (n == 3) link_update_3(heatbath, g, links, sites[i], mu, beta_n, seed, k);
        else if (n == 2) link_update_2(heatbath, g, links, sites[i], mu, beta_n, seed, k);
        else link_update_n(n, heatbath, g, links, sites[i], mu, beta_n, seed, k);
    }
}

/* one sweep in the order of heatbath_backend.h; on a slab the boundary
 * slices go first and their new links travel to the neighbours' halos
 * while the interior is updated */
static void sweep(int n, int heatbath, const struct hb_geom *g, hb_store *links, double beta, uint64_t seed, uint32_t k)
{
    double beta_n = heatbath ? beta / n : 0;
    for (int parity = 0; parity < 2; parity++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            const uint32_t *sites = g->sites[parity];
            update_links(n, heatbath, g, links, sites, 0, g->nbound[parity], mu, beta_n, seed, k);
            struct halo_xfer x;
            struct halo_part parts[2];
            if (g->dom)
                halo_start(&x, g->dom, links, sizeof(hb_store), 2 * (size_t)n * n, parts,
                           halo_parts_heatbath(g->dom, parity, mu, parts));
            update_links(n, heatbath, g, links, sites, g->nbound[parity], g->nsites[parity], mu, beta_n, seed, k);
            if (g->dom) halo_finish(&x);
        }
}

void HB_FN(hb_cpu_heatbath)(const struct hb_geom *g, int nc, void *links, double beta, uint64_t seed, uint32_t k)
{
    sweep(nc, 1, g, links, beta, seed, k);
}

void HB_FN(hb_cpu_overrelax)(const struct hb_geom *g, int nc, void *links)
{
    sweep(nc, 0, g, links, 0, 0, 0);
}
