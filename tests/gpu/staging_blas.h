/* staging_blas.h -- a struct solver_blas over device vectors in
 * gpu/spinor.h's layout (site_reals 6) for the checks of the GPU staggered
 * operator's solver views (staggered_checks.h), before a GPU vector-kernel
 * backend exists: every operation downloads its operands, runs the CPU
 * kernels (solver_blas_cpu_open) on them in the same precision (half:
 * the q and norms as they are, one site a block, so nothing is re-rounded),
 * and uploads what it wrote.  Slow and simple: tests only.
 *   staging_blas_open() / staging_blas_close(b) */
#ifndef LAT_TESTS_STAGING_BLAS_H
#define LAT_TESTS_STAGING_BLAS_H

#include "gpu/field.h"
#include "gpu/spinor.h"
#include "solvers/solvers.h"
#include <stdlib.h>
#include <string.h>

struct staging {
    struct solver_blas self;
    struct solver_blas *cpu;
};

static inline size_t staging_es(enum solver_prec p)
{
    return p == SOLVER_DOUBLE ? sizeof(double) : p == SOLVER_SINGLE ? sizeof(float) : sizeof(int16_t);
}

/* the CPU copy (flat, site after site) of a device vector */
static inline struct solver_vec *staging_host(struct staging *s, const struct solver_vec *v)
{
    const int64_t ns = (int64_t)(v->n / 6);
    const size_t es = staging_es(v->prec), total = gpu_spinor_storage(ns, 6);
    struct solver_vec *h = s->cpu->alloc(s->cpu->ctx, v->n, 6, v->prec);
    char *buf = (char *)malloc(total * es);
    gpu_sync("staging");
    gpu_download(buf, v->data, total * es);
    for (int64_t site = 0; site < ns; site++)
        for (int c = 0; c < 6; c++)
            memcpy((char *)h->data + ((size_t)site * 6 + c) * es, buf + gpu_spinor_index(8, c, site) * es, es);
    if (v->prec == SOLVER_HALF) gpu_download(h->norm, v->norm, (size_t)ns * sizeof(float));
    free(buf);
    return h;
}

/* h back into the device vector v, freeing h */
static inline void staging_back(struct staging *s, struct solver_vec *h, struct solver_vec *v)
{
    const int64_t ns = (int64_t)(v->n / 6);
    const size_t es = staging_es(v->prec), total = gpu_spinor_storage(ns, 6);
    char *buf = (char *)calloc(total, es);
    for (int64_t site = 0; site < ns; site++)
        for (int c = 0; c < 6; c++)
            memcpy(buf + gpu_spinor_index(8, c, site) * es, (char *)h->data + ((size_t)site * 6 + c) * es, es);
    gpu_upload(v->data, buf, total * es);
    if (v->prec == SOLVER_HALF) gpu_upload(v->norm, h->norm, (size_t)ns * sizeof(float));
    free(buf);
    s->cpu->free(s->cpu->ctx, h);
}

static inline struct solver_vec *staging_alloc(void *ctx, size_t n, size_t sr, enum solver_prec prec)
{
    (void)ctx;
    const int64_t ns = (int64_t)(n / sr);
    const size_t total = gpu_spinor_storage(ns, (int)sr), nn = (size_t)gpu_spinor_nblk(ns) * GPU_SPINOR_LANES;
    struct solver_vec *v = (struct solver_vec *)calloc(1, sizeof *v);
    *v = (struct solver_vec){prec, n, sr, gpu_alloc(total * staging_es(prec), "a staging vector"), NULL};
    gpu_memset(v->data, 0, total * staging_es(prec));
    if (prec == SOLVER_HALF) {
        v->norm = (float *)gpu_alloc(nn * sizeof(float), "a staging vector's norms");
        gpu_memset(v->norm, 0, nn * sizeof(float));
    }
    return v;
}
static inline void staging_free(void *ctx, struct solver_vec *v)
{
    (void)ctx;
    if (!v) return;
    gpu_free(v->data);
    gpu_free(v->norm);
    free(v);
}

