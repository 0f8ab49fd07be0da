/* solvers/blas_cpu.c -- the CPU vector kernels of the solvers (struct
 * solver_blas), OpenMP threads over site blocks.
 * Exported: solver_blas_cpu_open, solver_blas_cpu_close (solvers.h).
 * The fused kernels (multi_axpy, multi_caxpby, axpy_norm2, axpy_cdot,
 * multi_axpy_caxpby; BiCGstab's cdot_norm2, caxpby_norm2_cdot, caxpby2)
 * are the loops of the unfused ones (tile_axpy, tile_caxpby, the
 * reduction's per-sum loops): the same bits by construction.
 *
 * Every kernel works one site block ("tile", site_reals reals) at a time:
 * the tile of each operand is read into double (a double vector in place,
 * single widened, half decoded by half.h), computed in double and stored
 * back in y's precision (half: encoded with a fresh block norm).  So any
 * mix of precisions is allowed and the arithmetic is the same for all.
 *
 * Reductions (cdot, norm2) are deterministic: a reduction block is a run of
 * whole tiles of about 512 reals inside one chunk, summed sequentially in
 * double by one thread; the blocks of a chunk are added pairwise (a binary
 * tree fixed by their number), then the chunks of the whole vector, over
 * ranks, pairwise in global order (see solvers.h: comm_sum only ever adds
 * a number to zeros); a layout of k parts puts the chunks of part j after
 * the whole global vector of part j-1.  No step depends on the thread count, and vectors
 * under OMP_MIN_REALS reals are not threaded at all (the same bits).
 * A blas is used by one solve at a time (its scratch space is shared). */
#include "solvers/solvers.h"
#include "solvers/half.h"
#include "base/comm.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

#define REDUCE_BLOCK_REALS 512
/* Vectors of fewer reals than this run on the calling thread alone: an
 * OpenMP region costs microseconds (and, on a loaded machine, spinning
 * threads that wait for a core) while such a vector's loop takes about as
 * long.  Only the number of threads changes, never what a thread sums: the
 * reduction blocks and their pairwise tree stay as they are, so the bits
 * are those of any thread count (8^4 Wilson even-odd fields, 49152 reals,
 * are threaded; a 4^4 lattice's are not). */
#define OMP_MIN_REALS 32768

struct cpu_blas {
    struct solver_blas blas; /* first: the table handed out */
    struct solver_reduce_layout layout; /* chunk_reals 0: one chunk */
    double *partial, *slots;
    size_t partial_cap, slots_cap;
};

/* the tile t of v in double: a pointer into v itself or into buf */
static inline const double *tile_in(const struct solver_vec *v, size_t t, double *buf)
{
    size_t m = v->site_reals, o = t * m;
    switch (v->prec) {
    case SOLVER_DOUBLE: return (const double *)v->data + o;
    case SOLVER_SINGLE:
        for (size_t k = 0; k < m; k++) buf[k] = ((const float *)v->data)[o + k];
        return buf;
    default: half_block_decode(m, (const int16_t *)v->data + o, v->norm[t], buf); return buf;
    }
}
/* where the new tile t of v is computed: v itself when double */
static inline double *tile_out(struct solver_vec *v, size_t t, double *buf)
{
    return v->prec == SOLVER_DOUBLE ? (double *)v->data + t * v->site_reals : buf;
}
static inline void tile_store(struct solver_vec *v, size_t t, const double *p)
{
    size_t m = v->site_reals, o = t * m;
    if (v->prec == SOLVER_SINGLE)
        for (size_t k = 0; k < m; k++) ((float *)v->data)[o + k] = (float)p[k];
    else if (v->prec == SOLVER_HALF)
        half_block_encode(m, p, (int16_t *)v->data + o, v->norm + t);
}

static size_t elem_size(enum solver_prec p)
{
    return p == SOLVER_DOUBLE ? sizeof(double) : p == SOLVER_SINGLE ? sizeof(float) : sizeof(int16_t);
}

