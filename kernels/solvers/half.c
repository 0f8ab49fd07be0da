/* solvers/half.c -- the half format on host float arrays, for callers
 * and tests (the kernels themselves use half.h block by block).
 * Exported: solver_half_quantise, solver_half_dequantise (solvers.h); n is
 * a multiple of site_reals (lat_die otherwise: a programmer error), and
 * site_reals at most SOLVER_SITE_REALS_MAX (solvers.h). */
#include "solvers/half.h"
#include "base/log.h"

static void check_blocks(size_t n, size_t site_reals, const char *where)
{
    if (site_reals == 0 || site_reals > SOLVER_SITE_REALS_MAX || n % site_reals)
        lat_die(1, where, "vector of %zu reals in site blocks of %zu (a block of 1..%d reals dividing n expected)", n,
                site_reals, SOLVER_SITE_REALS_MAX);
}

void solver_half_quantise(size_t n, size_t site_reals, const float *x, int16_t *q, float *norm)
{
    check_blocks(n, site_reals, "solver_half_quantise");
    double buf[SOLVER_SITE_REALS_MAX];
    for (size_t s = 0; s < n / site_reals; s++) {
        for (size_t k = 0; k < site_reals; k++) buf[k] = x[s * site_reals + k];
        half_block_encode(site_reals, buf, q + s * site_reals, norm + s);
    }
}

void solver_half_dequantise(size_t n, size_t site_reals, const int16_t *q, const float *norm, float *x)
{
    check_blocks(n, site_reals, "solver_half_dequantise");
    double buf[SOLVER_SITE_REALS_MAX];
    for (size_t s = 0; s < n / site_reals; s++) {
        half_block_decode(site_reals, q + s * site_reals, norm[s], buf);
        for (size_t k = 0; k < site_reals; k++) x[s * site_reals + k] = (float)buf[k];
    }
}
