/* lime.h -- streaming LIME (version 1) reader and writer, byte-compatible
 * with USQCD c-lime (FORMATS.md §1).  Neither side ever seeks: both work on
 * pipes.
 *
 * A record is a 144-byte header (magic 0x456789AB, version 1, flags MB 0x80
 * and ME 0x40, big-endian 64-bit payload length, a 128-byte NUL-padded type),
 * the payload, and NUL padding to a multiple of 8 bytes.
 *
 * Reader: lime_next() moves to the next record (skipping what is left of the
 * current one) and is strict about framing: wrong magic, wrong version, a
 * header or payload cut short, or a padding byte missing before the next
 * header is an error; only the padding after the very last record may be
 * missing (c-lime writers in the wild are not all careful there).  Types of
 * up to 128 characters are accepted.  Functions return -1 on error with a
 * one-line reason, naming the byte offset, in r->err (the caller adds the
 * file name).
 *
 * Writer: the payload length is given before the data (so a pipe works);
 * lime_end() checks that exactly that many bytes were written and adds the
 * padding.  Types longer than 127 characters are refused, and so is a record
 * whose MB flag does not follow from the previous record's ME flag (c-lime's
 * rule: after ME the next record must begin a message, and only then). */
#ifndef LAT_LIME_H
#define LAT_LIME_H

#include "io/bytes.h"
#include <stdint.h>
#include <stdio.h>

#define LIME_MAGIC 0x456789abu
#define LIME_VERSION 1
#define LIME_HEADER_BYTES 144
#define LIME_TYPE_MAX 128 /* read; the writer allows 127 */

static inline uint64_t lime_padding(uint64_t len) { return (8 - len % 8) % 8; }

struct lime_header {
    char type[LIME_TYPE_MAX + 1];
    uint64_t len;     /* payload bytes, without padding */
    int mb, me;
    uint64_t offset;  /* byte offset of the header in the stream */
};

struct lime_reader {
    struct byte_in *in;
    struct lime_header hdr; /* the current record */
    uint64_t left;          /* payload bytes of the current record not yet read */
    int in_record;
    int short_pad;          /* the padding after the current record was cut short */
    char err[256];
};

void lime_reader_init(struct lime_reader *r, struct byte_in *in);
/* 1: r->hdr holds the next record; 0: clean end of input; -1: error. */
int lime_next(struct lime_reader *r);
/* Read n bytes (n <= r->left) of the current payload: 0 or -1. */
int lime_read(struct lime_reader *r, void *buf, size_t n);
/* Read the whole remaining payload into a new NUL-terminated buffer
 * (lat_malloc); 0 or -1.  Refuses payloads above max bytes.  The buffer
 * grows with the bytes that arrive: a declared length is never reserved
 * before the input has delivered it. */
int lime_read_all(struct lime_reader *r, unsigned char **data, uint64_t max);

struct lime_writer {
    FILE *f;
    uint64_t pos;     /* bytes written */
    uint64_t left;    /* payload bytes still expected */
    uint64_t pad;
    int in_record;
    int nrec;         /* records begun */
    int last_me;
    char err[256];
};

void lime_writer_init(struct lime_writer *w, FILE *f);
int lime_begin(struct lime_writer *w, const char *type, uint64_t len, int mb, int me);
int lime_write(struct lime_writer *w, const void *buf, size_t n);
int lime_end(struct lime_writer *w);
/* leave n payload bytes for someone else to write (a seekable file: the
 * MPI ranks fill the binary record, dist.c); w->pos before the call is
 * where they start */
int lime_skip(struct lime_writer *w, uint64_t n);
/* begin + write + end */
int lime_record(struct lime_writer *w, const char *type, const void *data, uint64_t len, int mb, int me);

#endif
