/* solvers/solvers.h -- Krylov solvers over an operator interface (SPEC §8,
 * issue 15 part B; multi-shift CG for lat-hmc, SPEC §9), written once and
 * never knowing the backend: they see the operator as callbacks
 * (struct solver_op, openQCD's cgne(Dop, Dop_dble) shape) and every vector
 * through a table of vector kernels (struct solver_blas).
 *
 * Exported:
 *   struct solver_op      the operator A in double (and optionally single)
 *   struct solver_vec     a vector of one storage precision (double, single,
 *                         half = 16-bit fixed point with one float norm per
 *                         site block, the seed paper's §V.C)
 *   struct solver_blas    the vector kernels of one backend
 *   solver_blas_cpu_open/_close (blas_cpu.c)  the CPU kernels, with the
 *                         reduction layout that makes MPI ranks give the
 *                         bits of one process
 *   solver_half_quantise/_dequantise (half.c)  the half format itself
 *   solver_cg         (cg.c)       CG for a Hermitian positive A
 *   solver_cgne       (cgne.c)     CG on the normal equations A^dag A x = A^dag b
 *                                  (CGNR: the residual of A x = b is the one
 *                                  carried and reported)
 *   solver_bicgstab   (bicgstab.c) BiCGstab on A x = b
 *   solver_multishift_cg (multishift.c)  (A^dag A + sigma_i) x_i = b
 *
 * Contracts of every solver:
 *   - tolerances are relative: converged means |b - A x| <= tol |b| for the
 *     TRUE residual, recomputed in double with the double operator at the
 *     end (result->residual is that number, never the recursion's);
 *   - mixed precision (params.sloppy = SOLVER_SINGLE or SOLVER_HALF): the
 *     iteration runs in the sloppy precision; by reliable updates (QUDA,
 *     Sleijpen-van der Vorst) the double solution is updated and the true
 *     residual recomputed in double whenever the sloppy residual has fallen
 *     by delta (default 0.1) since the last update, and the sloppy residual
 *     restarts from it (the search direction is kept: one Krylov space;
 *     BiCGstab keeps its shadow too, renewed once |r| fell by 1e-6);
 *   - the answer is a status (converged / iteration limit / breakdown),
 *     never an exit: lat_die only for programmer errors (n not a multiple
 *     of site_reals, a NULL operator);
 *   - progress reaches the caller through params.history, one call per
 *     iteration and per reliable update; nothing is printed;
 *   - the same inputs give the same bits for any thread count (and, with
 *     the CPU kernels' reduction layout, any number of ranks).
 * Vectors b and x are the backend's memory (host arrays for the CPU
 * kernels), n reals each, complex numbers as re, im pairs. */
#ifndef LAT_SOLVERS_H
#define LAT_SOLVERS_H

#include <stddef.h>
#include <stdint.h>

struct solver_vec;

/* The operator, as the Dirac module hands it over (these fields are fixed;
 * later fields may be added after them). */
struct solver_op {
    size_t n;           /* reals per vector (re, im interleaved) */
    size_t site_reals;  /* reals per site block (24 for a Wilson spinor); divides n */
    void *ctx;
    void (*apply)(void *ctx, double *out, const double *in);      /* A */
    void (*apply_dag)(void *ctx, double *out, const double *in);  /* A^dagger */
    void (*apply_f)(void *ctx, float *out, const float *in);      /* A in single (NULL: none) */
    void (*apply_dag_f)(void *ctx, float *out, const float *in);
    /* optional: out = A in (dag: A^dag) on vectors of any precision the
     * backend stores (double, single, half: a GPU operator reads and writes
     * half directly); when set, the sloppy operator calls it for every
     * precision instead of apply_f and the half round trip; NULL: unused */
    void (*apply_vec)(void *ctx, int dag, struct solver_vec *out, const struct solver_vec *in);
    /* 1: A itself is Hermitian positive definite, and solver_multishift_cg
     * solves (A + sigma_i) x_i = b with one application an iteration
     * instead of (A^dag A + sigma_i) x_i = b (the staggered K on even
     * sites); 0: the normal equations.  The other solvers ignore it. */
    int hermitian;
    /* optional: in's final values are queued; the next application to in
     * (apply, or apply_vec with dag 0) may begin its work now -- a GPU
     * operator on t-slabs packs and sends in's faces while the caller's
     * other work runs (solver_ms_loop's prepare).  The caller changes in
     * only after that application; whatever the operator is asked next
     * instead, it must still answer right.  in NULL: no application
     * follows, what was begun is dropped.  NULL: unused. */
    void (*prepare)(void *ctx, const struct solver_vec *in);
};