static struct solver_vec *cpu_alloc(void *ctx, size_t n, size_t site_reals, enum solver_prec prec)
{
    (void)ctx;
    if (site_reals == 0 || site_reals > SOLVER_SITE_REALS_MAX || n % site_reals || site_reals % 2)
        lat_die(1, "solver_blas_cpu", "vector of %zu reals in site blocks of %zu (an even block of 2..%d reals dividing n expected)",
                n, site_reals, SOLVER_SITE_REALS_MAX);
    struct solver_vec *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->prec = prec;
    v->n = n;
    v->site_reals = site_reals;
    v->data = calloc(n ? n : 1, elem_size(prec));
    if (prec == SOLVER_HALF) v->norm = calloc(n / site_reals + 1, sizeof(float));
    if (!v->data || (prec == SOLVER_HALF && !v->norm)) {
        free(v->data);
        free(v->norm);
        free(v);
        return NULL;
    }
    return v;
}

static void cpu_free(void *ctx, struct solver_vec *v)
{
    (void)ctx;
    if (!v) return;
    free(v->data);
    free(v->norm);
    free(v);
}

static void cpu_zero(void *ctx, struct solver_vec *y)
{
    (void)ctx;
    memset(y->data, 0, y->n * elem_size(y->prec));
    if (y->prec == SOLVER_HALF) memset(y->norm, 0, y->n / y->site_reals * sizeof(float));
}

/* out = a x + b y (complex) on one tile of m reals; out may be y (each
 * pair is read before it is written): caxpby's arithmetic, written once */
static inline void tile_caxpby(size_t m, solver_complex a, const double *xp, solver_complex b, const double *yp, double *out)
{
    for (size_t k = 0; k < m; k += 2) {
        double xr = xp[k], xi = xp[k + 1], yr = yp[k], yi = yp[k + 1];
        out[k] = a.re * xr - a.im * xi + b.re * yr - b.im * yi;
        out[k + 1] = a.re * xi + a.im * xr + b.re * yi + b.im * yr;
    }
}
/* out = y + a x on one tile (axpy's form of real_axpby below); out may be y */
static inline void tile_axpy(size_t m, double a, const double *xp, const double *yp, double *out)
{
    for (size_t k = 0; k < m; k++) out[k] = yp[k] + a * xp[k];
}

/* y = a x + b y (complex), the one elementwise kernel all others are */
static void cpu_caxpby(void *ctx, solver_complex a, const struct solver_vec *x, solver_complex b, struct solver_vec *y)
{
    (void)ctx;
    solver_vec_same_shape(x, y, "solver_blas_cpu caxpby");
    size_t m = y->site_reals;
    long nt = (long)(y->n / m);
#pragma omp parallel for schedule(static) if (y->n >= OMP_MIN_REALS)
    for (long t = 0; t < nt; t++) {
        double xb[SOLVER_SITE_REALS_MAX], yb[SOLVER_SITE_REALS_MAX];
        const double *xp = tile_in(x, (size_t)t, xb);
        const double *yp = tile_in(y, (size_t)t, yb);
        double *out = tile_out(y, (size_t)t, yb);
        tile_caxpby(m, a, xp, b, yp, out);
        tile_store(y, (size_t)t, out);
    }
}

