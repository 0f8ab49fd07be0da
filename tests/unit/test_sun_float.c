/* test_sun_float.c -- the 8-real SU(3) storage of math/sun.h built with
 * LAT_REAL float (as the single-precision GPU kernels build it): su3_pack8
 * and su3_unpack8 computed in float on Haar-random, exactly degenerate and
 * nearly degenerate matrices (made in double, rounded to float), compared
 * with the double originals.  The double build: test_sun.c. */
#define LAT_REAL float
#include "lattice/field.h"
#include "math/rng.h"
#include "math/sun.h"
#include "unit.h"

#define EPS_F 1.1920928955078125e-7

/* largest |a_k - b_k|, a in float, b in double */
static double max_err3(const lat_complex *a, const double *b)
{
    double e = 0;
    for (int k = 0; k < 9; k++) e = fmax(e, hypot(a[k].re - b[2 * k], a[k].im - b[2 * k + 1]));
    return e;
}

static void to_float(const double *d, lat_complex *m)
{
    for (int k = 0; k < 9; k++) m[k] = c_make((float)d[2 * k], (float)d[2 * k + 1]);
}

/* |det m - 1| and ||m^dag m - 1|| in double of a float matrix */
static double su3_dev(const lat_complex *m)
{
    double d[18];
    for (int k = 0; k < 9; k++) d[2 * k] = m[k].re, d[2 * k + 1] = m[k].im;
    double u = 0, dr, di;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double re = i == j ? -1 : 0, im = 0;
            for (int k = 0; k < 3; k++) {
                const double *a = d + 2 * (3 * k + i), *b = d + 2 * (3 * k + j);
                re += a[0] * b[0] + a[1] * b[1];
                im += a[0] * b[1] - a[1] * b[0];
            }
            u += re * re + im * im;
        }
    /* det by the first row's cofactors */
#define RE(k) d[2 * (k)]
#define IM(k) d[2 * (k) + 1]
#define CR(a, b, c, e) (RE(a) * RE(b) - IM(a) * IM(b) - RE(c) * RE(e) + IM(c) * IM(e))
#define CI(a, b, c, e) (RE(a) * IM(b) + IM(a) * RE(b) - RE(c) * IM(e) - IM(c) * RE(e))
    double c0r = CR(4, 8, 5, 7), c0i = CI(4, 8, 5, 7), c1r = CR(5, 6, 3, 8), c1i = CI(5, 6, 3, 8);
    double c2r = CR(3, 7, 4, 6), c2i = CI(3, 7, 4, 6);
    dr = RE(0) * c0r - IM(0) * c0i + RE(1) * c1r - IM(1) * c1i + RE(2) * c2r - IM(2) * c2i - 1;
    di = RE(0) * c0i + IM(0) * c0r + RE(1) * c1i + IM(1) * c1r + RE(2) * c2i + IM(2) * c2r;
    return fmax(sqrt(u), hypot(dr, di));
}

