/* gaugefix_driver.c -- the iteration of lat-overrelax and lat-anneal, the
 * same for every backend: stopping rule (Coulomb per timeslice), annealing
 * schedule, reunitarization, TSV log and progress line.  See
 * gaugefix_driver.h for the contract. */
#include "gaugefix/driver.h"
#include "base/cli.h"
#include "base/comm.h"
#include "lattice/geometry.h"
#include "lattice/gauge_transform.h"
#include "gpu/gpu.h"
#include "base/log.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void format_eta(char *buf, size_t len, double sec)
{
    if (!(sec >= 0) || sec > 1e8) { snprintf(buf, len, "?"); return; }
    long s = (long)(sec + 0.5);
    if (s >= 3600) snprintf(buf, len, "%ldh%02ldm", s / 3600, (s / 60) % 60);
    else if (s >= 60) snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
    else snprintf(buf, len, "%lds", s);
}

static void progress(const struct gf_run *r, long step, long total, const struct gauge_quality *q, double temp,
                     double rate, double eta)
{
    char e[32];
    format_eta(e, sizeof e, eta);
    fprintf(stderr, "\r%s: %s step %ld/%ld  F %.12f  theta %.3e", r->label ? r->label : lat_progname,
            gauge_kind_name(r->gauge), step, total, q->F, q->theta);
    if (temp > 0) fprintf(stderr, "  T %.4g", temp);
    fprintf(stderr, "  %.3g Msite/s  ETA %s\033[K", rate * 1e-6, e);
    fflush(stderr);
}

/* Every measurement is checked: a NaN or infinity in F or theta (non-finite
 * links: a broken input or a kernel fault) stops the run with one line,
 * instead of iterating on NaN (theta < eps is never true) to --max-iter. */
static void measure_at(const struct gf_run *r, struct gauge_quality *q, long step)
{
    r->be->measure(r->st, r->gauge, q);
    if (!isfinite(q->F) || !isfinite(q->theta)) {
        if (cli_show_progress()) fputc('\n', stderr); /* end the progress line */
        /* every rank measured the same F and theta: all stop alike */
        lat_die_all(1, NULL, "non-finite functional after %ld sweeps (F %g, theta %g): the links hold NaN or infinity",
                step, q->F, q->theta);
    }
}

struct gf_state *gf_open(const struct gf_backend *be, const struct field *u, const double *transform,
                         char prec, enum gauge_kind g, double **time_g)
{
    *time_g = NULL;
    if (g == GAUGE_COULOMB) {
        *time_g = lat_malloc((size_t)u->lat.V * field_link_reals(u->nc) * sizeof(double));
        gauge_transform_identity(u->nc, u->lat.V, *time_g);
    }
    return be->create(u, *time_g ? *time_g : transform, prec);
}

void gf_close(const struct gf_backend *be, struct gf_state *st, struct field *u, double *transform,
              double *time_g)
{
    be->download(st, u, time_g ? time_g : transform);
    be->destroy(st);
    if (!time_g) return;
    gauge_transform_apply_time(u, time_g);
    if (transform) gauge_transform_compose(u->nc, u->lat.V, transform, time_g);
    free(time_g);
}

/* Tests only: LAT_FAULT_AT=R:N makes rank R fail after sweep N -- on the
 * GPU backend by a real device fault (gpu_inject_fault), on the CPU by a
 * die -- so that tests can see every rank stop, with nothing written, when
 * one rank breaks in the middle of a run (tests/mpi.bats, scripts/gpu-mpi-
 * experiment). */
static void fault_hook(const struct gf_run *r, long sweeps)
{
    static int rank = -2;
    static long at;
    if (rank == -2) {
        const char *e = getenv("LAT_FAULT_AT");
        rank = -1;
        if (e && sscanf(e, "%d:%ld", &rank, &at) != 2) rank = -1;
    }
    if (rank != comm_rank() || sweeps != at) return;
    if (strcmp(r->be->name, "gpu") == 0) gpu_inject_fault();
    else lat_die(1, NULL, "rank %d: fault injected after %ld sweeps (LAT_FAULT_AT)", rank, sweeps);
}

/* the halo bytes every rank sent since halo0 (this rank's count then) */
static double halo_since(uint64_t halo0)
{
    double b = (double)(halo_bytes_sent() - halo0);
    comm_sum(&b, 1);
    return b;
}

