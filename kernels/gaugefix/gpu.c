/* gaugefix_gpu.c -- the CUDA gauge-fixing backend `gf_backend_gpu`
 * (gaugefix_backend.h): the host side.  Plain C; built only with CUDA
 * (LAT_HAVE_CUDA), the kernels are in gaugefix_gpu_{d,s,m}.cu.
 *
 * It converts between the host field (ILDG order, double) and the device
 * layout of gaugefix_gpu.h (parity-split, blocked structure of arrays, 12
 * reals per SU(3) link), dispatches every operation on the precision
 * ('d' double, 's' single, 'm' single storage with double arithmetic), and
 * normalises the deterministic per-timeslice sums of the kernels exactly as
 * gauge_quality_measure does on the host (F = mean over timeslices of F_t).
 * Errors (no device, out of memory, CUDA failures) end the program with one
 * line and exit 1 (gpu_util.cu). */
#ifdef LAT_HAVE_CUDA
#include "gaugefix/backend.h"
#include "gaugefix/gpu.h"
#include "gpu/gpu.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

struct gf_state {
    struct gpu_field f;
    struct lattice lat;
    unsigned char *active_host; /* the mask now on the device (Lt bytes) */
    int active_valid;
    /* a slab of an MPI run (geometry.h), else NULL: the device holds the
     * local lattice (lt+2 slices, lt even), local parity = global ^ pflip */
    const struct geometry *dom;
    int pflip;
    struct gpu_halo *halo;
    unsigned char *active_local;
};

static size_t store_size(char prec) { return prec == 'd' ? sizeof(double) : sizeof(float); }

static size_t links_reals(const struct gpu_field *f) { return (size_t)8 * f->nblk * f->ncomp * GPU_LANES; }
static size_t transform_reals(const struct gpu_field *f) { return (size_t)2 * f->nblk * f->ncomp_t * GPU_LANES; }

static int parity_of(const struct lattice *lat, int64_t s)
{
    int x[LAT_ND];
    lattice_coords(lat, s, x);
    return (x[0] + x[1] + x[2] + x[3]) & 1;
}

static void put(void *buf, char prec, size_t i, double v)
{
    if (prec == 'd') ((double *)buf)[i] = v;
    else ((float *)buf)[i] = (float)v;
}

static double get(const void *buf, char prec, size_t i)
{
    return prec == 'd' ? ((const double *)buf)[i] : (double)((const float *)buf)[i];
}

/* host links (ILDG order) -> device layout in buf */
static void pack_links(const struct gpu_field *f, const struct field *u, void *buf)
{
    int nr = 2 * u->nc * u->nc;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < u->lat.V; s++) {
        int p = parity_of(&u->lat, s);
        for (int mu = 0; mu < 4; mu++)
            for (int c = 0; c < f->ncomp && c < nr; c++) {
                double v = u->prec == 64 ? field_link(u, s, mu)[c] : (double)field_link_f(u, s, mu)[c];
                put(buf, f->prec, gpu_index(f->nblk, f->ncomp, f->vec, p * 4 + mu, c, s >> 1), v);
            }
    }
}

static void unpack_links(const struct gpu_field *f, const void *buf, struct field *u)
{
    int n = u->nc, nr = 2 * n * n;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < u->lat.V; s++) {
        int p = parity_of(&u->lat, s);
        for (int mu = 0; mu < 4; mu++) {
            lat_complex m[LAT_NC_MAX * LAT_NC_MAX];
            double *d = (double *)m;
            for (int c = 0; c < f->ncomp; c++) d[c] = get(buf, f->prec, gpu_index(f->nblk, f->ncomp, f->vec, p * 4 + mu, c, s >> 1));
            if (n == 3) su3_rebuild_row3(m);
            if (u->prec == 64) memcpy(field_link(u, s, mu), d, sizeof(double) * nr);
            else
                for (int c = 0; c < nr; c++) field_link_f(u, s, mu)[c] = (float)d[c];
        }
    }
}

