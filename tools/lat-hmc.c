/* lat-hmc -- hybrid Monte Carlo for SU(3) with the Wilson gauge action and
 * N_f unimproved staggered flavours (SPEC §9).  main is options -> start ->
 * rational approximations -> trajectories (kernels/hmc/integrator.h: 2MN
 * integrator, Metropolis) -> output.
 *
 * Fermions (nf > 0): one monomial (hmc/staggered_monomial.h) with npf
 * pseudofermion fields on time scale 0 (--md-steps), the gauge action on
 * scale 1 (--gauge-substeps per half step).  Default npf: the smallest with
 * nf <= 4 npf (the Metropolis power -nf/(4 npf) >= -1, the domain of
 * rational_remez).  nf = 4 npf without --rhmc: exact HMC (x^-1, phi = M^dag
 * chi); otherwise RHMC with x^(nf/(8 npf)) (heatbath) and x^(-nf/(4 npf))
 * (Metropolis) to relative error 1e-12 and x^(-nf/(4 npf)) (MD) to 1e-6 on
 * [m^2, hi], hi from staggered_spectral_range (1.1 x the power-iteration
 * lambda_max; lo = m^2 is a bound).  After every trajectory lambda_max is
 * estimated again; when it passes hi, a warning (once) and the rationals are
 * refitted on the wider range (struct fermions, fermions_* below).
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
 * MPI: under mpirun -np R (R dividing Lt) every rank holds a slab of
 * timeslices with one halo slice on each side (lattice/geometry.h, the
 * input read and the output written by io/dist.h).  The link update
 * refreshes the halo slices (the staples and the staggered hops read them),
 * the momenta and every noise field are keyed by the global site, every
 * energy, action and dot product is summed per global timeslice in a fixed
 * order (hmc_site_sum, the solvers' reduction layout of
 * staggered_reduce_layout), and every rank draws the same Metropolis
 * number: output files, log lines and reports are the same bytes for any R
 * (and any thread count).  Rank 0 writes the log and the report.
 *
 * --split pseudofermions (MPI, npf >= R): no slabs; every rank is a
 * replica (base/comm.h comm_replicate) holding and updating the whole
 * lattice alike, and the staggered monomial deals its pseudofermion fields
 * out, field k to replica k mod R (hmc/staggered_monomial_impl.h): each
 * field's force formed apart, gathered, added in field order; the actions
 * added in field order.  Links, log columns and reports: one process's.
 * The first replica writes the files, the log and the report.
 *
 * --device gpu (SU(3); one GPU, or under mpirun one GPU per rank on the
 * t-slabs above with an even number of timeslices per rank), two paths:
 *   - every monomial has device callbacks (hmc/monomial.h: the gauge
 *     action and the staggered monomial, N_f >= 0): the whole trajectory
 *     on the GPU (hmc_trajectory_gpu: momenta, refresh, energies, forces,
 *     link updates, the backup and restore of the links); the links are
 *     uploaded once at the start and downloaded after every trajectory
 *     for what leaves it (plaquette and Polyakov loop of the log, the
 *     spectral-range check and the condensate through the GPU solver
 *     (the start's range is estimated on the CPU, so --device cpu and gpu
 *     fit the same rationals), saved
 *     and final files).  On slabs the device fields are the slab fields of
 *     hmc/gpu.h (halo slices refreshed device to device or through the
 *     host, LAT_GPU_HALO=host), the staggered solves and sums use the
 *     per-timeslice layout, the noise the global site: the output file and
 *     the log's physics columns are the same bytes for every R (the
 *     seconds and byte-count columns differ);
 *   - otherwise (a monomial without device code; -v says which path):
 *     the staggered solves on the GPU (hmc/staggered_gpu_solver.h: the
 *     links uploaded whenever they changed, b uploaded, the solutions
 *     downloaded); everything else on the CPU.
 * The same start and seed give dH and links within rounding of --device
 * cpu (the GPU's sums run in another order).
 *
 * Timing split per trajectory (--log columns, report keys seconds_*):
 * solver (the monomial's solves, transfers included), transfer (the host
 * <-> device copies: the solver's, and on the whole-trajectory path the
 * link download after the trajectory and, in the first, the one upload),
 * force (gauge force + fermion force arithmetic, its solves excluded),
 * update (link updates), measure (the spectral range check and the
 * condensate after the trajectory).
 *
 * Exit 0, 1 data/runtime error, 2 usage error; every check before any
 * work.  See lat-hmc(1). */
