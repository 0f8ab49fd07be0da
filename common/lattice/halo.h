/* halo.h -- the halo exchange of a field on a slab (lattice/geometry.h):
 * one mechanism for every field kind; an algorithm names only the faces it
 * needs (which slice goes to which neighbour, which direction component
 * and parity of it: gaugefix/site.h halo_parts_gaugefix, heatbath/link.h
 * halo_parts_heatbath).
 *
 *   field_halo_start(x, u, parts, n) / halo_finish(x)   the parts of a field
 *       of any kind and storage precision 64/32 (links and momenta have four
 *       direction components per site, the other kinds one)
 *   field_halo_refresh(u)         both halo slices of u, completely
 *   halo_start / halo_post        the same on raw link arrays, and the
 *       messages alone for buffers packed elsewhere (the GPU packs on the
 *       device)
 *   halo_count / halo_bytes_sent  the bytes this rank sent, for -v and tests */
#ifndef LAT_HALO_H
#define LAT_HALO_H

#include "base/comm.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C declarations, also when CUDA or C++ code includes them */
#endif

struct geometry;
struct field;

/* Halo exchange.  A part moves links of one local slice to the neighbour
 * rank in direction dir (-1: rank-1, +1: rank+1, periodic), which stores
 * them in its slice recv_slice; every rank sends and receives every part.
 * mu < 0 moves all four directions, parity < 0 both parities (global
 * parity), so a part can carry just the links an update changed. */
struct halo_part { int dir, send_slice, recv_slice, mu, parity; };
#define HALO_MAXPARTS 4
struct halo_xfer {
    const struct geometry *d;
    void *links;           /* the field: esize-byte reals, ncomp components per site, link_reals each */
    size_t esize, link_reals;
    int ncomp;
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
/* both halo slices of a raw array of one matrix per site (site_reals
 * doubles), e.g. a gauge transformation */
void halo_refresh_sites(const struct geometry *d, double *f, size_t site_reals);
/* the same for any array: site_reals reals of esize bytes per site */
void halo_refresh_raw(const struct geometry *d, void *data, size_t esize, size_t site_reals);
/* bytes of halo this rank has sent since the start (halo_post and the GPU
 * halo's device-to-device copies add to it): lets a run say, and a test
 * check, what an algorithm exchanged */
void halo_count(size_t bytes);
uint64_t halo_bytes_sent(void);

void field_halo_start(struct halo_xfer *x, const struct field *u, const struct halo_part *parts, int nparts);
void field_halo_refresh(struct field *u);

#ifdef __cplusplus
}
#endif

#endif
