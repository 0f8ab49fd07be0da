/* hirep.c -- HiRep gauge configurations, SU(N) for N = 2..LAT_NC_MAX:
 * detection, reader and writer behind conf.h (hirep_detect, hirep_read,
 * hirep_write of confio.h).
 *
 * The format, as HiRep writes and reads it (claudiopica/HiRep,
 * LibHR/IO/archive.c write_gauge_field_matrix / read_gauge_field_matrix,
 * LibHR/IO/archive_su2quat.c for SU(2)) and as GLU reads and writes it
 * (src/IO/HIREP.c, src/IO/read_headers.c get_header_data_HIREP):
 *   header   5 big-endian int32: NG, GLB_T, GLB_X, GLB_Y, GLB_Z (time
 *            first), then one big-endian IEEE double: the average plaquette
 *            (HiRep's avr_plaquette: 1/(6 NG V) sum Re tr U_munu, 1 for the
 *            unit field -- lat's normalisation, observables.h);
 *   data     sites with t slowest, then x, then y, z fastest (the loops
 *            g[0] = T, g[1] = X, g[2] = Y, then Z); per site the four
 *            links in HiRep's direction order 0..3 = t, x, y, z (lat's mu =
 *            3, 0, 1, 2); per link the NG x NG complex matrix row-major, re
 *            then im, big-endian IEEE doubles.  There is no single-precision
 *            variant and no checksum.
 *   SU(2)    HiRep writes quaternions, 4 doubles per link (q0..q3 with
 *            U = [[q0 + i q3, -q2 + i q1], [q2 + i q1, q0 - i q3]]); its
 *            SU(2) reader also takes the full 2x2 matrices (8 doubles per
 *            link) of older files and tells the two apart by the file size.
 * HiRep's "four fermion" runs append 2 doubles per site; those files have
 * another size and are refused.  lat's time is its last direction (mu = 3),
 * so the extents map as (Lx, Ly, Lz, Lt) = (GLB_X, GLB_Y, GLB_Z, GLB_T); both
 * orders have t slowest and differ within a timeslice only.
 *
 * Detection (16 bytes): NG in 1..64 (a small group: the reader names the
 * supported range) and T, X, Y in 1..2^20.  A MILC magic (20103 in either
 * byte order) is out of that range, and so are openQCD's little-endian
 * extents read big-endian (a small extent t gives t << 24).
 *
 * Reading streams: a regular file must have exactly the size of the header's
 * lattice before anything is allocated (for SU(2): the quaternion or the
 * matrix size, which also says which one it is); from a pipe the raw bytes
 * of one timeslice are collected in a buffer that grows as they arrive, then
 * the field grows by that timeslice (conf_field_grow) and the links are put
 * in lat's order.  SU(2) from a pipe: the whole data is collected first and
 * its length says quaternions or matrices.  Non-finite numbers are refused.
 * The header plaquette must agree with the data within 1e-10: HiRep
 * computed it in double precision from the very doubles stored (SU(2): from
 * the matrices before their exact projection to quaternions), so the only
 * honest difference is the order of summation, of order sqrt(6V) * 1e-16
 * (1e-12 at 10^8 sites), while a wrong site, direction or byte order moves
 * it by far more.  (HiRep itself warns at 1e-12.)
 *
 * Writing: double precision only (an explicit 32 is refused); the header
 * plaquette is the data's.  SU(2) is written as quaternions when every link
 * is exactly one (rebuilding it from its quaternion gives the same bits, as
 * for a field read from a HiRep quaternion file), else as full matrices,
 * which HiRep's default SU(2) build reads too: the file is always lossless.
 * The quaternion decoding adds +0.0 to every element (-0.0 becomes +0.0) so
 * that exact zeros (a unit field) keep their bytes. */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIREP_HEADER_BYTES 28
#define HIREP_NG_DETECT_MAX 64
#define HIREP_EXTENT_DETECT_MAX (1 << 20)
#define HIREP_PLAQ_TOL 1e-10
#define HIREP_READ_STEP ((size_t)1 << 20) /* bytes asked of the input at once */

/* lat's direction mu of HiRep's direction d (0 = t, then x, y, z) */
static int lat_mu(int d) { return d == 0 ? LAT_ND - 1 : d - 1; }

