/* fourier/driver.c -- the iteration of Fourier-accelerated gauge fixing,
 * the same for every backend (fourier.h has the method and the contracts).
 * Exports fa_open, fa_close, fa_iterate.  It prints nothing: measurements
 * go to the observer (gaugefix/driver.h). */
#include "fourier/fourier.h"
#include "base/clock.h"
#include "base/comm.h"
#include "base/log.h"
#include "lattice/halo.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the largest step a line search may ask for: 8x the one (1/p^2_max) that
 * would remove a free field's modes at once */
#define ALPHA_MAX 0.5

struct fa_state *fa_open(const struct fa_backend *be, const struct field *u, const double *transform, char prec,
                         enum gauge_kind g, double **time_g)
{
    *time_g = gf_time_g_open(u, g);
    return be->create(u, *time_g ? *time_g : transform, prec, g);
}

void fa_close(const struct fa_backend *be, struct fa_state *st, struct field *u, double *transform, double *time_g)
{
    be->download(st, u, time_g ? time_g : transform);
    be->destroy(st);
    gf_time_g_close(u, transform, time_g);
}

/* the state of one independent problem: the whole lattice (Landau) or one
 * timeslice (Coulomb) */
struct group {
    double alpha;      /* the next step (sd: fixed; cg: Newton's, or this when there is no curvature) */
    double used;       /* the step taken last */
    double damp;       /* cg: the fraction of Newton's step taken (halved after a step that lowered F) */
    double dphi0;      /* slope along s where that step started */
    double dpd_old;    /* tr(Delta P Delta) of the previous iteration */
    double F_before;   /* F where that step started */
    double best;       /* smallest theta since the last (re)start */
    long last_gain;    /* iteration when best was last halved */
    long done_at;      /* iteration the group converged, -1 */
    int have_dir, active, stepped, backoffs;
};

struct loop {
    const struct fa_run *r;
    int nt, ng, coulomb;
    struct group *g;
    double *fsums, *dphi, *dots, *beta, *alpha, *agg, *slope_new;
    unsigned char *set;
    struct gauge_quality q;
};

/* per-slice values summed per group, slices in order */
static void aggregate(struct loop *L, const double *v, int stride, int off)
{
    for (int k = 0; k < L->ng; k++) L->agg[k] = 0;
    for (int t = 0; t < L->nt; t++) L->agg[L->coulomb ? t : 0] += v[stride * t + off];
}

static int group_of(const struct loop *L, int t) { return L->coulomb ? t : 0; }
static double group_F(const struct loop *L, int k) { return L->coulomb ? L->q.F_t[k] : L->q.F; }
static double group_theta(const struct loop *L, int k) { return L->coulomb ? L->q.theta_t[k] : L->q.theta; }

static void measure(struct loop *L, long it)
{
    const struct fa_run *r = L->r;
    r->be->gradient(r->st, L->fsums, L->dphi);
    gauge_quality_free(&L->q);
    gauge_quality_from_sums(&L->q, r->gauge, r->nc, r->glob.V, L->nt, L->fsums);
    if (!isfinite(L->q.F) || !isfinite(L->q.theta)) {
        if (r->obs.done) r->obs.done(r->obs.ctx);
        lat_die_all(1, NULL, "non-finite functional after %ld iterations (F %g, theta %g): the links hold NaN or infinity",
                    it, L->q.F, L->q.theta);
    }
}

