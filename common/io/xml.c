/* xml.c -- the small strict XML reader; see xml.h for the contract.
 *
 * One pass over the bytes: every construct is found by scanning forward from
 * where the previous one ended (memchr/memmem from the current position), so
 * the time is linear in the length whatever the input (no rescanning from an
 * earlier point, which made the former scanner quadratic).  Open elements
 * live on a fixed stack of XML_MAX_DEPTH. */
#define _GNU_SOURCE /* memmem */
#include "io/xml.h"
#include "base/log.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int is_name_char(unsigned char c)
{
    return c > ' ' && c != '/' && c != '>' && c != '<' && c != '=' && c != '"' && c != '\'' && c != '&' && c != 0x7f;
}
static int is_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static int fail(struct xml_doc *d, const char *why, size_t at)
{
    snprintf(d->err, sizeof d->err, "malformed XML at byte %zu: %s", at, why);
    return -1;
}

static const char *find(const struct xml_doc *d, size_t from, const char *what)
{
    if (from > d->n) return NULL;
    return memmem(d->s + from, d->n - from, what, strlen(what));
}

/* private per-element data beside the public list: qualified name, empty */
struct qn { size_t q, qlen; };

void xml_doc_free(struct xml_doc *d)
{
    free(d->e);
    d->e = NULL;
    d->ne = d->cap = 0;
}

static int add_elem(struct xml_doc *d)
{
    if (d->ne == d->cap) {
        int cap = d->cap ? 2 * d->cap : 16;
        struct xml_elem *e = realloc(d->e, (size_t)cap * sizeof *e);
        if (!e) return -1;
        d->e = e;
        d->cap = cap;
    }
    memset(&d->e[d->ne], 0, sizeof d->e[0]);
    return d->ne++;
}

/* length of an entity reference at p ("&...;"), or 0 if it is not a valid one;
 * its value (a code point) in *cp */
