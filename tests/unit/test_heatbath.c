/* test_heatbath.c -- the SU(N) heatbath (common/heatbath.h and the CPU
 * backend of kernels/heatbath_backend.h):
 *   - the staple: changing one link changes sum_P Re tr U_P by exactly the
 *     change of Re tr(U A);
 *   - a link update stays in SU(N); overrelaxation keeps Re tr(U A) and is
 *     its own inverse; the OR sweep keeps the plaquette to 1e-12;
 *   - the CPU sweeps equal a plain serial loop in the documented order and
 *     streams, and do not depend on the thread count;
 *   - strong coupling (character expansion to the closed cube,
 *     P = u + 4 n_o N^2 u^5 du/dbeta): SU(2) beta = 0.5, 1.0 with
 *     u = I2(beta)/I1(beta), P = u + 16 u^5 (1 - 3u/beta - u^2) (= u + 4u^5
 *     at leading order; the MC resolves the difference at beta = 1);
 *     SU(3) beta = 1.0 against u = 0.060127 (beta/18 + beta^2/216 + ...,
 *     the cube adds 4e-6); SU(4) beta = 1 against beta/32 + beta^3/12288
 *     (errors from bins);
 *   - hot and cold starts at SU(3) beta = 5.7 reach the same plaquette;
 *   - single and mixed precision follow the double chain;
 *   - the SU(2) sampler (su2_heatbath.h) is bounded: a = NaN returns NaN at
 *     once (the unbounded loop never ended on it), a = inf returns x0 = 1,
 *     and on finite a it returns the bits and draws the random numbers of
 *     the unbounded loop it replaced. */
#include "lattice/field.h"
#include "heatbath/link.h"
#include "heatbath/backend.h"
#include "lattice/observables.h"
#include "math/rng.h"
#include "unit.h"
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define NN (LAT_NC_MAX * LAT_NC_MAX)

/* ---- the sampler's loops are bounded, results unchanged --------------------- */
/* the unbounded sampler as it was (reference for finite a) */
static double x0_unbounded(struct lat_rng *r, double a)
{
    if (a >= 2.0) {
        for (;;) {
            double r1 = rng_uniform(r), r2 = rng_uniform(r), r3 = rng_uniform(r), r4 = rng_uniform(r);
            double c = cos(6.283185307179586 * r2);
            double l2 = -(log(r1) + c * c * log(r3)) / (2.0 * a);
            if (r4 * r4 <= 1.0 - l2) return 1.0 - 2.0 * l2;
        }
    }
    if (a < 1e-12) {
        for (;;) {
            double x0 = 2.0 * rng_uniform(r) - 1.0, u = rng_uniform(r);
            if (u * u <= 1.0 - x0 * x0) return x0;
        }
    }
    double e = exp(-2.0 * a);
    for (;;) {
        double y = e + (1.0 - e) * rng_uniform(r);
        double x0 = 1.0 + log(y) / a;
        double u = rng_uniform(r);
        if (x0 > -1.0 && u * u <= 1.0 - x0 * x0) return x0;
    }
}

static void test_sampler_bounded(void)
{
    struct lat_rng r;
    rng_init(&r, 1, 0, 0, 0, RNG_TEST);
    lat_real x = su2_heatbath_x0(&r, NAN);
    CHECK(x != x, "a = NaN: x0 = NaN at once (got %g)", (double)x);
    lat_su2 q = su2_heatbath_x(&r, NAN);
    CHECK(q.q[0] != q.q[0], "a = NaN: the SU(2) element is NaN");
    CHECK(su2_heatbath_x0(&r, INFINITY) == 1, "a = inf: x0 = 1");
    const double as[] = {0, 1e-13, 1e-12, 1e-6, 0.3, 1, 1.99, 2, 2.5, 7, 40, 1e3, 1e8};
    long differ = 0, draws = 0;
    for (size_t k = 0; k < sizeof as / sizeof as[0]; k++)
        for (uint64_t site = 0; site < 2000; site++) {
            struct lat_rng a, b;
            rng_init(&a, 5, 1, site, (uint32_t)k, RNG_TEST);
            b = a;
            double xa = (double)su2_heatbath_x0(&a, as[k]), xb = x0_unbounded(&b, as[k]);
            differ += memcmp(&xa, &xb, sizeof xa) != 0 || memcmp(&a, &b, sizeof a) != 0;
            draws++;
        }
    CHECK(differ == 0, "bounded sampler = unbounded sampler on finite a: %ld of %ld draws differ", differ, draws);
}

