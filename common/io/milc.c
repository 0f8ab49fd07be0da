/* milc.c -- MILC binary gauge configurations, version 5 ("natural order"):
 * detection, reader and writer behind conf.h (FORMATS.md §5).  Exports
 * milc_detect, milc_read and milc_write (confio.h).
 *
 * Layout: a 96-byte header of 32-bit words and bytes in the writer's byte
 * order -- magic 20103, nx ny nz nt, a 64-byte NUL-padded time stamp, the
 * site order (0 = natural), sum29, sum31 -- then float32 data: sites x
 * fastest ... t slowest, four links x,y,z,t per site, each 3x3 complex
 * row-major (re, im): 288 bytes a site.
 *
 * GLU (R. Hudspith's gauge fixing code) built in double precision writes
 * the same layout with magic 20104 and float64 data (576 bytes a site),
 * big-endian, its checksum taken over one word per double, the sum of its
 * two 32-bit halves; lat reads that variant too and never writes it.
 *
 * Detection: magic 20103 or 20104 in the first 4 bytes, either way round.
 *
 * Reading: the byte order is the one in which the magic reads right (every
 * word is then read that way).  The extents pass lattice_init before
 * anything is allocated; a regular file must hold exactly 96 + 288 V bytes
 * (576 V for 20104; a pipe is read to its end: shorter is "truncated",
 * longer is refused too); only order 0 is read (the checkpoint/site-list
 * order is refused).  The field grows as the data arrive
 * (conf_field_grow).  The checksum -- over the data words w_k (k = 0, 1,
 * ... in file order, as numbers), sum29 ^= rotl32(w_k, k % 29),
 * sum31 ^= rotl32(w_k, k % 31) -- must match the header exactly, then
 * every number must be finite.  c->file_prec is 32 (64 for 20104);
 * c->check.detail says "MILC v5 little-endian" or "... big-endian" (or
 * "GLU MILC 64-bit ...") and the time stamp, sanitised and cut to fit
 * (MILC's stamp is 24 characters, ctime without the newline);
 * c->check.checksum is "milc 29/31 <sum29> <sum31>" in MILC's unpadded hex.
 *   The companion "<file>.info" that MILC writes beside a configuration is
 * consulted when the input is a regular file and it exists: if its
 * "checksums" are the file's, its gauge.ssplaq and gauge.stplaq (Re Tr
 * averages, max 3) give the plaquette (ss + st)/6 and gauge.nersc_linktr
 * the link trace; values that agree with the data within 2e-6 (MILC prints
 * six decimals of single-precision data) are reported as the file's
 * (c->check.has_plaq, has_linktr), others draw a warning.  An .info of
 * another file, or one without checksums, is ignored with a warning.
 *
 * Writing: SU(3) only, single precision always (an explicit request for 64
 * bits, o->prec == 64, is refused), little-endian (as MILC writes on the
 * machines of today), order 0, the time stamp conf_now() in UTC as MILC's
 * ctime-style "Thu Feb 12 13:40:21 1998", the checksums over the words as
 * stored.  No .info is written (conf_write has one atomic output; MILC's
 * readers do not need it).  The history, the tracked transform and the
 * carried records have no place in the file: one warning names them. */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MILC_MAGIC 20103u
#define MILC_MAGIC_GLU64 20104u /* GLU's double-precision variant */
#define MILC_STAMP_BYTES 64
#define MILC_HEADER_BYTES (4 * 5 + MILC_STAMP_BYTES + 4 * 3)    /* 96 */
#define MILC_LINK_REALS 18                                     /* 3x3 complex */
#define MILC_SITE_REALS (LAT_ND * MILC_LINK_REALS)
#define MILC_SITE_BYTES (MILC_SITE_REALS * 4)                   /* 288 */
#define MILC_CHUNK_SITES 1024
#define MILC_INFO_MAX (1 << 20)

static int is_magic(uint32_t m) { return m == MILC_MAGIC || m == MILC_MAGIC_GLU64; }

int milc_detect(const unsigned char *pre, size_t n)
{
    return n >= 4 && (is_magic(load_le32(pre)) || is_magic(load_be32(pre)));
}

static uint32_t load_word(const unsigned char *p, int big) { return big ? load_be32(p) : load_le32(p); }

/* The MILC checksum is the SciDAC rotation sum with each data word in
 * place of a site's CRC and the word's index in place of the site's; in
 * GLU's 64-bit files a word is a double, counted as the sum of its halves. */
