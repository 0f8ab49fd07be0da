/* test_rational.c -- the Remez algorithm (kernels/rational/remez.c) checked
 * from outside: every error here is recomputed in long double from the
 * double coefficients returned, on grids other than the 4000 log-spaced
 * points remez.c measures on.  Checked: the returned max_rel_error bounds
 * that independent error (x 1.01); the minimax property (2n+2 lobes of
 * alternating sign whose extrema agree to 0.1 %); the orders rational_remez_tol
 * picks for the RHMC's powers at 1e-12 and 1e-6 meet the tolerance and one
 * order less does not; the error falls geometrically with the order; the
 * exact x^-1; the error of x^(-1/2) equals Zolotarev's closed form (elliptic
 * functions, computed here); the minimax errors of x^p and x^-p agree (the map x -> lo hi/x
 * takes one problem to the other); r_{-1/2}(x)^2 x ~ 1 and r_{1/4}(x)^2 r_{-1/2}(x) ~ 1 (the
 * heatbath-then-action identity of the RHMC) within the errors' sum; poles
 * real and <= 0 and residues of the stated sign; bad input -> -1, a reason
 * and the struct untouched. */
#include "rational/rational.h"
#include "unit.h"
#include <string.h>

#define LO 1e-4
#define HI 16.0001

/* x^(num/den) in long double */
static long double power_l(long double x, int num, int den) { return powl(x, (long double)num / den); }

static long double eval_l(const struct rational *r, long double x)
{
    long double s = r->a0;
    for (int i = 0; i < r->order; i++) s += (long double)r->a[i] / (x + (long double)r->b[i]);
    return s;
}

static long double rel_err_l(const struct rational *r, long double x)
{
    return eval_l(r, x) / power_l(x, r->num, r->den) - 1;
}

/* the i-th of npts points, log-spaced with an offset so that they miss
 * remez.c's own grid; the ends exactly */
static double grid(const struct rational *r, int i, int npts)
{
    if (i == 0) return r->lo;
    if (i == npts - 1) return r->hi;
    return r->lo * pow(r->hi / r->lo, (i + 0.3719) / npts);
}

/* max |error| on a 7919-point grid */
static double max_err(const struct rational *r)
{
    long double worst = 0;
    for (int i = 0; i < 7919; i++) {
        long double e = fabsl(rel_err_l(r, grid(r, i, 7919)));
        if (e > worst) worst = e;
    }
    return (double)worst;
}

/* the common checks of one approximation: structure, poles, residues, the
 * independent error within max_rel_error */
static void check_approx(const struct rational *r, const char *what)
{
    int poles_ok = 1, signs_ok = 1, distinct = 1;
    for (int i = 0; i < r->order; i++) {
        if (!(r->b[i] >= 0)) poles_ok = 0;
        if (r->num < 0 ? !(r->a[i] > 0) : !(r->a[i] < 0)) signs_ok = 0;
        for (int k = 0; k < i; k++)
            if (r->b[k] == r->b[i]) distinct = 0;
    }
    CHECK(poles_ok && distinct, "%s: shifts b[i] >= 0 and distinct", what);
    CHECK(signs_ok, "%s: residues of the sign rational.h states", what);
    double e = max_err(r);
    CHECK(e <= r->max_rel_error * 1.01, "%s: independent error %.4g > max_rel_error %.4g x 1.01", what, e,
          r->max_rel_error);
    CHECK(e >= r->max_rel_error * 0.9, "%s: independent error %.4g much below max_rel_error %.4g (grid too coarse?)",
          what, e, r->max_rel_error);
}

/* The minimax property: on a fine grid the error has 2n+2 lobes of
 * alternating sign (points with |e| below 1e-6 of the maximum are taken as
 * zeros), and the lobes' extrema agree to 0.1 % (de la Vallee Poussin: the
 * best error then lies between the smallest and the largest). */
static void check_equioscillation(const struct rational *r, const char *what)
{
    enum { N = 40009 };
    static long double e[N];
    long double emax = 0;
    for (int i = 0; i < N; i++) {
        e[i] = rel_err_l(r, grid(r, i, N));
        if (fabsl(e[i]) > emax) emax = fabsl(e[i]);
    }
    int lobes = 0, sign = 0;
    long double lobe_max = 0, lo_ext = INFINITY, hi_ext = 0;
    for (int i = 0; i <= N; i++) {
        int s = i == N ? -sign : fabsl(e[i]) < 1e-6L * emax ? sign : (e[i] > 0 ? 1 : -1);
        if (s != sign && sign != 0) { /* a lobe ends */
            if (lobe_max < lo_ext) lo_ext = lobe_max;
            if (lobe_max > hi_ext) hi_ext = lobe_max;
            lobe_max = 0;
        }
        if (s != sign) lobes += i < N, sign = s;
        if (i < N && fabsl(e[i]) > lobe_max) lobe_max = fabsl(e[i]);
    }
    printf("  %s: %d lobes (2n+2 = %d), extrema %.6Lg .. %.6Lg\n", what, lobes, 2 * r->order + 2, lo_ext, hi_ext);
    CHECK(lobes == 2 * r->order + 2, "%s: %d lobes of alternating sign, expected 2n+2 = %d", what, lobes,
          2 * r->order + 2);
    CHECK(lo_ext >= 0.999L * hi_ext, "%s: the extrema range over %.6Lg .. %.6Lg (not equal to 0.1 %%)", what, lo_ext, hi_ext);
}

