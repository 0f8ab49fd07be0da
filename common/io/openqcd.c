/* openqcd.c -- openQCD "export" files (the CERN format of openQCD's
 * export_cnfg/import_cnfg, FORMATS.md §6): detector, reader and writer
 * behind conf.h (declared in confio.h: openqcd_detect, openqcd_read,
 * openqcd_write).
 *
 * The file: little-endian throughout, int32 N0 N1 N2 N3 (N0 = time, then
 * x, y, z), a double: the average over the 6V plaquettes of Re tr U_p (not
 * divided by 3), then for every odd site (x0+x1+x2+x3 odd) in the order
 * ix = x3 + N3*x2 + N2*N3*x1 + N1*N2*N3*x0 (z fastest, time slowest) eight
 * SU(3) matrices, directions +0,-0,+1,-1,+2,-2,+3,-3, where +mu is U_mu(x)
 * and -mu is U_mu(x - mu), the link that ends at x.  openQCD direction 0
 * is time (lat's t), 1..3 are x, y, z.  Matrices are 3x3 row-major, each
 * entry re then im, IEEE 64-bit: the layout of a lat link, so a matrix is
 * 18 doubles either way.  Every link touches exactly one odd site, so the
 * 4V links each appear once.  Always double precision.
 *
 * Detection: the first 16 bytes are four little-endian int32 extents that
 * lattice_init accepts (positive, even -- odd sites need even extents --,
 * volume within 2^31).  Big-endian numbers below 256 (the HiRep header
 * conf.c tries first: NG and extents) read little-endian are multiples of
 * 2^24, far beyond the volume limit, so no HiRep header passes; MILC's
 * magic 20103 is odd either way round.
 *
 * Reading: the header is checked before anything is allocated (extents as
 * above, header plaquette finite); a regular file must have exactly the
 * size the extents imply, a pipe must end where the data ends.  The field
 * grows as the data arrive (conf_field_grow), one time slice ahead: the -0
 * links of slice t belong to slice t-1, already held, except those of
 * t = 0, which belong to t = T-1; they wait in a buffer (one eighth of a
 * slice's links) that also grows with the data, and are placed at the end.
 * Then: non-finite numbers refused; time links at x0 = T-1 all zero (open,
 * SF and open-SF boundary conditions in openQCD) refused naming the cause
 * (lat handles periodic fields only); any other all-zero link refused; the
 * header plaquette must match the data within 16 sqrt(6V) DBL_EPSILON in
 * Re tr units (see PLAQ_BAR).  c->file_prec = 64, c->check.detail
 * "openQCD export", c->check.plaq = the header's value divided by 3 (lat's
 * normalisation, FORMATS.md §8).
 *
 * Writing: SU(3) only; double only (a caller that asked for 32 bits,
 * o->prec == 32, is refused; a 32-bit input is written in double without
 * asking).  The header plaquette is 3 x lat's plaquette of the field as
 * written (the doubles are stored exactly).  The history, the tracked
 * transformation and carried records have no place in the format: a
 * warning names them. */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OQ_HEADER_BYTES 24
#define OQ_MATRIX_REALS 18                              /* one SU(3) matrix */
#define OQ_MATRIX_BYTES (OQ_MATRIX_REALS * 8)
#define OQ_SITE_BYTES (2 * LAT_ND * OQ_MATRIX_BYTES)    /* 8 matrices: 1152 */
#define OQ_CHUNK 256                                    /* odd sites per read/write */

/* openQCD's own bar is sqrt(6V) DBL_EPSILON on the average of Re tr U_p,
 * comparing two sums it did itself.  Here the header comes from another
 * program (openQCD, GLU, Grid) that sums the 6V plaquettes in its own order
 * in double precision, and rounding in a sum of 6V terms grows like
 * sqrt(6V) eps times a factor of a few; lat's own sum is in long double.
 * 16 sqrt(6V) eps keeps the producer's rounding from failing a good file
 * (GLU's headers of 4^3x8 and 6^3x4 fields differ from lat's sum by 1 to
 * 2 DBL_EPSILON, under 1/30 of sqrt(6V) eps) while a header of another
 * configuration, or one divided by 3, misses by many orders more. */
#define PLAQ_BAR(V) (16.0 * sqrt(6.0 * (double)(V)) * DBL_EPSILON)

/* lat's direction of openQCD direction k: 0 (time) is lat's t = 3 */
static int lat_mu(int k) { return k == 0 ? LAT_ND - 1 : k - 1; }

/* the lattice site (ILDG index) of the i-th odd site in openQCD's order:
 * each line (t, x, y) holds Lz/2 odd sites, z of the parity that makes
 * t+x+y+z odd */
static int64_t odd_site(const struct lattice *lat, int64_t i)
{
    const int *L = lat->L;
    int64_t half = L[2] / 2, line = i / half;
    int x[LAT_ND];
    x[1] = (int)(line % L[1]);
    line /= L[1];
    x[0] = (int)(line % L[0]);
    x[3] = (int)(line / L[0]);
    x[2] = (int)(2 * (i % half) + ((x[3] + x[0] + x[1] + 1) & 1));
    return lattice_site(lat, x);
}