void fa_iterate(const struct fa_run *r, const struct fa_opts *o, struct gf_result *res, int *restarts)
{
    memset(res, 0, sizeof *res);
    struct loop L;
    memset(&L, 0, sizeof L);
    L.r = r;
    L.nt = r->glob.L[3];
    L.coulomb = r->gauge == GAUGE_COULOMB;
    L.ng = L.coulomb ? L.nt : 1;
    L.g = lat_calloc((size_t)L.ng, sizeof *L.g);
    L.fsums = lat_calloc(2 * (size_t)L.nt, sizeof(double));
    L.dots = lat_calloc(2 * (size_t)L.nt, sizeof(double));
    L.dphi = lat_calloc((size_t)L.nt, sizeof(double));
    L.beta = lat_calloc((size_t)L.nt, sizeof(double));
    L.alpha = lat_calloc((size_t)L.nt, sizeof(double));
    L.agg = lat_calloc((size_t)L.ng, sizeof(double));
    L.slope_new = lat_calloc((size_t)L.ng, sizeof(double));
    L.set = lat_calloc((size_t)L.nt, 1);
    const double tolF = r->prec == 'd' ? 1e-14 : 1e-6; /* how much F may wobble by rounding alone */
    const int check = r->check_every > 0 ? r->check_every : 1;
    for (int k = 0; k < L.ng; k++) {
        L.g[k].alpha = o->alpha;
        L.g[k].damp = 1;
        L.g[k].best = INFINITY;
        L.g[k].done_at = -1;
        L.g[k].active = 1;
    }
    comm_barrier();
    const double t0 = lat_clock();
    const uint64_t halo0 = halo_bytes_sent();
    *restarts = 0;
    long it = 0;
    int converged = 0;
    measure(&L, 0);
    for (;;) {
        /* a step that lowered F went too far: back to half of it along the
         * same line (steps along one s compose exactly), up to 4 times;
         * each back-off is one step and one gradient, counted as an
         * iteration */
        int back = 0;
        for (int k = 0; k < L.ng; k++) L.g[k].backoffs = 0;
        do {
            back = 0;
            for (int t = 0; t < L.nt; t++) L.alpha[t] = 0;
            for (int k = 0; k < L.ng; k++) {
                struct group *g = &L.g[k];
                if (!g->stepped || !(group_F(&L, k) < g->F_before - tolF) || g->backoffs >= 4) continue;
                for (int t = 0; t < L.nt; t++)
                    if (group_of(&L, t) == k) L.alpha[t] = -g->used / 2;
                g->used /= 2;
                g->damp /= 2;
                g->backoffs++;
                back = 1;
            }
            if (back && it < o->max_iter) {
                r->be->step(r->st, L.alpha);
                it++;
                measure(&L, it);
            }
        } while (back && it < o->max_iter);
        int left = 0, stalled = 0, froze = 0;
        for (int k = 0; k < L.ng; k++) {
            struct group *g = &L.g[k];
            if (g->stepped && !g->backoffs && g->damp < 1) g->damp = 2 * g->damp < 1 ? 2 * g->damp : 1;
            if (g->stepped && group_F(&L, k) < g->F_before - tolF) { /* still lower: start afresh */
                g->have_dir = 0;
                if (!g->backoffs) g->damp /= 2;
            }
            g->stepped = 0;
            if (!g->active) continue;
            double th = group_theta(&L, k);
            if (th < o->theta) {
                g->active = 0;
                g->done_at = it;
                froze = 1;
                continue;
            }
            left++;
            if (th < 0.5 * g->best) {
                g->best = th;
                g->last_gain = it;
            } else if (it - g->last_gain >= o->stall) stalled = 1;
        }
        converged = left == 0;
        if (froze && L.coulomb && r->be->freeze) {
            for (int t = 0; t < L.nt; t++) L.set[t] = (unsigned char)L.g[t].active;
            r->be->freeze(r->st, L.set);
        }
        int last = converged || it >= o->max_iter || (stalled && *restarts >= o->restarts);
        if (r->obs.measured && (r->obs.history || it % check == 0 || last)) {
            struct gf_sample smp = {it, o->max_iter, L.q.F, L.q.theta, 0, 0, L.coulomb ? left : -1, lat_clock() - t0,
                                    it, (double)(o->max_iter - it), o->theta, converged, (double)r->glob.V};
            r->obs.measured(r->obs.ctx, &smp);
        }
        if (last) break;
        if (stalled) { /* a fresh random point of the orbit for the stalled groups */
            ++*restarts;
            for (int t = 0; t < L.nt; t++) {
                struct group *g = &L.g[group_of(&L, t)];
                L.set[t] = g->active && it - g->last_gain >= o->stall;
            }
            for (int k = 0; k < L.ng; k++) {
                struct group *g = &L.g[k];
                if (!g->active || it - g->last_gain < o->stall) continue;
                g->alpha = o->alpha;
                g->damp = 1;
                g->have_dir = 0;
                g->best = INFINITY;
                g->last_gain = it;
            }
            r->be->orbit(r->st, L.set, r->seed, r->copy, (uint32_t)*restarts);
            measure(&L, it);
            continue;
        }
        /* the direction */
        if (o->cg_beta == FA_BETA_HS) { /* the slope along the old s where the step ended */
            aggregate(&L, L.dphi, 1, 0);
            memcpy(L.slope_new, L.agg, sizeof(double) * (size_t)L.ng);
        }
        r->be->precondition(r->st, L.dots);
        aggregate(&L, L.dots, 2, 0);
        double *dpd = lat_malloc(sizeof(double) * (size_t)L.ng);
        memcpy(dpd, L.agg, sizeof(double) * (size_t)L.ng);
        aggregate(&L, L.dots, 2, 1);
        for (int t = 0; t < L.nt; t++) {
            struct group *g = &L.g[group_of(&L, t)];
            int k = group_of(&L, t);
            L.set[t] = g->active;
            L.beta[t] = 0;
            if (o->method == FA_CG && g->have_dir && g->dpd_old > 0) {
                /* Polak-Ribiere; Hestenes-Stiefel: the same numerator over the
                 * change of the slope along s across the step (Polak-Ribiere's
                 * denominator where that change is not a drop); clipped at 0 */
                double drop = o->cg_beta == FA_BETA_HS ? g->dphi0 - L.slope_new[k] : 0;
                double b = (dpd[k] - L.agg[k]) / (drop > 0 ? drop : g->dpd_old);
                L.beta[t] = b > 0 ? b : 0;
            }
        }
        for (int k = 0; k < L.ng; k++) L.g[k].dpd_old = dpd[k];
        free(dpd);
        r->be->direction(r->st, L.set, L.beta, L.dphi);
        aggregate(&L, L.dphi, 1, 0);
        int reset = 0;
        for (int t = 0; t < L.nt; t++) {
            int k = group_of(&L, t);
            L.set[t] = L.g[k].active && L.beta[t] > 0 && !(L.agg[k] > 0); /* not uphill: along P Delta */
            reset |= L.set[t];
            L.beta[t] = 0;
        }
        if (reset) {
            r->be->direction(r->st, L.set, L.beta, L.dphi);
            aggregate(&L, L.dphi, 1, 0);
        }
        double *slope = lat_malloc(sizeof(double) * (size_t)L.ng);
        memcpy(slope, L.agg, sizeof(double) * (size_t)L.ng);
        if (o->method == FA_CG) { /* Newton along s: alpha = -phi'(0)/phi''(0) */
            r->be->curvature(r->st, L.alpha);
            aggregate(&L, L.alpha, 1, 0);
            for (int k = 0; k < L.ng; k++) {
                struct group *g = &L.g[k];
                if (g->active && L.agg[k] < 0 && slope[k] > 0) {
                    double a = -g->damp * slope[k] / L.agg[k];
                    g->alpha = a < ALPHA_MAX ? a : ALPHA_MAX;
                }
            }
        }
        for (int t = 0; t < L.nt; t++) {
            struct group *g = &L.g[group_of(&L, t)];
            L.alpha[t] = g->active ? g->alpha : 0;
        }
        for (int k = 0; k < L.ng; k++) {
            struct group *g = &L.g[k];
            if (!g->active) continue;
            g->have_dir = 1;
            g->used = g->alpha;
            g->dphi0 = slope[k];
            g->F_before = group_F(&L, k);
            g->stepped = 1;
        }
        free(slope);
        r->be->step(r->st, L.alpha);
        it++;
        if (r->reunitarize_every > 0 && it % r->reunitarize_every == 0) r->be->reunitarize(r->st);
        measure(&L, it);
    }
    if (r->obs.done) r->obs.done(r->obs.ctx);
    res->iterations = res->sweeps = it;
    res->converged = converged;
    res->seconds = lat_clock() - t0;
    double hb = (double)(halo_bytes_sent() - halo0);
    comm_sum(&hb, 1);
    res->halo_bytes = hb;
    res->F = L.q.F;
    res->theta = L.q.theta;
    res->nt = L.q.nt;
    res->F_t = L.q.F_t;
    res->theta_t = L.q.theta_t;
    if (L.coulomb) {
        res->iter_t = lat_malloc(sizeof(long) * (size_t)L.nt);
        for (int t = 0; t < L.nt; t++) res->iter_t[t] = L.g[t].done_at;
    }
    free(L.g);
    free(L.fsums);
    free(L.dots);
    free(L.dphi);
    free(L.beta);
    free(L.alpha);
    free(L.agg);
    free(L.slope_new);
    free(L.set);
}
