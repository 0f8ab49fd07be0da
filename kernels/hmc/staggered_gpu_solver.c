/* hmc/staggered_gpu_solver.c -- the staggered solves on one GPU, or one
 * GPU per rank on t-slabs (hmc/staggered_gpu_solver.h): upload,
 * solver_multishift_cg / solver_cg on the GPU operator's views with the GPU
 * vector kernels (staggered_reduce_layout's per-timeslice sums), download.  Plain
 * C; without CUDA only create exists (it answers NULL). */
#include "hmc/staggered_gpu_solver.h"
#include "base/clock.h"
#include "base/log.h"
#include <stdio.h>
#include <stdlib.h>

#ifndef LAT_HAVE_CUDA

struct staggered_gpu_solver *staggered_gpu_solver_create(const struct field *u, double mass, char *why, size_t len)
{
    (void)u, (void)mass;
    snprintf(why, len, "this lat was built without CUDA");
    return NULL;
}
static void no_gpu(const char *where) { lat_die(1, where, "internal error: no GPU solver exists without CUDA"); }
void staggered_gpu_solver_free(struct staggered_gpu_solver *s) { (void)s; }
double staggered_gpu_solver_mass(const struct staggered_gpu_solver *s) { (void)s, no_gpu("staggered_gpu_solver_mass"); return 0; }
void staggered_gpu_solver_set_links(struct staggered_gpu_solver *s, const struct field *u)
{
    (void)s, (void)u, no_gpu("staggered_gpu_solver_set_links");
}
enum solver_status staggered_gpu_solver_multishift(struct staggered_gpu_solver *s, const double *b, int nshift,
                                                   const double *sigma, double **x, const struct solver_params *par,
                                                   struct solver_result *res)
{
    (void)s, (void)b, (void)nshift, (void)sigma, (void)x, (void)par, (void)res;
    no_gpu("staggered_gpu_solver_multishift");
    return SOLVER_BREAKDOWN;
}
enum solver_status staggered_gpu_solver_cg(struct staggered_gpu_solver *s, const double *b, double *x,
                                           const struct solver_params *par, struct solver_result *res)
{
    (void)s, (void)b, (void)x, (void)par, (void)res;
    no_gpu("staggered_gpu_solver_cg");
    return SOLVER_BREAKDOWN;
}
enum solver_status staggered_gpu_solver_multishift_device(struct staggered_gpu_solver *s, const double *b, int nshift,
                                                          const double *sigma, double **x,
                                                          const struct solver_params *par, struct solver_result *res)
{
    (void)s, (void)b, (void)nshift, (void)sigma, (void)x, (void)par, (void)res;
    no_gpu("staggered_gpu_solver_multishift_device");
    return SOLVER_BREAKDOWN;
}
struct staggered_gpu *staggered_gpu_solver_operator(struct staggered_gpu_solver *s)
{
    (void)s, no_gpu("staggered_gpu_solver_operator");
    return NULL;
}
struct solver_blas *staggered_gpu_solver_blas(struct staggered_gpu_solver *s)
{
    (void)s, no_gpu("staggered_gpu_solver_blas");
    return NULL;
}
struct solver_blas *staggered_gpu_solver_even(struct staggered_gpu_solver *s, struct solver_op *op)
{
    (void)s, (void)op, no_gpu("staggered_gpu_solver_even");
    return NULL;
}
void staggered_gpu_solver_upload_even(struct staggered_gpu_solver *s, double *dev, const double *host)
{
    (void)s, (void)dev, (void)host, no_gpu("staggered_gpu_solver_upload_even");
}
double staggered_gpu_solver_take_transfer_seconds(struct staggered_gpu_solver *s) { (void)s; return 0; }

#else

#include "dirac/staggered.h"
#include "dirac/staggered_gpu.h"
#include "solvers/blas_gpu.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include "rational/rational.h" /* RATIONAL_MAX_ORDER: the most shifts */
#include "lattice/field.h"

#define SITE_REALS 6 /* an SU(3) staggered site: 3 complex numbers */