static lat_complex *lk(const struct field *u, int64_t x, int mu) { return (lat_complex *)field_link(u, x, mu); }

/* the staple sum of U_mu(x) from the field, through hb_staple_nu */
static void staple_of(const struct field *u, int64_t x, int mu, lat_complex *A)
{
    const struct lattice *L = &u->lat;
    int n = u->nc;
    sun_zero(n, A);
    int64_t xpm = lattice_neighbour(L, x, mu, +1);
    for (int nu = 0; nu < LAT_ND; nu++) {
        if (nu == mu) continue;
        int64_t xpn = lattice_neighbour(L, x, nu, +1), xmn = lattice_neighbour(L, x, nu, -1);
        int64_t xpmmn = lattice_neighbour(L, xpm, nu, -1);
        hb_staple_nu(n, A, lk(u, xpm, nu), lk(u, xpn, mu), lk(u, x, nu), lk(u, xpmmn, nu), lk(u, xmn, mu),
                     lk(u, xmn, nu));
    }
}

/* the documented sweep, written the plain way (the contract every backend keeps) */
static void reference_sweep(struct field *u, int heatbath, double beta, uint64_t seed, uint32_t k)
{
    int n = u->nc;
    for (int parity = 0; parity < 2; parity++)
        for (int mu = 0; mu < LAT_ND; mu++)
            for (int64_t x = 0; x < u->lat.V; x++) {
                if (lattice_parity(&u->lat, x) != parity) continue;
                lat_complex A[NN];
                staple_of(u, x, mu, A);
                if (heatbath) {
                    struct lat_rng r;
                    rng_init(&r, seed, 0, (uint64_t)x, 4 * k + (uint32_t)mu, RNG_HEATBATH);
                    hb_link_heatbath(n, lk(u, x, mu), A, beta / n, &r);
                } else {
                    hb_link_overrelax(n, lk(u, x, mu), A);
                }
            }
}

static void make_lattice(struct lattice *L, int lx, int ly, int lz, int lt)
{
    int e[4] = {lx, ly, lz, lt};
    if (lattice_init(L, e, NULL)) { fprintf(stderr, "bad lattice\n"); exit(1); }
}

/* a field after a few heatbath sweeps from a hot start (non-trivial staples) */
static void warm_field(struct field *u, const struct lattice *L, int nc, double beta, uint64_t seed, int sweeps)
{
    field_alloc(u, L, nc, 64);
    field_set_random(u, seed);
    struct hb_state *s = hb_backend_cpu.create(u, 'd');
    for (int k = 0; k < sweeps; k++) hb_backend_cpu.heatbath(s, beta, seed, (uint32_t)k);
    hb_backend_cpu.download(s, u);
    hb_backend_cpu.destroy(s);
}

static void test_staple(void)
{
    struct lattice L;
    make_lattice(&L, 4, 2, 4, 6);
    for (int nc = 2; nc <= 4; nc++) {
        struct field u;
        field_alloc(&u, &L, nc, 64);
        field_set_random(&u, 11 + nc);
        struct lat_rng r;
        rng_init(&r, 5, 0, 0, 0, RNG_TEST);
        for (int trial = 0; trial < 4; trial++) {
            int64_t x = (int64_t)(rng_u32(&r) % (uint32_t)L.V);
            int mu = (int)(rng_u32(&r) % 4);
            lat_complex A[NN], Unew[NN];
            staple_of(&u, x, mu, A);
            double before = measure_plaquette(&u).all * 6.0 * nc * (double)L.V;
            double a0 = hb_link_action(nc, lk(&u, x, mu), A);
            sun_random_haar(nc, (double *)Unew, &r);
            sun_copy(nc, lk(&u, x, mu), Unew);
            double after = measure_plaquette(&u).all * 6.0 * nc * (double)L.V;
            double a1 = hb_link_action(nc, lk(&u, x, mu), A);
            CHECK(fabs((after - before) - (a1 - a0)) < 1e-10,
                  "SU(%d) staple: plaquette sum changed by %.15g, Re tr(UA) by %.15g", nc, after - before, a1 - a0);
        }
        field_free(&u);
    }
}