/* y = a x + b y, real a and b (no products with zero imaginary parts) */
static void real_axpby(double a, const struct solver_vec *x, double b, struct solver_vec *y)
{
    solver_vec_same_shape(x, y, "solver_blas_cpu axpby");
    size_t m = y->site_reals;
    long nt = (long)(y->n / m);
#pragma omp parallel for schedule(static) if (y->n >= OMP_MIN_REALS)
    for (long t = 0; t < nt; t++) {
        double xb[SOLVER_SITE_REALS_MAX], yb[SOLVER_SITE_REALS_MAX];
        const double *xp = tile_in(x, (size_t)t, xb);
        double *out = tile_out(y, (size_t)t, yb);
        if (b == 0) { /* y's old values are not read: a copy or a fresh y */
            for (size_t k = 0; k < m; k++) out[k] = a * xp[k];
            tile_store(y, (size_t)t, out);
            continue;
        }
        const double *yp = tile_in(y, (size_t)t, yb);
        if (b == 1)
            tile_axpy(m, a, xp, yp, out);
        else if (a == 1)
            for (size_t k = 0; k < m; k++) out[k] = xp[k] + b * yp[k];
        else
            for (size_t k = 0; k < m; k++) out[k] = a * xp[k] + b * yp[k];
        tile_store(y, (size_t)t, out);
    }
}

static void cpu_copy(void *ctx, struct solver_vec *y, const struct solver_vec *x)
{
    (void)ctx;
    solver_vec_same_shape(x, y, "solver_blas_cpu copy");
    if (x == y) return;
    if (x->prec == y->prec) {
        memcpy(y->data, x->data, y->n * elem_size(y->prec));
        if (y->prec == SOLVER_HALF) memcpy(y->norm, x->norm, y->n / y->site_reals * sizeof(float));
        return;
    }
    real_axpby(1, x, 0, y); /* the b == 0 branch: y = 1 * x, exact */
}

static void cpu_scale(void *ctx, double a, struct solver_vec *y)
{
    (void)ctx;
    real_axpby(0, y, a, y);
}
static void cpu_axpy(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y)
{
    (void)ctx;
    real_axpby(a, x, 1, y);
}
static void cpu_xpay(void *ctx, const struct solver_vec *x, double a, struct solver_vec *y)
{
    (void)ctx;
    real_axpby(1, x, a, y);
}

static double pairwise(const double *v, size_t n, size_t stride)
{
    if (n == 0) return 0;
    if (n == 1) return v[0];
    size_t h = n / 2;
    return pairwise(v, h, stride) + pairwise(v + h * stride, n - h, stride);
}

static double *grow(double **p, size_t *cap, size_t n)
{
    if (n > *cap) {
        double *q = realloc(*p, n * sizeof *q);
        if (!q) lat_die(1, "solver_blas_cpu", "out of memory for %zu reduction partial sums", n);
        *p = q;
        *cap = n;
    }
    return *p;
}

/* What a reduction sums (out[] in this order, the ones asked for):
 * RED_XY conj(x) y (re, im), RED_XX |x|^2, RED_YY |y|^2.  Each sum has its
 * own accumulator and the loop of the unfused cdot / norm2, so a reduction
 * asking for several gives each one's bits (cdot_norm2,
 * caxpby_norm2_cdot).  upd (NULL: none): before its tiles are summed, y =
 * upd->a upd->x + upd->b y tile by tile (caxpby's tile_caxpby and store),
 * the sums reading y back as stored -- every tile lies in exactly one
 * reduction block, so this is caxpby followed by the reduction. */
