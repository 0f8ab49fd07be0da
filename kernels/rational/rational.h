/* rational/rational.h -- rational approximations in partial fractions, the
 * form the RHMC needs (SPEC §9): one multi-shift CG solve applies all terms.
 *
 *     r(x) = a0 + sum_{i<order} a[i] / (x + b[i]),     x in [lo, hi]
 *
 * approximates x^(num/den) with relative error |r(x)/x^(num/den) - 1| at most
 * max_rel_error on [lo, hi].  The shifts b[i] are >= 0 (they are the
 * sigma_i of solver_multishift_cg); the residues a[i] are > 0 for negative
 * powers and < 0 for positive ones (x^(1/4) = x * x^(-3/4)).  An exact case needs no Remez
 * algorithm: x^-1 is order 1, a0 = 0, a[0] = 1, b[0] = 0 (exact HMC).
 *
 * Exported (the data here; the Remez algorithm that fills it, with MPFR,
 * is remez.c, declared below its own comment):
 *   struct rational     the coefficients, the range and the error
 *   rational_eval       r(x) in double
 *   rational_term_sum(a0, a, order, b_k, x, k)   a0 b_k + sum_i a[i] x[i][k],
 *                       the terms added in i order: one real of r(A) b from
 *                       a multi-shift solve's x[i] = (A + b[i])^-1 b, for C
 *                       and CUDA (the GPU monomial's k_smg_lincomb)
 *   rational_combine(r, n, b, x, out)   out[k] = that sum for k < n */
#ifndef LAT_RATIONAL_H
#define LAT_RATIONAL_H

#include "base/lat.h"
#include <stddef.h>

#define RATIONAL_MAX_ORDER 64

struct rational {
    int num, den;       /* the power approximated: x^(num/den) */
    int order;          /* number of partial fractions */
    double lo, hi;      /* the range it was fitted on */
    double a0;
    double a[RATIONAL_MAX_ORDER]; /* residues */
    double b[RATIONAL_MAX_ORDER]; /* shifts (poles at x = -b[i]) */
    double max_rel_error; /* max |r(x)/x^p - 1| on [lo, hi], as measured */
};

static inline double rational_eval(const struct rational *r, double x)
{
    double s = r->a0;
    for (int i = 0; i < r->order; i++) s += r->a[i] / (x + r->b[i]);
    return s;
}

LAT_HD double rational_term_sum(double a0, const double *a, int order, double b_k, const double *const *x, size_t k)
{
    double s = a0 * b_k;
    for (int i = 0; i < order; i++) s += a[i] * x[i][k];
    return s;
}
static inline void rational_combine(const struct rational *r, size_t n, const double *b, double *const *x, double *out)
{
    for (size_t k = 0; k < n; k++) out[k] = rational_term_sum(r->a0, r->a, r->order, b[k], (const double *const *)x, k);
}

/* remez.c (MPFR) -- the Remez algorithm that fills struct rational.
 *
 * rational_remez: the minimax-relative-error rational approximation of
 * x^(num/den) of the given order (numerator and denominator degree `order`)
 * on [lo, hi], computed in MPFR arithmetic and returned in partial fractions
 * (poles real, shifts b[i] >= 0).  r->max_rel_error is measured afterwards
 * in MPFR, for the double coefficients returned, on 4000 log-spaced points
 * plus the extrema.  Returns 0, or -1 with a one-line reason in why (the
 * range is empty, lo <= 0, order out of 1..RATIONAL_MAX_ORDER, a power
 * outside -1 <= num/den < 1 (x^-1 itself comes back exact, order 1), the iteration
 * did not converge: "a range that the Remez algorithm cannot fit", two
 * poles coinciding, a residue of the wrong sign; the poles are real and
 * negative by construction); *r is written only on success.
 *
 * rational_remez_tol: the smallest order (1..RATIONAL_MAX_ORDER) whose
 * max_rel_error is <= tol (the minimax error falls with the order, so the
 * orders tried bracket it); -1 with a reason when no order reaches tol
 * (tol < 1e-16, below what double coefficients carry, or an error that
 * stops falling above tol: about 4e-15 for x^(1/4) on [1e-4, 16]). */
#include <stddef.h>
int rational_remez(struct rational *r, int num, int den, int order, double lo, double hi, char *why, size_t len);
int rational_remez_tol(struct rational *r, int num, int den, double tol, double lo, double hi, char *why, size_t len);

#endif
