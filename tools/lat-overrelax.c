/* lat-overrelax -- the relaxation family of gauge fixing (SPEC §1, §3):
 * relaxation (--omega 1), overrelaxation (1 < omega < 2, g^omega to first
 * order), microcanonical sweeps (--omega 2) and stochastic relaxation
 * (--stochastic P), towards Landau, Coulomb or maximally Abelian gauge,
 * until theta < --theta (Coulomb: every timeslice) or --max-iter sweeps.
 * Exit 0 converged, 1 data error, 2 usage, 3 not converged (the
 * configuration is still written, history says converged=no).  See
 * lat-overrelax(1). */
#include "shared/gaugefix_tool.h"
#include "base/lat.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    struct gf_tool t;
    gf_tool_init(&t);
    const char *gauge_name = "landau";
    double omega = 0, p = -1, theta = 1e-12;
    long long max_iter = 20000;
    struct cli_opt opts[] = {
        {"gauge", 'g', CLI_CHOICE, &gauge_name, "GAUGE", "gauge condition (default landau)", "landau|coulomb|mag", 0},
        {"omega", 'w', CLI_DOUBLE, &omega, "W", "1 relaxation, (1,2) overrelaxation, 2 microcanonical (default 1.6; mag 1.8)", NULL, 0},
        {"stochastic", 0, CLI_DOUBLE, &p, "P", "stochastic relaxation: a microcanonical step with probability P", NULL, 0},
        {"theta", 0, CLI_DOUBLE, &theta, "EPS", "stop when theta < EPS (Coulomb: every theta_t; default 1e-12)", NULL, 0},
        {"max-iter", 0, CLI_LONG, &max_iter, "N", "at most N sweeps (default 20000; --omega 2: exactly N, default 100)", NULL, 0},
        {"check-every", 0, CLI_INT, &t.check_every, "N", "measure F and theta every N sweeps (default 10)", NULL, 0},
        {"links", 0, CLI_CHOICE, &t.links, "R",
         "reals per SU(3) link on the GPU: 12 (default) or 8 (single/mixed; relaxation and overrelaxation)", "12|8", 0},
        GF_TOOL_FIX_OPTIONS(t),
        GF_TOOL_OPTIONS(t),
        {0}};
    struct cli_info info = {"lat-overrelax", "[OPTIONS] [INPUT]",
                            "Fix to Landau, Coulomb or maximally Abelian gauge by (over)relaxation, "
                            "stochastic relaxation or microcanonical sweeps."};
    int first = cli_parse(&info, opts, argc, argv);
    const char *input = gf_tool_operand(argc, argv, first);
    enum gauge_kind gauge;
    gauge_kind_parse(gauge_name, &gauge);
    /* measured (docs/PERFORMANCE.md, "Overrelaxation parameter"): sweeps to
     * theta < 1e-12 on thermalised SU(3) configurations of 8^4 to 16^4 from
     * random orbit points; 1.6 is at most 1.33x the fewest sweeps for Landau
     * and Coulomb gauge (1.7: up to 1.42x), MAG is fastest at 1.8 to 1.9 */
    if (!cli_given(opts, "omega")) omega = gauge == GAUGE_MAG ? 1.8 : 1.6;
    if (!cli_given(opts, "check-every")) t.check_every = 10;
    if (omega == 2 && !cli_given(opts, "max-iter")) max_iter = 100;
    if (!(omega >= 1 && omega <= 2)) cli_usage_error("--omega: must be in [1,2] (got %g)", omega);
    if (!(theta > 0)) cli_usage_error("--theta: must be > 0 (got %g)", theta);
    if (max_iter < 1 || max_iter > 4000000000LL) cli_usage_error("--max-iter: must be in 1..4e9 (got %lld)", max_iter);
    if (t.check_every < 1) cli_usage_error("--check-every: must be >= 1 (got %d)", t.check_every);
    struct gf_relax_opts ro = {omega == 1 ? GF_RELAX : omega == 2 ? GF_MICRO : GF_OVERRELAX, omega, 0, theta, (long)max_iter};
    if (cli_given(opts, "stochastic")) {
        if (!(p >= 0 && p <= 1)) cli_usage_error("--stochastic: the probability must be in [0,1] (got %g)", p);
        if (cli_given(opts, "omega") && omega != 1)
            cli_usage_error("--stochastic replaces overrelaxation: it does not combine with --omega %g", omega);
        ro.update = GF_STOCHASTIC;
        ro.p = p;
        ro.omega = 1;
    }
    if (strcmp(t.links, "8") == 0 && ro.update != GF_RELAX && ro.update != GF_OVERRELAX)
        cli_usage_error("--links 8 is for relaxation and overrelaxation (1 <= omega < 2), not microcanonical or stochastic sweeps");
    gf_tool_validate(&t, opts);
    gf_tool_read(&t, input);
    gf_tool_backend(&t, gauge);
    struct gf_run run;
    gf_tool_run(&t, gauge, &run);
    struct gf_result res;
    gf_relax(&run, &ro, &res);

    static const char *method[] = {"relaxation", "overrelaxation", "microcanonical", "stochastic-relaxation"};
    char results[1024];
    int n = snprintf(results, sizeof results, "gauge=%s method=%s", gauge_name, method[ro.update]);
    if (ro.update == GF_OVERRELAX) n += snprintf(results + n, sizeof results - (size_t)n, " omega=%g", omega);
    if (ro.update == GF_STOCHASTIC)
        n += snprintf(results + n, sizeof results - (size_t)n, " p=%g seed=%lld copy=%d", p, t.seed, t.copy);
    n += snprintf(results + n, sizeof results - (size_t)n, " precision=%s", t.precision);
    if (strcmp(t.links, "8") == 0 && t.be->set_link_reals) snprintf(results + n, sizeof results - (size_t)n, " links=8");
    gf_tool_describe(results, sizeof results, &res);
    struct report *rep = run_report_begin(t.format, t.x.c.name, &t.x.lat, t.x.nc, t.output);
    if (rep) {
        run_report_gf(rep, gauge_name, method[ro.update], &res);
        if (ro.update == GF_OVERRELAX) report_num(rep, "omega", omega);
    } else
        gf_tool_summary(method[ro.update], gauge, &res);
    int status = res.converged == 0 ? LAT_ENOCONV : LAT_OK;
    gf_result_free(&res);
    status = gf_tool_finish(&t, results, status);
    run_report_end(rep, t.format, t.output);
    return status;
}
