/* gaugefix_tool.c -- option checks, reading, backend choice (device_opt.h),
 * the run's observer (progress.h) and writing, shared by
 * lat-randomize-orbit, lat-overrelax and lat-anneal.  Exports the gf_tool_*
 * functions; gaugefix_tool.h has the order of calls and the error contract. */
#include "shared/gaugefix_tool.h"
#include "base/comm.h"
#include "base/lat.h"
#include "base/log.h"
#include "lattice/observables.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void gf_tool_init(struct gf_tool *t)
{
    memset(t, 0, sizeof *t);
    t->seed = 1;
    t->precision = "double";
    t->format = "text";
    t->links = "12";
    t->check_every = 0;
}

const char *gf_tool_operand(int argc, char **argv, int first)
{
    if (argc - first > 1) cli_usage_error("one INPUT at most (got %d)", argc - first);
    return first < argc ? argv[first] : NULL;
}

static int is_stdout(const char *p) { return !p || strcmp(p, "-") == 0; }

void gf_tool_validate(struct gf_tool *t, const struct cli_opt *opts)
{
    if (t->seed < 0) cli_usage_error("--seed: must be >= 0 (got %lld)", t->seed);
    if (t->copy < 0 || t->copy >= (1 << 24)) cli_usage_error("--copy: must be in 0..16777215 (got %d)", t->copy);
    if (t->unitarity_tol < 0) cli_usage_error("--unitarity-tol: must be >= 0 (got %g)", t->unitarity_tol);
    t->prec = device_opt_precision(t->precision);
    if (strcmp(t->links, "8") == 0 && t->prec == 'd')
        cli_usage_error("--links 8 stores links in single precision: use --precision single or mixed");
    /* the default depends on the backend: gf_tool_backend sets it */
    if (!cli_given(opts, "reunitarize-every")) t->reunitarize_every = -1;
    else if (t->reunitarize_every < 0) cli_usage_error("--reunitarize-every: must be >= 0 (got %d)", t->reunitarize_every);
    if (t->log_path) {
        if (!*t->log_path) cli_usage_error("--log: empty file name");
        if (!is_stdout(t->output) && strcmp(t->log_path, t->output) == 0)
            cli_usage_error("--log and -o name the same file '%s'", t->output);
        if (strcmp(t->log_path, "-") == 0 && is_stdout(t->output))
            cli_usage_error("--log -: standard output already carries the configuration");
    }
    run_report_validate(t->format, t->output, t->log_path);
    if (is_stdout(t->output) && comm_stdout_is_terminal())
        lat_die(1, "standard output", "refusing to write a binary configuration to a terminal (use -o FILE or a pipe)");
}

/* on every rank, once the slabs are in place (dist.h) */
static void check_input(struct dist *x, void *arg)
{
    const struct gf_tool *t = arg;
    const char *name = x->c.name;
    if (x->nc < 2 || x->nc > LAT_NC_MAX)
        lat_die_all(1, name, "SU(%d) configurations are not supported (N = 2..%d)", x->nc, LAT_NC_MAX);
    double tol = t->unitarity_tol > 0 ? t->unitarity_tol : x->c.file_prec == 32 ? 1e-5 : 1e-10;
    struct unitarity un = measure_unitarity(x->u);
    if (!(un.max <= tol) || !(un.det_max <= tol))
        lat_die_all(1, name,
                    "links are not in SU(%d): max ||U^dag U - 1|| = %.3g, max |det U - 1| = %.3g, tolerance %.3g "
                    "(lat-unitarity can reproject; --unitarity-tol sets the tolerance)",
                    x->nc, un.max, un.det_max, tol);
}

void gf_tool_read(struct gf_tool *t, const char *input)
{
    dist_read(&t->x, input, check_input, t);
    if (t->track) dist_transform_start(&t->x);
}