static void test_link_update(void)
{
    struct lat_rng r;
    rng_init(&r, 9, 0, 0, 0, RNG_TEST);
    for (int nc = 2; nc <= 5; nc++) {
        lat_complex U[NN], A[NN], V0[NN], B[NN];
        sun_zero(nc, A);
        for (int k = 0; k < 6; k++) { /* a staple-like sum of six SU(N) matrices */
            sun_random_haar(nc, (double *)B, &r);
            sun_acc(nc, A, B);
        }
        sun_random_haar(nc, (double *)U, &r);
        sun_copy(nc, V0, U);
        double s0 = hb_link_action(nc, U, A);
        hb_link_overrelax(nc, U, A);
        double s1 = hb_link_action(nc, U, A);
        double moved = 0;
        for (int k = 0; k < nc * nc; k++) moved += c_norm2(c_sub(U[k], V0[k]));
        CHECK(fabs(s1 - s0) < 1e-12, "SU(%d) OR changes Re tr(UA): %.17g -> %.17g", nc, s0, s1);
        CHECK(moved > 1e-4, "SU(%d) OR does not move the link (%g)", nc, moved);
        CHECK(sun_unitarity_dev(nc, U) < 1e-14, "SU(%d) OR link unitary", nc);
        if (nc == 2) { /* SU(2): a reflection, its own inverse (N > 2: the subgroups do not commute) */
            hb_link_overrelax(nc, U, A);
            double back = 0;
            for (int k = 0; k < nc * nc; k++) back += c_norm2(c_sub(U[k], V0[k]));
            CHECK(back < 1e-26, "SU(2) OR twice is not the identity (%g)", back);
        }
        for (int k = 0; k < 5; k++) hb_link_heatbath(nc, U, A, 2.0, &r);
        lat_complex d = sun_det(nc, U);
        CHECK(sun_unitarity_dev(nc, U) < 1e-14 && fabs(d.re - 1) < 1e-13 && fabs(d.im) < 1e-13,
              "SU(%d) heatbath link not in SU(N)", nc);
        /* a strong coupling pulls Re tr(UA) to near its maximum */
        double smax = 0;
        for (int k = 0; k < 20; k++) {
            hb_link_heatbath(nc, U, A, 200.0, &r);
            smax = hb_link_action(nc, U, A);
        }
        lat_complex U2[NN];
        sun_copy(nc, U2, U);
        for (int k = 0; k < 50; k++) hb_link_overrelax(nc, U2, A); /* no-op on the action */
        CHECK(smax > 0 && fabs(hb_link_action(nc, U2, A) - smax) < 1e-11, "SU(%d) repeated OR drifts", nc);
    }
    /* zero staple: the heatbath still gives an SU(N) matrix (Haar) */
    lat_complex U[NN], Z[NN];
    sun_unit(3, U);
    sun_zero(3, Z);
    hb_link_heatbath(3, U, Z, 1.0, &r);
    CHECK(sun_unitarity_dev(3, U) < 1e-14 && fabs(U[0].re - 1) > 1e-6, "zero staple heatbath");
}

static int same_field(const struct field *a, const struct field *b)
{
    return memcmp(a->d, b->d, field_reals(a) * sizeof(double)) == 0;
}

static double max_diff(const struct field *a, const struct field *b)
{
    double m = 0;
    for (size_t i = 0; i < field_reals(a); i++) m = fmax(m, fabs(a->d[i] - b->d[i]));
    return m;
}