enum { RED_XY = 1, RED_XX = 2, RED_YY = 4 };
struct red_update {
    solver_complex a, b;
    const struct solver_vec *x;
};
static void reduce_sums(struct cpu_blas *c, const struct solver_vec *x, const struct solver_vec *y, int want,
                        const struct red_update *upd, double *out)
{
    const int nres = (want & RED_XY ? 2 : 0) + (want & RED_XX ? 1 : 0) + (want & RED_YY ? 1 : 0);
    if (y) solver_vec_same_shape(x, y, "solver_blas_cpu cdot");
    if (upd) solver_vec_same_shape(upd->x, y, "solver_blas_cpu caxpby_norm2_cdot");
    size_t m = x->site_reals, nt = x->n / m;
    size_t parts = c->layout.chunk_reals && c->layout.parts > 1 ? c->layout.parts : 1;
    size_t ct = c->layout.chunk_reals ? c->layout.chunk_reals / m : nt; /* tiles per chunk */
    size_t nchunk = ct ? nt / ct : 0, first = c->layout.chunk_reals ? c->layout.first_chunk : 0;
    size_t total = c->layout.chunk_reals ? c->layout.total_chunks : 1;
    size_t per_part = nchunk / parts; /* chunks of one part */
    if (c->layout.chunk_reals &&
        (c->layout.chunk_reals % m || nt % ct || nchunk % parts || first + per_part > total))
        lat_die(1, "solver_blas_cpu", "reduction chunks of %zu reals (%zu.. of %zu, %zu parts) do not fit a vector of %zu reals in blocks of %zu",
                c->layout.chunk_reals, first, total, parts, x->n, m);
    if (nt == 0) nchunk = per_part = 0;
    size_t tpb = m >= REDUCE_BLOCK_REALS ? 1 : REDUCE_BLOCK_REALS / m; /* tiles per reduction block */
    size_t bpc = ct ? (ct + tpb - 1) / tpb : 0, nb = nchunk * bpc;
    double *partial = grow(&c->partial, &c->partial_cap, nb * (size_t)nres + 1);
#pragma omp parallel for schedule(static) if (x->n >= OMP_MIN_REALS)
    for (long bl = 0; bl < (long)nb; bl++) {
        size_t ci = (size_t)bl / bpc, j = (size_t)bl % bpc;
        size_t t0 = ci * ct + j * tpb, t1 = t0 + tpb < (ci + 1) * ct ? t0 + tpb : (ci + 1) * ct;
        double xb[SOLVER_SITE_REALS_MAX], yb[SOLVER_SITE_REALS_MAX], s0 = 0, s1 = 0, sx = 0, sy = 0;
        for (size_t t = t0; t < t1; t++) {
            if (upd) { /* y = a x' + b y on this tile, stored as caxpby stores it */
                struct solver_vec *yw = (struct solver_vec *)y;
                const double *up = tile_in(upd->x, t, xb), *yp = tile_in(y, t, yb);
                double *o = tile_out(yw, t, yb);
                tile_caxpby(m, upd->a, up, upd->b, yp, o);
                tile_store(yw, t, o);
            }
            const double *xp = tile_in(x, t, xb);
            const double *yp = y ? tile_in(y, t, yb) : NULL;
            if (want & RED_XY)
                for (size_t k = 0; k < m; k += 2) {
                    s0 += xp[k] * yp[k] + xp[k + 1] * yp[k + 1];
                    s1 += xp[k] * yp[k + 1] - xp[k + 1] * yp[k];
                }
            if (want & RED_XX)
                for (size_t k = 0; k < m; k++) sx += xp[k] * xp[k];
            if (want & RED_YY)
                for (size_t k = 0; k < m; k++) sy += yp[k] * yp[k];
        }
        double *pb = partial + (size_t)bl * nres;
        if (want & RED_XY) *pb++ = s0, *pb++ = s1;
        if (want & RED_XX) *pb++ = sx;
        if (want & RED_YY) *pb = sy;
    }
    const size_t nslot = parts * total;
    double *slots = grow(&c->slots, &c->slots_cap, nslot * (size_t)nres);
    memset(slots, 0, nslot * (size_t)nres * sizeof *slots);
    for (size_t ci = 0; ci < nchunk; ci++) {
        const size_t slot = (ci / per_part) * total + first + ci % per_part;
        for (int r = 0; r < nres; r++)
            slots[slot * nres + r] = pairwise(partial + ci * bpc * nres + r, bpc, (size_t)nres);
    }
    if (comm_size() > 1) comm_sum(slots, nslot * (size_t)nres);
    for (int r = 0; r < nres; r++) out[r] = pairwise(slots + r, nslot, (size_t)nres);
}