static void sum_words(struct scidac_sum *s, uint64_t k0, const unsigned char *p, size_t nreals, int prec, int big)
{
    for (size_t i = 0; i < nreals; i++) {
        uint32_t w = prec == 32 ? load_word(p + 4 * i, big)
                                : load_word(p + 8 * i, big) + load_word(p + 8 * i + 4, big);
        scidac_sum_site(s, k0 + i, w);
    }
}

/* ---- the companion .info file ---------------------------------------------- */

/* the value of "key value" or "key = value" (quotes removed) in an .info
 * text, or NULL; buf holds the copy */
static const char *info_get(const char *text, const char *key, char *buf, size_t n)
{
    size_t kl = strlen(key);
    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        if (strncmp(l, key, kl) != 0 || (l[kl] != ' ' && l[kl] != '\t' && l[kl] != '=')) continue;
        const char *v = l + kl;
        while (*v == ' ' || *v == '\t') v++;
        if (*v == '=') v++;
        while (*v == ' ' || *v == '\t') v++;
        size_t len = strcspn(v, "\n");
        while (len && (v[len - 1] == ' ' || v[len - 1] == '\t' || v[len - 1] == '\r')) len--;
        if (len >= 2 && v[0] == '"' && v[len - 1] == '"') { v++; len -= 2; }
        if (len >= n) len = n - 1;
        memcpy(buf, v, len);
        buf[len] = 0;
        return buf;
    }
    return NULL;
}

static int info_number(const char *text, const char *key, double *x)
{
    char buf[64], *end;
    const char *v = info_get(text, key, buf, sizeof buf);
    if (!v) return 0;
    *x = strtod(v, &end);
    return end != v && !*end && isfinite(*x);
}

static void read_info(const struct byte_in *in, struct conf *c, struct scidac_sum sum)
{
    struct stat st;
    if (in->f == stdin || fstat(fileno(in->f), &st) != 0 || !S_ISREG(st.st_mode)) return; /* c->name is no path then */
    size_t pl = strlen(c->name);
    char *path = lat_malloc(pl + 6);
    memcpy(path, c->name, pl);
    memcpy(path + pl, ".info", 6);
    FILE *f = fopen(path, "rb");
    if (!f) { free(path); return; }
    char *text = lat_malloc(MILC_INFO_MAX + 1);
    size_t n = fread(text, 1, MILC_INFO_MAX, f);
    int bad = ferror(f) || n == 0 || memchr(text, 0, n) != NULL;
    fclose(f);
    text[n] = 0;
    char buf[64];
    const char *cks = bad ? NULL : info_get(text, "checksums", buf, sizeof buf);
    unsigned long a, b;
    int nch = 0;
    if (bad) lat_warn(path, "not a MILC .info text (unreadable, empty or binary): ignored");
    else if (!cks || sscanf(cks, "%lx %lx%n", &a, &b, &nch) != 2 || cks[nch])
        lat_warn(path, "no \"checksums\" line: cannot tell it belongs to %s; ignored", c->name);
    else if (a != sum.a || b != sum.b)
        lat_warn(path, "its checksums %lx %lx are not those of %s (%" PRIx32 " %" PRIx32 "): ignored", a, b, c->name,
                 sum.a, sum.b);
    else {
        double ss, stp, lt;
        const double tol = 2e-6;
        if (info_number(text, "gauge.ssplaq", &ss) && info_number(text, "gauge.stplaq", &stp)) {
            double stated = (ss + stp) / 6, p = measure_plaquette(&c->u).all;
            if (fabs(p - stated) <= tol) { c->check.has_plaq = 1; c->check.plaq = stated; }
            else lat_warn(path, "gauge.ssplaq and gauge.stplaq give the plaquette %.7f, the data %.10f: not used", stated, p);
        }
        if (info_number(text, "gauge.nersc_linktr", &lt)) {
            double l = measure_link_trace(&c->u);
            if (fabs(l - lt) <= tol) { c->check.has_linktr = 1; c->check.linktr = lt; }
            else lat_warn(path, "gauge.nersc_linktr is %.7f, the data gives %.10f: not used", lt, l);
        }
    }
    free(text);
    free(path);
}

/* ---- reading ----------------------------------------------------------------- */

