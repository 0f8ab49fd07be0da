/* propagator.c -- quark propagator files (io/propagator.h): the writer and
 * the strict streaming reader of QIO's USQCD_DiracFermion_Source_Sink_Pairs
 * layout, the point and wall sources.  The framing (LIME records, QIO's
 * private XML, the SciDAC checksum per site) is the gauge writers' one
 * (ildg_write.c, scidac_sum.c, confio.h); only the datum differs: one Dirac
 * spinor per site (4 spins x nc colours, spin slowest) instead of four
 * links. */
#include "io/propagator.h"
#include "base/log.h"
#include "base/output.h"
#include "io/confio.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XML_MAX (UINT64_C(16) << 20) /* the largest XML or history record read */

size_t prop_column_reals(const struct propagator *p) { return (size_t)p->lat.V * 2 * PROP_NS * (size_t)p->nc; }

/* ---- sources -------------------------------------------------------------- */

/* "a,b,c" with exactly n non-negative decimal integers */
static int parse_ints(const char *s, int *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (*s < '0' || *s > '9') return -1;
        long x = 0;
        for (; *s >= '0' && *s <= '9'; s++)
            if ((x = x * 10 + (*s - '0')) > 1 << 24) return -1;
        v[i] = (int)x;
        if (i < n - 1 && *s++ != ',') return -1;
    }
    return *s ? -1 : 0;
}

int prop_source_parse(const char *text, const struct lattice *lat, struct prop_source *s, char *why, size_t n)
{
    memset(s, 0, sizeof *s);
    if (strncmp(text, "point:", 6) == 0) {
        if (parse_ints(text + 6, s->x, LAT_ND) < 0) {
            snprintf(why, n, "'%s' is not point:x,y,z,t (four non-negative integers)", text);
            return -1;
        }
    } else if (strncmp(text, "wall:", 5) == 0) {
        s->wall = 1;
        if (parse_ints(text + 5, &s->x[3], 1) < 0) {
            snprintf(why, n, "'%s' is not wall:t (a non-negative integer)", text);
            return -1;
        }
    } else {
        snprintf(why, n, "'%s' is neither point:x,y,z,t nor wall:t", text);
        return -1;
    }
    for (int mu = 0; mu < LAT_ND; mu++)
        if (s->x[mu] >= lat->L[mu]) {
            snprintf(why, n, "%s: %c = %d is outside the lattice (%dx%dx%dx%d: 0..%d)", text, "xyzt"[mu], s->x[mu],
                     lat->L[0], lat->L[1], lat->L[2], lat->L[3], lat->L[mu] - 1);
            return -1;
        }
    return 0;
}

void prop_source_format(const struct prop_source *s, char *buf, size_t n)
{
    if (s->wall) snprintf(buf, n, "wall:%d", s->x[3]);
    else snprintf(buf, n, "point:%d,%d,%d,%d", s->x[0], s->x[1], s->x[2], s->x[3]);
}

void prop_source_field_slab(const struct prop_source *s, const struct lattice *lat, int nc, int spin, int colour,
                            int t0, int nt, double *field)
{
    const size_t per = 2 * PROP_NS * (size_t)nc, at = 2 * ((size_t)spin * (size_t)nc + (size_t)colour);
    const int64_t V3 = lat->V / lat->L[3];
    const size_t n = (size_t)(V3 * nt) * per; /* 2 GB a column at 48^3x96: zeroed by the threads */
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (size_t i = 0; i < n; i++) field[i] = 0;
    if (s->x[3] < t0 || s->x[3] >= t0 + nt) return; /* the source is on another rank's slab */
    const int64_t first = (int64_t)t0 * V3;
    if (!s->wall) {
        field[(size_t)(lattice_site(lat, s->x) - first) * per + at] = 1.0;
        return;
    }
    for (int64_t i = 0; i < V3; i++) field[(size_t)(s->x[3] * V3 + i - first) * per + at] = 1.0;
}

void prop_source_field(const struct prop_source *s, const struct lattice *lat, int nc, int spin, int colour,
                       double *field)
{
    prop_source_field_slab(s, lat, nc, spin, colour, 0, lat->L[3], field);
}

