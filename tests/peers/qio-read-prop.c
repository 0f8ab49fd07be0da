/* qio-read-prop.c -- a peer reader for tests/qio.bats: opens a propagator
 * file of lat-propagator with QIO, the USQCD I/O library that Chroma (QDP++)
 * and MILC read propagators with, on one node, and prints what QIO makes of
 * it.  Not part of lat and not built by `make`: tests/qio.bats compiles it
 * against an installed QIO (QIO_DIR, default /work/qio-build/install):
 *
 *   cc -O2 -I$QIO_DIR/include tests/peers/qio-read-prop.c -L$QIO_DIR/lib -lqio -llime -lm
 *   qio-read-prop FILE LX LY LZ LT
 *
 * QIO (github.com/usqcd-software/qio 273841537392f9465d229c957228755e923408eb,
 * with c-lime 924aa0fce27a6cd73d94c9adc4b995f00e13232b, its submodule)
 * built for one processor without QMP: autoreconf -fi in c-lime and in qio,
 * then configure --enable-parallel-arch=scalar --prefix=$QIO_DIR, make,
 * make install (docs/VALIDATION.md, "QIO reads lat's propagator files").
 *
 * What it checks, each with QIO's own functions:
 *   - QIO_open_read with a one-node layout of LX x LY x LZ x LT: QIO parses
 *     the private file XML and compares its dims with the layout;
 *   - the file XML decodes with QIO_decode_usqcd_propfile_info (version,
 *     type, info all present) and its type is USQCD_DiracFermion_Source_Sink_Pairs
 *     (QIO_get_usqcd_propfile_type, the test MILC's reader makes);
 *   - then 2 x 4 nc records, source then solution of spin s, colour c in the
 *     order k = s nc + c: QIO_read_record_info parses the private record XML
 *     (its datatype, precision, colours, spins, typesize, datacount are
 *     printed), the record XML decodes with QIO_decode_usqcd_propsource_info
 *     / _proprecord_info with <spin> s and <color> c; QIO_read_record_data
 *     reads the sites with a put function (datum = 4 nc complex numbers of
 *     the precision QIO reports: QIO itself refuses a typesize x datacount
 *     other than that, and a record of another length) and compares the
 *     SciDAC checksum it computes with the file's.
 * Printed (one line each, "key value..."): file-xml, filetype, per record
 * "record K source|solution spin S color C datatype ... norm2 N" and its
 * record-xml, then the source timeslice t0 (from the source records' data)
 * and "pion T C" for T = 0..LT-1: sum over the solutions and the sites of
 * timeslice t0+T of |S|^2 -- lat-meson's C_pi(t) by the identity
 * C_pi = sum |S|^2 (tools/shared/meson.h) -- and "norm2-solutions" their
 * sum.  Any refusal: "qio-read-prop: FILE: ..." on standard error with
 * QIO's status, exit 1; usage errors exit 2. */
#include <qio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ND = 4, NS = 4 };

static int L[ND];
static size_t volume;
static const char *file_name;

/* one node holds the whole lattice, sites in lexicographic (ILDG) order */
static int node_number(const int coords[]) { (void)coords; return 0; }
static int node_index(const int coords[])
{
    return coords[0] + L[0] * (coords[1] + L[1] * (coords[2] + L[2] * coords[3]));
}
static void get_coords(int coords[], int node, int index)
{
    (void)node;
    for (int mu = 0; mu < ND; mu++) {
        coords[mu] = index % L[mu];
        index /= L[mu];
    }
}
static int num_sites(int node) { (void)node; return (int)volume; }

/* where QIO puts the sites of one record: datum = reals_per_site words */
struct field {
    double *re_im;      /* volume x reals_per_site */
    size_t reals_per_site;
    int word_size;      /* 4 (F) or 8 (D) */
};

