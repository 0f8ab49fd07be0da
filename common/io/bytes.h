/* bytes.h -- byte-level helpers shared by the file formats.
 *
 * struct byte_in is an input byte stream over a FILE (a file or a
 * non-seekable pipe) that first hands out a few bytes already taken from the
 * stream (format detection reads them), counts the position for error
 * messages, and remembers read errors.  byte_in_read() returns fewer bytes
 * than asked only at end of input or on a read error (then .err is set).
 *
 * The load/store helpers convert between host values and big- or
 * little-endian bytes without alignment or aliasing assumptions. */
#ifndef LAT_BYTES_H
#define LAT_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct byte_in {
    FILE *f;
    const char *name;        /* for messages */
    unsigned char pre[64];   /* bytes taken before (format detection) */
    size_t npre, ipre;
    uint64_t pos;            /* bytes handed out so far */
    int err;                 /* errno of a failed read, or 0 */
};

void byte_in_init(struct byte_in *in, FILE *f, const char *name, const void *pre, size_t npre);
size_t byte_in_read(struct byte_in *in, void *buf, size_t n);
/* Discard n bytes; returns the number actually skipped. */
uint64_t byte_in_skip(struct byte_in *in, uint64_t n);

static inline uint32_t load_be32(const unsigned char *p)
{ return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static inline uint32_t load_le32(const unsigned char *p)
{ return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }
static inline uint64_t load_be64(const unsigned char *p)
{ return (uint64_t)load_be32(p) << 32 | load_be32(p + 4); }
static inline uint64_t load_le64(const unsigned char *p)
{ return (uint64_t)load_le32(p + 4) << 32 | load_le32(p); }
static inline void store_be32(unsigned char *p, uint32_t v)
{ p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16); p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v; }
static inline void store_be64(unsigned char *p, uint64_t v)
{ store_be32(p, (uint32_t)(v >> 32)); store_be32(p + 4, (uint32_t)v); }
static inline void store_le32(unsigned char *p, uint32_t v)
{ p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24); }
static inline void store_le64(unsigned char *p, uint64_t v)
{ store_le32(p, (uint32_t)v); store_le32(p + 4, (uint32_t)(v >> 32)); }

/* IEEE-754 bit patterns <-> values (memcpy: no aliasing UB) */
double bits_to_double(uint64_t b);
float bits_to_float(uint32_t b);
uint64_t double_to_bits(double x);
uint32_t float_to_bits(float x);

/* Read a real of the given precision (32 or 64) and byte order (big = 1)
 * from p; store one in big-endian order. */
double load_real(const unsigned char *p, int prec, int big);
void store_real_be(unsigned char *p, double x, int prec);

#endif