void milc_read(struct byte_in *in, struct conf *c)
{
    const char *name = c->name;
    unsigned char h[MILC_HEADER_BYTES];
    size_t got = byte_in_read(in, h, sizeof h);
    if (got < sizeof h) {
        if (in->err) lat_die(1, name, "read error in the MILC header: %s", strerror(in->err));
        lat_die(1, name, "truncated: the MILC header ends after %zu of %d bytes", got, MILC_HEADER_BYTES);
    }
    int big = is_magic(load_be32(h));
    int prec = load_word(h, big) == MILC_MAGIC_GLU64 ? 64 : 32;
    const char *order_name = big ? "big-endian" : "little-endian";
    const char *what = prec == 32 ? "SU(3) single precision" : "SU(3) double precision (GLU's magic 20104)";
    int L[LAT_ND];
    for (int mu = 0; mu < LAT_ND; mu++) {
        int32_t x = (int32_t)load_word(h + 4 + 4 * mu, big);
        if (x <= 0 || x > (1 << 24))
            lat_die(1, name, "MILC header (%s): %c extent %" PRId32 " is not a positive lattice extent", order_name, "xyzt"[mu], x);
        L[mu] = (int)x;
    }
    struct lattice lat;
    const char *why;
    if (lattice_init(&lat, L, &why) < 0)
        lat_die(1, name, "lattice %dx%dx%dx%d from the MILC header: %s", L[0], L[1], L[2], L[3], why);
    char stamp[MILC_STAMP_BYTES + 1];
    memcpy(stamp, h + 20, MILC_STAMP_BYTES);
    stamp[MILC_STAMP_BYTES] = 0;
    int32_t order = (int32_t)load_word(h + 20 + MILC_STAMP_BYTES, big);
    if (order != 0)
        lat_die(1, name, "MILC checkpoint/site-list order (order %" PRId32 ") not supported: lat reads natural order (0) only",
                order);
    struct scidac_sum want = {load_word(h + 24 + MILC_STAMP_BYTES, big), load_word(h + 28 + MILC_STAMP_BYTES, big)};

    /* nothing large before the data: a regular file must hold exactly it,
     * and the field grows as the data arrive */
    char ext[64];
    conf_extents(&lat, ext, sizeof ext);
    size_t site_bytes = (size_t)MILC_SITE_REALS * (size_t)(prec / 8);
    uint64_t total = (uint64_t)lat.V * site_bytes;
    int64_t left = conf_input_left(in);
    if (left >= 0 && (uint64_t)left < total)
        lat_die(1, name, "truncated: MILC data ends after %" PRId64 " of %" PRIu64 " bytes (%s %s)", left, total, ext, what);
    if (left >= 0 && (uint64_t)left > total)
        lat_die(1, name, "MILC data is %" PRIu64 " bytes longer than the %" PRIu64 " that %s %s needs", (uint64_t)left - total,
                total, ext, what);
    memset(&c->u, 0, sizeof c->u);
    c->u.lat = lat;
    c->u.nc = 3;
    c->u.prec = 64;
    c->file_prec = prec;
    int64_t cap = 0;
    int64_t chunk = lat.V < MILC_CHUNK_SITES ? lat.V : MILC_CHUNK_SITES;
    unsigned char *raw = lat_malloc((size_t)chunk * site_bytes);
    struct scidac_sum sum = {0, 0};
    for (int64_t s0 = 0; s0 < lat.V; s0 += chunk) {
        int64_t k = lat.V - s0 < chunk ? lat.V - s0 : chunk;
        size_t want_bytes = (size_t)k * site_bytes;
        got = byte_in_read(in, raw, want_bytes);
        if (got < want_bytes) {
            if (in->err) lat_die(1, name, "read error in the MILC data: %s", strerror(in->err));
            lat_die(1, name, "truncated: MILC data ends after %" PRIu64 " of %" PRIu64 " bytes (%s %s)",
                    (uint64_t)s0 * site_bytes + got, total, ext, what);
        }
        sum_words(&sum, (uint64_t)s0 * MILC_SITE_REALS, raw, (size_t)k * MILC_SITE_REALS, prec, big);
        conf_field_grow(&c->u, s0 + k, &cap);
        const unsigned char *p = raw;
        for (int64_t s = s0; s < s0 + k; s++)
            for (int mu = 0; mu < LAT_ND; mu++) {
                double *m = field_link(&c->u, s, mu);
                for (int i = 0; i < MILC_LINK_REALS; i++, p += prec / 8) m[i] = load_real(p, prec, big);
            }
    }
    free(raw);
    uint64_t extra = byte_in_skip(in, UINT64_MAX);
    if (in->err) lat_die(1, name, "read error after the MILC data: %s", strerror(in->err));
    if (extra) lat_die(1, name, "MILC data is %" PRIu64 " bytes longer than the %" PRIu64 " that %s %s needs", extra, total, ext, what);
    if (sum.a != want.a || sum.b != want.b)
        lat_die(1, name, "MILC checksum mismatch: the header says sum29 %" PRIx32 " sum31 %" PRIx32 ", the data gives %" PRIx32
                " %" PRIx32, want.a, want.b, sum.a, sum.b);
    conf_check_finite(&c->u, name, "MILC data");
    snprintf(c->check.checksum, sizeof c->check.checksum, "milc 29/31 %" PRIx32 " %" PRIx32, sum.a, sum.b);
    int dl = snprintf(c->check.detail, sizeof c->check.detail, "%s %s", prec == 32 ? "MILC v5" : "GLU MILC 64-bit", order_name);
    if (stamp[0] && dl + 4 < (int)sizeof c->check.detail) {
        /* "(stamp)": the stamp made safe and cut to what fits */
        c->check.detail[dl++] = ' ';
        c->check.detail[dl++] = '(';
        size_t sl = lat_sanitize(c->check.detail + dl, sizeof c->check.detail - (size_t)dl - 1, stamp);
        snprintf(c->check.detail + dl + sl, sizeof c->check.detail - (size_t)dl - sl, ")");
    }
    read_info(in, c, sum);
}

