/* gpu/field.c -- the GPU layer's host side (plain C; built with CUDA only,
 * LAT_HAVE_CUDA): a device field from and to a host field, the update step
 * of a slab of an MPI run, and the normalised observables.
 *
 * Exported (contracts in gpu/field.h):
 *   gpu_field_create   device storage for the lattice of a host field
 *   gpu_field_create_recon  the same with the link compression chosen (8, 12)
 *   gpu_field_upload   host links (and transform) -> device layout
 *   gpu_field_download device layout -> host links (and transform)
 *   gpu_field_free     the device storage
 *   gpu_slab_init      a slab's halo buffers, f->site0, the parity flip
 *   gpu_slab_step      one parity's step: boundary, halo out, interior, halo in
 *   gpu_slab_free      the halo buffers
 *   gpu_field_observables  gpu_observables_sums (observables.cu) normalised
 *                      as SPEC §3 (and lattice/observables.c) say
 * Every error ends the program with one line, exit 1 (util.cu, lat_die). */
#ifdef LAT_HAVE_CUDA
#include "gpu/field.h"
#include "gpu/gpu.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "math/sun.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

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

/* host links (ILDG order) -> device layout in buf (recon 8: the 8 reals
 * of su3_pack8, computed in double) */
static void pack_links(const struct gpu_field *f, const struct field *u, void *buf)
{
    int nr = 2 * u->nc * u->nc;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < u->lat.V; s++) {
        int p = parity_of(&u->lat, s);
        for (int mu = 0; mu < 4; mu++) {
            if (f->recon == GPU_RECON_8) {
                lat_complex m[9];
                double *d = (double *)m, w[8];
                for (int c = 0; c < 18; c++) d[c] = u->prec == 64 ? field_link(u, s, mu)[c] : (double)field_link_f(u, s, mu)[c];
                su3_pack8(m, w);
                for (int c = 0; c < 8; c++) put(buf, f->prec, gpu_index(f->nblk, f->ncomp, f->vec, p * 4 + mu, c, s >> 1), w[c]);
                continue;
            }
            for (int c = 0; c < f->ncomp && c < nr; c++) {
                double v = u->prec == 64 ? field_link(u, s, mu)[c] : (double)field_link_f(u, s, mu)[c];
                put(buf, f->prec, gpu_index(f->nblk, f->ncomp, f->vec, p * 4 + mu, c, s >> 1), v);
            }
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
            if (f->recon == GPU_RECON_8) {
                double w[8];
                for (int c = 0; c < 8; c++) w[c] = get(buf, f->prec, gpu_index(f->nblk, f->ncomp, f->vec, p * 4 + mu, c, s >> 1));
                su3_unpack8(w, m);
            } else {
                for (int c = 0; c < f->ncomp && c < nr; c++) /* not the padding of a whole matrix */
                    d[c] = get(buf, f->prec, gpu_index(f->nblk, f->ncomp, f->vec, p * 4 + mu, c, s >> 1));
                if (f->recon == GPU_RECON_12) su3_rebuild_row3(m);
            }
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

void gpu_field_create(struct gpu_field *f, const struct field *u, char prec, int with_transform)
{
    gpu_field_create_recon(f, u, prec, with_transform, 0);
}

void gpu_field_create_recon(struct gpu_field *f, const struct field *u, char prec, int with_transform, int recon)
{
    if (prec != 'd' && prec != 's' && prec != 'm')
        lat_die(2, NULL, "--precision: '%c' is not one of double|single|mixed", prec);
    if (u->nc < GPU_MIN_NC || u->nc > GPU_MAX_NC) /* the tools refuse such N first (device_opt_fits) */
        lat_die(1, "GPU", "internal error: a device field of SU(%d) (the kernels are for N = %d..%d)", u->nc, GPU_MIN_NC,
                GPU_MAX_NC);
    /* the parity-split layout needs an even local extent: lt + 2 slices */
    if (u->dom && u->dom->lt % 2)
        lat_die_all(1, "GPU", "%d ranks leave %d timeslices per rank; the GPU backend needs an even number (Lt/R even)",
                    u->dom->size, u->dom->lt);
    if (recon == 0) recon = u->nc == 3 ? GPU_RECON_12 : GPU_RECON_FULL;
    /* SU(3) may also be stored whole (18: the Dirac operator's uncompressed links) */
    if (u->nc == 3 ? recon != GPU_RECON_12 && recon != GPU_RECON_8 && recon != GPU_RECON_FULL : recon != GPU_RECON_FULL)
        lat_die(2, "GPU", "link compression %d: SU(%d) links are stored %s", recon, u->nc,
                u->nc == 3 ? "in 18, 12 or 8 reals" : "whole (recon 18)");
    memset(f, 0, sizeof *f);
    for (int mu = 0; mu < 4; mu++) f->L[mu] = u->lat.L[mu];
    f->nc = u->nc;
    f->prec = prec;
    f->vec = (int)(16 / store_size(prec));
    f->recon = recon;
    /* whole matrices in whole 16-byte groups: 2N^2 rounded up to vec
     * (SU(5), SU(7) in float: 50 -> 52, 98 -> 100; the padding stays 0) */
    f->ncomp_t = (2 * u->nc * u->nc + f->vec - 1) / f->vec * f->vec;
    f->ncomp = recon == GPU_RECON_FULL ? f->ncomp_t : recon;
    f->V = u->lat.V;
    f->Vh = u->lat.V / 2;
    f->nblk = (f->Vh + GPU_LANES - 1) / GPU_LANES;
    size_t es = store_size(prec);
    f->links = gpu_alloc(links_reals(f) * es, "the gauge field");
    if (with_transform) f->transform = gpu_alloc(transform_reals(f) * es, "the gauge transformation");
    f->active = gpu_alloc((size_t)f->L[3], "the timeslice mask");
}

void gpu_field_upload(struct gpu_field *f, const struct field *u, const double *transform)
{
    size_t es = store_size(f->prec);
    size_t nl = links_reals(f);
    void *buf = lat_calloc(nl, es);
    pack_links(f, u, buf);
    gpu_upload(f->links, buf, nl * es);
    free(buf);
    if (transform && f->transform) {
        size_t nt = transform_reals(f);
        buf = lat_calloc(nt, es);
        copy_transform(f, (double *)transform, buf, 1);
        gpu_upload(f->transform, buf, nt * es);
        free(buf);
    }
    gpu_sync("upload");
}

void gpu_field_download(const struct gpu_field *f, struct field *u, double *transform)
{
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

void gpu_field_free(struct gpu_field *f)
{
    if (!f) return;
    gpu_free(f->links);
    gpu_free(f->transform);
    gpu_free(f->active);
    f->links = f->transform = NULL;
    f->active = NULL;
}

/* ---- slabs ---------------------------------------------------------------- */

void gpu_slab_init(struct gpu_slab *s, struct gpu_field *f, const struct geometry *d)
{
    memset(s, 0, sizeof *s);
    if (!d) return;
    s->dom = d;
    s->pflip = (d->t0 + 1) & 1; /* local slice 0 is global t0 - 1 */
    f->site0 = (int64_t)(d->t0 - 1) * d->v3;
    s->halo = gpu_halo_new(f);
}

void gpu_slab_free(struct gpu_slab *s)
{
    if (!s) return;
    gpu_halo_free(s->halo);
    s->halo = NULL;
}

void gpu_slab_step(struct gpu_slab *s, struct gpu_field *f, int parity, const struct halo_part *parts, int nparts,
                   void (*launch)(struct gpu_field *f, int local_parity, void *arg), void *arg)
{
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

/* ---- observables ------------------------------------------------------------ */

void gpu_field_observables(const struct gpu_field *f, struct gpu_observables *o)
{
    double r[10];
    gpu_observables_sums(f, r);
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

#else
typedef int gpu_field_disabled; /* built without CUDA: nothing here */
#endif
