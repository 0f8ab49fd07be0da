/* lat-meson -- meson two-point functions from quark propagator files (SPEC
 * §8; the contractions are tools/shared/meson.h, the file io/propagator.h).
 *
 * lat-meson [OPTIONS] PROP [PROP2]: one propagator (degenerate quarks) or
 * two of the same lattice and source (quark from PROP, antiquark from
 * PROP2); prints C(t) for t = 0..T-1 (from the source timeslice) of the
 * channels pi, pi_t, rho, a0, a1, b1 at p = 0 and |p|^2 = 1 (2 pi / L units,
 * averaged over the six directions), with log and cosh effective masses:
 *   text  a block per channel and momentum: t, C, m_log, m_cosh
 *   tsv   one table: channel, gamma, p2, t, C, meff_log, meff_cosh
 *   json  one object (lat(7) REPORTS): file, lattice, source, T and the
 *         lists C_<channel>_p<p2>, meff_log_<channel>_p<p2>,
 *         meff_cosh_<channel>_p<p2> (null where undefined).
 * A propagator whose history says converged=no draws a warning.
 * Exit 0, 1 unreadable or mismatched files, 2 usage.  See lat-meson(1).
 *
 * Under mpirun (R dividing T) rank 0 reads and checks the files, each rank
 * receives its t-slab of every column (geometry_scatter) and contracts its
 * timeslices (meson_correlators_slab), comm_sum puts the timeslices
 * together (each one computed on one rank: exact), and rank 0 prints the
 * report: the same bytes for any R. */
#include "base/cli.h"
#include "base/comm.h"
#include "base/lat.h"
#include "base/log.h"
#include "base/report.h"
#include "io/propagator.h"
#include "lattice/geometry.h"
#include "shared/meson.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the last history line of lat-propagator says converged=yes|no */
static void warn_unconverged(const struct propagator *p)
{
    if (!p->history) return;
    const char *last = NULL;
    for (const char *s = p->history; (s = strstr(s, "\tlat-propagator ")); s++) last = s;
    if (last) {
        const char *end = strchr(last, '\n');
        const char *q = strstr(last, "converged=no");
        if (q && (!end || q < end)) lat_warn(p->name, "the propagator did not converge (its history says converged=no)");
    }
}

