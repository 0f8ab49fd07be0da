/* hmc/staggered_monomial_impl.c -- what the host callbacks
 * (staggered_monomial.c) and the device callbacks
 * (staggered_monomial_gpu.c) of the staggered monomial share:
 * stag_mono_account and stag_mono_action_total (contracts in
 * staggered_monomial_impl.h).  Below both files: the device one calls
 * nothing of the host one, which only picks the device callbacks. */
#include "hmc/staggered_monomial_impl.h"
#include "base/clock.h"
#include "base/log.h"
#include <stdlib.h>

static const char WHO[] = "staggered monomial";

static void check_solve(enum solver_status st, const struct solver_result *res, double tol, const char *what)
{
    if (st != SOLVER_CONVERGED)
        lat_die(1, WHO, "the %s solve did not converge (%s after %d iterations, residual %.3g, wanted %.3g)", what,
                solver_status_name(st), res->iterations, res->residual, tol);
}

/* after a multi-shift solve: the iterations (the most of any shift), each
 * shift converged, the seconds since t0 (the MD rational's or the others');
 * the device callbacks use it too */
void stag_mono_account(struct stag_mono *c, const struct rational *r, const struct solver_result *res, double tol,
                    const char *what, double t0)
{
    int most = 0;
    for (int i = 0; i < r->order; i++) most = res[i].iterations > most ? res[i].iterations : most;
    c->iters += most;
    for (int i = 0; i < r->order; i++) check_solve(res[i].status, &res[i], tol, what);
    const double dt = lat_clock() - t0;
    if (r == &c->md) c->solve_md += dt;
    else c->solve_other += dt;
}

double stag_mono_action_total(double *parts, int npf)
{
    comm_replica_sum(parts, (size_t)npf); /* each part from one replica, zeros from the others: exact */
    double s = 0;
    for (int k = 0; k < npf; k++) s += parts[k];
    free(parts);
    return s;
}
