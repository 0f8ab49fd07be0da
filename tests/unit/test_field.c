/* test_field.c -- the field type (lattice/field.h): sizes of every kind,
 * conversions between storage precisions (double, single, half) and the
 * bounds they promise, and the geometry a field carries. */
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "lattice/halo.h"
#include "base/comm.h"
#include "math/rng.h"
#include "unit.h"
#include <math.h>
#include <string.h>

/* Under mpirun: the halo of a spinor field (one component per site) and of
 * a single-precision links field (four), filled with a function of the
 * global site, must hold the neighbours' values after field_halo_refresh,
 * and a part naming one direction and parity moves only those. */
static double value(int64_t gsite, size_t i) { return (double)(gsite * 1000 + (int64_t)i); }
static void halo_checks(void)
{
    struct lattice glob;
    int L[4] = {4, 2, 2, 8};
    lattice_init(&glob, L, NULL);
    const struct geometry *d = geometry_for(&glob);
    CHECK(d && d->grid[3] == comm_size() && d->coord[3] == comm_rank() && d->halo == 1 && d->grid[0] == 1,
          "geometry: t-slabs, grid 1x1x1xR, halo depth 1");
    enum field_kind kinds[2] = {FIELD_SPINOR, FIELD_LINKS};
    int precs[2] = {64, 32};
    for (int k = 0; k < 2; k++) {
        struct field u;
        field_alloc_kind(&u, kinds[k], &d->local, 3, precs[k]);
        u.dom = d;
        size_t sr = field_site_reals(u.kind, 3);
        for (int64_t s = 0; s < u.lat.V; s++)
            for (size_t i = 0; i < sr; i++) {
                int t = (int)(s / d->v3);
                double v = (t >= 1 && t <= d->lt) ? value(geometry_any_global_site(d, s), i) : -1;
                if (u.prec == 64) u.d[(size_t)s * sr + i] = v;
                else u.f[(size_t)s * sr + i] = (float)v;
            }
        field_halo_refresh(&u);
        int bad = 0;
        for (int64_t s = 0; s < u.lat.V; s++)
            for (size_t i = 0; i < sr; i++)
                bad += field_real(&u, (size_t)s * sr + i) != (double)(float)value(geometry_any_global_site(d, s), i);
        CHECK(!bad, "kind %d prec %d: halo slices hold the neighbours' sites (%d wrong)", (int)kinds[k], precs[k], bad);
        field_free(&u);
    }
    /* a face of one direction and one parity: U_2 of global parity 1 of the
     * last owned slice, to the rank above */
    struct field u;
    field_alloc_kind(&u, FIELD_LINKS, &d->local, 2, 64);
    u.dom = d;
    struct halo_part part = {+1, d->lt, 0, 2, 1};
    for (int64_t s = 0; s < u.lat.V; s++)
        for (size_t i = 0; i < 32; i++) u.d[(size_t)s * 32 + i] = (s / d->v3 == d->lt) ? 7 : 0;
    struct halo_xfer x;
    field_halo_start(&x, &u, &part, 1);
    halo_finish(&x);
    int moved = 0, wrong = 0;
    for (int64_t s = 0; s < d->v3; s++)
        for (int mu = 0; mu < 4; mu++) {
            int want = mu == 2 && geometry_parity(d, &d->local, s) == 1;
            double v = field_link(&u, s, mu)[0];
            moved += v == 7;
            wrong += (v == 7) != want;
        }
    CHECK(moved == d->v3 / 2 && !wrong, "one face: %d links moved, %d wrong", moved, wrong);
    field_free(&u);
}

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    if (comm_size() > 1) {
        halo_checks();
        return unit_done("test_field (ranks)");
    }
    struct lattice lat;
    int L[4] = {4, 2, 2, 6};
    lattice_init(&lat, L, NULL);
    /* reals per site of each kind, N = 3 */
    CHECK(field_site_reals(FIELD_LINKS, 3) == 72, "links: 4 x 18 reals");
    CHECK(field_site_reals(FIELD_TRANSFORM, 3) == 18, "transform: 18 reals");
    CHECK(field_site_reals(FIELD_COLOUR, 3) == 6, "colour vector: 6 reals");
    CHECK(field_site_reals(FIELD_SPINOR, 3) == 24, "spinor: 24 reals");
    CHECK(field_site_reals(FIELD_MOMENTUM, 3) == 32, "momentum: 4 x 8 reals");
    CHECK(field_site_reals(FIELD_MOMENTUM, 2) == 12, "momentum SU(2): 4 x 3 reals");

    /* a random spinor field in double, copied to single and half */
    struct field psi, s32, s16, back;
    field_alloc_kind(&psi, FIELD_SPINOR, &lat, 3, 64);
    CHECK(psi.kind == FIELD_SPINOR && psi.d && !psi.f && !psi.h, "double spinor storage");
    struct lat_rng r;
    rng_init(&r, 7, 0, 0, 0, RNG_TEST);
    size_t n = field_reals(&psi), sr = field_site_reals(FIELD_SPINOR, 3);
    CHECK(n == (size_t)lat.V * 24, "spinor reals");
    for (size_t i = 0; i < n; i++) psi.d[i] = rng_normal(&r) * (1 + (double)(i / sr % 5));
    memset(psi.d + 3 * sr, 0, sr * sizeof(double)); /* a site of zeros: norm 0 */
    field_copy_as(&s32, &psi, 32);
    field_copy_as(&s16, &psi, 16);
    CHECK(s32.kind == FIELD_SPINOR && s32.f && s16.h && s16.norm, "single and half storage allocated");
    double e32 = 0, e16 = 0, worst = 0;
    for (size_t i = 0; i < n; i++) {
        e32 = fmax(e32, fabs(field_real(&s32, i) - psi.d[i]) / fabs(psi.d[i] ? psi.d[i] : 1));
        double bound = s16.norm[i / sr] / 65534.0 * (1 + 1e-6) + 1e-300;
        double e = fabs(field_real(&s16, i) - psi.d[i]);
        e16 = fmax(e16, e);
        worst = fmax(worst, e / bound);
    }
    CHECK(e32 <= 0x1p-24, "single: relative error %g <= 2^-24", e32);
    CHECK(worst <= 1, "half: every real within norm/65534 (worst ratio %g, max error %g)", worst, e16);
    CHECK(e16 > 0, "half loses bits (a test of nothing otherwise)");
    CHECK(s16.norm[3] == 0 && field_real(&s16, 3 * sr) == 0, "a zero site stays zero in half");
    /* half -> double -> half is exact: the conversion is a projection */
    field_copy_as(&back, &s16, 64);
    struct field again;
    field_copy_as(&again, &back, 16);
    CHECK(!memcmp(again.h, s16.h, n * sizeof(int16_t)) && !memcmp(again.norm, s16.norm, (size_t)lat.V * sizeof(float)),
          "half -> double -> half keeps every bit");
    /* in-place conversion keeps the kind and the values */
    field_convert(&back, 32);
    CHECK(back.prec == 32 && back.kind == FIELD_SPINOR && back.f && !back.d, "field_convert to single");
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(field_real(&back, i) - field_real(&s16, i)));
    CHECK(d <= 1e-6 * 10, "half values survive double -> single (%g)", d);
    CHECK(field_find_nonfinite(&s16) < 0, "half field finite");
    s16.norm[2] = NAN;
    CHECK(field_find_nonfinite(&s16) == (int64_t)(2 * sr), "a NaN norm is found");

    /* links: the default kind, what field_alloc gives; field_copy keeps it */
    struct field u, c;
    field_alloc(&u, &lat, 3, 64);
    CHECK(u.kind == FIELD_LINKS && field_reals(&u) == (size_t)lat.V * 72, "field_alloc gives links");
    field_set_unit(&u);
    field_copy(&c, &u);
    CHECK(c.kind == FIELD_LINKS && !memcmp(c.d, u.d, field_reals(&u) * sizeof(double)), "field_copy");
    CHECK(field_link(&u, 5, 2)[0] == 1 && field_link(&u, 5, 2)[2] == 0, "unit link");
    CHECK(u.dom == NULL && geometry_for(&lat) == NULL, "one process: no decomposition");
    /* the shape may come from the field itself (the ILDG reader does this) */
    struct field self;
    memset(&self, 0, sizeof self);
    self.lat = lat;
    field_alloc(&self, &self.lat, 3, 64);
    CHECK(self.lat.V == lat.V && self.lat.L[3] == 6 && self.d, "field_alloc(u, &u->lat, ...) keeps the shape");
    field_free(&self);

    field_free(&psi); field_free(&s32); field_free(&s16); field_free(&back); field_free(&again);
    field_free(&u); field_free(&c);
    return unit_done("test_field");
}