/* ---- writer --------------------------------------------------------------- */

struct pw {
    struct lime_writer w;
    const char *name;
};

static void wcheck(struct pw *o, int rc)
{
    if (rc < 0) lat_die(1, o->name, "%s", o->w.err);
}

static void put_string(struct pw *o, const char *type, char *s, int mb, int me)
{
    wcheck(o, lime_record(&o->w, type, s, strlen(s) + 1, mb, me)); /* with the NUL, as QIO writes */
    free(s);
}

static size_t site_bytes(int nc, int prec) { return 2 * PROP_NS * (size_t)nc * (size_t)(prec / 8); }

/* one site of a column, big-endian in the file's precision */
struct column_code { const double *f; size_t per; int prec; };
static void encode_column_site(void *ctx, int64_t x, unsigned char *bytes)
{
    const struct column_code *c = ctx;
    for (size_t j = 0; j < c->per; j++) store_real_be(bytes + j * (size_t)(c->prec / 8), c->f[(size_t)x * c->per + j], c->prec);
}

/* and back, from the file's bytes into the reader's column */
struct column_decode { double *f; size_t per; int prec; };
static void decode_column_site(void *ctx, int64_t x, unsigned char *bytes)
{
    const struct column_decode *c = ctx;
    for (size_t j = 0; j < c->per; j++) c->f[(size_t)x * c->per + j] = load_real(bytes + j * (size_t)(c->prec / 8), c->prec, 1);
}

/* one QIO field record: private XML, user XML, the sites, the checksum */
static void put_field(struct pw *o, const struct propagator *p, int prec, const char *user_xml, const double *f)
{
    const int nc = p->nc;
    const size_t per = 2 * PROP_NS * (size_t)nc, sb = site_bytes(nc, prec);
    put_string(o, "scidac-private-record-xml", scidac_private_record_xml_typed("DiracFermion", nc, PROP_NS, sb, prec, 1),
               1, 0);
    put_string(o, "scidac-record-xml", conf_strfmt("%s", user_xml), 0, 0);
    wcheck(o, lime_begin(&o->w, "scidac-binary-data", (uint64_t)p->lat.V * sb, 0, 0));
    unsigned char *buf = lat_malloc(sb * SCIDAC_CHUNK_SITES);
    struct scidac_sum sum = {0, 0};
    struct column_code cc = {f, per, prec};
    for (int64_t x0 = 0; x0 < p->lat.V; x0 += SCIDAC_CHUNK_SITES) {
        int64_t k = p->lat.V - x0 < SCIDAC_CHUNK_SITES ? p->lat.V - x0 : SCIDAC_CHUNK_SITES;
        scidac_code_chunk(&sum, x0, k, buf, sb, encode_column_site, &cc);
        wcheck(o, lime_write(&o->w, buf, sb * (size_t)k));
    }
    free(buf);
    wcheck(o, lime_end(&o->w));
    put_string(o, "scidac-checksum", scidac_checksum_xml(sum), 0, 1);
}

