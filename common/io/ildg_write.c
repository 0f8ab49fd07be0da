/* ildg_write.c -- the LIME writers behind conf.h: gauge configurations in
 * QIO's record layout, with ILDG records (ildg_write, ildg_write_framing)
 * or without them (scidac_write, the SciDAC layout of QUDA, GLU and MILC's
 * .scidac files), and the tracked gauge transformation g(x) as a standard
 * SciDAC ColorMatrix field file (scidac_write_transform).  Contracts in
 * confio.h; record rules in FORMATS.md §2.1 and §3.
 *
 * One framing, two layouts (FORMATS.md §2.1, §3.1):
 *   msg 1: scidac-private-file-xml (MB), scidac-file-xml (ME)
 *   msg 2: scidac-private-record-xml (MB), scidac-record-xml,
 *          [ildg-format, ildg-data-lfn,]  ILDG layout only
 *          ildg-binary-data | scidac-binary-data, scidac-checksum (ME)
 *   then each carried record, lat-history and lat-gauge-transform as
 *   one-record messages.
 * XML records end with a NUL byte as QIO writes them.  scidac-record-xml is
 * a usqcdInfo with the plaquette and link trace of the field written (an
 * input usqcdInfo is rewritten with fresh values, any other content is
 * carried unchanged).  The SciDAC layout has no slot for ildg-data-lfn: a
 * carried LFN (one that is not lat's default) travels as a record of its
 * own, so that ILDG -> SciDAC -> ILDG gives the original records back. */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
        return conf_strfmt(XML_HEAD "<usqcdInfo><version>1.0</version><plaq>%s</plaq><linktr>%s</linktr>"
                           "<info>written by lat %s</info></usqcdInfo>", p, l, LAT_VERSION);
    char *x = lat_malloc(in->len + 1);
    memcpy(x, in->data, in->len);
    uint64_t len = in->len;
    x[len] = 0;
    lime_text_trim((unsigned char *)x, &len);
    if (strlen(x) != len || !xml_has(x, "usqcdInfo")) { free(x); return NULL; }
    char *y = xml_replace(x, "plaq", "usqcdInfo", p);
    free(x);
    if (!y) return NULL;
    char *z = xml_replace(y, "linktr", "usqcdInfo", l);
    free(y);
    return z;
}

char *scidac_private_file_xml(const int *L)
{
    return conf_strfmt(XML_HEAD "<scidacFile><version>1.1</version><spacetime>4</spacetime>"
                       "<dims>%d %d %d %d </dims><volfmt>0</volfmt></scidacFile>", L[0], L[1], L[2], L[3]);
}

char *scidac_checksum_xml(struct scidac_sum sum)
{
    return conf_strfmt(XML_HEAD "<scidacChecksum><version>1.0</version><suma>%" PRIx32 "</suma><sumb>%" PRIx32
                       "</sumb></scidacChecksum>", sum.a, sum.b);
}

/* message 1 of every file we write: the lattice, and the user's file XML */
static void put_file_message(struct ildg_out *o, const int *L, const struct lime_record *file_xml, const char *dflt)
{
    char *s = scidac_private_file_xml(L);
    put_string(o, "scidac-private-file-xml", s, 1, 0);
    free(s);
    if (file_xml) put_kept(o, file_xml, 0, 1);
    else put_string(o, "scidac-file-xml", dflt, 0, 1);
}

static void put_private_record(struct ildg_out *o, int nc, int prec, int datacount)
{
    char *s = scidac_private_record_xml(nc, prec, datacount);
    put_string(o, "scidac-private-record-xml", s, 1, 0);
    free(s);
}

static void put_checksum(struct ildg_out *o, struct scidac_sum sum)
{
    char *s = scidac_checksum_xml(sum);
    put_string(o, "scidac-checksum", s, 0, 1);
    free(s);
}

void ildg_write(FILE *f, const char *name, const struct conf *c, int prec)
{
    lime_write_gauge(f, name, c, prec, LIME_LAYOUT_ILDG, NULL, NULL);
}

void ildg_write_framing(FILE *f, const char *name, const struct conf *c, int prec, const struct ildg_given *given,
                        uint64_t *data_offset)
{
    lime_write_gauge(f, name, c, prec, LIME_LAYOUT_ILDG, given, data_offset);
}

