/* hmc/gpu.c -- the host side of the GPU HMC (contracts: hmc/gpu.h): the
 * checks of the device fields, momenta to and from the host, the sums of
 * the blocks' partials in block order, device copies.
 * Plain C; with CUDA (LAT_HAVE_CUDA) it calls the launchers of gpu_d.cu,
 * without it every entry point says "built without CUDA" (exit 1). */
#include "hmc/gpu.h"
#include "base/log.h"

#ifdef LAT_HAVE_CUDA
#include "hmc/gauge.h"
#include "lattice/sites.h"
#include <stdlib.h>
#include <string.h>

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
}

void hmc_gpu_field_create(struct gpu_field *f, const struct field *u)
{
    if (u->nc != 3) lat_die(1, "GPU HMC", "SU(%d) links: the GPU HMC is SU(3) only", u->nc);
    if (u->dom) lat_die(1, "GPU HMC", "a slab of an MPI run: the GPU HMC takes the whole lattice on one process");
    gpu_field_create_recon(f, u, 'd', 0, GPU_RECON_FULL);
    hmc_gpu_zero(f);
}

void hmc_gpu_field_free(struct gpu_field *f) { gpu_field_free(f); }

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

/* the blocks' partials added in block order */
static double block_sum(const struct gpu_field *f, void (*launch)(const struct gpu_field *, double *))
{
    static double *scratch; /* device, kept between calls */
    if (!scratch) scratch = gpu_alloc(HMC_GPU_RED_NB * sizeof(double), "the HMC reduction buffer");
    launch(f, scratch);
    double host[HMC_GPU_RED_NB];
    gpu_download(host, scratch, sizeof host);
    long double s = 0; /* as the CPU's hmc_site_sum: no rounding of its own beside the blocks' */
    for (int b = 0; b < HMC_GPU_RED_NB; b++) s += host[b];
    return (double)s;
}

double hmc_gpu_kinetic_energy(const struct gpu_field *p)
{
    check_field(p, "kinetic energy");
    return block_sum(p, hmc_gpu_kinetic_d);
}

void hmc_gpu_link_update(struct gpu_field *u, const struct gpu_field *p, double eps)
{
    check_pair(u, p, "link update");
    hmc_gpu_update_d(u, p, eps);
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
    return hmc_gauge_action_of_sum(beta, 3, u->V, block_sum(u, hmc_gpu_plaquette_d));
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

#endif
