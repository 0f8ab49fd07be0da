/* gauge_transform.c -- applying, composing and drawing gauge transformations
 * of host fields; see gauge_transform.h for the layout and the contract.
 * Every site's work depends only on that site: OpenMP loops give the same
 * bits with any number of threads. */
#include "lattice/gauge_transform.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include "math/rng.h"
#include "math/sun.h"
#include <string.h>

#define NN (LAT_NC_MAX * LAT_NC_MAX)

static void check_nc(int nc)
{
    if (nc < 1 || nc > LAT_NC_MAX) lat_die(1, NULL, "internal error: gauge transformation of SU(%d)", nc);
}

void gauge_transform_identity(int nc, int64_t V, double *g)
{
    check_nc(nc);
    size_t nn = (size_t)nc * nc;
#pragma omp parallel for schedule(static) if (V >= 1024)
    for (int64_t s = 0; s < V; s++) sun_unit(nc, (lat_complex *)(g + 2 * nn * (size_t)s));
}

static void random_on(const struct geometry *d, int nc, int64_t V, uint64_t seed, uint32_t copy, double *g)
{
    check_nc(nc);
    size_t nn = (size_t)nc * nc;
#pragma omp parallel for schedule(static) if (V >= 1024)
    for (int64_t s = 0; s < V; s++) {
        struct lat_rng r;
        rng_init(&r, seed, copy, (uint64_t)geometry_any_global_site(d, s), 0, RNG_ORBIT);
        sun_random_haar(nc, g + 2 * nn * (size_t)s, &r);
    }
}

void gauge_transform_random(int nc, int64_t V, uint64_t seed, uint32_t copy, double *g)
{
    random_on(NULL, nc, V, seed, copy, g);
}

void gauge_transform_random_field(const struct field *u, uint64_t seed, uint32_t copy, double *g)
{
    random_on(u->dom, u->nc, u->lat.V, seed, copy, g);
}

/* U_mu(x) -> g(x) U_mu(x) g(x+mu)^dag for mu0 <= mu < 4 */
static void apply_dirs(struct field *u, const double *g, int mu0)
{
    int n = u->nc;
    check_nc(n);
    if (u->prec != 64) lat_die(1, NULL, "internal error: gauge_transform_apply needs a double field");
    size_t nn = (size_t)n * n;
    const struct lattice *lat = &u->lat;
    /* on a slab: the owned sites (the upper halo's g is there for x+mu),
     * then the halo links from their owners */
    const int64_t v3 = lat->V / lat->L[3];
    const int64_t s0 = geometry_t_begin(u->dom) * v3, s1 = geometry_t_end(u->dom, lat) * v3;
#pragma omp parallel for schedule(static) if (lat->V >= 1024)
    for (int64_t s = s0; s < s1; s++) {
        const lat_complex *gx = (const lat_complex *)(g + 2 * nn * (size_t)s);
        lat_complex t[NN];
        for (int mu = mu0; mu < LAT_ND; mu++) {
            const lat_complex *gy = (const lat_complex *)(g + 2 * nn * (size_t)lattice_neighbour(lat, s, mu, +1));
            lat_complex *m = (lat_complex *)field_link(u, s, mu);
            sun_mul(n, t, gx, m);
            sun_mul_nd(n, m, t, gy);
        }
    }
    field_halo_refresh(u);
}

void gauge_transform_apply(struct field *u, const double *g) { apply_dirs(u, g, 0); }

void gauge_transform_apply_time(struct field *u, double *g)
{
    halo_refresh_sites(u->dom, g, field_link_reals(u->nc));
    apply_dirs(u, g, LAT_ND - 1);
}

void gauge_transform_compose(int nc, int64_t V, double *acc, const double *g)
{
    check_nc(nc);
    size_t nn = (size_t)nc * nc;
#pragma omp parallel for schedule(static) if (V >= 1024)
    for (int64_t s = 0; s < V; s++) {
        lat_complex t[NN];
        lat_complex *a = (lat_complex *)(acc + 2 * nn * (size_t)s);
        sun_mul(nc, t, (const lat_complex *)(g + 2 * nn * (size_t)s), a);
        memcpy(a, t, sizeof(lat_complex) * nn);
    }
}
