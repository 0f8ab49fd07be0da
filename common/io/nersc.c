/* nersc.c -- NERSC archive ("QCD archive") SU(3) configurations: reader and
 * writer behind conf.h (FORMATS.md §4); conf_nersc_label_problem (conf.h).
 *
 * Reading: an ASCII header "BEGIN_HEADER\n", "KEY = VALUE" lines (split at
 * the first '=', both sides trimmed, any key order), "END_HEADER\n", then
 * the binary data (sites x fastest, four links x,y,z,t, per link: rows 0,1
 * for DATATYPE 4D_SU3_GAUGE or 0,1,2 for 4D_SU3_GAUGE_3x3, three complex
 * columns each; or the 8 reals of 4D_SU3_GAUGE_SMALL, GLU's parametrisation:
 * Re, Im of U01, U02, U10, then arg U00, arg U20).  DIMENSION_1..4, DATATYPE
 * and CHECKSUM are required; FLOATING_POINT defaults to IEEE32BIG; bare
 * IEEE32/IEEE64 are read big-endian unless only the little-endian reading
 * matches CHECKSUM.  The data must have exactly the size the header
 * implies.  CHECKSUM (uint32 sum of the stored 32-bit words in file byte
 * order, whatever the DATATYPE: GLU sums its 8 stored reals the same way)
 * must match exactly; PLAQUETTE and LINK_TRACE, when present, must agree
 * with the data within 1e-6 (32-bit data) or 1e-10 (64-bit) plus half a
 * unit of the last digit printed.  The third row of two-row data is rebuilt
 * in double precision as conj(row0 x row1); SMALL links by su3_unpack8
 * (math/sun.h) in double, unitary with det 1 to rounding: from 64-bit data
 * the links equal the matrices GLU shortened to ~1e-14 (GLU's 4^3x8 CPS
 * file: 3.6e-14 at most, plaquette to 1e-16), the error growing as
 * eps / min(|U00|, |U20|) (math/sun.h); from 32-bit data to ~1e-7.  Header
 * keys that are not recomputed on writing (ENSEMBLE_ID, SEQUENCE_NUMBER,
 * BOUNDARY_i, CREATOR, ...) are carried in a text record "lat-nersc-header"
 * ("KEY = VALUE" lines) among c->keep.
 *
 * Writing: big-endian (IEEE32BIG / IEEE64BIG, never bare IEEE32), two rows
 * or 3x3 (never SMALL), every key of FORMATS.md §4.1's list written as
 * "KEY = VALUE", the carried keys restored, CHECKSUM in %x, PLAQUETTE and
 * LINK_TRACE of the data as stored (after rounding and row reconstruction).
 * SEQUENCE_NUMBER and ENSEMBLE_LABEL: struct conf_write_opts (conf.h) says
 * which.  Only SU(3). */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include "math/sun.h"
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#define HEADER_MAX (1 << 20)
#define MAX_KEYS 512
#define NERSC_LABEL_MAX 256 /* characters of an ENSEMBLE_LABEL lat writes */
#define NERSC_STR_(x) #x
#define NERSC_STR(x) NERSC_STR_(x)

struct kv { char *key, *val; };

struct nersc_hdr {
    struct kv kv[MAX_KEYS];
    int n;
};

static const char *hget(const struct nersc_hdr *h, const char *key)
{
    for (int i = 0; i < h->n; i++)
        if (strcmp(h->kv[i].key, key) == 0) return h->kv[i].val;
    return NULL;
}

static void hfree(struct nersc_hdr *h)
{
    for (int i = 0; i < h->n; i++) { free(h->kv[i].key); free(h->kv[i].val); }
    h->n = 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) e--;
    *e = 0;
    return s;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = lat_malloc(n);
    memcpy(d, s, n);
    return d;
}