int hirep_detect(const unsigned char *pre, size_t n)
{
    if (n < 16) return 0;
    uint32_t ng = load_be32(pre);
    if (ng < 1 || ng > HIREP_NG_DETECT_MAX) return 0;
    for (int i = 1; i < 4; i++) {
        uint32_t l = load_be32(pre + 4 * i);
        if (l < 1 || l > HIREP_EXTENT_DETECT_MAX) return 0;
    }
    return 1;
}

/* reals of one link as stored: 4 for SU(2) quaternions, else 2 N^2 */
static size_t stored_reals(int nc, int quaternions) { return quaternions ? 4 : field_link_reals(nc); }

/* U of a quaternion (see the top); +0.0 turns -0.0 into +0.0 */
static void quaternion_to_su2(const double q[4], double *m)
{
    m[0] = q[0] + 0.0; m[1] = q[3] + 0.0;
    m[2] = -q[2] + 0.0; m[3] = q[1] + 0.0;
    m[4] = q[2] + 0.0; m[5] = q[1] + 0.0;
    m[6] = q[0] + 0.0; m[7] = -q[3] + 0.0;
}

static void su2_to_quaternion(const double *m, double q[4])
{
    q[0] = m[0];
    q[1] = m[5];
    q[2] = m[4];
    q[3] = m[1];
}

/* 1 if the link is exactly the SU(2) matrix of its quaternion (bit for bit) */
static int su2_is_quaternion(const double *m)
{
    double q[4], r[8];
    su2_to_quaternion(m, q);
    quaternion_to_su2(q, r);
    return memcmp(r, m, sizeof r) == 0;
}

/* lat's site of the h-th site of HiRep timeslice t (z fastest, then y, x) */
static int64_t lat_site(const struct lattice *lat, int t, int64_t h)
{
    int x[LAT_ND];
    x[2] = (int)(h % lat->L[2]);
    h /= lat->L[2];
    x[1] = (int)(h % lat->L[1]);
    x[0] = (int)(h / lat->L[1]);
    x[3] = t;
    return lattice_site(lat, x);
}

/* put the raw links of timeslice t (HiRep order, big-endian) into u */
static void decode_slice(struct field *u, int t, const unsigned char *raw, int quaternions)
{
    const struct lattice *lat = &u->lat;
    int64_t v3 = lat->V / lat->L[3];
    size_t per = stored_reals(u->nc, quaternions);
    const unsigned char *p = raw;
    for (int64_t h = 0; h < v3; h++) {
        int64_t s = lat_site(lat, t, h);
        for (int d = 0; d < LAT_ND; d++) {
            double *m = field_link(u, s, lat_mu(d));
            if (quaternions) {
                double q[4];
                for (int i = 0; i < 4; i++, p += 8) q[i] = load_real(p, 64, 1);
                quaternion_to_su2(q, m);
            } else
                for (size_t i = 0; i < per; i++, p += 8) m[i] = load_real(p, 64, 1);
        }
    }
}

/* Read bytes [have, want) of the input into *buf, which grows (doubling)
 * only as they arrive; returns the bytes now held (< want at the end of
 * the input).  Dies on a read error. */
static uint64_t fill(struct byte_in *in, unsigned char **buf, uint64_t *cap, uint64_t have, uint64_t want)
{
    while (have < want) {
        uint64_t step = want - have < HIREP_READ_STEP ? want - have : HIREP_READ_STEP;
        if (have + step > *cap) {
            uint64_t c = *cap ? *cap : HIREP_READ_STEP;
            while (c < have + step) c *= 2;
            if (c > want) c = want;
            *buf = lat_realloc(*buf, (size_t)c);
            *cap = c;
        }
        size_t got = byte_in_read(in, *buf + have, (size_t)step);
        if (in->err) lat_die(1, in->name, "read error in the HiRep data: %s", strerror(in->err));
        have += got;
        if (got < step) break;
    }
    return have;
}

