/* dirac/gpu_nocuda.c -- the GPU Wilson-clover operator's functions
 * (dirac/gpu.h) in a build without CUDA (make CUDA=0): dirac_gpu_create
 * refuses with the reason, dirac_gpu_free takes NULL, every other call is
 * an internal error (no operator exists to call them on).  With CUDA this
 * file is empty and dirac/gpu.c defines them. */
#ifndef LAT_HAVE_CUDA
#include "dirac/gpu.h"
#include "base/log.h"
#include <stdio.h>


struct dirac_gpu *dirac_gpu_create(const struct dirac_op *cpu, const struct field *u, int recon, char *why, size_t len)
{
    (void)cpu; (void)u; (void)recon;
    snprintf(why, len, "this lat was built without CUDA");
    return NULL;
}
static void no_gpu(void) { lat_die(1, "GPU Dirac", "internal error: this lat was built without CUDA"); }
void dirac_gpu_free(struct dirac_gpu *g) { (void)g; }
int64_t dirac_gpu_nsites(const struct dirac_gpu *g) { (void)g; no_gpu(); return 0; }
void dirac_gpu_eo_apply(struct dirac_gpu *g, int dag, struct solver_vec *out, const struct solver_vec *in)
{ (void)g; (void)dag; (void)out; (void)in; no_gpu(); }
void dirac_gpu_solver_op(struct solver_op *s, struct dirac_gpu *g) { (void)s; (void)g; no_gpu(); }
struct solver_vec *dirac_gpu_vec_new(const struct dirac_gpu *g, enum solver_prec prec)
{ (void)g; (void)prec; no_gpu(); return NULL; }
void dirac_gpu_vec_free(struct solver_vec *v) { (void)v; }
void dirac_gpu_vec_upload(struct solver_vec *v, const double *host) { (void)v; (void)host; no_gpu(); }
void dirac_gpu_vec_download(double *host, const struct solver_vec *v) { (void)host; (void)v; no_gpu(); }
void dirac_gpu_eo_prepare(struct dirac_gpu *g, struct solver_vec *bhat_o, const struct solver_vec *b_e,
                          const struct solver_vec *b_o)
{ (void)g; (void)bhat_o; (void)b_e; (void)b_o; no_gpu(); }
void dirac_gpu_eo_reconstruct(struct dirac_gpu *g, struct solver_vec *x_e, const struct solver_vec *x_o,
                              const struct solver_vec *b_e)
{ (void)g; (void)x_e; (void)x_o; (void)b_e; no_gpu(); }
void dirac_gpu_residual_norm2(struct dirac_gpu *g, struct solver_blas *blas, const struct solver_vec *x_e,
                              const struct solver_vec *x_o, const struct solver_vec *b_e, const struct solver_vec *b_o,
                              double *r2, double *b2)
{ (void)g; (void)blas; (void)x_e; (void)x_o; (void)b_e; (void)b_o; (void)r2; (void)b2; no_gpu(); }
void dirac_gpu_set_half_links(struct dirac_gpu *g, int bits) { (void)g; (void)bits; no_gpu(); }
void dirac_gpu_counts(const struct dirac_gpu *g, enum solver_prec prec, double *flop, double *bytes, double *bytes_paper)
{ (void)g; (void)prec; (void)flop; (void)bytes; (void)bytes_paper; no_gpu(); }
int64_t dirac_gpu_col_sites(const struct dirac_gpu *g) { (void)g; no_gpu(); return 0; }
struct solver_vec *dirac_gpu_block_new(const struct dirac_gpu *g, enum solver_prec prec, int ncols)
{ (void)g; (void)prec; (void)ncols; no_gpu(); return NULL; }
void dirac_gpu_block_column(const struct dirac_gpu *g, const struct solver_vec *block, int c, struct solver_vec *col)
{ (void)g; (void)block; (void)c; (void)col; no_gpu(); }
void dirac_gpu_eo_apply_block(struct dirac_gpu *g, int dag, struct solver_vec *out, const struct solver_vec *in, int ncols)
{ (void)g; (void)dag; (void)out; (void)in; (void)ncols; no_gpu(); }
int dirac_gpu_block_solver_op(struct solver_op *s, struct dirac_gpu *g, int ncols)
{ (void)s; (void)g; (void)ncols; no_gpu(); return -1; }
#else
typedef int dirac_gpu_nocuda_unused; /* ISO C: no empty translation unit */
#endif
