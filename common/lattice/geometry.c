/* geometry.c -- slabs of timeslices per rank, scatter/gather through rank 0,
 * and the halo exchange; see geometry.h for the layout and the contract. */
#include "lattice/geometry.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

#define TAG_SCATTER 11
#define TAG_GATHER 12

static struct geometry the_domain;

const struct geometry *geometry_for(const struct lattice *glob)
{
    int R = comm_size();
    if (R == 1) return NULL;
    if (glob->L[3] % R)
        lat_die_all(1, NULL, "%d ranks do not divide the %d timeslices (the lattice is cut along t: use R | Lt)", R,
                glob->L[3]);
    struct geometry *d = &the_domain;
    memset(d, 0, sizeof *d);
    d->global = *glob;
    d->rank = comm_rank();
    d->size = R;
    d->lt = glob->L[3] / R;
    d->t0 = d->rank * d->lt;
    d->v3 = glob->V / glob->L[3];
    d->local = *glob;
    d->local.L[3] = d->lt + 2; /* may be odd: only owned slices are ever updated */
    d->local.V = d->v3 * (d->lt + 2);
    for (int mu = 0; mu < LAT_ND; mu++) d->grid[mu] = 1, d->coord[mu] = 0;
    d->grid[3] = R;
    d->coord[3] = d->rank;
    d->halo = 1;
    d->parity0 = (d->t0 + 1) & 1; /* local slice 0 is global slice t0 - 1 */
    return d;
}

static int mod(int a, int n) { return ((a % n) + n) % n; }

void geometry_scatter(const struct geometry *d, const double *full, double *local, size_t site_reals)
{
    const size_t slice = (size_t)d->v3 * site_reals;
    const int Lt = d->global.L[3];
    if (d->rank == 0) {
        for (int r = d->size - 1; r >= 0; r--) /* rank 0 last: its own copy */
            for (int k = 0; k < d->lt + 2; k++) {
                const double *src = full + (size_t)mod(r * d->lt - 1 + k, Lt) * slice;
                if (r == 0) memcpy(local + (size_t)k * slice, src, slice * sizeof(double));
                else comm_send(src, slice * sizeof(double), r, TAG_SCATTER);
            }
    } else {
        for (int k = 0; k < d->lt + 2; k++) comm_recv(local + (size_t)k * slice, slice * sizeof(double), 0, TAG_SCATTER);
    }
}

void geometry_gather(const struct geometry *d, const double *local, double *full, size_t site_reals)
{
    const size_t slab = (size_t)d->v3 * site_reals * d->lt;
    const double *own = local + (size_t)d->v3 * site_reals; /* slice 1 */
    if (d->rank == 0) {
        memcpy(full, own, slab * sizeof(double));
        for (int r = 1; r < d->size; r++) comm_recv(full + (size_t)r * slab, slab * sizeof(double), r, TAG_GATHER);
    } else {
        comm_send(own, slab * sizeof(double), 0, TAG_GATHER);
    }
}
