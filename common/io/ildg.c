/* ildg.c -- ILDG/SciDAC configuration files (LIME container): reader and
 * writer behind conf.h and the SciDAC checksum (the XML reader is xml.c); see
 * confio.h for the contract and FORMATS.md §2-3 for the rules.
 *
 * Reading accepts the records in any order.  ildg-format gives the field
 * (su3gauge, or suNgauge for other N: lat's extension, N also in <field>),
 * precision and extents; ildg-binary-data must then have exactly
 * V * 4 * 2N^2 * prec/8 bytes; scidac-checksum, when present, must match;
 * every number must be finite.  Records lat does not rewrite go to c->keep
 * unchanged (scidac-file-xml, scidac-record-xml and ildg-data-lfn among
 * them: the writer puts them back in their slots); the SciDAC private
 * records, ildg-format and scidac-checksum are regenerated on writing;
 * lat-history and lat-gauge-transform are decoded into c.
 *
 * Writing produces the MILC/QIO record layout (FORMATS.md §2.1):
 *   msg 1: scidac-private-file-xml (MB), scidac-file-xml (ME)
 *   msg 2: scidac-private-record-xml (MB), scidac-record-xml, ildg-format,
 *          ildg-data-lfn, ildg-binary-data, scidac-checksum (ME)
 *   then each carried record, lat-history and lat-gauge-transform as
 *   one-record messages.
 * XML records end with a NUL byte as QIO writes them.  scidac-record-xml is
 * a usqcdInfo with the plaquette and link trace of the field written (an
 * input usqcdInfo is rewritten with fresh values, any other content is
 * carried unchanged). */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- CRC-32 and the SciDAC checksum ------------------------------------- */

static uint32_t crc_table[8][256];
static int crc_ready;

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[0][n] = c;
    }
    for (int t = 1; t < 8; t++)
        for (uint32_t n = 0; n < 256; n++)
            crc_table[t][n] = crc_table[0][crc_table[t - 1][n] & 0xff] ^ (crc_table[t - 1][n] >> 8);
    crc_ready = 1;
}

