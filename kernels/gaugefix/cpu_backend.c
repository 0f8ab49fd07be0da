/* gaugefix/cpu_backend.c -- gf_backend_cpu (backend.h): the one backend
 * struct, dispatching on the precision ('d', 's', 'm') to the three builds
 * of gaugefix/cpu.c, plus the state set-up they share (site lists per
 * parity, backward-neighbour table, gf_cpu_state_init/free: cpu.h); and
 * gf_backend_for (backend.h), the backend of a --device decision. */
#include "gaugefix/cpu.h"
#include "base/lat.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

void gf_cpu_state_init(struct gf_state *s, const struct field *u, char prec)
{
    memset(s, 0, sizeof *s);
    s->lat = u->lat;
    s->nc = u->nc;
    s->prec = prec;
    s->dom = u->dom;
    s->v3 = u->lat.V / u->lat.L[3];
    const int64_t V = u->lat.V;
    const struct geometry *d = u->dom;
    s->bwd = lat_malloc((size_t)V * 4 * sizeof(int32_t));
    s->sites[0] = lat_malloc((size_t)(V / 2 + 1) * sizeof(int32_t));
    s->sites[1] = lat_malloc((size_t)(V / 2 + 1) * sizeof(int32_t));
    for (int64_t x = 0; x < V; x++)
        for (int mu = 0; mu < LAT_ND; mu++) s->bwd[4 * x + mu] = (int32_t)lattice_neighbour(&s->lat, x, mu, -1);
    /* owned slices; on a slab the boundary slices 1 and lt come first */
    const int tb = geometry_t_begin(d), te = geometry_t_end(d, &s->lat);
    for (int pass = 0; pass < 2; pass++) {
        for (int t = tb; t < te; t++) {
            int boundary = !d || t == tb || t == te - 1;
            if (boundary != (pass == 0)) continue;
            for (int64_t x = t * s->v3; x < (t + 1) * s->v3; x++) {
                int p = geometry_parity(d, &s->lat, x);
                s->sites[p][s->nsites[p]++] = (int32_t)x;
            }
        }
        if (pass == 0) { s->nbound[0] = s->nsites[0]; s->nbound[1] = s->nsites[1]; }
    }
}

void gf_cpu_state_free(struct gf_state *s)
{
    free(s->links);
    free(s->transform);
    free(s->bwd);
    free(s->sites[0]);
    free(s->sites[1]);
    if (s->scratch.d) field_free(&s->scratch);
    memset(s, 0, sizeof *s);
}

static struct gf_state *cpu_create(const struct field *u, const double *transform, char precision)
{
    if (u->prec != 64) lat_die(1, NULL, "internal error: gauge-fixing backend needs a double host field");
    if (u->nc < 2 || u->nc > LAT_NC_MAX) lat_die(1, NULL, "gauge fixing of SU(%d) is not supported (N = 2..%d)", u->nc, LAT_NC_MAX);
    if (precision != 'd' && precision != 's' && precision != 'm')
        lat_die(1, NULL, "internal error: precision '%c' (expected d, s or m)", precision);
    struct gf_state *s = lat_malloc(sizeof *s);
    gf_cpu_state_init(s, u, precision);
    switch (precision) {
    case 'd': gf_cpu_upload_d(s, u, transform); break;
    case 's': gf_cpu_upload_s(s, u, transform); break;
    default: gf_cpu_upload_m(s, u, transform); break;
    }
    return s;
}

static void cpu_sweep(struct gf_state *s, const struct gf_params *p, uint64_t seed, uint32_t copy,
                      uint32_t sweep_index, const unsigned char *active_t)
{
    switch (s->prec) {
    case 'd': gf_cpu_sweep_d(s, p, seed, copy, sweep_index, active_t); break;
    case 's': gf_cpu_sweep_s(s, p, seed, copy, sweep_index, active_t); break;
    default: gf_cpu_sweep_m(s, p, seed, copy, sweep_index, active_t); break;
    }
}

static void cpu_measure(struct gf_state *s, enum gauge_kind g, struct gauge_quality *q)
{
    switch (s->prec) {
    case 'd': gf_cpu_measure_d(s, g, q); break;
    case 's': gf_cpu_measure_s(s, g, q); break;
    default: gf_cpu_measure_m(s, g, q); break;
    }
}

static void cpu_reunitarize(struct gf_state *s)
{
    switch (s->prec) {
    case 'd': gf_cpu_reunitarize_d(s); break;
    case 's': gf_cpu_reunitarize_s(s); break;
    default: gf_cpu_reunitarize_m(s); break;
    }
}

static void cpu_download(struct gf_state *s, struct field *u, double *transform)
{
    switch (s->prec) {
    case 'd': gf_cpu_download_d(s, u, transform); break;
    case 's': gf_cpu_download_s(s, u, transform); break;
    default: gf_cpu_download_m(s, u, transform); break;
    }
}

static void cpu_destroy(struct gf_state *s)
{
    if (!s) return;
    gf_cpu_state_free(s);
    free(s);
}

/* The CPU keeps 18 reals per link: in double, unitarity stays at ~1e-15
 * (no reprojection needed); single and mixed drift slowly (every 100 sweeps). */
const struct gf_backend gf_backend_cpu = {
    "cpu", 2, LAT_NC_MAX, {0, 100, 100},
    cpu_create, cpu_sweep, cpu_measure, cpu_reunitarize, cpu_download, cpu_destroy, NULL, NULL,
};

const struct gf_backend *gf_backend_for(enum backend b)
{
    if (b == BACKEND_CPU) return &gf_backend_cpu;
#ifdef LAT_HAVE_CUDA
    return &gf_backend_gpu; /* gpu.c */
#else
    return NULL; /* make CUDA=0 */
#endif
}
