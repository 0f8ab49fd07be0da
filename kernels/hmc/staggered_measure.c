/* hmc/staggered_measure.c -- measurements on the staggered operator that
 * lat-hmc makes each trajectory (hmc/staggered_monomial.h gives the
 * definitions and normalisations): staggered_condensate (the noisy
 * estimate of (1/V) Re Tr M^-1) and staggered_spectral_range (the interval
 * the rational approximations must cover), each also on a GPU solver
 * (staggered_condensate_on, staggered_spectral_range_on).  Sums go through the solvers'
 * reduction with one slot per global timeslice: the same bits for any
 * thread count and any number of ranks (on a slab both are collective). */
#include "hmc/staggered_monomial.h"
#include "hmc/staggered_gpu_solver.h"
#include "dirac/staggered.h"
#include "solvers/solvers.h"
#include "lattice/field.h"
#include "math/rng.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the condensate's CG: relative residual (its error is far below the noise) */
#define CONDENSATE_TOL 1e-10
#define CONDENSATE_MAX_ITER 100000
/* power iteration: at most this many steps, stopping when the Rayleigh
 * quotient moves by less than POWER_RTOL */
#define POWER_MAX_ITER 200
#define POWER_RTOL 1e-4

static struct staggered_op *make_op(const struct field *u, double mass, const char *who)
{
    char why[256];
    struct staggered_op *op = staggered_create(u, mass, why, sizeof why);
    if (!op) lat_die(1, who, "%s", why);
    return op;
}

/* the solvers' CPU kernels with one reduction slot per global timeslice */
static struct solver_blas *open_blas(const struct staggered_op *op, const char *who)
{
    struct solver_reduce_layout l;
    staggered_reduce_layout(op, 0, &l);
    struct solver_blas *b = solver_blas_cpu_open(&l);
    if (!b) lat_die(1, who, "out of memory");
    return b;
}

/* Re a^dag b of two even half fields: the same bits for any thread and
 * rank count (collective) */
static double dot_re(const struct solver_blas *blas, const struct staggered_op *op, const double *a, const double *b)
{
    const size_t hr = staggered_half_reals(op), sr = 2 * (size_t)staggered_nc(op);
    const struct solver_vec va = {SOLVER_DOUBLE, hr, sr, (void *)a, NULL}, vb = {SOLVER_DOUBLE, hr, sr, (void *)b, NULL};
    return blas->cdot(blas->ctx, &va, &vb).re;
}

double staggered_condensate(const struct field *u, double mass, int nnoise, uint64_t seed, uint32_t trajectory,
                            double *err, long *iters)
{
    return staggered_condensate_on(u, mass, nnoise, seed, trajectory, err, iters, NULL);
}

double staggered_condensate_on(const struct field *u, double mass, int nnoise, uint64_t seed, uint32_t trajectory,
                               double *err, long *iters, struct staggered_gpu_solver *gpu)
{
    static const char who[] = "staggered_condensate";
    if (!(mass > 0) || nnoise < 1) lat_die(1, who, "needs mass > 0 and at least one noise vector (got %g, %d)", mass, nnoise);
    if (gpu && staggered_gpu_solver_mass(gpu) != mass)
        lat_die(1, who, "internal error: the GPU solver's mass %g is not %g", staggered_gpu_solver_mass(gpu), mass);
    struct staggered_op *op = make_op(u, mass, who);
    struct solver_blas *blas = open_blas(op, who);
    struct solver_op so;
    staggered_solver_op_ee(&so, op);
    const size_t hr = staggered_half_reals(op);
    double *eta = (double *)lat_malloc(hr * sizeof(double)), *x = (double *)lat_malloc(hr * sizeof(double));
    const struct solver_params par = {.tol = CONDENSATE_TOL, .max_iter = CONDENSATE_MAX_ITER, .sloppy = SOLVER_DOUBLE};
    const double V = (double)staggered_global_volume(op);
    double sum = 0, sum2 = 0;
    long it = 0;
    for (int k = 0; k < nnoise; k++) {
        struct solver_result res;
        staggered_z2(op, 0, seed, (uint32_t)k, trajectory, eta);
        memset(x, 0, hr * sizeof(double));
        enum solver_status st = gpu ? staggered_gpu_solver_cg(gpu, eta, x, &par, &res) : solver_cg(&so, blas, eta, x, &par, &res);
        it += res.iterations;
        if (st != SOLVER_CONVERGED)
            lat_die(1, who, "CG did not converge (%s after %d iterations, residual %.3g)", solver_status_name(st),
                    res.iterations, res.residual);
        const double est = 2 * mass * dot_re(blas, op, eta, x) / V;
        sum += est;
        sum2 += est * est;
    }
    const double mean = sum / nnoise;
    if (err) err[0] = nnoise < 2 ? NAN : sqrt(fmax(0, (sum2 - nnoise * mean * mean) / (nnoise - 1)) / nnoise);
    if (iters) *iters = it;
    free(eta);
    free(x);
    solver_blas_cpu_close(blas);
    staggered_free(op);
    return mean;
}

