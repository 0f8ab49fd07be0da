/* rational/remez.c -- the Remez exchange algorithm in MPFR arithmetic: the
 * minimax-relative-error rational approximation of x^(num/den) on [lo, hi],
 * numerator and denominator of one degree n (the order), returned in the
 * partial fractions of struct rational (SPEC §9; RHMC after Clark and
 * Kennedy).
 *
 * Exported (declared in rational.h):
 *   rational_remez       the approximation of a given order
 *   rational_remez_tol   the smallest order whose error is <= tol
 * Both return 0, or -1 with a one-line reason in why[len] and *r unchanged.
 *
 * Method.  R(y) = P(y)/Q(y) in the scaled variable y = x / sqrt(lo hi) (the
 * monomials of y stay within (hi/lo)^(n/2) of 1), P in monomials, Q monic
 * and given by its roots: Q(y) = prod_i (y + c_i), c_i = exp(u_i) > 0, so
 * every pole is real and negative by construction.  At 2n+2 reference
 * points x_0 < ... < x_{2n+1} the relative error alternates:
 *     P(y_j) / (f_j Q(y_j)) = 1 + (-1)^j E,    f_j = x_j^(num/den),
 * 2n+2 equations for the n+1 coefficients of P, the n u_i and the level E,
 * solved by Newton's method (each step one dense linear system: Gaussian
 * elimination, partial pivoting, rows equilibrated).  The exchange then
 * moves each reference point to the extremum of its own lobe of the error
 * (between the zeros next to it, found by bisection; golden-section search
 * in log x, the ends of [lo, hi] included).  Iterate until the extrema agree
 * to CONVERGED (relative), from the first of a few starting references that
 * gets there.  The partial fractions follow from the roots directly:
 * a0 = the leading coefficient of P, b_i = c_i scale, residues
 * P(-c_i)/Q'(-c_i) (poles must be distinct, residues of the sign stated in
 * rational.h).  Finally max_rel_error is measured in MPFR for the double
 * coefficients actually returned, on 4000 log-spaced points plus the final
 * extrema.  x^-1 is returned exact (order 1) without iterating.
 *
 * Precision: 96 + n (6 + log2(hi/lo)/2) bits (the conditioning of the
 * monomial system grows like (hi/lo)^(n/2)); the error level is resolved far
 * below double precision.  Powers: -1 <= num/den < 1 (others are refused).
 * Known limit: on narrow ranges (hi/lo ~ 65) orders >= 24, whose error
 * would be far below double precision anyway, do not converge; the
 * tolerance search never asks for them.  Requires MPFR (Debian libmpfr-dev): without its
 * header this file does not compile, on purpose. */
#if defined(__has_include)
#if !__has_include(<mpfr.h>)
#error "kernels/rational/remez.c needs MPFR: install libmpfr-dev (scripts/install-deps)"
#endif
#endif
#include "rational/rational.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>

#define RND MPFR_RNDN
#define MAX_POINTS (2 * RATIONAL_MAX_ORDER + 2)
#define CONVERGED 1e-6   /* (max - min)/max of the extrema's |error| */
#define MAX_EXCHANGES 100
#define MAX_NEWTON 40
#define MEASURE_POINTS 4000

struct remez {
    int n, num, den, npts;  /* order, power num/den, 2n+2 reference points */
    mpfr_prec_t prec;
    double lo, hi;
    mpfr_t scale;           /* y = x / scale */
    mpfr_t p[RATIONAL_MAX_ORDER + 1]; /* P(y) = sum p_k y^k */
    mpfr_t c[RATIONAL_MAX_ORDER];     /* Q(y) = prod (y + c_i), c_i > 0 */
    mpfr_t E;               /* the level of the alternation (signed) */
    mpfr_t y, f, s1, s2, s3;
    mpfr_t *A, *rhs;        /* npts x (npts + 1) augmented system */
    double x[MAX_POINTS];   /* reference points */
};