/* sum over x of conj(x) y (y set) or |x|^2 (y NULL) */
static void reduce(struct cpu_blas *c, const struct solver_vec *x, const struct solver_vec *y, double *out)
{
    reduce_sums(c, x, y, y ? RED_XY : RED_XX, NULL, out);
}

static solver_complex cpu_cdot(void *ctx, const struct solver_vec *x, const struct solver_vec *y)
{
    double s[2];
    reduce(ctx, x, y, s);
    return (solver_complex){s[0], s[1]};
}

static double cpu_norm2(void *ctx, const struct solver_vec *x)
{
    double s;
    reduce(ctx, x, NULL, &s);
    return s;
}

/* The fused kernels of struct solver_blas, as the unfused sequences they
 * stand for (their bits by construction).  On the CPU a kernel call costs
 * nothing beside its loop; the table offers them so that a solver written
 * for them runs the same here. */
static void cpu_multi_axpy(void *ctx, int n, const double *a, const struct solver_vec *const *x, struct solver_vec *const *y)
{
    for (int i = 0; i < n; i++) cpu_axpy(ctx, a[i], x[i], y[i]);
}
static void cpu_multi_caxpby(void *ctx, int n, const solver_complex *a, const struct solver_vec *x, const solver_complex *b,
                             struct solver_vec *const *y)
{
    for (int i = 0; i < n; i++) cpu_caxpby(ctx, a[i], x, b[i], y[i]);
}
/* y[i] += a[i] p[i], then p[i] = b[i] x + c[i] p[i]: one pass over the
 * tiles, each p tile decoded once for both updates (the unfused calls
 * decode the same stored tile twice: the same values), y's tile as axpy
 * computes and stores it, p's as caxpby does (half: a fresh block norm) */
static void cpu_multi_axpy_caxpby(void *ctx, int n, const double *a, const struct solver_vec *x, const solver_complex *b,
                                  const solver_complex *c, struct solver_vec *const *p, struct solver_vec *const *y)
{
    (void)ctx;
    if (n <= 0) return;
    for (int i = 0; i < n; i++) {
        solver_vec_same_shape(x, p[i], "solver_blas_cpu multi_axpy_caxpby");
        solver_vec_same_shape(x, y[i], "solver_blas_cpu multi_axpy_caxpby");
    }
    size_t m = x->site_reals;
    long nt = (long)(x->n / m);
#pragma omp parallel for schedule(static) if (x->n >= OMP_MIN_REALS)
    for (long t = 0; t < nt; t++) {
        double xb[SOLVER_SITE_REALS_MAX], pb[SOLVER_SITE_REALS_MAX], yb[SOLVER_SITE_REALS_MAX];
        const double *xp = tile_in(x, (size_t)t, xb);
        for (int i = 0; i < n; i++) {
            const double *pp = tile_in(p[i], (size_t)t, pb);
            const double *yp = tile_in(y[i], (size_t)t, yb);
            double *yo = tile_out(y[i], (size_t)t, yb);
            tile_axpy(m, a[i], pp, yp, yo); /* y += a p: axpy */
            tile_store(y[i], (size_t)t, yo);
            double *po = tile_out(p[i], (size_t)t, pb);
            tile_caxpby(m, b[i], xp, c[i], pp, po); /* p = b x + c p: caxpby, p in place */
            tile_store(p[i], (size_t)t, po);
        }
    }
}
static double cpu_axpy_norm2(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y)
{
    cpu_axpy(ctx, a, x, y);
    return cpu_norm2(ctx, y);
}
static solver_complex cpu_axpy_cdot(void *ctx, double a, const struct solver_vec *x, struct solver_vec *y)
{
    cpu_axpy(ctx, a, x, y);
    return cpu_cdot(ctx, x, y);
}

/* BiCGstab's fused kernels: the reductions above with several sums, and
 * caxpby2 tile by tile (each y tile stored after the first update and read
 * back for the second, as the two caxpby calls store and read it) */