void hirep_read(struct byte_in *in, struct conf *c)
{
    const char *name = c->name;
    unsigned char hdr[HIREP_HEADER_BYTES];
    size_t got = byte_in_read(in, hdr, sizeof hdr);
    if (in->err) lat_die(1, name, "read error in the HiRep header: %s", strerror(in->err));
    if (got < sizeof hdr) lat_die(1, name, "truncated: the HiRep header (28 bytes) ends after %zu bytes", got);
    int32_t ng = (int32_t)load_be32(hdr);
    if (ng < 2 || ng > LAT_NC_MAX)
        lat_die(1, name, "HiRep NG = %" PRId32 ": lat reads SU(N) for N = 2..%d", ng, LAT_NC_MAX);
    int32_t d[4];
    for (int i = 0; i < 4; i++) {
        d[i] = (int32_t)load_be32(hdr + 4 + 4 * i);
        if (d[i] < 1 || d[i] > (1 << 24))
            lat_die(1, name, "HiRep header extent %s = %" PRId32 " is not a lattice extent (1 to 2^24)",
                    (const char *[]){"T", "X", "Y", "Z"}[i], d[i]);
    }
    int L[LAT_ND] = {d[1], d[2], d[3], d[0]};
    struct lattice lat;
    const char *why;
    if (lattice_init(&lat, L, &why) < 0)
        lat_die(1, name, "lattice %dx%dx%dx%d (x y z t) from the HiRep header: %s", L[0], L[1], L[2], L[3], why);
    double plaq_hdr = bits_to_double(load_be64(hdr + 20));
    if (!isfinite(plaq_hdr)) lat_die(1, name, "HiRep header plaquette is not a finite number (%g)", plaq_hdr);

    int nc = (int)ng;
    char ext[64];
    conf_extents(&lat, ext, sizeof ext);
    uint64_t v = (uint64_t)lat.V, v3 = v / (uint64_t)lat.L[3];
    uint64_t total_matrix = v * LAT_ND * stored_reals(nc, 0) * 8;
    uint64_t total_quat = v * LAT_ND * 4 * 8;
    /* the representation: SU(N >= 3) matrices; SU(2) by the size */
    int quaternions = nc == 2 ? -1 : 0;
    int64_t left = conf_input_left(in);
    if (left >= 0) {
        if (nc == 2 && (uint64_t)left == total_quat) quaternions = 1;
        else if ((uint64_t)left == total_matrix) quaternions = 0;
        else if (nc == 2)
            lat_die(1, name, "%sHiRep SU(2) data of %s is %" PRIu64 " bytes (quaternions) or %" PRIu64 " (matrices), the file holds %" PRId64,
                    (uint64_t)left < total_quat ? "truncated: " : "", ext, total_quat, total_matrix, left);
        else if ((uint64_t)left < total_matrix)
            lat_die(1, name, "truncated: HiRep data ends after %" PRId64 " of %" PRIu64 " bytes (SU(%d) %s)", left, total_matrix, nc, ext);
        else
            lat_die(1, name, "HiRep data is %" PRIu64 " bytes longer than the %" PRIu64 " that SU(%d) %s needs",
                    (uint64_t)left - total_matrix, total_matrix, nc, ext);
    }

    memset(&c->u, 0, sizeof c->u);
    c->u.lat = lat;
    c->u.nc = nc;
    c->u.prec = 64;
    c->file_prec = 64;
    int64_t cap = 0;
    unsigned char *raw = NULL;
    uint64_t rawcap = 0;
    if (quaternions < 0) {
        /* SU(2) from a pipe: all of it, then its length decides */
        uint64_t have = fill(in, &raw, &rawcap, 0, total_matrix);
        if (have == total_quat) quaternions = 1;
        else if (have == total_matrix) quaternions = 0;
        else
            lat_die(1, name, "%sHiRep SU(2) data of %s is %" PRIu64 " bytes (quaternions) or %" PRIu64 " (matrices), the input holds %" PRIu64,
                    have < total_quat ? "truncated: " : "", ext, total_quat, total_matrix, have);
        uint64_t slice = v3 * LAT_ND * stored_reals(nc, quaternions) * 8;
        conf_field_grow(&c->u, lat.V, &cap);
        for (int t = 0; t < lat.L[3]; t++) decode_slice(&c->u, t, raw + (size_t)(slice * (uint64_t)t), quaternions);
    } else {
        uint64_t slice = v3 * LAT_ND * stored_reals(nc, quaternions) * 8, total = slice * (uint64_t)lat.L[3];
        for (int t = 0; t < lat.L[3]; t++) {
            uint64_t have = fill(in, &raw, &rawcap, 0, slice);
            if (have < slice)
                lat_die(1, name, "truncated: HiRep data ends after %" PRIu64 " of %" PRIu64 " bytes (SU(%d)%s %s)",
                        slice * (uint64_t)t + have, total, nc, quaternions ? " quaternions" : "", ext);
            conf_field_grow(&c->u, (int64_t)((uint64_t)(t + 1) * v3), &cap);
            decode_slice(&c->u, t, raw, quaternions);
        }
    }
    free(raw);
    uint64_t total = v * LAT_ND * stored_reals(nc, quaternions) * 8;
    uint64_t extra = byte_in_skip(in, UINT64_MAX);
    if (in->err) lat_die(1, name, "read error after the HiRep data: %s", strerror(in->err));
    if (extra)
        lat_die(1, name, "HiRep data is %" PRIu64 " bytes longer than the %" PRIu64 " that SU(%d)%s %s needs",
                extra, total, nc, quaternions ? " quaternions" : "", ext);
    conf_check_finite(&c->u, name, "HiRep data");
    double p = measure_plaquette(&c->u).all;
    if (fabs(p - plaq_hdr) > HIREP_PLAQ_TOL)
        lat_die(1, name, "HiRep header plaquette mismatch: the header says %.16g, the data gives %.16g", plaq_hdr, p);
    c->check.has_plaq = 1;
    c->check.plaq = plaq_hdr;
    snprintf(c->check.detail, sizeof c->check.detail, "HiRep SU(%d)%s", nc,
             nc == 2 ? (quaternions ? " quaternions" : " matrices") : "");
}

