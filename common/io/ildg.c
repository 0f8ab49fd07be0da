/* ildg.c -- the reader of the LIME gauge files behind conf.h: ILDG, and
 * SciDAC/QIO without ILDG records (QUDA, GLU's SCIDAC, MILC's .scidac,
 * SIMULATeQCD 2022); see confio.h for the contract, FORMATS.md §2-3 for the
 * rules.  The writers are in ildg_write.c, the checksum in scidac_sum.c,
 * the SciDAC datatype rules in scidac.c, the XML reader in xml.c.
 *
 * Reading accepts the records in any order and never seeks.  ildg-format
 * gives the field (su3gauge, or suNgauge for other N: lat's extension, N
 * also in <field>), precision and extents, and ildg-binary-data the data.
 * A file without ildg-format whose data record is scidac-binary-data is a
 * SciDAC file: the lattice comes from scidac-private-file-xml, the field
 * from scidac-private-record-xml (scidac_gauge_format checks them), and
 * the first of each private record is the one used.  The data record must
 * then have exactly V * 4 * 2N^2 * prec/8 bytes (big-endian, ILDG site
 * order in both formats); scidac-checksum, when present, must match; every
 * number must be finite.  It is decoded as it streams in when its shape is
 * known by then, else held raw until the records that give the shape.
 * Records lat does not rewrite go to c->keep unchanged (scidac-file-xml,
 * scidac-record-xml and ildg-data-lfn among them: the writer puts them
 * back in their slots; a scidac-binary-data of an ILDG file is carried);
 * the SciDAC private records, ildg-format and scidac-checksum are
 * regenerated on writing; lat-history and lat-gauge-transform are decoded
 * into c.  c->format becomes CONF_SCIDAC for a SciDAC file. */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading -------------------------------------------------------------- */

#define XML_MAX (UINT64_C(64) << 20)
#define KEEP_MAX (UINT64_C(1) << 34)

struct ildg_in {
    struct conf *c;
    const char *name;
    struct lime_reader r;
    int have_format;             /* ildg-format read */
    int have_shape;              /* nc, prec, L and the field's lattice known */
    int nc, prec;
    int L[LAT_ND];
    int have_binary, nbinary;
    int scidac;                  /* the data record is scidac-binary-data */
    const char *bin_type;        /* the data record's type */
    char *priv_file, *priv_record; /* the first SciDAC private records */
    char datatype[64];
    unsigned char *raw_binary;   /* data record read before its shape */
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

/* a required element of an ILDG/SciDAC record: found exactly once */
static void need_field(struct ildg_in *s, const char *rec, const char *xml, const char *name, char *out, size_t n)
{
    char err[200];
    int rc = xml_field(xml, name, out, n, err, sizeof err);
    if (rc < 0) rdie(s, "%s record: %s", rec, err);
    if (rc == 0 || !out[0]) rdie(s, "%s record has no <%s> element", rec, name);
}

static void set_shape(struct ildg_in *s, int nc, int prec, const char *where);

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
        if (conf_parse_posint(v, &s->L[mu]) < 0) rdie(s, "ildg-format <%s> '%s' is not a positive lattice extent", dims[mu], v);
    }
    s->have_format = 1;
    set_shape(s, nc, prec[0] == '3' ? 32 : 64, "ildg-format");
}