/* one header line into buf (without '\n'); 1 ok, 0 end of input, dies on junk */
static int read_line(struct byte_in *in, char *buf, size_t n, const char *name)
{
    size_t k = 0;
    for (;;) {
        unsigned char ch;
        if (byte_in_read(in, &ch, 1) != 1) {
            if (in->err) lat_die(1, name, "read error in the NERSC header: %s", strerror(in->err));
            buf[k] = 0;
            return k ? -1 : 0;
        }
        if (ch == '\n') break;
        if (ch == 0) lat_die(1, name, "NUL byte inside the NERSC header at byte %" PRIu64 " (END_HEADER missing?)", in->pos - 1);
        if (k + 1 >= n) lat_die(1, name, "NERSC header line at byte %" PRIu64 " is too long (END_HEADER missing?)", in->pos);
        buf[k++] = (char)ch;
    }
    buf[k] = 0;
    return 1;
}

static void read_header(struct byte_in *in, struct nersc_hdr *h, const char *name)
{
    char line[4096];
    int rc = read_line(in, line, sizeof line, name);
    if (rc != 1 || strcmp(trim(line), "BEGIN_HEADER") != 0)
        lat_die(1, name, "NERSC header does not start with a BEGIN_HEADER line");
    for (;;) {
        rc = read_line(in, line, sizeof line, name);
        if (rc != 1) lat_die(1, name, "truncated: NERSC header ends at byte %" PRIu64 " without END_HEADER", in->pos);
        if (in->pos > HEADER_MAX) lat_die(1, name, "NERSC header longer than %d bytes without END_HEADER", HEADER_MAX);
        char *l = trim(line);
        if (strcmp(l, "END_HEADER") == 0) break;
        char *eq = strchr(l, '=');
        if (!eq) { lat_debug("%s: NERSC header line without '=' ignored: %s", name, l); continue; }
        *eq = 0;
        char *k = trim(l), *v = trim(eq + 1);
        if (!*k) continue;
        if (h->n >= MAX_KEYS) lat_die(1, name, "NERSC header has more than %d keys", MAX_KEYS);
        if (hget(h, k)) lat_die(1, name, "NERSC header key %s appears twice", k);
        h->kv[h->n].key = dupstr(k);
        h->kv[h->n].val = dupstr(v);
        h->n++;
    }
}

/* keys that are format or recomputed on writing: never carried */
static int recomputed_key(const char *k)
{
    static const char *const keys[] = {"HDR_VERSION", "DATATYPE", "STORAGE_FORMAT", "DIMENSION_1", "DIMENSION_2",
                                       "DIMENSION_3", "DIMENSION_4", "LINK_TRACE", "PLAQUETTE", "CHECKSUM",
                                       "FLOATING_POINT", "ARCHIVE_DATE", "SCIDAC_CHECKSUMA", "SCIDAC_CHECKSUMB", NULL};
    for (int i = 0; keys[i]; i++)
        if (strcmp(k, keys[i]) == 0) return 1;
    return 0;
}

/* allowed deviation of a printed header value: base + half its last digit */
static double header_tol(const char *s, double base)
{
    const char *dot = strchr(s, '.');
    int ndec = 0;
    if (dot)
        for (const char *p = dot + 1; isdigit((unsigned char)*p); p++) ndec++;
    const char *e = strpbrk(s, "eE");
    int ex = e ? atoi(e + 1) : 0;
    return base + 0.5 * pow(10.0, ex - ndec);
}

static double header_number(const struct nersc_hdr *h, const char *key, const char *name)
{
    const char *v = hget(h, key);
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x)) lat_die(1, name, "NERSC header %s = '%s' is not a number", key, v);
    return x;
}

/* the third row of a two-row link with -0.0 made +0.0 (x + 0.0), so that
 * exact zeros (a unit field) keep their bytes through two-row NERSC */
static void rebuild_row3(double *m)
{
    su3_rebuild_row3((lat_complex *)m);
    for (int i = 12; i < 18; i++) m[i] += 0.0;
}