int main(void)
{
    struct lat_rng r;
    rng_init(&r, 43, 0, 0, 0, RNG_TEST);
    double u[18];
    lat_complex uf[9], m[9];
    lat_real p[8];
    CHECK(sizeof(lat_real) == sizeof(float) && SU3_PACK8_NMIN == (float)EPS_F, "the float build of sun.h: NMIN %g",
          (double)SU3_PACK8_NMIN);
    /* Haar-random: error against the double matrix, as the law
     * eps_f / min(|a1|, |c1|) and as an rms */
    double err = 0, law = 0, sum = 0, dev = 0;
    int nh = 100000;
    for (int i = 0; i < nh; i++) {
        sun_random_haar(3, u, &r);
        double small = sqrt(fmin(u[0] * u[0] + u[1] * u[1], u[12] * u[12] + u[13] * u[13]));
        to_float(u, uf);
        su3_pack8(uf, p);
        su3_unpack8(p, m);
        double e = max_err3(m, u);
        err = fmax(err, e);
        law = fmax(law, e * small / EPS_F);
        sum += e * e;
        dev = fmax(dev, su3_dev(m));
    }
    printf("pack8 in float, Haar (%d): max err %.2e (<= %.1f eps_f/min(|a1|,|c1|)), rms %.2e, unitarity/det %.2e\n", nh,
           err, law, sqrt(sum / nh), dev);
    CHECK(sqrt(sum / nh) <= 1e-6 && law <= 16, "float pack8: rms error %g, %g eps_f / min(|a1|, |c1|)", sqrt(sum / nh),
          law);
    CHECK(dev <= 2e-6, "float pack8: unitarity/det %g", dev);
    /* N = 0: the unit matrix exactly, diagonal SU(3) to rounding */
    sun_unit(3, m);
    su3_pack8(m, p);
    su3_unpack8(p, uf);
    double one[18] = {1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0};
    CHECK(p[7] == SU3_PACK8_DEGENERATE && max_err3(uf, one) == 0, "float unit matrix: error %g", max_err3(uf, one));
    err = 0;
    int sentinel = 1;
    for (int i = 0; i < 1000; i++) {
        double al = 6.283185307179586 * rng_uniform(&r) - 3.14159, be = 6.283185307179586 * rng_uniform(&r) - 3.14159;
        for (int k = 0; k < 18; k++) u[k] = 0;
        u[0] = cos(al), u[1] = sin(al), u[8] = cos(be), u[9] = sin(be), u[16] = cos(al + be), u[17] = -sin(al + be);
        to_float(u, uf);
        su3_pack8(uf, p);
        su3_unpack8(p, m);
        err = fmax(err, max_err3(m, u));
        sentinel &= p[7] == SU3_PACK8_DEGENERATE;
    }
    printf("pack8 in float, diagonal SU(3): max err %.2e\n", err);
    CHECK(sentinel, "float diagonal SU(3): the degenerate form");
    CHECK(err <= 4 * EPS_F, "float pack8 of diagonal SU(3): %g", err);
    /* nearly degenerate: a diagonal matrix rotated by angle ~t in the (1,2)
     * and (1,3) subgroups (c1_zero: (1,2) only, so c1 = 0), made in float:
     * unitary to rounding; errors as sun.h's accuracy note says */
    double eall = 0, e4 = 0, zall = 0;
    dev = 0;
    for (double t = 1e-1; t > 1e-6; t /= 2)
        for (int i = 0; i < 200; i++) {
            int c1_zero = i % 2;
            sun_unit(3, m);
            double al = 6.283185307179586 * rng_uniform(&r);
            m[0] = c_make((float)cos(al), (float)sin(al));
            m[8] = c_make((float)cos(al), (float)-sin(al));
            for (int s = 1; s <= 2 - c1_zero; s++) {
                lat_su2 g = {{(float)cos(t), (float)(sin(t) * rng_normal(&r)), (float)(sin(t) * rng_normal(&r)),
                              (float)(sin(t) * rng_normal(&r))}};
                sun_su2_left(3, m, 0, s, su2_normalize(g));
            }
            for (int k = 0; k < 9; k++) u[2 * k] = m[k].re, u[2 * k + 1] = m[k].im;
            double n = u[2] * u[2] + u[3] * u[3] + u[4] * u[4] + u[5] * u[5];
            su3_pack8(m, p);
            su3_unpack8(p, uf);
            double e = max_err3(uf, u);
            if (c1_zero) zall = fmax(zall, e);
            else eall = fmax(eall, e);
            if (!c1_zero && n >= 1e-4) e4 = fmax(e4, e);
            dev = fmax(dev, su3_dev(uf));
        }
    printf("pack8 in float, nearly degenerate: max err %.2e (any N), %.2e (N >= 1e-4), %.2e (c1 = 0); "
           "unitarity/det %.2e\n", eall, e4, zall, dev);
    CHECK(eall <= 1e-3 && e4 <= 1e-5 && zall <= 2e-3, "float pack8 nearly degenerate: %g (any N), %g (N >= 1e-4), "
          "%g (c1 = 0)", eall, e4, zall);
    CHECK(dev <= 2e-6, "float pack8 nearly degenerate: unitarity/det %g", dev);
    return unit_done("test_sun_float");
}
