/* lat-fourier -- Fourier-accelerated gauge fixing (SPEC §7): steepest
 * descent or nonlinear conjugate gradient (the default), preconditioned by
 * p^2_max/p^2 in momentum space, towards Landau or Coulomb gauge, until
 * theta < --theta (Coulomb: every timeslice) or --max-iter iterations.
 * Exit 0 converged, 1 data error, 2 usage, 3 not converged (the
 * configuration is still written, history says converged=no).  The method
 * is kernels/fourier/fourier.h; see lat-fourier(1). */
#include "shared/gaugefix_tool.h"
#include "fourier/fourier.h"
#include "base/comm.h"
#include "base/lat.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    struct gf_tool t;
    gf_tool_init(&t);
    const char *gauge_name = "landau", *method = "cg", *cg_beta = "pr";
    double alpha = 0.08, theta = 1e-12;
    long long max_iter = 10000, stall = 500;
    int restarts = 2;
    struct cli_opt opts[] = {
        {"gauge", 'g', CLI_CHOICE, &gauge_name, "GAUGE", "gauge condition (default landau)", "landau|coulomb|mag", 0},
        {"method", 'm', CLI_CHOICE, &method, "M", "cg: conjugate gradient with a line search (default); sd: steepest descent", "cg|sd", 0},
        {"cg-beta", 0, CLI_CHOICE, &cg_beta, "B", "the CG's beta: pr Polak-Ribiere (default), hs Hestenes-Stiefel (fewer iterations, lat-fourier(1))", "pr|hs", 0},
        {"alpha", 'a', CLI_DOUBLE, &alpha, "A", "step size (sd), first trial step (cg); default 0.08", NULL, 0},
        {"theta", 0, CLI_DOUBLE, &theta, "EPS", "stop when theta < EPS (Coulomb: every theta_t; default 1e-12)", NULL, 0},
        {"max-iter", 0, CLI_LONG, &max_iter, "N", "at most N iterations (default 10000)", NULL, 0},
        {"restarts", 0, CLI_INT, &restarts, "N", "restarts from a random orbit point when a run stalls (default 2)", NULL, 0},
        {"stall", 0, CLI_LONG, &stall, "N", "a run stalls when theta has not halved in N iterations (default 500)", NULL, 0},
        {"check-every", 0, CLI_INT, &t.check_every, "N", "progress report every N iterations (default 10)", NULL, 0},
        GF_TOOL_FIX_OPTIONS(t),
        GF_TOOL_OPTIONS(t),
        {0}};
    struct cli_info info = {"lat-fourier", "[OPTIONS] [INPUT]",
                            "Fix to Landau or Coulomb gauge by Fourier-accelerated steepest descent or conjugate gradient."};
    int first = cli_parse(&info, opts, argc, argv);
    const char *input = gf_tool_operand(argc, argv, first);
    enum gauge_kind gauge;
    gauge_kind_parse(gauge_name, &gauge);
    if (gauge == GAUGE_MAG)
        cli_usage_error("--gauge mag: Fourier acceleration is for Landau and Coulomb gauge (MAG: lat-overrelax, lat-anneal)");
    if (!(alpha > 0 && alpha <= 1)) cli_usage_error("--alpha: must be in (0, 1] (got %g)", alpha);
    if (!(theta > 0)) cli_usage_error("--theta: must be > 0 (got %g)", theta);
    if (max_iter < 1 || max_iter > 4000000000LL) cli_usage_error("--max-iter: must be in 1..4e9 (got %lld)", max_iter);
    if (restarts < 0) cli_usage_error("--restarts: must be >= 0 (got %d)", restarts);
    if (stall < 1) cli_usage_error("--stall: must be >= 1 (got %lld)", stall);
    if (!cli_given(opts, "check-every")) t.check_every = 10;
    if (t.check_every < 1) cli_usage_error("--check-every: must be >= 1 (got %d)", t.check_every);
    gf_tool_validate(&t, opts);
    gf_tool_read(&t, input);
    if (t.reunitarize_every < 0) t.reunitarize_every = t.prec == 'd' ? 0 : 50;
    struct device_choice dc = device_opt_choose(t.device);
#if defined(LAT_HAVE_CUDA) && defined(LAT_HAVE_CUFFT)
    const struct fa_backend *gpu = &fa_backend_gpu;
#else
    const struct fa_backend *gpu = NULL;
#endif
    struct device_caps caps = {"Fourier gauge-fixing", gpu != NULL, GPU_MIN_NC, GPU_MAX_NC};
    const struct fa_backend *be = device_opt_fits(&dc, &caps, t.x.u->nc) ? gpu : &fa_backend_cpu;
    double *time_g = NULL;
    struct fa_state *st = fa_open(be, t.x.u, t.x.transform, t.prec, gauge, &time_g);
    gf_tool_progress(&t);
    struct fa_run run = {be, st, *geometry_global(t.x.u->dom, &t.x.u->lat), t.x.u->nc, gauge, t.prec,
                         (uint64_t)t.seed, (uint32_t)t.copy, t.reunitarize_every, t.check_every,
                         progress_gf_observer(&t.progress, gauge, t.progress.log != NULL)};
    struct fa_opts fo = {strcmp(method, "sd") == 0 ? FA_SD : FA_CG, alpha, theta, (long)max_iter, restarts, (long)stall,
                         strcmp(cg_beta, "hs") == 0 ? FA_BETA_HS : FA_BETA_PR};
    struct gf_result res;
    int made = 0;
    fa_iterate(&run, &fo, &res, &made);
    fa_close(be, st, t.x.u, t.x.transform, time_g);
    /* F and theta of the configuration that is written (for single and
     * mixed precision the iteration's own numbers are of float links in
     * float or double arithmetic) */
    struct gauge_quality q;
    gauge_quality_measure(t.x.u, gauge, &q);
    res.F = q.F;
    res.theta = q.theta;
    free(res.F_t);
    free(res.theta_t);
    res.nt = q.nt;
    res.F_t = q.F_t;
    res.theta_t = q.theta_t;

    char results[1024];
    int n = snprintf(results, sizeof results, "gauge=%s method=fourier-%s alpha=%g precision=%s", gauge_name, method,
                     alpha, t.precision);
    if (fo.method == FA_CG && fo.cg_beta == FA_BETA_HS) n += snprintf(results + n, sizeof results - (size_t)n, " cg_beta=hs");
    if (be != &fa_backend_cpu) n += snprintf(results + n, sizeof results - (size_t)n, " device=gpu");
    if (made) n += snprintf(results + n, sizeof results - (size_t)n, " restarts=%d seed=%lld copy=%d", made, t.seed, t.copy);
    gf_tool_describe(results, sizeof results, &res);
    char what[64];
    snprintf(what, sizeof what, "Fourier-accelerated %s%s", strcmp(method, "sd") == 0 ? "steepest descent" : "CG",
             made ? " (restarted)" : "");
    struct report *rep = run_report_begin(t.format, t.x.c.name, &t.x.lat, t.x.nc, t.output);
    if (rep) {
        char m[32];
        snprintf(m, sizeof m, "fourier-%s", method); /* as the history's method= */
        run_report_gf(rep, gauge_name, m, &res);
        report_int(rep, "restarts", made);
    } else
        gf_tool_summary_in(what, "iterations", gauge, &res);
    int status = res.converged == 0 ? LAT_ENOCONV : LAT_OK;
    gf_result_free(&res);
    status = gf_tool_finish(&t, results, status);
    run_report_end(rep, t.format, t.output);
    return status;
}
