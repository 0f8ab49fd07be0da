/* test_observables.c -- common/observables.c: the unit field, gauge
 * invariance of plaquette and Polyakov loop under a random gauge
 * transformation (N = 2, 3, 4), comparison with a naive independent
 * implementation on an asymmetric lattice, an abelian field with a known
 * non-trivial plaquette, link trace and Polyakov loop, and the unitarity
 * deviation of hand-made non-SU(N) links, and bit-identical results on any
 * number of OpenMP threads. */
#include "lattice/field.h"
#include "lattice/observables.h"
#include "math/rng.h"
#include "math/sun.h"
#include "unit.h"
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define NN (LAT_NC_MAX * LAT_NC_MAX)
static const double PI = 3.14159265358979323846;

static void make_lattice(struct lattice *lat, int lx, int ly, int lz, int lt)
{
    int L[4] = {lx, ly, lz, lt};
    const char *why = NULL;
    if (lattice_init(lat, L, &why) != 0) { fprintf(stderr, "lattice_init: %s\n", why); CHECK(0, "lattice"); }
}

static lat_complex *L_(const struct field *u, int64_t s, int mu) { return (lat_complex *)field_link(u, s, mu); }

/* U_mu(x) -> g(x) U_mu(x) g(x+mu)^dag with Haar-random g(x) */
static void gauge_transform(struct field *u, uint64_t seed)
{
    int n = u->nc;
    lat_complex *g = malloc(sizeof(lat_complex) * n * n * (size_t)u->lat.V);
    for (int64_t s = 0; s < u->lat.V; s++) {
        struct lat_rng r;
        rng_init(&r, seed, 0, (uint64_t)s, 0, RNG_TEST);
        sun_random_haar(n, (double *)(g + (size_t)s * n * n), &r);
    }
    lat_complex t[NN];
    for (int64_t s = 0; s < u->lat.V; s++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            int64_t f = lattice_neighbour(&u->lat, s, mu, +1);
            sun_mul(n, t, g + (size_t)s * n * n, L_(u, s, mu));
            sun_mul_nd(n, L_(u, s, mu), t, g + (size_t)f * n * n);
        }
    free(g);
}

/* naive plaquette: explicit four-matrix product, coordinates by hand */
static void naive_plaquette(const struct field *u, double *all, double *sp, double *tm)
{
    int n = u->nc;
    const int *L = u->lat.L;
    double s_sp = 0, s_tm = 0;
    lat_complex a[NN], b[NN], c[NN];
    for (int t = 0; t < L[3]; t++)
        for (int z = 0; z < L[2]; z++)
            for (int y = 0; y < L[1]; y++)
                for (int x = 0; x < L[0]; x++) {
                    int X[4] = {x, y, z, t};
                    int64_t s = lattice_site(&u->lat, X);
                    for (int mu = 0; mu < 4; mu++)
                        for (int nu = mu + 1; nu < 4; nu++) {
                            int Xm[4], Xn[4];
                            memcpy(Xm, X, sizeof X);
                            memcpy(Xn, X, sizeof X);
                            Xm[mu] = (Xm[mu] + 1) % L[mu];
                            Xn[nu] = (Xn[nu] + 1) % L[nu];
                            int64_t sm = lattice_site(&u->lat, Xm), sn = lattice_site(&u->lat, Xn);
                            sun_mul(n, a, L_(u, s, mu), L_(u, sm, nu));
                            sun_mul_nd(n, b, a, L_(u, sn, mu));
                            sun_mul_nd(n, c, b, L_(u, s, nu));
                            double p = sun_trace(n, c).re;
                            if (nu == 3) s_tm += p;
                            else s_sp += p;
                        }
                }
    double nv = (double)n * (double)u->lat.V;
    *all = (s_sp + s_tm) / (6 * nv);
    *sp = s_sp / (3 * nv);
    *tm = s_tm / (3 * nv);
}

/* naive Polyakov loop: ordered product t = 0 .. Lt-1 at every (x,y,z) */
static void naive_polyakov(const struct field *u, double *re, double *im)
{
    int n = u->nc;
    const int *L = u->lat.L;
    double sre = 0, sim = 0;
    lat_complex p[NN], q[NN];
    for (int z = 0; z < L[2]; z++)
        for (int y = 0; y < L[1]; y++)
            for (int x = 0; x < L[0]; x++) {
                sun_unit(n, p);
                for (int t = 0; t < L[3]; t++) {
                    int X[4] = {x, y, z, t};
                    sun_mul(n, q, p, L_(u, lattice_site(&u->lat, X), 3));
                    sun_copy(n, p, q);
                }
                lat_complex tr = sun_trace(n, p);
                sre += tr.re;
                sim += tr.im;
            }
    double norm = (double)n * L[0] * L[1] * L[2];
    *re = sre / norm;
    *im = sim / norm;
}

