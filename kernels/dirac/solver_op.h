/* dirac/solver_op.h -- LOCAL COPY, TO BE REPLACED AT THE MERGE: the operator
 * interface of the solver module, which kernels/solvers/solvers.h declares.
 * Until that header exists the Dirac module declares the same struct here
 * (the guard LAT_SOLVER_OP_DEFINED lets solvers.h and this file meet); at the
 * merge dirac.h includes solvers/solvers.h instead and this file goes.
 *
 * struct solver_op: a linear operator on vectors of n reals (complex numbers
 * as re, im interleaved), made of blocks of site_reals reals (24 for a
 * Wilson spinor); apply/apply_dag compute out = A in / A^dag in in double,
 * apply_f/apply_dag_f the same in single (NULL when there is none).  out and
 * in never alias.  ctx is the operator's own state. */
#ifndef LAT_SOLVER_OP_DEFINED
#define LAT_SOLVER_OP_DEFINED
#include <stddef.h>

struct solver_op {
    size_t n;           /* reals per vector (re, im interleaved) */
    size_t site_reals;  /* reals per site block (24 for a Wilson spinor); divides n */
    void *ctx;
    void (*apply)(void *ctx, double *out, const double *in);      /* A */
    void (*apply_dag)(void *ctx, double *out, const double *in);  /* A^dagger */
    void (*apply_f)(void *ctx, float *out, const float *in);      /* A in single (NULL: none) */
    void (*apply_dag_f)(void *ctx, float *out, const float *in);
};
#endif
