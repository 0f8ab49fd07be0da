/* dist.c -- reading, scattering, gathering and writing a configuration
 * over the ranks of a run; see dist.h for the contract. */
#include "dist.h"
#include "log.h"
#include <stdlib.h>
#include <string.h>

/* what rank 0 tells the others after reading */
struct dist_header {
    int L[LAT_ND], nc, format, file_prec, has_transform;
};

static void setup_slab(struct dist *x, int has_transform)
{
    x->dom = domain_for(&x->lat);
    if (!x->dom) {
        x->u = &x->c.u;
        x->transform = x->c.transform;
        return;
    }
    domain_field_alloc(&x->slab, x->dom, &x->lat, x->nc, 64);
    x->u = &x->slab;
    const size_t site = (size_t)LAT_ND * field_link_reals(x->nc);
    domain_scatter(x->dom, x->c.u.d, x->slab.d, site);
    if (has_transform) {
        x->slab_transform = lat_malloc((size_t)x->dom->local.V * field_link_reals(x->nc) * sizeof(double));
        domain_scatter(x->dom, x->c.transform, x->slab_transform, field_link_reals(x->nc));
    }
    x->transform = x->slab_transform;
}

void dist_read(struct dist *x, const char *path, void (*check)(struct conf *c, void *arg), void *arg)
{
    memset(x, 0, sizeof *x);
    struct dist_header h = {{0}, 0, 0, 0, 0};
    if (comm_is_root()) {
        comm_root_begin();
        conf_read(path, &x->c);
        if (check) check(&x->c, arg);
        for (int mu = 0; mu < LAT_ND; mu++) h.L[mu] = x->c.u.lat.L[mu];
        h.nc = x->c.u.nc;
        h.format = (int)x->c.format;
        h.file_prec = x->c.file_prec;
        h.has_transform = x->c.transform != NULL;
        comm_root_end(&h, sizeof h);
    } else {
        comm_root_wait(&h, sizeof h);
        x->c.name = "input";
        x->c.format = (enum conf_format)h.format;
        x->c.file_prec = h.file_prec;
    }
    x->nc = h.nc;
    const char *why;
    if (lattice_init(&x->lat, h.L, &why) != 0) lat_die(1, x->c.name, "%s", why); /* verified by conf_read already */
    x->c.u.lat = x->lat;
    x->c.u.nc = x->nc;
    x->c.u.prec = 64;
    setup_slab(x, h.has_transform);
}

void dist_new(struct dist *x, const struct lattice *lat, int nc)
{
    memset(x, 0, sizeof *x);
    x->lat = *lat;
    x->nc = nc;
    x->dom = domain_for(lat);
    if (comm_is_root() || !x->dom) conf_init(&x->c, lat, nc);
    else {
        x->c.u.lat = *lat;
        x->c.u.nc = nc;
        x->c.u.prec = 64;
        x->c.name = "output";
    }
    if (!x->dom) {
        x->u = &x->c.u;
        return;
    }
    domain_field_alloc(&x->slab, x->dom, lat, nc, 64);
    field_set_unit(&x->slab);
    x->u = &x->slab;
}

void dist_transform_start(struct dist *x)
{
    if (!x->dom) {
        conf_transform_start(&x->c);
        x->transform = x->c.transform;
        return;
    }
    if (x->slab_transform) return;
    const size_t n = field_link_reals(x->nc);
    if (comm_is_root()) conf_transform_start(&x->c); /* rank 0's copy, filled by the gather */
    x->slab_transform = lat_calloc((size_t)x->dom->local.V * n, sizeof(double));
    for (int64_t s = 0; s < x->dom->local.V; s++)
        for (int a = 0; a < x->nc; a++) x->slab_transform[(size_t)s * n + 2 * (size_t)(a * x->nc + a)] = 1;
    x->transform = x->slab_transform;
}

void dist_gather(struct dist *x)
{
    if (!x->dom) return;
    const size_t site = (size_t)LAT_ND * field_link_reals(x->nc);
    domain_gather(x->dom, x->slab.d, x->c.u.d, site);
    if (x->slab_transform) domain_gather(x->dom, x->slab_transform, x->c.transform, field_link_reals(x->nc));
}

void dist_write(struct dist *x, const char *path, const struct conf_write_opts *o, const char *results)
{
    dist_gather(x);
    if (comm_is_root()) {
        comm_root_begin();
        if (results) conf_history_add(&x->c, results);
        conf_write(path, &x->c, o);
        comm_root_end(NULL, 0);
    } else {
        comm_root_wait(NULL, 0);
    }
}

void dist_free(struct dist *x)
{
    if (x->dom) {
        field_free(&x->slab);
        free(x->slab_transform);
    }
    if (comm_is_root() || !x->dom) conf_free(&x->c);
    memset(x, 0, sizeof *x);
}