/* the transform between host order (g) and the device layout (buf), in
 * the direction to_device says */
static void copy_transform(const struct gpu_field *f, double *g, void *buf, int to_device)
{
    int nr = 2 * f->nc * f->nc;
    struct lattice lat;
    const char *why;
    lattice_init(&lat, f->L, &why);
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < f->V; s++) {
        int p = parity_of(&lat, s);
        for (int c = 0; c < nr; c++) {
            size_t i = gpu_index(f->nblk, f->ncomp_t, f->vec, p, c, s >> 1);
            if (to_device) put(buf, f->prec, i, g[(size_t)s * nr + c]);
            else g[(size_t)s * nr + c] = get(buf, f->prec, i);
        }
    }
}

static struct gf_state *gpu_create(const struct field *u, const double *transform, char precision)
{
    if (precision != 'd' && precision != 's' && precision != 'm')
        lat_die(2, NULL, "--precision: '%c' is not one of double|single|mixed", precision);
    if (u->nc != 2 && u->nc != 3)
        lat_die(1, "GPU", "the CUDA backend has kernels for SU(2) and SU(3), not SU(%d): use --device cpu", u->nc);
    /* the parity-split layout needs an even local extent: lt + 2 slices */
    if (u->dom && u->dom->lt % 2)
        lat_die_all(1, "GPU", "%d ranks leave %d timeslices per rank; the GPU backend needs an even number (Lt/R even)",
                    u->dom->size, u->dom->lt);
    struct gf_state *s = lat_calloc(1, sizeof *s);
    struct gpu_field *f = &s->f;
    s->lat = u->lat;
    for (int mu = 0; mu < 4; mu++) f->L[mu] = u->lat.L[mu];
    f->nc = u->nc;
    f->prec = precision;
    f->vec = (int)(16 / store_size(precision));
    f->ncomp = u->nc == 3 ? 12 : 2 * u->nc * u->nc;
    f->ncomp_t = (2 * u->nc * u->nc + f->vec - 1) / f->vec * f->vec;
    f->V = u->lat.V;
    f->Vh = u->lat.V / 2;
    f->nblk = (f->Vh + GPU_LANES - 1) / GPU_LANES;
    size_t es = store_size(precision);

    size_t nl = links_reals(f);
    void *buf = lat_calloc(nl, es);
    pack_links(f, u, buf);
    f->links = gpu_alloc(nl * es, "the gauge field");
    gpu_upload(f->links, buf, nl * es);
    free(buf);
    if (transform) {
        size_t nt = transform_reals(f);
        buf = lat_calloc(nt, es);
        copy_transform(f, (double *)transform, buf, 1);
        f->transform = gpu_alloc(nt * es, "the gauge transformation");
        gpu_upload(f->transform, buf, nt * es);
        free(buf);
    }
    f->active = gpu_alloc((size_t)f->L[3], "the timeslice mask");
    s->active_host = lat_calloc((size_t)f->L[3], 1);
    if (u->dom) {
        const struct geometry *d = u->dom;
        s->dom = d;
        s->pflip = (d->t0 + 1) & 1; /* local slice 0 is global t0 - 1 */
        f->site0 = (int64_t)(d->t0 - 1) * d->v3;
        s->halo = gpu_halo_new(f);
        s->active_local = lat_calloc((size_t)f->L[3], 1);
    }
    gpu_sync("upload");
    return s;
}

static void sweep_launch(struct gf_state *s, const struct gf_params *p, uint64_t seed, uint32_t copy,
                         uint32_t sweep_index, int act, int parity)
{
    struct gpu_field *f = &s->f;
    switch (f->prec) {
    case 'd': gpu_gf_sweep_d(f, p, seed, copy, sweep_index, act, parity); break;
    case 's': gpu_gf_sweep_s(f, p, seed, copy, sweep_index, act, parity); break;
    default: gpu_gf_sweep_m(f, p, seed, copy, sweep_index, act, parity); break;
    }
}