/* ---- writing ---------------------------------------------------------------- */

static void wdie(const char *name)
{
    lat_die(1, name, "write failed: %s", strerror(errno ? errno : EIO));
}


void hirep_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec)
{
    (void)prec; /* conf_write's default follows the input; HiRep has double only */
    const struct field *u = &c->u;
    if (o && o->prec == 32)
        lat_die(1, name, "HiRep files hold 64-bit doubles only (HiRep writes no single precision); drop --precision 32");
    if (u->nc < 2 || u->nc > LAT_NC_MAX)
        lat_die(1, name, "a HiRep file holds SU(N) for N >= 2; this configuration is SU(%d)", u->nc);
    conf_warn_lost(c, name, "a HiRep file", NULL);
    int quaternions = 0;
    if (u->nc == 2) {
        quaternions = 1;
        for (int64_t s = 0; s < u->lat.V && quaternions; s++)
            for (int mu = 0; mu < LAT_ND && quaternions; mu++) quaternions = su2_is_quaternion(field_link(u, s, mu));
    }
    const int *L = u->lat.L;
    unsigned char hdr[HIREP_HEADER_BYTES];
    int32_t d[5] = {u->nc, L[3], L[0], L[1], L[2]};
    for (int i = 0; i < 5; i++) store_be32(hdr + 4 * i, (uint32_t)d[i]);
    store_be64(hdr + 20, double_to_bits(measure_plaquette(u).all));
    if (fwrite(hdr, 1, sizeof hdr, f) != sizeof hdr) wdie(name);
    /* one row of z at a time: HiRep's innermost loop */
    size_t per = stored_reals(u->nc, quaternions);
    size_t row_bytes = (size_t)L[2] * LAT_ND * per * 8;
    unsigned char *buf = lat_malloc(row_bytes);
    int x[LAT_ND];
    for (x[3] = 0; x[3] < L[3]; x[3]++)
        for (x[0] = 0; x[0] < L[0]; x[0]++)
            for (x[1] = 0; x[1] < L[1]; x[1]++) {
                unsigned char *p = buf;
                for (x[2] = 0; x[2] < L[2]; x[2]++) {
                    int64_t s = lattice_site(&u->lat, x);
                    for (int dd = 0; dd < LAT_ND; dd++) {
                        const double *m = field_link(u, s, lat_mu(dd));
                        double q[4];
                        if (quaternions) {
                            su2_to_quaternion(m, q);
                            m = q;
                        }
                        for (size_t i = 0; i < per; i++, p += 8) store_real_be(p, m[i], 64);
                    }
                }
                if (fwrite(buf, 1, row_bytes, f) != row_bytes) wdie(name);
            }
    free(buf);
}