static void test_unit(int n)
{
    struct lattice lat;
    make_lattice(&lat, 4, 2, 4, 6);
    struct field u;
    field_alloc(&u, &lat, n, 64);
    field_set_unit(&u);
    struct plaquette p = measure_plaquette(&u);
    CHECK_CLOSE(p.all, 1, 1e-15);
    CHECK_CLOSE(p.spatial, 1, 1e-15);
    CHECK_CLOSE(p.temporal, 1, 1e-15);
    CHECK_CLOSE(measure_link_trace(&u), 1, 1e-15);
    double re, im;
    measure_polyakov(&u, &re, &im);
    CHECK_CLOSE(re, 1, 1e-15);
    CHECK_CLOSE(im, 0, 1e-15);
    struct unitarity un = measure_unitarity(&u);
    CHECK(un.mean == 0 && un.max == 0 && un.det_mean == 0 && un.det_max == 0,
          "unit field n=%d unitarity %g %g %g %g", n, un.mean, un.max, un.det_mean, un.det_max);
    field_free(&u);
}

static void test_gauge_invariance(int n)
{
    struct lattice lat;
    make_lattice(&lat, 4, 6, 2, 4);
    struct field u, v;
    field_alloc(&u, &lat, n, 64);
    field_set_random(&u, 1000 + n);
    field_copy(&v, &u);
    gauge_transform(&v, 77 + n);

    struct plaquette p = measure_plaquette(&u), q = measure_plaquette(&v);
    /* the random field is far from the unit field: the test is not trivial */
    CHECK(fabs(p.all) < 0.2, "random field plaquette n=%d: %g", n, p.all);
    CHECK_CLOSE(q.all, p.all, 1e-12);
    CHECK_CLOSE(q.spatial, p.spatial, 1e-12);
    CHECK_CLOSE(q.temporal, p.temporal, 1e-12);
    double re, im, re2, im2;
    measure_polyakov(&u, &re, &im);
    measure_polyakov(&v, &re2, &im2);
    CHECK_CLOSE(re2, re, 1e-12);
    CHECK_CLOSE(im2, im, 1e-12);
    /* the link trace is not gauge invariant: the transformation did something */
    CHECK(fabs(measure_link_trace(&u) - measure_link_trace(&v)) > 1e-4, "link trace unchanged by the transformation");
    struct unitarity un = measure_unitarity(&v);
    CHECK(un.max < 1e-11 && un.det_max < 1e-13, "transformed field unitary n=%d: %g %g", n, un.max, un.det_max);

    /* against the naive implementation */
    double a, s, t;
    naive_plaquette(&u, &a, &s, &t);
    CHECK_CLOSE(p.all, a, 1e-14);
    CHECK_CLOSE(p.spatial, s, 1e-14);
    CHECK_CLOSE(p.temporal, t, 1e-14);
    naive_polyakov(&u, &re2, &im2);
    CHECK_CLOSE(re, re2, 1e-14);
    CHECK_CLOSE(im, im2, 1e-14);
    CHECK(fabs(re) + fabs(im) > 1e-6, "random Polyakov loop is not zero (n=%d)", n);

    /* a single-precision field is measured like its double rounding */
    struct field w, wd;
    field_copy(&w, &u);
    field_convert(&w, 32);
    field_copy(&wd, &w);
    field_convert(&wd, 64);
    struct plaquette pw = measure_plaquette(&w), pwd = measure_plaquette(&wd);
    CHECK(pw.all == pwd.all && pw.spatial == pwd.spatial, "single field measured as its double copy");
    CHECK_CLOSE(pw.all, p.all, 1e-6);
    CHECK(measure_link_trace(&w) == measure_link_trace(&wd), "single field link trace");
    struct unitarity uw = measure_unitarity(&w);
    CHECK(uw.max > 1e-9 && uw.max < 1e-5, "single rounding shows in unitarity: %g", uw.max);
    field_free(&w);
    field_free(&wd);
    field_free(&u);
    field_free(&v);
}

/* U_x = 1, U_y(x) = diag(exp(i B x q)), q = (1, -1, 0, ...), B = 2 pi k / Lx,
 * U_z = 1, U_t = diag(exp(i th r)), r = (N-1, -1, ..., -1).  Only the xy
 * plaquettes differ from 1: Re tr = 2 cos B + N - 2. */
