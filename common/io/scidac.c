/* scidac.c -- SciDAC/QIO gauge files without ILDG records: what their
 * private records say (FORMATS.md §3.2, §3.4), and the text of the
 * private record the writers put.  Contracts in confio.h.  The framing is
 * ILDG's (ildg.c reads both, ildg_write.c writes both: scidac_write is
 * there); only the data record's name and the place the
 * lattice and the precision come from differ.
 *
 * scidac_gauge_format() reads the lattice from scidac-private-file-xml
 * (<spacetime> 4, <dims> four extents, <volfmt> 0 = one file when present)
 * and the field from scidac-private-record-xml: <recordtype> (1.1) or
 * <globaldata> (1.0) 0 when present, and <datatype>, <precision>, <colors>,
 * <typesize>, <datacount> all present and agreeing:
 *   QDP_<P><N>_ColorMatrix, USQCD_<P><N>_ColorMatrix   (QIO, MILC, Chroma,
 *        GLU, Grid's SciDAC, lat);  P = F (32-bit) or D (64-bit)
 *   QUDA_<P>Nc<N>_GaugeField                           (QUDA's qio_field.cpp)
 *   SIMULATeQCD_GAUGE_CONF                             (SIMULATeQCD 2022, N
 *        from <colors>)
 * <precision> F or D must be the datatype's P.  SIMULATeQCD's writer of
 * 2022-01..03 put IEEE32BIG / IEEE64BIG (briefly 32BIG / 64BIG) there and
 * wrote USQCD_F3_ColorMatrix for either precision: with those words the
 * precision is theirs and the datatype's letter is not consulted.
 * <colors> must be N (QUDA_ types: N or N*N, QUDA's first writer's "9");
 * <typesize> must be 2 N^2 x 4 or 8 bytes (one link), <datacount> 4.
 * Anything else is refused with one line naming the element and value.
 * The caller checks the binary record against V x datacount x typesize. */
#include "io/confio.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *scidac_private_record_xml(int nc, int prec, int datacount)
{
    return scidac_private_record_xml_typed("ColorMatrix", nc, 0, field_link_reals(nc) * (size_t)(prec / 8), prec,
                                           datacount);
}

char *scidac_private_record_xml_typed(const char *kind, int nc, int spins, size_t typesize, int prec, int datacount)
{
    char date[64], sp[48] = "";
    time_t now = conf_now();
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a %b %e %H:%M:%S %Y UTC", &tm);
    char pc = prec == 64 ? 'D' : 'F';
    if (spins) snprintf(sp, sizeof sp, "<spins>%d</spins>", spins);
    return conf_strfmt(LAT_XML_HEAD "<scidacRecord><version>1.1</version><date>%s</date><recordtype>0</recordtype>"
                       "<datatype>USQCD_%c%d_%s</datatype><precision>%c</precision><colors>%d</colors>%s"
                       "<typesize>%zu</typesize><datacount>%d</datacount></scidacRecord>",
                       date, pc, nc, kind, pc, nc, sp, typesize, datacount);
}

struct parse {
    char *err;
    size_t errn;
};

static int fail(struct parse *p, const char *fmt, ...) LAT_PRINTF(2, 3);
static int fail(struct parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errn, fmt, ap);
    va_end(ap);
    return -1;
}

/* a required element, found once: 0, or -1 with the reason */
static int need(struct parse *p, const char *rec, const char *xml, const char *name, char *out, size_t n)
{
    char why[160];
    int rc = xml_field(xml, name, out, n, why, sizeof why);
    if (rc < 0) return fail(p, "%s record: %s", rec, why);
    if (rc == 0 || !out[0]) return fail(p, "%s record has no <%s> element", rec, name);
    return 0;
}

/* an optional element that must be "0" when present */
static int zero_if_present(struct parse *p, const char *rec, const char *xml, const char *name, const char *what)
{
    char v[64], why[160];
    int rc = xml_field(xml, name, v, sizeof v, why, sizeof why);
    if (rc < 0) return fail(p, "%s record: %s", rec, why);
    if (rc == 1 && strcmp(v, "0") != 0) return fail(p, "%s <%s> is '%s': %s", rec, name, v, what);
    return 0;
}

/* "<digits>_<tail>" at s: N into *nc, 0; else -1 */
static int colours_then(const char *s, const char *tail, int *nc)
{
    if (*s < '1' || *s > '9') return -1;
    int n = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        n = n * 10 + (*s - '0');
        if (n > 1000) return -1;
    }
    if (strcmp(s, tail) != 0) return -1;
    *nc = n;
    return 0;
}

/* the datatype: N and the precision letter ('F', 'D', or 0: none named) */
static int datatype_fields(const char *t, int *nc, char *letter)
{
    *letter = 0;
    *nc = 0;
    if (strcmp(t, "SIMULATeQCD_GAUGE_CONF") == 0) return 0;
    const char *rest = strncmp(t, "QDP_", 4) == 0 ? t + 4 : strncmp(t, "USQCD_", 6) == 0 ? t + 6 : NULL;
    if (rest && (*rest == 'F' || *rest == 'D')) {
        *letter = *rest;
        return colours_then(rest + 1, "_ColorMatrix", nc);
    }
    if (strncmp(t, "QUDA_", 5) == 0 && (t[5] == 'F' || t[5] == 'D') && strncmp(t + 6, "Nc", 2) == 0) {
        *letter = t[5];
        return colours_then(t + 8, "_GaugeField", nc);
    }
    return -1;
}