struct staggered_gpu_solver {
    struct staggered_op *cpu; /* the mass and lattice the GPU operator is made from */
    struct staggered_gpu *g;
    struct solver_blas *blas;      /* [even | odd] vectors (the multi-shift's normal view) */
    struct solver_blas *blas_half; /* even half fields (CG on K) */
    int64_t vh;               /* V/2 (a slab: of the owned sites) */
    size_t full_bytes;        /* a device vector of V sites ([even | odd]) */
    double *b;                /* device: [b_e | 0]; the odd half stays zero */
    double *x[RATIONAL_MAX_ORDER];
    int nx;                   /* device solution vectors allocated */
    double transfer;          /* seconds */
};

struct staggered_gpu_solver *staggered_gpu_solver_create(const struct field *u, double mass, char *why, size_t len)
{
    if (u->nc != 3) {
        snprintf(why, len, "the GPU staggered solver is SU(3) only, not SU(%d)", u->nc);
        return NULL;
    }
    struct staggered_op *cpu = staggered_create(u, mass, why, len);
    if (!cpu) return NULL;
    struct staggered_gpu *g = staggered_gpu_create(cpu, u, 0, why, len);
    if (!g) {
        staggered_free(cpu);
        return NULL;
    }
    /* one reduction slot per global timeslice (the CPU's layouts): the same
     * bits for every R, one process included */
    struct solver_reduce_layout normal, half;
    staggered_reduce_layout(cpu, 1, &normal);
    staggered_reduce_layout(cpu, 0, &half);
    struct solver_blas *blas = solver_blas_gpu_open_layout(&normal), *blas_half = solver_blas_gpu_open_layout(&half);
    /* the multi-shift's loop with its scalars on the devices, sums
     * swapped device to device, on a slab too (collective) */
    if (blas_half && u->dom) solver_blas_gpu_device_loop(blas_half, u->dom);
    if (!blas || !blas_half) {
        snprintf(why, len, "the solvers' GPU vector kernels are not usable here");
        if (blas) solver_blas_gpu_close(blas);
        if (blas_half) solver_blas_gpu_close(blas_half);
        staggered_gpu_free(g);
        staggered_free(cpu);
        return NULL;
    }
    struct staggered_gpu_solver *s = (struct staggered_gpu_solver *)lat_calloc(1, sizeof *s);
    s->cpu = cpu;
    s->g = g;
    s->blas = blas;
    s->blas_half = blas_half;
    s->vh = staggered_gpu_half_sites(g);
    s->full_bytes = gpu_spinor_storage(2 * s->vh, SITE_REALS) * sizeof(double);
    s->b = (double *)gpu_alloc(s->full_bytes, "the staggered solver's right-hand side");
    gpu_memset(s->b, 0, s->full_bytes);
    return s;
}

void staggered_gpu_solver_free(struct staggered_gpu_solver *s)
{
    if (!s) return;
    for (int i = 0; i < s->nx; i++) gpu_free(s->x[i]);
    gpu_free(s->b);
    solver_blas_gpu_close(s->blas);
    solver_blas_gpu_close(s->blas_half);
    staggered_gpu_free(s->g);
    staggered_free(s->cpu);
    free(s);
}

double staggered_gpu_solver_mass(const struct staggered_gpu_solver *s) { return staggered_mass(s->cpu); }

void staggered_gpu_solver_set_links(struct staggered_gpu_solver *s, const struct field *u)
{
    const double t0 = lat_clock();
    staggered_gpu_set_links(s->g, u);
    s->transfer += lat_clock() - t0;
}

static void need_x(struct staggered_gpu_solver *s, int k)
{
    if (k > RATIONAL_MAX_ORDER) lat_die(1, "staggered_gpu_solver", "internal error: %d shifts, at most %d", k, RATIONAL_MAX_ORDER);
    for (; s->nx < k; s->nx++) {
        s->x[s->nx] = (double *)gpu_alloc(s->full_bytes, "the staggered solver's solutions");
        gpu_memset(s->x[s->nx], 0, s->full_bytes);
    }
}