static solver_complex cpu_cdot_norm2(void *ctx, const struct solver_vec *x, const struct solver_vec *y, double *xx)
{
    double s[3];
    reduce_sums(ctx, x, y, RED_XY | RED_XX, NULL, s);
    *xx = s[2];
    return (solver_complex){s[0], s[1]};
}
static double cpu_caxpby_norm2_cdot(void *ctx, solver_complex a, const struct solver_vec *x, solver_complex b,
                                    struct solver_vec *y, const struct solver_vec *z, solver_complex *zy)
{
    if (y == x || y == z) lat_die(1, "solver_blas_cpu caxpby_norm2_cdot", "y is also x or z");
    solver_vec_same_shape(z, y, "solver_blas_cpu caxpby_norm2_cdot");
    const struct red_update upd = {a, b, x};
    double s[3];
    reduce_sums(ctx, z, y, RED_XY | RED_YY, &upd, s);
    *zy = (solver_complex){s[0], s[1]};
    return s[2];
}
static void cpu_caxpby2(void *ctx, solver_complex a1, const struct solver_vec *x1, solver_complex b1, solver_complex a2,
                        const struct solver_vec *x2, solver_complex b2, struct solver_vec *y)
{
    (void)ctx;
    solver_caxpby2_check(x1, x2, y, "solver_blas_cpu caxpby2");
    size_t m = y->site_reals;
    long nt = (long)(y->n / m);
#pragma omp parallel for schedule(static) if (y->n >= OMP_MIN_REALS)
    for (long t = 0; t < nt; t++) {
        double xb[SOLVER_SITE_REALS_MAX], yb[SOLVER_SITE_REALS_MAX];
        const double *xp = tile_in(x1, (size_t)t, xb), *yp = tile_in(y, (size_t)t, yb);
        double *out = tile_out(y, (size_t)t, yb);
        tile_caxpby(m, a1, xp, b1, yp, out);
        tile_store(y, (size_t)t, out);
        xp = tile_in(x2, (size_t)t, xb);
        yp = tile_in(y, (size_t)t, yb); /* as stored: rounded to single, or half with its new norm */
        out = tile_out(y, (size_t)t, yb);
        tile_caxpby(m, a2, xp, b2, yp, out);
        tile_store(y, (size_t)t, out);
    }
}

struct solver_blas *solver_blas_cpu_open(const struct solver_reduce_layout *layout)
{
    struct cpu_blas *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (layout) {
        if (layout->chunk_reals == 0 || layout->total_chunks == 0 || layout->first_chunk >= layout->total_chunks)
            lat_die(1, "solver_blas_cpu_open", "reduction layout: chunks of %zu reals, first %zu of %zu",
                    layout->chunk_reals, layout->first_chunk, layout->total_chunks);
        c->layout = *layout;
    }
    c->blas = (struct solver_blas){
        .ctx = c,
        .alloc = cpu_alloc,
        .free = cpu_free,
        .zero = cpu_zero,
        .copy = cpu_copy,
        .scale = cpu_scale,
        .axpy = cpu_axpy,
        .xpay = cpu_xpay,
        .caxpby = cpu_caxpby,
        .cdot = cpu_cdot,
        .norm2 = cpu_norm2,
        .multi_axpy = cpu_multi_axpy,
        .multi_caxpby = cpu_multi_caxpby,
        .axpy_norm2 = cpu_axpy_norm2,
        .axpy_cdot = cpu_axpy_cdot,
        .multi_axpy_caxpby = cpu_multi_axpy_caxpby,
        .cdot_norm2 = cpu_cdot_norm2,
        .caxpby_norm2_cdot = cpu_caxpby_norm2_cdot,
        .caxpby2 = cpu_caxpby2,
    };
    return &c->blas;
}

void solver_blas_cpu_close(struct solver_blas *blas)
{
    if (!blas) return;
    struct cpu_blas *c = (struct cpu_blas *)blas;
    free(c->partial);
    free(c->slots);
    free(c);
}