const struct geometry *gf_gpu_domain(struct gf_state *s) { return s->dom; }

void gf_gpu_slab_step(struct gf_state *s, int parity, const struct halo_part *parts, int nparts,
                      void (*launch)(struct gpu_field *f, int local_parity, void *arg), void *arg)
{
    struct gpu_field *f = &s->f;
    const struct geometry *d = s->dom;
    const int lt = d->lt, lp = parity ^ s->pflip, v3h = (int)(f->Vh / f->L[3]);
    /* local slices [ta, tb) */
#define RANGE(ta, tb)                    \
    do {                                 \
        if ((tb) > (ta)) {               \
            f->h0 = (ta) * v3h;          \
            f->h1 = (tb) * v3h;          \
            launch(f, lp, arg);          \
        }                                \
    } while (0)
    if (nparts == 0) { /* nothing to send (Coulomb): the slab at once */
        RANGE(1, lt + 1);
        f->h0 = f->h1 = 0;
        return;
    }
    RANGE(1, 2);
    if (lt > 1) RANGE(lt, lt + 1);
    gpu_halo_start(s->halo, f, d, parts, nparts, s->pflip);
    RANGE(2, lt);
#undef RANGE
    f->h0 = f->h1 = 0;
    gpu_halo_finish(s->halo, f, d, s->pflip);
}

struct gf_launch { struct gf_state *s; const struct gf_params *p; uint64_t seed; uint32_t copy, sweep; int act; };

static void gf_launch(struct gpu_field *f, int local_parity, void *arg)
{
    const struct gf_launch *a = arg;
    (void)f;
    sweep_launch(a->s, a->p, a->seed, a->copy, a->sweep, a->act, local_parity);
}

static void gpu_sweep(struct gf_state *s, const struct gf_params *p, uint64_t seed, uint32_t copy, uint32_t sweep_index,
                      const unsigned char *active_t)
{
    struct gpu_field *f = &s->f;
    const struct geometry *d = s->dom;
    if (active_t && d) { /* the global mask, seen from the slab */
        for (int t = 0; t < f->L[3]; t++)
            s->active_local[t] = t >= 1 && t <= d->lt ? active_t[geometry_t_global(d, t)] : 0;
        active_t = s->active_local;
    }
    if (active_t && (!s->active_valid || memcmp(active_t, s->active_host, (size_t)f->L[3]) != 0)) {
        memcpy(s->active_host, active_t, (size_t)f->L[3]);
        gpu_upload(f->active, active_t, (size_t)f->L[3]);
        s->active_valid = 1;
    }
    int act = active_t != NULL;
    if (!d) {
        sweep_launch(s, p, seed, copy, sweep_index, act, -1);
        return;
    }
    /* a slab: per (global) parity the boundary slices 1 and lt, their links
     * on their way to the neighbours while the interior 2..lt-1 updates */
    struct gf_launch a = {s, p, seed, copy, sweep_index, act};
    for (int par = 0; par < 2; par++) {
        struct halo_part parts[2];
        int n = halo_parts_gaugefix(d, gf_ndirs(p->gauge), par, parts);
        gf_gpu_slab_step(s, par, parts, n, gf_launch, &a);
    }
}

static void gpu_measure(struct gf_state *s, enum gauge_kind g, struct gauge_quality *q)
{
    struct gpu_field *f = &s->f;
    int nt = f->L[3], n = f->nc;
    double *out = lat_calloc((size_t)2 * nt, sizeof(double));
    switch (f->prec) {
    case 'd': gpu_gf_quality_d(f, g, out); break;
    case 's': gpu_gf_quality_s(f, g, out); break;
    default: gpu_gf_quality_m(f, g, out); break;
    }
    const struct geometry *d = s->dom;
    if (d) { /* owned slices into their global slots; the others' zeros add exactly */
        int Lt = d->global.L[3];
        double *all = lat_calloc((size_t)2 * Lt, sizeof(double));
        for (int t = 1; t <= d->lt; t++) {
            all[2 * geometry_t_global(d, t)] = out[2 * t];
            all[2 * geometry_t_global(d, t) + 1] = out[2 * t + 1];
        }
        comm_sum(all, (size_t)2 * Lt);
        gauge_quality_from_sums(q, g, n, d->global.V, Lt, all);
        free(all);
    } else {
        gauge_quality_from_sums(q, g, n, f->V, nt, out);
    }
    free(out);
}

