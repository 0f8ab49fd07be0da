/* gauge_quality.c -- F and theta of a host field for Landau, Coulomb and
 * maximally Abelian gauge, from the local terms in gaugefix.h (the same
 * functions the kernels use).  Sums run site by site in ILDG order, per
 * timeslice (timeslices on any number of OpenMP threads or MPI ranks), then
 * over timeslices in order: the result is deterministic and the same on
 * any number of ranks. */
#include "gaugefix/site.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

static void load_site(const struct field *u, int64_t s, lat_complex *up, lat_complex *dn)
{
    int nn = u->nc * u->nc;
    for (int mu = 0; mu < 4; mu++) {
        memcpy(up + mu * nn, field_link(u, s, mu), sizeof(lat_complex) * nn);
        memcpy(dn + mu * nn, field_link(u, lattice_neighbour(&u->lat, s, mu, -1), mu), sizeof(lat_complex) * nn);
    }
}

void gauge_quality_measure(const struct field *u, enum gauge_kind g, struct gauge_quality *q)
{
    const struct lattice *lat = &u->lat;
    const struct geometry *d = u->dom;
    const struct lattice *glob = geometry_global(d, lat);
    int n = u->nc, nt = glob->L[3];
    int64_t v3 = lat->V / lat->L[3];
    int tb = geometry_t_begin(d), te = geometry_t_end(d, lat);
    double *sums = lat_calloc((size_t)2 * nt, sizeof(double));
    /* timeslices in parallel: each is summed in site order by one thread */
#pragma omp parallel for schedule(dynamic, 1) if (lat->V >= 4096)
    for (int t = tb; t < te; t++) {
        lat_complex up[4 * LAT_NC_MAX * LAT_NC_MAX], dn[4 * LAT_NC_MAX * LAT_NC_MAX];
        double fs = 0, ts = 0;
        for (int64_t s = t * v3; s < (t + 1) * v3; s++) {
            load_site(u, s, up, dn);
            fs += n == 3 ? gf_site_functional(3, g, up) : gf_site_functional(n, g, up);
            ts += n == 3 ? gf_site_theta(3, g, up, dn) : gf_site_theta(n, g, up, dn);
        }
        int tg = geometry_t_global(d, t);
        sums[2 * tg] = fs;
        sums[2 * tg + 1] = ts;
    }
    /* each slice's sum comes from one rank, the others add 0: exact, so
     * the result does not depend on the number of ranks */
    if (d) comm_sum(sums, (size_t)2 * nt);
    gauge_quality_from_sums(q, g, n, glob->V, nt, sums);
    free(sums);
}

void gauge_quality_from_sums(struct gauge_quality *q, enum gauge_kind g, int n, int64_t V, int nt, const double *sums)
{
    int64_t v3 = V / nt;
    double *ft = lat_calloc((size_t)nt, sizeof(double)), *tt = lat_calloc((size_t)nt, sizeof(double));
    q->F = q->theta = 0;
    for (int t = 0; t < nt; t++) {
        ft[t] = sums[2 * t] / ((double)n * gf_ndirs(g) * v3);
        tt[t] = sums[2 * t + 1] / ((double)n * v3);
        q->F += ft[t];
        q->theta += tt[t];
    }
    q->F /= nt;
    q->theta /= nt;
    if (g == GAUGE_COULOMB) {
        q->nt = nt;
        q->F_t = ft;
        q->theta_t = tt;
    } else {
        q->nt = 0;
        q->F_t = q->theta_t = NULL;
        free(ft);
        free(tt);
    }
}

void gauge_quality_free(struct gauge_quality *q)
{
    free(q->F_t);
    free(q->theta_t);
    q->F_t = q->theta_t = NULL;
    q->nt = 0;
}

static const char *names[] = {"landau", "coulomb", "mag"};

int gauge_kind_parse(const char *s, enum gauge_kind *g)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) { *g = (enum gauge_kind)i; return 0; }
    return -1;
}

const char *gauge_kind_name(enum gauge_kind g) { return names[g]; }
