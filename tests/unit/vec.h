/* vec.h -- helpers of the operator and HMC unit tests (test_dirac.c,
 * test_staggered.c, test_hmc.c, test_rhmc.c), header only:
 *   make_lattice(lat, lx, ly, lz, lt)   lattice_init or exit with the reason
 *   random_vec(v, n, seed)              n Gaussian reals (Philox, RNG_TEST)
 *   dot(a, b, n)                        <a, b> = sum conj(a) b, complex
 *                                       numbers as re, im pairs
 *   norm(a, n), rel_diff(a, b, n)       |a|, |a - b| / |b|
 *   loglog_slope(h, y, n)               least-squares slope of log y
 *                                       against log h (a scaling exponent) */
#ifndef LAT_TEST_VEC_H
#define LAT_TEST_VEC_H

#include "lattice/lattice.h"
#include "math/rng.h"
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef double complex cplx;

static inline void make_lattice(struct lattice *lat, int lx, int ly, int lz, int lt)
{
    int L[4] = {lx, ly, lz, lt};
    const char *why = NULL;
    if (lattice_init(lat, L, &why) != 0) { fprintf(stderr, "lattice_init: %s\n", why); exit(1); }
}

static inline void random_vec(double *v, size_t n, uint64_t seed)
{
    struct lat_rng r;
    rng_init(&r, seed, 0, 0, 0, RNG_TEST);
    for (size_t k = 0; k < n; k++) v[k] = rng_normal(&r);
}

static inline cplx dot(const double *a, const double *b, size_t n)
{
    cplx s = 0;
    for (size_t k = 0; k < n; k += 2) s += (a[k] - I * a[k + 1]) * (b[k] + I * b[k + 1]);
    return s;
}
static inline double norm(const double *a, size_t n) { return sqrt(creal(dot(a, a, n))); }
static inline double rel_diff(const double *a, const double *b, size_t n)
{
    double d = 0;
    for (size_t k = 0; k < n; k++) d += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrt(d) / norm(b, n);
}

static inline double loglog_slope(const double *h, const double *y, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < n; k++) {
        const double x = log(h[k]), l = log(y[k]);
        sx += x, sy += l, sxx += x * x, sxy += x * l;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

#endif