static void test_abelian(int n)
{
    struct lattice lat;
    make_lattice(&lat, 6, 4, 2, 4);
    struct field u;
    field_alloc(&u, &lat, n, 64);
    field_set_unit(&u);
    const double B = 2 * PI * 1 / 6, th = 0.3;
    for (int64_t s = 0; s < lat.V; s++) {
        int X[4];
        lattice_coords(&lat, s, X);
        lat_complex *uy = L_(&u, s, 1), *ut = L_(&u, s, 3);
        uy[0] = c_make(cos(B * X[0]), sin(B * X[0]));
        uy[n + 1] = c_make(cos(B * X[0]), -sin(B * X[0]));
        for (int i = 0; i < n; i++) {
            double q = i == 0 ? n - 1 : -1;
            ut[i * (n + 1)] = c_make(cos(th * q), sin(th * q));
        }
    }
    struct plaquette p = measure_plaquette(&u);
    double d = 2 - 2 * cos(B);
    CHECK_CLOSE(p.all, 1 - d / (6 * n), 1e-14);
    CHECK_CLOSE(p.spatial, 1 - d / (3 * n), 1e-14);
    CHECK_CLOSE(p.temporal, 1, 1e-14);
    double lt = (2 * n + (n - 2) + cos((n - 1) * th) + (n - 1) * cos(th)) / (4 * n);
    CHECK_CLOSE(measure_link_trace(&u), lt, 1e-14);
    double phi = lat.L[3] * th, re, im;
    measure_polyakov(&u, &re, &im);
    CHECK_CLOSE(re, (cos((n - 1) * phi) + (n - 1) * cos(phi)) / n, 1e-14);
    CHECK_CLOSE(im, (sin((n - 1) * phi) - (n - 1) * sin(phi)) / n, 1e-14);
    CHECK(fabs(im) > 0.01 || n == 2, "abelian Polyakov loop has an imaginary part (n=%d)", n);
    field_free(&u);
}

/* hand-made non-SU(N) links on the unit field */
static void test_unitarity(int n)
{
    struct lattice lat;
    make_lattice(&lat, 2, 2, 2, 2);
    struct field u;
    field_alloc(&u, &lat, n, 64);
    field_set_unit(&u);
    const double eps = 1e-3, alpha = 0.1;
    /* (1+eps) * 1: ||U^dag U - 1|| = sqrt(N) (2 eps + eps^2), |det - 1| = (1+eps)^N - 1 */
    lat_complex *a = L_(&u, 5, 2);
    for (int i = 0; i < n; i++) a[i * (n + 1)] = c_make(1 + eps, 0);
    /* exp(i alpha) * 1: unitary, det = exp(i N alpha) */
    lat_complex *b = L_(&u, 11, 0);
    for (int i = 0; i < n; i++) b[i * (n + 1)] = c_make(cos(alpha), sin(alpha));
    struct unitarity un = measure_unitarity(&u);
    double dev_a = sqrt((double)n) * (2 * eps + eps * eps), det_a = pow(1 + eps, n) - 1;
    double det_b = 2 * fabs(sin(n * alpha / 2));
    double links = 4.0 * lat.V;
    CHECK_CLOSE(un.max, dev_a, 1e-14);
    CHECK_CLOSE(un.mean, dev_a / links, 1e-15);
    CHECK_CLOSE(un.det_max, fmax(det_a, det_b), 1e-14);
    CHECK_CLOSE(un.det_mean, (det_a + det_b) / links, 1e-15);
    /* a non-finite link makes the maximum NaN */
    L_(&u, 3, 1)[0] = c_make(NAN, 0);
    un = measure_unitarity(&u);
    CHECK(isnan(un.max), "NaN link: max %g", un.max);
    field_free(&u);
}

/* the sums must not depend on the number of threads */
static void test_threads(void)
{
    struct lattice lat;
    make_lattice(&lat, 8, 8, 6, 10); /* 3840 sites: several chunks, the last one partial */
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_random(&u, 31);
    lat_complex *bad = L_(&u, 2000, 1);
    bad[4].re *= 1.01;
    struct plaquette p[2];
    double lt[2], re[2], im[2];
    struct unitarity un[2];
    for (int k = 0; k < 2; k++) {
#ifdef _OPENMP
        omp_set_num_threads(k == 0 ? 1 : 3);
#endif
        p[k] = measure_plaquette(&u);
        lt[k] = measure_link_trace(&u);
        measure_polyakov(&u, &re[k], &im[k]);
        un[k] = measure_unitarity(&u);
    }
    CHECK(memcmp(&p[0], &p[1], sizeof p[0]) == 0, "plaquette depends on the thread count");
    CHECK(lt[0] == lt[1] && re[0] == re[1] && im[0] == im[1], "link trace / Polyakov depend on the thread count");
    CHECK(memcmp(&un[0], &un[1], sizeof un[0]) == 0, "unitarity depends on the thread count");
    CHECK(un[0].max > 1e-3, "the damaged link is the maximum: %g", un[0].max);
    double a, s, t;
    naive_plaquette(&u, &a, &s, &t);
    CHECK_CLOSE(p[1].all, a, 1e-14);
    field_free(&u);
}

int main(void)
{
    test_threads();
    for (int n = 2; n <= 4; n++) {
        test_unit(n);
        test_gauge_invariance(n);
        test_abelian(n);
        test_unitarity(n);
    }
    test_gauge_invariance(5);
    return unit_done("test_observables");
}
