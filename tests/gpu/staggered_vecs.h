/* staggered_vecs.h -- device vectors of SU(3) colour vectors (site_reals
 * 6, gpu/spinor.h's layout) for the GPU staggered checks
 * (tests/gpu/test_gpu_staggered.c), its benchmark (bench/staggered_gpu.c)
 * and the host emulation (scripts/staggered-emulation.cpp, where the device
 * copies are memcpy):
 *   sv_upload(prec, nsites, host)   a struct solver_vec in device memory of
 *       precision prec (double, single, half = solvers/half.h's format, one
 *       norm per site) holding the host doubles (site after site, 6 each)
 *       rounded to it; padding zero
 *   sv_download(v, nsites, host)    back to host doubles (half decoded)
 *   sv_padding_zero(v, nsites)      1 when every padding real (reals 6, 7 of
 *       each site, the sites past nsites) and padding norm is zero
 *   sv_free(v)
 *   sv_random(x, n, seed)           n reals uniform in [-1, 1), reproducible
 *   sv_dot(a, b, n, &im), sv_reldiff(a, b, n)   <a, b> (complex) and
 *       ||a - b|| / ||b|| on host doubles */
#ifndef LAT_TESTS_STAGGERED_VECS_H
#define LAT_TESTS_STAGGERED_VECS_H

#include "gpu/field.h"
#include "gpu/spinor.h"
#include "solvers/solvers.h"
#include "math/rng.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SV_SR 6

static inline struct solver_vec sv_upload(enum solver_prec prec, int64_t nsites, const double *host)
{
    const size_t total = gpu_spinor_storage(nsites, SV_SR), nn = (size_t)gpu_spinor_nblk(nsites) * GPU_SPINOR_LANES;
    const int nc = gpu_spinor_ncomp(SV_SR);
    const size_t es = prec == SOLVER_DOUBLE ? sizeof(double) : prec == SOLVER_SINGLE ? sizeof(float) : sizeof(int16_t);
    void *buf = calloc(total, es);
    float *norm = (float *)calloc(nn, sizeof(float));
    for (int64_t s = 0; s < nsites; s++) {
        float xf[SV_SR];
        int16_t q[SV_SR];
        for (int c = 0; c < SV_SR; c++) xf[c] = (float)host[s * SV_SR + c];
        if (prec == SOLVER_HALF) solver_half_quantise(SV_SR, SV_SR, xf, q, &norm[s]);
        for (int c = 0; c < SV_SR; c++) {
            const size_t i = gpu_spinor_index(nc, c, s);
            if (prec == SOLVER_DOUBLE) ((double *)buf)[i] = host[s * SV_SR + c];
            else if (prec == SOLVER_SINGLE) ((float *)buf)[i] = xf[c];
            else ((int16_t *)buf)[i] = q[c];
        }
    }
    struct solver_vec v = {prec, (size_t)nsites * SV_SR, SV_SR, gpu_alloc(total * es, "a test vector"), NULL};
    gpu_upload(v.data, buf, total * es);
    if (prec == SOLVER_HALF) {
        v.norm = (float *)gpu_alloc(nn * sizeof(float), "a test vector's norms");
        gpu_upload(v.norm, norm, nn * sizeof(float));
    }
    free(buf);
    free(norm);
    return v;
}

static inline void sv_download(const struct solver_vec *v, int64_t nsites, double *host)
{
    const size_t total = gpu_spinor_storage(nsites, SV_SR), nn = (size_t)gpu_spinor_nblk(nsites) * GPU_SPINOR_LANES;
    const int nc = gpu_spinor_ncomp(SV_SR);
    const size_t es = v->prec == SOLVER_DOUBLE ? sizeof(double) : v->prec == SOLVER_SINGLE ? sizeof(float) : sizeof(int16_t);
    gpu_sync("a test vector");
    void *buf = malloc(total * es);
    float *norm = (float *)calloc(nn, sizeof(float));
    gpu_download(buf, v->data, total * es);
    if (v->prec == SOLVER_HALF) gpu_download(norm, v->norm, nn * sizeof(float));
    for (int64_t s = 0; s < nsites; s++) {
        int16_t q[SV_SR];
        float xf[SV_SR];
        for (int c = 0; c < SV_SR; c++) {
            const size_t i = gpu_spinor_index(nc, c, s);
            if (v->prec == SOLVER_DOUBLE) host[s * SV_SR + c] = ((double *)buf)[i];
            else if (v->prec == SOLVER_SINGLE) host[s * SV_SR + c] = ((float *)buf)[i];
            else q[c] = ((int16_t *)buf)[i];
        }
        if (v->prec == SOLVER_HALF) {
            solver_half_dequantise(SV_SR, SV_SR, q, &norm[s], xf);
            for (int c = 0; c < SV_SR; c++) host[s * SV_SR + c] = xf[c];
        }
    }
    free(buf);
    free(norm);
}

static inline int sv_padding_zero(const struct solver_vec *v, int64_t nsites)
{
    const size_t total = gpu_spinor_storage(nsites, SV_SR), nn = (size_t)gpu_spinor_nblk(nsites) * GPU_SPINOR_LANES;
    const int nc = gpu_spinor_ncomp(SV_SR);
    const size_t es = v->prec == SOLVER_DOUBLE ? sizeof(double) : v->prec == SOLVER_SINGLE ? sizeof(float) : sizeof(int16_t);
    gpu_sync("a test vector");
    unsigned char *buf = (unsigned char *)malloc(total * es), *used = (unsigned char *)calloc(total, 1);
    float *norm = (float *)calloc(nn, sizeof(float));
    gpu_download(buf, v->data, total * es);
    if (v->prec == SOLVER_HALF) gpu_download(norm, v->norm, nn * sizeof(float));
    for (int64_t site = 0; site < nsites; site++)
        for (int c = 0; c < SV_SR; c++) used[gpu_spinor_index(nc, c, site)] = 1;
    int ok = 1;
    for (size_t i = 0; i < total; i++)
        if (!used[i])
            for (size_t b = 0; b < es; b++) ok &= buf[i * es + b] == 0;
    for (size_t i = (size_t)nsites; i < nn; i++) ok &= norm[i] == 0;
    free(buf);
    free(used);
    free(norm);
    return ok;
}

static inline void sv_free(struct solver_vec *v)
{
    gpu_free(v->data);
    gpu_free(v->norm);
    v->data = NULL;
    v->norm = NULL;
}

static inline void sv_random(double *x, size_t n, uint64_t seed)
{
    struct lat_rng r;
    rng_init(&r, seed, 0, 0, 0, RNG_TEST);
    for (size_t k = 0; k < n; k++) x[k] = 2 * rng_uniform(&r) - 1;
}

static inline double sv_dot(const double *a, const double *b, size_t n, double *im)
{
    double re = 0, ii = 0;
    for (size_t k = 0; k < n; k += 2) {
        re += a[k] * b[k] + a[k + 1] * b[k + 1];
        ii += a[k] * b[k + 1] - a[k + 1] * b[k];
    }
    if (im) *im = ii;
    return re;
}

static inline double sv_reldiff(const double *a, const double *b, size_t n)
{
    double d = 0, nb = 0;
    for (size_t k = 0; k < n; k++) d += (a[k] - b[k]) * (a[k] - b[k]), nb += b[k] * b[k];
    return sqrt(d / nb);
}

#endif
