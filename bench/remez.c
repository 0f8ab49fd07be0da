/* remez.c (bench) -- the Remez algorithm (kernels/rational) on the RHMC's
 * table: for each power x^(num/den), range [m^2, 16 + m^2] (am = 0.01,
 * 0.05, 0.1, 0.5: the staggered operator's spectral bound) and tolerance
 * (1e-6: molecular dynamics, 1e-12: Metropolis and heatbath), the order
 * rational_remez_tol picks, its max_rel_error (measured in MPFR for the
 * double coefficients) and the CPU seconds it took (the search over orders
 * included).  Prints numbers; checks nothing.
 *
 *   build/bench/remez            (the whole table)
 *   build/bench/remez NUM DEN TOL LO HI   (one line) */
#include "rational/rational.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int row(int num, int den, double tol, double lo, double hi)
{
    struct rational r;
    char why[256];
    clock_t c0 = clock();
    int s = rational_remez_tol(&r, num, den, tol, lo, hi, why, sizeof why);
    double sec = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (s != 0) {
        printf("x^(%d/%d)\t%g\t%g\t%g\t-\t-\t%.2f\t%s\n", num, den, lo, hi, tol, sec, why);
        return 1;
    }
    printf("x^(%d/%d)\t%g\t%g\t%g\t%d\t%.3e\t%.2f\n", num, den, lo, hi, tol, r.order, r.max_rel_error, sec);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    printf("power\tlo\thi\ttol\torder\tmax_rel_error\tcpu_s\n");
    if (argc == 6) return row(atoi(argv[1]), atoi(argv[2]), atof(argv[3]), atof(argv[4]), atof(argv[5]));
    if (argc != 1) {
        fprintf(stderr, "usage: %s [NUM DEN TOL LO HI]\n", argv[0]);
        return 2;
    }
    static const int powers[][2] = {{-1, 2}, {1, 4}, {-1, 4}, {1, 8}, {-1, 1}, {1, 2}};
    static const double masses[] = {0.01, 0.05, 0.1, 0.5};
    static const double tols[] = {1e-6, 1e-12};
    int fails = 0;
    for (size_t p = 0; p < sizeof powers / sizeof powers[0]; p++)
        for (size_t m = 0; m < sizeof masses / sizeof masses[0]; m++)
            for (size_t t = 0; t < sizeof tols / sizeof tols[0]; t++) {
                double m2 = masses[m] * masses[m];
                fails += row(powers[p][0], powers[p][1], tols[t], m2, 16 + m2);
            }
    return fails ? 1 : 0;
}
