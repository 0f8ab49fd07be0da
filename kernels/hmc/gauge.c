/* hmc/gauge.c -- the Wilson gauge monomial: action and force, on the host
 * and (the monomial's device callbacks) through hmc/gpu.h (contracts:
 * gauge.h). */
#include "hmc/gauge.h"
#include "hmc/gpu.h"
#include "hmc/momenta.h"
#include "hmc/site.h"
#include "heatbath/link.h"
#include "lattice/geometry.h"
#include "lattice/observables.h"

/* A = staple sum of U_mu(x) (heatbath/link.h); on a slab x is owned and
 * the staple reaches at most one slice up or down: the halo slices, which
 * hmc_link_update keeps current */
static void staple(const struct field *u, int64_t x, int mu, lat_complex *A)
{
    const struct lattice *lat = &u->lat;
    const int n = u->nc;
    int64_t xpm = lattice_neighbour(lat, x, mu, 1);
    sun_zero(n, A);
    for (int nu = 0; nu < LAT_ND; nu++) {
        if (nu == mu) continue;
        int64_t xpn = lattice_neighbour(lat, x, nu, 1), xmn = lattice_neighbour(lat, x, nu, -1);
        int64_t xpmmn = lattice_neighbour(lat, xpm, nu, -1);
        hb_staple_nu(n, A, (const lat_complex *)field_link(u, xpm, nu), (const lat_complex *)field_link(u, xpn, mu),
                     (const lat_complex *)field_link(u, x, nu), (const lat_complex *)field_link(u, xpmmn, nu),
                     (const lat_complex *)field_link(u, xmn, mu), (const lat_complex *)field_link(u, xmn, nu));
    }
}

double hmc_gauge_action(const struct field *u, double beta)
{
    /* lat-measure's plaquette sum (lattice/observables.c), not a copy of it */
    return hmc_gauge_action_of_sum(beta, u->nc, geometry_global(u->dom, &u->lat)->V, measure_plaquette_sum(u));
}

void hmc_gauge_force(const struct field *u, double beta, double coeff, double *out)
{
    const int n = u->nc;
    const size_t per = field_link_reals(n);
    const double c = -coeff * beta / n;
    const int64_t x0 = hmc_owned_begin(u), x1 = hmc_owned_end(u);
#pragma omp parallel for schedule(static)
    for (int64_t x = x0; x < x1; x++) {
        for (int mu = 0; mu < LAT_ND; mu++) {
            lat_complex A[LAT_NC_MAX * LAT_NC_MAX];
            staple(u, x, mu, A);
            hmc_site_gauge_force(n, c, (const lat_complex *)field_link(u, x, mu), A,
                                 (lat_complex *)(out + ((size_t)x * LAT_ND + mu) * per));
        }
    }
}

static double gauge_action_cb(void *ctx, const struct field *u)
{
    return hmc_gauge_action(u, ((struct hmc_gauge_ctx *)ctx)->beta);
}

static void gauge_force_cb(void *ctx, const struct field *u, double coeff, double *out)
{
    hmc_gauge_force(u, ((struct hmc_gauge_ctx *)ctx)->beta, coeff, out);
}

/* the device callbacks: hmc/gpu.h's action and force (without CUDA they
 * end the program with one line; lat-hmc asks for a GPU first) */
static double gauge_action_gpu_cb(void *ctx, const struct gpu_field *u)
{
    return hmc_gpu_gauge_action(u, ((struct hmc_gauge_ctx *)ctx)->beta);
}

static void gauge_force_gpu_cb(void *ctx, const struct gpu_field *u, double coeff, struct gpu_field *out)
{
    hmc_gpu_gauge_force(u, ((struct hmc_gauge_ctx *)ctx)->beta, coeff, out);
}

struct hmc_monomial hmc_gauge_monomial(struct hmc_gauge_ctx *ctx, double beta, int timescale)
{
    ctx->beta = beta;
    struct hmc_monomial m = {.name = "gauge", .ctx = ctx, .timescale = timescale, .action = gauge_action_cb, .force = gauge_force_cb,
                            .action_gpu = gauge_action_gpu_cb, .force_gpu = gauge_force_gpu_cb};
    return m;
}