int main(int argc, char **argv)
{
    const char *format = "text";
    struct cli_opt opts[] = {
        {"format", 0, CLI_CHOICE, &format, "FMT", "report format", "text|tsv|json", 0},
        {0}};
    struct cli_info info = {"lat-meson", "[OPTIONS] PROP [PROP2]",
                            "Meson two-point functions (pi, rho, a0, a1, b1) at p = 0 and |p|^2 = 1 from quark propagators."};
    int first = cli_parse(&info, opts, argc, argv);
    int n = argc - first;
    if (n < 1 || n > 2) cli_usage_error("one or two propagator files (got %d)", n);
    enum report_format fmt;
    report_format_parse(format, &fmt);
    if (n == 2 && strcmp(argv[first], "-") == 0 && strcmp(argv[first + 1], "-") == 0)
        cli_usage_error("standard input can be only one of the two propagators");

    struct propagator p1, p2;
    memset(&p1, 0, sizeof p1);
    memset(&p2, 0, sizeof p2);
    /* rank 0 reads and checks; the others learn the shape (or rank 0's exit) */
    struct { struct lattice lat; int nc; struct prop_source src; } shape;
    if (comm_is_root()) {
        comm_root_begin();
        prop_read(argv[first], &p1);
        warn_unconverged(&p1);
        if (n == 2) {
            prop_read(argv[first + 1], &p2);
            warn_unconverged(&p2);
            if (memcmp(p1.lat.L, p2.lat.L, sizeof p1.lat.L) != 0 || p1.nc != p2.nc)
                lat_die(1, p2.name, "lattice or N differs from %s's", p1.name);
            if (memcmp(&p1.src, &p2.src, sizeof p1.src) != 0) lat_die(1, p2.name, "its source differs from %s's", p1.name);
        }
        shape.lat = p1.lat;
        shape.nc = p1.nc;
        shape.src = p1.src;
        comm_root_end(&shape, sizeof shape);
    } else {
        comm_root_wait(&shape, sizeof shape);
    }
    const int T = shape.lat.L[3];
    double *c[MESON_CHANNELS][MESON_MOMENTA], *ml = malloc((size_t)T * sizeof(double)),
           *mc = malloc((size_t)T * sizeof(double));
    for (int ch = 0; ch < MESON_CHANNELS; ch++)
        for (int p = 0; p < MESON_MOMENTA; p++) c[ch][p] = lat_malloc((size_t)T * sizeof(double));
    const struct geometry *d = geometry_for(&shape.lat); /* NULL: one rank; dies unless R divides T */
    if (!d) {
        meson_correlators(&p1, n == 2 ? &p2 : &p1, c);
    } else {
        /* each rank's slab of every column: the owned slices of a local field */
        struct propagator s[2];
        const int ncol = PROP_NS * shape.nc;
        const size_t sr = 2 * PROP_NS * (size_t)shape.nc, slice = (size_t)d->v3 * sr;
        for (int q = 0; q < n; q++) {
            memset(&s[q], 0, sizeof s[q]);
            s[q].lat = shape.lat;
            s[q].nc = shape.nc;
            s[q].src = shape.src;
            for (int k = 0; k < ncol; k++) {
                double *local = lat_malloc(slice * (size_t)(d->lt + 2) * sizeof(double));
                geometry_scatter(d, q ? p2.col[k] : p1.col[k], local, sr);
                s[q].col[k] = local;
            }
        }
        for (int q = 0; q < n; q++) /* the columns without their halo slices */
            for (int k = 0; k < ncol; k++) s[q].col[k] += slice;
        meson_correlators_slab(&s[0], &s[n - 1], d->t0, d->lt, c);
        for (int q = 0; q < n; q++)
            for (int k = 0; k < ncol; k++) free(s[q].col[k] - slice);
        for (int ch = 0; ch < MESON_CHANNELS; ch++)
            for (int p = 0; p < MESON_MOMENTA; p++) comm_sum(c[ch][p], (size_t)T);
    }
    if (!comm_is_root()) { /* rank 0 reports */
        for (int ch = 0; ch < MESON_CHANNELS; ch++)
            for (int p = 0; p < MESON_MOMENTA; p++) free(c[ch][p]);
        free(ml);
        free(mc);
        comm_exit(LAT_OK);
    }

    char lattice[64], src[64];
    snprintf(lattice, sizeof lattice, "%dx%dx%dx%d", p1.lat.L[0], p1.lat.L[1], p1.lat.L[2], p1.lat.L[3]);
    prop_source_format(&p1.src, src, sizeof src);
    if (fmt == REPORT_JSON) {
        struct report *r = report_new();
        report_str(r, "file", p1.name);
        if (n == 2) report_str(r, "file2", p2.name);
        report_str(r, "lattice", lattice);
        report_int(r, "nc", p1.nc);
        report_str(r, "source", src);
        report_int(r, "T", T);
        for (int ch = 0; ch < MESON_CHANNELS; ch++)
            for (int p = 0; p < MESON_MOMENTA; p++) {
                char key[64];
                meson_effective_mass(c[ch][p], T, ml, mc);
                snprintf(key, sizeof key, "C_%s_p%d", meson_channel_name[ch], p);
                report_list(r, key, c[ch][p], T);
                snprintf(key, sizeof key, "meff_log_%s_p%d", meson_channel_name[ch], p);
                report_list(r, key, ml, T);
                snprintf(key, sizeof key, "meff_cosh_%s_p%d", meson_channel_name[ch], p);
                report_list(r, key, mc, T);
            }
        report_print(r, stdout, fmt);
        report_free(r);
    } else {
        if (fmt == REPORT_TSV) printf("channel\tgamma\tp2\tt\tC\tmeff_log\tmeff_cosh\n");
        else {
            char name[256];
            lat_sanitize(name, sizeof name, p1.name);
            printf("# %s: %s SU(%d), source %s%s\n", name, lattice, p1.nc, src, n == 2 ? ", two propagators" : "");
        }
        for (int ch = 0; ch < MESON_CHANNELS; ch++)
            for (int p = 0; p < MESON_MOMENTA; p++) {
                meson_effective_mass(c[ch][p], T, ml, mc);
                if (fmt == REPORT_TEXT)
                    printf("\n%s (%s), |p|^2 = %d\n%3s  %-24s  %-12s  %-12s\n", meson_channel_name[ch], meson_channel_gamma[ch],
                           p, "t", "C(t)", "m_log", "m_cosh");
                for (int t = 0; t < T; t++) {
                    if (fmt == REPORT_TSV)
                        printf("%s\t%s\t%d\t%d\t%.17g\t%.17g\t%.17g\n", meson_channel_name[ch], meson_channel_gamma[ch], p, t,
                               c[ch][p][t], ml[t], mc[t]);
                    else
                        printf("%3d  %-24.15e  %-12.6f  %-12.6f\n", t, c[ch][p][t], ml[t], mc[t]);
                }
            }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) lat_die(1, "standard output", "write failed");
    for (int ch = 0; ch < MESON_CHANNELS; ch++)
        for (int p = 0; p < MESON_MOMENTA; p++) free(c[ch][p]);
    free(ml);
    free(mc);
    prop_free(&p1);
    if (n == 2) prop_free(&p2);
    return LAT_OK;
}
