/* test_sun.c -- SU(N) algebra (common/sun.h) and the Haar generator:
 * unitarity and det = 1 of random matrices, SU(2) subgroup products against
 * full matrix products, reunitarisation, two-row reconstruction, the 8-real
 * SU(3) storage (su3_pack8 / su3_unpack8: Haar-random, exactly and nearly
 * degenerate matrices, the 8 reals rounded to float; the float build of the
 * same functions: test_sun_float.c). */
#include "lattice/field.h"
#include "math/rng.h"
#include "math/sun.h"
#include "unit.h"

static void embed(int n, lat_complex *m, int i, int j, lat_su2 g)
{
    sun_unit(n, m);
    sun_su2_left(n, m, i, j, g);
}

/* largest |a_k - b_k| of two 3 x 3 matrices */
static double max_err3(const lat_complex *a, const lat_complex *b)
{
    double e = 0;
    for (int k = 0; k < 9; k++) e = fmax(e, sqrt(c_norm2(c_sub(a[k], b[k]))));
    return e;
}

/* |det m - 1| */
static double det_err3(const lat_complex *m)
{
    return sqrt(c_norm2(c_sub(sun_det(3, m), c_make(1, 0))));
}

/* diag(e^{i phi}, B) with B Haar in U(2), det B = e^{-i phi}: N = 0 */
static void degenerate3(lat_complex *w, struct lat_rng *r)
{
    double phi = 6.283185307179586 * rng_uniform(r);
    lat_complex b[4], f = c_make(cos(phi), -sin(phi));
    sun_random_haar(2, (double *)b, r);
    sun_zero(3, w);
    w[0] = c_make(cos(phi), sin(phi));
    w[4] = b[0];
    w[5] = b[1];
    w[7] = c_mul(f, b[2]);
    w[8] = c_mul(f, b[3]);
}

/* an SU(3) matrix with N = |a2|^2 + |a3|^2 ~ t^2: a degenerate one rotated
 * by angles ~t in the (1,2) and (1,3) subgroups (c1_zero: only in (1,2),
 * so that c1 = 0 and |c1| = sqrt(N - |b1|^2) is a root of rounding);
 * noisy: then multiplied by a Haar V and by V^dagger, so that its small
 * elements carry absolute rounding errors (~1e-16) as after arithmetic,
 * not relative ones */
static void near_degenerate3(lat_complex *u, double t, int noisy, int c1_zero, struct lat_rng *r)
{
    lat_complex w[9], v[9], x[9];
    degenerate3(w, r);
    for (int s = 1; s <= 2 - c1_zero; s++) {
        lat_su2 g = {{cos(t), sin(t) * rng_normal(r), sin(t) * rng_normal(r), sin(t) * rng_normal(r)}};
        sun_su2_left(3, w, 0, s, su2_normalize(g));
    }
    if (!noisy) {
        sun_copy(3, u, w);
        return;
    }
    sun_random_haar(3, (double *)v, r);
    sun_mul(3, x, w, v);
    sun_mul_nd(3, u, x, v);
}

/* the round-trip error of 8 given reals */
static double err8(const double *p, const lat_complex *u)
{
    lat_complex m[9];
    su3_unpack8(p, m);
    return max_err3(u, m);
}

