/* hmc/gpu.c -- the host side of the GPU HMC (contracts: hmc/gpu.h): the
 * checks of the device fields, momenta to and from the host, the sums of
 * the blocks' partials per timeslice in global order, device copies, the
 * slabs of an MPI run (which field lies on which slab, the links' halo
 * exchange through gpu/halo.cu).
 * Plain C; with CUDA (LAT_HAVE_CUDA) it calls the launchers of gpu_d.cu,
 * without it every entry point says "built without CUDA" (exit 1). */
#include "hmc/gpu.h"
#include "base/log.h"

#include "base/comm.h"

#ifdef LAT_HAVE_CUDA
#include "hmc/site.h"
#include "lattice/geometry.h"
#include "lattice/sites.h"
#include <stdlib.h>
#include <string.h>

/* The slab of every device field made here on an MPI run: struct gpu_field
 * has no room for it (the field's site0, h0, h1 say where it lies; this
 * table the geometry and the links' halo exchange), looked up by the
 * device pointer.  One rank: no entry, d NULL. */
#define HMC_GPU_MAX_SLAB_FIELDS 64
static struct hmc_slab_entry {
    const void *links;
    const struct geometry *d;
    struct gpu_halo *halo; /* made on the first refresh */
} slab_fields[HMC_GPU_MAX_SLAB_FIELDS];

static struct hmc_slab_entry *slab_of(const struct gpu_field *f)
{
    for (int i = 0; i < HMC_GPU_MAX_SLAB_FIELDS; i++)
        if (f->links && slab_fields[i].links == f->links) return &slab_fields[i];
    return NULL;
}

/* f lies on d's slab: its owned slices are the launch range, site0 global */
static void slab_register(struct gpu_field *f, const struct geometry *d)
{
    if (!d) return;
    if (d->lt % 2) lat_die_all(1, "GPU HMC", "%d timeslices on this rank: the GPU HMC needs an even number per rank", d->lt);
    const int64_t v3h = f->Vh / f->L[3];
    f->site0 = (int64_t)(d->t0 - 1) * d->v3;
    f->h0 = (int)v3h;
    f->h1 = (int)(v3h * (d->lt + 1));
    for (int i = 0; i < HMC_GPU_MAX_SLAB_FIELDS; i++)
        if (!slab_fields[i].links) {
            slab_fields[i] = (struct hmc_slab_entry){f->links, d, NULL};
            return;
        }
    lat_die(1, "GPU HMC", "more than %d device fields on a slab at once", HMC_GPU_MAX_SLAB_FIELDS);
}

/* every field the kernels take: SU(3), double, whole links, one process */
static void check_field(const struct gpu_field *f, const char *what)
{
    if (f->nc != 3 || f->prec != 'd' || f->recon != GPU_RECON_FULL || f->transform)
        lat_die(1, "GPU HMC", "%s: SU(%d) prec '%c' recon %d; the GPU HMC needs SU(3), double, 18 reals (hmc_gpu_field_create)",
                what, f->nc, f->prec, f->recon);
}

static void check_pair(const struct gpu_field *a, const struct gpu_field *b, const char *what)
{
    check_field(a, what);
    check_field(b, what);
    if (a->links == b->links) /* the kernels read one and write the other (__restrict__) */
        lat_die(1, "GPU HMC", "%s: the same device field twice", what);
    if (memcmp(a->L, b->L, sizeof a->L))
        lat_die(1, "GPU HMC", "%s: fields of %dx%dx%dx%d and %dx%dx%dx%d", what, a->L[0], a->L[1], a->L[2], a->L[3], b->L[0],
                b->L[1], b->L[2], b->L[3]);
    const struct hmc_slab_entry *sa = slab_of(a), *sb = slab_of(b);
    if ((sa ? sa->d : NULL) != (sb ? sb->d : NULL) || a->site0 != b->site0 || a->h0 != b->h0 || a->h1 != b->h1)
        lat_die(1, "GPU HMC", "%s: fields of different slabs (global site %lld and %lld first)", what, (long long)a->site0,
                (long long)b->site0);
}

void hmc_gpu_field_create(struct gpu_field *f, const struct field *u)
{
    if (u->nc != 3) lat_die(1, "GPU HMC", "SU(%d) links: the GPU HMC is SU(3) only", u->nc);
    gpu_field_create_recon(f, u, 'd', 0, GPU_RECON_FULL);
    slab_register(f, u->dom);
    hmc_gpu_zero(f);
}

void hmc_gpu_field_free(struct gpu_field *f)
{
    struct hmc_slab_entry *e = slab_of(f);
    if (e) {
        gpu_halo_free(e->halo);
        memset(e, 0, sizeof *e);
    }
    gpu_field_free(f);
}