void prop_write(const char *path, const struct propagator *p, const char *info_xml, int prec)
{
    const char *where = path && strcmp(path, "-") != 0 ? path : "standard output";
    if (prec != 32 && prec != 64) lat_die(1, where, "internal error: propagator precision %d is not 32 or 64", prec);
    const int nc = p->nc, ncol = PROP_NS * nc;
    const size_t nr = prop_column_reals(p);
    for (int k = 0; k < ncol; k++) {
        int bad = 0; /* the threads share the scan of a column; the message names the column */
#pragma omp parallel for schedule(static) reduction(| : bad)
        for (size_t i = 0; i < nr; i++) bad |= !isfinite(p->col[k][i]);
        if (bad) lat_die(1, where, "refusing to write the propagator: non-finite number in spin %d colour %d", k / nc, k % nc);
    }
    FILE *f = out_open(path, 1);
    struct pw out = {.name = out_name()}, *o = &out;
    lime_writer_init(&o->w, f);
    put_string(o, "scidac-private-file-xml", scidac_private_file_xml(p->lat.L), 1, 0);
    put_string(o, "scidac-file-xml",
               conf_strfmt(LAT_XML_HEAD "<usqcdPropFile><version>1.0</version><type>" PROP_FILE_TYPE
                           "</type><info>%s</info></usqcdPropFile>", info_xml ? info_xml : ""),
               0, 1);
    double *src = lat_malloc(nr * sizeof(double));
    for (int k = 0; k < ncol; k++) {
        int s = k / nc, c = k % nc;
        char *x = conf_strfmt(LAT_XML_HEAD "<usqcdSourceInfo><version>1.0</version><spin>%d</spin><color>%d</color>"
                              "<info>unit source</info></usqcdSourceInfo>", s, c);
        prop_source_field(&p->src, &p->lat, nc, s, c, src);
        put_field(o, p, prec, x, src);
        free(x);
        x = conf_strfmt(LAT_XML_HEAD "<usqcdPropInfo><version>1.0</version><spin>%d</spin><color>%d</color>"
                        "<info>solution</info></usqcdPropInfo>", s, c);
        put_field(o, p, prec, x, p->col[k]);
        free(x);
    }
    free(src);
    if (p->history && p->history[0])
        wcheck(o, lime_record(&o->w, LAT_REC_HISTORY, p->history, strlen(p->history), 1, 1));
    out_commit(f);
}

/* ---- reader --------------------------------------------------------------- */

struct pr {
    struct lime_reader r;
    struct byte_in in;
    struct propagator *p;
    const char *name;
    int have_lat;
    int seen[2][PROP_NS * LAT_NC_MAX]; /* [source 0 / solution 1][column] */
    /* the sources seen: one site, or one timeslice */
    int64_t src_site;   /* first non-zero site, -1 none */
    int src_sites;      /* non-zero sites of the column being read */
    int src_wall_t;     /* -2 unknown, else the timeslice of a wall */
    int64_t cap[PROP_NS * LAT_NC_MAX];
};

LAT_NORETURN static void rdie(struct pr *s, const char *fmt, ...) LAT_PRINTF(2, 3);
static void rdie(struct pr *s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lat_die(1, s->name, "%s", msg);
}

static char *read_text(struct pr *s)
{
    unsigned char *d;
    if (s->r.hdr.len > XML_MAX) rdie(s, "record '%s' is %" PRIu64 " bytes, more than lat reads as text", s->r.hdr.type, s->r.hdr.len);
    if (lime_read_all(&s->r, &d, XML_MAX) < 0) rdie(s, "%s", s->r.err);
    uint64_t len = s->r.hdr.len;
    lime_text_trim(d, &len);
    if (strlen((char *)d) != len) rdie(s, "record '%s' holds a NUL byte inside its text", s->r.hdr.type);
    return (char *)d;
}

/* the next record must be of this type */
static void expect(struct pr *s, const char *type)
{
    int rc = lime_next(&s->r);
    if (rc < 0) rdie(s, "%s", s->r.err);
    if (rc == 0) rdie(s, "ends before its '%s' record (truncated?)", type);
    if (strcmp(s->r.hdr.type, type) != 0) rdie(s, "record '%.64s' at byte %" PRIu64 " where '%s' belongs", s->r.hdr.type, s->r.hdr.offset, type);
}

static void need(struct pr *s, const char *xml, const char *rec, const char *el, char *out, size_t n)
{
    char why[160];
    int rc = xml_field(xml, el, out, n, why, sizeof why);
    if (rc < 0) rdie(s, "%s: %s", rec, why);
    if (rc == 0) rdie(s, "%s has no <%s>", rec, el);
}

static int need_int(struct pr *s, const char *xml, const char *rec, const char *el, int lo, int hi)
{
    char v[64];
    int x;
    need(s, xml, rec, el, v, sizeof v);
    if (strcmp(v, "0") == 0) x = 0;
    else if (conf_parse_posint(v, &x) < 0) rdie(s, "%s <%s> '%s' is not a number", rec, el, v);
    if (x < lo || x > hi) rdie(s, "%s <%s> is %d, not in %d..%d", rec, el, x, lo, hi);
    return x;
}

