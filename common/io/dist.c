/* dist.c -- reading, scattering, gathering and writing a configuration
 * over the ranks of a run; see dist.h for the contract. */
#include "io/dist.h"
#include "base/log.h"
#include "io/confio.h"
#include "lattice/observables.h"
#include "base/output.h"
#include <inttypes.h>
#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* what rank 0 tells the others after reading */
struct dist_header {
    int L[LAT_ND], nc, format, file_prec, has_transform;
    int boundary_sign; /* conf_read's finding (not yet made when deferred) */
    struct conf_deferred deferred; /* on: the ranks read the binary record */
};

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* a slab's sites by their index x in the file's (global) order: local
 * index x - shift; the chunks of scidac_code_chunk go to the threads */
struct slab_code { struct field *u; int prec; int64_t shift; };
static void encode_slab_site(void *ctx, int64_t x, unsigned char *bytes)
{
    const struct slab_code *c = ctx;
    ildg_encode_site(c->u, x - c->shift, c->prec, bytes);
}
static void decode_slab_site(void *ctx, int64_t x, unsigned char *bytes)
{
    const struct slab_code *c = ctx;
    ildg_decode_site(c->u, x - c->shift, c->prec, bytes);
}

/* 1 when a real of sites [s0, s0 + n) of u is NaN or Inf */
static int slab_nonfinite(const struct field *u, int64_t s0, int64_t n)
{
    const size_t nreal = (size_t)LAT_ND * field_link_reals(u->nc);
    const double *v = field_link(u, s0, 0);
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (n >= 1024)
    for (int64_t i = 0; i < n * (int64_t)nreal; i++) bad |= !isfinite(v[i]);
    return bad;
}

/* Every rank reads its slices (halos too) of the binary record with
 * MPI-IO, decodes them and checksums its owned sites; the checksums are
 * combined (XOR, as the SciDAC sum is built) and compared with the file's. */
static void read_slab_parallel(struct dist *x, const char *path, const struct conf_deferred *df)
{
    const struct geometry *d = x->dom;
    const int Lt = d->global.L[3];
    const size_t sb = ildg_site_bytes(x->nc, df->prec);
    unsigned char *buf = lat_malloc((size_t)d->v3 * sb);
    struct comm_file *f = comm_file_open(path, 0);
    struct scidac_sum sum = {0, 0}, halo_sum = {0, 0}; /* the halo slices are another rank's to checksum */
    double bad = 0;
    for (int k = 0; k < d->lt + 2; k++) {
        const int gt = mod(d->t0 - 1 + k, Lt), owned = k >= 1 && k <= d->lt;
        comm_file_read_at(f, df->offset + (uint64_t)gt * (uint64_t)d->v3 * sb, buf, (size_t)d->v3 * sb);
        struct slab_code c = {&x->slab, df->prec, (int64_t)(gt - k) * d->v3};
        scidac_code_chunk(owned ? &sum : &halo_sum, (int64_t)gt * d->v3, d->v3, buf, sb, decode_slab_site, &c);
        if (slab_nonfinite(&x->slab, (int64_t)k * d->v3, d->v3)) bad = 1;
    }
    comm_file_close(f);
    free(buf);
    uint32_t ab[2] = {sum.a, sum.b};
    comm_xor_u32(ab, 2);
    comm_max(&bad, 1);
    if (bad) lat_die_all(1, path, "ildg-binary-data: a non-finite number (NaN or Inf) in the links");
    if (df->have_sum && (ab[0] != df->suma || ab[1] != df->sumb))
        lat_die_all(1, path, "scidac-checksum mismatch: the record says suma %" PRIx32 " sumb %" PRIx32 ", the data gives %" PRIx32 " %" PRIx32,
                    df->suma, df->sumb, ab[0], ab[1]);
    if (comm_is_root() && df->have_sum)
        snprintf(x->c.check.checksum, sizeof x->c.check.checksum, "scidac %" PRIx32 " %" PRIx32, ab[0], ab[1]);
}

static void setup_slab(struct dist *x, int has_transform, const char *path, const struct conf_deferred *df)
{
    x->dom = geometry_for(&x->lat);
    if (!x->dom) {
        x->u = &x->c.u;
        x->transform = x->c.transform;
        return;
    }
    geometry_field_alloc(&x->slab, x->dom, &x->lat, x->nc, 64);
    x->u = &x->slab;
    const size_t site = (size_t)LAT_ND * field_link_reals(x->nc);
    if (df->on == 1) {
        read_slab_parallel(x, path, df);
        /* conf_read left the data to the ranks: look for the sign together */
        x->c.check.boundary_sign = conf_boundary_sign_find(&x->slab, x->c.name);
    } else {
        geometry_scatter(x->dom, x->c.u.d, x->slab.d, site);
    }
    if (has_transform) {
        x->slab_transform = lat_malloc((size_t)x->dom->local.V * field_link_reals(x->nc) * sizeof(double));
        geometry_scatter(x->dom, x->c.transform, x->slab_transform, field_link_reals(x->nc));
    }
    x->transform = x->slab_transform;
}

static void read_dist(struct dist *x, const char *path, void (*check)(struct dist *x, void *arg), void *arg,
                      int computing);

void dist_read(struct dist *x, const char *path, void (*check)(struct dist *x, void *arg), void *arg)
{
    read_dist(x, path, check, arg, 1);
}

void dist_read_to_measure(struct dist *x, const char *path, void (*check)(struct dist *x, void *arg), void *arg)
{
    read_dist(x, path, check, arg, 0);
}

