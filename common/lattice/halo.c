/* halo.c -- the halo exchange of a slab (lattice/halo.h); the faces an
 * algorithm needs are named by its module (gaugefix/site.h, heatbath/link.h). */
#include "lattice/halo.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "base/comm.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

enum { TAG_HALO = 100 };
static int mod(int a, int n) { return ((a % n) + n) % n; }

/* visit the links a part selects in local slice t, in site order */
#define FOR_SELECTED(x, t, body)                                                            \
    for (int64_t s = (int64_t)(t) * (x)->d->v3; s < (int64_t)((t) + 1) * (x)->d->v3; s++) { \
        if (pt->parity >= 0 && geometry_parity((x)->d, &(x)->d->local, s) != pt->parity) continue; \
        for (int mu = 0; mu < (x)->ncomp; mu++) {                                          \
            if (pt->mu >= 0 && mu != pt->mu) continue;                                      \
            unsigned char *l = (unsigned char *)(x)->links + ((size_t)s * (x)->ncomp + mu) * lb; \
            body;                                                                           \
        }                                                                                   \
    }

static void halo_start_n(struct halo_xfer *x, const struct geometry *d, void *links, size_t esize, int ncomp,
                         size_t link_reals, const struct halo_part *parts, int nparts)
{
    if (nparts > HALO_MAXPARTS) lat_die(1, NULL, "internal error: %d halo parts", nparts);
    memset(x, 0, sizeof *x);
    x->d = d;
    x->links = links;
    x->esize = esize;
    x->ncomp = ncomp;
    x->link_reals = link_reals;
    x->nparts = nparts;
    const size_t lb = esize * link_reals;
    for (int i = 0; i < nparts; i++) {
        const struct halo_part *pt = &parts[i];
        x->part[i] = *pt;
        size_t n = (size_t)d->v3 * (size_t)(pt->mu < 0 ? ncomp : 1);
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

void halo_start(struct halo_xfer *x, const struct geometry *d, void *links, size_t esize, size_t link_reals,
                const struct halo_part *parts, int nparts)
{
    halo_start_n(x, d, links, esize, LAT_ND, link_reals, parts, nparts);
}

/* a field's storage as the exchange sees it: components per site (the four
 * directions of links and momenta, else the whole site), their reals, the
 * bytes of a real */
static void *field_parts(const struct field *u, int *ncomp, size_t *comp_reals, size_t *esize)
{
    if (u->prec == 16) lat_die(1, NULL, "internal error: no halo exchange of half-precision fields yet");
    size_t sr = field_site_reals(u->kind, u->nc);
    *ncomp = (u->kind == FIELD_LINKS || u->kind == FIELD_MOMENTUM) ? LAT_ND : 1;
    *comp_reals = sr / (size_t)*ncomp;
    *esize = u->prec == 64 ? sizeof(double) : sizeof(float);
    return u->prec == 64 ? (void *)u->d : (void *)u->f;
}

void field_halo_start(struct halo_xfer *x, const struct field *u, const struct halo_part *parts, int nparts)
{
    int ncomp;
    size_t cr, es;
    void *data = field_parts(u, &ncomp, &cr, &es);
    halo_start_n(x, u->dom, data, es, ncomp, cr, parts, nparts);
}

void field_halo_refresh(struct field *u)
{
    if (!u->dom) return;
    const struct geometry *d = u->dom;
    const struct halo_part parts[2] = {{-1, 1, d->lt + 1, -1, -1}, {+1, d->lt, 0, -1, -1}};
    struct halo_xfer x;
    field_halo_start(&x, u, parts, 2);
    halo_finish(&x);
}

void halo_refresh_raw(const struct geometry *d, void *data, size_t esize, size_t site_reals)
{
    if (!d) return;
    const struct halo_part parts[2] = {{-1, 1, d->lt + 1, -1, -1}, {+1, d->lt, 0, -1, -1}};
    struct halo_xfer x;
    halo_start_n(&x, d, data, esize, 1, site_reals, parts, 2);
    halo_finish(&x);
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

