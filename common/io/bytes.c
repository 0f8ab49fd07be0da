/* bytes.c -- byte streams with a pushback prefix and IEEE conversions; see
 * bytes.h for the contract. */
#include "io/bytes.h"
#include <sys/stat.h>
#include <errno.h>
#include <string.h>

void byte_in_init(struct byte_in *in, FILE *f, const char *name, const void *pre, size_t npre)
{
    memset(in, 0, sizeof *in);
    in->f = f;
    in->name = name;
    if (npre > sizeof in->pre) npre = sizeof in->pre;
    if (npre) memcpy(in->pre, pre, npre);
    in->npre = npre;
}

size_t byte_in_read(struct byte_in *in, void *buf, size_t n)
{
    unsigned char *b = buf;
    size_t got = 0;
    while (got < n && in->ipre < in->npre) b[got++] = in->pre[in->ipre++];
    while (got < n && !in->err) {
        size_t k = fread(b + got, 1, n - got, in->f);
        got += k;
        if (k == 0) {
            if (ferror(in->f)) in->err = errno ? errno : EIO;
            break;
        }
    }
    in->pos += got;
    return got;
}

uint64_t byte_in_skip(struct byte_in *in, uint64_t n)
{
    /* a regular file with nothing pending: seek (a skipped binary record of
     * gigabytes costs nothing), stopping at its end like a read would */
    struct stat st;
    off_t cur;
    if (in->ipre >= in->npre && fstat(fileno(in->f), &st) == 0 && S_ISREG(st.st_mode) && (cur = ftello(in->f)) >= 0) {
        uint64_t left = (uint64_t)st.st_size > (uint64_t)cur ? (uint64_t)st.st_size - (uint64_t)cur : 0;
        uint64_t k = n < left ? n : left;
        if (fseeko(in->f, (off_t)k, SEEK_CUR) == 0) {
            in->pos += k;
            return k;
        }
    }
    unsigned char buf[65536];
    uint64_t done = 0;
    while (done < n) {
        size_t want = n - done < sizeof buf ? (size_t)(n - done) : sizeof buf;
        size_t k = byte_in_read(in, buf, want);
        done += k;
        if (k < want) break;
    }
    return done;
}

double bits_to_double(uint64_t b) { double x; memcpy(&x, &b, 8); return x; }
float bits_to_float(uint32_t b) { float x; memcpy(&x, &b, 4); return x; }
uint64_t double_to_bits(double x) { uint64_t b; memcpy(&b, &x, 8); return b; }
uint32_t float_to_bits(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }

double load_real(const unsigned char *p, int prec, int big)
{
    if (prec == 64) return bits_to_double(big ? load_be64(p) : load_le64(p));
    return bits_to_float(big ? load_be32(p) : load_le32(p));
}

void store_real_be(unsigned char *p, double x, int prec)
{
    if (prec == 64) store_be64(p, double_to_bits(x));
    else store_be32(p, float_to_bits((float)x));
}