static void take_result(struct gf_result *res, struct gauge_quality *q)
{
    res->F = q->F;
    res->theta = q->theta;
    res->nt = q->nt;
    res->F_t = q->F_t;
    res->theta_t = q->theta_t;
    q->F_t = q->theta_t = NULL;
    q->nt = 0;
}

static void log_flush(FILE *log)
{
    if (log && (fflush(log) != 0 || ferror(log))) lat_die(1, "--log", "write failed");
}

void gf_relax(const struct gf_run *r, const struct gf_relax_opts *o, struct gf_result *res)
{
    memset(res, 0, sizeof *res);
    const int coulomb = r->gauge == GAUGE_COULOMB;
    const int micro = o->update == GF_MICRO;
    const int nt = r->lat.L[3];
    const int check = r->check_every > 0 ? r->check_every : 1;
    const int show = cli_show_progress();
    struct gf_params p = {r->gauge, o->update, o->omega, o->p, 0};
    unsigned char *active = coulomb ? lat_malloc((size_t)nt) : NULL;
    long *iter_t = coulomb ? lat_malloc((size_t)nt * sizeof(long)) : NULL;
    comm_barrier(); /* timings start when every rank is ready */
    double t0 = now();
    const uint64_t halo0 = halo_bytes_sent();

    struct gauge_quality q;
    measure_at(r, &q, 0);
    if (r->log) {
        fprintf(r->log, "step\tfunctional\ttheta\tseconds%s\n", coulomb ? "\tslices_left" : "");
    }
    long it = 0;
    int converged = 0, left = 0;
    /* evaluate the stopping rule on q; returns 1 when done */
#define EVALUATE()                                                                     \
    do {                                                                               \
        if (micro) break;                                                              \
        if (coulomb) {                                                                 \
            left = 0;                                                                  \
            for (int t = 0; t < nt; t++) {                                             \
                /* a finished slice is updated again when a reprojection \
                 * (single/mixed) has pushed its theta_t back up */      \
                if (q.theta_t[t] >= o->theta) active[t] = 1;                           \
                else if (active[t]) { active[t] = 0; iter_t[t] = it; }                 \
                left += active[t];                                                     \
            }                                                                          \
            converged = left == 0;                                                     \
        } else converged = q.theta < o->theta;                                         \
    } while (0)
    if (coulomb) {
        memset(active, 1, (size_t)nt);
        for (int t = 0; t < nt; t++) iter_t[t] = -1;
    }
    EVALUATE();
    if (r->log) {
        fprintf(r->log, "0\t%.15g\t%.15g\t%.6f", q.F, q.theta, 0.0);
        if (coulomb) fprintf(r->log, "\t%d", left);
        fputc('\n', r->log);
        log_flush(r->log);
    }
    double prev_theta = q.theta, prev_t = t0;
    long prev_it = 0;
    while (!converged && it < o->max_iter) {
        r->be->sweep(r->st, &p, r->seed, r->copy, (uint32_t)it, active);
        it++;
        fault_hook(r, it);
        if (r->reunitarize_every > 0 && it % r->reunitarize_every == 0) r->be->reunitarize(r->st);
        if (it % check == 0 || it == o->max_iter) {
            gauge_quality_free(&q);
            measure_at(r, &q, it);
            EVALUATE();
            double t = now();
            if (r->log) {
                fprintf(r->log, "%ld\t%.15g\t%.15g\t%.6f", it, q.F, q.theta, t - t0);
                if (coulomb) fprintf(r->log, "\t%d", left);
                fputc('\n', r->log);
                log_flush(r->log);
            }
            if (show) {
                double per_sweep = (t - prev_t) / (double)(it - prev_it);
                double rate = per_sweep > 0 ? (double)r->lat.V / per_sweep : 0;
                double eta = (double)(o->max_iter - it) * per_sweep;
                if (!micro && q.theta > 0 && prev_theta > q.theta) {
                    double slope = (log(prev_theta) - log(q.theta)) / (double)(it - prev_it);
                    double need = (log(q.theta) - log(o->theta)) / slope;
                    if (need < (double)(o->max_iter - it)) eta = need * per_sweep;
                }
                progress(r, it, o->max_iter, &q, 0, rate, converged ? 0 : eta);
            }
            prev_theta = q.theta;
            prev_t = t;
            prev_it = it;
        }
    }
#undef EVALUATE
    if (show) fputc('\n', stderr);
    res->iterations = it;
    res->sweeps = it;
    res->converged = micro ? -1 : converged;
    res->seconds = now() - t0;
    res->halo_bytes = halo_since(halo0);
    take_result(res, &q);
    res->iter_t = iter_t;
    free(active);
}