int openqcd_detect(const unsigned char *pre, size_t n)
{
    if (n < 16) return 0;
    int L[LAT_ND];
    for (int k = 0; k < LAT_ND; k++) L[lat_mu(k)] = (int)(int32_t)load_le32(pre + 4 * k);
    struct lattice lat;
    return lattice_init(&lat, L, NULL) == 0;
}

static void decode_matrix(double *m, const unsigned char *p)
{
    for (int i = 0; i < OQ_MATRIX_REALS; i++) m[i] = bits_to_double(load_le64(p + 8 * i));
}

static int zero_matrix(const double *m)
{
    for (int i = 0; i < OQ_MATRIX_REALS; i++)
        if (m[i] != 0.0) return 0;
    return 1;
}

/* open/SF boundary conditions (all time links at x0 = T-1 zero) and any
 * other zero link: not a periodic SU(3) field */
static void check_zero_links(const struct field *u, const char *name)
{
    const struct lattice *lat = &u->lat;
    int64_t v3 = lat->V / lat->L[3], zeros = 0;
    for (int64_t s = lat->V - v3; s < lat->V; s++) zeros += zero_matrix(field_link(u, s, LAT_ND - 1));
    if (zeros == v3)
        lat_die(1, name, "openQCD file with open/SF boundary conditions (time links at x0 = T-1 = %d are zero): "
                         "lat handles periodic fields only", lat->L[3] - 1);
    for (int64_t s = 0; s < lat->V; s++)
        for (int mu = 0; mu < LAT_ND; mu++)
            if (zero_matrix(field_link(u, s, mu))) {
                int x[LAT_ND];
                lattice_coords(lat, s, x);
                lat_die(1, name, "openQCD data: the link U_%c at site x=%d y=%d z=%d t=%d is the zero matrix, not SU(3)",
                        "xyzt"[mu], x[0], x[1], x[2], x[3]);
            }
}

void openqcd_read(struct byte_in *in, struct conf *c)
{
    const char *name = c->name;
    unsigned char h[OQ_HEADER_BYTES];
    size_t got = byte_in_read(in, h, sizeof h);
    if (got < sizeof h) {
        if (in->err) lat_die(1, name, "read error in the openQCD header: %s", strerror(in->err));
        lat_die(1, name, "truncated: the openQCD export header ends after %zu of %d bytes", got, OQ_HEADER_BYTES);
    }
    int N[LAT_ND], L[LAT_ND];
    for (int k = 0; k < LAT_ND; k++) {
        N[k] = (int)(int32_t)load_le32(h + 4 * k);
        L[lat_mu(k)] = N[k];
    }
    struct lattice lat;
    const char *why;
    if (lattice_init(&lat, L, &why) < 0)
        lat_die(1, name, "openQCD header N0 N1 N2 N3 (t x y z) = %d %d %d %d: %s", N[0], N[1], N[2], N[3], why);
    double head_plaq = bits_to_double(load_le64(h + 16));
    if (!isfinite(head_plaq)) lat_die(1, name, "openQCD header plaquette is not a finite number (%g)", head_plaq);

    char ext[64];
    conf_extents(&lat, ext, sizeof ext);
    int64_t nodd = lat.V / 2, v3 = lat.V / lat.L[3], slice_odd = v3 / 2;
    uint64_t total = (uint64_t)nodd * OQ_SITE_BYTES;
    int64_t left = conf_input_left(in);
    if (left >= 0 && (uint64_t)left < total)
        lat_die(1, name, "truncated: openQCD data ends after %" PRId64 " of %" PRIu64 " bytes (%s)", left, total, ext);
    if (left >= 0 && (uint64_t)left > total)
        lat_die(1, name, "openQCD data is %" PRIu64 " bytes longer than the %" PRIu64 " that %s needs",
                (uint64_t)left - total, total, ext);

    memset(&c->u, 0, sizeof c->u);
    c->u.lat = lat;
    c->u.nc = 3;
    c->u.prec = 64;
    c->file_prec = 64;
    struct field *u = &c->u;
    int64_t cap = 0, pend_cap = 0;
    double *pending = NULL; /* the -0 links of slice 0: U_t at x0 = T-1 */
    unsigned char *raw = lat_malloc((size_t)OQ_SITE_BYTES * (size_t)(nodd < OQ_CHUNK ? nodd : OQ_CHUNK));
    for (int64_t i0 = 0; i0 < nodd; i0 += OQ_CHUNK) {
        int64_t k = nodd - i0 < OQ_CHUNK ? nodd - i0 : OQ_CHUNK;
        size_t want = (size_t)k * OQ_SITE_BYTES;
        got = byte_in_read(in, raw, want);
        if (got < want) {
            if (in->err) lat_die(1, name, "read error in the openQCD data: %s", strerror(in->err));
            lat_die(1, name, "truncated: openQCD data ends after %" PRIu64 " of %" PRIu64 " bytes (%s)",
                    (uint64_t)i0 * OQ_SITE_BYTES + got, total, ext);
        }
        conf_field_grow(u, ((i0 + k - 1) / slice_odd + 1) * v3, &cap);
        int64_t pend_need = i0 + k < slice_odd ? i0 + k : slice_odd;
        if (pend_need > pend_cap) {
            pend_cap = pend_cap ? 2 * pend_cap : OQ_CHUNK;
            if (pend_cap < pend_need) pend_cap = pend_need;
            if (pend_cap > slice_odd) pend_cap = slice_odd;
            pending = lat_realloc(pending, (size_t)pend_cap * OQ_MATRIX_BYTES);
        }
        const unsigned char *p = raw;
        for (int64_t i = i0; i < i0 + k; i++) {
            int64_t s = odd_site(&lat, i);
            for (int dir = 0; dir < LAT_ND; dir++, p += 2 * OQ_MATRIX_BYTES) {
                int mu = lat_mu(dir);
                decode_matrix(field_link(u, s, mu), p);
                if (mu == LAT_ND - 1 && i < slice_odd)
                    decode_matrix(pending + (size_t)i * OQ_MATRIX_REALS, p + OQ_MATRIX_BYTES);
                else
                    decode_matrix(field_link(u, lattice_neighbour(&lat, s, mu, -1), mu), p + OQ_MATRIX_BYTES);
            }
        }
    }
    free(raw);
    for (int64_t i = 0; i < slice_odd; i++)
        memcpy(field_link(u, lattice_neighbour(&lat, odd_site(&lat, i), LAT_ND - 1, -1), LAT_ND - 1),
               pending + (size_t)i * OQ_MATRIX_REALS, OQ_MATRIX_BYTES);
    free(pending);
    uint64_t extra = byte_in_skip(in, UINT64_MAX);
    if (in->err) lat_die(1, name, "read error after the openQCD data: %s", strerror(in->err));
    if (extra) lat_die(1, name, "openQCD data is %" PRIu64 " bytes longer than the %" PRIu64 " that %s needs", extra, total, ext);

    conf_check_finite(u, name, "openQCD data");
    check_zero_links(u, name);
    double retr = 3.0 * measure_plaquette(u).all;
    if (fabs(retr - head_plaq) > PLAQ_BAR(lat.V))
        lat_die(1, name, "openQCD header plaquette mismatch: the header says %.17g (average Re tr), the data gives %.17g "
                         "(difference %.1e, allowed %.1e)", head_plaq, retr, fabs(retr - head_plaq), PLAQ_BAR(lat.V));
    snprintf(c->check.detail, sizeof c->check.detail, "openQCD export");
    c->check.has_plaq = 1;
    c->check.plaq = head_plaq / 3.0;
}

