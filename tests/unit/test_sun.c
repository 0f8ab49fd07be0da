/* test_sun.c -- SU(N) algebra (common/sun.h) and the Haar generator:
 * unitarity and det = 1 of random matrices, SU(2) subgroup products against
 * full matrix products, reunitarisation, two-row reconstruction. */
#include "lattice/field.h"
#include "math/rng.h"
#include "math/sun.h"
#include "unit.h"

static void embed(int n, lat_complex *m, int i, int j, lat_su2 g)
{
    sun_unit(n, m);
    sun_su2_left(n, m, i, j, g);
}

int main(void)
{
    struct lat_rng r;
    rng_init(&r, 42, 0, 0, 0, RNG_TEST);
    for (int n = 2; n <= 5; n++) {
        lat_complex a[25], b[25], c[25], d[25];
        sun_random_haar(n, (double *)a, &r);
        sun_random_haar(n, (double *)b, &r);
        CHECK(sun_unitarity_dev(n, a) < 1e-14, "haar unitary n=%d", n);
        lat_complex det = sun_det(n, a);
        CHECK(fabs(det.re - 1) < 1e-13 && fabs(det.im) < 1e-13, "haar det n=%d: %g %g", n, det.re, det.im);
        /* subgroup left/right against full products */
        for (int s = 0; s < sun_nsubgroups(n); s++) {
            int i, j;
            sun_subgroup(n, s, &i, &j);
            lat_su2 g = {{rng_normal(&r), rng_normal(&r), rng_normal(&r), rng_normal(&r)}};
            g = su2_normalize(g);
            lat_complex G[25];
            embed(n, G, i, j, g);
            CHECK(sun_unitarity_dev(n, G) < 1e-14, "embedded su2 unitary");
            sun_copy(n, c, a);
            sun_su2_left(n, c, i, j, g);
            sun_mul(n, d, G, a);
            double err = 0;
            for (int k = 0; k < n * n; k++) err += c_norm2(c_sub(c[k], d[k]));
            CHECK(err < 1e-28, "left subgroup mult n=%d s=%d err %g", n, s, err);
            sun_copy(n, c, a);
            sun_su2_right_dagger(n, c, i, j, g);
            sun_mul_nd(n, d, a, G);
            err = 0;
            for (int k = 0; k < n * n; k++) err += c_norm2(c_sub(c[k], d[k]));
            CHECK(err < 1e-28, "right dagger subgroup mult n=%d s=%d err %g", n, s, err);
            /* Re tr(G a) = g0 q0 - g.q + const, checked by difference with g = 1 */
            lat_su2 q = sun_su2_block(n, a, i, j);
            lat_complex one[25];
            sun_unit(n, one);
            double lhs = sun_retrace_mul(n, G, a) - sun_retrace_mul(n, one, a);
            double rhs = g.q[0] * q.q[0] - g.q[1] * q.q[1] - g.q[2] * q.q[2] - g.q[3] * q.q[3] - q.q[0];
            CHECK_CLOSE(lhs, rhs, 1e-13);
        }
        /* reunitarize a perturbed matrix */
        sun_copy(n, c, a);
        for (int k = 0; k < n * n; k++) c[k].re += 1e-3 * rng_normal(&r);
        sun_reunitarize(n, c);
        CHECK(sun_unitarity_dev(n, c) < 1e-14, "reunitarized n=%d", n);
        det = sun_det(n, c);
        CHECK(fabs(det.re - 1) < 1e-13 && fabs(det.im) < 1e-13, "reunitarized det n=%d", n);
        (void)b;
    }
    /* SU(3) third row */
    lat_complex m[9], m2[9];
    sun_random_haar(3, (double *)m, &r);
    sun_copy(3, m2, m);
    m2[6] = m2[7] = m2[8] = c_make(0, 0);
    su3_rebuild_row3(m2);
    double err = 0;
    for (int k = 0; k < 9; k++) err += c_norm2(c_sub(m[k], m2[k]));
    CHECK(err < 1e-28, "row 3 rebuild err %g", err);
    /* su2_mul against matrices */
    lat_su2 x = su2_normalize((lat_su2){{1, 2, 3, 4}}), y = su2_normalize((lat_su2){{-1, 0.5, 2, 0}});
    lat_complex X[4], Y[4], XY[4], Z[4];
    embed(2, X, 0, 1, x);
    embed(2, Y, 0, 1, y);
    sun_mul(2, XY, X, Y);
    embed(2, Z, 0, 1, su2_mul(x, y));
    err = 0;
    for (int k = 0; k < 4; k++) err += c_norm2(c_sub(XY[k], Z[k]));
    CHECK(err < 1e-28, "su2_mul err %g", err);
    return unit_done("test_sun");
}
