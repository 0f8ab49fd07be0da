/* lime.c -- streaming LIME reader and writer; see lime.h for the contract. */
#include "io/lime.h"
#include "base/log.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void lime_reader_init(struct lime_reader *r, struct byte_in *in)
{
    memset(r, 0, sizeof *r);
    r->in = in;
}

static int read_fail(struct lime_reader *r, const char *what, uint64_t got, uint64_t want)
{
    if (r->in->err)
        snprintf(r->err, sizeof r->err, "read error %s: %s", what, strerror(r->in->err));
    else
        snprintf(r->err, sizeof r->err, "truncated: %s ends after %" PRIu64 " of %" PRIu64 " bytes", what, got, want);
    return -1;
}

/* finish the current record: skip the rest of its payload and the padding */
static int finish_record(struct lime_reader *r)
{
    if (!r->in_record) return 0;
    r->in_record = 0;
    if (r->left) {
        uint64_t want = r->left;
        uint64_t got = byte_in_skip(r->in, want);
        r->left -= got;
        if (got < want) {
            char what[220];
            snprintf(what, sizeof what, "payload of LIME record '%.64s' (header at byte %" PRIu64 ")",
                     r->hdr.type, r->hdr.offset);
            return read_fail(r, what, r->hdr.len - r->left, r->hdr.len);
        }
    }
    uint64_t pad = lime_padding(r->hdr.len);
    if (pad) {
        uint64_t got = byte_in_skip(r->in, pad);
        if (r->in->err) return read_fail(r, "in LIME padding", got, pad);
        r->short_pad = got < pad;
    }
    return 0;
}

int lime_next(struct lime_reader *r)
{
    if (finish_record(r) < 0) return -1;
    unsigned char h[LIME_HEADER_BYTES];
    uint64_t off = r->in->pos;
    size_t got = byte_in_read(r->in, h, sizeof h);
    if (got == 0 && !r->in->err) return 0;
    if (r->short_pad) {
        snprintf(r->err, sizeof r->err,
                 "LIME record at byte %" PRIu64 " follows a record whose padding is incomplete (record '%.64s')",
                 off, r->hdr.type);
        return -1;
    }
    if (got < sizeof h) {
        char what[80];
        snprintf(what, sizeof what, "LIME record header at byte %" PRIu64, off);
        return read_fail(r, what, got, sizeof h);
    }
    uint32_t magic = load_be32(h);
    if (magic != LIME_MAGIC) {
        snprintf(r->err, sizeof r->err, "not a LIME record header at byte %" PRIu64 ": magic number %08" PRIx32 ", expected 456789ab",
                 off, magic);
        return -1;
    }
    unsigned version = (unsigned)h[4] << 8 | h[5];
    if (version != LIME_VERSION) {
        snprintf(r->err, sizeof r->err, "LIME record header at byte %" PRIu64 " has version %u; only version 1 is known", off, version);
        return -1;
    }
    struct lime_header *hd = &r->hdr;
    hd->mb = (h[6] & 0x80) != 0;
    hd->me = (h[6] & 0x40) != 0;
    hd->len = load_be64(h + 8);
    hd->offset = off;
    memcpy(hd->type, h + 16, LIME_TYPE_MAX);
    hd->type[LIME_TYPE_MAX] = 0;
    if (hd->len > (UINT64_C(1) << 62)) {
        snprintf(r->err, sizeof r->err, "LIME record '%.64s' at byte %" PRIu64 " claims an impossible length %" PRIu64,
                 hd->type, off, hd->len);
        return -1;
    }
    r->left = hd->len;
    r->in_record = 1;
    r->short_pad = 0;
    return 1;
}

int lime_read(struct lime_reader *r, void *buf, size_t n)
{
    if (!r->in_record || n > r->left) {
        snprintf(r->err, sizeof r->err, "internal error: reading %zu bytes beyond LIME record '%.64s'", n, r->hdr.type);
        return -1;
    }
    size_t got = byte_in_read(r->in, buf, n);
    r->left -= got;
    if (got < n) {
        char what[220];
        snprintf(what, sizeof what, "payload of LIME record '%.64s' (header at byte %" PRIu64 ")", r->hdr.type, r->hdr.offset);
        r->in_record = 0;
        return read_fail(r, what, r->hdr.len - r->left, r->hdr.len);
    }
    return 0;
}