/* nc, prec and s->L are known (from where): the field's lattice */
static void set_shape(struct ildg_in *s, int nc, int prec, const char *where)
{
    const char *why;
    struct lattice lat;
    if (lattice_init(&lat, s->L, &why) < 0)
        rdie(s, "lattice %dx%dx%dx%d from %s: %s", s->L[0], s->L[1], s->L[2], s->L[3], where, why);
    s->nc = nc;
    s->prec = prec;
    s->have_shape = 1;
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
    uint64_t want = (uint64_t)s->c->u.lat.V * ildg_site_bytes(s->nc, s->prec);
    int64_t left = unread ? conf_input_left(s->r.in) : -1;
    if (len == want && left >= 0 && (uint64_t)left < len)
        rdie(s, "truncated: payload of LIME record '%s' (header at byte %" PRIu64 ") ends after %" PRId64
             " of %" PRIu64 " bytes", s->bin_type, s->r.hdr.offset, left, len);
    if (len != want) {
        char ext[64];
        conf_extents(&s->c->u.lat, ext, sizeof ext);
        rdie(s, "%s record is %" PRIu64 " bytes, expected %" PRIu64 " for %s SU(%d) %s", s->bin_type,
             len, want, ext, s->nc, prec_word(s->prec));
    }
}

/* decode one site (big-endian, file precision) into the field; its
 * checksum is scidac_code_chunk's */
static void decode_site(void *ctx, int64_t site, unsigned char *buf)
{
    struct ildg_in *s = ctx;
    ildg_decode_site(&s->c->u, site, s->prec, buf);
}

static void read_binary_stream(struct ildg_in *s)
{
    check_binary_size(s, s->r.hdr.len, 1);
    size_t sb = ildg_site_bytes(s->nc, s->prec);
    unsigned char *buf = lat_malloc(sb * SCIDAC_CHUNK_SITES);
    int64_t V = s->c->u.lat.V, cap = 0;
    for (int64_t x0 = 0; x0 < V; x0 += SCIDAC_CHUNK_SITES) {
        int64_t k = V - x0 < SCIDAC_CHUNK_SITES ? V - x0 : SCIDAC_CHUNK_SITES;
        if (lime_read(&s->r, buf, sb * (size_t)k) < 0) { free(buf); rdie(s, "%s", s->r.err); }
        conf_field_grow(&s->c->u, x0 + k, &cap);
        scidac_code_chunk(&s->data_sum, x0, k, buf, sb, decode_site, s);
    }
    free(buf);
}

static void decode_binary_buffered(struct ildg_in *s)
{
    check_binary_size(s, s->raw_len, 0);
    size_t sb = ildg_site_bytes(s->nc, s->prec);
    int64_t cap = 0;
    conf_field_grow(&s->c->u, s->c->u.lat.V, &cap); /* the data is there: raw_binary */
    scidac_code_chunk(&s->data_sum, 0, s->c->u.lat.V, s->raw_binary, sb, decode_site, s);
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
    lime_text_trim(*p, len);
}

/* the data record: decoded as it streams in when its shape is known (or
 * left to the ranks, dist.c), else held raw until the shape is */
static void take_binary(struct ildg_in *s)
{
    struct conf *c = s->c;
    if (s->have_shape && c->deferred.on) { /* the ranks read it (dist.c) */
        check_binary_size(s, s->r.hdr.len, 1); /* the file holds it: now rank 0's copy */
        field_alloc(&c->u, &c->u.lat, s->nc, 64);
        c->deferred.on = 1;
        c->deferred.offset = s->r.in->pos;
        c->deferred.prec = s->prec;
    } else if (s->have_shape) read_binary_stream(s);
    else {
        s->raw_len = s->r.hdr.len;
        if (lime_read_all(&s->r, &s->raw_binary, KEEP_MAX) < 0) rdie(s, "%s", s->r.err);
    }
}

/* a SciDAC file's shape, from its two private records */
static void scidac_shape(struct ildg_in *s)
{
    char err[400];
    struct scidac_format f;
    if (scidac_gauge_format(s->priv_file, s->priv_record, &f, err, sizeof err) < 0) rdie(s, "%s", err);
    snprintf(s->datatype, sizeof s->datatype, "%s", f.datatype);
    memcpy(s->L, f.L, sizeof s->L);
    set_shape(s, f.nc, f.prec, "scidac-private-file-xml");
}