/* ---- writing ---------------------------------------------------------------- */


static void wdie(const char *name)
{
    lat_die(1, name, "write failed: %s", strerror(errno ? errno : EIO));
}

void openqcd_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec)
{
    (void)prec; /* the input's precision when not asked for: openQCD files are double anyway */
    const struct field *u = &c->u;
    if (u->nc != 3)
        lat_die(1, name, "an openQCD export file holds SU(3) only; this configuration is SU(%d) (write ILDG instead)", u->nc);
    if (o && o->prec == 32)
        lat_die(1, name, "an openQCD export file is always 64-bit (double precision): 32-bit output refused");
    conf_warn_lost(c, name, "an openQCD export file", NULL);
    const struct lattice *lat = &u->lat;
    unsigned char h[OQ_HEADER_BYTES];
    for (int k = 0; k < LAT_ND; k++) store_le32(h + 4 * k, (uint32_t)lat->L[lat_mu(k)]);
    store_le64(h + 16, double_to_bits(3.0 * measure_plaquette(u).all));
    if (fwrite(h, 1, sizeof h, f) != sizeof h) wdie(name);
    int64_t nodd = lat->V / 2;
    unsigned char *buf = lat_malloc((size_t)OQ_SITE_BYTES * OQ_CHUNK);
    for (int64_t i0 = 0; i0 < nodd; i0 += OQ_CHUNK) {
        int64_t k = nodd - i0 < OQ_CHUNK ? nodd - i0 : OQ_CHUNK;
        unsigned char *p = buf;
        for (int64_t i = i0; i < i0 + k; i++) {
            int64_t s = odd_site(lat, i);
            for (int dir = 0; dir < LAT_ND; dir++) {
                int mu = lat_mu(dir);
                const double *fwd = field_link(u, s, mu), *bwd = field_link(u, lattice_neighbour(lat, s, mu, -1), mu);
                for (int e = 0; e < OQ_MATRIX_REALS; e++, p += 8) store_le64(p, double_to_bits(fwd[e]));
                for (int e = 0; e < OQ_MATRIX_REALS; e++, p += 8) store_le64(p, double_to_bits(bwd[e]));
            }
        }
        if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf)) wdie(name);
    }
    free(buf);
}
