/* lat-randomize-orbit -- a random point on the gauge orbit (SPEC §1): a
 * Haar-random g(x) in SU(N) at every site, drawn from the Philox stream
 * (--seed, --copy, site, 0, RNG_ORBIT), applied as U_mu(x) -> g(x) U_mu(x)
 * g(x+mu)^dag and multiplied into the tracked transformation when there is
 * one (or --track-transform starts it).  Exit 0, 1 data error, 2 usage.
 * See lat-randomize-orbit(1). */
#include "lattice/gauge_transform.h"
#include "lattice/observables.h"
#include "shared/gaugefix_tool.h"
#include "base/lat.h"
#include "base/log.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    struct gf_tool t;
    gf_tool_init(&t);
    struct cli_opt opts[] = {GF_TOOL_OPTIONS(t), {0}};
    struct cli_info info = {"lat-randomize-orbit", "[OPTIONS] [INPUT]",
                            "Apply a Haar-random gauge transformation g(x): a random start on the gauge orbit."};
    int first = cli_parse(&info, opts, argc, argv);
    const char *input = gf_tool_operand(argc, argv, first);
    gf_tool_validate(&t, opts);
    gf_tool_read(&t, input);

    struct field *u = t.x.u; /* this rank's slab under mpirun */
    double *g = lat_malloc((size_t)u->lat.V * field_link_reals(u->nc) * sizeof(double));
    gauge_transform_random_field(u, (uint64_t)t.seed, (uint32_t)t.copy, g);
    gauge_transform_apply(u, g);
    if (t.x.transform) gauge_transform_compose(u->nc, u->lat.V, t.x.transform, g);
    free(g);

    char results[256];
    snprintf(results, sizeof results, "seed=%lld copy=%d", t.seed, t.copy);
    lat_debug("random gauge transformation applied (seed %lld, copy %d)", t.seed, t.copy);
    struct report *rep = run_report_begin(t.format, t.x.c.name, &t.x.lat, t.x.nc, t.output);
    if (rep) { /* the plaquette is gauge invariant: the input's, a check */
        report_int(rep, "seed", t.seed);
        report_int(rep, "copy", t.copy);
        report_num(rep, "plaquette", measure_plaquette(u).all);
    }
    int status = gf_tool_finish(&t, results, LAT_OK);
    run_report_end(rep, t.format, t.output);
    return status;
}