#include "base/cli.h"
#include "base/clock.h"
#include "base/comm.h"
#include "base/lat.h"
#include "base/log.h"
#include "hmc/gauge.h"
#include "hmc/gpu.h"
#include "hmc/integrator.h"
#include "hmc/staggered_monomial.h"
#include "hmc/staggered_gpu_solver.h"
#include "rational/rational.h"
#include "io/dist.h"
#include "lattice/field.h"
#include "lattice/observables.h"
#include "shared/run_report.h"
#include "shared/device_opt.h"
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

/* ---- the staggered fermions: rationals on [lo, hi] and the monomial ---- */
#define TOL_RATIONAL_EXACT 1e-12 /* heatbath and Metropolis rationals */
#define TOL_RATIONAL_MD 1e-6
#define FERMION_MAX_ITER 100000

struct fermions {
    int rational;        /* 0: exact HMC (nf = 4 npf, no --rhmc) */
    double lo, hi;       /* the range the rationals are fitted on */
    struct rational hb, md, met;
    struct staggered_monomial_params sp;
    struct hmc_monomial mono;
    int created, warned, refits;
};

static void fermions_fit(struct fermions *f, const struct field *u)
{
    char why[512];
    const int nf = f->sp.nf, d = 4 * f->sp.npf;
    if (f->created) staggered_monomial_free(&f->mono);
    if (f->rational) {
        if (rational_remez_tol(&f->hb, nf, 2 * d, TOL_RATIONAL_EXACT, f->lo, f->hi, why, sizeof why) ||
            rational_remez_tol(&f->met, -nf, d, TOL_RATIONAL_EXACT, f->lo, f->hi, why, sizeof why) ||
            rational_remez_tol(&f->md, -nf, d, TOL_RATIONAL_MD, f->lo, f->hi, why, sizeof why))
            lat_die(1, NULL, "rational approximation on [%g, %g]: %s", f->lo, f->hi, why);
        f->sp.heatbath = &f->hb;
        f->sp.md = &f->md;
        f->sp.metropolis = &f->met;
    }
    if (staggered_monomial_create(&f->mono, &f->sp, u, why, sizeof why)) lat_die(1, NULL, "staggered fermions: %s", why);
    f->created = 1;
}

/* "x^(p/q) order n error e" for the info line and the history */
static void fermions_describe(const struct fermions *f, char *buf, size_t n)
{
    if (!f->rational) {
        snprintf(buf, n, "exact_hmc=1 range=%.6g,%.6g", f->lo, f->hi);
        return;
    }
    snprintf(buf, n,
             "range=%.6g,%.6g heatbath=x^(%d/%d),order=%d,error=%.3g metropolis=x^(%d/%d),order=%d,error=%.3g "
             "md=x^(%d/%d),order=%d,error=%.3g range_refits=%d",
             f->lo, f->hi, f->hb.num, f->hb.den, f->hb.order, f->hb.max_rel_error, f->met.num, f->met.den, f->met.order,
             f->met.max_rel_error, f->md.num, f->md.den, f->md.order, f->md.max_rel_error, f->refits);
}