static void why_set(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

/* out = x^(num/den), correctly rounded (x > 0) */
static void power(mpfr_t out, const mpfr_t x, int num, int den)
{
    mpfr_pow_ui(out, x, (unsigned long)abs(num), RND);
    mpfr_rootn_ui(out, out, (unsigned long)den, RND);
    if (num < 0) mpfr_ui_div(out, 1, out, RND);
}

/* out = sum_k c[k] y^k, k = 0..deg (out must not alias c or y) */
static void horner(mpfr_t out, mpfr_t *c, int deg, const mpfr_t y)
{
    mpfr_set(out, c[deg], RND);
    for (int k = deg - 1; k >= 0; k--) mpfr_fma(out, out, y, c[k], RND);
}

/* out = Q(y) = prod_i (y + c_i) (out must not alias y) */
static void q_eval(struct remez *w, mpfr_t out, const mpfr_t y, mpfr_t tmp)
{
    mpfr_set_ui(out, 1, RND);
    for (int i = 0; i < w->n; i++) mpfr_add(tmp, y, w->c[i], RND), mpfr_mul(out, out, tmp, RND);
}

/* the relative error R(y)/x^p - 1 at x, rounded to double */
static double rel_error(struct remez *w, double x)
{
    mpfr_set_d(w->s1, x, RND);
    power(w->f, w->s1, w->num, w->den);
    mpfr_div(w->y, w->s1, w->scale, RND);
    horner(w->s2, w->p, w->n, w->y);
    q_eval(w, w->s3, w->y, w->s1);
    mpfr_mul(w->s3, w->s3, w->f, RND);
    mpfr_div(w->s2, w->s2, w->s3, RND);
    mpfr_sub_ui(w->s2, w->s2, 1, RND);
    return mpfr_get_d(w->s2, RND);
}

/* Solve the m x m system in A (row-major, m + 1 columns: the last is the
 * right-hand side) in place; the solution goes to sol.  -1 when singular. */
static int gauss(mpfr_t *A, int m, mpfr_t *sol, mpfr_t tmp)
{
#define AT(i, j) A[(size_t)(i) * (m + 1) + (j)]
    for (int i = 0; i < m; i++) { /* equilibrate: partial pivoting compares rows */
        int big = 0;
        for (int j = 1; j < m; j++)
            if (mpfr_cmpabs(AT(i, j), AT(i, big)) > 0) big = j;
        if (mpfr_zero_p(AT(i, big))) return -1;
        mpfr_abs(tmp, AT(i, big), RND);
        for (int j = 0; j <= m; j++) mpfr_div(AT(i, j), AT(i, j), tmp, RND);
    }
    for (int c = 0; c < m; c++) {
        int piv = c;
        for (int i = c + 1; i < m; i++)
            if (mpfr_cmpabs(AT(i, c), AT(piv, c)) > 0) piv = i;
        if (mpfr_zero_p(AT(piv, c))) return -1;
        if (piv != c)
            for (int j = c; j <= m; j++) mpfr_swap(AT(piv, j), AT(c, j));
        for (int i = c + 1; i < m; i++) {
            if (mpfr_zero_p(AT(i, c))) continue;
            mpfr_div(tmp, AT(i, c), AT(c, c), RND);
            for (int j = c + 1; j <= m; j++) mpfr_fms(AT(i, j), tmp, AT(c, j), AT(i, j), RND), mpfr_neg(AT(i, j), AT(i, j), RND);
        }
    }
    for (int i = m - 1; i >= 0; i--) {
        mpfr_set(sol[i], AT(i, m), RND);
        for (int j = i + 1; j < m; j++) {
            mpfr_mul(tmp, AT(i, j), sol[j], RND);
            mpfr_sub(sol[i], sol[i], tmp, RND);
        }
        mpfr_div(sol[i], sol[i], AT(i, i), RND);
    }
    return 0;
#undef AT
}

/* The coefficients and E that alternate exactly on the reference points:
 * Newton's method on F_j = P(y_j)/(f_j Q(y_j)) - 1 - s_j E = 0 (s_j =
 * (-1)^j) in the unknowns p_k, u_i = log c_i and E, started from the
 * current ones.  The poles enter through their logarithms, so they stay
 * real and negative and the iteration cannot wander to the spurious
 * solutions with a pole inside [lo, hi] that the same equations in the
 * coefficients of Q also have.  Derivatives: dF_j/dp_k = y_j^k/(f_j Q_j),
 * dF_j/du_i = -(1 + s_j E) c_i/(y_j + c_i), dF_j/dE = -s_j.  Steps are
 * damped so that no pole moves by more than a factor e.  Returns 0 when
 * converged, 1 when not within MAX_NEWTON steps (a pole running to 0 or
 * infinity: the reference is left to the exchange to improve), -1 when the
 * system is singular or E not a number. */
static int solve_reference(struct remez *w)
{
    int n = w->n, m = w->npts;
    mpfr_t *d = w->rhs, *A = w->A;
    mpfr_t fq, yk, ope, tol, big;
    mpfr_inits2(w->prec, fq, yk, ope, tol, big, (mpfr_ptr)0);
    int status = -1;
    for (int it = 0; it < MAX_NEWTON; it++) {
        for (int j = 0; j < m; j++) {
            mpfr_t *row = A + (size_t)j * (m + 1);
            int s = (j & 1) ? -1 : 1;
            mpfr_set_d(w->s1, w->x[j], RND);
            power(w->f, w->s1, w->num, w->den);
            mpfr_div(w->y, w->s1, w->scale, RND);
            q_eval(w, fq, w->y, w->s1);
            mpfr_mul(fq, fq, w->f, RND); /* f_j Q_j */
            mpfr_set_ui(yk, 1, RND);
            for (int k = 0; k <= n; k++) {
                mpfr_div(row[k], yk, fq, RND);
                mpfr_mul(yk, yk, w->y, RND);
            }
            if (s > 0) mpfr_add_ui(ope, w->E, 1, RND);
            else mpfr_ui_sub(ope, 1, w->E, RND);
            for (int i = 0; i < n; i++) {
                mpfr_add(w->s1, w->y, w->c[i], RND);
                mpfr_div(w->s1, w->c[i], w->s1, RND);
                mpfr_mul(w->s1, w->s1, ope, RND);
                mpfr_neg(row[n + 1 + i], w->s1, RND);
            }
            mpfr_set_si(row[2 * n + 1], -s, RND);
            horner(w->s2, w->p, n, w->y); /* -F_j */
            mpfr_div(w->s2, w->s2, fq, RND);
            mpfr_sub(row[m], ope, w->s2, RND);
        }
        if (gauss(A, m, d, w->s2) != 0) goto done;
        mpfr_set_ui(big, 1, RND); /* damping: at most 1 in any log c_i */
        for (int i = 0; i < n; i++)
            if (mpfr_cmpabs(d[n + 1 + i], big) > 0) mpfr_abs(big, d[n + 1 + i], RND);
        int full = mpfr_cmp_ui(big, 1) == 0;
        for (int k = 0; k < m; k++) mpfr_div(d[k], d[k], big, RND);
        for (int k = 0; k <= n; k++) mpfr_add(w->p[k], w->p[k], d[k], RND);
        for (int i = 0; i < n; i++) {
            mpfr_exp(w->s1, d[n + 1 + i], RND);
            mpfr_mul(w->c[i], w->c[i], w->s1, RND);
        }
        mpfr_add(w->E, w->E, d[2 * n + 1], RND);
        if (!mpfr_number_p(w->E)) goto done;
        /* converged: a full step that moved E by < 2^(-prec/2) (|E| + 2^(-prec/2)) */
        mpfr_abs(tol, w->E, RND);
        mpfr_set_ui(yk, 1, RND);
        mpfr_mul_2si(yk, yk, -(long)(w->prec / 2), RND);
        mpfr_add(tol, tol, yk, RND);
        mpfr_mul_2si(tol, tol, -(long)(w->prec / 2), RND);
        if (full && mpfr_cmpabs(d[2 * n + 1], tol) <= 0) { status = 0; goto done; }
    }
    status = 1;
done:
    mpfr_clears(fq, yk, ope, tol, big, (mpfr_ptr)0);
    return status;
}

/* g_j(log x) = the error with the sign its lobe j has: positive there */
static double lobe(struct remez *w, int sign, double logx)
{
    double x = exp(logx);
    if (x < w->lo) x = w->lo;
    if (x > w->hi) x = w->hi;
    return sign * rel_error(w, x);
}

/* Move each reference point to the extremum of its lobe; *spread = (max -
 * min)/max of the |error| there, *emax = max.  The error is (-1)^j E at
 * x_j, so it has a zero z_j in (x_j, x_{j+1}) (found by bisection in log x);
 * lobe j is [z_{j-1}, z_j] ([lo, z_0] and [z_{2n}, hi] at the ends), where
 * a golden-section search finds the maximum of the signed error, x_j and the
 * range's ends being candidates too (so the new |error| >= |E|).  -1 when
 * the new points are not increasing (no usable exchange). */
static int exchange(struct remez *w, double *spread, double *emax)
{
    enum { BISECT = 44, GOLDEN = 40 };
    const double gr = 0.5 * (sqrt(5.0) - 1);
    double nx[MAX_POINTS], z[MAX_POINTS], gmax = 0, gmin = INFINITY;
    int m = w->npts, sgnE = mpfr_sgn(w->E) < 0 ? -1 : 1;
    for (int j = 0; j < m; j++) /* the alternation the zeros are bracketed by */
        if (!(lobe(w, (j & 1) ? -sgnE : sgnE, log(w->x[j])) > 0)) return -1;
    for (int j = 0; j + 1 < m; j++) { /* sign * error > 0 at a, < 0 at b */
        int sign = (j & 1) ? -sgnE : sgnE;
        double a = log(w->x[j]), b = log(w->x[j + 1]);
        for (int it = 0; it < BISECT; it++) {
            double c = 0.5 * (a + b);
            if (lobe(w, sign, c) > 0) a = c;
            else b = c;
        }
        z[j] = 0.5 * (a + b);
    }
    for (int j = 0; j < m; j++) {
        int sign = (j & 1) ? -sgnE : sgnE;
        double a = j == 0 ? log(w->lo) : z[j - 1], b = j == m - 1 ? log(w->hi) : z[j];
        double c = b - gr * (b - a), d = a + gr * (b - a);
        double gc = lobe(w, sign, c), gd = lobe(w, sign, d);
        for (int it = 0; it < GOLDEN; it++) {
            if (gc >= gd) b = d, d = c, gd = gc, c = b - gr * (b - a), gc = lobe(w, sign, c);
            else a = c, c = d, gc = gd, d = a + gr * (b - a), gd = lobe(w, sign, d);
        }
        double xb = w->x[j], gb = sign * rel_error(w, w->x[j]);
        if (gc > gb) xb = exp(c), gb = gc;
        if (gd > gb) xb = exp(d), gb = gd;
        if (j == 0) { double ge = sign * rel_error(w, w->lo); if (ge >= gb) xb = w->lo, gb = ge; }
        if (j == m - 1) { double ge = sign * rel_error(w, w->hi); if (ge >= gb) xb = w->hi, gb = ge; }
        if (xb < w->lo) xb = w->lo;
        if (xb > w->hi) xb = w->hi;
        if (!(gb > 0) || (j > 0 && !(xb > nx[j - 1]))) return -1;
        nx[j] = xb;
        if (gb > gmax) gmax = gb;
        if (gb < gmin) gmin = gb;
    }
    memcpy(w->x, nx, sizeof(double) * (size_t)m);
    *spread = (gmax - gmin) / gmax;
    *emax = gmax;
    return 0;
}

/* The partial fractions of P/Q into r: a0 = p_n (Q is monic), the shift
 * b_i = c_i scale and the residue a_i = scale P(-c_i) / prod_{k != i}
 * (c_k - c_i) (in x: a/(y + c) = a scale/(x + c scale)).  -1 with a reason
 * when two poles coincide or a residue has the wrong sign. */
static int partial_fractions(struct remez *w, struct rational *r, char *why, size_t len)
{
    int n = w->n, status = -1;
    mpfr_t v, dq, t;
    mpfr_inits2(w->prec, v, dq, t, (mpfr_ptr)0);
    for (int i = 0; i < n; i++) {
        mpfr_set_ui(dq, 1, RND);
        for (int k = 0; k < n; k++) {
            if (k == i) continue;
            mpfr_sub(t, w->c[k], w->c[i], RND);
            mpfr_mul(dq, dq, t, RND);
        }
        mpfr_abs(t, dq, RND);
        if (mpfr_zero_p(dq) || !mpfr_number_p(dq)) {
            why_set(why, len, "x^(%d/%d) on [%g, %g] at order %d: two poles coincide", w->num, w->den, w->lo, w->hi, n);
            goto done;
        }
        mpfr_neg(t, w->c[i], RND);
        horner(v, w->p, n, t);
        mpfr_div(v, v, dq, RND);
        mpfr_mul(v, v, w->scale, RND);
        mpfr_mul(t, w->c[i], w->scale, RND);
        r->b[i] = mpfr_get_d(t, RND);
        r->a[i] = mpfr_get_d(v, RND);
        if ((w->num < 0 && !(r->a[i] > 0)) || (w->num > 0 && !(r->a[i] < 0))) {
            why_set(why, len, "x^(%d/%d) on [%g, %g] at order %d: a residue %g of the wrong sign", w->num, w->den,
                    w->lo, w->hi, n, r->a[i]);
            goto done;
        }
    }
    r->a0 = mpfr_get_d(w->p[n], RND);
    status = 0;
done:
    mpfr_clears(v, dq, t, (mpfr_ptr)0);
    return status;
}

/* max |r(x)/x^p - 1| of the double coefficients, in MPFR (128 bits), on
 * MEASURE_POINTS log-spaced points and the extra points xs[ns] */
static double measure(const struct rational *r, const double *xs, int ns)
{
    mpfr_t x, f, s, t;
    mpfr_inits2(128, x, f, s, t, (mpfr_ptr)0);
    double worst = 0;
    for (int i = 0; i < MEASURE_POINTS + ns; i++) {
        double xd = i < MEASURE_POINTS ? r->lo * pow(r->hi / r->lo, (double)i / (MEASURE_POINTS - 1)) : xs[i - MEASURE_POINTS];
        if (i == MEASURE_POINTS - 1) xd = r->hi;
        mpfr_set_d(x, xd, RND);
        mpfr_set_d(s, r->a0, RND);
        for (int k = 0; k < r->order; k++) {
            mpfr_add_d(t, x, r->b[k], RND);
            mpfr_d_div(t, r->a[k], t, RND);
            mpfr_add(s, s, t, RND);
        }
        power(f, x, r->num, r->den);
        mpfr_div(s, s, f, RND);
        mpfr_sub_ui(s, s, 1, RND);
        double e = fabs(mpfr_get_d(s, RND));
        if (!(e <= worst)) worst = e; /* NaN propagates */
    }
    mpfr_clears(x, f, s, t, (mpfr_ptr)0);
    return worst;
}

static int check_args(int num, int den, double lo, double hi, char *why, size_t len)
{
    if (den <= 0 || num == 0) {
        why_set(why, len, "the power %d/%d is not a nonzero fraction with a positive denominator", num, den);
        return -1;
    }
    if (num < -den || num >= den) { /* the best (n, n) approximations of other powers lack real negative poles */
        why_set(why, len, "the power %d/%d is outside -1 <= p < 1, where partial fractions with shifts >= 0 exist "
                "(a larger number of pseudofermion fields brings it in)", num, den);
        return -1;
    }
    if (!(lo > 0) || !isfinite(lo)) {
        why_set(why, len, "the range's lower end %g must be > 0", lo);
        return -1;
    }
    if (!(hi > lo) || !isfinite(hi)) {
        why_set(why, len, "the range [%g, %g] is empty", lo, hi);
        return -1;
    }
    return 0;
}

int rational_remez(struct rational *r, int num, int den, int order, double lo, double hi, char *why, size_t len)
{
    if (check_args(num, den, lo, hi, why, len) != 0) return -1;
    if (order < 1 || order > RATIONAL_MAX_ORDER) {
        why_set(why, len, "the order %d is outside 1..%d", order, RATIONAL_MAX_ORDER);
        return -1;
    }
    if (num == -den) { /* x^-1 is its own order-1 approximation, whatever order is asked */
        struct rational exact = {.num = num, .den = den, .order = 1, .lo = lo, .hi = hi, .a0 = 0, .a = {1}, .b = {0}};
        exact.max_rel_error = measure(&exact, &lo, 1);
        *r = exact;
        return 0;
    }
    struct remez *w = calloc(1, sizeof *w);
    if (!w) { why_set(why, len, "out of memory"); return -1; }
    int n = order, m = 2 * order + 2, status = -1;
    w->n = n, w->num = num, w->den = den, w->npts = m, w->lo = lo, w->hi = hi;
    w->prec = 96 + (mpfr_prec_t)n * (6 + (mpfr_prec_t)ceil(0.5 * log2(hi / lo)));
    w->A = malloc(sizeof(mpfr_t) * (size_t)m * (m + 1));
    w->rhs = malloc(sizeof(mpfr_t) * (size_t)m);
    if (!w->A || !w->rhs) { free(w->A), free(w->rhs), free(w); why_set(why, len, "out of memory"); return -1; }
    for (size_t i = 0; i < (size_t)m * (m + 1); i++) mpfr_init2(w->A[i], w->prec);
    for (int i = 0; i < m; i++) mpfr_init2(w->rhs[i], w->prec);
    for (int k = 0; k <= n; k++) mpfr_init2(w->p[k], w->prec), mpfr_set_ui(w->p[k], 0, RND);
    for (int i = 0; i < n; i++) mpfr_init2(w->c[i], w->prec);
    mpfr_inits2(w->prec, w->scale, w->E, w->y, w->f, w->s1, w->s2, w->s3, (mpfr_ptr)0);
    mpfr_set_d(w->scale, lo, RND);
    mpfr_mul_d(w->scale, w->scale, hi, RND);
    mpfr_sqrt(w->scale, w->scale, RND);

    /* Starts: reference points spread in log x between uniform and
     * Chebyshev (ends included), the weight of Chebyshev from STARTS, tried
     * in turn until one converges (the first Newton solve can meet a pole
     * running to 0 or infinity on a poor reference); poles spread
     * geometrically over -[lo, hi] a little beyond both ends (where such
     * approximations have them); P = 0, E = 0. */
    static const double STARTS[] = {0.35, 0.2, 0.5, 0.1, 0.65, 0.8, 0.0};
    int nstarts = (int)(sizeof STARTS / sizeof STARTS[0]), start, it = 0;
    double spread = 1, emax = 0;
    for (start = 0; start < nstarts; start++) {
        double cheb = STARTS[start];
        for (int j = 0; j < m; j++)
            w->x[j] = lo * pow(hi / lo, cheb * 0.5 * (1 - cos(M_PI * j / (m - 1))) + (1 - cheb) * j / (m - 1));
        w->x[0] = lo, w->x[m - 1] = hi;
        for (int i = 0; i < n; i++) mpfr_set_d(w->c[i], sqrt(lo / hi) * pow(hi / lo, -0.1 + 1.2 * (i + 0.5) / n), RND);
        for (int k = 0; k <= n; k++) mpfr_set_ui(w->p[k], 0, RND);
        mpfr_set_ui(w->E, 0, RND);
        spread = 1;
        for (it = 0; it < MAX_EXCHANGES; it++) {
            int solved = solve_reference(w);
            if (solved < 0 || exchange(w, &spread, &emax) != 0) break;
            if (solved == 0 && spread < CONVERGED) break;
            spread = 1;
        }
        if (spread < CONVERGED) break;
    }
    if (start == nstarts) {
        why_set(why, len, "x^(%d/%d) on [%g, %g] at order %d: a range that the Remez algorithm cannot fit "
                "(no equioscillation from %d starts)", num, den, lo, hi, order, nstarts);
        goto done;
    }
    struct rational out = {.num = num, .den = den, .order = n, .lo = lo, .hi = hi};
    if (partial_fractions(w, &out, why, len) != 0) goto done;
    out.max_rel_error = measure(&out, w->x, m);
    if (!isfinite(out.max_rel_error)) {
        why_set(why, len, "x^(%d/%d) on [%g, %g] at order %d: the coefficients overflow double", num, den, lo, hi, order);
        goto done;
    }
    *r = out;
    status = 0;
done:
    for (size_t i = 0; i < (size_t)m * (m + 1); i++) mpfr_clear(w->A[i]);
    for (int i = 0; i < m; i++) mpfr_clear(w->rhs[i]);
    for (int k = 0; k <= n; k++) mpfr_clear(w->p[k]);
    for (int i = 0; i < n; i++) mpfr_clear(w->c[i]);
    mpfr_clears(w->scale, w->E, w->y, w->f, w->s1, w->s2, w->s3, (mpfr_ptr)0);
    free(w->A), free(w->rhs), free(w);
    mpfr_free_cache();
    return status;
}

/* Below this a tolerance cannot be met by coefficients rounded to double:
 * the measured error of the best approximations stalls near 1e-16. */
#define TOL_FLOOR 1e-16

int rational_remez_tol(struct rational *r, int num, int den, double tol, double lo, double hi, char *why, size_t len)
{
    if (check_args(num, den, lo, hi, why, len) != 0) return -1;
    if (!(tol > 0) || !isfinite(tol)) {
        why_set(why, len, "the tolerance %g must be a positive number", tol);
        return -1;
    }
    if (tol < TOL_FLOOR) {
        why_set(why, len, "the tolerance %g is below %g, what coefficients in double precision can reach", tol, TOL_FLOOR);
        return -1;
    }
    if (num == -den) return rational_remez(r, num, den, 1, lo, hi, why, len);
    /* The minimax error does not grow with the order, so the smallest order
     * meeting tol lies in (lb, ub]: shrink the bracket, each guess from the
     * geometric fall of the error between the last two orders tried. */
    struct rational best, t;
    int lb = 0, ub = RATIONAL_MAX_ORDER + 1, n = 4, n_prev = 0;
    double e_prev = 0;
    while (ub - lb > 1) {
        if (n <= lb) n = lb + 1;
        if (n >= ub) n = ub - 1;
        if (rational_remez(&t, num, den, n, lo, hi, why, len) != 0) return -1;
        double e = t.max_rel_error;
        if (e <= tol) ub = n, best = t;
        else lb = n;
        int next;
        if (n_prev > 0 && e > 0 && e_prev > 0) {
            double slope = (log(e) - log(e_prev)) / (n - n_prev); /* ln error per order */
            if (e > tol && n > n_prev && !(slope < -0.01)) {
                why_set(why, len, "x^(%d/%d) on [%g, %g]: the error stops falling at %g (order %d), above the tolerance %g",
                        num, den, lo, hi, e, n, tol);
                return -1;
            }
            next = slope < 0 ? n + (int)ceil((log(tol) - log(e)) / slope) : (e > tol ? n + 1 : n - 1);
        } else
            next = e > tol ? 2 * n : n / 2;
        n_prev = n, e_prev = e, n = next;
    }
    if (ub > RATIONAL_MAX_ORDER) {
        why_set(why, len, "x^(%d/%d) on [%g, %g]: the tolerance %g is not reached by order %d", num, den, lo, hi, tol,
                RATIONAL_MAX_ORDER);
        return -1;
    }
    *r = best;
    return 0;
}
