/* solvers/core.h -- what the solver algorithms share (internal to
 * kernels/solvers; core.c): the start and end of a solve and the operator
 * applied in the sloppy precision.  Only struct solver_op and struct
 * solver_blas are used: no backend is known here.
 *
 *   solve_begin   checks the operator and parameters (programmer errors:
 *                 lat_die), views b and x, |b|; returns 1 when the solve is
 *                 already over (b = 0: x = 0, converged), result filled
 *   solve_vec     a work vector, freed by solve_end (out of memory: lat_die)
 *   solve_true_residual  r = b - A x in double with the double operator,
 *                 |r| returned, counted and reported as a reliable update
 *   solve_iteration      one history line of the recursion's residual
 *   solve_accumulate     x += xs (the sloppy solution, any precision), xs = 0
 *   solve_done           the true residual meets the target and the
 *                 caller's accept test (solvers.h; a no lowers the target)
 *   solve_reliable       the reliable-update step every Krylov recursion
 *                 takes after computing its residual norm *rn: tracks the
 *                 largest residual since the last update (*maxr, QUDA's
 *                 rule); when *rn is below the target, or (mixed) below
 *                 delta * *maxr, or (mixed, after a plateau cycle:
 *                 solve_stalled) below the best true residual /
 *                 SOLVE_PLATEAU_GAIN^2 or as many iterations into the
 *                 cycle as the plateau cycle took, folds xs into x,
 *                 recomputes the true
 *                 residual in double, and returns RELIABLE_CONVERGED if it
 *                 ends the solve (solve_done), else RELIABLE_UPDATED with rs = the true
 *                 r and *rn, *maxr reset (the caller then repairs its own
 *                 recursion); RELIABLE_NONE when no update was due
 *   solve_stalled        after a RELIABLE_UPDATED (mixed), with the new
 *                 true residual: 1 when the sloppy recursion has stopped
 *                 paying, by either of two rules.
 *                 Growth: the iterations a decade of the true residual
 *                 cost (since the last update) grew SOLVE_STALL_GROWTH-fold
 *                 or more over the cycle before, SOLVE_STALL_CYCLES
 *                 updates in a row (a cycle that gained under 0.05 decades
 *                 counts as infinitely dear).  Healthy CG costs about the
 *                 same per decade once past its first cycles; a sloppy
 *                 operator that is a slightly DIFFERENT operator (the
 *                 GPU's 16-bit links) makes the recursion and the true
 *                 residual part ways, and each decade costs several times
 *                 the last: measured on an H100, 24^3x48 at kappa 0.1350,
 *                 double-half CGNE was at 2e-9..5e-9 after 40 000
 *                 iterations where double-single reaches 1e-10 in 7 000;
 *                 test_solvers' perturbed operator: 13, 44, 175, 461, 1138
 *                 iterations a decade.
 *                 Plateau (mixed only): a cycle whose true residual shows
 *                 less than half (in decades) of the fall the recursion
 *                 claimed -- the true residual SOLVE_PLATEAU_GAIN or more
 *                 above the recursion's, and further above it than below
 *                 the best true residual so far -- followed by an early
 *                 check (above) that finds the true residual still not
 *                 SOLVE_PLATEAU_GAIN below the best: SOLVE_PLATEAU_CYCLES
 *                 (2) updates.  That is a defect correction that does not
 *                 converge (|A - A_sloppy| |A_sloppy^-1| ~ 1 on the modes
 *                 left); a recursion restarted from a residual it cannot
 *                 explain may also crawl for thousands of iterations
 *                 before it falls by delta, hence the early check by
 *                 length.  (Not the H100 case above: lat-propagator --log
 *                 showed its true residual following the half recursion
 *                 within a few per cent at every update -- the recursion
 *                 itself slows, 95, 1006, 2033, 5650 iterations a decade
 *                 -- so only the growth rule fires there, at the same
 *                 iterations 3815..8792 as before; lat-propagator's CGNE
 *                 now avoids that case: its half operator reads float
 *                 links, dirac/gpu.h.)  A healthy recursion agrees with the
 *                 true residual within a few per cent and never starts a
 *                 plateau: healthy solves run bit for bit as before
 *                 (test_solvers: no promotion in healthy CG/CGNE
 *                 single/half solves at condition numbers 10..1e4; its
 *                 plateau case: promoted at iteration 329 (CG) and 1232
 *                 (CGNE) where the growth rule alone never promoted CG
 *                 (limit 1960) and promoted CGNE at 5545)
 *   solve_promote        the sloppy precision one step up (half -> single
 *                 -> double), counted in res->promotions; the caller
 *                 restarts its recursion from the true residual s->r in
 *                 new vectors of s->sloppy (solve_vec_free the old ones)
 *   solve_vec_free       a work vector freed before solve_end
 *   solve_end     the final true residual, the result, everything freed
 *   solve_free    everything freed (no residual, no result)
 *   sloppy_apply  out = A in (dag: A^dag) for vectors of the sloppy
 *                 precision: double -> apply; single -> apply_f (or apply
 *                 on double copies when the operator has no single form);
 *                 half -> decoded to single, apply_f, encoded (QUDA: compute
 *                 in single, store in half); an operator with apply_vec
 *                 (a GPU backend's) takes every precision itself
 *   op_apply      out = A in for double vectors
 *   blas_multi_axpy, blas_multi_caxpby, blas_axpy_norm2, blas_axpy_cdot,
 *   blas_multi_axpy_caxpby, blas_cdot_norm2, blas_caxpby_norm2_cdot,
 *   blas_caxpby2
 *                 the fused kernels of struct solver_blas where the backend
 *                 has them, else the unfused calls they stand for (the
 *                 same bits either way: solvers.h's contract) */