void hmc_gpu_field_like(struct gpu_field *f, const struct gpu_field *g)
{
    check_field(g, "field like another");
    struct field shape; /* the lattice and N only: gpu_field_create_recon reads no links */
    memset(&shape, 0, sizeof shape);
    const char *why = NULL;
    if (lattice_init(&shape.lat, g->L, &why)) lat_die(1, "GPU HMC", "a field like a %dx%dx%dx%d one: %s", g->L[0], g->L[1], g->L[2], g->L[3], why);
    shape.nc = 3;
    shape.prec = 64;
    hmc_gpu_field_create(f, &shape);
    const struct hmc_slab_entry *e = slab_of(g);
    slab_register(f, e ? e->d : NULL);
}

/* the bytes of a field's links (hmc_gpu_zero's extent) */
static size_t field_bytes(const struct gpu_field *f)
{
    return (size_t)8 * (size_t)f->nblk * (size_t)f->ncomp * GPU_LANES * sizeof(double);
}

void hmc_gpu_copy(struct gpu_field *dst, const struct gpu_field *src)
{
    check_pair(dst, src, "device copy");
    hmc_gpu_copy_d(dst, src, field_bytes(dst));
}

void hmc_gpu_sync(void) { hmc_gpu_sync_d(); }

void hmc_gpu_links_upload(struct gpu_field *f, const struct field *u)
{
    check_field(f, "links upload");
    gpu_field_upload(f, u, NULL);
}

void hmc_gpu_links_download(const struct gpu_field *f, struct field *u)
{
    check_field(f, "links download");
    gpu_field_download(f, u, NULL);
}

/* a host momentum array (momenta.h) is a double field of u's lattice */
static struct field momenta_as_field(const double *p, const struct field *u)
{
    struct field w = *u;
    w.prec = 64;
    w.d = (double *)p;
    w.f = NULL;
    w.h = NULL;
    w.norm = NULL;
    return w;
}

void hmc_gpu_momenta_upload(struct gpu_field *f, const double *p, const struct field *u)
{
    check_field(f, "momenta upload");
    struct field w = momenta_as_field(p, u);
    gpu_field_upload(f, &w, NULL);
}

void hmc_gpu_momenta_download(const struct gpu_field *f, double *p, const struct field *u)
{
    check_field(f, "momenta download");
    struct field w = momenta_as_field(p, u);
    gpu_field_download(f, &w, NULL);
}

void hmc_gpu_zero(struct gpu_field *f)
{
    check_field(f, "zero");
    gpu_memset(f->links, 0, field_bytes(f));
}

void hmc_gpu_momenta_draw(struct gpu_field *p, uint64_t seed, uint32_t trajectory)
{
    check_field(p, "momenta");
    hmc_gpu_draw_d(p, seed, trajectory);
}

/* the owned timeslices' sums (hmc/gpu.h "Sums"): per timeslice its pieces
 * in order into its global slot, the slots over the ranks, then in t order */
static long double slice_sum(const struct gpu_field *f, void (*launch)(const struct gpu_field *, int, int, int, double *))
{
    static double *scratch; /* device, kept between calls, grown as needed */
    static size_t cap;
    const struct hmc_slab_entry *e = slab_of(f);
    const struct geometry *d = e ? e->d : NULL;
    const int64_t v3h = f->Vh / f->L[3];
    const int nsub = hmc_gpu_pieces(v3h), t0 = d ? 1 : 0, nt = d ? d->lt : f->L[3], lt = d ? d->global.L[3] : f->L[3];
    const size_t nb = (size_t)nt * (size_t)nsub;
    if (nb > cap) {
        gpu_free(scratch);
        scratch = gpu_alloc(nb * sizeof(double), "the HMC reduction buffer");
        cap = nb;
    }
    launch(f, t0, nt, nsub, scratch);
    double *host = malloc(nb * sizeof *host);
    long double *slot = calloc((size_t)lt, sizeof *slot);
    if (!host || !slot) lat_die(1, "GPU HMC", "out of memory for the sums of %d timeslices", lt);
    gpu_download(host, scratch, nb * sizeof *host);
    for (int t = 0; t < nt; t++) {
        long double s = 0;
        for (int b = 0; b < nsub; b++) s += host[(size_t)t * nsub + b];
        slot[geometry_t_global(d, t0 + t)] = s;
    }
    if (d) comm_sum_ld(slot, (size_t)lt); /* one non-zero term per slot: exact */
    long double s = 0;
    for (int t = 0; t < lt; t++) s += slot[t];
    free(host);
    free(slot);
    return s;
}

double hmc_gpu_kinetic_energy(const struct gpu_field *p)
{
    check_field(p, "kinetic energy");
    return (double)slice_sum(p, hmc_gpu_kinetic_d);
}

void hmc_gpu_link_update(struct gpu_field *u, const struct gpu_field *p, double eps)
{
    check_pair(u, p, "link update");
    hmc_gpu_update_d(u, p, eps);
    hmc_gpu_links_refresh(u);
}