/* 4D_SU3_GAUGE_SMALL: GLU's 8 reals of a link (R. Hudspith's shorten() and
 * rebuild(), src/Matrix_Ops/U_Nops.c), in su3_unpack8's order: Re, Im of
 * U01, U02, U10, then arg U00 and arg U20.  GLU makes a link whose first row
 * has no off-diagonal part (U01 = U02 = 0, below DBL_MIN in square) the unit
 * matrix, and so do we: there the 8 reals do not fix the link (only a unit
 * link has it in practice; PLAQUETTE catches any other).  An angle outside
 * [-4, 4] (never written: GLU's carg gives [-pi, pi]) is taken modulo 2 pi,
 * not as su3_unpack8's mark of its degenerate form. */
static void unpack_small(const double *p, double *m)
{
    double q[8];
    memcpy(q, p, sizeof q);
    if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < DBL_MIN) {
        sun_unit(3, (lat_complex *)m);
        return;
    }
    if (!(fabs(q[7]) <= 4)) q[7] = remainder(q[7], 2 * M_PI);
    su3_unpack8(q, (lat_complex *)m);
}

/* reals per link: 8 (SMALL), 12 (two rows) or 18 (3x3) */
static void decode_chunk(struct field *u, const unsigned char *raw, int64_t site0, int64_t nsites,
                         int reals, int prec, int big)
{
    size_t w = (size_t)(prec / 8);
    const unsigned char *p = raw;
    for (int64_t s = site0; s < site0 + nsites; s++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            double *m = field_link(u, s, mu), small[8];
            double *d = reals == 8 ? small : m;
            for (int i = 0; i < reals; i++, p += w) d[i] = load_real(p, prec, big);
            if (reals == 8) unpack_small(small, m);
            if (reals == 12) rebuild_row3(m);
        }
}

static void word_sums(const unsigned char *p, size_t n, uint32_t *be, uint32_t *le)
{
    uint32_t a = *be, b = *le;
    for (size_t i = 0; i + 4 <= n; i += 4) { a += load_be32(p + i); b += load_le32(p + i); }
    *be = a;
    *le = b;
}