/* the largest site block the kernels take (they work block by block) */
#define SOLVER_SITE_REALS_MAX 1024

enum solver_prec { SOLVER_DOUBLE = 0, SOLVER_SINGLE = 1, SOLVER_HALF = 2 };
const char *solver_prec_name(enum solver_prec p); /* "double", "single", "half" */

/* Half precision: component k of site block s is q[k] * norm[s], the
 * block's step norm[s] = max |x| / 32767 rounded up to 15 significant bits
 * (0 for a zero block; solvers/half.h says why), q = round(x / norm)
 * within +-32767; the error is at most half a step, within 2^-16 (1 +
 * 2^-14) relative to the block's largest component. */
#define SOLVER_HALF_ONE 32767

struct solver_vec {
    enum solver_prec prec;
    size_t n, site_reals;
    void *data;   /* double[n], float[n] or int16_t[n], in the backend's memory */
    float *norm;  /* half: n / site_reals block norms; otherwise NULL */
};

typedef struct { double re, im; } solver_complex;

/* The vector kernels' argument checks, one copy for every backend
 * (blas_cpu.c, blas_gpu*.cuh; core.c): vectors combined have the same
 * length and blocks; caxpby2's y is neither input (each input is read after
 * y is first written).  Otherwise one line naming `where`, exit 1 (an
 * internal error of the caller). */
void solver_vec_same_shape(const struct solver_vec *x, const struct solver_vec *y, const char *where);
void solver_caxpby2_check(const struct solver_vec *x1, const struct solver_vec *x2, const struct solver_vec *y,
                          const char *where);

/* The vector kernels of one backend.  Every kernel accepts operands of any
 * precision (mixing allowed; the CPU computes in double), y has x's n and
 * site_reals.  Reductions accumulate in double and are deterministic (the
 * CPU: see blas_cpu.c), summed over ranks by the backend. */