static void test_minimax(void)
{
    static const struct { int num, den, order; double lo, hi; } cases[] = {
        {-1, 2, 8, LO, HI}, {1, 4, 6, LO, HI}, {1, 8, 10, LO, HI}, {-1, 4, 5, 0.01, 17}, {-3, 8, 12, 2.5e-5, 16.5},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct rational r;
        char why[256], what[96];
        snprintf(what, sizeof what, "x^(%d/%d) order %d on [%g, %g]", cases[c].num, cases[c].den, cases[c].order,
                 cases[c].lo, cases[c].hi);
        int s = rational_remez(&r, cases[c].num, cases[c].den, cases[c].order, cases[c].lo, cases[c].hi, why, sizeof why);
        CHECK(s == 0, "%s: %s", what, why);
        if (s) continue;
        CHECK(r.order == cases[c].order && r.num == cases[c].num && r.den == cases[c].den && r.lo == cases[c].lo &&
                  r.hi == cases[c].hi, "%s: the struct's header", what);
        check_approx(&r, what);
        check_equioscillation(&r, what);
    }
}

/* rational_remez_tol for one power and tolerance: meets tol, one order less
 * does not; prints the order and error */
static void tol_case(struct rational *r, int num, int den, double tol)
{
    char why[256], what[64];
    snprintf(what, sizeof what, "x^(%d/%d) at tol %g", num, den, tol);
    int s = rational_remez_tol(r, num, den, tol, LO, HI, why, sizeof why);
    CHECK(s == 0, "%s: %s", what, why);
    if (s) { memset(r, 0, sizeof *r); return; }
    printf("  %s on [%g, %g]: order %d, max_rel_error %.3e\n", what, LO, HI, r->order, r->max_rel_error);
    CHECK(r->max_rel_error <= tol, "%s: error %g > tol", what, r->max_rel_error);
    check_approx(r, what);
    if (r->order > 1) {
        struct rational less;
        s = rational_remez(&less, num, den, r->order - 1, LO, HI, why, sizeof why);
        CHECK(s == 0 && less.max_rel_error > tol, "%s: order %d would do too (error %g)", what, r->order - 1,
              less.max_rel_error);
    }
}

static void test_orders_and_identities(void)
{
    struct rational md, metro, heat, heat6;
    tol_case(&metro, -1, 2, 1e-12); /* Metropolis, nf = 2 */
    tol_case(&md, -1, 2, 1e-6);     /* molecular dynamics */
    tol_case(&heat, 1, 4, 1e-12);   /* pseudofermion heatbath */
    tol_case(&heat6, 1, 4, 1e-6);
    CHECK(metro.order > md.order && heat.order > heat6.order, "higher orders for the tighter tolerance");

    /* r_{-1/2}(x)^2 x ~ 1 within 2e-12, r_{1/4}(x)^2 r_{-1/2}(x) ~ 1 within
     * 2 e_{1/4} + e_{-1/2} (first order in the errors, plus a margin) */
    long double worst_sq = 0, worst_prod = 0;
    for (int i = 0; i < 5003; i++) {
        double x = LO * pow(HI / LO, (i + 0.61) / 5003.0);
        if (i == 0) x = LO;
        long double rm = eval_l(&metro, x), rh = eval_l(&heat, x);
        long double sq = fabsl(rm * rm * x - 1), prod = fabsl(rh * rh * rm - 1);
        if (sq > worst_sq) worst_sq = sq;
        if (prod > worst_prod) worst_prod = prod;
    }
    double bound = 2 * heat.max_rel_error + metro.max_rel_error;
    printf("  max |r_{-1/2}^2 x - 1| = %.3Le (<= 2e-12), max |r_{1/4}^2 r_{-1/2} - 1| = %.3Le (<= %.3e)\n", worst_sq,
           worst_prod, bound * 1.01);
    CHECK(worst_sq <= 2e-12L, "r_{-1/2}(x)^2 x - 1 up to %Lg", worst_sq);
    CHECK(worst_prod <= bound * 1.01, "r_{1/4}^2 r_{-1/2} - 1 up to %Lg > %g", worst_prod, bound * 1.01);

    /* the error falls geometrically with the order */
    double prev = 0;
    int falls = 1;
    printf("  x^(-1/2) on [%g, %g]:", LO, HI);
    for (int n = 4; n <= 10; n++) {
        struct rational r;
        char why[256];
        if (rational_remez(&r, -1, 2, n, LO, HI, why, sizeof why) != 0) {
            CHECK(0, "x^(-1/2) order %d: %s", n, why);
            return;
        }
        printf(" %d: %.2e", n, r.max_rel_error);
        if (n > 4 && !(r.max_rel_error < 0.6 * prev)) falls = 0;
        prev = r.max_rel_error;
    }
    printf("\n");
    CHECK(falls, "the error of x^(-1/2) falls by a factor >= 1/0.6 per order over orders 4..10");
}