static size_t entity(const char *p, size_t left, uint32_t *cp)
{
    static const struct { const char *n; char c; } names[] = {
        {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t l = strlen(names[i].n);
        if (left >= l && memcmp(p, names[i].n, l) == 0) { *cp = (unsigned char)names[i].c; return l; }
    }
    if (left < 4 || p[1] != '#') return 0;
    int hex = p[2] == 'x';
    size_t k = hex ? 3 : 2;
    uint32_t v = 0;
    size_t nd = 0;
    for (; k < left && k < 16 && p[k] != ';'; k++, nd++) {
        char c = p[k];
        int dv = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (dv < 0) return 0;
        v = v * (hex ? 16 : 10) + (uint32_t)dv;
        if (v > 0x10ffff) return 0;
    }
    if (!nd || k >= left || p[k] != ';' || v == 0 || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return k + 1;
}

int xml_parse(struct xml_doc *d, const char *s, size_t n)
{
    memset(d, 0, sizeof *d);
    d->s = s;
    d->n = n;
    int stack[XML_MAX_DEPTH];
    struct qn qs[XML_MAX_DEPTH];
    int depth = 0, root_done = 0;
    size_t i = 0;
    if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0) return fail(d, "NUL byte", i);
        if (c == '&') {
            uint32_t cp;
            size_t l = entity(s + i, n - i, &cp);
            if (!l) return fail(d, "'&' that starts no known entity", i);
            if (!depth) return fail(d, "text outside the root element", i);
            i += l;
            continue;
        }
        if (c != '<') {
            if (!depth && !is_ws(c)) return fail(d, "text outside the root element", i);
            i++;
            continue;
        }
        const char *e;
        if (i + 1 < n && s[i + 1] == '?') {
            if (!(e = find(d, i + 2, "?>"))) return fail(d, "unterminated processing instruction", i);
            i = (size_t)(e - s) + 2;
        } else if (n - i >= 4 && memcmp(s + i, "<!--", 4) == 0) {
            if (!(e = find(d, i + 4, "-->"))) return fail(d, "unterminated comment", i);
            i = (size_t)(e - s) + 3;
        } else if (n - i >= 9 && memcmp(s + i, "<![CDATA[", 9) == 0) {
            if (!depth) return fail(d, "CDATA section outside the root element", i);
            if (!(e = find(d, i + 9, "]]>"))) return fail(d, "unterminated CDATA section", i);
            i = (size_t)(e - s) + 3;
        } else if (i + 1 < n && s[i + 1] == '!') {
            return fail(d, "DOCTYPE or other declaration (not supported)", i);
        } else if (i + 1 < n && s[i + 1] == '/') {
            size_t t = i + 2, q = t;
            while (t < n && is_name_char((unsigned char)s[t])) t++;
            size_t qlen = t - q;
            while (t < n && is_ws((unsigned char)s[t])) t++;
            if (t >= n || s[t] != '>') return fail(d, "unterminated end tag", i);
            if (!depth) return fail(d, "end tag without a start tag", i);
            struct qn *o = &qs[depth - 1];
            if (qlen != o->qlen || memcmp(s + q, s + o->q, qlen) != 0) return fail(d, "end tag does not match the start tag", i);
            struct xml_elem *el = &d->e[stack[depth - 1]];
            el->cend = i;
            el->end = t + 1;
            depth--;
            if (!depth) root_done = 1;
            i = t + 1;
        } else {
            if (root_done) return fail(d, "a second root element", i);
            if (depth == XML_MAX_DEPTH) return fail(d, "elements nested too deeply", i);
            size_t t = i + 1, q = t;
            if (t >= n || !is_name_start((unsigned char)s[t])) return fail(d, "'<' that starts no tag", i);
            while (t < n && is_name_char((unsigned char)s[t])) t++;
            size_t qlen = t - q;
            int empty = 0;
            for (;;) { /* attributes */
                int ws = 0;
                while (t < n && is_ws((unsigned char)s[t])) { t++; ws = 1; }
                if (t >= n) return fail(d, "unterminated start tag", i);
                if (s[t] == '>') { t++; break; }
                if (s[t] == '/' && t + 1 < n && s[t + 1] == '>') { t += 2; empty = 1; break; }
                if (!ws || !is_name_start((unsigned char)s[t])) return fail(d, "bad attribute in a start tag", t);
                while (t < n && is_name_char((unsigned char)s[t])) t++;
                while (t < n && is_ws((unsigned char)s[t])) t++;
                if (t >= n || s[t] != '=') return fail(d, "attribute without '='", t);
                t++;
                while (t < n && is_ws((unsigned char)s[t])) t++;
                if (t >= n || (s[t] != '"' && s[t] != '\'')) return fail(d, "attribute value not quoted", t);
                const char *qe = memchr(s + t + 1, s[t], n - t - 1);
                if (!qe) return fail(d, "unterminated attribute value", t);
                if (memchr(s + t + 1, '<', (size_t)(qe - s) - t - 1)) return fail(d, "'<' inside an attribute value", t);
                t = (size_t)(qe - s) + 1;
            }
            int k = add_elem(d);
            if (k < 0) { xml_doc_free(d); return fail(d, "out of memory", i); }
            if (depth) d->e[stack[depth - 1]].nchild++;
            struct xml_elem *el = &d->e[k];
            const char *colon = memchr(s + q, ':', qlen);
            el->name = colon ? (size_t)(colon - s) + 1 : q;
            el->nlen = q + qlen - el->name;
            el->start = i;
            el->cbeg = el->cend = t;
            el->end = t;
            if (!empty) {
                qs[depth].q = q;
                qs[depth].qlen = qlen;
                stack[depth++] = k;
            } else if (!depth) root_done = 1;
            i = t;
        }
    }
    if (depth) return fail(d, "an element is not closed at the end", n);
    if (!d->ne) return fail(d, "no element", n);
    return 0;
}

int xml_find(const struct xml_doc *d, const char *name, int *count)
{
    size_t l = strlen(name);
    int first = -1, c = 0;
    for (int i = 0; i < d->ne; i++)
        if (d->e[i].nlen == l && memcmp(d->s + d->e[i].name, name, l) == 0) {
            if (first < 0) first = i;
            c++;
        }
    if (count) *count = c;
    return first;
}

static void put_utf8(char *out, size_t *k, uint32_t cp)
{
    if (cp < 0x80) out[(*k)++] = (char)cp;
    else if (cp < 0x800) { out[(*k)++] = (char)(0xc0 | cp >> 6); out[(*k)++] = (char)(0x80 | (cp & 63)); }
    else if (cp < 0x10000) {
        out[(*k)++] = (char)(0xe0 | cp >> 12); out[(*k)++] = (char)(0x80 | ((cp >> 6) & 63)); out[(*k)++] = (char)(0x80 | (cp & 63));
    } else {
        out[(*k)++] = (char)(0xf0 | cp >> 18); out[(*k)++] = (char)(0x80 | ((cp >> 12) & 63));
        out[(*k)++] = (char)(0x80 | ((cp >> 6) & 63)); out[(*k)++] = (char)(0x80 | (cp & 63));
    }
}