struct solver_ms_loop;
struct solver_bicg_loop;
struct solver_blas {
    void *ctx;
    /* a zeroed vector (n reals, blocks of site_reals); NULL when out of memory */
    struct solver_vec *(*alloc)(void *ctx, size_t n, size_t site_reals, enum solver_prec prec);
    void (*free)(void *ctx, struct solver_vec *v);
    void (*zero)(void *ctx, struct solver_vec *y);
    void (*copy)(void *ctx, struct solver_vec *y, const struct solver_vec *x); /* y = x, converted */
    void (*scale)(void *ctx, double a, struct solver_vec *y);                  /* y = a y */
    void (*axpy)(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y); /* y += a x */
    void (*xpay)(void *ctx, const struct solver_vec *x, double a, struct solver_vec *y); /* y = x + a y */
    /* y = a x + b y, complex a and b */
    void (*caxpby)(void *ctx, solver_complex a, const struct solver_vec *x, solver_complex b, struct solver_vec *y);
    solver_complex (*cdot)(void *ctx, const struct solver_vec *x, const struct solver_vec *y); /* sum conj(x) y */
    double (*norm2)(void *ctx, const struct solver_vec *x);                                 /* sum |x|^2 */
    /* Optional fused kernels (NULL: not provided; the solvers then make the
     * unfused calls named).  Each gives exactly the bits of the unfused
     * sequence it replaces: the same elementwise operations, the same
     * reduction blocks and tree; a backend may run them as that sequence.
     * They exist to cut launches and host waits on a GPU.  n >= 0 vectors;
     * the y's are distinct vectors, none of them an x. */
    /* y[i] += a[i] x[i], i < n  (axpy per i) */
    void (*multi_axpy)(void *ctx, int n, const double *a, const struct solver_vec *const *x, struct solver_vec *const *y);
    /* y[i] = a[i] x + b[i] y[i], i < n, one x  (caxpby per i) */
    void (*multi_caxpby)(void *ctx, int n, const solver_complex *a, const struct solver_vec *x, const solver_complex *b,
                         struct solver_vec *const *y);
    /* y += a x, then return |y|^2  (axpy, norm2(y)) */
    double (*axpy_norm2)(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y);
    /* y += a x, then return sum conj(x) y  (axpy, cdot(x, y)) */
    solver_complex (*axpy_cdot)(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y);
    /* y[i] += a[i] p[i], then p[i] = b[i] x + c[i] p[i], i < n, one x
     * (multi_axpy(n, a, p, y), then multi_caxpby(n, b, x, c, p)): the
     * multi-shift CG's x_i and p_i updates, each p[i] read once; p[i] is
     * rounded to its storage (single, half with its new block norm) as
     * caxpby stores it, y[i] as axpy does.  The p's and y's are distinct
     * vectors, none of them x. */
    void (*multi_axpy_caxpby)(void *ctx, int n, const double *a, const struct solver_vec *x, const solver_complex *b,
                              const solver_complex *c, struct solver_vec *const *p, struct solver_vec *const *y);
    /* BiCGstab's (bicgstab.c): fewer passes and host waits an iteration.
     * return sum conj(x) y and *xx = |x|^2  (cdot(x, y), norm2(x)) */
    solver_complex (*cdot_norm2)(void *ctx, const struct solver_vec *x, const struct solver_vec *y, double *xx);
    /* y = a x + b y, then *zy = sum conj(z) y and return |y|^2
     * (caxpby(a, x, b, y), norm2(y), cdot(z, y)); y is neither x nor z */
    double (*caxpby_norm2_cdot)(void *ctx, solver_complex a, const struct solver_vec *x, solver_complex b,
                                struct solver_vec *y, const struct solver_vec *z, solver_complex *zy);
    /* y = a1 x1 + b1 y, then y = a2 x2 + b2 y  (caxpby(a1, x1, b1, y),
     * caxpby(a2, x2, b2, y)): y rounded to its storage in between as the
     * first caxpby stores it (single, half with its new block norm); y is
     * neither x1 nor x2 */
    void (*caxpby2)(void *ctx, solver_complex a1, const struct solver_vec *x1, solver_complex b1, solver_complex a2,
                    const struct solver_vec *x2, solver_complex b2, struct solver_vec *y);
    /* optional: the multi-shift CG's recursion in double (multishift.c's
     * loop, struct solver_ms_loop) run with its scalars where the vectors
     * are -- a GPU's, so that no iteration waits for the host; the bits of
     * multishift.c's own loop.  Returns 0 (nothing done) when it cannot
     * take this solve; multishift.c then runs its own loop. */
    int (*multishift_loop)(void *ctx, struct solver_ms_loop *loop);
    /* optional: BiCGstab's iterations (bicgstab.c's loop, struct
     * solver_bicg_loop) run with their scalars where the vectors are, up
     * to the first one that needs the host; the bits of bicgstab.c's own
     * loop.  Returns 0 (nothing done) when it cannot take the solve. */
    int (*bicgstab_loop)(void *ctx, struct solver_bicg_loop *loop);
};

/* what multishift.c hands a backend's multishift_loop: the recursion from
 * its start (r = p_i = b, x_i = 0, |r|^2 = rr) to every shift frozen,
 * a breakdown or max_iter iterations, as multishift.c's loop runs it in
 * double (its vector calls axpy_cdot, axpy_norm2, multi_axpy_caxpby and
 * the scalar steps of solvers/multishift_step.h).  result[i] gets the
 * status (SOLVER_CONVERGED: frozen at stop[i]; SOLVER_BREAKDOWN; else
 * SOLVER_MAX_ITER) and the iterations of shift i; the rest of result is
 * multishift.c's. */
struct solver_ms_loop {
    int nshift, base, max_iter;    /* base: the smallest shift */
    const double *sigma, *stop;     /* the shifts; shift i frozen once |zeta_i r| <= stop[i] |b| */
    double rr, bnorm;               /* |r|^2 at the start, |b| */
    struct solver_vec *r, *w, *q;   /* the residual (b on entry), work vectors */
    struct solver_vec *const *p;    /* the directions (b on entry) */
    struct solver_vec *x;           /* nshift solutions (zero on entry) */
    /* q = A^dag A p (w = A p on the way; Hermitian A: q = A p), double vectors */
    void (*apply)(void *actx, struct solver_vec *q, struct solver_vec *w, const struct solver_vec *p);
    void *actx;
    struct solver_result *result;
    /* NULL, or: p (the base's direction, just updated) is final in the
     * queue, the next apply's input; called after the base's update and
     * before the other shifts' (the operator's prepare: its faces travel
     * while those updates run); p NULL at the loop's end: no apply follows */
    void (*prepare)(void *actx, const struct solver_vec *p);
};