static void read_header(struct pr *s, int64_t left)
{
    struct propagator *p = s->p;
    expect(s, "scidac-private-file-xml");
    char *x = read_text(s), v[128];
    need(s, x, "scidac-private-file-xml", "dims", v, sizeof v);
    int L[LAT_ND], k = 0;
    char *tok = strtok(v, " \t\r\n");
    for (; tok && k < LAT_ND; tok = strtok(NULL, " \t\r\n"))
        if (conf_parse_posint(tok, &L[k++]) < 0) rdie(s, "scidac-private-file-xml <dims>: '%s' is not a lattice extent", tok);
    if (k != LAT_ND || tok) rdie(s, "scidac-private-file-xml <dims> is not four lattice extents");
    free(x);
    const char *why = NULL;
    if (lattice_init(&p->lat, L, &why) != 0) rdie(s, "lattice %dx%dx%dx%d: %s", L[0], L[1], L[2], L[3], why);
    expect(s, "scidac-file-xml");
    x = read_text(s);
    if (!xml_has(x, "usqcdPropFile")) rdie(s, "not a USQCD propagator file (its file XML has no <usqcdPropFile>)");
    need(s, x, "usqcdPropFile", "type", v, sizeof v);
    if (strcmp(v, PROP_FILE_TYPE) != 0)
        rdie(s, "propagator file type '%s': lat reads " PROP_FILE_TYPE " (source-sink pairs) only", v);
    struct xml_doc d = {0};
    if (xml_parse(&d, x, strlen(x)) == 0) { /* the <info> element's content, child elements and all */
        int cnt, i = xml_find(&d, "info", &cnt);
        if (i >= 0) {
            size_t n = d.e[i].cend - d.e[i].cbeg;
            p->info = lat_malloc(n + 1);
            memcpy(p->info, x + d.e[i].cbeg, n);
            p->info[n] = 0;
        }
    }
    xml_doc_free(&d);
    free(x);
    /* 2 nc^2 ... : the least a file of this lattice holds is 8 nc records of
     * V x 8 nc x 4 bytes; nc is not known yet, so check with nc = 3 once
     * the first record says it (below) */
    (void)left;
    s->have_lat = 1;
}

