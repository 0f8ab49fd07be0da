/* xml.h -- a small, strict XML reader for the flat documents of ILDG, SciDAC
 * and lat's own records (ildg-format, scidac-checksum, usqcdInfo, ...).
 *
 * xml_parse(d, s, n) reads the n bytes at s in one linear pass (time and
 * memory O(n), no recursion) into a list of elements.  It accepts the subset
 * the formats use: an optional BOM, processing instructions <?...?> and
 * comments <!--...--> anywhere outside a tag, one root element, start tags
 * with attributes (quoted with " or '), empty elements <x/>, end tags that
 * must match their start tags, text with the entities &lt; &gt; &amp;
 * &quot; &apos; and &#N; / &#xN;, and <![CDATA[...]]> sections inside
 * elements.  A DOCTYPE, an unterminated construct, a stray '<' or '&', a
 * mismatched end tag, text or a second element after the root, and nesting
 * deeper than XML_MAX_DEPTH are errors: -1 with a one-line reason in d->err
 * (no input bytes in it).  0 on success.
 *
 * Elements are looked up by local name (the part after a namespace prefix):
 * xml_find() returns the index of the first and the number of matches.
 * xml_elem_text() gives the element's text: entities decoded, CDATA copied,
 * comments dropped, trimmed of white space; -1 (reason in d->err) when the
 * element has child elements or its text does not fit in n-1 bytes.
 *
 * The string helpers parse their argument each call:
 *   xml_field()  strict lookup: 1 found once (text in out), 0 absent,
 *                -1 a malformed document, a duplicated element or a text
 *                that does not fit (reason in err);
 *   xml_text()   1 if found (text of the first match in out), else 0 (also
 *                for a malformed document);
 *   xml_has()    1 if an element with that local name exists;
 *   xml_replace() a new string (lat_malloc) with the content of the first
 *                element `name` replaced by text, or, if it is absent, with
 *                <name>text</name> inserted before the end tag of `parent`;
 *                NULL if neither exists or the document is malformed. */
#ifndef LAT_XML_H
#define LAT_XML_H

#include <stddef.h>

#define XML_MAX_DEPTH 64

struct xml_elem {
    size_t name, nlen;      /* local name: offset and length in the document */
    size_t start;           /* offset of '<' of the start tag */
    size_t cbeg, cend;      /* content: after the start tag's '>', before "</" */
    size_t end;             /* offset just past the end tag (or the "/>") */
    int nchild;             /* child elements */
};

struct xml_doc {
    const char *s;
    size_t n;
    struct xml_elem *e;
    int ne, cap;
    char err[160];
};

int xml_parse(struct xml_doc *d, const char *s, size_t n);
void xml_doc_free(struct xml_doc *d);
int xml_find(const struct xml_doc *d, const char *name, int *count);
int xml_elem_text(struct xml_doc *d, int i, char *out, size_t n);

int xml_field(const char *xml, const char *name, char *out, size_t n, char *err, size_t errn);
int xml_text(const char *xml, const char *name, char *out, size_t n);
int xml_has(const char *xml, const char *name);
char *xml_replace(const char *xml, const char *name, const char *parent, const char *text);

#endif