void gf_tool_backend(struct gf_tool *t, enum gauge_kind gauge)
{
    const struct field *u = t->x.u;
    if (gauge == GAUGE_COULOMB && t->x.lat.L[3] % 2)
        lat_die_all(1, t->x.c.name, "Coulomb gauge needs an even number of timeslices (Lt = %d)", t->x.lat.L[3]);
    struct device_choice dc = device_opt_choose(t->device);
    const struct gf_backend *g = gf_backend_for(BACKEND_GPU);
    struct device_caps gpu = {"gauge-fixing", g != NULL, g ? g->min_nc : 0, g ? g->max_nc : 0};
    t->be = device_opt_fits(&dc, &gpu, u->nc) ? g : &gf_backend_cpu;
    if (strcmp(t->links, "8") == 0) {
        if (u->nc != 3) lat_die_all(1, t->x.c.name, "--links 8: 8-real links are for SU(3), this is SU(%d)", u->nc);
        if (!t->be->set_link_reals)
            lat_info("--links 8: the %s backend stores whole matrices; the option does nothing there", t->be->name);
        else t->be->set_link_reals(8);
    }
    if (t->reunitarize_every < 0) t->reunitarize_every = gf_backend_default_reunitarize(t->be, t->prec);
    t->st = gf_open(t->be, u, t->x.transform, t->prec, gauge, &t->time_g);
    gf_tool_progress(t);
}

void gf_tool_progress(struct gf_tool *t)
{
    progress_init(&t->progress, lat_progname);
    if (t->log_path && comm_is_root()) progress_log_open(&t->progress, t->log_path, PROGRESS_LOG_GUARDED);
}

void gf_tool_run(struct gf_tool *t, enum gauge_kind gauge, struct gf_run *run)
{
    memset(run, 0, sizeof *run);
    run->be = t->be;
    run->st = t->st;
    run->lat = t->x.lat;
    run->gauge = gauge;
    run->seed = (uint64_t)t->seed;
    run->copy = (uint32_t)t->copy;
    run->reunitarize_every = t->reunitarize_every;
    run->check_every = t->check_every;
    run->obs = progress_gf_observer(&t->progress, gauge, t->progress.log != NULL);
}

void gf_tool_describe(char *buf, size_t len, const struct gf_result *res)
{
    size_t u = strlen(buf);
    if (u >= len) return;
    u += (size_t)snprintf(buf + u, len - u, "%sF=%.15g theta=%.6g iterations=%ld sweeps=%ld", u ? " " : "", res->F,
                          res->theta, res->iterations, res->sweeps);
    if (u < len && res->nt > 0) {
        double mx = 0;
        for (int k = 0; k < res->nt; k++)
            if (res->theta_t[k] > mx) mx = res->theta_t[k];
        u += (size_t)snprintf(buf + u, len - u, " theta_t_max=%.6g", mx);
    }
    if (u < len && res->converged >= 0)
        snprintf(buf + u, len - u, " converged=%s", res->converged ? "yes" : "no");
}

void gf_tool_summary(const char *what, enum gauge_kind gauge, const struct gf_result *res)
{
    gf_tool_summary_in(what, res->converged < 0 && res->sweeps != res->iterations ? "steps" : "sweeps", gauge, res);
}

void gf_tool_summary_in(const char *what, const char *unit, enum gauge_kind gauge, const struct gf_result *res)
{
    lat_debug("halo exchange while iterating: %.0f bytes sent by all ranks", res->halo_bytes);
    const char *state = res->converged > 0 ? "converged after" : res->converged == 0 ? "NOT converged after" : "done:";
    lat_info("%s gauge, %s: %s %ld %s (%.2f s): F = %.12f, theta = %.3e", gauge_kind_name(gauge), what, state,
             res->iterations, unit, res->seconds, res->F, res->theta);
    if (lat_verbosity > 0)
        for (int k = 0; k < res->nt; k++)
            lat_debug("  t=%d  F_t = %.12f  theta_t = %.3e  %s %ld", k, res->F_t[k], res->theta_t[k], unit,
                      res->iter_t ? res->iter_t[k] : -1L);
}

int gf_tool_finish(struct gf_tool *t, const char *results, int status)
{
    if (t->st) {
        gf_close(t->be, t->st, t->x.u, t->x.transform, t->time_g);
        t->st = NULL;
        t->time_g = NULL;
    }
    progress_log_close(&t->progress);
    struct conf_write_opts wo = {0};
    dist_write(&t->x, t->output, &wo, results);
    progress_log_keep(&t->progress); /* complete: keep the log */
    dist_free(&t->x);
    return status;
}