/* one field record: returns the column read; which = 0 source, 1 solution */
static void read_field(struct pr *s, int64_t left)
{
    struct propagator *p = s->p;
    /* msg: private record xml was just read by the caller's lime_next */
    char *x = read_text(s), v[128];
    const char *RX = "scidac-private-record-xml";
    need(s, x, RX, "datatype", v, sizeof v);
    int prec = 0, nc = 0;
    const char *t = strncmp(v, "USQCD_", 6) == 0 ? v + 6 : strncmp(v, "QDP_", 4) == 0 ? v + 4 : NULL;
    if (t && (*t == 'F' || *t == 'D') && t[1] >= '2' && t[1] <= '8' && strcmp(t + 2, "_DiracFermion") == 0) {
        prec = *t == 'D' ? 64 : 32;
        nc = t[1] - '0';
    } else rdie(s, "record datatype '%s' is not a Dirac fermion field (USQCD_<F|D><N>_DiracFermion)", v);
    char pr[16];
    need(s, x, RX, "precision", pr, sizeof pr);
    if (strcmp(pr, prec == 64 ? "D" : "F") != 0) rdie(s, "datatype %s but <precision> %s", v, pr);
    if (need_int(s, x, RX, "colors", 1, LAT_NC_MAX) != nc) rdie(s, "datatype %s disagrees with its <colors>", v);
    if (need_int(s, x, RX, "spins", 1, 64) != PROP_NS) rdie(s, "%s <spins> is not 4", RX);
    const size_t sb = site_bytes(nc, prec);
    if ((size_t)need_int(s, x, RX, "typesize", 1, 1 << 20) != sb) rdie(s, "%s <typesize> is not %zu (%s)", RX, sb, v);
    if (need_int(s, x, RX, "datacount", 1, 1 << 20) != 1) rdie(s, "%s <datacount> is not 1", RX);
    free(x);
    if (!p->nc) {
        p->nc = nc;
        p->file_prec = prec;
        /* 8 nc records of V sites each must fit in what the file holds */
        if (left >= 0 && (double)p->lat.V * (double)sb * 8 * nc > (double)left)
            rdie(s, "is %" PRId64 " bytes: too short for the %d records of a %dx%dx%dx%d propagator of %zu bytes each (truncated?)",
                 left, 8 * nc, p->lat.L[0], p->lat.L[1], p->lat.L[2], p->lat.L[3], (size_t)p->lat.V * sb);
    } else if (nc != p->nc || prec != p->file_prec)
        rdie(s, "record datatype %s differs from the first record's (SU(%d), %d-bit)", v, p->nc, p->file_prec);

    expect(s, "scidac-record-xml");
    x = read_text(s);
    int which = xml_has(x, "usqcdSourceInfo") ? 0 : (xml_has(x, "usqcdPropInfo") || xml_has(x, "usqcdInfo")) ? 1 : -1;
    if (which < 0) rdie(s, "a field record's XML is neither <usqcdSourceInfo> nor <usqcdPropInfo>");
    const char *what = which ? "usqcdPropInfo" : "usqcdSourceInfo";
    int spin = need_int(s, x, what, "spin", 0, PROP_NS - 1), colour = need_int(s, x, what, "color", 0, nc - 1);
    free(x);
    int k = spin * nc + colour;
    if (s->seen[which][k]) rdie(s, "a second %s record of spin %d colour %d", which ? "solution" : "source", spin, colour);
    s->seen[which][k] = 1;

    expect(s, "scidac-binary-data");
    const uint64_t want = (uint64_t)p->lat.V * sb;
    if (s->r.hdr.len != want)
        rdie(s, "scidac-binary-data record is %" PRIu64 " bytes, expected %" PRIu64 " for %dx%dx%dx%d %s", s->r.hdr.len, want,
             p->lat.L[0], p->lat.L[1], p->lat.L[2], p->lat.L[3], v);
    const size_t per = 2 * PROP_NS * (size_t)nc;
    double *f = NULL;
    int64_t cap = 0;
    unsigned char *buf = lat_malloc(sb * SCIDAC_CHUNK_SITES);
    struct scidac_sum sum = {0, 0};
    /* the unit sites of a source: how many, the first, their smallest and
     * largest t (a wall source has them all on one t) */
    int64_t nonzero = 0, first = -1, t_lo = INT64_MAX, t_hi = -1;
    for (int64_t x0 = 0; x0 < p->lat.V; x0 += SCIDAC_CHUNK_SITES) {
        const int64_t n = p->lat.V - x0 < SCIDAC_CHUNK_SITES ? p->lat.V - x0 : SCIDAC_CHUNK_SITES;
        if (x0 + n > cap) { /* grow as the data arrive */
            while (cap < x0 + n) cap = cap ? cap * 2 : SCIDAC_CHUNK_SITES;
            if (cap > p->lat.V) cap = p->lat.V;
            f = lat_realloc(f, (size_t)cap * per * sizeof(double));
        }
        if (lime_read(&s->r, buf, sb * (size_t)n) < 0) { free(f); free(buf); rdie(s, "%s", s->r.err); }
        struct column_decode cd = {f, per, prec};
        scidac_code_chunk(&sum, x0, n, buf, sb, decode_column_site, &cd);
        /* the checks, on the threads: the first offending real in file
         * order decides the message, as a site-by-site reader would */
        uint64_t bad = UINT64_MAX;
        int64_t units = 0, unit_first = INT64_MAX, lo = INT64_MAX, hi = -1;
#pragma omp parallel for schedule(static) reduction(min : bad, unit_first, lo) reduction(max : hi) reduction(+ : units) if (n >= 1024)
        for (int64_t i = 0; i < n; i++) {
            const int64_t xs = x0 + i;
            const double *v = f + (size_t)xs * per;
            int unit = 0; /* a source site holds 1 at (spin, colour), else nothing */
            for (size_t j = 0; j < per; j++) {
                if (!isfinite(v[j]) || (which == 0 && v[j] != 0 && !(j == 2 * (size_t)k && v[j] == 1.0))) {
                    if ((uint64_t)xs * per + j < bad) bad = (uint64_t)xs * per + j;
                    break;
                }
                if (which == 0 && v[j] != 0) unit = 1;
            }
            if (unit) {
                int c[LAT_ND];
                lattice_coords(&p->lat, xs, c);
                units++;
                if (xs < unit_first) unit_first = xs;
                if (c[3] < lo) lo = c[3];
                if (c[3] > hi) hi = c[3];
            }
        }
        if (bad != UINT64_MAX) {
            const int finite = isfinite(f[bad]);
            free(f);
            free(buf);
            if (!finite) rdie(s, "non-finite number in the %s of spin %d colour %d", which ? "solution" : "source", spin, colour);
            rdie(s, "the source of spin %d colour %d is not a unit source (site %" PRIu64 ")", spin, colour, bad / per);
        }
        nonzero += units;
        if (first < 0 && units) first = unit_first;
        if (lo < t_lo) t_lo = lo;
        if (hi > t_hi) t_hi = hi;
    }
    free(buf);
    const int one_t = nonzero > 0 && t_lo == t_hi;
    const int64_t t_first = t_lo;
    expect(s, "scidac-checksum");
    x = read_text(s);
    char a[32], b[32];
    need(s, x, "scidac-checksum", "suma", a, sizeof a);
    need(s, x, "scidac-checksum", "sumb", b, sizeof b);
    free(x);
    char *ea, *eb;
    unsigned long sa = strtoul(a, &ea, 16), sbb = strtoul(b, &eb, 16);
    if (*ea || *eb || sa != sum.a || sbb != sum.b)
        rdie(s, "SciDAC checksum mismatch in the %s of spin %d colour %d: the file says %s %s, the data give %" PRIx32 " %" PRIx32,
             which ? "solution" : "source", spin, colour, a, b, sum.a, sum.b);
    if (which) {
        p->col[k] = f;
        return;
    }
    free(f);
    /* the sources: all columns the same point, or the same full timeslice */
    int64_t V3 = p->lat.V / p->lat.L[3];
    struct prop_source here = {0};
    if (nonzero == 1) {
        lattice_coords(&p->lat, first, here.x);
    } else if (nonzero == V3 && one_t) {
        here.wall = 1;
        here.x[3] = (int)t_first;
    } else rdie(s, "the source of spin %d colour %d is neither a point nor a wall (%" PRId64 " sites)", spin, colour, nonzero);
    if (s->src_wall_t == -2) {
        p->src = here;
        s->src_wall_t = 0;
    } else if (memcmp(&here, &p->src, sizeof here) != 0)
        rdie(s, "the sources of the columns differ (spin %d colour %d)", spin, colour);
}

