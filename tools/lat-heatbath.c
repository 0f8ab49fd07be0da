/* lat-heatbath -- SU(N) pure-gauge configurations, Wilson action
 * (Cabibbo-Marinari heatbath + overrelaxation; the chain is
 * kernels/heatbath/chain.h, the backends heatbath/backend.h: the CPU, or the
 * GPU for the N it has kernels for when built with CUDA and one is present,
 * --device, tools/shared/device_opt.h).  main is options -> start -> chain
 * (hb_chain_run, which hands every K-th configuration to save_every) ->
 * output; the progress line and --log are tools/shared/progress.h.  Also the toolkit's source of test inputs:
 * --sweeps 0 --start cold|hot writes a unit or Haar-random SU(N) field,
 * deterministic by --seed.
 *
 * A chain has a sweep counter k (the random streams of sweep k are
 * (seed, site, 4k+mu)); a file records next_sweep= in its history entry and
 * --start FILE continues from there, so two runs of 100 sweeps give the same
 * field as one of 200.  Exit 0, 1 data/runtime error, 2 usage error; every
 * check happens before anything is written.  See lat-heatbath(1). */
#include "base/cli.h"
#include "base/clock.h"
#include "base/comm.h"
#include "io/dist.h"
#include "lattice/field.h"
#include "heatbath/chain.h"
#include "shared/device_opt.h"
#include "shared/progress.h"
#include "shared/run_report.h"
#include "base/lat.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A printf pattern with exactly one integer conversion (%d, %05d, %i, %u),
 * and %% for a literal percent sign. */
static int pattern_ok(const char *p)
{
    int conv = 0;
    for (; *p; p++) {
        if (*p != '%') continue;
        p++;
        if (*p == '%') continue;
        while (*p == '0' || *p == '-' || *p == '+' || *p == ' ') p++;
        while (*p >= '0' && *p <= '9') p++;
        if (*p != 'd' && *p != 'i' && *p != 'u') return 0;
        conv++;
    }
    return conv == 1;
}

struct run {
    struct dist x;      /* the field, spread over the MPI ranks (dist.h) */
    char *base_history; /* the input's history (owned; rank 0) */
    int file_prec;
    const char *summary; /* parameters for the history entry */
    /* what --start FILE must match (checked on rank 0 while reading) */
    const struct cli_opt *opts;
    int nc;
    const int *L;
};

/* Write the current field x.u with a history entry ending in results. */
static void write_conf(struct run *r, const char *path, const char *results)
{
    char *entry = lat_malloc(strlen(r->summary) + strlen(results) + 2);
    sprintf(entry, "%s %s", r->summary, results);
    if (comm_is_root()) {
        r->x.c.history = r->base_history ? strdup(r->base_history) : NULL;
        if (r->base_history && !r->x.c.history) lat_die(1, NULL, "out of memory");
    }
    struct conf_write_opts o = {.format = CONF_ILDG, .prec = r->file_prec, .nersc_3x3 = 0};
    const double t_write = lat_clock();
    dist_write(&r->x, path, &o, entry);
    lat_debug("wrote the configuration: %.3f s", lat_clock() - t_write);
    free(r->x.c.history);
    r->x.c.history = NULL;
    free(entry);
}

/* --start FILE: the configuration must match --nc and --lattice (every rank) */
static void check_start(struct dist *x, void *arg)
{
    const struct run *r = arg;
    const int *L = r->L, *H = x->lat.L;
    if (cli_given(r->opts, "nc") && x->nc != r->nc)
        lat_die_all(1, x->c.name, "holds an SU(%d) configuration, but --nc %d was asked for", x->nc, r->nc);
    if (L && memcmp(H, L, sizeof(int) * LAT_ND) != 0)
        lat_die_all(1, x->c.name, "is a %dx%dx%dx%d lattice, but --lattice %dx%dx%dx%d was asked for", H[0], H[1],
                    H[2], H[3], L[0], L[1], L[2], L[3]);
    const char *why = NULL;
    struct lattice chk;
    if (lattice_init(&chk, H, &why)) lat_die_all(1, x->c.name, "cannot run the heatbath on it: %s", why);
}

