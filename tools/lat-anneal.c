/* lat-anneal -- simulated annealing towards Landau, Coulomb or maximally
 * Abelian gauge (SPEC §3, paper §2.3): per step a heatbath sweep for g(x)
 * with weight exp(f/T), then --micro microcanonical sweeps; T goes from
 * --tmax to --tmin over --steps steps (linear or geometric).  Annealing has
 * no stopping criterion: follow it with lat-overrelax.  Exit 0 done, 1 data
 * error, 2 usage.  See lat-anneal(1). */
#include "shared/gaugefix_tool.h"
#include "base/lat.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    struct gf_tool t;
    gf_tool_init(&t);
    const char *gauge_name = "landau", *schedule = "linear";
    long long steps = 1000;
    double tmax = 0, tmin = 0;
    int micro = 3;
    struct cli_opt opts[] = {
        {"gauge", 'g', CLI_CHOICE, &gauge_name, "GAUGE", "gauge condition (default landau)", "landau|coulomb|mag", 0},
        {"steps", 0, CLI_LONG, &steps, "N", "temperature steps (default 1000)", NULL, 0},
        {"tmax", 0, CLI_DOUBLE, &tmax, "T", "first temperature (default 2; mag 1)", NULL, 0},
        {"tmin", 0, CLI_DOUBLE, &tmin, "T", "last temperature (default 0.01; mag 0.005)", NULL, 0},
        {"schedule", 0, CLI_CHOICE, &schedule, "S", "how T falls from tmax to tmin (default linear)", "linear|geometric", 0},
        {"micro", 0, CLI_INT, &micro, "N", "microcanonical sweeps after each step (default 3)", NULL, 0},
        {"check-every", 0, CLI_INT, &t.check_every, "N", "with --log or a progress line: measure every N steps (default 10)", NULL, 0},
        GF_TOOL_FIX_OPTIONS(t),
        GF_TOOL_OPTIONS(t),
        {0}};
    struct cli_info info = {"lat-anneal", "[OPTIONS] [INPUT]",
                            "Simulated annealing towards Landau, Coulomb or maximally Abelian gauge "
                            "(heatbath in g(x) plus microcanonical sweeps)."};
    int first = cli_parse(&info, opts, argc, argv);
    const char *input = gf_tool_operand(argc, argv, first);
    enum gauge_kind gauge;
    gauge_kind_parse(gauge_name, &gauge);
    if (!cli_given(opts, "tmax")) tmax = gauge == GAUGE_MAG ? 1 : 2;
    if (!cli_given(opts, "tmin")) tmin = gauge == GAUGE_MAG ? 0.005 : 0.01;
    if (!cli_given(opts, "check-every")) t.check_every = 10;
    if (steps < 1 || steps > 100000000LL) cli_usage_error("--steps: must be in 1..1e8 (got %lld)", steps);
    if (!(tmin > 0)) cli_usage_error("--tmin: must be > 0 (got %g)", tmin);
    if (!(tmax > 0)) cli_usage_error("--tmax: must be > 0 (got %g)", tmax);
    if (tmin > tmax) cli_usage_error("--tmin %g is above --tmax %g", tmin, tmax);
    if (micro < 0 || micro > 1000) cli_usage_error("--micro: must be in 0..1000 (got %d)", micro);
    if (t.check_every < 1) cli_usage_error("--check-every: must be >= 1 (got %d)", t.check_every);
    if ((double)steps * (1 + micro) > 4e9) cli_usage_error("--steps x (1 + --micro) must stay below 4e9 sweeps");
    gf_tool_validate(&t, opts);
    gf_tool_read(&t, input);
    gf_tool_backend(&t, gauge);
    struct gf_run run;
    gf_tool_run(&t, gauge, &run);
    struct gf_anneal_opts ao = {(long)steps, tmax, tmin, schedule[0] == 'g', micro};
    struct gf_result res;
    gf_anneal(&run, &ao, &res);

    char results[1024];
    snprintf(results, sizeof results,
             "gauge=%s method=annealing steps=%lld tmax=%g tmin=%g schedule=%s micro=%d seed=%lld copy=%d precision=%s",
             gauge_name, steps, tmax, tmin, schedule, micro, t.seed, t.copy, t.precision);
    gf_tool_describe(results, sizeof results, &res);
    struct report *rep = run_report_begin(t.format, t.x.c.name, &t.x.lat, t.x.nc, t.output);
    if (rep) {
        run_report_gf(rep, gauge_name, "annealing", &res);
        report_int(rep, "steps", steps);
    } else
        gf_tool_summary("annealing", gauge, &res);
    gf_result_free(&res);
    int status = gf_tool_finish(&t, results, LAT_OK);
    run_report_end(rep, t.format, t.output);
    return status;
}