void lime_write_gauge(FILE *f, const char *name, const struct conf *c, int prec, enum lime_layout layout,
                      const struct ildg_given *given, uint64_t *data_offset)
{
    struct ildg_out out;
    struct ildg_out *o = &out;
    o->name = name;
    lime_writer_init(&o->w, f);
    const struct field *u = &c->u;
    int nc = u->nc, ildg = layout == LIME_LAYOUT_ILDG;
    const int *L = u->lat.L;
    const struct lime_record *file_xml = conf_keep_find(c, "scidac-file-xml");
    const struct lime_record *rec_xml = conf_keep_find(c, "scidac-record-xml");
    const struct lime_record *lfn = conf_keep_find(c, "ildg-data-lfn");

    put_file_message(o, L, file_xml, LAT_DEFAULT_FILE_XML);

    /* message 2 */
    put_private_record(o, nc, prec, LAT_ND);
    char *s = record_xml(c, rec_xml, given);
    if (s) put_string(o, "scidac-record-xml", s, 0, 0);
    else put_kept(o, rec_xml, 0, 0);
    free(s);
    if (ildg) {
        s = conf_strfmt(XML_HEAD "<ildgFormat xmlns=\"http://www.lqcd.org/ildg\" "
                        "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                        "xsi:schemaLocation=\"http://www.lqcd.org/ildg http://www.lqcd.org/ildg/filefmt.xsd\">"
                        "<version>1.0</version><field>su%dgauge</field><precision>%d</precision>"
                        "<lx>%d</lx><ly>%d</ly><lz>%d</lz><lt>%d</lt></ildgFormat>",
                        nc, prec, L[0], L[1], L[2], L[3]);
        put_string(o, "ildg-format", s, 0, 0);
        free(s);
        if (lfn) put_kept(o, lfn, 0, 0);
        else put_string(o, "ildg-data-lfn", LAT_DEFAULT_LFN, 0, 0);
    }

    size_t sb = ildg_site_bytes(nc, prec);
    uint64_t total = (uint64_t)u->lat.V * sb;
    wcheck(o, lime_begin(&o->w, ildg ? "ildg-binary-data" : "scidac-binary-data", total, 0, 0));
    unsigned char *buf = lat_malloc(sb * SCIDAC_CHUNK_SITES);
    struct scidac_sum sum = {0, 0};
    if (given) { /* the ranks write the data themselves */
        sum = given->sum;
        *data_offset = o->w.pos;
        wcheck(o, lime_skip(&o->w, total));
    }
    for (int64_t x0 = 0; x0 < u->lat.V && !given; x0 += SCIDAC_CHUNK_SITES) {
        int64_t k = u->lat.V - x0 < SCIDAC_CHUNK_SITES ? u->lat.V - x0 : SCIDAC_CHUNK_SITES;
        ildg_encode_chunk(&sum, u, prec, x0, k, buf);
        wcheck(o, lime_write(&o->w, buf, sb * (size_t)k));
    }
    free(buf);
    wcheck(o, lime_end(&o->w));
    put_checksum(o, sum);

    /* carried records, history, transform: one message each */
    for (int i = 0; i < c->nkeep; i++) {
        const struct lime_record *r = &c->keep[i];
        if (r == file_xml || r == rec_xml) continue;
        if (r == lfn && (ildg || ildg_record_is_regenerable(r))) continue;
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

/* g(x) as QIO writes a LatticeColorMatrix: one field record, datacount 1,
 * big-endian doubles, ILDG site order; the record XML says what it is */
void scidac_write_transform(FILE *f, const char *name, const struct conf *c)
{
    struct ildg_out out;
    struct ildg_out *o = &out;
    o->name = name;
    lime_writer_init(&o->w, f);
    int nc = c->u.nc;
    const int *L = c->u.lat.L;
    put_file_message(o, L, NULL, XML_HEAD "<title>lat gauge transformation g(x)</title>");
    put_private_record(o, nc, 64, 1);
    char *s = conf_strfmt(XML_HEAD "<latGaugeTransform><version>1.0</version>"
                          "<convention>U_mu(x) -&gt; g(x) U_mu(x) g(x+mu)^dagger</convention>"
                          "<nc>%d</nc><lx>%d</lx><ly>%d</ly><lz>%d</lz><lt>%d</lt>"
                          "<info>tracked gauge transformation, written by lat %s</info></latGaugeTransform>",
                          nc, L[0], L[1], L[2], L[3], LAT_VERSION);
    put_string(o, "scidac-record-xml", s, 0, 0);
    free(s);
    size_t per = field_link_reals(nc), sb = per * 8;
    wcheck(o, lime_begin(&o->w, "scidac-binary-data", (uint64_t)c->u.lat.V * sb, 0, 0));
    unsigned char *buf = lat_malloc(sb);
    struct scidac_sum sum = {0, 0};
    for (int64_t x = 0; x < c->u.lat.V; x++) {
        const double *g = c->transform + (size_t)x * per;
        for (size_t j = 0; j < per; j++) store_real_be(buf + 8 * j, g[j], 64);
        scidac_sum_site(&sum, (uint64_t)x, lat_crc32(0, buf, sb));
        wcheck(o, lime_write(&o->w, buf, sb));
    }
    free(buf);
    wcheck(o, lime_end(&o->w));
    put_checksum(o, sum);
}

void scidac_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec)
{
    (void)o;
    lime_write_gauge(f, name, c, prec, LIME_LAYOUT_SCIDAC, NULL, NULL);
}
