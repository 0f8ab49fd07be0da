/* dist.h -- a configuration spread over the ranks of a run (comm.h,
 * geometry.h): what every program that computes works on.
 *
 *   struct dist x;
 *   dist_read(&x, path, check, arg);  rank 0 reads and verifies the file
 *                                      (conf_read); every rank gets its slab:
 *                                      scattered by rank 0, or, from a
 *                                      regular ILDG file, read by the ranks
 *                                      themselves (MPI-IO) and checksummed
 *                                      together; then check(x, arg) on every
 *                                      rank.  A failure on rank 0 stops all
 *                                      ranks with rank 0's one-line error
 *   ... compute on x.u (and x.transform) ...
 *   dist_write(&x, path, &opts, results);  an ILDG file: rank 0 writes the
 *                                      records around a hole, the ranks write
 *                                      their slabs into it (MPI-IO), rank 0
 *                                      renames the complete file; standard
 *                                      output or NERSC: gathered to rank 0
 *   dist_free(&x);
 *
 * With one rank x.u is &x.c.u and nothing is copied.  On rank 0 x.c is the
 * whole configuration (records, history, name); on the other ranks x.c
 * holds only the header fields (format, file_prec) and no links. */
#ifndef LAT_DIST_H
#define LAT_DIST_H

#include "io/conf.h"
#include "lattice/geometry.h"

struct dist {
    struct conf c;
    const struct geometry *dom;  /* NULL with one rank */
    struct lattice lat;        /* the whole lattice */
    int nc;
    struct field *u;     /* this rank's field: &c.u, or &slab */
    double *transform;         /* this rank's g(x) (NULL unless tracked) */
    struct field slab;
    double *slab_transform;
};

/* check (may be NULL) runs on every rank once the slabs are in place; it
 * sees x->lat, x->nc and this rank's x->u, measures collectively and dies
 * with lat_die_all */
void dist_read(struct dist *x, const char *path, void (*check)(struct dist *x, void *arg), void *arg);
/* dist_read refuses (exit 1, every rank, before check) a configuration whose
 * time links at t = LT-1 carry the antiperiodic sign (conf.h:
 * boundary_sign): every program that computes with the links reads through
 * it.  dist_read_to_measure is the same read for the programs that only
 * report (lat-measure, lat-unitarity without --reproject): the sign is
 * left in x->c.check.boundary_sign, on every rank. */
void dist_read_to_measure(struct dist *x, const char *path, void (*check)(struct dist *x, void *arg), void *arg);
/* a new configuration (unit links) for generators */
void dist_new(struct dist *x, const struct lattice *lat, int nc);
/* start tracking g(x) (identity) unless the input carried one */
void dist_transform_start(struct dist *x);
/* gather to rank 0 (links and transform) without writing */
void dist_gather(struct dist *x);
/* gather, add the history entry (results may be NULL: none), write */
void dist_write(struct dist *x, const char *path, const struct conf_write_opts *o, const char *results);
void dist_free(struct dist *x);

#endif
