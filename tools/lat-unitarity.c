/* lat-unitarity -- how far the links of a configuration are from SU(N), and
 * projecting them back (SPEC §1, §3).
 *
 * lat-unitarity [OPTIONS] [INPUT]: reports mean and max of ||U^dag U - 1||_F
 * and |det U - 1| over all links (--format text|tsv|json).  Exit 1 with a
 * one-line message when the larger of the two maxima exceeds --tolerance
 * (default 1e-5 for 32-bit links, 1e-10 for 64-bit ones: those of the input,
 * or with --reproject those written).  --reproject
 * writes the configuration with every link projected onto SU(N) (-o FILE,
 * default standard output; then the report goes to standard error; a text
 * report goes there too, and -q silences it), with a history entry; the
 * tolerance then applies to the written links and a failing run writes
 * nothing.  --reproject refuses an input whose time links at t=LT-1 carry
 * the antiperiodic sign (dist_read): -U would be projected onto another
 * SU(N) matrix.  See lat-unitarity(1). */
#include "base/cli.h"
#include "base/comm.h"
#include "io/dist.h"
#include "base/lat.h"
#include "base/log.h"
#include "lattice/observables.h"
#include "base/report.h"
#include "lattice/reproject.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_unitarity(struct report *r, const char *prefix, struct unitarity u)
{
    char name[64];
    snprintf(name, sizeof name, "%sunitarity_mean", prefix);
    report_num(r, name, u.mean);
    snprintf(name, sizeof name, "%sunitarity_max", prefix);
    report_num(r, name, u.max);
    snprintf(name, sizeof name, "%sunitarity_det_mean", prefix);
    report_num(r, name, u.det_mean);
    snprintf(name, sizeof name, "%sunitarity_det_max", prefix);
    report_num(r, name, u.det_max);
}

/* the larger of the two maxima; NaN stays NaN */
static double worst(struct unitarity u) { return isnan(u.max) || isnan(u.det_max) ? NAN : fmax(u.max, u.det_max); }