static LAT_NORETURN void mixed(struct ildg_in *s)
{
    rdie(s, "both a scidac-binary-data record and ILDG records (ildg-format, ildg-binary-data) for the gauge field: "
            "lat reads one field per file and cannot tell which is meant");
}

void ildg_read(struct byte_in *in, struct conf *c)
{
    struct ildg_in st;
    struct ildg_in *s = &st;
    memset(s, 0, sizeof *s);
    s->c = c;
    s->name = c->name;
    s->bin_type = "ildg-binary-data";
    lime_reader_init(&s->r, in);
    int rc;
    while ((rc = lime_next(&s->r)) > 0) {
        const char *t = s->r.hdr.type;
        unsigned char *p;
        uint64_t len;
        if (strcmp(t, "ildg-format") == 0) {
            if (s->have_format) { note_dup(s, t); continue; }
            if (s->scidac) mixed(s);
            read_xml(s, &p, &len);
            parse_format(s, (char *)p);
            free(p);
            if (s->raw_binary) decode_binary_buffered(s);
        } else if (strcmp(t, "ildg-binary-data") == 0 || (strcmp(t, "scidac-binary-data") == 0 && !s->have_format)) {
            int scidac = t[0] == 's';
            if (s->have_binary && scidac != s->scidac) mixed(s);
            s->nbinary++;
            if (s->have_binary) { note_dup(s, t); continue; }
            s->have_binary = 1;
            if (scidac) {
                s->scidac = 1;
                s->bin_type = "scidac-binary-data";
                if (s->priv_file && s->priv_record) scidac_shape(s);
            }
            take_binary(s);
        } else if (strcmp(t, "scidac-checksum") == 0) {
            if (s->have_sum) { note_dup(s, t); continue; }
            read_xml(s, &p, &len);
            parse_checksum(s, (char *)p);
            free(p);
        } else if (strcmp(t, "scidac-private-file-xml") == 0 || strcmp(t, "scidac-private-record-xml") == 0) {
            /* regenerated on writing; a SciDAC file's shape (the first of each) */
            char **slot = strcmp(t, "scidac-private-file-xml") == 0 ? &s->priv_file : &s->priv_record;
            if (*slot) continue;
            read_xml(s, &p, &len);
            *slot = (char *)p;
            if (s->scidac && !s->have_shape && s->priv_file && s->priv_record) {
                scidac_shape(s);
                decode_binary_buffered(s);
            }
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
    if (s->scidac && !s->have_shape)
        rdie(s, "SciDAC file without a %s record: the %s of its scidac-binary-data are unknown",
             s->priv_file ? "scidac-private-record-xml" : "scidac-private-file-xml",
             s->priv_file ? "datatype and precision" : "lattice extents");
    free(s->priv_file);
    free(s->priv_record);
    if (!s->have_format && !s->scidac)
        rdie(s, "no ildg-format record%s: not an ILDG or SciDAC gauge configuration",
             s->have_binary ? "" : " and no scidac-binary-data record");
    if (!s->have_binary) rdie(s, "no ildg-binary-data record");
    if (s->nbinary > 1)
        lat_warn(s->name, "%d %s records; using the first and dropping the others with their metadata", s->nbinary,
                 s->bin_type);
    else if (s->ndup)
        lat_warn(s->name, "duplicate records (%s) dropped; the first of each is used", s->dup_types);
    if (s->scidac) {
        c->format = CONF_SCIDAC;
        snprintf(c->check.detail, sizeof c->check.detail, "SciDAC (QIO, no ILDG records) %.32s", s->datatype);
    } else snprintf(c->check.detail, sizeof c->check.detail, "ILDG");
    if (c->deferred.on == 1) { /* the data is checked where it is read */
        c->deferred.have_sum = s->have_sum;
        c->deferred.suma = s->file_sum.a;
        c->deferred.sumb = s->file_sum.b;
        s->have_sum = 0;
    } else conf_check_finite(&c->u, s->name, s->bin_type);
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