void nersc_read(struct byte_in *in, struct conf *c)
{
    const char *name = c->name;
    struct nersc_hdr *h = lat_calloc(1, sizeof *h);
    read_header(in, h, name);
    static const char *const req[] = {"DATATYPE", "DIMENSION_1", "DIMENSION_2", "DIMENSION_3", "DIMENSION_4", "CHECKSUM", NULL};
    for (int i = 0; req[i]; i++)
        if (!hget(h, req[i])) lat_die(1, name, "NERSC header has no %s", req[i]);
    const char *dt = hget(h, "DATATYPE");
    int reals; /* per link */
    if (strcmp(dt, "4D_SU3_GAUGE") == 0) reals = 12;
    else if (strcmp(dt, "4D_SU3_GAUGE_3x3") == 0 || strcmp(dt, "4D_SU3_GAUGE_3X3") == 0) reals = 18;
    else if (strcmp(dt, "4D_SU3_GAUGE_SMALL") == 0) reals = 8;
    else {
        int n;
        if (sscanf(dt, "4D_SU%d_GAUGE", &n) == 1 && n != 3)
            lat_die(1, name, "NERSC DATATYPE %s: lat reads NERSC files of SU(3) only", dt);
        lat_die(1, name, "NERSC DATATYPE %s is not 4D_SU3_GAUGE, 4D_SU3_GAUGE_3x3 or 4D_SU3_GAUGE_SMALL", dt);
    }
    int L[LAT_ND];
    for (int mu = 0; mu < LAT_ND; mu++) {
        char k[16];
        snprintf(k, sizeof k, "DIMENSION_%d", mu + 1);
        const char *v = hget(h, k);
        char *end;
        errno = 0;
        long x = strtol(v, &end, 10);
        if (end == v || *end || errno || x <= 0 || x > (1 << 24)) lat_die(1, name, "NERSC header %s = '%s' is not a positive lattice extent", k, v);
        L[mu] = (int)x;
    }
    struct lattice lat;
    const char *why;
    if (lattice_init(&lat, L, &why) < 0) lat_die(1, name, "lattice %dx%dx%dx%d from the NERSC header: %s", L[0], L[1], L[2], L[3], why);
    const char *fp = hget(h, "FLOATING_POINT");
    if (!fp) fp = "IEEE32BIG";
    int prec, big, bare = 0;
    if (strcasecmp(fp, "IEEE32BIG") == 0) { prec = 32; big = 1; }
    else if (strcasecmp(fp, "IEEE64BIG") == 0) { prec = 64; big = 1; }
    else if (strcasecmp(fp, "IEEE32LITTLE") == 0) { prec = 32; big = 0; }
    else if (strcasecmp(fp, "IEEE64LITTLE") == 0) { prec = 64; big = 0; }
    else if (strcasecmp(fp, "IEEE32") == 0) { prec = 32; big = 1; bare = 1; }
    else if (strcasecmp(fp, "IEEE64") == 0) { prec = 64; big = 1; bare = 1; }
    else lat_die(1, name, "NERSC FLOATING_POINT %s is not IEEE32BIG, IEEE64BIG, IEEE32LITTLE or IEEE64LITTLE", fp);
    const char *cks = hget(h, "CHECKSUM");
    char *end;
    errno = 0;
    unsigned long long want_sum = strtoull(cks, &end, 16);
    if (end == cks || *end || errno || want_sum > 0xffffffffULL) lat_die(1, name, "NERSC CHECKSUM '%s' is not a 32-bit hex number", cks);

    /* no memory from the header alone: the field (and, for bare IEEE32/64,
     * the raw bytes kept until the byte order is known) grow as the data
     * arrives, and a regular file must hold the data before anything */
    memset(&c->u, 0, sizeof c->u);
    c->u.lat = lat;
    c->u.nc = 3;
    c->u.prec = 64;
    c->file_prec = prec;
    size_t site_bytes = (size_t)LAT_ND * (size_t)reals * (size_t)(prec / 8);
    uint64_t total = (uint64_t)lat.V * site_bytes;
    char ext[64];
    conf_extents(&lat, ext, sizeof ext);
    int64_t left = conf_input_left(in);
    if (left >= 0 && (uint64_t)left < total)
        lat_die(1, name, "truncated: NERSC data ends after %" PRId64 " of %" PRIu64 " bytes (%s %s %s)", left, total, dt, ext, fp);
    uint32_t sum_be = 0, sum_le = 0;
    int64_t chunk = 1024, cap = 0, rawcap = 0;
    unsigned char *raw = bare ? NULL : lat_malloc(site_bytes * (size_t)(chunk < lat.V ? chunk : lat.V));
    for (int64_t s0 = 0; s0 < lat.V; s0 += chunk) {
        int64_t k = lat.V - s0 < chunk ? lat.V - s0 : chunk;
        size_t want = site_bytes * (size_t)k;
        unsigned char *at = raw;
        if (bare) {
            if (s0 + k > rawcap) {
                rawcap = rawcap ? 2 * rawcap : chunk;
                if (rawcap > lat.V) rawcap = lat.V;
                raw = lat_realloc(raw, site_bytes * (size_t)rawcap);
            }
            at = raw + (size_t)s0 * site_bytes;
        }
        size_t got = byte_in_read(in, at, want);
        if (got < want) {
            if (in->err) lat_die(1, name, "read error in the NERSC data: %s", strerror(in->err));
            lat_die(1, name, "truncated: NERSC data ends after %" PRIu64 " of %" PRIu64 " bytes (%s %s %s)",
                    (uint64_t)s0 * site_bytes + got, total, dt, ext, fp);
        }
        word_sums(at, want, &sum_be, &sum_le);
        conf_field_grow(&c->u, s0 + k, &cap);
        if (!bare) decode_chunk(&c->u, raw, s0, k, reals, prec, big);
    }
    uint32_t sum = big ? sum_be : sum_le;
    if (bare) {
        if (sum_be != want_sum && sum_le == want_sum) {
            big = 0;
            sum = sum_le;
            lat_warn(name, "FLOATING_POINT %s: the data is little-endian (only that reading matches CHECKSUM)", fp);
        }
        decode_chunk(&c->u, raw, 0, lat.V, reals, prec, big);
    }
    free(raw);
    uint64_t extra = byte_in_skip(in, UINT64_MAX);
    if (in->err) lat_die(1, name, "read error after the NERSC data: %s", strerror(in->err));
    if (extra)
        lat_die(1, name, "NERSC data is %" PRIu64 " bytes longer than the %" PRIu64 " that %s %s %s needs",
                extra, total, dt, ext, fp);
    conf_check_finite(&c->u, name, "NERSC data");
    if (sum != want_sum)
        lat_die(1, name, "NERSC CHECKSUM mismatch: the header says %llx, the data gives %" PRIx32, want_sum, sum);
    snprintf(c->check.checksum, sizeof c->check.checksum, "nersc %" PRIx32, sum);
    snprintf(c->check.detail, sizeof c->check.detail, "NERSC %s %s%s", dt, fp,
             bare ? (big ? " (big-endian)" : " (little-endian)") : "");
    double base = prec == 32 ? 1e-6 : 1e-10;
    if (hget(h, "PLAQUETTE")) {
        double hp = header_number(h, "PLAQUETTE", name);
        double p = measure_plaquette(&c->u).all;
        if (fabs(p - hp) > header_tol(hget(h, "PLAQUETTE"), base))
            lat_die(1, name, "NERSC PLAQUETTE mismatch: the header says %s, the data gives %.12f", hget(h, "PLAQUETTE"), p);
        c->check.has_plaq = 1;
        c->check.plaq = hp;
    }
    if (hget(h, "LINK_TRACE")) {
        double hl = header_number(h, "LINK_TRACE", name);
        double l = measure_link_trace(&c->u);
        if (fabs(l - hl) > header_tol(hget(h, "LINK_TRACE"), base))
            lat_die(1, name, "NERSC LINK_TRACE mismatch: the header says %s, the data gives %.12f", hget(h, "LINK_TRACE"), l);
        c->check.has_linktr = 1;
        c->check.linktr = hl;
    }
    /* carry the descriptive keys */
    size_t len = 0;
    for (int i = 0; i < h->n; i++)
        if (!recomputed_key(h->kv[i].key)) len += strlen(h->kv[i].key) + strlen(h->kv[i].val) + 4;
    if (len) {
        char *t = lat_malloc(len + 1), *p = t;
        for (int i = 0; i < h->n; i++)
            if (!recomputed_key(h->kv[i].key)) p += sprintf(p, "%s = %s\n", h->kv[i].key, h->kv[i].val);
        conf_keep_add(c, LAT_REC_NERSC_HEADER, (unsigned char *)t, (uint64_t)(p - t));
        free(t);
    }
    hfree(h);
    free(h);
}

