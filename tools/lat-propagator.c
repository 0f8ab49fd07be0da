/* lat-propagator -- Wilson / Wilson-clover quark propagators (SPEC §8) on
 * the CPU, one process or MPI ranks: the 4 nc spin-colour solves M x = e_{s,c} of one
 * point or wall source, written as a USQCD/SciDAC LIME propagator file
 * (io/propagator.h; lat(7), PROPAGATOR FILES).
 *
 * lat-propagator --kappa K [OPTIONS] [INPUT] -o FILE: reads a configuration
 * (dist_read: any format; a boundary-sign file refused; links must be
 * SU(N) to 1e-10, 1e-5 for 32-bit files), builds M (kernels/dirac: --csw,
 * --bc), and solves each column with --solver cg (CG on the normal
 * equations) or bicgstab, on the even-odd Schur complement (default; the
 * solution reconstructed on the full lattice) or on M itself (--no-eo), in
 * --precision double, single or mixed (reliable updates, --sloppy single
 * or half), to a relative true residual |b - M x| / |b| <= --tol, checked
 * in double against the full operator after each solve.  A wall source
 * needs a Coulomb-gauge input: theta_t (SPEC §3) of every timeslice must be
 * <= --wall-theta, else exit 1 before any solve.
 *
 * Not converged (a solve that reaches --max-iter, or a true residual above
 * --tol): as the gauge-fixing tools do, the file is still written, marked
 * converged=no in its history entry and <converged>no</converged> in its
 * file XML, and the exit status is 3 (lat-meson warns on such a file).
 * The history of the configuration is carried and one provenance entry
 * added (kappa, c_sw, bc, source, solver, precision, iterations and true
 * residuals per solve).  --format json|tsv: the run report (lat(7)
 * REPORTS) after the file is written.  Exit 0, 1 bad input, 2 usage, 3 not
 * converged.  See lat-propagator(1).
 *
 * Under mpirun each rank holds its t-slab of the links, the sources and the
 * solutions (dist.h, dirac.h); rank 0 gathers each solution and writes the
 * file, whose bytes do not depend on the rank count (every sum has one slot
 * per timeslice, added in a fixed order).  --device gpu under mpirun: one
 * GPU per rank (node-local rank mod the GPUs it sees), each rank's slab on
 * its GPU (dirac/gpu.h: even timeslices per rank), the same bytes again. */
#include "base/cli.h"
#include "base/clock.h"
#include "base/comm.h"
#include "base/lat.h"
#include "base/log.h"
#include "base/report.h"
#include "dirac/dirac.h"
#include "gaugefix/site.h"
#include "io/dist.h"
#include "io/propagator.h"
#include "lattice/observables.h"
#include "shared/device_opt.h"
#include "shared/progress.h"
#include "shared/prop_solve.h"
#include "shared/run_report.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "p,p,p,a": periodic or antiperiodic per direction x,y,z,t */
static void parse_bc(const char *s, struct dirac_params *p)
{
    for (int mu = 0; mu < LAT_ND; mu++) {
        if (s[0] != 'p' && s[0] != 'a') cli_usage_error("--bc: '%s' is not four of p|a separated by commas (e.g. p,p,p,a)", s);
        p->phase[mu][0] = s[0] == 'p' ? 1.0 : -1.0;
        p->phase[mu][1] = 0.0;
        s++;
        if (mu < LAT_ND - 1 && *s++ != ',') cli_usage_error("--bc: not four of p|a separated by commas (e.g. p,p,p,a)");
    }
    if (*s) cli_usage_error("--bc: not four of p|a separated by commas (e.g. p,p,p,a)");
}

/* --log: one TSV row per solver step of every column (rank 0 writes; the
 * residuals are global sums, the same on every rank) */
struct solve_log {
    FILE *f;    /* NULL on other ranks or without --log */
    int column; /* spin * nc + colour of the solve under way */
};
static void log_step(void *ctx, const struct solver_step *st)
{
    struct solve_log *l = ctx;
    if (l->f) fprintf(l->f, "%d\t%d\t%d\t%.6e\n", l->column, st->iteration, st->reliable, st->residual);
}

/* on every rank once read (dist.h): SU(N) links */
static void check_input(struct dist *x, void *arg)
{
    (void)arg;
    double tol = x->c.file_prec == 32 ? 1e-5 : 1e-10;
    struct unitarity un = measure_unitarity(x->u);
    if (!(un.max <= tol) || !(un.det_max <= tol))
        lat_die_all(1, x->c.name,
                    "links are not in SU(%d): max ||U^dag U - 1|| = %.3g, max |det U - 1| = %.3g, tolerance %.3g "
                    "(lat-unitarity can reproject)", x->nc, un.max, un.det_max, tol);
}