static void gpu_reunitarize(struct gf_state *s)
{
    switch (s->f.prec) {
    case 'd': gpu_gf_reunitarize_d(&s->f); break;
    case 's': gpu_gf_reunitarize_s(&s->f); break;
    default: gpu_gf_reunitarize_m(&s->f); break;
    }
}

static void gpu_download_all(struct gf_state *s, struct field *u, double *transform)
{
    struct gpu_field *f = &s->f;
    size_t es = store_size(f->prec);
    size_t nl = links_reals(f);
    void *buf = lat_malloc(nl * es);
    gpu_sync("sweeps");
    gpu_download(buf, f->links, nl * es);
    unpack_links(f, buf, u);
    free(buf);
    if (transform && f->transform) {
        size_t nt = transform_reals(f);
        buf = lat_malloc(nt * es);
        gpu_download(buf, f->transform, nt * es);
        copy_transform(f, transform, buf, 0);
        free(buf);
    }
}

static void gpu_destroy(struct gf_state *s)
{
    if (!s) return;
    gpu_free(s->f.links);
    gpu_free(s->f.transform);
    gpu_free(s->f.active);
    free(s->active_host);
    gpu_halo_free(s->halo);
    free(s->active_local);
    free(s);
}

/* Reprojection every 10 sweeps in every precision: the GPU keeps two rows
 * and rebuilds the third from their cross product, which multiplies the
 * rows' norm errors: where g(x) is far from 1 (annealing, microcanonical
 * steps, the first OR sweeps) the deviation grows ~1.2x per sweep
 * (measured with the kernels emulated on the host), from 1e-7 in single to
 * NaN within ~100 sweeps; every 10 sweeps bounds it to ~6x rounding in
 * every precision for ~5 % of the sweep time (a reprojection moves half a
 * sweep's bytes).  Kernels: SU(2) and SU(3) (gpu_sweep.cuh). */
const struct gf_backend gf_backend_gpu = {
    "gpu", 2, 3, {10, 10, 10},
    gpu_create, gpu_sweep, gpu_measure, gpu_reunitarize, gpu_download_all, gpu_destroy, gpu_inject_fault,
};

void gf_gpu_observables(struct gf_state *s, struct gpu_observables *o)
{
    struct gpu_field *f = &s->f;
    double r[10];
    switch (f->prec) {
    case 'd': gpu_gf_observables_d(f, r); break;
    case 's': gpu_gf_observables_s(f, r); break;
    default: gpu_gf_observables_m(f, r); break;
    }
    double nv = (double)f->nc * (double)f->V;
    o->plaq = r[0] / (6 * nv);
    o->plaq_s = r[1] / (3 * nv);
    o->plaq_t = r[2] / (3 * nv);
    o->link_trace = r[3] / (4 * nv);
    double nv3 = (double)f->nc * (double)(f->V / f->L[3]);
    o->poly_re = r[4] / nv3;
    o->poly_im = r[5] / nv3;
    o->unit_mean = r[6] / (4.0 * f->V);
    o->unit_max = r[7];
    o->det_mean = r[8] / (4.0 * f->V);
    o->det_max = r[9];
}

const struct gpu_field *gf_gpu_field(struct gf_state *s) { return &s->f; }

#else
typedef int gaugefix_gpu_disabled; /* built without CUDA: nothing here */
#endif
