/* prop_solve.c -- one propagator column through the solver module; the
 * contract is prop_solve.h.  The Krylov solvers live in kernels/solvers
 * (written once over struct solver_op); this file only prepares the
 * system, picks the solver and precision, and checks the answer in double
 * with the full operator.
 *
 * STATE OF 2026-11-25: the solver module (kernels/solvers, issue 15 part B)
 * had not reached main when this was written, so its call is not wired:
 * prop_solve_available() says so and lat-propagator stops (exit 1) after
 * every input check and before the first solve.  Wiring it is the one
 * marked line in prop_solve() plus PROP_SOLVER_WIRED below; everything
 * around it (even-odd preparation, the tolerance on the Schur system, the
 * reconstruction, the true residual in double) is in place. */
#define PROP_SOLVER_WIRED 0
#include "shared/prop_solve.h"
#include "base/log.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double norm2(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i] * v[i];
    return s;
}

const char *prop_solve_available(void)
{
    return PROP_SOLVER_WIRED ? NULL
                             : "this build has no solver: the solver module (kernels/solvers) is not merged yet, so "
                               "lat-propagator cannot solve M x = b";
}

int prop_solve_check(struct prop_solve_opts *o)
{
    o->why[0] = 0;
    if (o->precision == 's' && o->tol < 1e-6) {
        snprintf(o->why, sizeof o->why, "--precision single cannot reach --tol %g (at best about 1e-6; use mixed)", o->tol);
        return -1;
    }
    return 0;
}

/* the relative true residual |b - M x| / |b| in double */
static double true_residual(struct dirac_op *op, const double *b, const double *x, size_t n)
{
    double *r = lat_malloc(n * sizeof(double));
    dirac_apply(op, r, x);
    for (size_t i = 0; i < n; i++) r[i] = b[i] - r[i];
    double res = sqrt(norm2(r, n) / norm2(b, n));
    free(r);
    return res;
}

void prop_solve(struct dirac_op *op, const struct prop_solve_opts *o, const double *b, double *x,
                struct prop_solve_result *r)
{
    const size_t nf = dirac_full_reals(op), nh = dirac_half_reals(op);
    struct solver_op A;
    const double *rhs = b;
    double *sol = x, *bh = NULL, *xh = NULL, tol = o->tol;
    if (o->eo) {
        dirac_solver_op_eo(&A, op);
        bh = lat_malloc(nh * sizeof(double));
        xh = lat_calloc(nh, sizeof(double));
        dirac_eo_prepare(op, bh, b);
        /* the full residual lives on the odd sites: |r| <= tol |b| needs tol |b| / |bhat| there */
        double nb = sqrt(norm2(b, nf)), nbh = sqrt(norm2(bh, nh));
        if (nbh > nb) tol *= nb / nbh;
        rhs = bh;
        sol = xh;
    } else {
        dirac_solver_op_full(&A, op);
        memset(x, 0, nf * sizeof(double));
    }
    int iters = 0, ok = 0;
    (void)rhs;
    (void)sol;
    (void)tol;
    if (!PROP_SOLVER_WIRED) lat_die(1, NULL, "%s", prop_solve_available());
    /* wiring: (cg on A^dag A | bicgstab on A)(&A, o->precision, o->sloppy, rhs, sol, tol, o->max_iter) -> iters, ok */
    if (o->eo) {
        dirac_eo_reconstruct(op, x, xh, b);
        free(bh);
        free(xh);
    }
    r->iterations = iters;
    r->true_residual = true_residual(op, b, x, nf);
    r->converged = ok && r->true_residual <= o->tol;
}
