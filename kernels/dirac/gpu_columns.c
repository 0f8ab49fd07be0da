/* dirac/gpu_columns.c -- the GPU Wilson-clover operator (dirac/gpu.h) on
 * blocks of columns, and the solver's views of it (plain C, so the host
 * emulations compile it as it is): dirac_gpu_col_sites, dirac_gpu_block_new,
 * dirac_gpu_block_column, dirac_gpu_eo_apply_block, dirac_gpu_solver_op
 * (one vector) and dirac_gpu_block_solver_op (a block as one vector).
 * Without CUDA dirac/gpu_nocuda.c answers for them. */
#include "dirac/gpu.h"
#include "base/log.h"
#include <stdlib.h>

#ifdef LAT_HAVE_CUDA
#include "dirac/gpu_impl.h"
#include "gpu/gpu.h"
#include "gpu/spinor.h"

/* ---- blocks of columns ------------------------------------------------------ */
int64_t dirac_gpu_col_sites(const struct dirac_gpu *g) { return gpu_spinor_nblk(g->nsites) * GPU_SPINOR_LANES; }

struct solver_vec *dirac_gpu_block_new(const struct dirac_gpu *g, enum solver_prec prec, int ncols)
{
    if (ncols < 1) lat_die(1, "GPU Dirac", "internal error: a block of %d columns", ncols);
    struct solver_vec *v = (struct solver_vec *)lat_calloc(1, sizeof *v);
    const int64_t cs = dirac_gpu_col_sites(g);
    const size_t bytes = (size_t)ncols * gpu_spinor_storage(g->nsites, SITE_REALS) * dirac_gpu_elem_size(prec);
    v->prec = prec;
    v->n = (size_t)ncols * (size_t)cs * SITE_REALS;
    v->site_reals = SITE_REALS;
    v->data = gpu_alloc(bytes, "a block of spinor vectors");
    gpu_memset(v->data, 0, bytes);
    if (prec == SOLVER_HALF) {
        v->norm = (float *)gpu_alloc((size_t)ncols * cs * sizeof(float), "the norms of a half spinor block");
        gpu_memset(v->norm, 0, (size_t)ncols * cs * sizeof(float));
    }
    return v;
}

void dirac_gpu_block_column(const struct dirac_gpu *g, const struct solver_vec *block, int c, struct solver_vec *col)
{
    const int64_t cs = dirac_gpu_col_sites(g);
    const size_t per = (size_t)cs * SITE_REALS;
    dirac_gpu_check_vec(block, "a block's column");
    if (c < 0 || block->n % per || (size_t)c >= block->n / per)
        lat_die(1, "GPU Dirac", "internal error: column %d of a block of %zu", c, block->n / per);
    *col = *block;
    col->n = (size_t)g->nsites * SITE_REALS;
    col->data = (char *)block->data + (size_t)c * gpu_spinor_storage(g->nsites, SITE_REALS) * dirac_gpu_elem_size(block->prec);
    col->norm = block->norm ? block->norm + (size_t)c * cs : NULL;
}

void dirac_gpu_eo_apply_block(struct dirac_gpu *g, int dag, struct solver_vec *out, const struct solver_vec *in, int ncols)
{
    if (ncols < 1) lat_die(1, "GPU Dirac", "internal error: Mhat on a block of %d columns", ncols);
    if (ncols == 1) { /* a block of one is its column 0, the plain application */
        struct solver_vec o, i;
        dirac_gpu_block_column(g, out, 0, &o);
        dirac_gpu_block_column(g, in, 0, &i);
        dirac_gpu_eo_apply_cols(g, dag, &o, &i, 1);
        return;
    }
    dirac_gpu_eo_apply_cols(g, dag, out, in, ncols);
}

/* ---- the solver's views -----------------------------------------------------
 * one set of callbacks over a view (gpu_impl.h's struct dirac_gpu_view):
 * ncols 1, one vector (dirac_gpu_eo_apply); more, a block of them as one
 * vector (dirac_gpu_eo_apply_block: one launch a sweep for all) */
static void view_apply_vec(void *c, int dag, struct solver_vec *o, const struct solver_vec *i)
{
    const struct dirac_gpu_view *v = (const struct dirac_gpu_view *)c;
    dirac_gpu_eo_apply_cols(v->g, dag, o, i, v->ncols);
}
static void view_raw(void *c, int dag, enum solver_prec p, void *out, const void *in)
{
    const struct dirac_gpu_view *v = (const struct dirac_gpu_view *)c;
    const size_t n = (size_t)v->ncols * (size_t)v->g->nsites * SITE_REALS; /* a block: V/2 a multiple of 32 */
    struct solver_vec o = {p, n, SITE_REALS, out, NULL}, i = {p, n, SITE_REALS, (void *)in, NULL};
    view_apply_vec(c, dag, &o, &i);
}
static void view_apply(void *c, double *o, const double *i) { view_raw(c, 0, SOLVER_DOUBLE, o, i); }
static void view_apply_dag(void *c, double *o, const double *i) { view_raw(c, 1, SOLVER_DOUBLE, o, i); }
static void view_apply_f(void *c, float *o, const float *i) { view_raw(c, 0, SOLVER_SINGLE, o, i); }
static void view_apply_dag_f(void *c, float *o, const float *i) { view_raw(c, 1, SOLVER_SINGLE, o, i); }

static void view_op(struct solver_op *s, struct dirac_gpu_view *v, struct dirac_gpu *g, int ncols)
{
    v->g = g, v->ncols = ncols;
    *s = (struct solver_op){.n = (size_t)ncols * (size_t)g->nsites * SITE_REALS, .site_reals = SITE_REALS, .ctx = v,
                            .apply = view_apply, .apply_dag = view_apply_dag, .apply_f = view_apply_f,
                            .apply_dag_f = view_apply_dag_f, .apply_vec = view_apply_vec};
}

void dirac_gpu_solver_op(struct solver_op *s, struct dirac_gpu *g) { view_op(s, &g->view[0], g, 1); }

int dirac_gpu_block_solver_op(struct solver_op *s, struct dirac_gpu *g, int ncols)
{
    if (ncols < 1 || g->dom || dirac_gpu_col_sites(g) != g->nsites) return -1;
    view_op(s, &g->view[1], g, ncols);
    return 0;
}
#else
typedef int dirac_gpu_columns_unused; /* ISO C: no empty translation unit */
#endif