int xml_elem_text(struct xml_doc *d, int i, char *out, size_t n)
{
    const struct xml_elem *el = &d->e[i];
    if (n) out[0] = 0;
    if (el->nchild) { snprintf(d->err, sizeof d->err, "element has child elements where text is expected"); return -1; }
    const char *s = d->s;
    size_t k = 0;
    for (size_t p = el->cbeg; p < el->cend;) {
        const char *run = s + p;
        size_t len = 1;
        char buf[4];
        size_t bl = 0;
        if (s[p] == '<') {
            const char *e;
            if (el->cend - p >= 9 && memcmp(s + p, "<![CDATA[", 9) == 0) {
                e = memmem(s + p + 9, el->cend - p - 9, "]]>", 3);
                run = s + p + 9;
                len = (size_t)(e - run);
                p = (size_t)(e - s) + 3;
            } else { /* comment or processing instruction: dropped */
                e = memmem(s + p, el->cend - p, s[p + 1] == '?' ? "?>" : "-->", s[p + 1] == '?' ? 2 : 3);
                p = (size_t)(e - s) + (s[p + 1] == '?' ? 2 : 3);
                continue;
            }
        } else if (s[p] == '&') {
            uint32_t cp = 0;
            size_t l = entity(s + p, el->cend - p, &cp);
            put_utf8(buf, &bl, cp);
            run = buf;
            len = bl;
            p += l;
        } else p++;
        if (!k) /* leading white space */
            while (len && is_ws((unsigned char)*run) && run != buf) { run++; len--; }
        if (k + len + 1 > n) { snprintf(d->err, sizeof d->err, "element text longer than %zu bytes", n ? n - 1 : 0); return -1; }
        memcpy(out + k, run, len);
        k += len;
    }
    while (k && is_ws((unsigned char)out[k - 1])) k--;
    if (n) out[k] = 0;
    return 0;
}

int xml_field(const char *xml, const char *name, char *out, size_t n, char *err, size_t errn)
{
    struct xml_doc d;
    if (n) out[0] = 0;
    if (xml_parse(&d, xml, strlen(xml)) < 0) { snprintf(err, errn, "%s", d.err); return -1; }
    int count, i = xml_find(&d, name, &count), rc = 1;
    if (i < 0) rc = 0;
    else if (count > 1) { snprintf(err, errn, "element <%s> appears %d times", name, count); rc = -1; }
    else if (xml_elem_text(&d, i, out, n) < 0) { snprintf(err, errn, "<%s>: %s", name, d.err); rc = -1; }
    xml_doc_free(&d);
    return rc;
}

int xml_text(const char *xml, const char *name, char *out, size_t n)
{
    struct xml_doc d;
    if (n) out[0] = 0;
    if (xml_parse(&d, xml, strlen(xml)) < 0) return 0;
    int i = xml_find(&d, name, NULL), rc = i >= 0;
    if (i >= 0 && xml_elem_text(&d, i, out, n) < 0) rc = 0;
    xml_doc_free(&d);
    return rc;
}

int xml_has(const char *xml, const char *name)
{
    struct xml_doc d;
    if (xml_parse(&d, xml, strlen(xml)) < 0) return 0;
    int rc = xml_find(&d, name, NULL) >= 0;
    xml_doc_free(&d);
    return rc;
}

/* xml[0..a) + mid + xml[b..) */
static char *splice(const char *xml, size_t a, const char *m1, const char *m2, const char *m3, size_t b)
{
    size_t l = strlen(xml), n = a + strlen(m1) + strlen(m2) + strlen(m3) + (l - b) + 1;
    char *r = lat_malloc(n);
    snprintf(r, n, "%.*s%s%s%s%s", (int)a, xml, m1, m2, m3, xml + b);
    return r;
}

char *xml_replace(const char *xml, const char *name, const char *parent, const char *text)
{
    struct xml_doc d;
    if (xml_parse(&d, xml, strlen(xml)) < 0) return NULL;
    char *r = NULL;
    int i = xml_find(&d, name, NULL);
    if (i >= 0) {
        const struct xml_elem *e = &d.e[i];
        if (e->end == e->cbeg) { /* <name/> */
            char open[96], close[96];
            snprintf(open, sizeof open, "<%s>", name);
            snprintf(close, sizeof close, "</%s>", name);
            r = splice(xml, e->start, open, text, close, e->end);
        } else r = splice(xml, e->cbeg, "", text, "", e->cend);
    } else if ((i = xml_find(&d, parent, NULL)) >= 0 && d.e[i].end != d.e[i].cbeg) {
        char open[96], close[96];
        snprintf(open, sizeof open, "<%s>", name);
        snprintf(close, sizeof close, "</%s>", name);
        r = splice(xml, d.e[i].cend, open, text, close, d.e[i].cend);
    }
    xml_doc_free(&d);
    return r;
}
