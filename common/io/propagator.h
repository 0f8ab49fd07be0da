/* propagator.h (io/propagator.h) -- quark propagator files: the 4 nc
 * spin-colour solutions S(x, x0) of one source, written and read as a
 * USQCD/SciDAC LIME file in QIO's "source-sink pairs" layout
 * (USQCD_DiracFermion_Source_Sink_Pairs), the one Chroma reads with its
 * USQCD_READ_DD_PAIRS_PROP task and MILC with its FILE_TYPE_W_USQCD_DD_PAIRS
 * reader.  lat(7), PROPAGATOR FILES, documents the records:
 *
 *   msg 1: scidac-private-file-xml (MB)  <scidacFile> lattice dims
 *          scidac-file-xml (ME)          <usqcdPropFile><version>1.0</version>
 *                                        <type>USQCD_DiracFermion_Source_Sink_Pairs</type>
 *                                        <info>the caller's XML (lat: <latPropagator>)</info>
 *   then for spin s = 0..3, colour c = 0..nc-1 (source column k = s nc + c)
 *   two messages, the source field and the solution, each
 *          scidac-private-record-xml (MB) USQCD_<F|D><nc>_DiracFermion, <spins> 4,
 *                                         typesize 8 nc x 4 or 8, datacount 1
 *          scidac-record-xml              <usqcdSourceInfo> / <usqcdPropInfo> with
 *                                         <version>1.0, <spin> s, <color> c, <info>
 *          scidac-binary-data             V sites in ILDG order (x fastest), each
 *                                         4 spins x nc colours x (re, im), spin
 *                                         slowest, big-endian IEEE
 *          scidac-checksum (ME)           the SciDAC checksum of the sites
 *   then lat-history (one message): the configuration's history and the
 *   provenance entry of the run.
 *
 * In memory a solution is a full spinor field in kernels/dirac's layout
 * (the same as the file's per site, host doubles).  The source of column k
 * is e_{s,c} on the source sites: one site (point) or every site of one
 * timeslice (wall).
 *
 * prop_read verifies everything: framing, the file type, each record's
 * datatype/precision/colours/spins/typesize/datacount, the binary length
 * (V x typesize), the checksums, finite numbers, every (spin, colour) once
 * as a source and once as a solution, and that the sources are the unit
 * sources of one point or one wall (the point or timeslice is returned).
 * The lattice is checked against the input's size (a regular file) before
 * the fields are allocated, and the fields grow as the data arrive from a
 * pipe.  Any problem: one line naming the input, exit 1. */
#ifndef LAT_PROPAGATOR_H
#define LAT_PROPAGATOR_H

#include "lattice/field.h"
#include <stddef.h>

#define PROP_NS 4 /* spins */
#define PROP_FILE_TYPE "USQCD_DiracFermion_Source_Sink_Pairs"

struct prop_source {
    int wall;          /* 0: point at x; 1: wall on timeslice x[3] (x[0..2] 0) */
    int x[LAT_ND];
};

struct propagator {
    struct lattice lat;
    int nc;
    int file_prec;                 /* 32 or 64 (read) */
    struct prop_source src;
    double *col[PROP_NS * LAT_NC_MAX]; /* column k = spin*nc + colour: V*4*nc*2 reals each */
    char *info;                    /* text of <usqcdPropFile><info> (read), or NULL */
    char *history;                 /* lat-history payload or NULL */
    const char *name;              /* for messages */
};

/* reals of one column: V * 8 * nc */
size_t prop_column_reals(const struct propagator *p);
/* "point:x,y,z,t" / "wall:t" into s (checked against lat): 0, or -1 with
 * the reason in why[n] */
int prop_source_parse(const char *text, const struct lattice *lat, struct prop_source *s, char *why, size_t n);
/* the same words back ("point:1,0,0,2", "wall:3") */
void prop_source_format(const struct prop_source *s, char *buf, size_t n);
/* the unit source of column (spin, colour) as a full spinor field (zeroed
 * first): 1 at every source site */
void prop_source_field(const struct prop_source *s, const struct lattice *lat, int nc, int spin, int colour,
                       double *field);
/* the same restricted to the global timeslices t0 .. t0+nt-1 (a rank's
 * slab, lattice/geometry.h): field holds nt V3 sites, its first the site
 * (0,0,0,t0) */
void prop_source_field_slab(const struct prop_source *s, const struct lattice *lat, int nc, int spin, int colour,
                            int t0, int nt, double *field);

/* Write p (all 4 nc columns set) atomically to path (NULL or "-":
 * standard output, never a terminal) in precision prec (32 or 64);
 * info_xml goes inside <info> of the file XML and of every record
 * (well-formed XML text, the caller's); p->history into lat-history. */
void prop_write(const char *path, const struct propagator *p, const char *info_xml, int prec);
/* Read a propagator file (path NULL or "-": standard input); see above. */
void prop_read(const char *path, struct propagator *p);
void prop_free(struct propagator *p);

#endif