#ifndef LAT_SOLVERS_CORE_H
#define LAT_SOLVERS_CORE_H

#include "solvers/solvers.h"

#define SOLVE_MAX_VECS 16

struct solve {
    const char *who;
    const struct solver_op *op;
    const struct solver_blas *blas;
    const struct solver_params *par;
    struct solver_result *res;
    struct solver_vec b, x;     /* views of the caller's vectors */
    struct solver_vec *r, *tmp; /* double: the true residual, A x */
    double bnorm, target;       /* |b|, tol |b| */
    double delta;               /* reliable-update factor */
    enum solver_prec sloppy;
    struct solver_vec *sl_in, *sl_out; /* the sloppy operator's work vectors (or NULL) */
    struct solver_vec *vecs[SOLVE_MAX_VECS];
    int nvecs;
    /* solve_stalled: the true residual and iteration of the last update,
     * the iterations a decade of that cycle, the cycles in a row that grew;
     * the best true residual of this recursion, the recursion's residual
     * at the last update (before the true one replaced it), the plateau
     * cycles in a row, the last cycle's iterations */
    double stall_last, stall_cost;
    int stall_iter, stall_count;
    double stall_best, stall_claimed;
    int stall_plateau, stall_length;
};

#define SOLVE_STALL_CYCLES 4
#define SOLVE_STALL_GROWTH 2.0
/* the plateau rule (core.c, solve_stalled): a factor 2 (0.3 decades) is
 * far outside a healthy recursion's disagreement with the true residual
 * (1.02 at most in test_solvers' healthy solves) and far below a healthy
 * cycle's gain (1/delta = 10); two updates: the cycle that raises the
 * suspicion, the early check that confirms it */
#define SOLVE_PLATEAU_GAIN 2.0
#define SOLVE_PLATEAU_CYCLES 2

int solve_begin(struct solve *s, const char *who, const struct solver_op *op, const struct solver_blas *blas,
                const double *b, double *x, const struct solver_params *par, struct solver_result *res, int need_dag);
struct solver_vec *solve_vec(struct solve *s, enum solver_prec prec);
double solve_true_residual(struct solve *s, int iteration);
void solve_iteration(struct solve *s, int iteration, double rnorm);
void solve_accumulate(struct solve *s, struct solver_vec *xs);
enum reliable_step { RELIABLE_NONE = 0, RELIABLE_UPDATED = 1, RELIABLE_CONVERGED = 2 };
/* whether the true residual rn (in s->r) ends the solve: rn <= target and
 * par->accept's yes (a no lowers s->target, solvers.h) */
int solve_done(struct solve *s, double rn);
enum reliable_step solve_reliable(struct solve *s, int iteration, int mixed, struct solver_vec *xs, struct solver_vec *rs,
                                  double *rn, double *maxr);
enum solver_status solve_end(struct solve *s, enum solver_status status, int iterations);
int solve_stalled(struct solve *s, int iteration, double rn);
enum solver_prec solve_promote(struct solve *s, int iteration, double rn);
void solve_vec_free(struct solve *s, struct solver_vec *v);
void solve_free(struct solve *s); /* the work vectors only (multi-shift: results of its own) */
void sloppy_apply(struct solve *s, int dag, struct solver_vec *out, const struct solver_vec *in);
void op_apply(const struct solver_op *op, int dag, struct solver_vec *out, const struct solver_vec *in);
/* the sloppy solution's precision: single for half (sums of many updates
 * keep too little in 16 bits), the sloppy precision otherwise */
enum solver_prec solve_accumulator_prec(enum solver_prec sloppy);

void blas_multi_axpy(const struct solver_blas *bl, int n, const double *a, const struct solver_vec *const *x,
                     struct solver_vec *const *y);
void blas_multi_caxpby(const struct solver_blas *bl, int n, const solver_complex *a, const struct solver_vec *x,
                       const solver_complex *b, struct solver_vec *const *y);
double blas_axpy_norm2(const struct solver_blas *bl, double a, const struct solver_vec *x, struct solver_vec *y);
solver_complex blas_axpy_cdot(const struct solver_blas *bl, double a, const struct solver_vec *x, struct solver_vec *y);
void blas_multi_axpy_caxpby(const struct solver_blas *bl, int n, const double *a, const struct solver_vec *x,
                            const solver_complex *b, const solver_complex *c, struct solver_vec *const *p,
                            struct solver_vec *const *y);
solver_complex blas_cdot_norm2(const struct solver_blas *bl, const struct solver_vec *x, const struct solver_vec *y,
                               double *xx);
double blas_caxpby_norm2_cdot(const struct solver_blas *bl, solver_complex a, const struct solver_vec *x, solver_complex b,
                              struct solver_vec *y, const struct solver_vec *z, solver_complex *zy);
void blas_caxpby2(const struct solver_blas *bl, solver_complex a1, const struct solver_vec *x1, solver_complex b1,
                  solver_complex a2, const struct solver_vec *x2, solver_complex b2, struct solver_vec *y);

#endif