static void put_site(char *buf, size_t index, int count, void *arg)
{
    struct field *f = arg;
    (void)count; /* datacount 1: QIO checked it against the datum size */
    double *out = f->re_im + index * f->reals_per_site;
    for (size_t j = 0; j < f->reals_per_site; j++) {
        if (f->word_size == 8) {
            double d;
            memcpy(&d, buf + 8 * j, 8);
            out[j] = d;
        } else {
            float x;
            memcpy(&x, buf + 4 * j, 4);
            out[j] = x;
        }
    }
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "qio-read-prop: %s: ", file_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc != 2 + ND) {
        fprintf(stderr, "usage: qio-read-prop FILE LX LY LZ LT\n");
        return 2;
    }
    file_name = argv[1];
    volume = 1;
    for (int mu = 0; mu < ND; mu++) {
        L[mu] = atoi(argv[2 + mu]);
        if (L[mu] < 1) {
            fprintf(stderr, "qio-read-prop: extent '%s' is not a positive integer\n", argv[2 + mu]);
            return 2;
        }
        volume *= (size_t)L[mu];
    }
    QIO_verbose(QIO_VERB_OFF);
    QIO_Layout layout = {0};
    layout.node_number = node_number;
    layout.node_index = node_index;
    layout.get_coords = get_coords;
    layout.num_sites = num_sites;
    layout.latsize = L;
    layout.latdim = ND;
    layout.volume = volume;
    layout.sites_on_node = volume;
    layout.this_node = 0;
    layout.number_of_nodes = 1;
    QIO_Iflag iflag = {.serpar = QIO_SERIAL, .volfmt = QIO_UNKNOWN};

    QIO_String *file_xml = QIO_string_create();
    QIO_Reader *in = QIO_open_read(file_xml, file_name, &layout, NULL, &iflag);
    if (!in) fail("QIO_open_read refused the file (NULL reader)");
    printf("file-xml %s\n", QIO_string_ptr(file_xml));
    QIO_USQCDPropFileInfo prop_file;
    int rc = QIO_decode_usqcd_propfile_info(&prop_file, file_xml);
    if (rc != 0) fail("QIO_decode_usqcd_propfile_info: %d elements missing or bad", rc);
    if (QIO_get_usqcd_propfile_type(&prop_file) != QIO_USQCDPROPFILETYPE_DD_PAIRS)
        fail("file type '%s' is not USQCD_DiracFermion_Source_Sink_Pairs", prop_file.type.value);
    printf("filetype %s\n", prop_file.type.value);

    int nc = 0, t0 = -1;
    double *pion = calloc((size_t)L[3], sizeof(double)), norm2_solutions = 0;
    struct field f = {0};
    QIO_String *rec_xml = QIO_string_create();
    char what[128];
    for (int r = 0; nc == 0 || r < 2 * NS * nc; r++) {
        const int solution = r % 2, k = r / 2;
        QIO_RecordInfo info;
        snprintf(what, sizeof what, "record %d", r);
        if ((rc = QIO_read_record_info(in, &info, rec_xml)) != QIO_SUCCESS)
            fail("QIO_read_record_info of %s returned %d", what, rc);
        const char *prec = QIO_get_precision(&info);
        const int colors = QIO_get_colors(&info);
        if (nc == 0) {
            if (colors < 1 || colors > 8) fail("%s: QIO reports %d colours", what, colors);
            nc = colors;
            f.reals_per_site = 2 * NS * (size_t)nc;
            f.re_im = malloc(volume * f.reals_per_site * sizeof(double));
        }
        if (colors != nc) fail("%s: colours differ from the first record's (%d)", what, colors);
        if (strcmp(prec, "D") != 0 && strcmp(prec, "F") != 0) fail("%s: precision '%s' is neither D nor F", what, prec);
        f.word_size = prec[0] == 'D' ? 8 : 4;
        const int s = k / nc, c = k % nc;
        int rs, rcol;
        if (!solution) {
            QIO_USQCDPropSourceInfo src;
            if ((rc = QIO_decode_usqcd_propsource_info(&src, rec_xml)) != 0)
                fail("QIO_decode_usqcd_propsource_info of %s: %d elements missing or bad", what, rc);
            if (!QIO_defined_usqcd_propsource_spin(&src) || !QIO_defined_usqcd_propsource_color(&src))
                fail("%s: the source XML has no <spin> or <color>", what);
            rs = QIO_get_usqcd_propsource_spin(&src);
            rcol = QIO_get_usqcd_propsource_color(&src);
        } else {
            QIO_USQCDPropRecordInfo sol;
            if ((rc = QIO_decode_usqcd_proprecord_info(&sol, rec_xml)) != 0)
                fail("QIO_decode_usqcd_proprecord_info of %s: %d elements missing or bad", what, rc);
            if (!QIO_defined_usqcd_proprecord_spin(&sol) || !QIO_defined_usqcd_proprecord_color(&sol))
                fail("%s: the solution XML has no <spin> or <color>", what);
            rs = QIO_get_usqcd_proprecord_spin(&sol);
            rcol = QIO_get_usqcd_proprecord_color(&sol);
        }
        if (rs != s || rcol != c) {
            fail("%s says spin %d colour %d, expected spin %d colour %d", what, rs, rcol, s, c);
        }
        const size_t datum = f.reals_per_site * (size_t)f.word_size;
        if ((rc = QIO_read_record_data(in, put_site, datum, f.word_size, &f)) != QIO_SUCCESS)
            fail(rc == QIO_CHECKSUM_MISMATCH ? "QIO_read_record_data of %s: checksum mismatch (status %d)"
                                             : "QIO_read_record_data of %s returned %d", what, rc);
        double norm2 = 0;
        for (size_t x = 0; x < volume; x++) {
            double site = 0;
            for (size_t j = 0; j < f.reals_per_site; j++) site += f.re_im[x * f.reals_per_site + j] * f.re_im[x * f.reals_per_site + j];
            norm2 += site;
            const int t = (int)(x / (volume / (size_t)L[3]));
            if (!solution && site != 0) {
                if (t0 >= 0 && t != t0) fail("the sources lie on two timeslices (%d and %d)", t0, t);
                t0 = t;
            }
            if (solution) {
                if (t0 < 0) fail("%s: a solution before any non-zero source", what);
                pion[(t - t0 + L[3]) % L[3]] += site;
            }
        }
        if (solution) norm2_solutions += norm2;
        printf("record %d %s spin %d color %d datatype %s precision %s colors %d spins %d typesize %zu datacount %d "
               "recordtype %d checksum %x %x norm2 %.17g\n",
               r, solution ? "solution" : "source", rs, rcol, QIO_get_datatype(&info), prec, colors, QIO_get_spins(&info),
               QIO_get_typesize(&info), QIO_get_datacount(&info), QIO_get_recordtype(&info),
               QIO_get_reader_last_checksuma(in), QIO_get_reader_last_checksumb(in), norm2);
        printf("record-xml %d %s\n", r, QIO_string_ptr(rec_xml));
    }
    printf("t0 %d\n", t0);
    for (int t = 0; t < L[3]; t++) printf("pion %d %.17g\n", t, pion[t]);
    printf("norm2-solutions %.17g\n", norm2_solutions);
    if ((rc = QIO_close_read(in)) != QIO_SUCCESS) fail("QIO_close_read returned %d", rc);
    QIO_string_destroy(rec_xml);
    QIO_string_destroy(file_xml);
    free(f.re_im);
    free(pion);
    return 0;
}
