/* confio.h -- the inside of conf.c and formats.c: the format back ends
 * (ildg.c and ildg_write.c for the LIME formats ILDG and SciDAC, scidac.c,
 * nersc.c, ...) and the helpers they share (conf.c).  Programs use conf.h, not this header; the
 * unit tests use it to reach the checksums directly.
 *
 * All readers die (lat_die, exit 1) with a one-line message naming the input
 * on any problem; all writers die naming the output.
 *
 * SciDAC checksum (FORMATS.md §3.7): per site, c = CRC-32 (zlib polynomial)
 * of the site's bytes as stored (big-endian, all four links), r = the site's
 * ILDG index; suma ^= rotl32(c, r % 29), sumb ^= rotl32(c, r % 31).
 *
 * XML: the strict reader of xml.h (included here). */
#ifndef LAT_CONFIO_H
#define LAT_CONFIO_H

#include "base/log.h"
#include "io/bytes.h"
#include "io/conf.h"
#include "io/lime.h"
#include "io/xml.h"
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* ---- checksums ---- */
uint32_t lat_crc32(uint32_t crc, const void *buf, size_t n); /* zlib crc32() */
static inline uint32_t rotl32(uint32_t w, unsigned n)
{ n &= 31; return (w << n) | (w >> (-n & 31)); }
struct scidac_sum { uint32_t a, b; };
static inline void scidac_sum_site(struct scidac_sum *s, uint64_t rank, uint32_t crc)
{
    s->a ^= rotl32(crc, (unsigned)(rank % 29));
    s->b ^= rotl32(crc, (unsigned)(rank % 31));
}
/* One chunk of a binary record: the sites x0 .. x0+k-1, sb bytes each at
 * buf + i sb.  code(ctx, x, bytes) is called for every site (a writer's
 * encoder fills the bytes, a reader's decoder reads them), then the CRC of
 * the site's bytes is folded into *sum.  Sites are independent and the
 * checksum's XORs are the same in any order, so the OpenMP threads share a
 * chunk: code must touch nothing but its site's bytes and its site's data. */
void scidac_code_chunk(struct scidac_sum *sum, int64_t x0, int64_t k, unsigned char *buf, size_t sb,
                       void (*code)(void *ctx, int64_t x, unsigned char *bytes), void *ctx);
/* The sites of a chunk when records are read or written: enough for every
 * thread to have work, a few MiB of buffer. */
#define SCIDAC_CHUNK_SITES 16384
/* The SciDAC checksum of u as an ILDG file of precision prec would hold it. */
struct scidac_sum scidac_checksum_field(const struct field *u, int prec);
/* Encode the four links of one site big-endian in precision prec into buf
 * (ildg_site_bytes(nc, prec) = LAT_ND * 2 nc^2 * prec/8 bytes). */
void ildg_encode_site(const struct field *u, int64_t site, int prec, unsigned char *buf);
/* And back: the site's links from those bytes. */
void ildg_decode_site(struct field *u, int64_t site, int prec, const unsigned char *buf);
static inline size_t ildg_site_bytes(int nc, int prec)
{ return (size_t)LAT_ND * field_link_reals(nc) * (size_t)(prec / 8); }
/* The sites x0 .. x0+k-1 of u encoded so into buf (k site_bytes) on the
 * OpenMP threads, their CRCs folded into *sum (scidac_code_chunk). */
void ildg_encode_chunk(struct scidac_sum *sum, const struct field *u, int prec, int64_t x0, int64_t k, unsigned char *buf);

/* ---- shared helpers ---- */
/* "now" for files: SOURCE_DATE_EPOCH when set (reproducible builds), else
 * the clock. */
time_t conf_now(void);
/* Dies naming the first non-finite real of u (site coordinates, direction,
 * matrix element) as found in `where`. */
void conf_check_finite(const struct field *u, const char *where, const char *what);
/* Append a copy of a record to c->keep. */
void conf_keep_add(struct conf *c, const char *type, const unsigned char *data, uint64_t len);
/* Find the first kept record of a type (NULL if none). */
const struct lime_record *conf_keep_find(const struct conf *c, const char *type);
/* Make room in the double field u (lattice and nc set, d NULL at first)
 * for sites [0, upto): d grows by doubling, capped at u->lat.V, *cap is
 * the number of sites it holds.  Readers grow the field as the data
 * arrives, so a header alone never reserves the memory of its lattice. */
void conf_field_grow(struct field *u, int64_t upto, int64_t *cap);
/* Writers of formats without records (NERSC, MILC, openQCD, HiRep): warn
 * once per process, naming what c carries that the file cannot hold (the
 * history, the tracked transform, carried records other than kept_type and
 * those the ILDG writer regenerates): "<file_kind> cannot hold ...; not
 * written".  file_kind e.g. "a MILC file"; kept_type may be NULL. */
void conf_warn_lost(const struct conf *c, const char *name, const char *file_kind, const char *kept_type);
/* Open a file to read (path NULL or "-": standard input, refused with exit 2
 * and "is a terminal: name <remedy>" when it is a terminal; a path that
 * cannot be opened: exit 1); *name becomes the name for messages. */
FILE *conf_open_input(const char *path, const char *remedy, const char **name);
/* Bytes the input still holds when it is a regular file, else -1 (a pipe). */
int64_t conf_input_left(const struct byte_in *in);
/* "8x8x8x16" */
void conf_extents(const struct lattice *lat, char *buf, size_t n);
/* A new string (lat_malloc) printed like printf. */
char *conf_strfmt(const char *fmt, ...) LAT_PRINTF(1, 2);
/* Decimal digits only (no sign, blank or other base), 1 .. 2^24: 0 and *v,
 * else -1.  For the extents and sizes of the XML records. */