int lime_read_all(struct lime_reader *r, unsigned char **data, uint64_t max)
{
    *data = NULL;
    if (r->left > max) {
        snprintf(r->err, sizeof r->err, "LIME record '%.64s' at byte %" PRIu64 " is %" PRIu64 " bytes, more than the %" PRIu64 " allowed for it",
                 r->hdr.type, r->hdr.offset, r->hdr.len, max);
        return -1;
    }
    /* the buffer grows with the bytes that really arrive (doubling), so a
     * header cannot make us reserve what the input does not hold */
    size_t n = (size_t)r->left, cap = n < 65536 ? n : 65536, got = 0;
    unsigned char *p = lat_malloc(cap + 1);
    while (got < n) {
        if (got == cap) {
            cap = n - cap < cap ? n : 2 * cap;
            p = lat_realloc(p, cap + 1);
        }
        if (lime_read(r, p + got, cap - got) < 0) { free(p); return -1; }
        got = cap;
    }
    p[n] = 0;
    *data = p;
    return 0;
}

/* ---- writer ------------------------------------------------------------- */

void lime_writer_init(struct lime_writer *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->last_me = 1;
}

static int put(struct lime_writer *w, const void *buf, size_t n)
{
    if (n && fwrite(buf, 1, n, w->f) != n) {
        snprintf(w->err, sizeof w->err, "write failed at byte %" PRIu64 ": %s", w->pos, strerror(errno ? errno : EIO));
        return -1;
    }
    w->pos += n;
    return 0;
}

int lime_begin(struct lime_writer *w, const char *type, uint64_t len, int mb, int me)
{
    if (w->in_record) {
        snprintf(w->err, sizeof w->err, "internal error: LIME record '%.64s' begun before the previous one ended", type);
        return -1;
    }
    size_t tl = strlen(type);
    if (tl == 0 || tl > LIME_TYPE_MAX - 1) {
        snprintf(w->err, sizeof w->err, "LIME record type '%.40s...' is %zu characters; 1 to 127 can be written", type, tl);
        return -1;
    }
    if (w->nrec > 0 && (mb != 0) != (w->last_me != 0)) {
        snprintf(w->err, sizeof w->err, "LIME record '%.64s': MB=%d after a record with ME=%d breaks the message structure",
                 type, mb != 0, w->last_me != 0);
        return -1;
    }
    unsigned char h[LIME_HEADER_BYTES];
    memset(h, 0, sizeof h);
    store_be32(h, LIME_MAGIC);
    h[5] = LIME_VERSION;
    h[6] = (unsigned char)((mb ? 0x80 : 0) | (me ? 0x40 : 0));
    store_be64(h + 8, len);
    memcpy(h + 16, type, tl);
    if (put(w, h, sizeof h) < 0) return -1;
    w->nrec++;
    w->last_me = me != 0;
    w->left = len;
    w->pad = lime_padding(len);
    w->in_record = 1;
    return 0;
}

int lime_write(struct lime_writer *w, const void *buf, size_t n)
{
    if (!w->in_record || n > w->left) {
        snprintf(w->err, sizeof w->err, "internal error: %zu bytes written beyond the declared LIME record length", n);
        return -1;
    }
    if (put(w, buf, n) < 0) return -1;
    w->left -= n;
    return 0;
}

int lime_skip(struct lime_writer *w, uint64_t n)
{
    if (!w->in_record || n > w->left) {
        snprintf(w->err, sizeof w->err, "internal error: %" PRIu64 " bytes skipped beyond the declared LIME record length", n);
        return -1;
    }
    if (fflush(w->f) != 0 || fseeko(w->f, (off_t)n, SEEK_CUR) != 0) {
        snprintf(w->err, sizeof w->err, "cannot leave room for the data at byte %" PRIu64 ": %s", w->pos,
                 strerror(errno ? errno : EIO));
        return -1;
    }
    w->pos += n;
    w->left -= n;
    return 0;
}

int lime_end(struct lime_writer *w)
{
    if (!w->in_record) return 0;
    if (w->left) {
        snprintf(w->err, sizeof w->err, "internal error: LIME record ended %" PRIu64 " bytes short of its declared length", w->left);
        return -1;
    }
    static const unsigned char zeros[8];
    w->in_record = 0;
    return put(w, zeros, (size_t)w->pad);
}

int lime_record(struct lime_writer *w, const char *type, const void *data, uint64_t len, int mb, int me)
{
    if (lime_begin(w, type, len, mb, me) < 0) return -1;
    if (lime_write(w, data, (size_t)len) < 0) return -1;
    return lime_end(w);
}
