/* lat-hmc -- hybrid Monte Carlo for SU(3) with the Wilson gauge action and
 * N_f staggered flavours (SPEC §9; N_f = 0, pure gauge, in this build: the
 * fermion monomial joins later).  main is options -> start -> trajectories
 * (kernels/hmc/integrator.h: 2MN integrator, Metropolis) -> output.
 *
 * Trajectory counter: trajectory k draws its momenta and accept number
 * from the Philox streams of (seed, k); the output's history entry records
 * next_trajectory=, and --start FILE continues from there (the last
 * lat-hmc entry of the file's history), so two runs of 10 trajectories
 * give the same links, bit for bit, as one of 20 (files are 64-bit).
 * --save-every K writes the configuration after every K-th trajectory to
 * the -o name with ".<next trajectory, 6 digits>" before its extension
 * (conf.lime -> conf.000010.lime; no extension: appended).  Every file is
 * written atomically (base/output.h): an interrupted run leaves the saved
 * files whole and never truncates -o.
 *
 * Exit 0, 1 data/runtime error, 2 usage error; every check before any
 * work.  One process (mpirun with R > 1 is refused: the gauge force has no
 * halo exchange yet).  See lat-hmc(1). */
#include "base/cli.h"
#include "base/comm.h"
#include "base/lat.h"
#include "base/log.h"
#include "hmc/gauge.h"
#include "hmc/integrator.h"
#include "io/dist.h"
#include "lattice/field.h"
#include "lattice/observables.h"
#include "shared/run_report.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run {
    struct dist x;
    char *base_history;
    const char *summary;
};

static void write_conf(struct run *r, const char *path, const char *results)
{
    char *entry = lat_malloc(strlen(r->summary) + strlen(results) + 2);
    sprintf(entry, "%s %s", r->summary, results);
    r->x.c.history = r->base_history ? strdup(r->base_history) : NULL;
    if (r->base_history && !r->x.c.history) lat_die(1, NULL, "out of memory");
    struct conf_write_opts o = {.format = CONF_ILDG, .prec = 64, .nersc_3x3 = 0};
    dist_write(&r->x, path, &o, entry);
    free(r->x.c.history);
    r->x.c.history = NULL;
    free(entry);
}

/* next_trajectory= of the last lat-hmc entry of a history, or -1 */
static long long history_next_trajectory(const char *h)
{
    long long k = -1;
    for (const char *line = h; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *tab = memchr(line, '\t', len);
        if (tab && len - (size_t)(tab - line) > 9 && strncmp(tab + 1, "lat-hmc ", 8) == 0) {
            const char *p = line;
            while ((p = strstr(p, "next_trajectory=")) && p < line + len) {
                if (p[-1] == ' ') k = strtoll(p + 16, NULL, 10);
                p += 16;
            }
        }
        if (!end) break;
        line = end + 1;
    }
    return k;
}

/* conf.lime -> conf.000010.lime (the extension of the last path component) */
static void save_name(const char *out, long long traj, char *buf, size_t n)
{
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : out)) dot = out + strlen(out);
    int k = snprintf(buf, n, "%.*s.%06lld%s", (int)(dot - out), out, traj, dot);
    if (k <= 0 || (size_t)k >= n) lat_die(1, out, "the --save-every file name is too long");
}

struct stats {
    long long done, accepted;
    double sum_dh, sum_exp, sum_exp2;
};

static void results_of(const struct field *u, long long next, const struct stats *s, char *buf, size_t n)
{
    struct plaquette p = measure_plaquette(u);
    double pre, pim;
    measure_polyakov(u, &pre, &pim);
    double nd = s->done ? (double)s->done : 1;
    snprintf(buf, n,
             "next_trajectory=%lld trajectories=%lld accepted=%lld acceptance=%.6f mean_dH=%.9g mean_exp_minus_dH=%.9g "
             "plaquette=%.12f polyakov=%.12f,%.12f",
             next, s->done, s->accepted, s->accepted / nd, s->sum_dh / nd, s->sum_exp / nd, p.all, pre, pim);
}

