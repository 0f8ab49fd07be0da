/* test_io.c -- file I/O of common/: LIME framing (round trip through a pipe,
 * every framing error the reader must catch, the writer's refusals), CRC-32
 * and the SciDAC checksum (unit 4^4 double field = 35b49a1b / b49a1b35),
 * the XML scanner, ILDG and NERSC round trips of random fields (exact in
 * double, ILDG -> NERSC 3x3 -> ILDG bit-identical binary record), SU(2)
 * ILDG, carried records, history and tracked transform. */
#include "io/conf.h"
#include "io/confio.h"
#include "io/lime.h"
#include "base/log.h"
#include "lattice/observables.h"
#include "unit.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static char dir[64];

static const char *tmp(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* ---- LIME ---------------------------------------------------------------- */

static const uint64_t lens[] = {0, 1, 7, 8, 9, 1000, 4097};
#define NREC (int)(sizeof lens / sizeof lens[0])

static void rec_type(int i, char *t)
{
    if (i == NREC - 1) { memset(t, 'q', 127); t[127] = 0; } /* longest writable type */
    else sprintf(t, "test-record-%d", i);
}

static unsigned char rec_byte(int i, uint64_t j) { return (unsigned char)(i * 31 + j * 7 + 1); }

static void write_records(FILE *f)
{
    struct lime_writer w;
    lime_writer_init(&w, f);
    for (int i = 0; i < NREC; i++) {
        char t[130];
        rec_type(i, t);
        unsigned char *d = malloc(lens[i] + 1);
        for (uint64_t j = 0; j < lens[i]; j++) d[j] = rec_byte(i, j);
        /* messages: {0,1}, {2}, {3,4,5,6} */
        int mb = i == 0 || i == 2 || i == 3, me = i == 1 || i == 2 || i == NREC - 1;
        if (lime_begin(&w, t, lens[i], mb, me) < 0) { fprintf(stderr, "%s\n", w.err); exit(3); }
        /* write in two pieces */
        uint64_t h = lens[i] / 2;
        if (lime_write(&w, d, h) < 0 || lime_write(&w, d + h, lens[i] - h) < 0 || lime_end(&w) < 0) {
            fprintf(stderr, "%s\n", w.err);
            exit(3);
        }
        free(d);
    }
}

static void test_lime_pipe(void)
{
    int fd[2];
    CHECK(pipe(fd) == 0, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        FILE *f = fdopen(fd[1], "wb");
        write_records(f);
        fclose(f);
        _exit(0);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "rb");
    struct byte_in in;
    byte_in_init(&in, f, "pipe", NULL, 0);
    struct lime_reader r;
    lime_reader_init(&r, &in);
    int i = 0, rc;
    uint64_t expect_off = 0;
    while ((rc = lime_next(&r)) > 0) {
        char t[130];
        rec_type(i, t);
        CHECK(i < NREC, "too many records");
        if (i >= NREC) break;
        CHECK(strcmp(r.hdr.type, t) == 0, "record %d type '%s'", i, r.hdr.type);
        CHECK(r.hdr.len == lens[i], "record %d len %llu", i, (unsigned long long)r.hdr.len);
        CHECK(r.hdr.offset == expect_off, "record %d at %llu, expected %llu", i, (unsigned long long)r.hdr.offset,
              (unsigned long long)expect_off);
        CHECK(r.hdr.offset % 8 == 0, "record %d header aligned", i);
        int mb = i == 0 || i == 2 || i == 3, me = i == 1 || i == 2 || i == NREC - 1;
        CHECK(r.hdr.mb == mb && r.hdr.me == me, "record %d MB %d ME %d", i, r.hdr.mb, r.hdr.me);
        if (i % 2 == 0) { /* read half of the even ones: the rest must be skipped */
            unsigned char *d;
            CHECK(lime_read_all(&r, &d, 1 << 20) == 0, "read %d", i);
            int ok = 1;
            for (uint64_t j = 0; j < lens[i]; j++) ok &= d[j] == rec_byte(i, j);
            CHECK(ok, "record %d payload", i);
            free(d);
        } else if (lens[i] > 2) {
            unsigned char d2[2];
            CHECK(lime_read(&r, d2, 2) == 0 && d2[0] == rec_byte(i, 0) && d2[1] == rec_byte(i, 1), "partial read %d", i);
        }
        expect_off += 144 + lens[i] + lime_padding(lens[i]);
        i++;
    }
    CHECK(rc == 0, "clean end: %s", r.err);
    CHECK(i == NREC, "read %d records of %d", i, NREC);
    fclose(f);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer child");
}

/* the whole file as bytes */
static unsigned char *records_bytes(size_t *n)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, n);
    write_records(f);
    fclose(f);
    return (unsigned char *)buf;
}

