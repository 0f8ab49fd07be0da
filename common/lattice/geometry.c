/* geometry.c -- slabs of timeslices per rank, scatter/gather through rank 0,
 * and the halo exchange; see geometry.h for the layout and the contract. */
#include "lattice/geometry.h"
#include "lattice/field.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

#define TAG_SCATTER 11
#define TAG_GATHER 12
#define TAG_HALO 100

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

/* visit the links a part selects in local slice t, in site order */
#define FOR_SELECTED(x, t, body)                                                            \
    for (int64_t s = (int64_t)(t) * (x)->d->v3; s < (int64_t)((t) + 1) * (x)->d->v3; s++) { \
        if (pt->parity >= 0 && geometry_parity((x)->d, &(x)->d->local, s) != pt->parity) continue; \
        for (int mu = 0; mu < LAT_ND; mu++) {                                               \
            if (pt->mu >= 0 && mu != pt->mu) continue;                                      \
            unsigned char *l = (unsigned char *)(x)->links + ((size_t)s * LAT_ND + mu) * lb; \
            body;                                                                           \
        }                                                                                   \
    }

void halo_start(struct halo_xfer *x, const struct geometry *d, void *links, size_t esize, size_t link_reals,
                const struct halo_part *parts, int nparts)
{
    if (nparts > HALO_MAXPARTS) lat_die(1, NULL, "internal error: %d halo parts", nparts);
    memset(x, 0, sizeof *x);
    x->d = d;
    x->links = links;
    x->esize = esize;
    x->link_reals = link_reals;
    x->nparts = nparts;
    const size_t lb = esize * link_reals;
    for (int i = 0; i < nparts; i++) {
        const struct halo_part *pt = &parts[i];
        x->part[i] = *pt;
        size_t n = (size_t)d->v3 * (pt->mu < 0 ? LAT_ND : 1);
        if (pt->parity >= 0) n = (n + 1) / 2 + (size_t)d->v3 % 2; /* an upper bound */
        x->bytes[i] = 0;
        x->sbuf[i] = lat_malloc(n * lb);
        x->rbuf[i] = lat_malloc(n * lb);
        size_t used = 0;
        FOR_SELECTED(x, pt->send_slice, { memcpy(x->sbuf[i] + used, l, lb); used += lb; });
        x->bytes[i] = used;
    }
    halo_post(d, x->part, nparts, (void *const *)x->sbuf, (void *const *)x->rbuf, x->bytes, &x->reqs);
}

static uint64_t halo_sent;
void halo_count(size_t bytes) { halo_sent += bytes; }
uint64_t halo_bytes_sent(void) { return halo_sent; }

void halo_post(const struct geometry *d, const struct halo_part *parts, int nparts, void *const *sbuf,
               void *const *rbuf, const size_t *bytes, struct comm_reqs *reqs)
{
    for (int i = 0; i < nparts; i++) {
        halo_count(bytes[i]);
        int to = mod(d->rank + parts[i].dir, d->size), from = mod(d->rank - parts[i].dir, d->size);
        comm_irecv(rbuf[i], bytes[i], from, TAG_HALO + i, reqs);
        comm_isend(sbuf[i], bytes[i], to, TAG_HALO + i, reqs);
    }
}

void halo_finish(struct halo_xfer *x)
{
    comm_waitall(&x->reqs);
    const size_t lb = x->esize * x->link_reals;
    for (int i = 0; i < x->nparts; i++) {
        const struct halo_part *pt = &x->part[i];
        size_t used = 0;
        FOR_SELECTED(x, pt->recv_slice, { memcpy(l, x->rbuf[i] + used, lb); used += lb; });
        free(x->sbuf[i]);
        free(x->rbuf[i]);
    }
    x->nparts = 0;
}

void halo_refresh_all(const struct geometry *d, void *links, size_t esize, size_t link_reals)
{
    if (!d) return;
    struct halo_part parts[2] = {
        {-1, 1, d->lt + 1, -1, -1}, /* my first slice is the upper halo of rank-1 */
        {+1, d->lt, 0, -1, -1},     /* my last slice is the lower halo of rank+1 */
    };
    struct halo_xfer x;
    halo_start(&x, d, links, esize, link_reals, parts, 2);
    halo_finish(&x);
}

void halo_refresh_sites(const struct geometry *d, double *f, size_t site_reals)
{
    if (!d) return;
    /* whole slices are contiguous (t runs slowest): no packing */
    const size_t n = (size_t)d->v3 * site_reals;
    const struct halo_part parts[2] = {{-1, 1, d->lt + 1, -1, -1}, {+1, d->lt, 0, -1, -1}};
    void *sbuf[2] = {f + n, f + n * (size_t)d->lt}, *rbuf[2] = {f + n * (size_t)(d->lt + 1), f};
    const size_t bytes[2] = {n * sizeof(double), n * sizeof(double)};
    struct comm_reqs reqs = {0, {0}};
    halo_post(d, parts, 2, sbuf, rbuf, bytes, &reqs);
    comm_waitall(&reqs);
}

void geometry_field_alloc(struct field *u, const struct geometry *d, const struct lattice *glob, int nc, int prec)
{
    field_alloc(u, d ? &d->local : glob, nc, prec);
    u->dom = d;
}