static void results_of(const struct field *u, long long next, char *buf, size_t n)
{
    struct plaquette p = measure_plaquette(u);
    double pre, pim;
    measure_polyakov(u, &pre, &pim);
    snprintf(buf, n, "next_sweep=%lld plaquette=%.12f spatial=%.12f temporal=%.12f polyakov=%.12f,%.12f", next,
             p.all, p.spatial, p.temporal, pre, pim);
}

/* --format tsv|json: the run's report (shared/run_report.h), with the keys
 * lat-measure gives the same quantities; NULL for text.  Measuring is
 * collective: every rank calls it. */
static struct report *heatbath_report(const char *format, const struct run *r, const char *start, const char *output,
                                      double beta, long long seed, long long first, long long next, int therm,
                                      double seconds, double rate)
{
    /* the final configuration is not written with --every and no -o: then
     * standard output is free */
    struct report *rep = run_report_begin(format, start, &r->x.lat, r->x.nc, output);
    if (!rep) return NULL;
    struct plaquette p = measure_plaquette(r->x.u);
    double lt = measure_link_trace(r->x.u), pre, pim;
    measure_polyakov(r->x.u, &pre, &pim);
    report_num(rep, "beta", beta);
    report_int(rep, "seed", seed);
    report_int(rep, "first_sweep", first);
    report_int(rep, "next_sweep", next);
    report_int(rep, "sweeps", next - first);
    report_int(rep, "therm", therm);
    report_num(rep, "seconds", seconds);
    report_num(rep, "link_updates_per_second", rate);
    run_report_observables(rep, &p, lt, pre, pim);
    return rep;
}

/* hb_chain's save: every K sweeps, the file --output-pattern names */
struct save_ctx {
    struct run *r;
    const char *pattern;
};

static void save_every(void *ctx, struct field *u, long long next_sweep)
{
    struct save_ctx *sc = ctx;
    char path[4096], res[512];
    int n = snprintf(path, sizeof path, sc->pattern, (int)next_sweep);
    if (n <= 0 || (size_t)n >= sizeof path) lat_die(1, NULL, "--output-pattern gives an unusable file name");
    results_of(u, next_sweep, res, sizeof res);
    write_conf(sc->r, path, res);
}