/* ---- writing ---------------------------------------------------------------- */

/* carried "KEY = VALUE" lines of a lat-nersc-header record */
static void carried_keys(const struct conf *c, struct nersc_hdr *h)
{
    const struct lime_record *r = conf_keep_find(c, LAT_REC_NERSC_HEADER);
    if (!r) return;
    char *t = lat_malloc(r->len + 1);
    memcpy(t, r->data, r->len);
    t[r->len] = 0;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        char *k = trim(line), *v = trim(eq + 1);
        if (!*k || recomputed_key(k) || hget(h, k) || h->n >= MAX_KEYS) continue;
        h->kv[h->n].key = dupstr(k);
        h->kv[h->n].val = dupstr(v);
        h->n++;
    }
    free(t);
}


static const char *carried(const struct nersc_hdr *h, const char *k, const char *dflt)
{
    const char *v = hget(h, k);
    return v ? v : dflt;
}

static void wdie(const char *name)
{
    lat_die(1, name, "write failed: %s", strerror(errno ? errno : EIO));
}

/* SEQUENCE_NUMBER (conf.h's order): asked for; else the history's sweep
 * counter when it is >= 1 (newer than a carried key: a NERSC file holds no
 * history, so every entry of one was made after the carried header was
 * read); else the carried key verbatim; else 1.  Sequence numbers lat makes
 * count from 1: some readers refuse 0, and 0 means "default" here. */