/* the largest eigenvalue of the operator so (K) by the power iteration, once
 * for both backends: v holds the start and w is scratch, vectors of blas;
 * both are overwritten.  Why on the GPU too: lat-hmc checks the range after
 * every trajectory, and on the host that took as long as half the
 * trajectory on the GPU (32^3x8 on an H100: 3.3 s against 6.8; 0.36 s on
 * the device, docs/PERFORMANCE.md session 27). */
static double power_lambda(const struct solver_op *so, const struct solver_blas *blas, struct solver_vec *v,
                           struct solver_vec *w)
{
    double lam = 0, nv = sqrt(blas->cdot(blas->ctx, v, v).re);
    for (int it = 0; it < POWER_MAX_ITER; it++) {
        blas->scale(blas->ctx, 1 / nv, v);
        so->apply(so->ctx, (double *)w->data, (const double *)v->data);
        const double q = blas->cdot(blas->ctx, v, w).re; /* Rayleigh quotient, |v| = 1 */
        const int done = it > 10 && fabs(q - lam) <= POWER_RTOL * q;
        lam = q;
        struct solver_vec *t = v;
        v = w;
        w = t;
        nv = sqrt(blas->cdot(blas->ctx, v, v).re);
        if (done) break;
    }
    return lam;
}

void staggered_spectral_range(const struct field *u, double mass, double *lo, double *hi)
{
    staggered_spectral_range_on(u, mass, lo, hi, NULL);
}

void staggered_spectral_range_on(const struct field *u, double mass, double *lo, double *hi, struct staggered_gpu_solver *gpu)
{
    static const char who[] = "staggered_spectral_range";
    if (gpu && staggered_gpu_solver_mass(gpu) != mass)
        lat_die(1, who, "internal error: the GPU solver's mass %g is not %g", staggered_gpu_solver_mass(gpu), mass);
    struct staggered_op *op = make_op(u, mass, who);
    const size_t hr = staggered_half_reals(op), sr = 2 * (size_t)staggered_nc(op);
    double *start = (double *)lat_malloc(hr * sizeof(double));
    /* a fixed start vector (seed and stream of this function's own) */
    staggered_z2(op, 0, 0x5bec7a1ULL, 0, 0xffffffffu, start);
    double lam;
    if (gpu) { /* K on the device (its links u's: the caller's), V/2-site device vectors */
        struct solver_op so;
        struct solver_blas *blas = staggered_gpu_solver_even(gpu, &so);
        struct solver_vec *v = blas->alloc(blas->ctx, hr, sr, SOLVER_DOUBLE), *w = blas->alloc(blas->ctx, hr, sr, SOLVER_DOUBLE);
        if (!v || !w) lat_die(1, who, "out of GPU memory for two vectors");
        staggered_gpu_solver_upload_even(gpu, (double *)v->data, start);
        lam = power_lambda(&so, blas, v, w);
        blas->free(blas->ctx, v);
        blas->free(blas->ctx, w);
    } else {
        struct solver_blas *blas = open_blas(op, who);
        struct solver_op so;
        staggered_solver_op_ee(&so, op);
        double *w = (double *)lat_malloc(hr * sizeof(double));
        struct solver_vec vv = {SOLVER_DOUBLE, hr, sr, start, NULL}, vw = {SOLVER_DOUBLE, hr, sr, w, NULL};
        lam = power_lambda(&so, blas, &vv, &vw);
        free(w);
        solver_blas_cpu_close(blas);
    }
    *lo = mass * mass;
    *hi = fmin(STAGGERED_SPECTRAL_SAFETY * lam, mass * mass + 16);
    free(start);
    staggered_free(op);
}