int conf_parse_posint(const char *s, int *v);
/* A LIME text payload (NUL-terminated in memory) as a C string: the
 * trailing NULs QIO writes as a terminator are dropped, *len adjusted. */
static inline void lime_text_trim(unsigned char *p, uint64_t *len)
{
    while (*len && p[*len - 1] == 0) (*len)--;
    p[*len] = 0;
}

/* ---- the antiperiodic boundary sign (bsign.c) ---- */
/* 1 (time links at t = LT-1 all minus SU(N), no other link), 0 (no link
 * minus SU(N)), -1 (N even: not visible); dies naming the first link out
 * of place otherwise.  u whole (dom NULL) or a slab (collective). */
int conf_boundary_sign_find(const struct field *u, const char *where);
/* exit 1 on every rank, naming cause and remedy, if c->check.boundary_sign
 * is 1: the programs that compute with the links (dist_read) */
void conf_boundary_sign_refuse(const struct conf *c);

/* ---- back ends ---- */
void ildg_read(struct byte_in *in, struct conf *c);
void ildg_write(FILE *f, const char *name, const struct conf *c, int prec);
/* ildg_write, but with given != NULL the binary payload is left as a hole
 * (lime_skip) starting at byte *data_offset and the checksum record says
 * given->sum, the usqcdInfo given->plaq and linktr: the MPI ranks write
 * the data (dist.c).  c->u is then not read. */
struct ildg_given {
    struct scidac_sum sum;  /* of the data as written */
    double plaq, linktr;    /* for the usqcdInfo record */
};
void ildg_write_framing(FILE *f, const char *name, const struct conf *c, int prec, const struct ildg_given *given,
                        uint64_t *data_offset);
/* The one writer of both LIME layouts (ildg_write.c): with ILDG records
 * (ildg-format, ildg-data-lfn, ildg-binary-data), or QIO's SciDAC layout
 * without them (scidac-binary-data). */
enum lime_layout { LIME_LAYOUT_ILDG, LIME_LAYOUT_SCIDAC };
void lime_write_gauge(FILE *f, const char *name, const struct conf *c, int prec, enum lime_layout layout,
                      const struct ildg_given *given, uint64_t *data_offset);
void nersc_read(struct byte_in *in, struct conf *c);
void nersc_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec);
/* The other formats: detect (1 if the first n bytes pre of an input, n <=
 * CONF_DETECT_BYTES, look like the format), read, write.  The writers get
 * the options of conf_write (prec already resolved to 32 or 64). */
#define CONF_DETECT_BYTES 16
int milc_detect(const unsigned char *pre, size_t n);
void milc_read(struct byte_in *in, struct conf *c);
void milc_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec);
int openqcd_detect(const unsigned char *pre, size_t n);
void openqcd_read(struct byte_in *in, struct conf *c);
void openqcd_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec);
int hirep_detect(const unsigned char *pre, size_t n);
void hirep_read(struct byte_in *in, struct conf *c);
void hirep_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec);
/* SciDAC without ILDG records (scidac.c): a LIME file that ildg_read reads
 * when it has no ildg-format record but scidac-private-file-xml,
 * scidac-private-record-xml and scidac-binary-data records.
 * scidac_gauge_format: the lattice, N and precision of a gauge field from
 * the texts of the two private records, all their statements checked
 * against each other (rules in scidac.c); 0, or -1 with one line in err. */
struct scidac_format {
    int L[LAT_ND];
    int nc, prec;        /* colours; 32 or 64 bits */
    char datatype[64];   /* as the file names it */
};
int scidac_gauge_format(const char *file_xml, const char *record_xml, struct scidac_format *f, char *err, size_t errn);
/* The scidac-private-record-xml lat writes: USQCD_<F|D><N>_ColorMatrix,
 * precision F or D, colors N, typesize 2N^2 x 4 or 8, the datacount given,
 * the date from conf_now(); a new string. */
char *scidac_private_record_xml(int nc, int prec, int datacount);
/* the same for any QIO field: USQCD_<F|D><N>_<kind>, <spins> when spins > 0,
 * typesize bytes per datum (propagator.c: DiracFermion) */
char *scidac_private_record_xml_typed(const char *kind, int nc, int spins, size_t typesize, int prec, int datacount);
/* the scidac-private-file-xml of a 4-d lattice L and the scidac-checksum
 * record text of sum, as every LIME writer of lat frames them (new strings) */
char *scidac_private_file_xml(const int *L);
char *scidac_checksum_xml(struct scidac_sum sum);
void scidac_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec);
/* The tracked g(x) of c as a SciDAC file of one ColorMatrix field
 * (USQCD_D<N>_ColorMatrix, datacount 1, typesize 16 N^2, big-endian
 * doubles in ILDG site order, scidac-checksum over the sites, a
 * latGaugeTransform record XML with the convention, N and the lattice). */
void scidac_write_transform(FILE *f, const char *name, const struct conf *c);

/* record types of our own */
#define LAT_REC_HISTORY "lat-history"
#define LAT_REC_TRANSFORM "lat-gauge-transform"
#define LAT_REC_NERSC_HEADER "lat-nersc-header"

/* what the ILDG writer puts in the slots when the input had nothing there */
#define LAT_XML_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
#define LAT_DEFAULT_FILE_XML LAT_XML_HEAD "<title>lat gauge configuration</title>"
#define LAT_DEFAULT_LFN "lfn://lat/unassigned"
/* 1 if a kept record holds nothing a NERSC file loses: a default of ours
 * or a usqcdInfo (its numbers are recomputed). */
int ildg_record_is_regenerable(const struct lime_record *r);

#endif