/* --columns together: column k's source (prop_solve_block's callback) */
struct column_source {
    const struct prop_source *src;
    const struct lattice *lat;
    int nc, t_first, nt;
};
static void column_source(void *ctx, int k, double *b)
{
    const struct column_source *c = ctx;
    prop_source_field_slab(c->src, c->lat, c->nc, k / c->nc, k % c->nc, c->t_first, c->nt, b);
}

int main(int argc, char **argv)
{
    double kappa = 0, csw = 0, tol = 1e-12, wall_theta = 1e-10, delta = 0.1;
    int max_iter = 10000, no_eo = 0, file_bits = 64;
    const char *bc = "p,p,p,a", *source = "point:0,0,0,0", *solver = "cg", *precision = "double", *sloppy = "single",
               *output = NULL, *format = "text", *fprec = "64", *device = NULL, *gpu_links = "12", *logpath = NULL,
               *columns = "apart";
    struct cli_opt opts[] = {
        {"kappa", 'k', CLI_DOUBLE, &kappa, "K", "hopping parameter (> 0; required)", NULL, 0},
        {"csw", 0, CLI_DOUBLE, &csw, "C", "clover coefficient c_sw (default 0: Wilson)", NULL, 0},
        {"bc", 0, CLI_STRING, &bc, "X,Y,Z,T", "boundary conditions of the quark per direction, p|a (default p,p,p,a)", NULL, 0},
        {"source", 0, CLI_STRING, &source, "SRC", "point:x,y,z,t (default point:0,0,0,0) or wall:t (Coulomb-gauge input)", NULL, 0},
        {"wall-theta", 0, CLI_DOUBLE, &wall_theta, "EPS", "largest Coulomb theta_t a wall source accepts (default 1e-10)", NULL, 0},
        {"solver", 0, CLI_CHOICE, &solver, "S", "Krylov solver (default cg: CG on the normal equations)", "cg|bicgstab", 0},
        {"no-eo", 0, CLI_FLAG, &no_eo, NULL, "solve M on the full lattice instead of the even-odd Schur complement", NULL, 0},
        {"tol", 0, CLI_DOUBLE, &tol, "EPS", "relative true residual |b - M x| / |b| to reach (default 1e-12)", NULL, 0},
        {"max-iter", 0, CLI_INT, &max_iter, "N", "iterations per solve at most (default 10000)", NULL, 0},
        {"precision", 0, CLI_CHOICE, &precision, "P", "solver arithmetic (default double; mixed: reliable updates)", "double|single|mixed", 0},
        {"sloppy", 0, CLI_CHOICE, &sloppy, "P", "sloppy precision of --precision mixed (default single)", "single|half", 0},
        {"reliable-delta", 0, CLI_DOUBLE, &delta, "D", "--precision mixed: a reliable update (the true residual in double) whenever the sloppy residual fell by D since the last (default 0.1)", NULL, 0},
        {"file-precision", 0, CLI_CHOICE, &fprec, "BITS", "precision of the propagator file (default 64)", "32|64", 0},
        {"device", 0, CLI_CHOICE, &device, "DEV", "where the solver runs (default auto; LAT_DEVICE overrides auto; gpu: SU(3), even-odd, under mpirun one GPU per rank)", "cpu|gpu|auto", 0},
        {"gpu-links", 0, CLI_CHOICE, &gpu_links, "R", "reals stored per link on the GPU (default 12; 8 compressed, 18 whole)", "18|12|8", 0},
        {"columns", 0, CLI_CHOICE, &columns, "HOW", "apart (default): one solve per spin-colour column; together: all columns as one system, one Krylov recursion over the stacked vectors and one operator launch for them all (--device gpu, one process, V/2 a multiple of 32)", "apart|together", 0},
        {"output", 'o', CLI_STRING, &output, "FILE", "the propagator file (default standard output, never a terminal)", NULL, 0},
        {"log", 0, CLI_STRING, &logpath, "FILE", "the solves' convergence TSV: column (spin * nc + colour), iteration, reliable (1: a true residual, in double; 0: the recursion's, in the sloppy precision), residual (relative, of the system solved: the even-odd one unless --no-eo; with --columns together column -1, the stacked system)", NULL, 0},
        RUN_REPORT_OPTION(format),
        {0}};
    struct cli_info info = {"lat-propagator", "--kappa K [OPTIONS] [INPUT]",
                            "Wilson / Wilson-clover quark propagator of a point or wall source, as a USQCD propagator file."};
    int first = cli_parse(&info, opts, argc, argv);
    if (argc - first > 1) cli_usage_error("one INPUT at most (got %d)", argc - first);
    const char *input = first < argc ? argv[first] : NULL;
    if (!cli_given(opts, "kappa")) cli_usage_error("--kappa is required");
    if (!(kappa > 0)) cli_usage_error("--kappa: must be > 0 (got %g)", kappa);
    if (!(tol > 0 && tol < 1)) cli_usage_error("--tol: must be in (0, 1) (got %g)", tol);
    if (!(wall_theta >= 0)) cli_usage_error("--wall-theta: must be >= 0 (got %g)", wall_theta);
    if (max_iter < 1) cli_usage_error("--max-iter: must be >= 1 (got %d)", max_iter);
    if (cli_given(opts, "sloppy") && strcmp(precision, "mixed") != 0)
        cli_usage_error("--sloppy applies to --precision mixed only");
    if (cli_given(opts, "reliable-delta") && strcmp(precision, "mixed") != 0)
        cli_usage_error("--reliable-delta applies to --precision mixed only");
    if (!(delta > 0 && delta < 1)) cli_usage_error("--reliable-delta: must be in (0, 1) (got %g)", delta);
    if (logpath && strcmp(logpath, "-") == 0 && run_report_to_stdout(output))
        cli_usage_error("--log - and the propagator cannot both go to standard output");
    run_report_validate(format, output, logpath);
    file_bits = fprec[0] == '3' ? 32 : 64;
    struct dirac_params dp;
    dirac_params_default(&dp, kappa, csw);
    parse_bc(bc, &dp);
    struct prop_solve_opts so = {.bicgstab = solver[0] == 'b', .eo = !no_eo, .tol = tol, .max_iter = max_iter,
                                 .precision = precision[0], .sloppy = precision[0] == 'm' ? sloppy[0] : 0,
                                 .delta = delta};
    struct device_choice dc = device_opt_choose(device);
    /* auto with --no-eo stays on the CPU; an explicit gpu with it is refused by prop_solve_check */
    so.gpu = dc.gpu && (dc.explicit_gpu || !no_eo);
    if (prop_solve_check(&so) != 0) cli_usage_error("%s", so.why);

    struct dist x;
    const double t_read = lat_clock();
    dist_read(&x, input, check_input, NULL);
    lat_debug("read the configuration: %.3f s", lat_clock() - t_read);
    const double t_setup = lat_clock();
    struct conf *c = &x.c;
    const struct lattice *lat = &x.lat;
    struct propagator prop;
    memset(&prop, 0, sizeof prop);
    prop.lat = *lat;
    prop.nc = x.nc;
    char why[256];
    if (prop_source_parse(source, lat, &prop.src, why, sizeof why) != 0) lat_die_all(1, c->name, "--source %s", why); /* every rank alike */
    if (prop.src.wall) { /* a wall source is gauge-variant: Coulomb gauge first */
        struct gauge_quality q;
        gauge_quality_measure(x.u, GAUGE_COULOMB, &q);
        double worst = 0;
        int tw = 0;
        for (int t = 0; t < q.nt; t++)
            if (!(q.theta_t[t] <= worst)) { worst = q.theta_t[t]; tw = t; }
        gauge_quality_free(&q);
        if (!(worst <= wall_theta))
            lat_die_all(1, c->name, "a wall source needs a Coulomb-gauge configuration: theta_t = %.3g at t = %d exceeds "
                                "--wall-theta %.3g (fix it with lat-overrelax --gauge coulomb)", worst, tw, wall_theta);
    }
    struct dirac_op *op = dirac_create(x.u, &dp, why, sizeof why);
    if (!op) lat_die_all(1, c->name, "%s", why); /* on a slab every rank returns NULL alike */
    struct prop_device *dev = NULL;
    if (so.gpu) {
        struct device_caps caps = {"Dirac", 1, 3, 3};
        if (x.dom && !dc.explicit_gpu) so.gpu = 0;
        else if (x.dom && x.dom->lt % 2)
            lat_die_all(1, c->name, "--device gpu under mpirun needs an even number of timeslices per rank (%d here: Lt %d "
                                    "on %d ranks)", x.dom->lt, x.dom->global.L[3], x.dom->size);
        else if (!device_opt_fits(&dc, &caps, x.nc)) so.gpu = 0;
        if (so.gpu) dev = prop_device_open(op, x.u, atoi(gpu_links), why, sizeof why);
        if (so.gpu && x.dom) { /* one GPU per rank (node-local rank mod count): every rank or none */
            double missing = dev ? 0 : 1;
            comm_max(&missing, 1);
            if (missing && dev) snprintf(why, sizeof why, "another rank has no usable GPU");
            if (missing) {
                if (dev) prop_device_close(dev);
                lat_die_all(1, c->name, "--device gpu: %s", why); /* rank 0's reason */
            }
        } else if (so.gpu && !dev) {
            if (dc.explicit_gpu) lat_die(1, c->name, "--device gpu: %s", why);
            lat_info("the solver runs on the CPU: %s", why);
            so.gpu = 0;
        }
    }

    const int together = columns[0] == 't';
    if (together && !prop_solve_block_possible(dev, PROP_NS * x.nc, why, sizeof why))
        lat_die_all(2, c->name, "--columns together: %s", why); /* before any solve: nothing written */
    lat_debug("the operator%s set up: %.3f s", dev ? " and the device" : "", lat_clock() - t_setup);
    const int ncol = PROP_NS * x.nc;
    const size_t nr = dirac_full_reals(op), sr = dirac_site_reals(op);
    int t_first;
    const int nt = dirac_owned_timeslices(op, &t_first);
    double *b = lat_malloc(nr * sizeof(double));
    /* a rank's solution with one (unused) slice in front: geometry_gather's
     * layout of a slab; with one rank the column itself */
    const size_t v3r = (size_t)(lat->V / lat->L[3]) * sr;
    double *slab = x.dom ? lat_calloc(nr + 2 * v3r, sizeof(double)) : NULL;
    int *iters = lat_calloc((size_t)ncol, sizeof(int));
    double *res = lat_calloc((size_t)ncol, sizeof(double)), *iters_d = lat_calloc((size_t)ncol, sizeof(double));
    int converged = 1, total = 0;
    double solver_seconds = 0;
    struct progress pr;
    progress_init(&pr, lat_progname);
    struct solve_log slog = {NULL, 0};
    if (logpath) {
        if (comm_is_root()) {
            progress_log_open(&pr, logpath, PROGRESS_LOG_STREAM);
            slog.f = pr.log;
            fprintf(slog.f, "column\titeration\treliable\tresidual\n");
        }
        so.history = log_step;
        so.history_ctx = &slog;
    }
    double t0 = lat_clock();
    int show = cli_show_progress();
    struct prop_solve_result *rs = lat_calloc((size_t)ncol, sizeof *rs);
    if (together) { /* one process: rank 0 holds the columns */
        struct column_source cs = {&prop.src, lat, x.nc, t_first, nt};
        for (int k = 0; k < ncol; k++) prop.col[k] = lat_calloc(prop_column_reals(&prop), sizeof(double));
        slog.column = -1;
        prop_solve_block(op, dev, &so, ncol, column_source, &cs, prop.col, rs);
    }
    for (int k = 0; k < ncol; k++) {
        const double tk = lat_clock();
        if (!together) {
            slog.column = k;
            prop_source_field_slab(&prop.src, lat, x.nc, k / x.nc, k % x.nc, t_first, nt, b);
            if (comm_is_root()) prop.col[k] = lat_calloc(prop_column_reals(&prop), sizeof(double));
            prop_solve(op, dev, &so, b, x.dom ? slab + v3r : prop.col[k], &rs[k]);
            if (x.dom) geometry_gather(x.dom, slab, prop.col[k], sr);
        }
        const struct prop_solve_result r = rs[k];
        iters[k] = r.iterations;
        iters_d[k] = r.iterations;
        res[k] = r.true_residual;
        total += r.iterations;
        solver_seconds += r.solver_seconds;
        if (!r.converged) converged = 0;
        if (show)
            fprintf(stderr, "\r%s: solve %d/%d (spin %d colour %d): %d iterations, residual %.2e, %.1f s   ",
                    lat_progname, k + 1, ncol, k / x.nc, k % x.nc, r.iterations, r.true_residual, lat_clock() - t0);
        lat_debug("spin %d colour %d: %d iterations, true residual %.3e, %.3f s (solver %.3f s)%s", k / x.nc, k % x.nc,
                  r.iterations, r.true_residual, lat_clock() - tk, r.solver_seconds, r.converged ? "" : " (not converged)");
    }
    if (show) fprintf(stderr, "\n");
    free(rs);
    double seconds = lat_clock() - t0;
    progress_log_close(&pr); /* exit 1 on a failed write */
    free(b);
    free(slab);
    prop_device_close(dev);
    dirac_free(op);

    /* provenance: the history entry and the file XML */
    char srcw[64], num[64];
    prop_source_format(&prop.src, srcw, sizeof srcw);
    size_t hl = 256 + (size_t)ncol * 40;
    char *results = lat_malloc(hl), *r0 = results;
    size_t left = hl;
    char dw[80] = ""; /* a delta given is part of the provenance (the default's entries stay as they were) */
    if (cli_given(opts, "reliable-delta")) snprintf(dw, sizeof dw, " reliable_delta=%g", delta);
    if (together) strcat(dw, " columns=together"); /* the default's entries stay as they were */
    int n = snprintf(r0, left, "kappa=%.17g csw=%.17g bc=%s source=%s solver=%s eo=%s device=%s precision=%s%s%s%s tol=%g iterations=",
                     kappa, csw, bc, srcw, solver, no_eo ? "no" : "yes", so.gpu ? "gpu" : "cpu", precision, precision[0] == 'm' ? " sloppy=" : "",
                     precision[0] == 'm' ? sloppy : "", dw, tol);
    r0 += n; left -= (size_t)n;
    for (int k = 0; k < ncol; k++) { n = snprintf(r0, left, "%s%d", k ? "," : "", iters[k]); r0 += n; left -= (size_t)n; }
    n = snprintf(r0, left, " residuals=");
    r0 += n; left -= (size_t)n;
    for (int k = 0; k < ncol; k++) { n = snprintf(r0, left, "%s%.3e", k ? "," : "", res[k]); r0 += n; left -= (size_t)n; }
    snprintf(r0, left, " converged=%s", converged ? "yes" : "no");
    if (comm_is_root()) conf_history_add(c, results); /* rank 0 holds the history (dist.h) */
    prop.history = c->history;
    struct plaquette pl = measure_plaquette(x.u);
    snprintf(num, sizeof num, "%.15g", pl.all);
    char xml[2048];
    snprintf(xml, sizeof xml, "<latPropagator><version>1.0</version><kappa>%.17g</kappa><csw>%.17g</csw><bc>%s</bc>"
                                   "<source>%s</source><solver>%s</solver><eo>%s</eo><precision>%s</precision><tol>%g</tol>"
                                   "<iterations>%d</iterations><converged>%s</converged><gauge><lattice>%dx%dx%dx%d</lattice>"
                                   "<nc>%d</nc><plaquette>%s</plaquette></gauge><program>lat-propagator %s</program>"
                                   "</latPropagator>", kappa, csw, bc, srcw, solver, no_eo ? "no" : "yes", precision, tol,
                                   total, converged ? "yes" : "no", lat->L[0], lat->L[1], lat->L[2], lat->L[3], x.nc, num,
                                   LAT_VERSION);
    struct report *rep = run_report_begin(format, c->name, lat, x.nc, output);
    int done = 0; /* rank 0 writes; a failure there stops every rank with its status */
    if (comm_is_root()) {
        comm_root_begin();
        const double t_write = lat_clock();
        prop_write(output, &prop, xml, file_bits);
        lat_debug("wrote the propagator: %.3f s", lat_clock() - t_write);
        comm_root_end(&done, sizeof done);
    } else {
        comm_root_wait(&done, sizeof done);
    }
    prop.history = NULL;
    if (rep) {
        report_num(rep, "kappa", kappa);
        report_num(rep, "csw", csw);
        report_str(rep, "bc", bc);
        report_str(rep, "source", srcw);
        report_str(rep, "solver", solver);
        report_bool(rep, "eo", !no_eo);
        report_str(rep, "device", so.gpu ? "gpu" : "cpu");
        report_str(rep, "precision", precision);
        if (together) report_str(rep, "columns", "together");
        report_num(rep, "tol", tol);
        report_list(rep, "iterations", iters_d, ncol);
        report_list(rep, "true_residuals", res, ncol);
        report_int(rep, "iterations_total", total);
        report_bool(rep, "converged", converged);
        report_num(rep, "seconds", seconds);
        report_num(rep, "seconds_solver", solver_seconds);
        run_report_end(rep, format, output);
    } else {
        double worst = 0;
        for (int k = 0; k < ncol; k++) worst = fmax(worst, res[k]);
        lat_info("%s: %d solves, %d iterations in all, largest true residual %.2e, %.1f s%s", srcw, ncol, total, worst,
                 seconds, converged ? "" : " -- NOT CONVERGED (written, marked converged=no)");
    }
    free(results);
    free(iters);
    free(iters_d);
    free(res);
    prop_free(&prop);
    dist_free(&x);
    return converged ? LAT_OK : LAT_ENOCONV;
}
