/* hmc/momenta.c -- momenta, kinetic energy, link update, site sums, the
 * owned sites of a slab (contracts: momenta.h). */
#include "hmc/momenta.h"
#include "base/log.h"
#include "lattice/geometry.h"
#include "math/rng.h"
#include "hmc/site.h"
#include <stdlib.h>
#include <string.h>

int64_t hmc_owned_begin(const struct field *u) { return u->dom ? u->dom->v3 : 0; }
int64_t hmc_owned_end(const struct field *u) { return u->dom ? u->dom->v3 * (u->dom->lt + 1) : u->lat.V; }

double *hmc_momenta_alloc(const struct field *u)
{
    size_t n = (size_t)u->lat.V * LAT_ND * field_link_reals(u->nc);
    double *p = calloc(n, sizeof *p);
    if (!p) lat_die(1, NULL, "out of memory for the HMC momenta (%zu reals)", n);
    return p;
}

long double hmc_site_sum(const struct field *u, long double (*f)(const void *ctx, int64_t site), const void *ctx)
{
    const struct geometry *d = u->dom;
    const int lt = geometry_global(d, &u->lat)->L[3], tb = geometry_t_begin(d), te = geometry_t_end(d, &u->lat);
    const int64_t per = u->lat.V / u->lat.L[3];
    long double *slice = calloc((size_t)lt, sizeof *slice);
    if (!slice) lat_die(1, NULL, "out of memory");
#pragma omp parallel for schedule(static)
    for (int t = tb; t < te; t++) {
        long double s = 0;
        for (int64_t x = (int64_t)t * per; x < (int64_t)(t + 1) * per; x++) s += f(ctx, x);
        slice[geometry_t_global(d, t)] = s;
    }
    /* the other ranks' slots are zeros: x + 0 is exact, so every rank holds
     * every slice's bits and adds them in global t order */
    if (d) comm_sum_ld(slice, (size_t)lt);
    long double total = 0;
    for (int t = 0; t < lt; t++) total += slice[t];
    free(slice);
    return total;
}

void hmc_momenta_draw(double *p, const struct field *u, uint64_t seed, uint32_t trajectory)
{
    const int n = u->nc;
    const size_t per = field_link_reals(n);
    const int64_t x0 = hmc_owned_begin(u), x1 = hmc_owned_end(u);
#pragma omp parallel for schedule(static)
    for (int64_t x = x0; x < x1; x++) {
        for (int mu = 0; mu < LAT_ND; mu++) {
            struct lat_rng r;
            rng_init(&r, seed, (uint32_t)mu, (uint64_t)geometry_global_site(u->dom, x), trajectory, RNG_MOMENTA);
            hmc_site_momentum(n, &r, (lat_complex *)(p + ((size_t)x * LAT_ND + mu) * per));
        }
    }
}

struct kin_ctx {
    const double *p;
    int n;
};

/* -1/2 sum_mu tr P^2 = 1/2 sum_mu sum_ab |P_ab|^2 for anti-Hermitian P */
static long double kin_site(const void *c, int64_t x)
{
    const struct kin_ctx *k = c;
    size_t per = field_link_reals(k->n);
    long double t = 0;
    for (int mu = 0; mu < LAT_ND; mu++)
        t += hmc_site_kinetic(k->n, (const lat_complex *)(k->p + ((size_t)x * LAT_ND + mu) * per));
    return t;
}

double hmc_kinetic_energy(const double *p, const struct field *u)
{
    struct kin_ctx k = {p, u->nc};
    return (double)hmc_site_sum(u, kin_site, &k);
}

void hmc_link_update(struct field *u, const double *p, double eps)
{
    const int n = u->nc;
    const size_t per = field_link_reals(n);
    const int64_t x0 = hmc_owned_begin(u), x1 = hmc_owned_end(u);
#pragma omp parallel for schedule(static)
    for (int64_t x = x0; x < x1; x++) {
        for (int mu = 0; mu < LAT_ND; mu++) {
            hmc_site_link_update(n, eps, (const lat_complex *)(p + ((size_t)x * LAT_ND + mu) * per),
                                 (lat_complex *)field_link(u, x, mu));
        }
    }
    /* the neighbours' new links into the halo slices: the forces' staples,
     * the plaquettes and the staggered hops read them (collective) */
    field_halo_refresh(u);
}
