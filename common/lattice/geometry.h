/* geometry.h -- the slab of timeslices one rank holds when a program runs on
 * R MPI ranks (comm.h), and the moves of links between ranks.
 *
 * The lattice is cut along t: rank r owns the global timeslices
 * t0 = r*Lt/R .. t0+lt-1 (lt = Lt/R, any lt >= 1).  Its field (a
 * gauge_field with dom set) has the local lattice Lx x Ly x Lz x (lt+2):
 * local slice 0 is the halo copy of global slice t0-1, slices 1..lt are
 * owned, slice lt+1 is the halo copy of t0+lt (both modulo Lt).  Because
 * ILDG order runs t slowest, every slice is one contiguous block.
 *
 * Everything that depends on a site's place in the whole lattice uses the
 * global site (geometry_global_site): random-number counters, parity,
 * per-timeslice sums.  So each owned site sees exactly the arithmetic it
 * would see on one rank, and outputs do not depend on R.
 *
 * With one rank no domain exists (gauge_field.dom == NULL) and the field is
 * the whole periodic lattice; the helpers below accept dom == NULL and then
 * describe that. */
#ifndef LAT_GEOMETRY_H
#define LAT_GEOMETRY_H

#include "base/comm.h"
#include "lattice/sites.h"
#include <stddef.h>
#include <stdint.h>

struct field;

struct geometry {
    struct lattice global; /* the whole lattice */
    struct lattice local;  /* Lx, Ly, Lz, lt+2 */
    int rank, size;
    int t0, lt;            /* owned global timeslices t0 .. t0+lt-1 */
    int64_t v3;            /* sites per timeslice */
};

/* The domain of this rank for the lattice glob; NULL when the run has one
 * rank.  Dies (exit 1, on every rank alike) when R does not divide Lt. */
const struct geometry *geometry_for(const struct lattice *glob);

/* owned local timeslices [geometry_t_begin, geometry_t_end) of a field on lat */
static inline int geometry_t_begin(const struct geometry *d) { return d ? 1 : 0; }
static inline int geometry_t_end(const struct geometry *d, const struct lattice *lat) { return d ? d->lt + 1 : lat->L[3]; }
/* global timeslice of local slice t (owned slices) */
static inline int geometry_t_global(const struct geometry *d, int t) { return d ? d->t0 + t - 1 : t; }
/* global site of a local site of an owned slice */
static inline int64_t geometry_global_site(const struct geometry *d, int64_t s)
{ return d ? s + (int64_t)(d->t0 - 1) * d->v3 : s; }
/* global site of any local site, halo slices included (periodic in t) */
static inline int64_t geometry_any_global_site(const struct geometry *d, int64_t s)
{
    if (!d) return s;
    int Lt = d->global.L[3], t = (int)(s / d->v3);
    return s % d->v3 + (int64_t)(((d->t0 - 1 + t) % Lt + Lt) % Lt) * d->v3;
}
/* parity (x+y+z+t global) of a local site */
static inline int geometry_parity(const struct geometry *d, const struct lattice *lat, int64_t s)
{ return lattice_parity(lat, s) ^ (d ? (d->t0 + 1) & 1 : 0); }
/* the global lattice of a field's lattice */
static inline const struct lattice *geometry_global(const struct geometry *d, const struct lattice *lat)
{ return d ? &d->global : lat; }

/* Rank 0's whole-lattice array (site-major, site_reals doubles per site)
 * to every rank's slab with both halo slices, and back (owned slices only).
 * full is only read/written on rank 0. */
void geometry_scatter(const struct geometry *d, const double *full, double *local, size_t site_reals);
void geometry_gather(const struct geometry *d, const double *local, double *full, size_t site_reals);

/* Halo exchange.  A part moves links of one local slice to the neighbour
 * rank in direction dir (-1: rank-1, +1: rank+1, periodic), which stores
 * them in its slice recv_slice; every rank sends and receives every part.
 * mu < 0 moves all four directions, parity < 0 both parities (global
 * parity), so a part can carry just the links an update changed. */
struct halo_part { int dir, send_slice, recv_slice, mu, parity; };
#define HALO_MAXPARTS 4
struct halo_xfer {
    const struct geometry *d;
    void *links;           /* the field: esize-byte reals, link_reals per link */
    size_t esize, link_reals;
    int nparts;
    struct halo_part part[HALO_MAXPARTS];
    unsigned char *sbuf[HALO_MAXPARTS], *rbuf[HALO_MAXPARTS];
    size_t bytes[HALO_MAXPARTS];
    struct comm_reqs reqs;
};
/* pack and post (links of the send slices must be final), ... */
void halo_start(struct halo_xfer *x, const struct geometry *d, void *links, size_t esize, size_t link_reals,
                const struct halo_part *parts, int nparts);
/* ... wait and unpack into the receive slices; frees the buffers */
void halo_finish(struct halo_xfer *x);
/* the messages alone, for buffers packed elsewhere (the GPU backend packs
 * on the device): part i goes from sbuf[i] to the neighbour in parts[i].dir,
 * whose rbuf[i] receives it; complete with comm_waitall(reqs) */
void halo_post(const struct geometry *d, const struct halo_part *parts, int nparts, void *const *sbuf,
               void *const *rbuf, const size_t *bytes, struct comm_reqs *reqs);
/* refresh both halo slices of a field completely */
void halo_refresh_all(const struct geometry *d, void *links, size_t esize, size_t link_reals);
/* the same for a field of one matrix per site (site_reals doubles), e.g. a
 * gauge transformation */
void halo_refresh_sites(const struct geometry *d, double *f, size_t site_reals);
/* bytes of halo this rank has sent since the start (halo_post and the GPU
 * halo's device-to-device copies add to it): lets a run say, and a test
 * check, what an algorithm exchanged */
void halo_count(size_t bytes);
uint64_t halo_bytes_sent(void);

/* The links a gauge-fixing half-sweep of parity p changed that another
 * rank holds (common/gaugefix.h: the update at x changes U_mu(x) and
 * U_mu(x-mu) for the ndirs directions of the functional): the halo links
 * U_t(t0-1) of the other parity go back to their owner, and the owned
 * U_t(t0+lt-1) of parity p go to the rank above, whose halo they are.
 * Coulomb gauge (ndirs 3) moves no time link while it iterates: nothing.
 * Fills parts, returns their number. */
static inline int halo_parts_gaugefix(const struct geometry *d, int ndirs, int p, struct halo_part *parts)
{
    if (ndirs < 4) return 0;
    struct halo_part back = {-1, 0, d->lt, 3, 1 - p}, up = {+1, d->lt, 0, 3, p};
    parts[0] = back;
    parts[1] = up;
    return 2;
}
/* The links a heatbath step (parity p, direction mu: U_mu(x) for x of
 * parity p) changed that the neighbours' staples read: the first and last
 * owned slices' U_mu of parity p, to the halos below and above. */
static inline int halo_parts_heatbath(const struct geometry *d, int p, int mu, struct halo_part *parts)
{
    struct halo_part down = {-1, 1, d->lt + 1, mu, p}, up = {+1, d->lt, 0, mu, p};
    parts[0] = down;
    parts[1] = up;
    return 2;
}

/* A field for this rank: the whole lattice (d NULL) or the slab of d. */
void geometry_field_alloc(struct field *u, const struct geometry *d, const struct lattice *glob, int nc, int prec);

#endif