/* read all records of a byte string; returns 0 or -1 and the error text */
static int read_bytes(const unsigned char *b, size_t n, char *err, int *nrec)
{
    FILE *f;
    if (n == 0) { /* an empty pipe */
        int fd[2];
        if (pipe(fd) != 0) return -2;
        close(fd[1]);
        f = fdopen(fd[0], "rb");
    } else
        f = fmemopen((void *)b, n, "rb");
    struct byte_in in;
    byte_in_init(&in, f, "mem", NULL, 0);
    struct lime_reader r;
    lime_reader_init(&r, &in);
    int rc;
    *nrec = 0;
    while ((rc = lime_next(&r)) > 0) (*nrec)++;
    fclose(f);
    snprintf(err, 256, "%s", r.err);
    return rc;
}

static void test_lime_errors(void)
{
    size_t n;
    unsigned char *b = records_bytes(&n);
    char err[256];
    int k;
    uint64_t last = 144 + lens[NREC - 1] + lime_padding(lens[NREC - 1]);
    CHECK(n % 8 == 0, "file size multiple of 8");
    CHECK(read_bytes(b, n, err, &k) == 0 && k == NREC, "intact: %s", err);
    /* missing padding after the last record is allowed (4097 -> 7 pad bytes) */
    CHECK(read_bytes(b, n - 7, err, &k) == 0 && k == NREC, "missing final pad: %s", err);
    CHECK(read_bytes(b, n - 3, err, &k) == 0 && k == NREC, "partial final pad: %s", err);
    /* payload cut short */
    CHECK(read_bytes(b, n - 8, err, &k) < 0 && strstr(err, "truncated") && strstr(err, "4096 of 4097"), "truncated payload: %s", err);
    /* header cut short */
    CHECK(read_bytes(b, n - last + 100, err, &k) < 0 && strstr(err, "truncated") && strstr(err, "header"), "truncated header: %s", err);
    CHECK(read_bytes(b, n - last + 1, err, &k) < 0 && strstr(err, "1 of 144"), "1-byte header: %s", err);
    /* empty input is a clean end with no records (conf_read says "empty input") */
    CHECK(read_bytes(b, 0, err, &k) == 0 && k == 0, "empty");
    /* wrong magic in the second record */
    unsigned char *c = malloc(n);
    memcpy(c, b, n);
    size_t second = 144 + 0;
    c[second] ^= 0x10;
    CHECK(read_bytes(c, n, err, &k) < 0 && strstr(err, "magic") && strstr(err, "byte 144"), "bad magic: %s", err);
    /* wrong version */
    memcpy(c, b, n);
    c[5] = 2;
    CHECK(read_bytes(c, n, err, &k) < 0 && strstr(err, "version 2"), "bad version: %s", err);
    /* a length that runs past the end */
    memcpy(c, b, n);
    c[144 + 15] = 200; /* record 1 (len 1) now 200 bytes */
    CHECK(read_bytes(c, n, err, &k) < 0, "length too long: %s", err);
    /* padding missing between records: the next header is misread */
    size_t off2 = 144 + 144 + 8; /* record 2 (len 7) begins here */
    unsigned char *d = malloc(n);
    memcpy(d, b, off2 + 144 + 7);                                         /* record 2 without its pad byte */
    memcpy(d + off2 + 144 + 7, b + off2 + 152, n - (off2 + 152));          /* then the rest */
    CHECK(read_bytes(d, n - 1, err, &k) < 0 && strstr(err, "magic"), "missing inner pad: %s", err);
    /* a 128-character type (no NUL in the header) is accepted */
    memcpy(c, b, n);
    memset(c + 16, 'z', 128);
    FILE *f = fmemopen(c, n, "rb");
    struct byte_in in;
    byte_in_init(&in, f, "mem", NULL, 0);
    struct lime_reader r;
    lime_reader_init(&r, &in);
    CHECK(lime_next(&r) == 1 && strlen(r.hdr.type) == 128, "128-char type");
    fclose(f);
    free(c);
    free(d);
    free(b);

    /* writer refusals */
    char *wb = NULL;
    size_t wn;
    f = open_memstream(&wb, &wn);
    struct lime_writer w;
    lime_writer_init(&w, f);
    char t128[129];
    memset(t128, 'x', 128);
    t128[128] = 0;
    CHECK(lime_begin(&w, t128, 0, 1, 1) < 0, "128-char type refused");
    CHECK(lime_begin(&w, "", 0, 1, 1) < 0, "empty type refused");
    CHECK(lime_begin(&w, "a", 4, 1, 0) == 0, "begin");
    CHECK(lime_write(&w, "abcde", 5) < 0, "overlong data refused");
    CHECK(lime_write(&w, "abc", 3) == 0, "write 3");
    CHECK(lime_end(&w) < 0, "short record refused");
    CHECK(lime_write(&w, "d", 1) == 0 && lime_end(&w) == 0, "finish");
    CHECK(lime_begin(&w, "b", 0, 1, 1) < 0, "MB after ME=0 refused");
    CHECK(lime_begin(&w, "b", 0, 0, 1) == 0 && lime_end(&w) == 0, "ME closes message");
    CHECK(lime_begin(&w, "c", 0, 0, 1) < 0, "MB=0 after ME refused");
    fclose(f);
    CHECK(wn == 144 + 8 + 144, "bytes written %zu", wn);
    free(wb);
}

