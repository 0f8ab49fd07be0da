/* gaugefix/driver.c -- the iteration of lat-overrelax and lat-anneal, the
 * same for every backend: stopping rule (Coulomb per timeslice), annealing
 * schedule, reunitarization; measurements reach the tool through the run's
 * observer (no output of its own).  Exports gf_open, gf_close, gf_relax,
 * gf_anneal, gf_anneal_temperature, gf_result_free: see driver.h for the
 * contracts. */
#include "gaugefix/driver.h"
#include "base/clock.h"
#include "base/comm.h"
#include "lattice/geometry.h"
#include "lattice/gauge_transform.h"
#include "base/log.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void report(const struct gf_run *r, const struct gf_sample *smp)
{
    if (r->obs.measured) r->obs.measured(r->obs.ctx, smp);
}

static void report_done(const struct gf_run *r)
{
    if (r->obs.done) r->obs.done(r->obs.ctx);
}

/* Every measurement is checked: a NaN or infinity in F or theta (non-finite
 * links: a broken input or a kernel fault) stops the run with one line,
 * instead of iterating on NaN (theta < eps is never true) to --max-iter. */
static void measure_at(const struct gf_run *r, struct gauge_quality *q, long step)
{
    r->be->measure(r->st, r->gauge, q);
    if (!isfinite(q->F) || !isfinite(q->theta)) {
        report_done(r); /* end the progress line */
        /* every rank measured the same F and theta: all stop alike */
        lat_die_all(1, NULL, "non-finite functional after %ld sweeps (F %g, theta %g): the links hold NaN or infinity",
                step, q->F, q->theta);
    }
}

double *gf_time_g_open(const struct field *u, enum gauge_kind g)
{
    if (g != GAUGE_COULOMB) return NULL;
    double *time_g = lat_malloc((size_t)u->lat.V * field_link_reals(u->nc) * sizeof(double));
    gauge_transform_identity(u->nc, u->lat.V, time_g);
    return time_g;
}

void gf_time_g_close(struct field *u, double *transform, double *time_g)
{
    if (!time_g) return;
    gauge_transform_apply_time(u, time_g);
    if (transform) gauge_transform_compose(u->nc, u->lat.V, transform, time_g);
    free(time_g);
}

struct gf_state *gf_open(const struct gf_backend *be, const struct field *u, const double *transform,
                         char prec, enum gauge_kind g, double **time_g)
{
    *time_g = gf_time_g_open(u, g);
    return be->create(u, *time_g ? *time_g : transform, prec);
}

void gf_close(const struct gf_backend *be, struct gf_state *st, struct field *u, double *transform,
              double *time_g)
{
    be->download(st, u, time_g ? time_g : transform);
    be->destroy(st);
    gf_time_g_close(u, transform, time_g);
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
    if (r->be->inject_fault) r->be->inject_fault();
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

void gf_relax(const struct gf_run *r, const struct gf_relax_opts *o, struct gf_result *res)
{
    memset(res, 0, sizeof *res);
    const int coulomb = r->gauge == GAUGE_COULOMB;
    const int micro = o->update == GF_MICRO;
    const int nt = r->lat.L[3];
    const int check = r->check_every > 0 ? r->check_every : 1;
    struct gf_params p = {r->gauge, o->update, o->omega, o->p, 0};
    unsigned char *active = coulomb ? lat_malloc((size_t)nt) : NULL;
    long *iter_t = coulomb ? lat_malloc((size_t)nt * sizeof(long)) : NULL;
    comm_barrier(); /* timings start when every rank is ready */
    double t0 = lat_clock();
    const uint64_t halo0 = halo_bytes_sent();

    struct gauge_quality q;
    measure_at(r, &q, 0);
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
    struct gf_sample smp = {0, o->max_iter, q.F, q.theta, 0, 0, coulomb ? left : -1, 0.0,
                            0, (double)o->max_iter, micro ? 0 : o->theta, converged, (double)r->lat.V};
    report(r, &smp);
    while (!converged && it < o->max_iter) {
        r->be->sweep(r->st, &p, r->seed, r->copy, (uint32_t)it, active);
        it++;
        fault_hook(r, it);
        if (r->reunitarize_every > 0 && it % r->reunitarize_every == 0) r->be->reunitarize(r->st);
        if (it % check == 0 || it == o->max_iter) {
            gauge_quality_free(&q);
            measure_at(r, &q, it);
            EVALUATE();
            smp.step = smp.sweeps = it;
            smp.F = q.F;
            smp.theta = q.theta;
            smp.slices_left = coulomb ? left : -1;
            smp.seconds = lat_clock() - t0;
            smp.sweeps_left = (double)(o->max_iter - it);
            smp.converged = converged;
            report(r, &smp);
        }
    }
#undef EVALUATE
    report_done(r);
    res->iterations = it;
    res->sweeps = it;
    res->converged = micro ? -1 : converged;
    res->seconds = lat_clock() - t0;
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
    /* measuring costs a reduction: only when someone looks */
    const int want = r->obs.history || r->obs.progress;
    struct gf_params hb = {r->gauge, GF_ANNEAL, 1, 0, 0};
    struct gf_params mc = {r->gauge, GF_MICRO, 2, 0, 0};
    comm_barrier(); /* timings start when every rank is ready */
    double t0 = lat_clock();
    const uint64_t halo0 = halo_bytes_sent();
    long sweeps = 0;
    struct gauge_quality q = {0};
    struct gf_sample smp = {0, o->steps, 0, 0, 1, gf_anneal_temperature(o, 0), -1, 0.0,
                            0, 0, 0, 0, (double)r->lat.V};
    if (r->obs.history) {
        measure_at(r, &q, 0);
        smp.F = q.F;
        smp.theta = q.theta;
        smp.sweeps_left = (double)o->steps * (1 + o->micro);
        report(r, &smp);
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
            smp.step = k + 1;
            smp.F = q.F;
            smp.theta = q.theta;
            smp.temperature = hb.temperature;
            smp.seconds = lat_clock() - t0;
            smp.sweeps = sweeps;
            smp.sweeps_left = (double)(o->steps - k - 1) * (1 + o->micro);
            report(r, &smp);
            gauge_quality_free(&q);
        }
    }
    if (r->reunitarize_every > 0 && sweeps % r->reunitarize_every != 0) r->be->reunitarize(r->st);
    report_done(r);
    measure_at(r, &q, sweeps);
    res->iterations = o->steps;
    res->sweeps = sweeps;
    res->converged = -1;
    res->seconds = lat_clock() - t0;
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
