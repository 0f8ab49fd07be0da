/* scidac_sum.c -- CRC-32 (zlib's) and the SciDAC checksum of a gauge field,
 * with the encoder of one site as the ILDG/SciDAC binary records store it
 * (big-endian, four links x,y,z,t, row-major complex matrices).  The
 * contracts are in confio.h; the algorithm is FORMATS.md §3.7.  The
 * readers, the writers and dist.c (the MPI slabs) all checksum through
 * these, so there is one definition of what a site's bytes are. */
#include "io/confio.h"
#include "base/log.h"
#include <stdlib.h>

/* ---- CRC-32 and the SciDAC checksum ------------------------------------- */

static uint32_t crc_table[8][256];
static int crc_ready;

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[0][n] = c;
    }
    for (int t = 1; t < 8; t++)
        for (uint32_t n = 0; n < 256; n++)
            crc_table[t][n] = crc_table[0][crc_table[t - 1][n] & 0xff] ^ (crc_table[t - 1][n] >> 8);
    crc_ready = 1;
}

uint32_t lat_crc32(uint32_t crc, const void *buf, size_t n)
{
    if (!crc_ready) crc_init();
    const unsigned char *p = buf;
    uint32_t c = ~crc;
    while (n >= 8) { /* slicing by 8 */
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
            crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
            crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

void scidac_code_chunk(struct scidac_sum *sum, int64_t x0, int64_t k, unsigned char *buf, size_t sb,
                       void (*code)(void *ctx, int64_t x, unsigned char *bytes), void *ctx)
{
    if (!crc_ready) crc_init(); /* before the threads: the tables are filled once */
    uint32_t a = 0, b = 0;
#pragma omp parallel for schedule(static) reduction(^ : a, b) if (k >= 1024)
    for (int64_t i = 0; i < k; i++) {
        unsigned char *site = buf + (size_t)i * sb;
        code(ctx, x0 + i, site);
        struct scidac_sum one = {0, 0};
        scidac_sum_site(&one, (uint64_t)(x0 + i), lat_crc32(0, site, sb));
        a ^= one.a;
        b ^= one.b;
    }
    sum->a ^= a;
    sum->b ^= b;
}

void ildg_encode_site(const struct field *u, int64_t site, int prec, unsigned char *buf)
{
    size_t n = LAT_ND * field_link_reals(u->nc);
    const double *d = field_link(u, site, 0);
    for (size_t i = 0; i < n; i++) store_real_be(buf + i * (size_t)(prec / 8), d[i], prec);
}

void ildg_decode_site(struct field *u, int64_t site, int prec, const unsigned char *buf)
{
    size_t n = LAT_ND * field_link_reals(u->nc);
    double *d = field_link(u, site, 0);
    for (size_t i = 0; i < n; i++) d[i] = load_real(buf + i * (size_t)(prec / 8), prec, 1);
}

struct field_code { const struct field *u; int prec; };
static void encode_field_site(void *ctx, int64_t x, unsigned char *bytes)
{
    const struct field_code *f = ctx;
    ildg_encode_site(f->u, x, f->prec, bytes);
}

void ildg_encode_chunk(struct scidac_sum *sum, const struct field *u, int prec, int64_t x0, int64_t k, unsigned char *buf)
{
    struct field_code f = {u, prec};
    scidac_code_chunk(sum, x0, k, buf, ildg_site_bytes(u->nc, prec), encode_field_site, &f);
}

struct scidac_sum scidac_checksum_field(const struct field *u, int prec)
{
    struct scidac_sum s = {0, 0};
    unsigned char *buf = lat_malloc(ildg_site_bytes(u->nc, prec) * SCIDAC_CHUNK_SITES);
    for (int64_t x0 = 0; x0 < u->lat.V; x0 += SCIDAC_CHUNK_SITES)
        ildg_encode_chunk(&s, u, prec, x0, u->lat.V - x0 < SCIDAC_CHUNK_SITES ? u->lat.V - x0 : SCIDAC_CHUNK_SITES, buf);
    free(buf);
    return s;
}