static void read_dist(struct dist *x, const char *path, void (*check)(struct dist *x, void *arg), void *arg,
                      int computing)
{
    memset(x, 0, sizeof *x);
    struct dist_header h;
    memset(&h, 0, sizeof h);
    if (comm_is_root()) {
        comm_root_begin();
        /* several ranks and a regular file: they read their slabs themselves */
        if (comm_size() > 1) conf_read_deferring(path, &x->c);
        else conf_read(path, &x->c);
        h.deferred = x->c.deferred;
        for (int mu = 0; mu < LAT_ND; mu++) h.L[mu] = x->c.u.lat.L[mu];
        h.nc = x->c.u.nc;
        h.format = (int)x->c.format;
        h.file_prec = x->c.file_prec;
        h.has_transform = x->c.transform != NULL;
        h.boundary_sign = x->c.check.boundary_sign;
        comm_root_end(&h, sizeof h);
    } else {
        comm_root_wait(&h, sizeof h);
        x->c.name = "input";
        x->c.format = (enum conf_format)h.format;
        x->c.file_prec = h.file_prec;
        x->c.check.boundary_sign = h.boundary_sign;
    }
    x->nc = h.nc;
    const char *why;
    if (lattice_init(&x->lat, h.L, &why) != 0) lat_die(1, x->c.name, "%s", why); /* verified by conf_read already */
    x->c.u.lat = x->lat;
    x->c.u.nc = x->nc;
    x->c.u.prec = 64;
    setup_slab(x, h.has_transform, path, &h.deferred);
    if (computing) conf_boundary_sign_refuse(&x->c); /* before the program's own checks: the cause, not a symptom */
    if (check) check(x, arg);
}

void dist_new(struct dist *x, const struct lattice *lat, int nc)
{
    memset(x, 0, sizeof *x);
    x->lat = *lat;
    x->nc = nc;
    x->dom = geometry_for(lat);
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
    geometry_field_alloc(&x->slab, x->dom, lat, nc, 64);
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
    geometry_gather(x->dom, x->slab.d, x->c.u.d, site);
    if (x->slab_transform) geometry_gather(x->dom, x->slab_transform, x->c.transform, field_link_reals(x->nc));
}

/* the parallel path: several ranks, an ILDG file that is (or will be) a
 * regular file */
static int write_in_parallel(const struct dist *x, const char *path, const struct conf_write_opts *o)
{
    struct stat st;
    if (!x->dom || !path || strcmp(path, "-") == 0 || (o && o->format && o->format != CONF_ILDG)) return 0;
    return !(stat(path, &st) == 0 && !S_ISREG(st.st_mode));
}

/* Rank 0 writes the records with a hole for the binary data, every rank
 * writes its owned slices into it with MPI-IO, rank 0 renames the file. */
static void write_parallel(struct dist *x, const char *path, const struct conf_write_opts *o, const char *results)
{
    const struct geometry *d = x->dom;
    const int prec = o && o->prec ? o->prec : (x->c.file_prec == 32 ? 32 : 64);
    const size_t sb = ildg_site_bytes(x->nc, prec);
    const size_t bytes = (size_t)d->v3 * (size_t)d->lt * sb;
    unsigned char *buf = lat_malloc(bytes);
    struct scidac_sum sum = {0, 0};
    /* owned sites start at slice 1: local s, global geometry_global_site(d, s) */
    double bad = slab_nonfinite(&x->slab, d->v3, d->v3 * d->lt);
    struct slab_code c = {&x->slab, prec, geometry_global_site(d, 0)};
    scidac_code_chunk(&sum, geometry_global_site(d, d->v3), d->v3 * d->lt, buf, sb, encode_slab_site, &c);
    uint32_t ab[2] = {sum.a, sum.b};
    comm_xor_u32(ab, 2);
    comm_max(&bad, 1);
    if (bad) lat_die_all(1, path, "refusing to write the configuration: a non-finite number (NaN or Inf) in the links");
    /* the usqcdInfo plaquette reads the halos: bring them up to date (gauge
     * fixing keeps only the links it needs current) */
    field_halo_refresh(&x->slab);
    struct ildg_given given = {{ab[0], ab[1]}, measure_plaquette(&x->slab).all, measure_link_trace(&x->slab)};
    if (x->slab_transform) geometry_gather(d, x->slab_transform, x->c.transform, field_link_reals(x->nc));
    struct { uint64_t offset; char tmp[4096]; } at;
    memset(&at, 0, sizeof at);
    FILE *f = NULL;
    if (comm_is_root()) {
        comm_root_begin();
        if (results) conf_history_add(&x->c, results);
        f = out_open(path, 1);
        ildg_write_framing(f, out_name(), &x->c, prec, &given, &at.offset);
        if (fflush(f) != 0 || ferror(f)) lat_die(1, path, "write failed");
        snprintf(at.tmp, sizeof at.tmp, "%s", out_file_path());
        comm_root_end(&at, sizeof at);
    } else {
        comm_root_wait(&at, sizeof at);
    }
    struct comm_file *cf = comm_file_open(at.tmp, 1);
    comm_file_write_at(cf, at.offset + (uint64_t)d->t0 * (uint64_t)d->v3 * sb, buf, bytes);
    comm_file_close(cf);
    free(buf);
    if (comm_is_root()) {
        comm_root_begin();
        out_commit(f);
        comm_root_end(NULL, 0);
    } else {
        comm_root_wait(NULL, 0);
    }
}

void dist_write(struct dist *x, const char *path, const struct conf_write_opts *o, const char *results)
{
    if (write_in_parallel(x, path, o)) {
        write_parallel(x, path, o, results);
        return;
    }
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