/* b's even half: the first V/2 sites of the [even | odd] layout have the
 * indices of a V/2-site vector (gpu_spinor_index does not depend on the
 * vector's length), so a V/2-site upload writes exactly them (and zeros
 * the padding sites of the last block, odd sites of b that are zero) */
static void upload_even(struct staggered_gpu_solver *s, double *dev, const double *host)
{
    const double t0 = lat_clock();
    gpu_spinor_upload(dev, host, s->vh, SITE_REALS);
    s->transfer += lat_clock() - t0;
}
static void download_even(struct staggered_gpu_solver *s, double *host, const double *dev)
{
    const double t0 = lat_clock();
    gpu_spinor_download(host, dev, s->vh, SITE_REALS);
    s->transfer += lat_clock() - t0;
}

/* (K + sigma_i) x_i = b on the even halves of [even | odd] device vectors
 * (b's odd half zero): K = (M^dag M)_ee as a Hermitian operator, one
 * application of two hop sweeps an iteration, every vector of the
 * recursion V/2 sites (the normal view's A^dag A of the same K cost two
 * more local sweeps and carried the zero odd halves through every vector
 * kernel: a third of an iteration on 32^3x8, session 20); x_i's odd
 * halves are zeroed (the callers read [x_e | 0]) */
static enum solver_status multishift_even(struct staggered_gpu_solver *s, const double *b, int nshift, const double *sigma,
                                          double **x, const struct solver_params *par, struct solver_result *res)
{
    struct solver_op so;
    staggered_gpu_solver_op_ee(&so, s->g);
    so.hermitian = 1;
    const size_t even = gpu_spinor_storage(s->vh, SITE_REALS) * sizeof(double); /* the even view, padding included */
    for (int i = 0; i < nshift; i++) gpu_memset((char *)x[i] + even, 0, s->full_bytes - even);
    return solver_multishift_cg(&so, s->blas_half, b, nshift, sigma, NULL, x, par, res);
}

enum solver_status staggered_gpu_solver_multishift(struct staggered_gpu_solver *s, const double *b, int nshift,
                                                   const double *sigma, double **x, const struct solver_params *par,
                                                   struct solver_result *res)
{
    need_x(s, nshift);
    upload_even(s, s->b, b);
    enum solver_status st = multishift_even(s, s->b, nshift, sigma, s->x, par, res);
    for (int i = 0; i < nshift; i++) download_even(s, x[i], s->x[i]);
    return st;
}

enum solver_status staggered_gpu_solver_multishift_device(struct staggered_gpu_solver *s, const double *b, int nshift,
                                                          const double *sigma, double **x,
                                                          const struct solver_params *par, struct solver_result *res)
{
    return multishift_even(s, b, nshift, sigma, x, par, res);
}

struct staggered_gpu *staggered_gpu_solver_operator(struct staggered_gpu_solver *s) { return s->g; }
struct solver_blas *staggered_gpu_solver_blas(struct staggered_gpu_solver *s) { return s->blas; }
struct solver_blas *staggered_gpu_solver_even(struct staggered_gpu_solver *s, struct solver_op *op)
{
    staggered_gpu_solver_op_ee(op, s->g);
    return s->blas_half;
}
void staggered_gpu_solver_upload_even(struct staggered_gpu_solver *s, double *dev, const double *host) { upload_even(s, dev, host); }

enum solver_status staggered_gpu_solver_cg(struct staggered_gpu_solver *s, const double *b, double *x,
                                           const struct solver_params *par, struct solver_result *res)
{
    need_x(s, 1);
    upload_even(s, s->b, b);
    upload_even(s, s->x[0], x);
    struct solver_op so;
    staggered_gpu_solver_op_ee(&so, s->g);
    enum solver_status st = solver_cg(&so, s->blas_half, s->b, s->x[0], par, res);
    download_even(s, x, s->x[0]);
    return st;
}

double staggered_gpu_solver_take_transfer_seconds(struct staggered_gpu_solver *s)
{
    const double t = s->transfer;
    s->transfer = 0;
    return t;
}

#endif
