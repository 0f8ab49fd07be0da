/* fourier/cpu_backend.c -- fa_backend_cpu (backend.h): the state set-up the
 * three precision builds of fourier/cpu.c share (neighbour tables, owned
 * slices) and the dispatch on the precision ('d', 's', 'm'). */
#include "fourier/cpu.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

static struct fa_state *cpu_create(const struct field *u, const double *transform, char prec, enum gauge_kind g)
{
    if (u->prec != 64) lat_die(1, NULL, "internal error: the Fourier backend needs a double host field");
    if (g == GAUGE_MAG) lat_die(1, NULL, "internal error: Fourier acceleration is for Landau and Coulomb gauge");
    struct fa_state *s = lat_malloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->lat = u->lat;
    s->dom = u->dom;
    s->nc = u->nc;
    s->nd = gf_ndirs(g);
    s->gauge = g;
    s->prec = prec;
    s->v3 = u->lat.V / u->lat.L[3];
    s->nt = geometry_global(u->dom, &u->lat)->L[3];
    s->tb = geometry_t_begin(u->dom);
    s->on = lat_malloc((size_t)s->nt);
    memset(s->on, 1, (size_t)s->nt);
    s->fcache = lat_calloc(2 * (size_t)s->nt, sizeof(double));
    s->te = geometry_t_end(u->dom, &u->lat);
    const int64_t V = u->lat.V;
    s->fwd = lat_malloc((size_t)V * 4 * sizeof(int32_t));
    s->bwd = lat_malloc((size_t)V * 4 * sizeof(int32_t));
    for (int64_t x = 0; x < V; x++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            s->fwd[4 * x + mu] = (int32_t)lattice_neighbour(&s->lat, x, mu, +1);
            s->bwd[4 * x + mu] = (int32_t)lattice_neighbour(&s->lat, x, mu, -1);
        }
    switch (prec) {
    case 'd': fa_cpu_upload_d(s, u, transform); break;
    case 's': fa_cpu_upload_s(s, u, transform); break;
    default: fa_cpu_upload_m(s, u, transform); break;
    }
    return s;
}

static void cpu_gradient(struct fa_state *s, double *f, double *dphi)
{
    switch (s->prec) {
    case 'd': fa_cpu_gradient_d(s, f, dphi); break;
    case 's': fa_cpu_gradient_s(s, f, dphi); break;
    default: fa_cpu_gradient_m(s, f, dphi); break;
    }
}
static void cpu_precondition(struct fa_state *s, double *dots)
{
    switch (s->prec) {
    case 'd': fa_cpu_precondition_d(s, dots); break;
    case 's': fa_cpu_precondition_s(s, dots); break;
    default: fa_cpu_precondition_m(s, dots); break;
    }
}
static void cpu_direction(struct fa_state *s, const unsigned char *set, const double *beta, double *dphi)
{
    switch (s->prec) {
    case 'd': fa_cpu_direction_d(s, set, beta, dphi); break;
    case 's': fa_cpu_direction_s(s, set, beta, dphi); break;
    default: fa_cpu_direction_m(s, set, beta, dphi); break;
    }
}
static void cpu_curvature(struct fa_state *s, double *d2)
{
    switch (s->prec) {
    case 'd': fa_cpu_curvature_d(s, d2); break;
    case 's': fa_cpu_curvature_s(s, d2); break;
    default: fa_cpu_curvature_m(s, d2); break;
    }
}
static void cpu_step(struct fa_state *s, const double *alpha)
{
    switch (s->prec) {
    case 'd': fa_cpu_step_d(s, alpha); break;
    case 's': fa_cpu_step_s(s, alpha); break;
    default: fa_cpu_step_m(s, alpha); break;
    }
}
static void cpu_orbit(struct fa_state *s, const unsigned char *set, uint64_t seed, uint32_t copy, uint32_t k)
{
    switch (s->prec) {
    case 'd': fa_cpu_orbit_d(s, set, seed, copy, k); break;
    case 's': fa_cpu_orbit_s(s, set, seed, copy, k); break;
    default: fa_cpu_orbit_m(s, set, seed, copy, k); break;
    }
}
static void cpu_reunitarize(struct fa_state *s)
{
    switch (s->prec) {
    case 'd': fa_cpu_reunitarize_d(s); break;
    case 's': fa_cpu_reunitarize_s(s); break;
    default: fa_cpu_reunitarize_m(s); break;
    }
}
static void cpu_freeze(struct fa_state *s, const unsigned char *on)
{
    switch (s->prec) {
    case 'd': fa_cpu_freeze_d(s, on); break;
    case 's': fa_cpu_freeze_s(s, on); break;
    default: fa_cpu_freeze_m(s, on); break;
    }
}
static void cpu_download(struct fa_state *s, struct field *u, double *transform)
{
    if (u->prec != 64 || u->nc != s->nc || u->lat.V != s->lat.V)
        lat_die(1, NULL, "internal error: Fourier download into a field of another shape");
    switch (s->prec) {
    case 'd': fa_cpu_download_d(s, u, transform); break;
    case 's': fa_cpu_download_s(s, u, transform); break;
    default: fa_cpu_download_m(s, u, transform); break;
    }
}
static void cpu_destroy(struct fa_state *s)
{
    if (!s) return;
    switch (s->prec) {
    case 'd': fa_cpu_free_d(s); break;
    case 's': fa_cpu_free_s(s); break;
    default: fa_cpu_free_m(s); break;
    }
    free(s->fwd);
    free(s->bwd);
    free(s->on);
    free(s->fcache);
    free(s);
}

const struct fa_backend fa_backend_cpu = {
    "cpu", cpu_create, cpu_gradient, cpu_precondition, cpu_direction, cpu_curvature, cpu_step, cpu_orbit, cpu_reunitarize, cpu_freeze,
    cpu_download, cpu_destroy,
};