static int precision_bits(const char *v, int *simulateqcd)
{
    *simulateqcd = 0;
    if (strcmp(v, "F") == 0) return 32;
    if (strcmp(v, "D") == 0) return 64;
    *simulateqcd = 1;
    if (strcmp(v, "IEEE32BIG") == 0 || strcmp(v, "32BIG") == 0) return 32;
    if (strcmp(v, "IEEE64BIG") == 0 || strcmp(v, "64BIG") == 0) return 64;
    return 0;
}

static int parse_dims(struct parse *p, const char *v, int *L)
{
    const char *s = v;
    for (int mu = 0; mu < LAT_ND; mu++) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
        char tok[16];
        size_t k = strcspn(s, " \t\r\n");
        if (k == 0 || k >= sizeof tok) return fail(p, "scidac-private-file-xml <dims> '%s' is not four lattice extents", v);
        memcpy(tok, s, k);
        tok[k] = 0;
        if (conf_parse_posint(tok, &L[mu]) < 0)
            return fail(p, "scidac-private-file-xml <dims> '%s': '%s' is not a positive lattice extent", v, tok);
        s += k;
    }
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (*s) return fail(p, "scidac-private-file-xml <dims> '%s' is not four lattice extents", v);
    return 0;
}

int scidac_gauge_format(const char *file_xml, const char *record_xml, struct scidac_format *f, char *err, size_t errn)
{
    struct parse ps = {err, errn}, *p = &ps;
    static const char *const FX = "scidac-private-file-xml", *const RX = "scidac-private-record-xml";
    char v[128];
    memset(f, 0, sizeof *f);
    if (need(p, FX, file_xml, "spacetime", v, sizeof v) < 0) return -1;
    if (strcmp(v, "4") != 0) return fail(p, "%s <spacetime> is '%s': lat reads four-dimensional lattices", FX, v);
    if (need(p, FX, file_xml, "dims", v, sizeof v) < 0 || parse_dims(p, v, f->L) < 0) return -1;
    if (zero_if_present(p, FX, file_xml, "volfmt", "not a single file (1 multifile, 2 partition format)") < 0 ||
        zero_if_present(p, RX, record_xml, "recordtype", "not a lattice field (1 global data, 2 a subset)") < 0 ||
        zero_if_present(p, RX, record_xml, "globaldata", "global data, not a lattice field") < 0)
        return -1;

    char colors[64], typesize[64], datacount[64], prec[64];
    if (need(p, RX, record_xml, "datatype", f->datatype, sizeof f->datatype) < 0 ||
        need(p, RX, record_xml, "precision", prec, sizeof prec) < 0 ||
        need(p, RX, record_xml, "colors", colors, sizeof colors) < 0 ||
        need(p, RX, record_xml, "typesize", typesize, sizeof typesize) < 0 ||
        need(p, RX, record_xml, "datacount", datacount, sizeof datacount) < 0)
        return -1;
    const char *t = f->datatype;
    int nc, ncolors, size, count, simq;
    char letter;
    if (datatype_fields(t, &nc, &letter) < 0)
        return fail(p, "datatype '%s' is not a gauge field lat reads (QDP_ or USQCD_ F|D N _ColorMatrix, "
                       "QUDA_ F|D Nc N _GaugeField, SIMULATeQCD_GAUGE_CONF)", t);
    f->prec = precision_bits(prec, &simq);
    if (!f->prec) return fail(p, "%s <precision> '%s' is not F or D (datatype %s)", RX, prec, t);
    if (letter && !simq && (letter == 'D') != (f->prec == 64))
        return fail(p, "datatype %s is %s precision but <precision> says %s", t, letter == 'D' ? "double" : "single", prec);
    if (conf_parse_posint(colors, &ncolors) < 0) return fail(p, "%s <colors> '%s' is not a number of colours", RX, colors);
    if (!nc) nc = ncolors; /* SIMULATeQCD_GAUGE_CONF names no N */
    int quda_legacy = strncmp(t, "QUDA_", 5) == 0 && ncolors == nc * nc;
    if (ncolors != nc && !quda_legacy) return fail(p, "datatype %s is SU(%d) but <colors> says %s", t, nc, colors);
    if (nc < 2 || nc > LAT_NC_MAX)
        return fail(p, "datatype %s: SU(%d) is not a gauge group lat reads (N from 2 to %d)", t, nc, LAT_NC_MAX);
    int link_bytes = (int)field_link_reals(nc) * f->prec / 8;
    if (conf_parse_posint(typesize, &size) < 0 || size != link_bytes)
        return fail(p, "%s <typesize> '%s' disagrees with %s %s: one SU(%d) matrix is %d bytes", RX, typesize, t, prec, nc,
                    link_bytes);
    if (conf_parse_posint(datacount, &count) < 0 || count != LAT_ND)
        return fail(p, "%s <datacount> '%s' is not 4 (one matrix per direction): %s is not a gauge configuration", RX,
                    datacount, t);
    f->nc = nc;
    return 0;
}
