/* conf.h -- a gauge configuration as the programs see it, and reading and
 * writing it in any supported file format.
 *
 * conf_read() detects the format from the bytes (LIME magic -> ILDG,
 * "BEGIN_HEADER" -> NERSC), reads from a file or a non-seekable pipe (path
 * NULL or "-" = standard input), verifies everything the file carries
 * (framing, sizes, SciDAC or NERSC checksums, NERSC plaquette and link
 * trace, finite numbers) and dies with a one-line error naming the input on
 * any problem (exit 1).  The field is always returned in double precision.
 *
 * conf_write() writes atomically through output.h (binary output to a
 * terminal refused).  LIME records of the input that lat does not rewrite are
 * carried to the output unchanged and in order (SPEC §2); the history and
 * the tracked gauge transformation travel in records of their own:
 *   lat-history          text, one provenance entry per line
 *   lat-gauge-transform  g(x) for every site, nc x nc complex, big-endian
 *                        IEEE 64-bit, ILDG site order (see lat-convert(1)). */
#ifndef LAT_CONF_H
#define LAT_CONF_H

#include "lattice/field.h"
#include <stdint.h>

/* The file formats (FORMATS.md): LIME with ILDG records, NERSC archive, MILC
 * binary v5, openQCD export, SciDAC/QIO without ILDG records, HiRep. */
enum conf_format { CONF_ILDG = 1, CONF_NERSC = 2, CONF_MILC = 3, CONF_OPENQCD = 4, CONF_SCIDAC = 5, CONF_HIREP = 6 };
#define CONF_FORMAT_CHOICES "ildg|nersc|milc|openqcd|scidac|hirep"
/* "ildg", "nersc", ... (the names of --to and of reports); "unknown" else */
const char *conf_format_name(enum conf_format f);
/* the format of a name of CONF_FORMAT_CHOICES, 0 if none */
enum conf_format conf_format_parse(const char *name);

struct lime_record {
    char type[129];
    uint64_t len;
    unsigned char *data;
};

/* What conf_read found in the input and verified (for lat-convert --check
 * and reports).  Anything that failed verification has already stopped the
 * program, so what is listed here agreed with the data. */
struct conf_check {
    char detail[64];    /* e.g. "ILDG" or "NERSC 4D_SU3_GAUGE IEEE32BIG" */
    char checksum[80];  /* e.g. "scidac 37affb9c 2fc07bbf", "nersc ba83ff12"; "" if none */
    int has_plaq;       /* the file stated a plaquette (NERSC PLAQUETTE, usqcdInfo
                           plaq) and the data agrees (a usqcdInfo that does not
                           only draws a warning) */
    int has_linktr;     /* the same for the link trace */
    double plaq, linktr; /* the stated values */
    int boundary_sign;  /* 1: the time links at t = LT-1 carry the antiperiodic
                           sign baked in (det U = -1, as QUDA and SIMULATeQCD
                           write them; bsign.c), 0: no sign, -1: N even, where
                           det(-U) = det U hides it.  A configuration with
                           det U = -1 anywhere else was refused as broken. */
};

struct conf {
    struct field u;       /* the links, double precision */
    const char *name;           /* for messages: the path or "standard input" */
    enum conf_format format;    /* format of the input */
    int file_prec;              /* 32 or 64: precision of the input file */
    struct lime_record *keep;   /* records carried through unchanged */
    int nkeep;
    char *history;              /* lat-history payload (NUL-terminated) or NULL */
    double *transform;          /* tracked g(x): V * 2*nc*nc reals, or NULL */
    /* conf_read_deferring: the ILDG binary record left unread (on = 1) for
     * the MPI ranks to read in parallel: where its payload starts, its
     * precision, and the checksum the file states (dist.c verifies it) */
    struct conf_deferred {
        int on;
        uint64_t offset;
        int prec;
        int have_sum;
        uint32_t suma, sumb;
    } deferred;
    struct conf_check check;    /* filled by conf_read */
};

/* A new configuration (for generators): unit links, no records. */
void conf_init(struct conf *c, const struct lattice *lat, int nc);

void conf_read(const char *path, struct conf *c);
/* conf_read, except that a regular ILDG file's binary record (if it comes
 * after the ildg-format record) is not read: c->u is allocated but not
 * filled, c->deferred says where the data is, and the checks that need
 * the data (checksum, finite numbers, usqcdInfo) are the caller's. */
void conf_read_deferring(const char *path, struct conf *c);
void conf_free(struct conf *c);

struct conf_write_opts {
    enum conf_format format; /* CONF_ILDG (default 0 means ILDG), CONF_NERSC, ... */
    int prec;                /* 32 or 64 (0: the input's precision, else 64) */
    int nersc_3x3;           /* NERSC: store 3 rows instead of 2 */
    long long nersc_sequence;        /* NERSC SEQUENCE_NUMBER (>= 1); 0: the history's
                                        sweep counter (conf_history_next_sweep) if >= 1,
                                        else the input's (a lat-nersc-header record),
                                        else 1 */
    const char *nersc_ensemble_label; /* NERSC ENSEMBLE_LABEL; NULL: the input's, else "lat";
                                        conf_nersc_label_problem() must accept it */
};
void conf_write(const char *path, const struct conf *c, const struct conf_write_opts *o);
/* NULL if s can be a NERSC ENSEMBLE_LABEL (1..256 printable ASCII characters,
 * '=' included, no blank at either end: the line "ENSEMBLE_LABEL = s" reads
 * back as s), else why not, e.g. "it is empty". */
const char *conf_nersc_label_problem(const char *s);

/* Multiply the time links at t = LT-1 by -1 (c->check.boundary_sign 1 ->
 * 0); returns the number of links changed.  Dies (exit 1, naming the input)
 * when the sign was not detected, so it never creates one (bsign.c). */
int64_t conf_strip_boundary_sign(struct conf *c);
/* the word of the reports' key boundary_sign: "antiperiodic" (1), "none"
 * (0), "undetectable" (-1: even N) */
const char *conf_boundary_sign_word(int boundary_sign);

/* Append one provenance entry:
 *   <UTC time>\t<program> <version>\t<command line>\t<results>
 * results is free text such as "F=0.873 theta=3.1e-13 iterations=812
 * converged=yes".  The time honours SOURCE_DATE_EPOCH. */
void conf_history_add(struct conf *c, const char *results);
/* next_sweep= of the last lat-heatbath entry of a history (the sweep counter
 * of the configuration it saved), or -1 if none (or history NULL). */
long long conf_history_next_sweep(const char *history);

/* Tracking: start an identity transform (if none is carried yet). */
void conf_transform_start(struct conf *c);

/* Write the tracked g(x) as a file of its own (path NULL or "-": standard
 * output), atomically: a standard SciDAC (QIO) file of one ColorMatrix
 * field, datatype USQCD_D<N>_ColorMatrix, datacount 1, precision D, the
 * scidac-checksum over the sites, and a latGaugeTransform record XML with
 * the convention U_mu(x) -> g(x) U_mu(x) g(x+mu)^dagger, N and the
 * lattice.  Dies (exit 1) when c carries no transform.  See lat-convert(1). */
void conf_write_transform(const char *path, const struct conf *c);

#endif