int main(int argc, char **argv)
{
    double beta = 0, tau = 1, mass = 0;
    const char *lattice = NULL, *start = "cold", *output = NULL, *logpath = NULL, *device = "cpu";
    const char *precision = "double", *format = "text";
    int nf = 0, npf = 1, md_steps = 10, substeps = 1, save_every = 0;
    long long seed = 1, ntraj = 10;
    struct cli_opt opts[] = {
        {"nf", 0, CLI_INT, &nf, "N", "staggered flavours: 0 (pure gauge), 2, 4, ... (default 0; this build: 0 only)", NULL, 0},
        {"mass", 0, CLI_DOUBLE, &mass, "AM", "staggered quark mass am (>= 0; fermions will need > 0)", NULL, 0},
        {"npf", 0, CLI_INT, &npf, "N", "pseudofermion fields (default 1)", NULL, 0},
        {"pseudofermions", 0, CLI_INT, &npf, "N", "the same as --npf", NULL, 0},
        {"beta", 'b', CLI_DOUBLE, &beta, "B", "inverse gauge coupling beta = 6/g^2 (> 0, required)", NULL, 0},
        {"lattice", 'L', CLI_STRING, &lattice, "LXxLYxLZxLT", "lattice extents, even (or L for L^4): with --start cold|hot", NULL, 0},
        {"start", 0, CLI_STRING, &start, "cold|hot|FILE", "unit links, Haar-random links, or continue from a lat-hmc output (default cold)", NULL, 0},
        {"trajectories", 0, CLI_LONG, &ntraj, "N", "trajectories to run (default 10)", NULL, 0},
        {"tau", 0, CLI_DOUBLE, &tau, "T", "trajectory length (default 1)", NULL, 0},
        {"md-steps", 0, CLI_INT, &md_steps, "N", "2MN steps of the outermost time scale per trajectory (default 10)", NULL, 0},
        {"gauge-substeps", 0, CLI_INT, &substeps, "N", "gauge steps per half step of the fermion scale (default 1; nf 0: unused)", NULL, 0},
        {"seed", 's', CLI_LONG, &seed, "S", "random seed (>= 0, default 1): same seed, same bytes", NULL, 0},
        {"save-every", 0, CLI_INT, &save_every, "K", "also write every K-th trajectory: -o name with .NNNNNN (next trajectory) before the extension", NULL, 0},
        {"output", 'o', CLI_STRING, &output, "FILE", "write the final configuration here (default standard output)", NULL, 0},
        {"log", 0, CLI_STRING, &logpath, "FILE", "per-trajectory TSV: trajectory, plaquette, polyakov_re, polyakov_im, dH, exp_minus_dH, accepted, cg_iterations, condensate, seconds", NULL, 0},
        {"precision", 0, CLI_CHOICE, &precision, "P", "fermion solver precision (default double; nf 0: no solver)", "double|mixed", 0},
        {"device", 0, CLI_CHOICE, &device, "DEV", "compute backend (default cpu; gpu: not yet)", "cpu|gpu", 0},
        RUN_REPORT_OPTION(format),
        {0}};
    struct cli_info info = {"lat-hmc", "[OPTIONS]",
                            "Hybrid Monte Carlo for SU(3): Wilson gauge action (+ N_f staggered flavours), Omelyan 2MN integrator."};
    int first = cli_parse(&info, opts, argc, argv);
    if (first < argc) cli_usage_error("unexpected operand '%s' (the start configuration is given with --start FILE)", argv[first]);

    /* ---- parameters: every check before any work ---- */
    if (comm_size() > 1)
        lat_die_all(2, NULL, "runs on one process: the HMC has no MPI decomposition yet (run it without mpirun)");
    if (nf < 0) cli_usage_error("--nf must be >= 0, got %d", nf);
    if (nf > 0) cli_usage_error("--nf %d needs the staggered fermions, not built yet", nf);
    if (!cli_given(opts, "beta")) cli_usage_error("--beta is required");
    if (!(beta > 0)) cli_usage_error("--beta must be positive, got %g", beta);
    if (mass < 0) cli_usage_error("--mass must be >= 0, got %g", mass);
    if (npf < 1) cli_usage_error("--npf must be >= 1, got %d", npf);
    if (!(tau > 0)) cli_usage_error("--tau must be positive, got %g", tau);
    if (md_steps < 1) cli_usage_error("--md-steps must be >= 1, got %d", md_steps);
    if (substeps < 1) cli_usage_error("--gauge-substeps must be >= 1, got %d", substeps);
    if (ntraj < 0) cli_usage_error("--trajectories must be >= 0, got %lld", ntraj);
    if (seed < 0) cli_usage_error("--seed must be >= 0, got %lld", seed);
    if (save_every < 0) cli_usage_error("--save-every must be >= 0, got %d", save_every);
    if (save_every > 0 && (!output || strcmp(output, "-") == 0))
        cli_usage_error("--save-every needs -o FILE (the saved files are named after it)");
    if (strcmp(device, "gpu") == 0) cli_usage_error("--device gpu: not yet (the HMC runs on the CPU)");
    int to_stdout = !output || strcmp(output, "-") == 0;
    if (to_stdout && comm_stdout_is_terminal())
        lat_die(1, "standard output", "refusing to write a binary configuration to a terminal (use -o FILE or a pipe)");
    if (logpath && strcmp(logpath, "-") == 0 && to_stdout)
        cli_usage_error("--log - and the configuration cannot both go to standard output");
    run_report_validate(format, output, logpath);
    int L[4] = {0, 0, 0, 0};
    struct lattice lat;
    int is_hot = strcmp(start, "hot") == 0, is_cold = strcmp(start, "cold") == 0;
    if (lattice) {
        const char *why = NULL;
        if (cli_parse_extents(lattice, L)) cli_usage_error("--lattice '%s' is not LXxLYxLZxLT (or L)", lattice);
        if (lattice_init(&lat, L, &why)) cli_usage_error("--lattice %s: %s", lattice, why);
        if (!is_hot && !is_cold) cli_usage_error("--lattice goes with --start cold|hot (a --start FILE has its own)");
    }
    if ((is_hot || is_cold) && !lattice) cli_usage_error("--lattice is required with --start %s", start);

    /* ---- the start ---- */
    struct run r;
    memset(&r, 0, sizeof r);
    long long first_traj = 0;
    if (is_hot || is_cold) {
        dist_new(&r.x, &lat, 3);
        if (is_hot) field_set_random(r.x.u, (uint64_t)seed);
    } else {
        dist_read(&r.x, start, NULL, NULL);
        if (r.x.nc != 3) lat_die(1, start, "holds an SU(%d) configuration; lat-hmc runs SU(3) only", r.x.nc);
        const char *why = NULL;
        if (lattice_init(&lat, r.x.lat.L, &why)) lat_die(1, start, "cannot run the HMC on it: %s", why);
        r.base_history = r.x.c.history;
        r.x.c.history = NULL;
        first_traj = history_next_trajectory(r.base_history);
        if (first_traj < 0) first_traj = 0;
    }
    if (first_traj + ntraj >= (1LL << 32)) lat_die(2, NULL, "the trajectory counter would pass 2^32");

    char ext[64], summary[640];
    snprintf(ext, sizeof ext, "%dx%dx%dx%d", lat.L[0], lat.L[1], lat.L[2], lat.L[3]);
    snprintf(summary, sizeof summary,
             "nc=3 lattice=%s beta=%.15g nf=%d mass=%.15g npf=%d tau=%.15g md_steps=%d gauge_substeps=%d "
             "integrator=2mn seed=%lld start=%s precision=%s device=cpu first_trajectory=%lld",
             ext, beta, nf, mass, npf, tau, md_steps, substeps, seed, is_hot ? "hot" : is_cold ? "cold" : "file",
             precision, first_traj);
    r.summary = summary;

    /* ---- the monomials: the gauge action alone (nf 0: on the outermost scale) ---- */
    struct hmc_gauge_ctx gctx;
    struct hmc_monomial mono[1] = {hmc_gauge_monomial(&gctx, beta, 0)};
    struct hmc_params par = {{tau, md_steps, substeps}, (uint64_t)seed};

    FILE *log = NULL;
    if (logpath) {
        log = strcmp(logpath, "-") == 0 ? stdout : fopen(logpath, "w");
        if (!log) lat_die(1, logpath, "cannot open the log for writing");
        fprintf(log, "trajectory\tplaquette\tpolyakov_re\tpolyakov_im\tdH\texp_minus_dH\taccepted\tcg_iterations\tcondensate\tseconds\n");
    }
    int show = cli_show_progress();
    struct stats st = {0, 0, 0, 0, 0};
    double t0 = omp_get_wtime();
    for (long long i = 0; i < ntraj; i++) {
        long long k = first_traj + i;
        struct hmc_result res;
        hmc_trajectory(&par, mono, 1, r.x.u, (uint32_t)k, &res, NULL);
        st.done++;
        st.accepted += res.accepted;
        st.sum_dh += res.dH;
        st.sum_exp += res.exp_minus_dH;
        struct plaquette p = measure_plaquette(r.x.u);
        double pre, pim;
        measure_polyakov(r.x.u, &pre, &pim);
        if (log) {
            fprintf(log, "%lld\t%.12f\t%.12f\t%.12f\t%.9g\t%.9g\t%d\t%ld\tnan\t%.3f\n", k, p.all, pre, pim, res.dH,
                    res.exp_minus_dH, res.accepted, res.iterations, res.seconds);
            if (fflush(log) != 0) lat_die(1, logpath, "write error on the log");
        }
        if (show) {
            double el = omp_get_wtime() - t0;
            fprintf(stderr, "\rlat-hmc: trajectory %lld/%lld plaquette %.6f dH %+.3e acc %.0f%%  %.2f s/traj  ETA %.0f s\033[K",
                    i + 1, ntraj, p.all, res.dH, 100.0 * st.accepted / st.done, el / (i + 1), el / (i + 1) * (ntraj - i - 1));
            if (i + 1 == ntraj) fputc('\n', stderr);
        }
        if (save_every > 0 && (i + 1) % save_every == 0) {
            char path[4096], res_s[512];
            save_name(output, k + 1, path, sizeof path);
            results_of(r.x.u, k + 1, &st, res_s, sizeof res_s);
            write_conf(&r, path, res_s);
        }
    }
    double elapsed = omp_get_wtime() - t0;
    if (log && log != stdout && fclose(log) != 0) lat_die(1, logpath, "write error on the log");
    char res_s[512];
    long long next = first_traj + ntraj;
    results_of(r.x.u, next, &st, res_s, sizeof res_s);
    write_conf(&r, output, res_s);

    struct plaquette pl = measure_plaquette(r.x.u);
    double nd = st.done ? (double)st.done : 1;
    struct report *rep = run_report_begin(format, is_hot || is_cold ? "-" : start, &lat, 3, output);
    if (rep) {
        double lt = measure_link_trace(r.x.u), pre, pim;
        measure_polyakov(r.x.u, &pre, &pim);
        report_num(rep, "beta", beta);
        report_int(rep, "nf", nf);
        report_int(rep, "seed", seed);
        report_int(rep, "first_trajectory", first_traj);
        report_int(rep, "next_trajectory", next);
        report_int(rep, "trajectories", st.done);
        report_int(rep, "accepted", st.accepted);
        report_num(rep, "acceptance", st.accepted / nd);
        report_num(rep, "mean_dH", st.sum_dh / nd);
        report_num(rep, "mean_exp_minus_dH", st.sum_exp / nd);
        report_num(rep, "seconds", elapsed);
        run_report_observables(rep, &pl, lt, pre, pim);
        run_report_end(rep, format, output);
    } else {
        lat_info("SU(3) %s, beta = %g, nf = %d: %lld trajectories (tau %g, %d 2MN steps) in %.2f s: acceptance %.3f, "
                 "<dH> = %.4g, <exp(-dH)> = %.4f, plaquette = %.12f",
                 ext, beta, nf, st.done, tau, md_steps, elapsed, st.accepted / nd, st.sum_dh / nd, st.sum_exp / nd,
                 pl.all);
    }
    dist_free(&r.x);
    free(r.base_history);
    return LAT_OK;
}