/* ---- checksums and XML ---------------------------------------------------- */

static void test_checksums(void)
{
    CHECK(lat_crc32(0, "123456789", 9) == 0xcbf43926u, "crc32 check value %08x", lat_crc32(0, "123456789", 9));
    CHECK(lat_crc32(lat_crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u, "crc32 incremental");
    CHECK(rotl32(0x80000001u, 0) == 0x80000001u && rotl32(0x80000001u, 1) == 3u && rotl32(1u, 31) == 0x80000000u, "rotl32");
    struct lattice lat;
    int L[4] = {4, 4, 4, 4};
    lattice_init(&lat, L, NULL);
    struct field u;
    field_alloc(&u, &lat, 3, 64);
    field_set_unit(&u);
    struct scidac_sum s = scidac_checksum_field(&u, 64);
    CHECK(s.a == 0x35b49a1bu && s.b == 0xb49a1b35u, "unit 4^4 double: suma %08x sumb %08x", s.a, s.b);
    s = scidac_checksum_field(&u, 32);
    CHECK(s.a != 0x35b49a1bu, "single precision differs");
    field_free(&u);
}

/* scidac_code_chunk against the site-by-site definition: random bytes of
 * 5000 sites of 40 bytes, the chunk offset x0 in the rotations, sizes on
 * both sides of its threshold (1024), 1 and 2 threads, a decoder copy */
static void copy_site(void *ctx, int64_t x, unsigned char *bytes)
{
    const unsigned char *src = ctx;
    memcpy(bytes, src + (size_t)x * 40, 40);
}

static void test_code_chunk(void)
{
    enum { N = 5000, SB = 40 };
    unsigned char *src = malloc((size_t)N * SB), *buf = malloc((size_t)N * SB);
    uint32_t r = 12345;
    for (size_t i = 0; i < (size_t)N * SB; i++) { r = r * 1664525u + 1013904223u; src[i] = (unsigned char)(r >> 24); }
    const int64_t sizes[][2] = {{0, 1}, {7, 1023}, {3, 1024}, {0, N}, {1000, 4000}};
#ifdef _OPENMP
    const int threads_before = omp_get_max_threads();
#endif
    for (int t = 1; t <= 2; t++) {
#ifdef _OPENMP
        omp_set_num_threads(t);
#endif
        for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
            const int64_t x0 = sizes[c][0], k = sizes[c][1];
            struct scidac_sum want = {0x1234u, 0x5678u}, got = want; /* a sum carried in from earlier chunks */
            for (int64_t x = x0; x < x0 + k; x++) scidac_sum_site(&want, (uint64_t)x, lat_crc32(0, src + (size_t)x * SB, SB));
            memset(buf, 0, (size_t)N * SB);
            /* the encoder's view: the callback fills buf from the source */
            scidac_code_chunk(&got, x0, k, buf, SB, copy_site, src);
            CHECK(got.a == want.a && got.b == want.b, "code_chunk x0 %lld k %lld, %d threads: %08x %08x, want %08x %08x",
                  (long long)x0, (long long)k, t, got.a, got.b, want.a, want.b);
            CHECK(memcmp(buf, src + (size_t)x0 * SB, (size_t)k * SB) == 0, "code_chunk x0 %lld k %lld: the bytes",
                  (long long)x0, (long long)k);
        }
    }
#ifdef _OPENMP
    omp_set_num_threads(threads_before);
#endif
    free(src);
    free(buf);
}