double gf_anneal_temperature(const struct gf_anneal_opts *o, long k)
{
    if (o->steps <= 1) return o->tmax;
    double f = (double)k / (double)(o->steps - 1);
    if (o->geometric) return o->tmax * pow(o->tmin / o->tmax, f);
    return o->tmax + (o->tmin - o->tmax) * f;
}

void gf_anneal(const struct gf_run *r, const struct gf_anneal_opts *o, struct gf_result *res)
{
    memset(res, 0, sizeof *res);
    const int check = r->check_every > 0 ? r->check_every : 1;
    const int show = cli_show_progress();
    const int want = show || r->log;
    struct gf_params hb = {r->gauge, GF_ANNEAL, 1, 0, 0};
    struct gf_params mc = {r->gauge, GF_MICRO, 2, 0, 0};
    comm_barrier(); /* timings start when every rank is ready */
    double t0 = now(), prev_t = t0;
    const uint64_t halo0 = halo_bytes_sent();
    long sweeps = 0, prev_sweeps = 0;
    struct gauge_quality q = {0};
    if (r->log) {
        measure_at(r, &q, 0);
        fprintf(r->log, "step\tfunctional\ttheta\ttemperature\tseconds\n");
        fprintf(r->log, "0\t%.15g\t%.15g\t%.9g\t%.6f\n", q.F, q.theta, gf_anneal_temperature(o, 0), 0.0);
        log_flush(r->log);
        gauge_quality_free(&q);
    }
    for (long k = 0; k < o->steps; k++) {
        hb.temperature = gf_anneal_temperature(o, k);
        uint32_t base = (uint32_t)(k * (1 + o->micro));
        r->be->sweep(r->st, &hb, r->seed, r->copy, base, NULL);
        sweeps++;
        if (r->reunitarize_every > 0 && sweeps % r->reunitarize_every == 0) r->be->reunitarize(r->st);
        for (int m = 1; m <= o->micro; m++) {
            r->be->sweep(r->st, &mc, r->seed, r->copy, base + (uint32_t)m, NULL);
            sweeps++;
            if (r->reunitarize_every > 0 && sweeps % r->reunitarize_every == 0) r->be->reunitarize(r->st);
        }
        if (want && ((k + 1) % check == 0 || k + 1 == o->steps)) {
            measure_at(r, &q, sweeps);
            double t = now();
            if (r->log) {
                fprintf(r->log, "%ld\t%.15g\t%.15g\t%.9g\t%.6f\n", k + 1, q.F, q.theta, hb.temperature, t - t0);
                log_flush(r->log);
            }
            if (show) {
                double per_sweep = (t - prev_t) / (double)(sweeps - prev_sweeps);
                double rate = per_sweep > 0 ? (double)r->lat.V / per_sweep : 0;
                double eta = (double)(o->steps - k - 1) * (1 + o->micro) * per_sweep;
                progress(r, k + 1, o->steps, &q, hb.temperature, rate, eta);
            }
            gauge_quality_free(&q);
            prev_t = t;
            prev_sweeps = sweeps;
        }
    }
    if (r->reunitarize_every > 0 && sweeps % r->reunitarize_every != 0) r->be->reunitarize(r->st);
    if (show) fputc('\n', stderr);
    measure_at(r, &q, sweeps);
    res->iterations = o->steps;
    res->sweeps = sweeps;
    res->converged = -1;
    res->seconds = now() - t0;
    res->halo_bytes = halo_since(halo0);
    take_result(res, &q);
}

void gf_result_free(struct gf_result *res)
{
    free(res->F_t);
    free(res->theta_t);
    free(res->iter_t);
    res->F_t = res->theta_t = NULL;
    res->iter_t = NULL;
    res->nt = 0;
}