static void test_order_and_threads(void)
{
    struct lattice L;
    make_lattice(&L, 4, 4, 4, 8); /* 256 sites per parity: the sweeps do use threads */
    for (int nc = 2; nc <= 4; nc++) {
        struct field ref, cpu, out1, out2;
        field_alloc(&ref, &L, nc, 64);
        field_set_random(&ref, 3);
        field_copy(&cpu, &ref);
        /* the reference: 2 heatbath sweeps (counters 7, 8) and one OR */
        reference_sweep(&ref, 1, 2.5, 77, 7);
        reference_sweep(&ref, 0, 0, 0, 0);
        reference_sweep(&ref, 1, 2.5, 77, 8);
        field_copy(&out1, &cpu);
        field_copy(&out2, &cpu);
        int threads[2] = {1, 3};
        struct field *outs[2] = {&out1, &out2};
        for (int t = 0; t < 2; t++) {
            omp_set_num_threads(threads[t]);
            struct hb_state *s = hb_backend_cpu.create(&cpu, 'd');
            hb_backend_cpu.heatbath(s, 2.5, 77, 7);
            hb_backend_cpu.overrelax(s);
            hb_backend_cpu.heatbath(s, 2.5, 77, 8);
            hb_backend_cpu.download(s, outs[t]);
            hb_backend_cpu.destroy(s);
        }
        omp_set_num_threads(2);
        /* equal up to rounding (bit-equal where the compiler contracts no FMAs) */
        double d = max_diff(&out1, &ref);
        CHECK(d < 1e-12, "SU(%d): CPU backend differs from the documented serial sweep by %g", nc, d);
        CHECK(same_field(&out1, &out2), "SU(%d): 1 and 3 threads give different fields", nc);
        CHECK(!same_field(&out1, &cpu), "SU(%d): the sweep did nothing", nc);
        /* another seed gives another chain */
        struct hb_state *s = hb_backend_cpu.create(&cpu, 'd');
        hb_backend_cpu.heatbath(s, 2.5, 78, 7);
        hb_backend_cpu.download(s, &out2);
        hb_backend_cpu.destroy(s);
        CHECK(!same_field(&out1, &out2), "SU(%d): seed does not matter", nc);
        field_free(&ref);
        field_free(&cpu);
        field_free(&out1);
        field_free(&out2);
    }
}

static void test_or_sweep_invariance(void)
{
    struct lattice L;
    make_lattice(&L, 4, 4, 4, 4);
    for (int nc = 2; nc <= 4; nc++) {
        struct field u;
        warm_field(&u, &L, nc, nc == 2 ? 2.3 : nc == 3 ? 5.7 : 10.0, 21, 3);
        struct plaquette p0 = measure_plaquette(&u);
        struct hb_state *s = hb_backend_cpu.create(&u, 'd');
        for (int k = 0; k < 3; k++) hb_backend_cpu.overrelax(s);
        struct plaquette p1;
        hb_backend_cpu.measure(s, &p1, NULL, NULL);
        struct field v;
        field_copy(&v, &u);
        hb_backend_cpu.download(s, &v);
        hb_backend_cpu.destroy(s);
        CHECK(fabs(p1.all - p0.all) < 1e-12, "SU(%d) OR sweeps change the plaquette %.17g -> %.17g", nc, p0.all, p1.all);
        double moved = 0;
        for (size_t i = 0; i < field_reals(&u); i++) moved += fabs(u.d[i] - v.d[i]);
        CHECK(moved / (double)field_reals(&u) > 1e-3, "SU(%d) OR sweep leaves the field (almost) unchanged", nc);
        struct unitarity un = measure_unitarity(&v);
        CHECK(un.max < 1e-13 && un.det_max < 1e-13, "SU(%d) after OR: unitarity %g det %g", nc, un.max, un.det_max);
        field_free(&u);
        field_free(&v);
    }
}

/* run therm + meas sweeps (1 HB + nor OR each), return the mean plaquette
 * and its error from nbins bins */