static void test_xml(void)
{
    const char *x = "<?xml version=\"1.0\"?>\n<ildg:ildgFormat xmlns:ildg=\"u\"><ildg:field>\n su3gauge  </ildg:field>"
                    "<precision>64</precision><lx/><ly>4</ly></ildg:ildgFormat>";
    char v[32];
    CHECK(xml_text(x, "field", v, sizeof v) && strcmp(v, "su3gauge") == 0, "prefixed, trimmed: '%s'", v);
    CHECK(xml_text(x, "precision", v, sizeof v) && strcmp(v, "64") == 0, "precision");
    CHECK(xml_text(x, "lx", v, sizeof v) && v[0] == 0, "empty element");
    CHECK(!xml_text(x, "lz", v, sizeof v), "absent");
    CHECK(!xml_has(x, "xml"), "processing instruction is no element");
    CHECK(xml_has(x, "ildgFormat"), "root");
    const char *u = "<usqcdInfo><version>1.0</version><plaq> 0.5 </plaq></usqcdInfo>";
    char *r = xml_replace(u, "plaq", "usqcdInfo", "0.7");
    CHECK(r && strcmp(r, "<usqcdInfo><version>1.0</version><plaq>0.7</plaq></usqcdInfo>") == 0, "replace: %s", r);
    char *r2 = xml_replace(r, "linktr", "usqcdInfo", "0.9");
    CHECK(r2 && strstr(r2, "<linktr>0.9</linktr></usqcdInfo>"), "insert: %s", r2);
    CHECK(xml_replace("<a/>", "plaq", "usqcdInfo", "1") == NULL, "nothing to replace");
    free(r);
    free(r2);
    /* issue 12: comments and CDATA are no elements, duplicates and broken
     * documents are errors, entities are decoded, the reader is linear */
    char err[200];
    CHECK(xml_field("<a><!-- <lx>2</lx> --><lx>4</lx></a>", "lx", v, sizeof v, err, sizeof err) == 1 && strcmp(v, "4") == 0,
          "comment is no element: %s", v);
    CHECK(xml_field("<a><![CDATA[<lx>2</lx>]]><lx>4</lx></a>", "lx", v, sizeof v, err, sizeof err) == 1 && strcmp(v, "4") == 0,
          "CDATA is no element: %s", v);
    CHECK(xml_field("<a><lx>4</lx><lx>4</lx></a>", "lx", v, sizeof v, err, sizeof err) == -1 && strstr(err, "appears 2 times"),
          "duplicate: %s", err);
    CHECK(xml_field("<a><lx>4</ly></a>", "lx", v, sizeof v, err, sizeof err) == -1, "mismatched end tag");
    CHECK(xml_field("<!DOCTYPE a><a/>", "a", v, sizeof v, err, sizeof err) == -1, "DOCTYPE refused");
    CHECK(xml_field("<a>&#x34;&lt;<![CDATA[&]]></a>", "a", v, sizeof v, err, sizeof err) == 1 && strcmp(v, "4<&") == 0,
          "entities and CDATA text: %s", v);
    size_t big = (size_t)1 << 20;
    char *slow = malloc(big + 16);
    strcpy(slow, "<a>");
    for (size_t i = 3; i + 2 < big; i += 2) memcpy(slow + i, "<a", 2);
    slow[big - 1] = 0;
    clock_t t0 = clock();
    CHECK(xml_field(slow, "lx", v, sizeof v, err, sizeof err) == -1, "1 MiB of '<a' refused");
    memset(slow, ' ', big);
    memcpy(slow, "<a>", 3);
    memcpy(slow + big - 8, "</a>", 5);
    CHECK(xml_field(slow, "lx", v, sizeof v, err, sizeof err) == 0, "1 MiB document, no lx");
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 0.5, "1 MiB documents in %.3f s", (double)(clock() - t0) / CLOCKS_PER_SEC);
    free(slow);
    /* messages: bytes of a file come out escaped */
    char clean[128];
    lat_sanitize(clean, sizeof clean, "a\x1b[2J\n\xff\x8c\x8c\xe2\x80\xae\xc3\xa9");
    CHECK(strcmp(clean, "a\\x1b[2J\\x0a\\xff\\x8c\\x8c\\xe2\\x80\\xae\xc3\xa9") == 0, "sanitised: %s", clean);
    /* extents whose product overflows */
    struct lattice lat;
    const char *why = NULL;
    int L[4] = {1 << 24, 1 << 24, 1 << 24, 1 << 24};
    CHECK(lattice_init(&lat, L, &why) == -1 && why && strstr(why, "2^31"), "overflowing extents refused");
}

/* ---- configurations -------------------------------------------------------- */

/* payload of the first record of a type in a LIME file (malloc'd) */
static unsigned char *file_record(const char *path, const char *type, uint64_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct byte_in in;
    byte_in_init(&in, f, path, NULL, 0);
    struct lime_reader r;
    lime_reader_init(&r, &in);
    unsigned char *d = NULL;
    while (lime_next(&r) > 0)
        if (strcmp(r.hdr.type, type) == 0) {
            *len = r.hdr.len;
            if (lime_read_all(&r, &d, UINT64_C(1) << 32) < 0) d = NULL;
            break;
        }
    fclose(f);
    return d;
}

