/* test_propagator.c -- io/propagator.c and tools/shared/meson.c:
 *   - sources: point:/wall: parsing (outside the lattice, malformed) and
 *     the unit source fields;
 *   - prop_write then prop_read (64 bit: bit-identical; 32 bit: within
 *     float rounding), point and wall sources, history kept;
 *   - the pion correlator equals sum |S|^2 per timeslice (computed here
 *     directly) on random columns, a0 and pi of S' = S differ (the gamma
 *     structure is used), two propagators S1 = S2 give the one-file result;
 *   - effective masses recover m from an exact cosh and from an exponential.
 * (The physics checks -- free field, covariance, solvers -- are
 * tests/propagator.bats against tests/propagator.py.) */
#include "io/propagator.h"
#include "math/rng.h"
#include "shared/meson.h"
#include "unit.h"
#include <stdlib.h>
#include <string.h>

static char dir[64];

static void random_prop(struct propagator *p, const int *L, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    const char *why;
    lattice_init(&p->lat, L, &why);
    p->nc = 3;
    struct lat_rng r;
    rng_init(&r, seed, 0, 0, 0, RNG_TEST);
    for (int k = 0; k < 12; k++) {
        p->col[k] = malloc(prop_column_reals(p) * sizeof(double));
        for (size_t i = 0; i < prop_column_reals(p); i++) p->col[k][i] = rng_normal(&r);
    }
}

static void test_sources(void)
{
    struct lattice lat;
    const char *why;
    int L[4] = {4, 4, 4, 8};
    lattice_init(&lat, L, &why);
    struct prop_source s;
    char w[256], buf[64];
    CHECK(prop_source_parse("point:1,2,3,7", &lat, &s, w, sizeof w) == 0 && !s.wall && s.x[3] == 7, "point");
    prop_source_format(&s, buf, sizeof buf);
    CHECK(strcmp(buf, "point:1,2,3,7") == 0, "format %s", buf);
    CHECK(prop_source_parse("wall:5", &lat, &s, w, sizeof w) == 0 && s.wall && s.x[3] == 5, "wall");
    CHECK(prop_source_parse("point:0,0,0,8", &lat, &s, w, sizeof w) < 0 && strstr(w, "outside"), "outside: %s", w);
    CHECK(prop_source_parse("point:0,0,0", &lat, &s, w, sizeof w) < 0, "three coordinates");
    CHECK(prop_source_parse("point:0,0,0,-1", &lat, &s, w, sizeof w) < 0, "negative");
    CHECK(prop_source_parse("wall:8", &lat, &s, w, sizeof w) < 0, "wall outside");
    CHECK(prop_source_parse("plane:1", &lat, &s, w, sizeof w) < 0, "unknown kind");
    double *f = malloc((size_t)lat.V * 24 * sizeof(double));
    prop_source_parse("wall:5", &lat, &s, w, sizeof w);
    prop_source_field(&s, &lat, 3, 2, 1, f);
    double sum = 0;
    int ok = 1;
    for (int64_t x = 0; x < lat.V; x++)
        for (int j = 0; j < 24; j++) {
            sum += f[x * 24 + j];
            int c[4];
            lattice_coords(&lat, x, c);
            if (f[x * 24 + j] != (c[3] == 5 && j == 2 * (2 * 3 + 1) ? 1.0 : 0.0)) ok = 0;
        }
    CHECK(ok && sum == 64, "wall source field (sum %g)", sum);
    free(f);
}

static void test_round_trip(void)
{
    int L[4] = {4, 2, 2, 6};
    struct propagator p, q;
    random_prop(&p, L, 11);
    p.src.x[0] = 3; p.src.x[1] = 1; p.src.x[3] = 4;
    p.history = strdup("2026-01-01T00:00:00Z\tlat-heatbath 0.1\tcmd\tnext_sweep=1\n");
    char path[128];
    snprintf(path, sizeof path, "%s/p64.lime", dir);
    prop_write(path, &p, "<latPropagator><kappa>0.1</kappa></latPropagator>", 64);
    prop_read(path, &q);
    int same = q.nc == 3 && q.file_prec == 64 && memcmp(&q.src, &p.src, sizeof p.src) == 0 && q.lat.V == p.lat.V;
    for (int k = 0; k < 12 && same; k++) same = memcmp(p.col[k], q.col[k], prop_column_reals(&p) * sizeof(double)) == 0;
    CHECK(same, "64-bit round trip bit-identical, point source 3,1,0,4");
    CHECK(q.history && strcmp(q.history, p.history) == 0, "history kept");
    CHECK(q.info && strstr(q.info, "<kappa>0.1</kappa>"), "info kept: %s", q.info ? q.info : "(none)");
    prop_free(&q);
    p.src.wall = 1; p.src.x[0] = p.src.x[1] = 0; p.src.x[3] = 2;
    snprintf(path, sizeof path, "%s/p32.lime", dir);
    prop_write(path, &p, NULL, 32);
    prop_read(path, &q);
    double err = 0;
    for (int k = 0; k < 12; k++)
        for (size_t i = 0; i < prop_column_reals(&p); i++) err = fmax(err, fabs(p.col[k][i] - q.col[k][i]) / (fabs(p.col[k][i]) + 1e-30));
    CHECK(q.file_prec == 32 && q.src.wall && q.src.x[3] == 2 && err < 1e-7, "32-bit round trip, wall:2 (rel err %g)", err);
    prop_free(&q);
    free(p.history);
    p.history = NULL;
    prop_free(&p);
}

