/* test_bsign.c -- the antiperiodic boundary sign (common/io/bsign.c) on
 * fields built here: Haar-random SU(N) links with the time links at
 * t = LT-1 negated are found (odd N: 3, 5), even N (2, 4) says
 * undetectable, a clean field says none; stripping restores the doubles
 * exactly; links far from U(N) are left to the unitarity checks; a link
 * with det U = -1 elsewhere, or on part of the timeslice, stops the
 * program with one line naming it; the refusal and the two-row NERSC writer
 * refuse with one line; an ILDG file written and read back carries the
 * finding through conf_read. */
#include "io/conf.h"
#include "io/confio.h"
#include "base/log.h"
#include "unit.h"
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static char dir[64];

static void make(struct conf *c, int nc, uint64_t seed)
{
    struct lattice lat;
    int L[4] = {4, 2, 2, 4};
    lattice_init(&lat, L, NULL);
    conf_init(c, &lat, nc);
    field_set_random(&c->u, seed);
    c->name = "test field";
}

static void negate_link(struct conf *c, int64_t site, int mu)
{
    double *m = field_link(&c->u, site, mu);
    for (size_t i = 0; i < field_link_reals(c->u.nc); i++) m[i] = -m[i];
}

/* the time links at t = LT-1: the last v3 sites */
static void negate_boundary(struct conf *c)
{
    int64_t v3 = c->u.lat.V / c->u.lat.L[3];
    for (int64_t s = c->u.lat.V - v3; s < c->u.lat.V; s++) negate_link(c, s, 3);
}

static void child_find(void *arg) { conf_boundary_sign_find(&((struct conf *)arg)->u, "test field"); exit(0); }
static void child_strip(void *arg) { conf_strip_boundary_sign(arg); exit(0); }
static void child_refuse(void *arg) { conf_boundary_sign_refuse(arg); exit(0); }
static void child_nersc(void *arg)
{
    char path[128];
    snprintf(path, sizeof path, "%s/two-row.nersc", dir);
    struct conf_write_opts o = {.format = CONF_NERSC};
    conf_write(path, arg, &o);
    exit(0);
}

/* child must exit 1 with one line containing want */
static void dies(void (*child)(void *), void *arg, const char *want, const char *what)
{
    char err[1024];
    int lines;
    int st = unit_run_child(child, arg, 20, err, sizeof err, &lines);
    CHECK(st == 1 && lines == 1 && strstr(err, want), "%s: status %d, %d lines, want '%s': %s", what, st, lines, want,
          err);
}

static void test_detect_and_strip(void)
{
    for (int nc = 2; nc <= 5; nc++) {
        struct conf c;
        make(&c, nc, 40 + (uint64_t)nc);
        size_t bytes = field_reals(&c.u) * sizeof(double);
        double *orig = malloc(bytes);
        memcpy(orig, c.u.d, bytes);
        int odd = nc % 2;
        CHECK(conf_boundary_sign_find(&c.u, "t") == (odd ? 0 : -1), "SU(%d) clean: %s", nc, odd ? "none" : "undetectable");
        negate_boundary(&c);
        int b = conf_boundary_sign_find(&c.u, "t");
        CHECK(b == (odd ? 1 : -1), "SU(%d) with the sign: %d", nc, b);
        if (odd) {
            c.check.boundary_sign = b;
            int64_t n = conf_strip_boundary_sign(&c);
            CHECK(n == 16 && c.check.boundary_sign == 0, "SU(%d) strip: %lld links", nc, (long long)n);
            CHECK(memcmp(orig, c.u.d, bytes) == 0, "SU(%d) strip restores every double", nc);
            CHECK(conf_boundary_sign_find(&c.u, "t") == 0, "SU(%d) stripped: none", nc);
        }
        free(orig);
        conf_free(&c);
    }
}

static void test_tolerance(void)
{
    struct conf c;
    make(&c, 3, 7);
    negate_boundary(&c);
    /* a single-precision file's rounding, far inside the margin */
    double *m = field_link(&c.u, c.u.lat.V - 1, 3);
    m[0] *= 1 + 1e-6;
    CHECK(conf_boundary_sign_find(&c.u, "t") == 1, "the sign found through rounding");
    /* far from U(N): not minus an SU(3) matrix, the unitarity checks' business */
    for (int i = 0; i < 18; i++) m[i] *= 1.5;
    char err[1024];
    int lines;
    int st = unit_run_child(child_find, &c, 20, err, sizeof err, &lines);
    CHECK(st == 1 && strstr(err, "has det U = +1, but 15 of the 16 time links at t=LT-1=3 have det U = -1"),
          "a boundary link far from U(3) breaks the pattern: %d %s", st, err);
    conf_free(&c);
    make(&c, 3, 8);
    m = field_link(&c.u, 5, 1);
    for (int i = 0; i < 18; i++) m[i] *= -1.5;
    CHECK(conf_boundary_sign_find(&c.u, "t") == 0, "a non-unitary link elsewhere is not a sign");
    conf_free(&c);
}

static void test_broken(void)
{
    struct conf c;
    make(&c, 3, 11);
    negate_link(&c, 1 + 4 * (0 + 2 * 1), 2); /* x=1 y=0 z=1 t=0 */
    dies(child_find, &c, "test field: broken configuration: the link U_z at site x=1 y=0 z=1 t=0 is minus an SU(3) matrix",
         "one link elsewhere");
    conf_free(&c);
    make(&c, 3, 12);
    negate_link(&c, 16 * 3 + 5, 3); /* x=1 y=1 z=0 t=3 */
    dies(child_find, &c, "the link U_t at site x=1 y=1 z=0 t=3 is minus an SU(3) matrix (det U = -1), but only 1 of the 16",
         "one time link at t=LT-1");
    dies(child_strip, &c, "no antiperiodic boundary sign to strip", "strip on a clean field");
    c.check.boundary_sign = 1;
    dies(child_refuse, &c, "test field: the time links at t=LT-1=3 carry an antiperiodic boundary sign", "refusal");
    dies(child_nersc, &c, "a two-row NERSC file cannot hold the antiperiodic boundary sign", "two-row NERSC");
    c.check.boundary_sign = 0;
    conf_boundary_sign_refuse(&c); /* returns */
    CHECK(1, "no refusal without the sign");
    conf_free(&c);
    make(&c, 2, 13);
    c.check.boundary_sign = -1;
    dies(child_strip, &c, "SU(2): for even N det(-U) = det U", "strip on SU(2)");
    conf_free(&c);
}

static void test_read(void)
{
    struct conf c, r;
    make(&c, 3, 21);
    negate_boundary(&c);
    char path[128];
    snprintf(path, sizeof path, "%s/sign.lime", dir);
    conf_write(path, &c, NULL);
    conf_read(path, &r);
    CHECK(r.check.boundary_sign == 1, "conf_read finds the sign in an ILDG file");
    conf_free(&r);
    conf_free(&c);
}

int main(void)
{
    lat_progname = "lat";
#ifdef _OPENMP
    omp_set_num_threads(1); /* the children fork: no thread pool in the parent */
#endif
    if (unit_scratch_make(dir, sizeof dir, "bsign") != 0) return 1;
    test_detect_and_strip();
    test_tolerance();
    test_broken();
    test_read();
    unit_scratch_remove(dir);
    return unit_done("test_bsign");
}