static double run_chain(struct field *start, double beta, uint64_t seed, int therm, int meas, int nor,
                        char prec, double *err)
{
    struct hb_state *s = hb_backend_cpu.create(start, prec);
    double *p = malloc(sizeof(double) * (size_t)meas);
    for (int k = 0; k < therm + meas; k++) {
        hb_backend_cpu.heatbath(s, beta, seed, (uint32_t)k);
        for (int o = 0; o < nor; o++) hb_backend_cpu.overrelax(s);
        if (k >= therm) {
            struct plaquette pl;
            hb_backend_cpu.measure(s, &pl, NULL, NULL);
            p[k - therm] = pl.all;
        }
    }
    hb_backend_cpu.destroy(s);
    int nb = 10, bl = meas / nb;
    double mean = 0, b[64];
    for (int i = 0; i < nb; i++) {
        b[i] = 0;
        for (int j = 0; j < bl; j++) b[i] += p[i * bl + j];
        b[i] /= bl;
        mean += b[i] / nb;
    }
    double var = 0;
    for (int i = 0; i < nb; i++) var += (b[i] - mean) * (b[i] - mean);
    *err = sqrt(var / (nb * (nb - 1.0)));
    free(p);
    return mean;
}

/* I2(b)/I1(b) from the Bessel series */
static double bessel_ratio(double b)
{
    double i1 = 0, i2 = 0, h = b / 2;
    double t1 = h, t2 = h * h / 2; /* k = 0 terms: (b/2)^1/1!, (b/2)^2/2! */
    for (int k = 0; k < 40; k++) {
        i1 += t1;
        i2 += t2;
        t1 *= h * h / ((k + 1.0) * (k + 2.0));
        t2 *= h * h / ((k + 1.0) * (k + 3.0));
    }
    return i2 / i1;
}

static void test_strong_coupling(void)
{
    struct lattice L;
    make_lattice(&L, 4, 4, 4, 4);
    CHECK_CLOSE(bessel_ratio(0.5), 0.123718, 1e-6);
    CHECK_CLOSE(bessel_ratio(1.0), 0.240194, 1e-6);
    double betas[2] = {0.5, 1.0};
    for (int i = 0; i < 2; i++) {
        struct field u;
        field_alloc(&u, &L, 2, 64);
        field_set_unit(&u);
        double err, u0 = bessel_ratio(betas[i]);
        double expect = u0 + 16 * pow(u0, 5) * (1 - 3 * u0 / betas[i] - u0 * u0);
        double m = run_chain(&u, betas[i], 100 + i, 20, 600, 1, 'd', &err);
        printf("SU(2) beta=%.1f: plaquette %.5f(%.0f)  u+16u^5u' = %.5f  (u = %.5f)\n", betas[i], m, err * 1e5,
               expect, u0);
        CHECK(err < 1.5e-3, "SU(2) beta=%g: error %g too large to test", betas[i], err);
        CHECK(fabs(m - expect) < 3.5 * err + 5e-5, "SU(2) beta=%g: %.6f +- %.6f, expected %.6f", betas[i], m, err, expect);
        field_free(&u);
    }
    {
        struct field u;
        field_alloc(&u, &L, 3, 64);
        field_set_unit(&u);
        double err, expect = 0.060131;
        double m = run_chain(&u, 1.0, 200, 20, 500, 1, 'd', &err);
        printf("SU(3) beta=1.0: plaquette %.5f(%.0f)  u = %.5f  (beta/18 = %.5f)\n", m, err * 1e5, expect, 1 / 18.0);
        CHECK(err < 1e-3, "SU(3) strong coupling error %g too large", err);
        CHECK(fabs(m - expect) < 3.5 * err + 2e-5, "SU(3) beta=1: %.6f +- %.6f, expected %.6f", m, err, expect);
        field_free(&u);
    }
    {
        struct field u;
        field_alloc(&u, &L, 4, 64);
        field_set_random(&u, 5);
        double err, expect = 1 / 32.0 + 1 / 12288.0;
        double m = run_chain(&u, 1.0, 300, 20, 200, 1, 'd', &err);
        printf("SU(4) beta=1.0: plaquette %.5f(%.0f)  beta/32 + beta^3/12288 = %.5f\n", m, err * 1e5, expect);
        CHECK(fabs(m - expect) < 3.5 * err + 2e-5, "SU(4) beta=1: %.6f +- %.6f, expected %.6f", m, err, expect);
        field_free(&u);
    }
}

