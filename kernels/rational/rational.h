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
 *   rational_eval       r(x) in double */
#ifndef LAT_RATIONAL_H
#define LAT_RATIONAL_H

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

#endif