static const char *sequence_number(const struct conf *c, const struct conf_write_opts *o, const struct nersc_hdr *h,
                                   char *buf, size_t n)
{
    long long k = o->nersc_sequence;
    if (k < 0) lat_die(1, c->name, "internal error: NERSC sequence number %lld is negative", k);
    if (k == 0) k = conf_history_next_sweep(c->history);
    if (k < 1 && hget(h, "SEQUENCE_NUMBER")) return hget(h, "SEQUENCE_NUMBER");
    snprintf(buf, n, "%lld", k < 1 ? 1LL : k);
    return buf;
}

const char *conf_nersc_label_problem(const char *s)
{
    size_t n = strlen(s);
    if (n == 0) return "it is empty";
    if (n > NERSC_LABEL_MAX) return "it is longer than " NERSC_STR(NERSC_LABEL_MAX) " characters";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return "it holds a character that is not printable ASCII (a newline, tab, control or non-ASCII byte)";
    if (s[0] == ' ' || s[n - 1] == ' ') return "it begins or ends with a blank (readers trim them)";
    return NULL;
}

void nersc_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec)
{
    const struct field *u = &c->u;
    int rows = o->nersc_3x3 ? 3 : 2;
    const char *why = o->nersc_ensemble_label ? conf_nersc_label_problem(o->nersc_ensemble_label) : NULL;
    if (why) lat_die(1, name, "NERSC ENSEMBLE_LABEL refused: %s", why);
    if (u->nc != 3) lat_die(1, name, "a NERSC file holds SU(3) only; this configuration is SU(%d) (write ILDG instead)", u->nc);
    conf_warn_lost(c, name, "a NERSC file", LAT_REC_NERSC_HEADER);
    /* the data as a reader will see it: rounded, third row rebuilt */
    struct field st;
    const struct field *m = u;
    if (prec == 32 || rows == 2) {
        field_copy(&st, u);
        for (int64_t s = 0; s < u->lat.V; s++)
            for (int mu = 0; mu < LAT_ND; mu++) {
                double *d = field_link(&st, s, mu);
                if (prec == 32)
                    for (int i = 0; i < 18; i++) d[i] = (float)d[i];
                if (rows == 2) rebuild_row3(d);
            }
        m = &st;
    }
    double plaq = measure_plaquette(m).all, linktr = measure_link_trace(m);
    if (m == &st) field_free(&st);
    uint32_t sum = 0;
    for (int64_t s = 0; s < u->lat.V; s++)
        for (int mu = 0; mu < LAT_ND; mu++) {
            const double *d = field_link(u, s, mu);
            for (int i = 0; i < rows * 6; i++) {
                if (prec == 64) {
                    uint64_t b = double_to_bits(d[i]);
                    sum += (uint32_t)(b >> 32) + (uint32_t)b;
                } else
                    sum += float_to_bits((float)d[i]);
            }
        }
    struct nersc_hdr *h = lat_calloc(1, sizeof *h);
    carried_keys(c, h);
    char date[64];
    time_t now = conf_now();
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a %b %e %H:%M:%S %Y", &tm);
    struct utsname un;
    const char *hw = uname(&un) == 0 ? un.machine : "unknown";
    const char *fmt = prec == 64 ? "%.14f" : "%.10f";
    char pl[64], lt[64];
    snprintf(pl, sizeof pl, fmt, plaq);
    snprintf(lt, sizeof lt, fmt, linktr);
    char seq[32];
    const char *label = o->nersc_ensemble_label ? o->nersc_ensemble_label : carried(h, "ENSEMBLE_LABEL", "lat");
#define CARRIED(k, dflt) carried(h, k, dflt)
    int n = fprintf(f, "BEGIN_HEADER\nHDR_VERSION = 1.0\nDATATYPE = %s\nSTORAGE_FORMAT = 1.0\n",
                    rows == 3 ? "4D_SU3_GAUGE_3x3" : "4D_SU3_GAUGE");
    for (int mu = 0; mu < LAT_ND && n >= 0; mu++) n = fprintf(f, "DIMENSION_%d = %d\n", mu + 1, u->lat.L[mu]);
    if (n >= 0) n = fprintf(f, "LINK_TRACE = %s\nPLAQUETTE = %s\n", lt, pl);
    for (int mu = 0; mu < LAT_ND && n >= 0; mu++) {
        char k[16];
        snprintf(k, sizeof k, "BOUNDARY_%d", mu + 1);
        n = fprintf(f, "%s = %s\n", k, CARRIED(k, "PERIODIC"));
    }
    if (n >= 0)
        n = fprintf(f, "CHECKSUM = %" PRIx32 "\nENSEMBLE_ID = %s\nENSEMBLE_LABEL = %s\nSEQUENCE_NUMBER = %s\n"
                    "CREATOR = %s\nCREATOR_HARDWARE = %s\nCREATION_DATE = %s\nARCHIVE_DATE = %s\nFLOATING_POINT = %s\n",
                    sum, CARRIED("ENSEMBLE_ID", "lat"), label, sequence_number(c, o, h, seq, sizeof seq),
                    CARRIED("CREATOR", "lat"), CARRIED("CREATOR_HARDWARE", hw), CARRIED("CREATION_DATE", date), date,
                    prec == 64 ? "IEEE64BIG" : "IEEE32BIG");
    static const char *const mine[] = {"BOUNDARY_1", "BOUNDARY_2", "BOUNDARY_3", "BOUNDARY_4", "ENSEMBLE_ID",
                                       "ENSEMBLE_LABEL", "SEQUENCE_NUMBER", "CREATOR", "CREATOR_HARDWARE",
                                       "CREATION_DATE", NULL};
    for (int i = 0; i < h->n && n >= 0; i++) {
        int known = 0;
        for (int j = 0; mine[j]; j++) known |= strcmp(h->kv[i].key, mine[j]) == 0;
        if (!known) n = fprintf(f, "%s = %s\n", h->kv[i].key, h->kv[i].val);
    }
#undef CARRIED
    if (n >= 0) n = fprintf(f, "END_HEADER\n");
    hfree(h);
    free(h);
    if (n < 0) wdie(name);
    size_t w = (size_t)(prec / 8);
    size_t site_bytes = (size_t)LAT_ND * rows * 6 * w;
    enum { CH = 512 };
    unsigned char *buf = lat_malloc(site_bytes * CH);
    for (int64_t s0 = 0; s0 < u->lat.V; s0 += CH) {
        int64_t k = u->lat.V - s0 < CH ? u->lat.V - s0 : CH;
        unsigned char *p = buf;
        for (int64_t s = s0; s < s0 + k; s++)
            for (int mu = 0; mu < LAT_ND; mu++) {
                const double *d = field_link(u, s, mu);
                for (int i = 0; i < rows * 6; i++, p += w) store_real_be(p, d[i], prec);
            }
        if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf)) wdie(name);
    }
    free(buf);
}