/* what bicgstab.c hands a backend's bicgstab_loop: its iterations k_first
 * .. k_last from the state before k_first (rho, maxr; r, r0, p and the
 * sloppy x accumulator x as they are), each as bicgstab.c runs it (v = A p,
 * <r0, v>, alpha, s = r - alpha v, t = A s, <t, s> and |t|^2, omega,
 * x += alpha p + omega s, r = s - omega t with |r|^2 and <r0, r>, beta,
 * p = r + beta (p - omega v): bicgstab_step.h's scalar steps), up to the
 * first iteration that needs the host:
 *   SOLVER_BICG_BREAKDOWN  <r0, v> or rho not usable: nothing of that
 *       iteration past v was done (bicgstab.c ends in a breakdown);
 *   SOLVER_BICG_AFTER_R    r, x and the sums of that iteration done, and
 *       then |r| not finite, a reliable update due (solve_reliable_due),
 *       omega or <r0, r> not usable: p and rho not updated (bicgstab.c
 *       goes on from there: the update, the breakdown or a new shadow);
 *   SOLVER_BICG_RAN        every iteration done, p and rho updated.
 * iteration(actx, k, rn) reports the recursion's |r| of every iteration
 * that computed it, in order.  v and t may be changed by the backend after
 * a stop (the operator applied again to p and r: the same v). */
enum solver_bicg_stop { SOLVER_BICG_RAN = 0, SOLVER_BICG_BREAKDOWN = 1, SOLVER_BICG_AFTER_R = 2 };
struct solver_bicg_loop {
    int k_first, k_last;
    int mixed;                      /* solve_reliable_due's test */
    double target, delta;
    solver_complex rho;             /* in: before k_first; out: before the stop's iteration */
    double maxr;                    /* in and out: the largest |r| since the last update */
    struct solver_vec *r, *r0, *p, *v, *t, *x;
    void (*apply)(void *actx, struct solver_vec *out, const struct solver_vec *in); /* out = A in, sloppy */
    void (*iteration)(void *actx, int k, double rn);
    void *actx;
    /* out: the stop, its iteration (k_last + 1 for SOLVER_BICG_RAN) and
     * that iteration's scalars (alpha; AFTER_R also omega, <r0, r>, |r|) */
    enum solver_bicg_stop stop;
    int k;
    solver_complex alpha, omega, rho_new;
    double rn;
};

/* The CPU kernels (blas_cpu.c), OpenMP threads over site blocks.
 * Reductions: per block of whole site blocks (about 512 reals) a sequential
 * double sum, the blocks of a chunk added pairwise (a fixed binary tree),
 * the chunks likewise: the bits depend on the layout, never on the thread
 * count.  Ranks: every rank holds chunks [first_chunk, first_chunk +
 * n / chunk_reals) of total_chunks (e.g. one chunk per timeslice of a
 * t-slab decomposition); each puts its chunk sums into global slots,
 * comm_sum adds the zeros of the others (exact) and every rank adds the
 * slots pairwise in global order -- so R ranks give the bits of one process
 * with the same chunks.  layout NULL: the whole vector is one chunk, one
 * process.  Returns NULL (and does nothing) only when out of memory. */
struct solver_reduce_layout {
    size_t chunk_reals;  /* reals per chunk, a multiple of site_reals */
    size_t first_chunk;  /* global index of this rank's first chunk */
    size_t total_chunks; /* chunks of the whole (global) vector */
    /* 0 or 1: the vector is one run of chunks as above; k > 1: the vector
     * is k equal parts, each this rank's run of chunks of its own global
     * vector of total_chunks (e.g. [even | odd] half fields): chunk c of
     * part j fills the global slot j total_chunks + first_chunk + c */
    size_t parts;
};
struct solver_blas *solver_blas_cpu_open(const struct solver_reduce_layout *layout);
void solver_blas_cpu_close(struct solver_blas *blas);

/* The half format on host arrays (half.c): n reals in blocks of site_reals.
 * Returns nothing; n must be a multiple of site_reals. */
void solver_half_quantise(size_t n, size_t site_reals, const float *x, int16_t *q, float *norm);
void solver_half_dequantise(size_t n, size_t site_reals, const int16_t *q, const float *norm, float *x);

enum solver_status { SOLVER_CONVERGED = 0, SOLVER_MAX_ITER = 1, SOLVER_BREAKDOWN = 2 };
const char *solver_status_name(enum solver_status s); /* "converged", ... */

/* one line of history: an iteration (residual of the recursion, in the
 * sloppy precision) or a reliable update (true residual, in double) */
