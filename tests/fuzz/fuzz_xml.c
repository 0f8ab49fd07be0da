/* fuzz_xml.c -- libFuzzer target: the XML reader (xml.c: parse, lookups,
 * text, replace) and the message sanitiser (log.c) on the same bytes; the
 * sanitised text must hold no control byte and no byte >= 0x80 outside a
 * valid UTF-8 sequence.  See fuzz.h. */
#include "fuzz.h"
#include "io/xml.h"

static void check_clean(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x20 || *p == 0x7f) abort();
        if (*p < 0x80) { p++; continue; }
        int k = *p >= 0xf5 ? -1 : *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : *p >= 0xc2 ? 1 : -1;
        if (k < 0) abort();
        for (int i = 1; i <= k; i++)
            if ((p[i] & 0xc0) != 0x80) abort();
        p += k + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char *s = __real_malloc(n + 1); /* not tracked: freed here, after fuzz_release */
    memcpy(s, data, n);
    s[n] = 0;
    FUZZ_TRY {
        static const char *names[] = {"field", "lx", "suma", "plaq", "usqcdInfo", "a"};
        char out[64], err[200];
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            xml_field(s, names[i], out, sizeof out, err, sizeof err);
            xml_text(s, names[i], out, sizeof out);
            free(xml_replace(s, names[i], "usqcdInfo", "0.5"));
        }
        struct xml_doc d;
        if (xml_parse(&d, data ? (const char *)data : "", n) == 0) {
            for (int i = 0; i < d.ne; i++) xml_elem_text(&d, i, out, sizeof out);
            xml_doc_free(&d);
        }
        char *clean = malloc(4 * n + 1);
        lat_sanitize(clean, 4 * n + 1, s);
        check_clean(clean);
        free(clean);
    }
    fuzz_release();
    __real_free(s);
    return 0;
}