static double max_diff(const struct field *a, const struct field *b)
{
    double m = 0;
    for (size_t i = 0; i < field_reals(a); i++) m = fmax(m, fabs(a->d[i] - b->d[i]));
    return m;
}

static void test_roundtrips(void)
{
    struct lattice lat;
    int L[4] = {4, 4, 2, 6};
    lattice_init(&lat, L, NULL);
    struct conf c, r, r2;
    conf_init(&c, &lat, 3);
    CHECK(max_diff(&c.u, &c.u) == 0 && c.u.d[0] == 1 && c.u.d[2] == 0, "conf_init gives unit links");
    field_set_random(&c.u, 1234);
    setenv("SOURCE_DATE_EPOCH", "0", 1);
    conf_history_add(&c, "first=1");
    conf_history_add(&c, "tab\there");
    CHECK(strcmp(c.history, "1970-01-01T00:00:00Z\tlat 0.1.0\t\tfirst=1\n"
                             "1970-01-01T00:00:00Z\tlat 0.1.0\t\ttab here\n") == 0, "history: [%s]", c.history);
    conf_transform_start(&c);
    CHECK(c.transform[0] == 1 && c.transform[1] == 0 && c.transform[2] == 0 && c.transform[8] == 1 && c.transform[16] == 1,
          "identity transform");
    c.transform[5] = 0.25; /* any numbers survive */
    conf_keep_add(&c, "xlf-info", (const unsigned char *)"plaquette = 0.1\n", 16);
    conf_keep_add(&c, "my-binary", (const unsigned char *)"\0\1\2\0", 4);

    /* ILDG double: exact */
    struct conf_write_opts o64 = {.format = CONF_ILDG, .prec = 64, .nersc_3x3 = 0};
    conf_write(tmp("a.lime"), &c, &o64);
    conf_read(tmp("a.lime"), &r);
    CHECK(r.format == CONF_ILDG && r.file_prec == 64 && r.u.nc == 3, "format");
    CHECK(r.u.lat.L[0] == 4 && r.u.lat.L[2] == 2 && r.u.lat.L[3] == 6, "extents");
    CHECK(memcmp(r.u.d, c.u.d, field_reals(&c.u) * sizeof(double)) == 0, "ILDG double bit-exact");
    CHECK(r.history && strcmp(r.history, c.history) == 0, "history carried");
    CHECK(r.transform && memcmp(r.transform, c.transform, (size_t)lat.V * 18 * sizeof(double)) == 0, "transform carried");
    int found = 0;
    for (int i = 0; i < r.nkeep; i++) {
        if (strcmp(r.keep[i].type, "xlf-info") == 0) found += r.keep[i].len == 16 && memcmp(r.keep[i].data, "plaquette = 0.1\n", 16) == 0;
        if (strcmp(r.keep[i].type, "my-binary") == 0) found += r.keep[i].len == 4 && memcmp(r.keep[i].data, "\0\1\2\0", 4) == 0;
    }
    CHECK(found == 2, "carried records unchanged (%d)", found);
    CHECK(strncmp(r.check.checksum, "scidac ", 7) == 0, "checksum verified: %s", r.check.checksum);
    double plaq = measure_plaquette(&c.u).all;
    CHECK(r.check.has_plaq && fabs(r.check.plaq - plaq) < 1e-14, "usqcdInfo plaq %g vs %g", r.check.plaq, plaq);
    struct scidac_sum s = scidac_checksum_field(&c.u, 64);
    char want[64];
    snprintf(want, sizeof want, "scidac %x %x", s.a, s.b);
    CHECK(strcmp(r.check.checksum, want) == 0, "checksum %s, expected %s", r.check.checksum, want);

    /* write again from what was read: same binary record, records in order */
    conf_write(tmp("b.lime"), &r, NULL);
    uint64_t la, lb;
    unsigned char *ba = file_record(tmp("a.lime"), "ildg-binary-data", &la);
    unsigned char *bb = file_record(tmp("b.lime"), "ildg-binary-data", &lb);
    CHECK(ba && bb && la == lb && la == (uint64_t)lat.V * 4 * 18 * 8 && memcmp(ba, bb, la) == 0, "rewrite same binary");
    free(bb);

    /* NERSC 3x3 double and back: bit-identical ILDG binary record */
    struct conf_write_opts n3 = {.format = CONF_NERSC, .prec = 64, .nersc_3x3 = 1};
    conf_write(tmp("a.nersc"), &r, &n3);
    conf_read(tmp("a.nersc"), &r2);
    CHECK(r2.format == CONF_NERSC && r2.file_prec == 64, "nersc read");
    CHECK(memcmp(r2.u.d, c.u.d, field_reals(&c.u) * sizeof(double)) == 0, "NERSC 3x3 double bit-exact");
    CHECK(r2.check.has_plaq && r2.check.has_linktr, "NERSC header plaquette and link trace verified");
    CHECK(!r2.history && !r2.transform, "NERSC holds no history or transform");
    conf_write(tmp("c.lime"), &r2, &o64);
    bb = file_record(tmp("c.lime"), "ildg-binary-data", &lb);
    CHECK(bb && la == lb && memcmp(ba, bb, la) == 0, "ILDG -> NERSC 3x3 -> ILDG binary record bit-identical");
    free(bb);
    conf_free(&r2);

    /* NERSC two-row double: row 3 rebuilt, equal to rounding */
    struct conf_write_opts n2 = {.format = CONF_NERSC, .prec = 64, .nersc_3x3 = 0};
    conf_write(tmp("b.nersc"), &r, &n2);
    conf_read(tmp("b.nersc"), &r2);
    CHECK(max_diff(&r2.u, &c.u) < 1e-13, "NERSC two-row double: max diff %g", max_diff(&r2.u, &c.u));
    conf_write(tmp("d.lime"), &r2, &o64);
    conf_free(&r2);
    conf_read(tmp("d.lime"), &r2);
    CHECK(max_diff(&r2.u, &c.u) < 1e-13, "via ILDG again");
    conf_free(&r2);

    /* 32-bit ILDG and NERSC */
    struct conf_write_opts o32 = {.format = CONF_ILDG, .prec = 32, .nersc_3x3 = 0};
    conf_write(tmp("e.lime"), &r, &o32);
    conf_read(tmp("e.lime"), &r2);
    CHECK(r2.file_prec == 32 && max_diff(&r2.u, &c.u) < 1e-7, "ILDG single: max diff %g", max_diff(&r2.u, &c.u));
    int exact = 1;
    for (size_t i = 0; i < field_reals(&c.u); i++) exact &= r2.u.d[i] == (double)(float)c.u.d[i];
    CHECK(exact, "ILDG single = rounded double");
    conf_write(tmp("f.lime"), &r2, NULL); /* default: the input's precision */
    uint64_t le, lf;
    unsigned char *be = file_record(tmp("e.lime"), "ildg-binary-data", &le);
    unsigned char *bf = file_record(tmp("f.lime"), "ildg-binary-data", &lf);
    CHECK(be && bf && le == lf && le == la / 2 && memcmp(be, bf, le) == 0, "single rewritten identically");
    free(be);
    free(bf);
    conf_free(&r2);
    struct conf_write_opts n32 = {.format = CONF_NERSC, .prec = 32, .nersc_3x3 = 0};
    conf_write(tmp("c.nersc"), &r, &n32);
    conf_read(tmp("c.nersc"), &r2);
    CHECK(r2.file_prec == 32 && max_diff(&r2.u, &c.u) < 1e-6, "NERSC single two-row: %g", max_diff(&r2.u, &c.u));
    conf_free(&r2);
    free(ba);

    /* the transform file: a SciDAC ColorMatrix field file */
    conf_write_transform(tmp("g.lime"), &r);
    uint64_t lt;
    unsigned char *fx = file_record(tmp("g.lime"), "scidac-private-record-xml", &lt);
    char v[64];
    CHECK(fx && xml_text((char *)fx, "datatype", v, sizeof v) && strcmp(v, "USQCD_D3_ColorMatrix") == 0, "transform datatype %s", v);
    CHECK(fx && xml_text((char *)fx, "datacount", v, sizeof v) && strcmp(v, "1") == 0, "transform datacount");
    CHECK(fx && xml_text((char *)fx, "typesize", v, sizeof v) && strcmp(v, "144") == 0, "transform typesize");
    CHECK(fx && xml_text((char *)fx, "precision", v, sizeof v) && strcmp(v, "D") == 0, "transform precision");
    free(fx);
    fx = file_record(tmp("g.lime"), "scidac-private-file-xml", &lt);
    CHECK(fx && xml_text((char *)fx, "dims", v, sizeof v) && strcmp(v, "4 4 2 6") == 0, "transform dims [%s]", v);
    free(fx);
    fx = file_record(tmp("g.lime"), "scidac-record-xml", &lt);
    CHECK(fx && xml_text((char *)fx, "nc", v, sizeof v) && strcmp(v, "3") == 0, "transform record nc");
    CHECK(fx && xml_text((char *)fx, "lt", v, sizeof v) && strcmp(v, "6") == 0, "transform record lt");
    CHECK(fx && xml_has((char *)fx, "convention"), "transform record states the convention");
    free(fx);
    unsigned char *tx = file_record(tmp("g.lime"), "scidac-binary-data", &lt);
    CHECK(tx && lt == (uint64_t)lat.V * 18 * 8, "transform size");
    CHECK(tx && bits_to_double(load_be64(tx + 5 * 8)) == 0.25 && bits_to_double(load_be64(tx)) == 1.0, "transform values BE");
    struct scidac_sum gs = {0, 0};
    for (int64_t x = 0; tx && x < lat.V; x++) scidac_sum_site(&gs, (uint64_t)x, lat_crc32(0, tx + x * 144, 144));
    free(tx);
    fx = file_record(tmp("g.lime"), "scidac-checksum", &lt);
    snprintf(want, sizeof want, "%x", gs.a);
    CHECK(fx && xml_text((char *)fx, "suma", v, sizeof v) && strcmp(v, want) == 0, "transform suma %s, data %s", v, want);
    free(fx);
    conf_free(&r);
    conf_free(&c);
}