int main(int argc, char **argv)
{
    double beta = 0;
    const char *lattice = NULL, *start = "cold", *output = NULL, *pattern = NULL, *logpath = NULL;
    const char *device = NULL, *precision = "double", *fprec = "64", *format = "text";
    int nc = 3, sweeps = 100, therm = 0, every = 0, nor = 4;
    long long seed = 1, first_sweep = -1;
    struct cli_opt opts[] = {
        {"beta", 'b', CLI_DOUBLE, &beta, "B", "inverse coupling beta = 2N/g^2 (> 0; needed unless no sweeps are done)", NULL, 0},
        {"lattice", 'L', CLI_STRING, &lattice, "LXxLYxLZxLT", "lattice extents, even (or L for L^4); default: the --start file's", NULL, 0},
        {"nc", 'N', CLI_INT, &nc, "N", "gauge group SU(N), 2 <= N <= 8 (default 3, or the --start file's)", NULL, 0},
        {"start", 0, CLI_STRING, &start, "hot|cold|FILE", "Haar-random, unit, or continue from a configuration (default cold)", NULL, 0},
        {"sweeps", 'n', CLI_INT, &sweeps, "N", "sweeps after thermalisation (default 100)", NULL, 0},
        {"therm", 0, CLI_INT, &therm, "N", "thermalisation sweeps first, never written (default 0)", NULL, 0},
        {"or", 0, CLI_INT, &nor, "N", "overrelaxation sweeps per heatbath sweep (default 4)", NULL, 0},
        {"every", 0, CLI_INT, &every, "K", "write every K-th sweep after thermalisation to --output-pattern", NULL, 0},
        {"output-pattern", 0, CLI_STRING, &pattern, "PAT", "file names for --every, e.g. 'conf.%04d.lime' (%d = sweep counter)", NULL, 0},
        {"output", 'o', CLI_STRING, &output, "FILE", "write the final configuration here (default standard output unless --every)", NULL, 0},
        {"seed", 's', CLI_LONG, &seed, "S", "random seed (>= 0, default 1): same seed, same bytes", NULL, 0},
        {"first-sweep", 0, CLI_LONG, &first_sweep, "K", "sweep counter to start from (default: the --start file's next_sweep, else 0)", NULL, 0},
        {"log", 0, CLI_STRING, &logpath, "FILE", "per-sweep TSV: sweep, plaquette, spatial, temporal, polyakov re, im, seconds", NULL, 0},
        {"device", 0, CLI_CHOICE, &device, "DEV", "compute backend (default auto; LAT_DEVICE overrides auto)", "cpu|gpu|auto", 0},
        {"precision", 0, CLI_CHOICE, &precision, "P", "arithmetic and storage of the sweeps (default double)", "double|single|mixed", 0},
        {"file-precision", 0, CLI_CHOICE, &fprec, "BITS", "ILDG file precision (default 64)", "32|64", 0},
        RUN_REPORT_OPTION(format),
        {0}};
    struct cli_info info = {"lat-heatbath", "[OPTIONS]",
                            "Generate SU(N) pure-gauge configurations (Wilson action, Cabibbo-Marinari heatbath + overrelaxation)."};
    int first = cli_parse(&info, opts, argc, argv);
    if (first < argc) cli_usage_error("unexpected operand '%s' (the start configuration is given with --start FILE)", argv[first]);

    /* ---- parameters: every check before any work ---- */
    int have_beta = cli_given(opts, "beta");
    if (have_beta && !(beta > 0)) cli_usage_error("--beta must be positive, got %g", beta);
    if (cli_given(opts, "nc") && (nc < 2 || nc > LAT_NC_MAX))
        cli_usage_error("--nc must be between 2 and %d, got %d", LAT_NC_MAX, nc);
    if (sweeps < 0) cli_usage_error("--sweeps must be >= 0, got %d", sweeps);
    if (therm < 0) cli_usage_error("--therm must be >= 0, got %d", therm);
    if (nor < 0) cli_usage_error("--or must be >= 0, got %d", nor);
    if (every < 0) cli_usage_error("--every must be >= 0, got %d", every);
    if (seed < 0) cli_usage_error("--seed must be >= 0, got %lld", seed);
    if (cli_given(opts, "first-sweep") && first_sweep < 0) cli_usage_error("--first-sweep must be >= 0, got %lld", first_sweep);
    if (therm + sweeps > 0 && !have_beta) cli_usage_error("--beta is required (only --sweeps 0 --therm 0 needs none)");
    if (every > 0 && !pattern) cli_usage_error("--every needs --output-pattern (e.g. 'conf.%%04d.lime')");
    if (pattern && !pattern_ok(pattern))
        cli_usage_error("--output-pattern '%s' must hold exactly one integer conversion such as %%04d", pattern);
    if (pattern && every == 0) cli_usage_error("--output-pattern needs --every K");
    int final_to_stdout = every == 0 && !output;
    if (final_to_stdout && comm_stdout_is_terminal())
        lat_die(1, "standard output", "refusing to write a binary configuration to a terminal (use -o FILE, --every, or a pipe)");
    if (logpath && strcmp(logpath, "-") == 0 && (final_to_stdout || (output && strcmp(output, "-") == 0)))
        cli_usage_error("--log - and the configuration cannot both go to standard output");
    run_report_validate(format, every == 0 || output ? output : "", logpath);
    int L[4] = {0, 0, 0, 0};
    struct lattice lat;
    if (lattice) {
        const char *why = NULL;
        if (cli_parse_extents(lattice, L)) cli_usage_error("--lattice '%s' is not LXxLYxLZxLT (or L)", lattice);
        if (lattice_init(&lat, L, &why)) cli_usage_error("--lattice %s: %s", lattice, why);
    }
    int is_hot = strcmp(start, "hot") == 0, is_cold = strcmp(start, "cold") == 0;
    if ((is_hot || is_cold) && !lattice) cli_usage_error("--lattice is required with --start %s", start);

    /* backend: the device now (a missing GPU stops the run before any
     * reading), its kernels' N once the start is read */
    struct device_choice dc = {0, 0};
    if (therm + sweeps > 0) dc = device_opt_choose(device);

    /* ---- the start ---- */
    struct run r;
    memset(&r, 0, sizeof r);
    r.file_prec = atoi(fprec);
    const double t_start = lat_clock();
    if (is_hot || is_cold) {
        dist_new(&r.x, &lat, nc);
        if (is_hot) field_set_random(r.x.u, (uint64_t)seed);
    } else {
        r.opts = opts;
        r.nc = nc;
        r.L = lattice ? L : NULL;
        dist_read(&r.x, start, check_start, &r);
        nc = r.x.nc;
        lat = r.x.lat;
        if (comm_is_root()) {
            r.base_history = r.x.c.history;
            r.x.c.history = NULL;
            if (!cli_given(opts, "first-sweep")) first_sweep = conf_history_next_sweep(r.base_history);
        }
        comm_bcast(&first_sweep, sizeof first_sweep, 0); /* the counter of the random streams */
    }
    if (first_sweep < 0) first_sweep = 0;
    lat_debug("the start (%s): %.3f s", is_hot ? "hot" : is_cold ? "cold" : start, lat_clock() - t_start);
    const struct hb_backend *be = NULL;
    if (therm + sweeps > 0) {
        const struct hb_backend *g = hb_backend_for(BACKEND_GPU);
        struct device_caps gpu = {"heatbath", g != NULL, g ? g->min_nc : 0, g ? g->max_nc : 0};
        be = device_opt_fits(&dc, &gpu, nc) ? g : &hb_backend_cpu;
    }
    long long last = first_sweep + therm + sweeps;
    if (last >= (1LL << 30)) lat_die(2, NULL, "the sweep counter would pass 2^30 (first sweep %lld + %d + %d)", first_sweep, therm, sweeps);

    char ext[64], summary[512];
    snprintf(ext, sizeof ext, "%dx%dx%dx%d", lat.L[0], lat.L[1], lat.L[2], lat.L[3]);
    snprintf(summary, sizeof summary, "nc=%d lattice=%s beta=%.15g seed=%lld start=%s or=%d precision=%s device=%s first_sweep=%lld",
             nc, ext, have_beta ? beta : 0.0, seed, is_hot ? "hot" : is_cold ? "cold" : "file", nor, precision,
             be ? be->name : "none", first_sweep);
    r.summary = summary;

    char res[512];
    const char *start_name = is_hot || is_cold ? "-" : start; /* the report's file: the input, if any */
    if (therm + sweeps == 0) { /* a start configuration as it is */
        results_of(r.x.u, first_sweep, res, sizeof res);
        write_conf(&r, output, res);
        lat_debug("wrote a %s SU(%d) %s configuration", is_hot ? "Haar-random" : is_cold ? "unit" : "copied", nc, ext);
        struct report *rep = heatbath_report(format, &r, start_name, output, beta, seed, first_sweep, first_sweep, 0, 0, 0);
        run_report_end(rep, format, output);
        dist_free(&r.x);
        free(r.base_history);
        return LAT_OK;
    }

    /* ---- the chain ---- */
    struct progress pr;
    progress_init(&pr, lat_progname);
    comm_bcast(&pr.show, sizeof pr.show, 0); /* measuring is collective: every rank joins */
    if (logpath && comm_is_root()) progress_log_open(&pr, logpath, PROGRESS_LOG_STREAM);
    struct save_ctx sc = {&r, pattern};
    struct hb_chain chain = {be, device_opt_precision(precision), beta, (uint64_t)seed, first_sweep, therm, sweeps,
                             nor, every, progress_hb_observer(&pr, logpath != NULL), save_every, &sc};
    double elapsed = hb_chain_run(&chain, r.x.u);
    progress_log_close(&pr);
    results_of(r.x.u, last, res, sizeof res);
    if (every == 0 || output) write_conf(&r, output, res);
    struct plaquette pl = measure_plaquette(r.x.u);
    double links = 4.0 * (double)lat.V, rate = (double)(last - first_sweep) * links * (1 + nor) / elapsed;
    /* the summary line, as the gauge-fixing tools end (-q silences it), or
     * the report of --format tsv|json */
    const char *conf_dest = every == 0 || output ? output : "";
    struct report *rep = heatbath_report(format, &r, start_name, conf_dest, beta, seed, first_sweep, last, therm,
                                         elapsed, rate);
    if (rep)
        run_report_end(rep, format, conf_dest);
    else
        lat_info("SU(%d) %s, beta = %g: %lld sweeps (1 heatbath + %d OR each; %d thermalisation) in %.2f s (%.3g link "
                 "updates/s): plaquette = %.12f",
                 nc, ext, beta, last - first_sweep, nor, therm, elapsed, rate, pl.all);
    dist_free(&r.x);
    free(r.base_history);
    return LAT_OK;
}