/* after a trajectory: lambda_max again; past hi: warn once, widen, refit */
static void fermions_check_range(struct fermions *f, const struct field *u, long long traj)
{
    double lo, hi;
    staggered_spectral_range_on(u, f->sp.mass, &lo, &hi, f->sp.gpu); /* --device gpu: on the GPU */
    const double lambda_max = hi / STAGGERED_SPECTRAL_SAFETY;
    if (lambda_max <= f->hi) return;
    if (!f->warned)
        lat_warn(NULL, "trajectory %lld: lambda_max of (M^dag M)_ee = %.6g left the range [%.6g, %.6g]: widening to %.6g "
                 "and refitting the rationals (warned once)", traj, lambda_max, f->lo, f->hi, hi);
    f->warned = 1;
    f->hi = hi;
    f->refits++;
    if (f->rational) fermions_fit(f, u);
}

/* one trajectory's seconds (the header's split) */
struct split {
    double solver, transfer, force, update, measure;
};

/* the integrator's force and update seconds, the monomial's solves taken
 * out of its force time */
static struct split split_of(const struct hmc_timing *tm, int nmono, const struct fermions *f)
{
    struct split s = {0, 0, 0, tm->update, 0};
    for (int i = 0; i < nmono; i++) s.force += tm->force[i];
    if (f) {
        double md, other;
        staggered_monomial_take_solve_seconds(&f->mono, &md, &other);
        s.solver = md + other;
        s.force -= md;
        if (f->sp.gpu) s.transfer = staggered_gpu_solver_take_transfer_seconds(f->sp.gpu);
    }
    return s;
}

struct stats {
    long long done, accepted;
    double sum_dh, sum_exp, sum_exp2, sum_cond;
    long long ncond;
};

static void results_of(const struct field *u, long long next, const struct stats *s, const struct fermions *f, char *buf,
                       size_t n)
{
    struct plaquette p = measure_plaquette(u);
    double pre, pim;
    measure_polyakov(u, &pre, &pim);
    double nd = s->done ? (double)s->done : 1;
    snprintf(buf, n,
             "next_trajectory=%lld trajectories=%lld accepted=%lld acceptance=%.6f mean_dH=%.9g mean_exp_minus_dH=%.9g "
             "plaquette=%.12f polyakov=%.12f,%.12f",
             next, s->done, s->accepted, s->accepted / nd, s->sum_dh / nd, s->sum_exp / nd, p.all, pre, pim);
    if (f) {
        size_t k = strlen(buf);
        char fs[512];
        fermions_describe(f, fs, sizeof fs);
        snprintf(buf + k, n - k, " mean_condensate=%.9g %s", s->ncond ? s->sum_cond / (double)s->ncond : NAN, fs);
    }
}

