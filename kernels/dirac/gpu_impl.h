/* dirac/gpu_impl.h -- private to the Dirac module: the GPU Wilson-clover
 * operator's state, shared by dirac/gpu.c (creation, sweeps, the even-odd
 * ends) and dirac/gpu_columns.c (blocks of columns, the solver's views).
 * CUDA builds only (LAT_HAVE_CUDA).
 *
 *   dirac_gpu_elem_size(prec)      bytes of one stored real
 *   dirac_gpu_check_vec(v, where)  v is a device vector of Wilson spinors
 *                                  (else one line, exit 1: an internal error)
 *   dirac_gpu_eo_apply_cols(g, dag, out, in, ncols)
 *       Mhat (dag: Mhat^dag): ncols 1 on one vector (dirac_gpu_eo_apply),
 *       ncols > 1 on blocks of ncols columns (dirac_gpu_eo_apply_block) */
#ifndef LAT_DIRAC_GPU_IMPL_H
#define LAT_DIRAC_GPU_IMPL_H

#include "dirac/gpu.h"
#include "dirac/gpu_faces.h"
#include "gpu/field.h"
#include "lattice/geometry.h"

#define SITE_REALS 24 /* a Wilson spinor of SU(3) */
#define CLOVER_REALS 72

struct dirac_gpu {
    struct gpu_field links_d, links_s; /* double and float storage, no phases */
    int16_t *links16;            /* the half sweeps' links: links_s's places, 16 bits */
    int half_link_bits;          /* 16: half sweeps read links16 and clov_h; 32: links_s and clov_s */
    int clover;
    double kappa;
    double phase[LAT_ND][2];
    int64_t nsites;              /* V/2 */
    void *clov_d[2][2], *clov_s[2][2]; /* [inv][parity]: A, A^-1 per parity, or NULL */
    void *clov_h[2][2];          /* the same in 16 bits (the half sweeps) */
    float *clov_hs[2][2];        /* and their factors q -> real, one per site */
    struct solver_vec *tmp[3];   /* the even intermediate per precision (made when first needed) */
    struct solver_vec *tmp_block[3]; /* the same for a block of columns, tmp_cols[p] of them */
    int tmp_cols[3];
    struct dirac_gpu_view {      /* a solver_op's ctx: g on ncols columns */
        struct dirac_gpu *g;
        int ncols;
    } view[2];                   /* dirac_gpu_solver_op's (1), dirac_gpu_block_solver_op's */
    /* a t-slab (NULL: one process) and its faces (dirac/gpu_faces.h;
     * face_bytes 12 V3h doubles) */
    const struct geometry *dom;
    int tg0, ltg;
    struct gpu_faces faces;
};

size_t dirac_gpu_elem_size(enum solver_prec p);
void dirac_gpu_check_vec(const struct solver_vec *v, const char *where);
void dirac_gpu_eo_apply_cols(struct dirac_gpu *g, int dag, struct solver_vec *out, const struct solver_vec *in, int ncols);

#endif