static void test_pack8(struct lat_rng *r)
{
    lat_complex u[9], m[9];
    double p[8];
    /* Haar-random SU(3): round trip, unitarity, det; the 8 reals rounded to
     * float and unpacked in double (single storage, double arithmetic).
     * |a1| and |c1| are square roots of differences (1 - N, N - |b1|^2), so
     * the error grows as eps / min(|a1|, |c1|): checked as that law, and as
     * 1e-13 where min(|a1|, |c1|) >= 0.01 (all but ~1 in 5000) */
    double err = 0, err01 = 0, law = 0, unit = 0, det = 0, ferr = 0, flaw = 0, fsum = 0;
    int regular = 1, nh = 100000, n01 = 0;
    for (int i = 0; i < nh; i++) {
        sun_random_haar(3, (double *)u, r);
        double small = sqrt(fmin(c_norm2(u[0]), c_norm2(u[6])));
        su3_pack8(u, p);
        regular &= p[7] <= 3.1415926535897932 && p[7] >= -3.1415926535897932;
        su3_unpack8(p, m);
        double e = max_err3(u, m);
        err = fmax(err, e);
        law = fmax(law, e * small / 2.220446049250313e-16);
        if (small >= 0.01) err01 = fmax(err01, e), n01++;
        unit = fmax(unit, sun_unitarity_dev(3, m));
        det = fmax(det, det_err3(m));
        for (int c = 0; c < 8; c++) p[c] = (float)p[c];
        su3_unpack8(p, m);
        e = max_err3(u, m);
        ferr = fmax(ferr, e);
        flaw = fmax(flaw, e * small / 1.1920928955078125e-7);
        fsum += e * e;
    }
    printf("pack8 Haar (%d): max err %.2e (%.2e for the %d with min(|a1|,|c1|) >= 0.01; <= %.1f eps/min(|a1|,|c1|)), "
           "unitarity %.2e, |det-1| %.2e; 8 reals in float: max %.2e (<= %.1f eps_f/min), rms %.2e\n",
           nh, err, err01, n01, law, unit, det, ferr, flaw, sqrt(fsum / nh));
    CHECK(regular, "Haar matrices use the regular form");
    CHECK(err01 <= 1e-13 && n01 > nh - nh / 500, "pack8 round trip of Haar SU(3): max error %g (%d matrices)", err01, n01);
    CHECK(law <= 8 && err <= 1e-11, "pack8 round trip of Haar SU(3): %g eps / min(|a1|, |c1|), max %g", law, err);
    CHECK(unit <= 2e-15 && det <= 2e-15, "pack8 round trip: unitarity %g, |det - 1| %g", unit, det);
    CHECK(sqrt(fsum / nh) <= 1e-6 && flaw <= 8, "8 reals in float: rms error %g, %g eps_f / min(|a1|, |c1|)",
          sqrt(fsum / nh), flaw);

    /* exact degenerate case (N = 0): the unit matrix bit for bit */
    sun_unit(3, u);
    su3_pack8(u, p);
    su3_unpack8(p, m);
    CHECK(p[7] == SU3_PACK8_DEGENERATE && max_err3(u, m) == 0, "unit matrix: sentinel %g, error %g", p[7],
          max_err3(u, m));
    /* random diagonal SU(3) (exact in the degenerate form up to the
     * rounding of atan2, cos, sin of arg a1), then diag(phase, U(2)) (whose own consistency
     * c2 = -conj(a1) conj(b3) holds only to the rounding of its making) */
    double derr = 0, berr = 0;
    unit = 0;
    int sentinel = 1;
    for (int i = 0; i < 2000; i++) {
        double al = 6.283185307179586 * rng_uniform(r), be = 6.283185307179586 * rng_uniform(r);
        sun_zero(3, u);
        u[0] = c_make(cos(al), sin(al));
        u[4] = c_make(cos(be), sin(be));
        u[8] = c_conj(c_mul(u[0], u[4]));
        if (i % 2) degenerate3(u, r);
        su3_pack8(u, p);
        sentinel &= p[7] == SU3_PACK8_DEGENERATE;
        su3_unpack8(p, m);
        if (i % 2) berr = fmax(berr, max_err3(u, m));
        else derr = fmax(derr, max_err3(u, m));
        unit = fmax(unit, fmax(sun_unitarity_dev(3, m), det_err3(m)));
    }
    printf("pack8 N = 0: diagonal SU(3) max err %.2e, diag(phase, U(2)) %.2e, unitarity/det %.2e\n", derr, berr, unit);
    CHECK(sentinel, "N = 0 uses the degenerate form");
    CHECK(derr <= 1e-15 && berr <= 1e-15, "pack8 of N = 0 matrices: max error %g (diagonal), %g (block)", derr, berr);
    CHECK(unit <= 1.5e-15, "pack8 of N = 0 matrices: unitarity/det %g", unit);

    /* nearly degenerate: N from ~1e-2 down to ~1e-24.  Forms: degenerate
     * below SU3_PACK8_NMIN, regular from SU3_PACK8_NTRY, between them the
     * one of the two (made here by hand) with the smaller error.  Laws: the
     * regular form errs by <= C eps / sqrt(N) (noisy input) or rounding
     * (clean), the degenerate one by <= sqrt(N) */
    double cn = 0, cc = 0, cd = 0, um = 0, eall = 0, e12 = 0, e4 = 0, zall = 0, z8 = 0;
    int form_ok = 1, nzone = 0, nzdeg = 0;
    for (double t = 1e-1; t > 1e-12; t /= 2)
        for (int i = 0; i < 400; i++) {
            int noisy = i % 2, c1_zero = i % 4 >= 2;
            near_degenerate3(u, t, noisy, c1_zero, r);
            double n = c_norm2(u[1]) + c_norm2(u[2]);
            double reg[8] = {u[1].re, u[1].im, u[2].re, u[2].im, u[3].re, u[3].im, atan2(u[0].im, u[0].re),
                             atan2(u[6].im, u[6].re)};
            double deg[8] = {u[4].re, u[4].im, u[5].re, u[5].im, 0, 0, reg[6], SU3_PACK8_DEGENERATE};
            su3_pack8(u, p);
            int isdeg = p[7] == SU3_PACK8_DEGENERATE;
            double e = err8(p, u), ed = err8(deg, u), er = n >= SU3_PACK8_NMIN ? err8(reg, u) : 1;
            if (n < SU3_PACK8_NMIN) form_ok &= isdeg;
            else if (n >= SU3_PACK8_NTRY) form_ok &= !isdeg;
            else form_ok &= e == fmin(er, ed), nzone++, nzdeg += isdeg;
            su3_unpack8(p, m);
            um = fmax(um, fmax(sun_unitarity_dev(3, m), det_err3(m)));
            if (c1_zero) {
                zall = fmax(zall, e);
                if (n >= 1e-8) z8 = fmax(z8, e);
                continue;
            }
            cd = fmax(cd, ed / sqrt(n));
            if (n >= SU3_PACK8_NMIN && noisy) cn = fmax(cn, er * sqrt(n) / 2.220446049250313e-16);
            if (n >= SU3_PACK8_NMIN && !noisy) cc = fmax(cc, er);
            eall = fmax(eall, e);
            if (n >= 1e-12) e12 = fmax(e12, e);
            if (n >= 1e-4) e4 = fmax(e4, e);
        }
    printf("pack8 nearly degenerate: regular form err <= %.0f eps/sqrt(N) (noisy), %.2e (clean); degenerate form "
           "err <= %.2f sqrt(N); %d in the zone, %d of them degenerate; round trip any N: %.2e, N >= 1e-12: %.2e, "
           "N >= 1e-4: %.2e; with c1 = 0: %.2e (any N), %.2e (N >= 1e-8); unitarity/det %.2e\n",
           cn, cc, cd, nzone, nzdeg, eall, e12, e4, zall, z8, um);
    CHECK(form_ok && nzone > 100 && nzdeg > 10 && nzdeg < nzone, "pack8's choice of form (%d in the zone, %d degenerate)",
          nzone, nzdeg);
    CHECK(cn <= 400 && cc <= 1e-13 && cd <= 1.5, "nearly degenerate: %g eps/sqrt(N), %g, %g sqrt(N)", cn, cc, cd);
    CHECK(eall <= 1e-7 && e12 <= 1e-8 && e4 <= 1e-12, "nearly degenerate: error %g (any N), %g (N >= 1e-12), %g (N >= 1e-4)",
          eall, e12, e4);
    CHECK(zall <= 1e-5 && z8 <= 1e-5, "nearly degenerate with c1 = 0: error %g (any N), %g (N >= 1e-8)", zall, z8);
    CHECK(um <= 3e-15, "nearly degenerate: unitarity/det of the unpacked matrix %g", um);
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
    test_pack8(&r);
    return unit_done("test_sun");
}
