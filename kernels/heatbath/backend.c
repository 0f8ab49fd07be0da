/* heatbath_backend.c -- the CPU heatbath backend (hb_backend_cpu: the field
 * in a host gauge_field of the chosen precision, sweeps from
 * heatbath_cpu.c, measurements from common/observables.c), the geometry
 * tables, and the choice of backend (hb_backend_for: the CUDA backend
 * hb_backend_gpu of heatbath_gpu.cu when built with CUDA, else none). */
#include "heatbath/backend.h"
#include "heatbath/cpu.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

void hb_geom_init(struct hb_geom *g, const struct lattice *lat) { hb_geom_init_dom(g, lat, NULL); }

void hb_geom_init_dom(struct hb_geom *g, const struct lattice *lat, const struct geometry *dom)
{
    g->lat = *lat;
    g->dom = dom;
    g->nb = lat_malloc((size_t)lat->V * 8 * sizeof(uint32_t));
    g->sites[0] = lat_malloc((size_t)(lat->V / 2 + 1) * sizeof(uint32_t));
    g->sites[1] = lat_malloc((size_t)(lat->V / 2 + 1) * sizeof(uint32_t));
    g->nsites[0] = g->nsites[1] = 0;
    for (int64_t x = 0; x < lat->V; x++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            g->nb[8 * x + mu] = (uint32_t)lattice_neighbour(lat, x, mu, +1);
            g->nb[8 * x + 4 + mu] = (uint32_t)lattice_neighbour(lat, x, mu, -1);
        }
    const int64_t v3 = lat->V / lat->L[3];
    const int tb = geometry_t_begin(dom), te = geometry_t_end(dom, lat);
    for (int pass = 0; pass < 2; pass++) {
        for (int t = tb; t < te; t++) {
            int boundary = !dom || t == tb || t == te - 1;
            if (boundary != (pass == 0)) continue;
            for (int64_t x = t * v3; x < (t + 1) * v3; x++) {
                int p = geometry_parity(dom, lat, x);
                g->sites[p][g->nsites[p]++] = (uint32_t)x;
            }
        }
        if (pass == 0) { g->nbound[0] = g->nsites[0]; g->nbound[1] = g->nsites[1]; }
    }
}

void hb_geom_free(struct hb_geom *g)
{
    free(g->nb);
    free(g->sites[0]);
    free(g->sites[1]);
    memset(g, 0, sizeof *g);
}

struct hb_state {
    struct field u; /* prec 64 ('d') or 32 ('s', 'm') */
    char precision;
    struct hb_geom geom;
};

static struct hb_state *cpu_create(const struct field *u, char precision)
{
    if (precision != 'd' && precision != 's' && precision != 'm')
        lat_die(1, NULL, "internal error: heatbath precision '%c'", precision);
    struct hb_state *s = lat_calloc(1, sizeof *s);
    s->precision = precision;
    field_copy(&s->u, u);
    field_convert(&s->u, precision == 'd' ? 64 : 32);
    hb_geom_init_dom(&s->geom, &u->lat, u->dom);
    return s;
}

static void *cpu_links(struct hb_state *s) { return s->u.prec == 64 ? (void *)s->u.d : (void *)s->u.f; }

static void cpu_heatbath(struct hb_state *s, double beta, uint64_t seed, uint32_t k)
{
    void *l = cpu_links(s);
    if (s->precision == 'd') hb_cpu_heatbath_d(&s->geom, s->u.nc, l, beta, seed, k);
    else if (s->precision == 's') hb_cpu_heatbath_s(&s->geom, s->u.nc, l, beta, seed, k);
    else hb_cpu_heatbath_m(&s->geom, s->u.nc, l, beta, seed, k);
}

static void cpu_overrelax(struct hb_state *s)
{
    void *l = cpu_links(s);
    if (s->precision == 'd') hb_cpu_overrelax_d(&s->geom, s->u.nc, l);
    else if (s->precision == 's') hb_cpu_overrelax_s(&s->geom, s->u.nc, l);
    else hb_cpu_overrelax_m(&s->geom, s->u.nc, l);
}

static void cpu_measure(struct hb_state *s, struct plaquette *p, double *re, double *im)
{
    if (p) *p = measure_plaquette(&s->u);
    if (re && im) measure_polyakov(&s->u, re, im);
}

static void cpu_download(struct hb_state *s, struct field *u)
{
    size_t n = field_reals(u);
    if (s->u.prec == 64) memcpy(u->d, s->u.d, n * sizeof(double));
    else
        for (size_t i = 0; i < n; i++) u->d[i] = s->u.f[i];
}

static void cpu_destroy(struct hb_state *s)
{
    if (!s) return;
    field_free(&s->u);
    hb_geom_free(&s->geom);
    free(s);
}

const struct hb_backend hb_backend_cpu = {
    "cpu", 2, LAT_NC_MAX, cpu_create, cpu_heatbath, cpu_overrelax, cpu_measure, cpu_download, cpu_destroy,
};

const struct hb_backend *hb_backend_for(enum backend b)
{
    if (b == BACKEND_CPU) return &hb_backend_cpu;
#ifdef LAT_HAVE_CUDA
    return &hb_backend_gpu; /* kernels/heatbath_gpu.cu */
#else
    return NULL; /* make CUDA=0: kernels/nocuda/gpu_stub.c has no heatbath */
#endif
}
