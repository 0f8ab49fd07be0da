/* prop_solve.h -- one column of a quark propagator: M x = b solved with the
 * solver module (kernels/solvers) over the Dirac operator's adapters
 * (kernels/dirac: dirac_solver_op_eo / _full), and checked in double.
 *
 *   prop_solve_check(&o)   the option combination is one the solvers have:
 *                          0, or -1 with one line in o.why (a usage error)
 *   prop_solve(op, &o, b, x, &r)   x (full field) from b (full field):
 *     eo: bhat_o = dirac_eo_prepare(b), Mhat x_o = bhat_o solved to the
 *         relative residual tol |b| / |bhat_o| (so that the full system's
 *         residual, which lives on the odd sites only, is <= tol |b|),
 *         x = dirac_eo_reconstruct(x_o, b);
 *     full: M x = b to tol;
 *   cg: CG on the normal equations A^dag A x = A^dag b; bicgstab on A.
 *   precision 'd' double, 's' single (the Krylov loop in single, the
 *   result checked in double), 'm' mixed: double outer with reliable
 *   updates, sloppy 's' single or 'h' half.
 *   r.true_residual = |b - M x| / |b| computed in double with the full
 *   operator; r.converged: the solver stopped on its criterion within
 *   max_iter and true_residual <= tol; r.solver_seconds: the Krylov
 *   solve alone, without the preparation, reconstruction and true
 *   residual (on the GPU also without the copies over the bus).
 *   prop_device_open(op, u, recon, why, len)   the GPU copy of op
 *       (kernels/dirac/gpu.h: links of u with recon reals, 18, 12 or 8;
 *       SU(3), one process or a t-slab per rank) and the GPU vector kernels: NULL with one line
 *       in why when this build or machine has none
 *   prop_device_close(d)
 *   With a device, prop_solve runs the whole column on the GPU (the
 *   even-odd system only: prop_solve_check refuses --no-eo there): b's two
 *   halves go up once, bhat_o is prepared, Mhat x_o = bhat_o solved, x_e
 *   reconstructed and the true residual computed there in double
 *   (kernels/dirac/gpu.h: the CPU's steps; the norms, |bhat_o| for the
 *   tolerance included, by the GPU vector kernels, one slot per global
 *   timeslice: the same bits for any number of ranks), x's two halves
 *   come down once; the device vectors and the host's staging buffers are
 *   made at the first column and kept until prop_device_close.
 *   prop_solve_block_possible(dev, ncols, why, len)   1 if prop_solve_block
 *       can solve ncols columns together on dev (one GPU of one process,
 *       V/2 a multiple of 32), else 0 with one line in why
 *   prop_solve_block(op, dev, &o, ncols, source, sctx, x, r)   ncols
 *       columns (source(sctx, c, b) fills column c's source b, a full
 *       field; x[c] its solution; r[ncols]) as one system: the even-odd systems
 *       of all columns stacked into one vector (dirac_gpu_block_new's
 *       layout), Mhat applied to all in one launch a sweep, one Krylov
 *       recursion for them all (its scalars shared), until every column's
 *       residual meets its own target (solvers.h's accept test lowers the
 *       stacked target where one misses); each column then reconstructed
 *       and checked as prop_solve does.  r[c].iterations: the recursion's
 *       (the same for every column: each column had that many
 *       applications), r[c].solver_seconds: the solve's time / ncols.
 *       Why: the columns share the links and the clover, which a launch
 *       for them all reads once; and the vector kernels run on ncols
 *       times the sites (docs/PERFORMANCE.md, session 30).
 *   opts.history (solvers.h's solver_history_fn, with history_ctx): every
 *   solver step of the column, on every rank alike (lat-propagator --log). */
#ifndef LAT_PROP_SOLVE_H
#define LAT_PROP_SOLVE_H

#include "dirac/dirac.h"
#include "solvers/solvers.h" /* solver_history_fn */

struct prop_solve_opts {
    int bicgstab;     /* 0: CG on the normal equations */
    int eo;           /* even-odd preconditioned */
    double tol;       /* relative true residual */
    int max_iter;
    char precision;   /* 'd' 's' 'm' */
    int gpu;          /* 1: solve on the GPU (prop_device_open) */
    char sloppy;      /* mixed: 's' or 'h' */
    double delta;     /* mixed: the reliable-update factor (0: the solvers' 0.1) */
    solver_history_fn history; /* the solver's steps (solvers.h), NULL: none */
    void *history_ctx;
    char why[160];
};

struct prop_solve_result {
    int iterations;
    double true_residual;
    int converged;
    double solver_seconds;
};

int prop_solve_check(struct prop_solve_opts *o);

struct prop_device;
struct field;
struct prop_device *prop_device_open(struct dirac_op *op, const struct field *u, int recon, char *why, size_t len);
void prop_device_close(struct prop_device *d);

/* dev NULL: the CPU */
void prop_solve(struct dirac_op *op, struct prop_device *dev, const struct prop_solve_opts *o, const double *b, double *x,
                struct prop_solve_result *r);
int prop_solve_block_possible(struct prop_device *dev, int ncols, char *why, size_t len);
typedef void (*prop_source_fn)(void *ctx, int column, double *b); /* b: column's source, a full field */
void prop_solve_block(struct dirac_op *op, struct prop_device *dev, const struct prop_solve_opts *o, int ncols,
                      prop_source_fn source, void *sctx, double *const *x, struct prop_solve_result *r);

#endif