static void test_contractions(void)
{
    int L[4] = {2, 4, 2, 6};
    struct propagator p;
    random_prop(&p, L, 5);
    p.src.x[3] = 2;
    const int T = 6;
    double *c[MESON_CHANNELS][MESON_MOMENTA], *c2[MESON_CHANNELS][MESON_MOMENTA];
    for (int ch = 0; ch < MESON_CHANNELS; ch++)
        for (int m = 0; m < MESON_MOMENTA; m++) { c[ch][m] = calloc(T, sizeof(double)); c2[ch][m] = calloc(T, sizeof(double)); }
    meson_correlators(&p, &p, c);
    double want[6] = {0};
    for (int64_t x = 0; x < p.lat.V; x++) {
        int xc[4];
        lattice_coords(&p.lat, x, xc);
        for (int k = 0; k < 12; k++)
            for (int j = 0; j < 24; j++) want[(xc[3] - 2 + T) % T] += p.col[k][x * 24 + j] * p.col[k][x * 24 + j];
    }
    double err = 0, diff = 0;
    for (int t = 0; t < T; t++) {
        err = fmax(err, fabs(c[0][0][t] - want[t]) / want[t]);
        diff = fmax(diff, fabs(c[3][0][t] - c[0][0][t]));
    }
    CHECK(err < 1e-13, "pion = sum |S|^2 per timeslice from the source (rel err %g)", err);
    CHECK(diff > 1e-3, "a0 differs from pi on random columns (%g)", diff);
    struct propagator q = p; /* the same columns as a second propagator */
    meson_correlators(&p, &q, c2);
    int same = 1;
    for (int ch = 0; ch < MESON_CHANNELS; ch++)
        for (int m = 0; m < MESON_MOMENTA; m++) same &= memcmp(c[ch][m], c2[ch][m], T * sizeof(double)) == 0;
    CHECK(same, "two identical propagators give the one-propagator correlators");
    for (int ch = 0; ch < MESON_CHANNELS; ch++)
        for (int m = 0; m < MESON_MOMENTA; m++) { free(c[ch][m]); free(c2[ch][m]); }
    prop_free(&p);
}

static void test_effective_mass(void)
{
    enum { T = 16 };
    double c[T], ml[T], mc[T];
    for (int t = 0; t < T; t++) c[t] = 2.5 * cosh(0.37 * (T / 2.0 - t));
    meson_effective_mass(c, T, ml, mc);
    double err = 0;
    for (int t = 0; t < T / 2; t++) err = fmax(err, fabs(mc[t] - 0.37));
    CHECK(err < 1e-12, "cosh effective mass of an exact cosh: max error %g", err);
    CHECK(isnan(mc[T - 1]) && isnan(ml[T - 1]), "last t undefined");
    CHECK(fabs(ml[0] - log(c[0] / c[1])) < 1e-15, "log form");
    for (int t = 0; t < T; t++) c[t] = exp(-0.9 * t);
    meson_effective_mass(c, T, ml, mc);
    CHECK(fabs(ml[3] - 0.9) < 1e-13, "log mass of an exponential %g", ml[3]);
}

/* argv[1]: also write a 4x2x2x4 propagator whose value k, x, j is
 * sin(k + 0.1 j + 0.01 x), point source 1,0,1,2, for tests/propagator.bats
 * to read with its own reader */
static void write_pattern(const char *path)
{
    int L[4] = {4, 2, 2, 4};
    struct propagator p;
    random_prop(&p, L, 1);
    for (int k = 0; k < 12; k++)
        for (size_t i = 0; i < prop_column_reals(&p); i++) p.col[k][i] = sin(k + 0.1 * (double)(i % 24) + 0.01 * (double)(i / 24));
    p.src.x[0] = 1; p.src.x[2] = 1; p.src.x[3] = 2;
    prop_write(path, &p, "<latPropagator><test>pattern</test></latPropagator>", 64);
    prop_free(&p);
}

int main(int argc, char **argv)
{
    if (argc > 1) { write_pattern(argv[1]); return 0; }
    snprintf(dir, sizeof dir, "/tmp/lat-test-prop.XXXXXX");
    if (!mkdtemp(dir)) return 1;
    test_sources();
    test_round_trip();
    test_contractions();
    test_effective_mass();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("test_propagator: %d passed, %d failed\n", unit_pass, unit_fail);
    return unit_fail != 0;
}
