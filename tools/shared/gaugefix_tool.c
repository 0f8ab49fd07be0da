/* gaugefix_tool.c -- option checks, reading, backend choice, logging and
 * writing shared by lat-randomize-orbit, lat-overrelax and lat-anneal; see
 * gaugefix_tool.h for the order of calls and the error contract. */
#include "shared/gaugefix_tool.h"
#include "base/comm.h"
#include "gpu/gpu.h"
#include "base/lat.h"
#include "base/log.h"
#include "lattice/observables.h"
#include "base/output.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char log_created[4096];
static FILE *log_file;

static void remove_log(void)
{
    if (log_file) fclose(log_file);
    log_file = NULL;
    if (*log_created) unlink(log_created);
    *log_created = 0;
}

void gf_tool_init(struct gf_tool *t)
{
    memset(t, 0, sizeof *t);
    t->seed = 1;
    t->precision = "double";
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
    t->prec = t->precision[0] == 's' ? 's' : t->precision[0] == 'm' ? 'm' : 'd';
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
    const char *dev = t->device;
    const char *env = getenv("LAT_DEVICE");
    int explicit_gpu = (dev && strcmp(dev, "gpu") == 0) || (!dev && env && strcmp(env, "gpu") == 0);
    t->be = &gf_backend_cpu;
    /* under mpirun (t->x.dom) the GPU runs slabs with a halo exchange
     * (kernels/gpu_halo.cu) when asked for; --device auto keeps the CPU
     * there: the GPU slabs want one GPU per rank and Lt/R even, which auto
     * cannot know the user meant (measured: docs/PERFORMANCE.md) */
    if (t->x.dom && !explicit_gpu && backend_choose(dev) == BACKEND_GPU)
        lat_info("note: under mpirun --device auto uses the CPU backend (--device gpu for one GPU per rank)");
    if ((!t->x.dom || explicit_gpu) && backend_choose(dev) == BACKEND_GPU) {
#ifdef LAT_HAVE_CUDA
        /* the CUDA backend has SU(2) and SU(3) kernels */
        if (u->nc == 2 || u->nc == 3) t->be = &gf_backend_gpu;
        else if (explicit_gpu) lat_die(1, NULL, "--device gpu: the CUDA backend has no SU(%d) kernels (use --device cpu)", u->nc);
        else lat_info("note: the CUDA backend has no SU(%d) kernels: using the CPU backend", u->nc);
#else
        if (explicit_gpu) lat_die(1, NULL, "--device gpu: GPU gauge fixing is not built (use --device cpu)");
#endif
    }
    /* Default reprojection.  The CPU keeps 18 reals per link: in double
     * unitarity stays at ~1e-15 (never), single and mixed drift slowly (every
     * 100 sweeps).  The GPU keeps two rows and rebuilds the third from their
     * cross product, which multiplies the rows' norm errors: where g(x) is far
     * from 1 (annealing, microcanonical steps, the first OR sweeps) the
     * deviation grows ~1.2x per sweep (measured with the kernels emulated on
     * the host), from 1e-7 in single to NaN within ~100 sweeps; every 10
     * sweeps bounds it to ~6x rounding in every precision for ~5 % of the
     * sweep time (a reprojection moves half a sweep's bytes). */
    if (t->reunitarize_every < 0) t->reunitarize_every = t->be != &gf_backend_cpu ? 10 : t->prec == 'd' ? 0 : 100;
    t->st = gf_open(t->be, u, t->x.transform, t->prec, gauge, &t->time_g);
    if (t->log_path && comm_is_root()) {
        if (strlen(t->log_path) >= sizeof log_created) lat_die(1, t->log_path, "log path too long");
        if (access(t->log_path, F_OK) != 0) snprintf(log_created, sizeof log_created, "%s", t->log_path);
        out_guard(OUT_GUARD_LOG, log_created); /* gone if mpirun kills this rank */
        lat_on_die(remove_log);
        t->log = fopen(t->log_path, "w");
        if (!t->log) lat_die(1, t->log_path, "cannot open the log: %s", strerror(errno));
        log_file = t->log;
    }
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
    run->log = t->log;
    run->label = lat_progname;
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
    lat_debug("halo exchange while iterating: %.0f bytes sent by all ranks", res->halo_bytes);
    const char *state = res->converged > 0 ? "converged after" : res->converged == 0 ? "NOT converged after" : "done:";
    lat_info("%s gauge, %s: %s %ld %s (%.2f s): F = %.12f, theta = %.3e", gauge_kind_name(gauge), what, state,
             res->iterations, res->converged < 0 && res->sweeps != res->iterations ? "steps" : "sweeps",
             res->seconds, res->F, res->theta);
    if (lat_verbosity > 0)
        for (int k = 0; k < res->nt; k++)
            lat_debug("  t=%d  F_t = %.12f  theta_t = %.3e  sweeps %ld", k, res->F_t[k], res->theta_t[k],
                      res->iter_t ? res->iter_t[k] : -1L);
}

int gf_tool_finish(struct gf_tool *t, const char *results, int status)
{
    if (t->st) {
        gf_close(t->be, t->st, t->x.u, t->x.transform, t->time_g);
        t->st = NULL;
        t->time_g = NULL;
    }
    if (t->log) {
        if (fclose(t->log) != 0) lat_die(1, t->log_path, "write failed");
        t->log = log_file = NULL;
    }
    struct conf_write_opts wo = {0};
    dist_write(&t->x, t->output, &wo, results);
    *log_created = 0; /* complete: keep the log */
    dist_free(&t->x);
    return status;
}