void hmc_gpu_links_refresh(struct gpu_field *u)
{
    check_field(u, "links refresh");
    struct hmc_slab_entry *e = slab_of(u);
    if (!e) return; /* one rank: the whole periodic lattice */
    const struct geometry *d = e->d;
    if (!e->halo) e->halo = gpu_halo_new(u);
    const int pflip = (d->t0 + 1) & 1; /* local slice 0 is global t0 - 1 (gpu_slab_init's rule) */
    for (int mu = 0; mu < 4; mu++) { /* the same directions in every round: the peer path maps them once */
        struct halo_part parts[4] = {{-1, 1, d->lt + 1, mu, 0}, {-1, 1, d->lt + 1, mu, 1},
                                     {+1, d->lt, 0, mu, 0}, {+1, d->lt, 0, mu, 1}};
        gpu_halo_start(e->halo, u, d, parts, 4, pflip);
        gpu_halo_finish(e->halo, u, d, pflip);
    }
}

void hmc_gpu_gauge_force(const struct gpu_field *u, double beta, double coeff, struct gpu_field *f)
{
    check_pair(u, f, "gauge force");
    hmc_gpu_force_d(u, -coeff * beta / 3, f); /* gauge.c's c = -coeff beta / N */
}

void hmc_gpu_momenta_add(struct gpu_field *p, double eps, const struct gpu_field *f)
{
    check_pair(p, f, "momentum update");
    hmc_gpu_add_d(p, eps, f);
}

double hmc_gpu_gauge_action(const struct gpu_field *u, double beta)
{
    check_field(u, "gauge action");
    const struct hmc_slab_entry *e = slab_of(u);
    return hmc_gauge_action_of_sum(beta, 3, e ? e->d->global.V : u->V, slice_sum(u, hmc_gpu_plaquette_d));
}

void hmc_gpu_replicas_gather(struct gpu_field *parts, double **staging)
{
    const int R = comm_replicas(), me = comm_replica();
    check_field(&parts[me], "replicas' gather");
    const size_t b = field_bytes(&parts[me]), n = b / sizeof(double);
    if (!*staging) *staging = (double *)lat_malloc((size_t)R * b);
    double *host = *staging;
    gpu_download(host + (size_t)me * n, parts[me].links, b);
    comm_replica_gather(host, n);
    for (int q = 0; q < R; q++)
        if (q != me) gpu_upload(parts[q].links, host + (size_t)q * n, b);
}

#else /* built without CUDA */

static void no_cuda(const char *what) { lat_die(1, "GPU HMC", "%s: this lat was built without CUDA", what); }
void hmc_gpu_field_create(struct gpu_field *f, const struct field *u) { (void)f; (void)u; no_cuda("field"); }
void hmc_gpu_links_upload(struct gpu_field *f, const struct field *u) { (void)f; (void)u; no_cuda("links upload"); }
void hmc_gpu_links_download(const struct gpu_field *f, struct field *u) { (void)f; (void)u; no_cuda("links download"); }
void hmc_gpu_momenta_upload(struct gpu_field *f, const double *p, const struct field *u)
{ (void)f; (void)p; (void)u; no_cuda("momenta upload"); }
void hmc_gpu_momenta_download(const struct gpu_field *f, double *p, const struct field *u)
{ (void)f; (void)p; (void)u; no_cuda("momenta download"); }
void hmc_gpu_zero(struct gpu_field *f) { (void)f; no_cuda("zero"); }
void hmc_gpu_momenta_draw(struct gpu_field *p, uint64_t seed, uint32_t trajectory)
{ (void)p; (void)seed; (void)trajectory; no_cuda("momenta"); }
double hmc_gpu_kinetic_energy(const struct gpu_field *p) { (void)p; no_cuda("kinetic energy"); return 0; }
void hmc_gpu_link_update(struct gpu_field *u, const struct gpu_field *p, double eps)
{ (void)u; (void)p; (void)eps; no_cuda("link update"); }
void hmc_gpu_gauge_force(const struct gpu_field *u, double beta, double coeff, struct gpu_field *f)
{ (void)u; (void)beta; (void)coeff; (void)f; no_cuda("gauge force"); }
void hmc_gpu_momenta_add(struct gpu_field *p, double eps, const struct gpu_field *f)
{ (void)p; (void)eps; (void)f; no_cuda("momentum update"); }
double hmc_gpu_gauge_action(const struct gpu_field *u, double beta) { (void)u; (void)beta; no_cuda("gauge action"); return 0; }
void hmc_gpu_field_free(struct gpu_field *f) { (void)f; } /* none was made */
void hmc_gpu_field_like(struct gpu_field *f, const struct gpu_field *g) { (void)f; (void)g; no_cuda("field"); }
void hmc_gpu_copy(struct gpu_field *dst, const struct gpu_field *src) { (void)dst; (void)src; no_cuda("device copy"); }
void hmc_gpu_sync(void) { no_cuda("sync"); }
void hmc_gpu_links_refresh(struct gpu_field *u) { (void)u; no_cuda("links refresh"); }
void hmc_gpu_replicas_gather(struct gpu_field *parts, double **staging) { (void)parts; (void)staging; no_cuda("replicas' gather"); }

#endif