/* x -> lo hi / x maps [lo, hi] onto itself, x^p onto (lo hi)^p x^-p and a
 * rational function of type (n, n) onto another: the minimax errors of x^p
 * and x^-p of one order agree (an invariant remez.c knows nothing of). */
static void test_inversion_symmetry(void)
{
    static const struct { int num, den, order; } cases[] = {{1, 4, 7}, {1, 2, 9}, {1, 8, 5}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct rational plus, minus;
        char why[256];
        int s = rational_remez(&plus, cases[c].num, cases[c].den, cases[c].order, LO, HI, why, sizeof why);
        s |= rational_remez(&minus, -cases[c].num, cases[c].den, cases[c].order, LO, HI, why, sizeof why);
        CHECK(s == 0, "x^(+-%d/%d): %s", cases[c].num, cases[c].den, why);
        if (s) continue;
        double rel = fabs(plus.max_rel_error / minus.max_rel_error - 1);
        printf("  order %d: x^(%d/%d) error %.6e, x^(-%d/%d) error %.6e\n", cases[c].order, cases[c].num, cases[c].den,
               plus.max_rel_error, cases[c].num, cases[c].den, minus.max_rel_error);
        CHECK(rel < 1e-4, "x^(+-%d/%d) order %d: errors differ by %.3g (relative)", cases[c].num, cases[c].den,
              cases[c].order, rel);
    }
}

/* Zolotarev's closed form of the best [d, d] relative approximation of
 * x^(-1/2) on [a^2, b^2] (as in Lüscher's and Chiu et al.'s overlap
 * papers): with m = 1 - (a/b)^2, K = K(m) and u_j = j K/(2d+1),
 * c_j = a^2 sn^2(u_j)/cn^2(u_j), the function sqrt(x) prod_{l=1..d}
 * (x + c_{2l})/(x + c_{2l-1}) oscillates between its min and max at
 * x_j = a^2/dn^2(u_j), so the best error is (max - min)/(max + min).
 * Jacobi's functions by the arithmetic-geometric mean (DLMF 22.20(ii)),
 * in long double; b0 = a/b directly (m is within 1e-5 of 1). */
static void jacobi_sncndn(long double u, long double m, long double kc, long double *sn, long double *cn, long double *dn)
{
    long double a[40], c[40], b = kc, phi[40];
    a[0] = 1, c[0] = sqrtl(m);
    int N = 0;
    while (fabsl(c[N]) > 1e-21L * a[N] && N < 38) {
        a[N + 1] = (a[N] + b) / 2;
        c[N + 1] = (a[N] - b) / 2;
        b = sqrtl(a[N] * b);
        N++;
    }
    phi[N] = ldexpl(a[N] * u, N);
    for (int n = N; n > 0; n--) phi[n - 1] = (phi[n] + asinl(c[n] / a[n] * sinl(phi[n]))) / 2;
    *sn = sinl(phi[0]);
    *cn = cosl(phi[0]);
    *dn = N > 0 ? *cn / cosl(phi[1] - phi[0]) : 1;
}

static double zolotarev_error(int d, double lo, double hi)
{
    long double a = sqrtl(lo), kc = sqrtl((long double)lo / hi), m = 1 - kc * kc;
    long double an = 1, bn = kc; /* K(m) = pi / (2 AGM(1, kc)) */
    for (int i = 0; i < 40; i++) { long double t = (an + bn) / 2; bn = sqrtl(an * bn); an = t; }
    long double K = 3.14159265358979323846264338327950288L / (2 * an), c[2 * RATIONAL_MAX_ORDER + 2], xe[2 * RATIONAL_MAX_ORDER + 2];
    for (int j = 0; j <= 2 * d + 1; j++) {
        long double sn, cn, dn;
        jacobi_sncndn(j * K / (2 * d + 1), m, kc, &sn, &cn, &dn);
        c[j] = j == 2 * d + 1 ? 0 : a * a * sn * sn / (cn * cn);
        xe[j] = a * a / (dn * dn);
    }
    long double lo_v = INFINITY, hi_v = 0;
    for (int i = 0; i < 4000 + 2 * d + 2; i++) { /* a grid and the extrema */
        long double x = i < 4000 ? lo * powl((long double)hi / lo, (i + 0.5L) / 4000) : xe[i - 4000];
        long double v = sqrtl(x);
        for (int l = 1; l <= d; l++) v *= (x + c[2 * l]) / (x + c[2 * l - 1]);
        if (v < lo_v) lo_v = v;
        if (v > hi_v) hi_v = v;
    }
    return (double)((hi_v - lo_v) / (hi_v + lo_v));
}