static void test_hot_cold(void)
{
    struct lattice L;
    make_lattice(&L, 4, 4, 4, 4);
    struct field hot, cold;
    field_alloc(&hot, &L, 3, 64);
    field_alloc(&cold, &L, 3, 64);
    field_set_random(&hot, 17);
    field_set_unit(&cold);
    double eh, ec;
    double ph = run_chain(&hot, 5.7, 1, 40, 200, 2, 'd', &eh);
    double pc = run_chain(&cold, 5.7, 2, 40, 200, 2, 'd', &ec);
    double e = sqrt(eh * eh + ec * ec);
    printf("SU(3) beta=5.7 4^4: hot %.5f(%.0f) cold %.5f(%.0f)\n", ph, eh * 1e5, pc, ec * 1e5);
    CHECK(fabs(ph - pc) < 3.5 * e, "hot %.5f +- %.5f and cold %.5f +- %.5f disagree", ph, eh, pc, ec);
    CHECK(ph > 0.5 && ph < 0.62, "beta=5.7 plaquette %.4f out of range", ph);
    /* single and mixed precision: the same physics, to their accuracy */
    double es, em;
    double ps = run_chain(&cold, 5.7, 2, 40, 100, 2, 's', &es);
    double pm = run_chain(&cold, 5.7, 2, 40, 100, 2, 'm', &em);
    printf("                    single %.5f(%.0f) mixed %.5f(%.0f)\n", ps, es * 1e5, pm, em * 1e5);
    CHECK(fabs(ps - pc) < 3.5 * sqrt(es * es + ec * ec) + 1e-4, "single precision %.5f vs double %.5f", ps, pc);
    CHECK(fabs(pm - pc) < 3.5 * sqrt(em * em + ec * ec) + 1e-4, "mixed precision %.5f vs double %.5f", pm, pc);
    field_free(&hot);
    field_free(&cold);
}

static void test_precision_first_sweep(void)
{
    /* one sweep in single/mixed precision stays close to the double one */
    struct lattice L;
    make_lattice(&L, 4, 4, 4, 4);
    struct field u, d, f;
    warm_field(&u, &L, 3, 6.0, 8, 5);
    field_copy(&d, &u);
    field_copy(&f, &u);
    char precs[2] = {'s', 'm'};
    struct hb_state *s = hb_backend_cpu.create(&u, 'd');
    hb_backend_cpu.overrelax(s);
    hb_backend_cpu.download(s, &d);
    hb_backend_cpu.destroy(s);
    for (int i = 0; i < 2; i++) {
        s = hb_backend_cpu.create(&u, precs[i]);
        hb_backend_cpu.overrelax(s);
        hb_backend_cpu.download(s, &f);
        hb_backend_cpu.destroy(s);
        double dmax = 0, d2 = 0;
        for (size_t k = 0; k < field_reals(&u); k++) {
            dmax = fmax(dmax, fabs(f.d[k] - d.d[k]));
            d2 += (f.d[k] - d.d[k]) * (f.d[k] - d.d[k]);
        }
        double rms = sqrt(d2 / (double)field_reals(&u));
        CHECK(dmax < 1e-4 && rms < 1e-6, "precision %c: one OR sweep differs from double by %g (rms %g)", precs[i], dmax, rms);
        struct unitarity un = measure_unitarity(&f);
        CHECK(un.max < 1e-5, "precision %c: unitarity %g", precs[i], un.max);
    }
    field_free(&u);
    field_free(&d);
    field_free(&f);
}

int main(void)
{
    test_sampler_bounded();
    test_staple();
    test_link_update();
    test_order_and_threads();
    test_or_sweep_invariance();
    test_precision_first_sweep();
    test_strong_coupling();
    test_hot_cold();
    return unit_done("test_heatbath");
}