int main(int argc, char **argv)
{
    const char *format = "text", *output = NULL, *out_prec = NULL;
    double tolerance = 0;
    int reproject = 0;
    struct cli_opt opts[] = {
        {"format", 0, CLI_CHOICE, &format, "FMT", "report format", "text|tsv|json", 0},
        {"tolerance", 't', CLI_DOUBLE, &tolerance, "T", "fail (exit 1) when a deviation exceeds T (default 1e-5 for 32-bit files, 1e-10 for 64-bit; --reproject: of the file written)", NULL, 0},
        {"reproject", 0, CLI_FLAG, &reproject, NULL, "write the configuration projected onto SU(N)", NULL, 0},
        {"output", 'o', CLI_STRING, &output, "FILE", "with --reproject: write here (default standard output)", NULL, 0},
        {"file-precision", 0, CLI_CHOICE, &out_prec, "BITS", "with --reproject: precision of the file written (default: the input's)", "32|64", 0},
        {0}};
    struct cli_info info = {"lat-unitarity", "[OPTIONS] [INPUT]",
                            "Report the deviation of the links from SU(N); reproject them onto SU(N)."};
    int first = cli_parse(&info, opts, argc, argv);
    if (argc - first > 1) cli_usage_error("one INPUT at most (got %d)", argc - first);
    const char *input = first < argc ? argv[first] : NULL;
    int tol_given = cli_given(opts, "tolerance");
    if (tol_given && !(tolerance >= 0)) cli_usage_error("--tolerance: must be >= 0");
    if (!reproject && cli_given(opts, "output")) cli_usage_error("-o needs --reproject (lat-unitarity writes a configuration only when reprojecting)");
    if (!reproject && out_prec) cli_usage_error("--file-precision needs --reproject");
    enum report_format fmt;
    report_format_parse(format, &fmt);
    /* refuse a terminal before reading, measuring and printing the report */
    if (reproject && (!output || strcmp(output, "-") == 0) && comm_stdout_is_terminal())
        lat_die(1, "standard output", "refusing to write a binary configuration to a terminal (use -o FILE or a pipe)");

    /* under mpirun rank 0 reads, writes and reports; every rank checks and
     * reprojects its slab (halo copies too: the same links, the same result) */
    struct dist x;
    if (reproject) dist_read(&x, input, NULL, NULL); /* refuses a baked-in boundary sign: -U projects elsewhere */
    else dist_read_to_measure(&x, input, NULL, NULL);
    const struct conf c = x.c; /* name, format, file_prec (rank 0: everything) */
    struct field *u = x.u;
    struct unitarity before = measure_unitarity(u), after = before;

    /* the precision of the links checked: the input's, or the file written */
    int prec = out_prec ? atoi(out_prec) : c.file_prec;
    if (!tol_given) tolerance = (reproject ? prec : c.file_prec) == 32 ? 1e-5 : 1e-10;
    if (reproject) {
        double bad = (double)field_reproject(u);
        comm_sum(&bad, 1);
        if (bad > 0) lat_die_all(1, c.name, "links cannot be projected onto SU(%d) (zero or non-finite rows)", u->nc);
        /* measure what will be in the file: round to its precision */
        if (prec == 32) {
            field_convert(u, 32);
            field_convert(u, 64);
        }
        after = measure_unitarity(u);
    }

    struct report *r = report_new();
    char lattice[64];
    snprintf(lattice, sizeof lattice, "%dx%dx%dx%d", x.lat.L[0], x.lat.L[1], x.lat.L[2], x.lat.L[3]);
    report_str(r, "file", c.name);
    report_str(r, "file_format", conf_format_name(c.format));
    report_int(r, "file_precision", c.file_prec);
    report_str(r, "lattice", lattice);
    report_int(r, "nc", x.nc);
    report_int(r, "links", (long long)x.lat.V * LAT_ND);
    add_unitarity(r, "", before);
    if (reproject) {
        report_int(r, "out_precision", prec);
        add_unitarity(r, "reprojected_", after);
    }
    report_num(r, "tolerance", tolerance);
    double w = worst(after);
    int fail = !(w <= tolerance);
    report_str(r, "status", fail ? "fail" : "ok");

    /* Without --reproject the report is the program's output: stdout, -q or
     * not.  With --reproject (a configuration is written, lat(7) REPORTS):
     * tsv/json on stdout unless the configuration goes there, text on stderr
     * as the summary of the run, which -q silences. */
    int conf_to_stdout = reproject && (!output || strcmp(output, "-") == 0);
    FILE *rf = conf_to_stdout || (reproject && fmt == REPORT_TEXT) ? stderr : stdout;
    int show = !(reproject && fmt == REPORT_TEXT && lat_verbosity < 0);
    if (show && comm_is_root()) report_print(r, rf, fmt);
    report_free(r);
    fflush(rf);
    if (fail)
        lat_die_all(1, c.name, "%sdeviation from SU(%d) %.3g exceeds the tolerance %g (max ||U^dag U - 1|| %.3g, max |det U - 1| %.3g)%s",
                reproject ? "after reprojection the " : "", x.nc, w, tolerance, after.max, after.det_max,
                c.check.boundary_sign == 1 ? "; the time links at t=LT-1 carry the antiperiodic sign (det U = -1): "
                                             "lat-convert --strip-boundary-sign removes it" : "");

    if (reproject) {
        char results[512];
        snprintf(results, sizeof results,
                 "reprojected=SU(%d) unitarity_max=%.3g->%.3g det_max=%.3g->%.3g unitarity_mean=%.3g->%.3g out_precision=%d",
                 x.nc, before.max, after.max, before.det_max, after.det_max, before.mean, after.mean, prec);
        struct conf_write_opts wo = {.format = CONF_ILDG, .prec = prec, .nersc_3x3 = 0}; /* like every lat program: ILDG keeps the history */
        dist_write(&x, output, &wo, results);
    } else if (comm_is_root() && (fflush(stdout) != 0 || ferror(stdout))) {
        lat_die(1, "standard output", "write failed");
    }
    dist_free(&x);
    return LAT_OK;
}