static void test_zolotarev(void)
{
    static const struct { int order; double lo, hi; } cases[] = {{6, LO, HI}, {12, LO, HI}, {8, 0.0025, 16.0025}, {4, 0.25, 16.25}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct rational r;
        char why[256];
        int s = rational_remez(&r, -1, 2, cases[c].order, cases[c].lo, cases[c].hi, why, sizeof why);
        CHECK(s == 0, "x^(-1/2) order %d: %s", cases[c].order, why);
        if (s) continue;
        double z = zolotarev_error(cases[c].order, cases[c].lo, cases[c].hi);
        printf("  x^(-1/2) order %d on [%g, %g]: Remez %.9e, Zolotarev %.9e\n", cases[c].order, cases[c].lo, cases[c].hi,
               r.max_rel_error, z);
        CHECK(fabs(r.max_rel_error / z - 1) < 1e-6, "x^(-1/2) order %d on [%g, %g]: Remez error %.9g, Zolotarev's %.9g",
              cases[c].order, cases[c].lo, cases[c].hi, r.max_rel_error, z);
    }
}

static void test_exact(void)
{
    struct rational r;
    char why[256];
    int s = rational_remez(&r, -1, 1, 1, LO, HI, why, sizeof why);
    CHECK(s == 0, "x^-1: %s", why);
    CHECK(r.order == 1, "x^-1 has order 1, not %d", r.order);
    CHECK_CLOSE(r.a0, 0, 1e-14);
    CHECK_CLOSE(r.a[0], 1, 1e-14);
    CHECK_CLOSE(r.b[0], 0, 1e-14);
    CHECK(r.max_rel_error <= 1e-15, "x^-1 error %g", r.max_rel_error);
    s = rational_remez_tol(&r, -1, 1, 1e-14, LO, HI, why, sizeof why);
    CHECK(s == 0 && r.order == 1, "x^-1 at tol 1e-14 is order 1");
}

static void test_bad_input(void)
{
    struct rational r, before;
    memset(&before, 0x5a, sizeof before);
    struct { int num, den, order; double tol, lo, hi; const char *what; } bad[] = {
        {-1, 2, 8, 0, 0, 16, "lo = 0"},
        {-1, 2, 8, 0, -1e-4, 16, "lo < 0"},
        {-1, 2, 8, 0, 1, 1, "lo = hi"},
        {-1, 2, 8, 0, 2, 1, "lo > hi"},
        {-1, 2, 8, 0, NAN, 1, "lo NaN"},
        {-1, 2, 0, 0, LO, HI, "order 0"},
        {-1, 2, RATIONAL_MAX_ORDER + 1, 0, LO, HI, "order > max"},
        {-1, 0, 8, 0, LO, HI, "den 0"},
        {3, 2, 8, 0, LO, HI, "power 3/2"},
        {-2, 1, 8, 0, LO, HI, "power -2"},
        {0, 1, 8, 0, LO, HI, "power 0"},
        {-1, 2, 0, 1e-30, LO, HI, "tol 1e-30"},
        {-1, 2, 0, -1e-6, LO, HI, "tol < 0"},
        {1, 4, 0, 1e-12, 0, HI, "tol search, lo = 0"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        char why[256] = "";
        r = before;
        int s = bad[c].tol != 0 ? rational_remez_tol(&r, bad[c].num, bad[c].den, bad[c].tol, bad[c].lo, bad[c].hi, why, sizeof why)
                                : rational_remez(&r, bad[c].num, bad[c].den, bad[c].order, bad[c].lo, bad[c].hi, why, sizeof why);
        printf("  %s: %d \"%s\"\n", bad[c].what, s, why);
        CHECK(s == -1, "%s: returned %d", bad[c].what, s);
        CHECK(why[0] != 0 && strchr(why, '\n') == NULL, "%s: one line of reason", bad[c].what);
        CHECK(memcmp(&r, &before, sizeof r) == 0, "%s: the struct was written", bad[c].what);
    }
}

int main(void)
{
    test_exact();
    test_bad_input();
    test_minimax();
    test_inversion_symmetry();
    test_zolotarev();
    test_orders_and_identities();
    return unit_done("test_rational");
}