static void test_su2(void)
{
    struct lattice lat;
    int L[4] = {2, 2, 2, 4};
    lattice_init(&lat, L, NULL);
    struct conf c, r;
    conf_init(&c, &lat, 2);
    field_set_random(&c.u, 99);
    conf_write(tmp("su2.lime"), &c, NULL);
    uint64_t n;
    unsigned char *fx = file_record(tmp("su2.lime"), "ildg-format", &n);
    char v[32];
    CHECK(fx && xml_text((char *)fx, "field", v, sizeof v) && strcmp(v, "su2gauge") == 0, "field su2gauge: %s", v);
    CHECK(fx && fx[n - 1] == 0, "XML record ends with NUL");
    free(fx);
    conf_read(tmp("su2.lime"), &r);
    CHECK(r.u.nc == 2 && memcmp(r.u.d, c.u.d, field_reals(&c.u) * sizeof(double)) == 0, "SU(2) round trip");
    conf_free(&r);
    conf_free(&c);
}

static void test_scidac(void)
{
    /* the datatype rules of scidac.c, on the private records real writers produce */
    const char *fx = "<?xml version=\"1.0\"?><scidacFile><version>1.1</version><spacetime>4</spacetime>"
                     "<dims>8 8 8 4 </dims><volfmt>0</volfmt></scidacFile>";
    struct {
        const char *rec;
        int ok, nc, prec;
    } cases[] = {
        {"<scidacRecord><globaldata>0</globaldata><datatype>QDP_F3_ColorMatrix</datatype><precision>F</precision>"
         "<colors>3</colors><typesize>72</typesize><datacount>4</datacount></scidacRecord>", 1, 3, 32},     /* MILC */
        {"<scidacRecord><version>1.0</version><globaldata>0</globaldata><datatype>QDP_F3_ColorMatrix</datatype>"
         "<precision>F</precision><colors>3</colors><spins>4</spins><typesize>72</typesize><datacount>4</datacount>"
         "</scidacRecord>", 1, 3, 32}, /* a 2006 QDP record with spins, as quoted by QEX's reader */
        {"<scidacRecord><recordtype>0</recordtype><datatype>QUDA_DNc3_GaugeField</datatype><precision>D</precision>"
         "<colors>3</colors><spins>0</spins><typesize>144</typesize><datacount>4</datacount></scidacRecord>", 1, 3, 64},
        {"<scidacRecord><datatype>QUDA_FNc3_GaugeField</datatype><precision>F</precision>"
         "<colors>9</colors><spins>1</spins><typesize>72</typesize><datacount>4</datacount></scidacRecord>", 1, 3, 32},
        {"<scidacRecord><datatype>USQCD_F3_ColorMatrix</datatype><precision>IEEE64BIG</precision>"
         "<colors>3</colors><typesize>144</typesize><datacount>4</datacount></scidacRecord>", 1, 3, 64}, /* SIMULATeQCD */
        {"<scidacRecord><datatype>SIMULATeQCD_GAUGE_CONF</datatype><precision>IEEE32BIG</precision>"
         "<colors>3</colors><typesize>72</typesize><datacount>4</datacount></scidacRecord>", 1, 3, 32},
        {"<scidacRecord><datatype>USQCD_D2_ColorMatrix</datatype><precision>D</precision>"
         "<colors>2</colors><typesize>64</typesize><datacount>4</datacount></scidacRecord>", 1, 2, 64},
        {"<scidacRecord><datatype>USQCD_F3_ColorMatrix</datatype><precision>D</precision>"
         "<colors>3</colors><typesize>144</typesize><datacount>4</datacount></scidacRecord>", 0, 0, 0}, /* F vs D */
        {"<scidacRecord><datatype>USQCD_D3_ColorMatrix</datatype><precision>D</precision>"
         "<colors>3</colors><typesize>72</typesize><datacount>4</datacount></scidacRecord>", 0, 0, 0}, /* typesize */
        {"<scidacRecord><datatype>USQCD_D3_ColorMatrix</datatype><precision>D</precision>"
         "<colors>3</colors><typesize>144</typesize><datacount>1</datacount></scidacRecord>", 0, 0, 0}, /* g(x) */
        {"<scidacRecord><datatype>USQCD_D3_ColorMatrix</datatype><precision>D</precision>"
         "<colors>2</colors><typesize>144</typesize><datacount>4</datacount></scidacRecord>", 0, 0, 0}, /* colors */
        {"<scidacRecord><datatype>QDP_D3_DiracFermion</datatype><precision>D</precision>"
         "<colors>3</colors><typesize>192</typesize><datacount>1</datacount></scidacRecord>", 0, 0, 0},
        {"<scidacRecord><recordtype>1</recordtype><datatype>USQCD_D3_ColorMatrix</datatype><precision>D</precision>"
         "<colors>3</colors><typesize>144</typesize><datacount>4</datacount></scidacRecord>", 0, 0, 0},
        {"<scidacRecord><datatype>USQCD_D3_ColorMatrix</datatype><precision>D</precision>"
         "<colors>3</colors><typesize>144</typesize></scidacRecord>", 0, 0, 0}, /* no datacount */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct scidac_format f;
        char err[400] = "";
        int rc = scidac_gauge_format(fx, cases[i].rec, &f, err, sizeof err);
        CHECK(cases[i].ok ? rc == 0 && f.nc == cases[i].nc && f.prec == cases[i].prec && f.L[0] == 8 && f.L[3] == 4
                          : rc < 0 && err[0] && !strchr(err, '\n'),
              "scidac datatype case %zu: rc %d nc %d prec %d [%s]", i, rc, f.nc, f.prec, err);
    }
    struct scidac_format f;
    char err[400];
    CHECK(scidac_gauge_format("<scidacFile><spacetime>4</spacetime><dims>8 8 8</dims></scidacFile>", cases[0].rec, &f, err,
                              sizeof err) < 0, "three dims refused");
    CHECK(scidac_gauge_format("<scidacFile><spacetime>4</spacetime><dims>4 4 4 4</dims><volfmt>1</volfmt></scidacFile>",
                              cases[0].rec, &f, err, sizeof err) < 0 && strstr(err, "volfmt"), "multifile refused: %s", err);

    /* write and read back: both precisions, bit-exact / rounded, the checksum of the data */
    struct lattice lat;
    int L[4] = {2, 4, 2, 6};
    lattice_init(&lat, L, NULL);
    struct conf c, r;
    conf_init(&c, &lat, 3);
    field_set_random(&c.u, 77);
    for (int prec = 32; prec <= 64; prec += 32) {
        struct conf_write_opts o = {.format = CONF_SCIDAC, .prec = prec};
        conf_write(tmp("s.scidac"), &c, &o);
        uint64_t n;
        unsigned char *fmt = file_record(tmp("s.scidac"), "ildg-format", &n);
        CHECK(!fmt, "no ildg-format record in a SciDAC file");
        free(fmt);
        conf_read(tmp("s.scidac"), &r);
        CHECK(r.format == CONF_SCIDAC && r.file_prec == prec, "SciDAC %d: format %d prec %d", prec, r.format, r.file_prec);
        CHECK(strcmp(r.check.detail, prec == 64 ? "SciDAC (QIO, no ILDG records) USQCD_D3_ColorMatrix"
                                                : "SciDAC (QIO, no ILDG records) USQCD_F3_ColorMatrix") == 0,
              "detail %s", r.check.detail);
        int exact = 1;
        for (size_t i = 0; i < field_reals(&c.u); i++) exact &= r.u.d[i] == (prec == 64 ? c.u.d[i] : (double)(float)c.u.d[i]);
        CHECK(exact, "SciDAC %d: links as written", prec);
        struct scidac_sum s = scidac_checksum_field(&c.u, prec);
        char want[64];
        snprintf(want, sizeof want, "scidac %x %x", s.a, s.b);
        CHECK(strcmp(r.check.checksum, want) == 0, "SciDAC %d checksum %s, expected %s", prec, r.check.checksum, want);
        conf_free(&r);
    }
    conf_free(&c);
}

int main(void)
{
    lat_progname = "lat";
    if (unit_scratch_make(dir, sizeof dir, "io") != 0) return 1;
    test_lime_pipe();
    test_lime_errors();
    test_checksums();
    test_code_chunk();
    test_xml();
    test_roundtrips();
    test_su2();
    test_scidac();
    unit_scratch_remove(dir);
    return unit_done("test_io");
}
