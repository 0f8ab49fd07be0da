/* test_hirep.c -- the HiRep back end (common/io/hirep.c): detection claims
 * HiRep headers and not MILC (magic 20103, either byte order) or openQCD
 * (little-endian extents) ones; conf_write -> conf_read is bit-identical
 * for SU(2) (matrices and quaternions), SU(3), SU(5) and SU(LAT_NC_MAX);
 * the file has exactly the size of its header's lattice and representation,
 * the header holds NG, T, X, Y, Z big-endian and the data's plaquette; the
 * first link stored is U_t at the origin. */
#include "io/conf.h"
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include "unit.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char dir[64];

static const char *tmp(const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static void be32s(unsigned char *p, const uint32_t *v, int n)
{
    for (int i = 0; i < n; i++) store_be32(p + 4 * i, v[i]);
}

static void test_detect(void)
{
    unsigned char b[16];
    be32s(b, (uint32_t[]){3, 8, 4, 4}, 4);
    CHECK(hirep_detect(b, 16) == 1, "HiRep SU(3) header detected");
    be32s(b, (uint32_t[]){9, 8, 4, 4}, 4);
    CHECK(hirep_detect(b, 16) == 1, "HiRep NG 9 detected (the reader names the range)");
    CHECK(hirep_detect(b, 12) == 0, "12 bytes are not enough");
    be32s(b, (uint32_t[]){0, 8, 4, 4}, 4);
    CHECK(hirep_detect(b, 16) == 0, "NG 0 not claimed");
    be32s(b, (uint32_t[]){3, 0, 4, 4}, 4);
    CHECK(hirep_detect(b, 16) == 0, "extent 0 not claimed");
    /* MILC v5: magic 20103, then nx ny nz (big- or little-endian) */
    be32s(b, (uint32_t[]){20103, 4, 4, 4}, 4);
    CHECK(hirep_detect(b, 16) == 0, "big-endian MILC header not claimed");
    uint32_t le[4] = {20103, 4, 4, 8};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) b[4 * i + k] = (unsigned char)(le[i] >> (8 * k));
    CHECK(hirep_detect(b, 16) == 0, "little-endian MILC header not claimed");
    /* openQCD: little-endian int32 T X Y Z, then a little-endian double */
    uint32_t oq[4] = {2, 4, 6, 8};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) b[4 * i + k] = (unsigned char)(oq[i] >> (8 * k));
    CHECK(hirep_detect(b, 16) == 0, "openQCD header (little-endian extents) not claimed");
}

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* write c as HiRep, read it back: bit-identical, exact size, header */
static void roundtrip(struct conf *c, const char *what, int reals_per_link)
{
    struct conf_write_opts o = {.format = CONF_HIREP};
    conf_write(tmp("c.hirep"), c, &o);
    const struct lattice *lat = &c->u.lat;
    off_t want = 28 + (off_t)lat->V * 4 * reals_per_link * 8;
    CHECK(file_size(tmp("c.hirep")) == want, "%s: file size %lld, expected %lld", what, (long long)file_size(tmp("c.hirep")),
          (long long)want);
    FILE *f = fopen(tmp("c.hirep"), "rb");
    unsigned char h[28 + 8 * 2 * LAT_NC_MAX * LAT_NC_MAX];
    size_t got = f ? fread(h, 1, sizeof h, f) : 0;
    if (f) fclose(f);
    CHECK(got >= 28 + 8 * (size_t)reals_per_link, "%s: header read", what);
    const int *L = lat->L;
    CHECK(load_be32(h) == (uint32_t)c->u.nc && load_be32(h + 4) == (uint32_t)L[3] && load_be32(h + 8) == (uint32_t)L[0] &&
              load_be32(h + 12) == (uint32_t)L[1] && load_be32(h + 16) == (uint32_t)L[2],
          "%s: header NG T X Y Z", what);
    CHECK(bits_to_double(load_be64(h + 20)) == measure_plaquette(&c->u).all, "%s: header plaquette is the data's", what);
    /* the first link stored: U_t(0) (HiRep direction 0 = t) */
    const double *ut = field_link(&c->u, 0, 3);
    if (reals_per_link == 4)
        CHECK(bits_to_double(load_be64(h + 28)) == ut[0] && bits_to_double(load_be64(h + 28 + 24)) == ut[1],
              "%s: first quaternion q0 = Re U_t(0)[0][0], q3 = Im", what);
    else {
        int same = 1;
        for (int i = 0; i < reals_per_link; i++) same &= bits_to_double(load_be64(h + 28 + 8 * i)) == ut[i];
        CHECK(same, "%s: first link stored is U_t(0)", what);
    }
    struct conf r;
    conf_read(tmp("c.hirep"), &r);
    CHECK(r.format == CONF_HIREP && r.file_prec == 64 && r.u.nc == c->u.nc, "%s: format, precision, nc", what);
    CHECK(memcmp(r.u.lat.L, lat->L, sizeof lat->L) == 0, "%s: extents", what);
    CHECK(memcmp(r.u.d, c->u.d, field_reals(&c->u) * sizeof(double)) == 0, "%s: round trip bit-identical", what);
    CHECK(r.check.has_plaq && r.check.plaq == measure_plaquette(&c->u).all, "%s: check.plaq", what);
    CHECK(strncmp(r.check.detail, "HiRep SU(", 9) == 0, "%s: detail '%s'", what, r.check.detail);
    conf_free(&r);
}

static void test_roundtrips(void)
{
    struct lattice lat;
    int L[4] = {2, 4, 6, 4}; /* all different but t: catches transposed orders */
    lattice_init(&lat, L, NULL);
    struct conf c;
    int ncs[] = {3, 5, LAT_NC_MAX};
    for (int i = 0; i < 3; i++) {
        conf_init(&c, &lat, ncs[i]);
        field_set_random(&c.u, 7 + (uint64_t)i);
        char what[32];
        snprintf(what, sizeof what, "SU(%d)", ncs[i]);
        roundtrip(&c, what, 2 * ncs[i] * ncs[i]);
        conf_free(&c);
    }
    /* SU(2) not exactly of quaternion form: full matrices */
    conf_init(&c, &lat, 2);
    field_set_random(&c.u, 3);
    c.u.d[0] = nextafter(c.u.d[0], 2.0); /* U[1][1] = conj(U[0][0]) no longer */
    roundtrip(&c, "SU(2) matrices", 8);
    /* exact quaternion form (rebuilt from the quaternion): 4 reals */
    for (int64_t s = 0; s < lat.V; s++)
        for (int mu = 0; mu < 4; mu++) {
            double *m = field_link(&c.u, s, mu);
            m[6] = m[0]; m[7] = -m[1] + 0.0; m[4] = -m[2] + 0.0; m[5] = m[3];
        }
    roundtrip(&c, "SU(2) quaternions", 4);
    conf_free(&c);
    /* the unit field keeps its zeros' bytes in quaternion form */
    conf_init(&c, &lat, 2);
    roundtrip(&c, "SU(2) unit", 4);
    conf_free(&c);
}

int main(void)
{
    lat_progname = "lat";
    if (unit_scratch_make(dir, sizeof dir, "hirep") != 0) return 1;
    test_detect();
    test_roundtrips();
    unit_scratch_remove(dir);
    return unit_done("test_hirep");
}