struct solver_step {
    int iteration;
    int shift;       /* multi-shift: the shift; otherwise 0 */
    int reliable;    /* 1: a reliable update, residual is the true one */
    double residual; /* relative: |r| / |b| */
};
typedef void (*solver_history_fn)(void *ctx, const struct solver_step *step);

struct solver_params {
    double tol;              /* relative residual to reach (> 0) */
    int max_iter;            /* iterations (each one or two operator applications) */
    enum solver_prec sloppy; /* SOLVER_DOUBLE: the whole solve in double */
    double delta;            /* reliable-update factor; 0: 0.1 */
    solver_history_fn history; /* NULL: none */
    void *history_ctx;
    /* optional (NULL: none): asked when the true residual r = b - A x
     * (double, rn = |r|) meets the target; 1: the solve ends converged;
     * 0: it goes on (the recursion from r, as after a reliable update)
     * until |r| <= *target, which accept sets below rn.  Why: a system
     * of stacked columns (lat-propagator --columns together) whose
     * columns each have their own target, met only together */
    int (*accept)(void *ctx, const struct solver_vec *r, double rn, double *target);
    void *accept_ctx;
};

struct solver_result {
    enum solver_status status;
    int iterations;        /* sloppy iterations */
    int reliable_updates;  /* true residuals recomputed in double (the final one included) */
    double residual;       /* TRUE relative residual |b - A x| / |b| in double */
    int promotions;        /* CG, CGNE mixed: times a stalled sloppy recursion went on one precision up */
    int promoted_at;       /* the iteration of the first promotion (0: none) */
};

/* CG for a Hermitian positive definite A (apply only; apply_dag unused):
 * x holds the initial guess and receives the solution. */
enum solver_status solver_cg(const struct solver_op *op, const struct solver_blas *blas, const double *b, double *x,
                             const struct solver_params *params, struct solver_result *result);
/* CGNR: A^dag A x = A^dag b for any non-singular A, minimising |b - A x|
 * over the Krylov space; residual and tolerance are those of A x = b. */
enum solver_status solver_cgne(const struct solver_op *op, const struct solver_blas *blas, const double *b, double *x,
                               const struct solver_params *params, struct solver_result *result);
/* BiCGstab on A x = b (van der Vorst); breakdown (rho or omega zero) is a
 * status, not a crash. */
enum solver_status solver_bicgstab(const struct solver_op *op, const struct solver_blas *blas, const double *b, double *x,
                                   const struct solver_params *params, struct solver_result *result);
/* Multi-shift CG: (A^dag A + sigma[i]) x[i] = b for nshift shifts sigma[i]
 * >= 0 at once (Jegerlehner), started from x[i] = 0 (x[i] is overwritten).
 * Shift i stops updating when its recursion residual reaches its stopping
 * tolerance; each shift's true residual is then recomputed in double, and
 * a shift that misses tol[i] (NULL: params.tol for all) is refined by
 * solver_cg on A^dag A + sigma[i] from its x[i], in params.sloppy with
 * reliable updates, to tol[i] (its own limit of params.max_iter).
 *   double: the stopping tolerance is tol[i]; refinement only mends
 *     rounding in the recursion (rarely needed);
 *   single / half: r, the directions and the operator products of the
 *     shared recursion are sloppy (apply_f, apply_dag_f; x[i] accumulate
 *     in double); the base (smallest) shift gets reliable updates in the
 *     recursion (true residual in double when |r| fell by delta, r
 *     restarted from it) and runs to its tolerance; the other shifts stop
 *     at tol[i] (single) or max(tol[i], 1e-4) (half), and every shift whose
 *     true residual misses tol[i] is then refined in mixed precision (one
 *     double residual per reliable update).  A sloppy breakdown is refined
 *     too.  The other shifts get no reliable updates in the recursion: a
 *     recomputed residual is no longer collinear with theirs.
 * History: the shared iterations (shift i's lines; the base's reliable
 * updates as reliable = 1 lines of the base among them), the true residual per
 * shift (reliable = 1), then a refinement's lines with that shift's index,
 * iterations counted on.  result[i] per shift: iterations = the shared
 * iterations while shift i was active plus its refinement's; residual =
 * the final true residual in double; reliable_updates = double residuals.
 * Returns the worst status. */
enum solver_status solver_multishift_cg(const struct solver_op *op, const struct solver_blas *blas, const double *b,
                                        int nshift, const double *sigma, const double *tol, double *const *x,
                                        const struct solver_params *params, struct solver_result *result);

#endif