#define STAGING_S struct staging *s = (struct staging *)ctx
#define STAGING_CPU s->cpu->ctx
static inline void staging_zero(void *ctx, struct solver_vec *y)
{
    STAGING_S;
    struct solver_vec *hy = staging_host(s, y);
    s->cpu->zero(STAGING_CPU, hy);
    staging_back(s, hy, y);
}
static inline void staging_copy(void *ctx, struct solver_vec *y, const struct solver_vec *x)
{
    STAGING_S;
    struct solver_vec *hx = staging_host(s, x), *hy = staging_host(s, y);
    s->cpu->copy(STAGING_CPU, hy, hx);
    s->cpu->free(STAGING_CPU, hx);
    staging_back(s, hy, y);
}
static inline void staging_scale(void *ctx, double a, struct solver_vec *y)
{
    STAGING_S;
    struct solver_vec *hy = staging_host(s, y);
    s->cpu->scale(STAGING_CPU, a, hy);
    staging_back(s, hy, y);
}
static inline void staging_axpy(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y)
{
    STAGING_S;
    struct solver_vec *hx = staging_host(s, x), *hy = staging_host(s, y);
    s->cpu->axpy(STAGING_CPU, a, hx, hy);
    s->cpu->free(STAGING_CPU, hx);
    staging_back(s, hy, y);
}
static inline void staging_xpay(void *ctx, const struct solver_vec *x, double a, struct solver_vec *y)
{
    STAGING_S;
    struct solver_vec *hx = staging_host(s, x), *hy = staging_host(s, y);
    s->cpu->xpay(STAGING_CPU, hx, a, hy);
    s->cpu->free(STAGING_CPU, hx);
    staging_back(s, hy, y);
}
static inline void staging_caxpby(void *ctx, solver_complex a, const struct solver_vec *x, solver_complex b,
                                  struct solver_vec *y)
{
    STAGING_S;
    struct solver_vec *hx = staging_host(s, x), *hy = staging_host(s, y);
    s->cpu->caxpby(STAGING_CPU, a, hx, b, hy);
    s->cpu->free(STAGING_CPU, hx);
    staging_back(s, hy, y);
}
static inline solver_complex staging_cdot(void *ctx, const struct solver_vec *x, const struct solver_vec *y)
{
    STAGING_S;
    struct solver_vec *hx = staging_host(s, x), *hy = staging_host(s, y);
    solver_complex r = s->cpu->cdot(STAGING_CPU, hx, hy);
    s->cpu->free(STAGING_CPU, hx);
    s->cpu->free(STAGING_CPU, hy);
    return r;
}
static inline double staging_norm2(void *ctx, const struct solver_vec *x)
{
    STAGING_S;
    struct solver_vec *hx = staging_host(s, x);
    double r = s->cpu->norm2(STAGING_CPU, hx);
    s->cpu->free(STAGING_CPU, hx);
    return r;
}

static inline struct solver_blas *staging_blas_open(void)
{
    struct staging *s = (struct staging *)calloc(1, sizeof *s);
    s->cpu = solver_blas_cpu_open(NULL);
    /* the fused members stay NULL: the solvers fall back on these */
    s->self = (struct solver_blas){.ctx = s, .alloc = staging_alloc, .free = staging_free, .zero = staging_zero,
                                   .copy = staging_copy, .scale = staging_scale, .axpy = staging_axpy, .xpay = staging_xpay,
                                   .caxpby = staging_caxpby, .cdot = staging_cdot, .norm2 = staging_norm2};
    return &s->self;
}
static inline void staging_blas_close(struct solver_blas *b)
{
    struct staging *s = (struct staging *)b->ctx;
    solver_blas_cpu_close(s->cpu);
    free(s);
}

#endif