void prop_read(const char *path, struct propagator *p)
{
    memset(p, 0, sizeof *p);
    const char *name;
    FILE *f = conf_open_input(path, "a propagator file or pipe one in", &name);
    p->name = name;
    struct pr st;
    memset(&st, 0, sizeof st);
    struct pr *s = &st;
    s->p = p;
    s->name = name;
    s->src_wall_t = -2;
    byte_in_init(&s->in, f, name, NULL, 0);
    lime_reader_init(&s->r, &s->in);
    int64_t left = conf_input_left(&s->in);
    read_header(s, left);
    int rc;
    while ((rc = lime_next(&s->r)) > 0) {
        const char *t = s->r.hdr.type;
        if (strcmp(t, "scidac-private-record-xml") == 0) read_field(s, left);
        else if (strcmp(t, LAT_REC_HISTORY) == 0) {
            free(p->history);
            p->history = read_text(s);
        } /* any other record (a producer's own) is passed over */
    }
    if (rc < 0) rdie(s, "%s", s->r.err);
    if (!p->nc) rdie(s, "holds no field records");
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < PROP_NS * p->nc; k++)
            if (!s->seen[w][k])
                rdie(s, "has no %s record for spin %d colour %d (truncated?)", w ? "solution" : "source", k / p->nc, k % p->nc);
    if (f != stdin) fclose(f);
}

void prop_free(struct propagator *p)
{
    for (int k = 0; k < PROP_NS * LAT_NC_MAX; k++) free(p->col[k]);
    free(p->info);
    free(p->history);
    memset(p, 0, sizeof *p);
}