/* ---- writing ----------------------------------------------------------------- */


/* little-endian store (bytes.h has the big-endian ones only) */
static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24);
}

static void wdie(const char *name) { lat_die(1, name, "write failed: %s", strerror(errno ? errno : EIO)); }

/* sites [s0, s0 + k) as stored: float32 little-endian */
static void encode_sites(const struct field *u, int64_t s0, int64_t k, unsigned char *buf, const char *name)
{
    unsigned char *p = buf;
    for (int64_t s = s0; s < s0 + k; s++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            const double *d = field_link(u, s, mu);
            for (int i = 0; i < MILC_LINK_REALS; i++, p += 4) {
                float x = (float)d[i];
                if (!isfinite(x))
                    lat_die(1, name, "a link element (%g at site %" PRId64 ", direction %c) is beyond single precision: "
                            "MILC files are single precision", d[i], s, "xyzt"[mu]);
                put_le32(p, float_to_bits(x));
            }
        }
}

void milc_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec)
{
    (void)prec; /* always 32: MILC v5 has no other */
    const struct field *u = &c->u;
    if (u->nc != 3) lat_die(1, name, "a MILC file holds SU(3) only; this configuration is SU(%d) (write ILDG instead)", u->nc);
    if (o && o->prec == 64) lat_die(1, name, "MILC v5 files are single precision: 64-bit output cannot be written (write ILDG or NERSC)");
    conf_warn_lost(c, name, "a MILC file", NULL);
    int64_t chunk = u->lat.V < MILC_CHUNK_SITES ? u->lat.V : MILC_CHUNK_SITES;
    unsigned char *buf = lat_malloc((size_t)chunk * MILC_SITE_BYTES);
    /* the checksum goes before the data: one pass to sum, one to write */
    struct scidac_sum sum = {0, 0};
    for (int64_t s0 = 0; s0 < u->lat.V; s0 += chunk) {
        int64_t k = u->lat.V - s0 < chunk ? u->lat.V - s0 : chunk;
        encode_sites(u, s0, k, buf, name);
        sum_words(&sum, (uint64_t)s0 * MILC_SITE_REALS, buf, (size_t)k * MILC_SITE_REALS, 32, 0);
    }
    unsigned char h[MILC_HEADER_BYTES];
    memset(h, 0, sizeof h);
    put_le32(h, MILC_MAGIC);
    for (int mu = 0; mu < LAT_ND; mu++) put_le32(h + 4 + 4 * mu, (uint32_t)u->lat.L[mu]);
    time_t now = conf_now();
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime((char *)h + 20, MILC_STAMP_BYTES, "%a %b %e %H:%M:%S %Y", &tm);
    put_le32(h + 20 + MILC_STAMP_BYTES, 0); /* natural order */
    put_le32(h + 24 + MILC_STAMP_BYTES, sum.a);
    put_le32(h + 28 + MILC_STAMP_BYTES, sum.b);
    if (fwrite(h, 1, sizeof h, f) != sizeof h) wdie(name);
    for (int64_t s0 = 0; s0 < u->lat.V; s0 += chunk) {
        int64_t k = u->lat.V - s0 < chunk ? u->lat.V - s0 : chunk;
        encode_sites(u, s0, k, buf, name);
        if (fwrite(buf, 1, (size_t)k * MILC_SITE_BYTES, f) != (size_t)k * MILC_SITE_BYTES) wdie(name);
    }
    free(buf);
}