int main(int argc, char **argv)
{
    double beta = 0, tau = 1, mass = 0;
    const char *lattice = NULL, *start = "cold", *output = NULL, *logpath = NULL, *device = "cpu";
    const char *precision = "double", *format = "text", *split = "lattice";
    int nf = 0, npf = 0, md_steps = 10, substeps = 1, save_every = 0, rhmc = 0, nnoise = 4;
    double tol_md = 1e-8, tol_met = 1e-12, spectral_hi = 0;
    long long seed = 1, ntraj = 10;
    struct cli_opt opts[] = {
        {"nf", 0, CLI_INT, &nf, "N", "staggered flavours: 0 (pure gauge), 1, 2, ... (default 0)", NULL, 0},
        {"mass", 0, CLI_DOUBLE, &mass, "AM", "staggered quark mass am (> 0 with --nf > 0)", NULL, 0},
        {"npf", 0, CLI_INT, &npf, "N", "pseudofermion fields, each with det^(nf/(4 npf)) (default: the smallest with nf <= 4 npf)", NULL, 0},
        {"rhmc", 0, CLI_FLAG, &rhmc, NULL, "rational approximations also when nf = 4 npf (default there: exact HMC)", NULL, 0},
        {"tol-md", 0, CLI_DOUBLE, &tol_md, "R", "relative CG residual of the MD (force) solves (default 1e-8)", NULL, 0},
        {"tol-metropolis", 0, CLI_DOUBLE, &tol_met, "R", "relative CG residual of the heatbath and action solves (default 1e-12)", NULL, 0},
        {"noise", 0, CLI_INT, &nnoise, "K", "Z2 noise vectors per trajectory for the chiral condensate (default 4; 0: off)", NULL, 0},
        {"spectral-hi", 0, CLI_DOUBLE, &spectral_hi, "X", "testing: fit the rationals on [m^2, X] instead of the estimated range", NULL, 0},
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
        {"log", 0, CLI_STRING, &logpath, "FILE", "per-trajectory TSV: trajectory, plaquette, polyakov_re, polyakov_im, dH, exp_minus_dH, accepted, cg_iterations, condensate, seconds, and the split solver_seconds, transfer_seconds, force_seconds, update_seconds, measure_seconds, then condensate_error (the noise error of the condensate: s/sqrt(K), NaN with K < 2), and the trajectory's host-device copies: bytes_to_device, bytes_from_device, largest_copy (0 on the CPU)", NULL, 0},
        {"precision", 0, CLI_CHOICE, &precision, "P", "fermion solver precision (default double; nf 0: no solver)", "double|mixed", 0},
        {"split", 0, CLI_CHOICE, &split, "WHAT", "what MPI ranks share out: the lattice in t-slabs (default), or the pseudofermion fields (each rank a whole lattice, field k on rank k mod R; --npf >= R)", "lattice|pseudofermions", 0},
        {"device", 0, CLI_CHOICE, &device, "DEV", "where the trajectory runs (default cpu; gpu: the whole trajectory on one GPU, or on one GPU per MPI rank with an even number of timeslices per rank)", "cpu|gpu", 0},
        RUN_REPORT_OPTION(format),
        {0}};
    struct cli_info info = {"lat-hmc", "[OPTIONS]",
                            "Hybrid Monte Carlo for SU(3): Wilson gauge action (+ N_f staggered flavours), Omelyan 2MN integrator."};
    int first = cli_parse(&info, opts, argc, argv);
    if (first < argc) cli_usage_error("unexpected operand '%s' (the start configuration is given with --start FILE)", argv[first]);

    /* ---- parameters: every check before any work ---- */
    if (nf < 0) cli_usage_error("--nf must be >= 0, got %d", nf);
    if (!cli_given(opts, "beta")) cli_usage_error("--beta is required");
    if (!(beta > 0)) cli_usage_error("--beta must be positive, got %g", beta);
    if (mass < 0) cli_usage_error("--mass must be >= 0, got %g", mass);
    if (nf > 0 && !(mass > 0)) cli_usage_error("--mass must be > 0 with --nf %d (got %g)", nf, mass);
    if (!isfinite(mass)) cli_usage_error("--mass must be finite, got %g", mass);
    if (cli_given(opts, "npf") || cli_given(opts, "pseudofermions")) {
        if (npf < 1) cli_usage_error("--npf must be >= 1, got %d", npf);
    } else
        npf = nf > 0 ? (nf + 3) / 4 : 1;
    if (nf > 4 * npf)
        cli_usage_error("--nf %d --npf %d: the power -nf/(4 npf) = -%d/%d is below -1, outside what the Remez algorithm fits "
                        "(-1 <= p < 1): use --npf %d or more", nf, npf, nf, 4 * npf, (nf + 3) / 4);
    if (!(tol_md > 0 && tol_md < 1)) cli_usage_error("--tol-md must lie in (0, 1), got %g", tol_md);
    if (!(tol_met > 0 && tol_met < 1)) cli_usage_error("--tol-metropolis must lie in (0, 1), got %g", tol_met);
    if (nnoise < 0) cli_usage_error("--noise must be >= 0, got %d", nnoise);
    if (cli_given(opts, "spectral-hi") && !(spectral_hi > mass * mass && isfinite(spectral_hi)))
        cli_usage_error("--spectral-hi must be finite and > m^2 = %g, got %g", mass * mass, spectral_hi);
    if (!(tau > 0)) cli_usage_error("--tau must be positive, got %g", tau);
    if (md_steps < 1) cli_usage_error("--md-steps must be >= 1, got %d", md_steps);
    if (substeps < 1) cli_usage_error("--gauge-substeps must be >= 1, got %d", substeps);
    if (ntraj < 0) cli_usage_error("--trajectories must be >= 0, got %lld", ntraj);
    if (seed < 0) cli_usage_error("--seed must be >= 0, got %lld", seed);
    if (save_every < 0) cli_usage_error("--save-every must be >= 0, got %d", save_every);
    if (save_every > 0 && (!output || strcmp(output, "-") == 0))
        cli_usage_error("--save-every needs -o FILE (the saved files are named after it)");
    const int on_gpu = strcmp(device, "gpu") == 0;
    /* --split pseudofermions: every rank a whole lattice of its own (a
     * replica, base/comm.h), the fields shared out (hmc/staggered_monomial_impl.h) */
    const int split_pf = strcmp(split, "pseudofermions") == 0;
    if (split_pf && nf == 0) cli_usage_error("--split pseudofermions needs staggered fermions (--nf > 0)");
    if (split_pf && npf < comm_size())
        cli_usage_error("--split pseudofermions: %d ranks need --npf %d or more (got %d)", comm_size(), comm_size(), npf);
    if (split_pf) comm_replicate();
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
    if (nf > 0 && lattice)
        for (int mu = 0; mu < 4; mu++)
            if (L[mu] % 2) cli_usage_error("--lattice %s: staggered fermions need even extents (%d is odd)", lattice, L[mu]);

    /* ---- the device: a usable GPU per rank (exit 1, nothing written) ---- */
    if (on_gpu) {
        /* under mpirun one GPU per rank on the t-slabs: the GPU HMC and the
         * staggered operator need an even number of timeslices per rank */
        if (comm_size() > 1 && lattice && L[3] % comm_size() == 0 && (L[3] / comm_size()) % 2)
            lat_die_all(1, NULL, "--device gpu under mpirun needs an even number of timeslices per rank (%d / %d ranks = %d)",
                        L[3], comm_size(), L[3] / comm_size());
        struct device_choice dc = device_opt_choose("gpu"); /* no usable GPU: one line, exit 1 */
        const struct device_caps caps = {nf > 0 ? "staggered solver" : "HMC", 1, 3, 3};
        device_opt_fits(&dc, &caps, 3);
    }

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
        for (int mu = 0; nf > 0 && mu < 4; mu++)
            if (lat.L[mu] % 2)
                lat_die(1, start, "has an odd extent %d in direction %d: staggered fermions need even extents", lat.L[mu], mu);
        if (comm_is_root()) { /* only rank 0 holds the history */
            r.base_history = r.x.c.history;
            r.x.c.history = NULL;
            first_traj = history_next_trajectory(r.base_history);
        }
        comm_bcast(&first_traj, sizeof first_traj, 0); /* the counter of the random streams */
        if (first_traj < 0) first_traj = 0;
    }
    if (on_gpu && r.x.dom && r.x.dom->lt % 2)
        lat_die_all(1, start, "--device gpu under mpirun needs an even number of timeslices per rank (%d / %d ranks = %d)",
                    lat.L[3], comm_size(), r.x.dom->lt);
    if (first_traj + ntraj >= (1LL << 32)) lat_die(2, NULL, "the trajectory counter would pass 2^32");

    /* ---- the fermions: spectral range, rationals, monomial ---- */
    struct fermions fer;
    memset(&fer, 0, sizeof fer);
    char fer_s[512] = "";
    if (nf > 0) {
        fer.rational = rhmc || nf != 4 * npf;
        fer.sp = (struct staggered_monomial_params){.mass = mass, .nf = nf, .npf = npf, .tol_md = tol_md,
                                                    .tol_metropolis = tol_met, .mixed = strcmp(precision, "mixed") == 0,
                                                    .max_iter = FERMION_MAX_ITER, .timescale = 0};
        if (on_gpu) {
            char why[512];
            fer.sp.gpu = staggered_gpu_solver_create(r.x.u, mass, why, sizeof why);
            if (!fer.sp.gpu) lat_die(1, NULL, "--device gpu: %s", why);
            staggered_gpu_solver_take_transfer_seconds(fer.sp.gpu); /* the first upload: not a trajectory's */
        }
        staggered_spectral_range(r.x.u, mass, &fer.lo, &fer.hi);
        if (cli_given(opts, "spectral-hi")) fer.hi = spectral_hi;
        fermions_fit(&fer, r.x.u);
        fermions_describe(&fer, fer_s, sizeof fer_s);
        lat_info("nf = %d, npf = %d, m = %g: %s", nf, npf, mass, fer_s);
    }

    char ext[64], summary[1400];
    snprintf(ext, sizeof ext, "%dx%dx%dx%d", lat.L[0], lat.L[1], lat.L[2], lat.L[3]);
    snprintf(summary, sizeof summary,
             "nc=3 lattice=%s beta=%.15g nf=%d mass=%.15g npf=%d tau=%.15g md_steps=%d gauge_substeps=%d "
             "integrator=2mn seed=%lld start=%s precision=%s device=%s first_trajectory=%lld%s%s",
             ext, beta, nf, mass, npf, tau, md_steps, substeps, seed, is_hot ? "hot" : is_cold ? "cold" : "file",
             precision, device, first_traj, nf > 0 ? (fer.rational ? " rhmc=1" : " rhmc=0") : "", "");
    r.summary = summary;

    /* ---- the monomials: fermions on scale 0, the gauge action on scale 1 (alone: scale 0) ---- */
    struct hmc_gauge_ctx gctx;
    struct hmc_monomial mono[2] = {hmc_gauge_monomial(&gctx, beta, nf > 0 ? 1 : 0)};
    const int nmono = nf > 0 ? 2 : 1;
    struct hmc_params par = {{tau, md_steps, substeps}, (uint64_t)seed};
    if (nf > 0) mono[1] = fer.mono;

    /* ---- --device gpu: the whole trajectory on the device when every
     * monomial has device callbacks; the links go up once ---- */
    const int whole_gpu = on_gpu && hmc_on_device(mono, nmono);
    struct gpu_field links_gpu;
    double first_upload = 0;
    if (on_gpu && !whole_gpu)
        lat_debug("--device gpu: a monomial ('%s') has no device code: the trajectory runs on the CPU, the staggered "
                  "solves on the GPU", mono[hmc_on_device(mono, 1) ? 1 : 0].name);
    if (whole_gpu) {
        lat_debug("--device gpu: every monomial has device code: the whole trajectory runs on the GPU");
        hmc_gpu_field_create(&links_gpu, r.x.u);
        double tu = lat_clock();
        hmc_gpu_links_upload(&links_gpu, r.x.u);
        first_upload = lat_clock() - tu;
    }

    FILE *log = NULL;
    if (logpath) { /* rank 0 writes it; a failure to open it stops every rank with its line */
        if (comm_is_root()) {
            comm_root_begin();
            if (comm_talks()) /* replicas: the first one */
                log = strcmp(logpath, "-") == 0 ? stdout : fopen(logpath, "w");
            if (!log && comm_talks()) lat_die(1, logpath, "cannot open the log for writing");
            if (log) fprintf(log, "trajectory\tplaquette\tpolyakov_re\tpolyakov_im\tdH\texp_minus_dH\taccepted\tcg_iterations\tcondensate\tseconds"
                         "\tsolver_seconds\ttransfer_seconds\tforce_seconds\tupdate_seconds\tmeasure_seconds\tcondensate_error"
                         "\tbytes_to_device\tbytes_from_device\tlargest_copy\n");
            comm_root_end(NULL, 0);
        } else
            comm_root_wait(NULL, 0);
    }
    int show = cli_show_progress() && comm_talks();
    const int writes = comm_replicas() == 1 || comm_talks(); /* replicas: the first writes the files */
    struct stats st = {0, 0, 0, 0, 0, 0, 0};
    struct split total = {0, 0, 0, 0, 0};
    double t0 = omp_get_wtime();
    for (long long i = 0; i < ntraj; i++) {
        long long k = first_traj + i;
        struct hmc_result res;
        struct hmc_timing tm;
        memset(&tm, 0, sizeof tm);
        if (nf > 0) mono[1] = fer.mono;
        double transfer = 0;
        struct gpu_transfer_count moved; /* the trajectory's host <-> device copies (the log's last columns) */
        gpu_transfer_take(&moved);       /* drops what the previous measurements moved */
        if (whole_gpu) {
            hmc_trajectory_gpu(&par, mono, nmono, &links_gpu, (uint32_t)k, &res, &tm);
            gpu_transfer_take(&moved);
            double td = lat_clock();
            hmc_gpu_links_download(&links_gpu, r.x.u); /* for the measurements and files below */
            transfer = lat_clock() - td + (i == 0 ? first_upload : 0);
        } else {
            hmc_trajectory(&par, mono, nmono, r.x.u, (uint32_t)k, &res, &tm);
            gpu_transfer_take(&moved);
        }
        struct split sp = split_of(&tm, nmono, nf > 0 ? &fer : NULL);
        sp.transfer += transfer;
        double cond = NAN, cerr = NAN, tmeas = lat_clock();
        if (nf > 0) {
            /* the GPU solver's links for both measurements, uploaded once
             * (the trajectory may have left other links there: its device
             * path refreshes them at every force, and a rejection restores) */
            if (fer.sp.gpu) staggered_gpu_solver_set_links(fer.sp.gpu, r.x.u);
            fermions_check_range(&fer, r.x.u, k);
            if (nnoise > 0) {
                cond = staggered_condensate_on(r.x.u, mass, nnoise, (uint64_t)seed, (uint32_t)k, &cerr, NULL, fer.sp.gpu);
                st.sum_cond += cond;
                st.ncond++;
            }
        }
        sp.measure = lat_clock() - tmeas;
        if (fer.sp.gpu) staggered_gpu_solver_take_transfer_seconds(fer.sp.gpu); /* the condensate's: in measure */
        total.solver += sp.solver;
        total.transfer += sp.transfer;
        total.force += sp.force;
        total.update += sp.update;
        total.measure += sp.measure;
        st.done++;
        st.accepted += res.accepted;
        st.sum_dh += res.dH;
        st.sum_exp += res.exp_minus_dH;
        struct plaquette p = measure_plaquette(r.x.u);
        double pre, pim;
        measure_polyakov(r.x.u, &pre, &pim);
        if (log) {
            fprintf(log, "%lld\t%.12f\t%.12f\t%.12f\t%.9g\t%.9g\t%d\t%ld\t%.9g\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.9g\t%llu\t%llu\t%llu\n", k,
                    p.all, pre, pim, res.dH, res.exp_minus_dH, res.accepted, res.iterations, cond, res.seconds, sp.solver,
                    sp.transfer, sp.force, sp.update, sp.measure, cerr, moved.up_bytes, moved.down_bytes, moved.largest);
            if (fflush(log) != 0) lat_die(1, logpath, "write error on the log");
        }
        if (show) {
            double el = omp_get_wtime() - t0;
            fprintf(stderr, "\rlat-hmc: trajectory %lld/%lld plaquette %.6f dH %+.3e acc %.0f%%  %.2f s/traj  ETA %.0f s\033[K",
                    i + 1, ntraj, p.all, res.dH, 100.0 * st.accepted / st.done, el / (i + 1), el / (i + 1) * (ntraj - i - 1));
            if (i + 1 == ntraj) fputc('\n', stderr);
        }
        if (save_every > 0 && (i + 1) % save_every == 0) {
            char path[4096], res_s[1400];
            save_name(output, k + 1, path, sizeof path);
            results_of(r.x.u, k + 1, &st, nf > 0 ? &fer : NULL, res_s, sizeof res_s);
            if (writes) write_conf(&r, path, res_s);
        }
    }
    double elapsed = omp_get_wtime() - t0;
    if (log && log != stdout && fclose(log) != 0) lat_die(1, logpath, "write error on the log");
    char res_s[1400];
    long long next = first_traj + ntraj;
    results_of(r.x.u, next, &st, nf > 0 ? &fer : NULL, res_s, sizeof res_s);
    if (writes) write_conf(&r, output, res_s);

    struct plaquette pl = measure_plaquette(r.x.u);
    double nd = st.done ? (double)st.done : 1;
    struct report *rep = writes ? run_report_begin(format, is_hot || is_cold ? "-" : start, &lat, 3, output) : NULL;
    if (rep) {
        double lt = measure_link_trace(r.x.u), pre, pim;
        measure_polyakov(r.x.u, &pre, &pim);
        report_num(rep, "beta", beta);
        report_int(rep, "nf", nf);
        if (nf > 0) {
            report_int(rep, "npf", npf);
            report_num(rep, "mass", mass);
            report_int(rep, "rhmc", fer.rational);
            report_num(rep, "mean_condensate", st.ncond ? st.sum_cond / (double)st.ncond : NAN);
            report_int(rep, "range_refits", fer.refits);
            if (fer.rational) {
                report_int(rep, "order_heatbath", fer.hb.order);
                report_num(rep, "error_heatbath", fer.hb.max_rel_error);
                report_int(rep, "order_metropolis", fer.met.order);
                report_num(rep, "error_metropolis", fer.met.max_rel_error);
                report_int(rep, "order_md", fer.md.order);
                report_num(rep, "error_md", fer.md.max_rel_error);
            }
        }
        report_int(rep, "seed", seed);
        report_int(rep, "first_trajectory", first_traj);
        report_int(rep, "next_trajectory", next);
        report_int(rep, "trajectories", st.done);
        report_int(rep, "accepted", st.accepted);
        report_num(rep, "acceptance", st.accepted / nd);
        report_num(rep, "mean_dH", st.sum_dh / nd);
        report_num(rep, "mean_exp_minus_dH", st.sum_exp / nd);
        report_num(rep, "seconds", elapsed);
        report_str(rep, "device", device);
        report_num(rep, "seconds_solver", total.solver);
        report_num(rep, "seconds_transfer", total.transfer);
        report_num(rep, "seconds_force", total.force);
        report_num(rep, "seconds_update", total.update);
        report_num(rep, "seconds_measure", total.measure);
        run_report_observables(rep, &pl, lt, pre, pim);
        run_report_end(rep, format, output);
    } else {
        lat_info("SU(3) %s, beta = %g, nf = %d: %lld trajectories (tau %g, %d 2MN steps) in %.2f s: acceptance %.3f, "
                 "<dH> = %.4g, <exp(-dH)> = %.4f, plaquette = %.12f",
                 ext, beta, nf, st.done, tau, md_steps, elapsed, st.accepted / nd, st.sum_dh / nd, st.sum_exp / nd,
                 pl.all);
        lat_info("time (device %s): solver %.2f s (host<->device %.2f s), forces %.2f s, link updates %.2f s, "
                 "measurements %.2f s", device, total.solver, total.transfer, total.force, total.update, total.measure);
        if (st.ncond)
            lat_info("chiral condensate (1/V) Re Tr M^-1 of one staggered field (4 tastes), mean over %lld trajectories: %.6g",
                     st.ncond, st.sum_cond / (double)st.ncond);
    }
    if (nf > 0) staggered_monomial_free(&fer.mono);
    staggered_gpu_solver_free(fer.sp.gpu);
    if (whole_gpu) hmc_gpu_field_free(&links_gpu);
    dist_free(&r.x);
    free(r.base_history);
    return LAT_OK;
}