uint32_t lat_crc32(uint32_t crc, const void *buf, size_t n)
{
    if (!crc_ready) crc_init();
    const unsigned char *p = buf;
    uint32_t c = ~crc;
    while (n >= 8) { /* slicing by 8 */
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
            crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
            crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

static size_t site_bytes(int nc, int prec) { return (size_t)LAT_ND * field_link_reals(nc) * (size_t)(prec / 8); }

void ildg_encode_site(const struct field *u, int64_t site, int prec, unsigned char *buf)
{
    size_t n = LAT_ND * field_link_reals(u->nc);
    const double *d = field_link(u, site, 0);
    for (size_t i = 0; i < n; i++) store_real_be(buf + i * (size_t)(prec / 8), d[i], prec);
}

struct scidac_sum scidac_checksum_field(const struct field *u, int prec)
{
    struct scidac_sum s = {0, 0};
    size_t sb = site_bytes(u->nc, prec);
    unsigned char *buf = lat_malloc(sb);
    for (int64_t x = 0; x < u->lat.V; x++) {
        ildg_encode_site(u, x, prec, buf);
        scidac_sum_site(&s, (uint64_t)x, lat_crc32(0, buf, sb));
    }
    free(buf);
    return s;
}

static char *strfmt(const char *fmt, ...) LAT_PRINTF(1, 2);
static char *strfmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = lat_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* payload as a C string without trailing NULs (they are QIO's terminator) */
static void strip_nuls(unsigned char *p, uint64_t *len)
{
    while (*len && p[*len - 1] == 0) (*len)--;
    p[*len] = 0;
}

/* ---- reading -------------------------------------------------------------- */

#define XML_MAX (UINT64_C(64) << 20)
#define KEEP_MAX (UINT64_C(1) << 34)

struct ildg_in {
    struct conf *c;
    const char *name;
    struct lime_reader r;
    int have_format;
    int nc, prec;
    int L[LAT_ND];
    int have_binary, nbinary;
    unsigned char *raw_binary;   /* binary record read before ildg-format */
    uint64_t raw_len;
    int have_sum;
    struct scidac_sum file_sum, data_sum;
    unsigned char *raw_transform;
    uint64_t transform_len;
    int ndup;
    char dup_types[160];
};

static LAT_NORETURN void rdie(struct ildg_in *s, const char *fmt, ...) LAT_PRINTF(2, 3);
static void rdie(struct ildg_in *s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lat_die(1, s->name, "%s", msg);
}

static const char *prec_word(int prec) { return prec == 64 ? "double" : "single"; }

/* decimal digits only (no sign, blank or other base), 1 .. 2^24 */
static int parse_posint(const char *s, int *v)
{
    long x = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        x = x * 10 + (*s - '0');
        if (x > (1 << 24)) return -1;
    }
    if (x <= 0) return -1;
    *v = (int)x;
    return 0;
}

/* a required element of an ILDG/SciDAC record: found exactly once */
static void need_field(struct ildg_in *s, const char *rec, const char *xml, const char *name, char *out, size_t n)
{
    char err[200];
    int rc = xml_field(xml, name, out, n, err, sizeof err);
    if (rc < 0) rdie(s, "%s record: %s", rec, err);
    if (rc == 0 || !out[0]) rdie(s, "%s record has no <%s> element", rec, name);
}

static void parse_format(struct ildg_in *s, const char *xml)
{
    char field[64], prec[64], v[64];
    static const char *dims[LAT_ND] = {"lx", "ly", "lz", "lt"};
    need_field(s, "ildg-format", xml, "field", field, sizeof field);
    int nc = 0;
    if (strcmp(field, "su3gauge") == 0) nc = 3;
    else {
        char tail[16];
        if (sscanf(field, "su%d%15s", &nc, tail) != 2 || strcmp(tail, "gauge") != 0) nc = 0;
    }
    if (nc < 2 || nc > LAT_NC_MAX)
        rdie(s, "ildg-format field '%s' is not a gauge field lat reads (su3gauge, or suNgauge with N from 2 to %d)",
             field, LAT_NC_MAX);
    need_field(s, "ildg-format", xml, "precision", prec, sizeof prec);
    if (strcmp(prec, "32") != 0 && strcmp(prec, "64") != 0)
        rdie(s, "ildg-format precision '%s' is not 32 or 64", prec);
    for (int mu = 0; mu < LAT_ND; mu++) {
        need_field(s, "ildg-format", xml, dims[mu], v, sizeof v);
        if (parse_posint(v, &s->L[mu]) < 0) rdie(s, "ildg-format <%s> '%s' is not a positive lattice extent", dims[mu], v);
    }
    const char *why;
    struct lattice lat;
    if (lattice_init(&lat, s->L, &why) < 0)
        rdie(s, "lattice %dx%dx%dx%d from ildg-format: %s", s->L[0], s->L[1], s->L[2], s->L[3], why);
    s->nc = nc;
    s->prec = prec[0] == '3' ? 32 : 64;
    s->have_format = 1;
    /* no memory yet: the field grows as the binary record's data arrives */
    struct field *u = &s->c->u;
    memset(u, 0, sizeof *u);
    u->lat = lat;
    u->nc = nc;
    u->prec = 64;
    s->c->file_prec = s->prec;
}

/* the record has the size of the lattice, and (a regular file) the file
 * holds it: checked before any memory is reserved for the data */
static void check_binary_size(struct ildg_in *s, uint64_t len, int unread)
{
    uint64_t want = (uint64_t)s->c->u.lat.V * site_bytes(s->nc, s->prec);
    int64_t left = unread ? conf_input_left(s->r.in) : -1;
    if (len == want && left >= 0 && (uint64_t)left < len)
        rdie(s, "truncated: payload of LIME record 'ildg-binary-data' (header at byte %" PRIu64 ") ends after %" PRId64
             " of %" PRIu64 " bytes", s->r.hdr.offset, left, len);
    if (len != want) {
        char ext[64];
        conf_extents(&s->c->u.lat, ext, sizeof ext);
        rdie(s, "ildg-binary-data record is %" PRIu64 " bytes, expected %" PRIu64 " for %s SU(%d) %s",
             len, want, ext, s->nc, prec_word(s->prec));
    }
}

/* decode one site (big-endian, file precision) into the field, checksum it */
static void decode_site(struct ildg_in *s, int64_t site, const unsigned char *buf, size_t sb)
{
    size_t n = LAT_ND * field_link_reals(s->nc);
    double *d = field_link(&s->c->u, site, 0);
    size_t w = (size_t)(s->prec / 8);
    for (size_t i = 0; i < n; i++) d[i] = load_real(buf + i * w, s->prec, 1);
    scidac_sum_site(&s->data_sum, (uint64_t)site, lat_crc32(0, buf, sb));
}

#define CHUNK_SITES 256

static void read_binary_stream(struct ildg_in *s)
{
    check_binary_size(s, s->r.hdr.len, 1);
    size_t sb = site_bytes(s->nc, s->prec);
    unsigned char *buf = lat_malloc(sb * CHUNK_SITES);
    int64_t V = s->c->u.lat.V, cap = 0;
    for (int64_t x0 = 0; x0 < V; x0 += CHUNK_SITES) {
        int64_t k = V - x0 < CHUNK_SITES ? V - x0 : CHUNK_SITES;
        if (lime_read(&s->r, buf, sb * (size_t)k) < 0) { free(buf); rdie(s, "%s", s->r.err); }
        conf_field_grow(&s->c->u, x0 + k, &cap);
        for (int64_t i = 0; i < k; i++) decode_site(s, x0 + i, buf + (size_t)i * sb, sb);
    }
    free(buf);
}

static void decode_binary_buffered(struct ildg_in *s)
{
    check_binary_size(s, s->raw_len, 0);
    size_t sb = site_bytes(s->nc, s->prec);
    int64_t cap = 0;
    conf_field_grow(&s->c->u, s->c->u.lat.V, &cap); /* the data is there: raw_binary */
    for (int64_t x = 0; x < s->c->u.lat.V; x++) decode_site(s, x, s->raw_binary + (size_t)x * sb, sb);
    free(s->raw_binary);
    s->raw_binary = NULL;
}

/* 1 to 8 hex digits, nothing else */
static int parse_hex32(const char *t, uint32_t *v)
{
    size_t n = strlen(t);
    if (n < 1 || n > 8 || strspn(t, "0123456789abcdefABCDEF") != n) return -1;
    *v = (uint32_t)strtoul(t, NULL, 16);
    return 0;
}

static void parse_checksum(struct ildg_in *s, const char *xml)
{
    char a[64], b[64];
    need_field(s, "scidac-checksum", xml, "suma", a, sizeof a);
    need_field(s, "scidac-checksum", xml, "sumb", b, sizeof b);
    uint32_t va, vb;
    if (parse_hex32(a, &va) < 0 || parse_hex32(b, &vb) < 0)
        rdie(s, "scidac-checksum record: suma '%s' / sumb '%s' are not 32-bit hex numbers", a, b);
    s->file_sum.a = va;
    s->file_sum.b = vb;
    s->have_sum = 1;
}

static void note_dup(struct ildg_in *s, const char *type)
{
    s->ndup++;
    if (!strstr(s->dup_types, type) && strlen(s->dup_types) + strlen(type) + 3 < sizeof s->dup_types) {
        if (s->dup_types[0]) strcat(s->dup_types, ", ");
        strcat(s->dup_types, type);
    }
}

/* records carried in a slot of their own: only the first of each is kept */
static int is_slotted(const char *t)
{
    return strcmp(t, "scidac-file-xml") == 0 || strcmp(t, "scidac-record-xml") == 0 || strcmp(t, "ildg-data-lfn") == 0;
}

static void read_xml(struct ildg_in *s, unsigned char **p, uint64_t *len)
{
    *len = s->r.hdr.len;
    if (lime_read_all(&s->r, p, XML_MAX) < 0) rdie(s, "%s", s->r.err);
    strip_nuls(*p, len);
}

void ildg_read(struct byte_in *in, struct conf *c)
{
    struct ildg_in st;
    struct ildg_in *s = &st;
    memset(s, 0, sizeof *s);
    s->c = c;
    s->name = c->name;
    lime_reader_init(&s->r, in);
    int rc;
    while ((rc = lime_next(&s->r)) > 0) {
        const char *t = s->r.hdr.type;
        unsigned char *p;
        uint64_t len;
        if (strcmp(t, "ildg-format") == 0) {
            if (s->have_format) { note_dup(s, t); continue; }
            read_xml(s, &p, &len);
            parse_format(s, (char *)p);
            free(p);
            if (s->raw_binary) decode_binary_buffered(s);
        } else if (strcmp(t, "ildg-binary-data") == 0) {
            s->nbinary++;
            if (s->have_binary) { note_dup(s, t); continue; }
            s->have_binary = 1;
            if (s->have_format && c->deferred.on) { /* the ranks read it (dist.c) */
                check_binary_size(s, s->r.hdr.len, 1); /* the file holds it: now rank 0's copy */
                field_alloc(&c->u, &c->u.lat, s->nc, 64);
                c->deferred.on = 1;
                c->deferred.offset = s->r.in->pos;
                c->deferred.prec = s->prec;
            } else if (s->have_format) read_binary_stream(s);
            else {
                s->raw_len = s->r.hdr.len;
                if (lime_read_all(&s->r, &s->raw_binary, KEEP_MAX) < 0) rdie(s, "%s", s->r.err);
            }
        } else if (strcmp(t, "scidac-checksum") == 0) {
            if (s->have_sum) { note_dup(s, t); continue; }
            read_xml(s, &p, &len);
            parse_checksum(s, (char *)p);
            free(p);
        } else if (strcmp(t, "scidac-private-file-xml") == 0 || strcmp(t, "scidac-private-record-xml") == 0) {
            /* regenerated on writing */
        } else if (strcmp(t, LAT_REC_HISTORY) == 0) {
            if (c->history) { note_dup(s, t); continue; }
            read_xml(s, &p, &len);
            c->history = (char *)p;
        } else if (strcmp(t, LAT_REC_TRANSFORM) == 0) {
            if (s->raw_transform) { note_dup(s, t); continue; }
            s->transform_len = s->r.hdr.len;
            if (lime_read_all(&s->r, &s->raw_transform, KEEP_MAX) < 0) rdie(s, "%s", s->r.err);
        } else {
            if (is_slotted(t) && conf_keep_find(c, t)) { note_dup(s, t); continue; }
            uint64_t n = s->r.hdr.len;
            if (lime_read_all(&s->r, &p, KEEP_MAX) < 0) rdie(s, "%s", s->r.err);
            conf_keep_add(c, t, p, n);
            free(p);
        }
    }
    if (rc < 0) rdie(s, "%s", s->r.err);
    if (!s->have_format) rdie(s, "no ildg-format record: not an ILDG gauge configuration");
    if (!s->have_binary) rdie(s, "no ildg-binary-data record");
    if (s->nbinary > 1)
        lat_warn(s->name, "%d ildg-binary-data records; using the first and dropping the others with their metadata", s->nbinary);
    else if (s->ndup)
        lat_warn(s->name, "duplicate records (%s) dropped; the first of each is used", s->dup_types);
    snprintf(c->check.detail, sizeof c->check.detail, "ILDG");
    if (c->deferred.on == 1) { /* the data is checked where it is read */
        c->deferred.have_sum = s->have_sum;
        c->deferred.suma = s->file_sum.a;
        c->deferred.sumb = s->file_sum.b;
        s->have_sum = 0;
    } else conf_check_finite(&c->u, s->name, "ildg-binary-data");
    if (s->have_sum) {
        if (s->file_sum.a != s->data_sum.a || s->file_sum.b != s->data_sum.b)
            rdie(s, "scidac-checksum mismatch: the record says suma %" PRIx32 " sumb %" PRIx32 ", the data gives %" PRIx32 " %" PRIx32,
                 s->file_sum.a, s->file_sum.b, s->data_sum.a, s->data_sum.b);
        snprintf(c->check.checksum, sizeof c->check.checksum, "scidac %" PRIx32 " %" PRIx32, s->data_sum.a, s->data_sum.b);
    }
    if (s->raw_transform) {
        uint64_t want = (uint64_t)c->u.lat.V * field_link_reals(s->nc) * 8;
        if (s->transform_len != want)
            rdie(s, "lat-gauge-transform record is %" PRIu64 " bytes, expected %" PRIu64 " for SU(%d) double", s->transform_len, want, s->nc);
        size_t n = (size_t)(want / 8);
        c->transform = lat_malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++) {
            c->transform[i] = bits_to_double(load_be64(s->raw_transform + 8 * i));
            if (!isfinite(c->transform[i]))
                rdie(s, "lat-gauge-transform: non-finite number at site %zu", i / field_link_reals(s->nc));
        }
        free(s->raw_transform);
    }
    /* a usqcdInfo states the plaquette and link trace: compare (Grid's tolerance) */
    const struct lime_record *rx = conf_keep_find(c, "scidac-record-xml");
    if (rx && c->deferred.on != 1) {
        char *x = lat_malloc(rx->len + 1);
        memcpy(x, rx->data, rx->len);
        x[rx->len] = 0;
        char v[64];
        if (xml_has(x, "usqcdInfo")) {
            char *end;
            if (xml_text(x, "plaq", v, sizeof v) && (c->check.plaq = strtod(v, &end), end != v && !*end)) {
                double p = measure_plaquette(&c->u).all;
                c->check.has_plaq = fabs(p - c->check.plaq) <= 1e-5;
                if (!c->check.has_plaq)
                    lat_warn(s->name, "usqcdInfo plaq %s differs from the data's plaquette %.10f", v, p);
            }
            if (xml_text(x, "linktr", v, sizeof v) && (c->check.linktr = strtod(v, &end), end != v && !*end)) {
                double l = measure_link_trace(&c->u);
                c->check.has_linktr = fabs(l - c->check.linktr) <= 1e-5;
                if (!c->check.has_linktr)
                    lat_warn(s->name, "usqcdInfo linktr %s differs from the data's link trace %.10f", v, l);
            }
        }
        free(x);
    }
}

/* ---- writing -------------------------------------------------------------- */

struct ildg_out {
    struct lime_writer w;
    const char *name;
};

static void wcheck(struct ildg_out *o, int rc)
{
    if (rc < 0) lat_die(1, o->name, "%s", o->w.err);
}

/* a string record including its terminating NUL, as QIO writes it */
static void put_string(struct ildg_out *o, const char *type, const char *s, int mb, int me)
{
    wcheck(o, lime_record(&o->w, type, s, strlen(s) + 1, mb, me));
}

static void put_kept(struct ildg_out *o, const struct lime_record *r, int mb, int me)
{
    wcheck(o, lime_record(&o->w, r->type, r->data, r->len, mb, me));
}

#define XML_HEAD LAT_XML_HEAD

int ildg_record_is_regenerable(const struct lime_record *r)
{
    const char *d = (const char *)r->data;
    uint64_t n = r->len;
    while (n && d[n - 1] == 0) n--;
    if (strcmp(r->type, "scidac-file-xml") == 0)
        return n == strlen(LAT_DEFAULT_FILE_XML) && memcmp(d, LAT_DEFAULT_FILE_XML, n) == 0;
    if (strcmp(r->type, "ildg-data-lfn") == 0)
        return n == strlen(LAT_DEFAULT_LFN) && memcmp(d, LAT_DEFAULT_LFN, n) == 0;
    if (strcmp(r->type, "scidac-record-xml") == 0)
        return strlen(d) >= n && xml_has(d, "usqcdInfo");
    return 0;
}

/* scidac-record-xml: ours, a carried usqcdInfo with fresh numbers, or a
 * carried record unchanged (returns NULL then) */
static char *record_xml(const struct conf *c, const struct lime_record *in, const struct ildg_given *given)
{
    double plaq = given ? given->plaq : measure_plaquette(&c->u).all;
    double linktr = given ? given->linktr : measure_link_trace(&c->u);
    char p[40], l[40];
    snprintf(p, sizeof p, "%.15g", plaq);
    snprintf(l, sizeof l, "%.15g", linktr);
    if (!in)
        return strfmt(XML_HEAD "<usqcdInfo><version>1.0</version><plaq>%s</plaq><linktr>%s</linktr>"
                      "<info>written by lat %s</info></usqcdInfo>", p, l, LAT_VERSION);
    char *x = lat_malloc(in->len + 1);
    memcpy(x, in->data, in->len);
    uint64_t len = in->len;
    x[len] = 0;
    strip_nuls((unsigned char *)x, &len);
    if (strlen(x) != len || !xml_has(x, "usqcdInfo")) { free(x); return NULL; }
    char *y = xml_replace(x, "plaq", "usqcdInfo", p);
    free(x);
    if (!y) return NULL;
    char *z = xml_replace(y, "linktr", "usqcdInfo", l);
    free(y);
    return z;
}

void ildg_write(FILE *f, const char *name, const struct conf *c, int prec) { ildg_write_framing(f, name, c, prec, NULL, NULL); }

void ildg_write_framing(FILE *f, const char *name, const struct conf *c, int prec, const struct ildg_given *given,
                        uint64_t *data_offset)
{
    struct ildg_out out;
    struct ildg_out *o = &out;
    o->name = name;
    lime_writer_init(&o->w, f);
    const struct field *u = &c->u;
    int nc = u->nc;
    const int *L = u->lat.L;
    char fieldname[16];
    snprintf(fieldname, sizeof fieldname, "su%dgauge", nc);
    const struct lime_record *file_xml = conf_keep_find(c, "scidac-file-xml");
    const struct lime_record *rec_xml = conf_keep_find(c, "scidac-record-xml");
    const struct lime_record *lfn = conf_keep_find(c, "ildg-data-lfn");

    /* message 1 */
    char *s = strfmt(XML_HEAD "<scidacFile><version>1.1</version><spacetime>4</spacetime>"
                     "<dims>%d %d %d %d </dims><volfmt>0</volfmt></scidacFile>", L[0], L[1], L[2], L[3]);
    put_string(o, "scidac-private-file-xml", s, 1, 0);
    free(s);
    if (file_xml) put_kept(o, file_xml, 0, 1);
    else put_string(o, "scidac-file-xml", LAT_DEFAULT_FILE_XML, 0, 1);

    /* message 2 */
    char date[64];
    time_t now = conf_now();
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a %b %e %H:%M:%S %Y UTC", &tm);
    char pc = prec == 64 ? 'D' : 'F';
    s = strfmt(XML_HEAD "<scidacRecord><version>1.1</version><date>%s</date><recordtype>0</recordtype>"
               "<datatype>USQCD_%c%d_ColorMatrix</datatype><precision>%c</precision><colors>%d</colors>"
               "<typesize>%zu</typesize><datacount>4</datacount></scidacRecord>",
               date, pc, nc, pc, nc, field_link_reals(nc) * (size_t)(prec / 8));
    put_string(o, "scidac-private-record-xml", s, 1, 0);
    free(s);
    s = record_xml(c, rec_xml, given);
    if (s) put_string(o, "scidac-record-xml", s, 0, 0);
    else put_kept(o, rec_xml, 0, 0);
    free(s);
    s = strfmt(XML_HEAD "<ildgFormat xmlns=\"http://www.lqcd.org/ildg\" "
               "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
               "xsi:schemaLocation=\"http://www.lqcd.org/ildg http://www.lqcd.org/ildg/filefmt.xsd\">"
               "<version>1.0</version><field>%s</field><precision>%d</precision>"
               "<lx>%d</lx><ly>%d</ly><lz>%d</lz><lt>%d</lt></ildgFormat>",
               fieldname, prec, L[0], L[1], L[2], L[3]);
    put_string(o, "ildg-format", s, 0, 0);
    free(s);
    if (lfn) put_kept(o, lfn, 0, 0);
    else put_string(o, "ildg-data-lfn", LAT_DEFAULT_LFN, 0, 0);

    size_t sb = site_bytes(nc, prec);
    uint64_t total = (uint64_t)u->lat.V * sb;
    wcheck(o, lime_begin(&o->w, "ildg-binary-data", total, 0, 0));
    unsigned char *buf = lat_malloc(sb * CHUNK_SITES);
    struct scidac_sum sum = {0, 0};
    if (given) { /* the ranks write the data themselves */
        sum = given->sum;
        *data_offset = o->w.pos;
        wcheck(o, lime_skip(&o->w, total));
    }
    for (int64_t x0 = 0; x0 < u->lat.V && !given; x0 += CHUNK_SITES) {
        int64_t k = u->lat.V - x0 < CHUNK_SITES ? u->lat.V - x0 : CHUNK_SITES;
        for (int64_t i = 0; i < k; i++) {
            unsigned char *b = buf + (size_t)i * sb;
            ildg_encode_site(u, x0 + i, prec, b);
            scidac_sum_site(&sum, (uint64_t)(x0 + i), lat_crc32(0, b, sb));
        }
        wcheck(o, lime_write(&o->w, buf, sb * (size_t)k));
    }
    free(buf);
    wcheck(o, lime_end(&o->w));
    s = strfmt(XML_HEAD "<scidacChecksum><version>1.0</version><suma>%" PRIx32 "</suma><sumb>%" PRIx32
               "</sumb></scidacChecksum>", sum.a, sum.b);
    put_string(o, "scidac-checksum", s, 0, 1);
    free(s);

    /* carried records, history, transform: one message each */
    for (int i = 0; i < c->nkeep; i++) {
        const struct lime_record *r = &c->keep[i];
        if (r == file_xml || r == rec_xml || r == lfn) continue;
        put_kept(o, r, 1, 1);
    }
    if (c->history && c->history[0])
        wcheck(o, lime_record(&o->w, LAT_REC_HISTORY, c->history, strlen(c->history), 1, 1));
    if (c->transform) {
        size_t n = (size_t)u->lat.V * field_link_reals(nc);
        wcheck(o, lime_begin(&o->w, LAT_REC_TRANSFORM, (uint64_t)n * 8, 1, 1));
        unsigned char b[8 * 512];
        for (size_t i = 0; i < n; i += 512) {
            size_t k = n - i < 512 ? n - i : 512;
            for (size_t j = 0; j < k; j++) store_be64(b + 8 * j, double_to_bits(c->transform[i + j]));
            wcheck(o, lime_write(&o->w, b, 8 * k));
        }
        wcheck(o, lime_end(&o->w));
    }
}
