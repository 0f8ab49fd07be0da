/* fourier/gpu.h -- private to the CUDA backend of Fourier-accelerated gauge
 * fixing: its state and the per-precision entry points of fourier/gpu.cuh
 * (built by gpu_d.cu, gpu_s.cu, gpu_m.cu); fourier/gpu.c makes them
 * fa_backend_gpu.  One GPU per rank: the whole lattice on one rank, or a
 * t-slab (lattice/geometry.h: local slices 0 and lt+1 are halo copies) on
 * each of R MPI ranks; every N of the gpu_field (GPU_MIN_NC..GPU_MAX_NC,
 * gpu/gpu.h; lat-fourier refuses others first).
 *
 * Device storage: the links and g in the gpu_field layout read through the
 * accessor (gpu/accessor.cuh); the su(N) fields (Delta, P Delta, its
 * previous value, s) as alg_dim(N) arrays of V reals of the compute type
 * (component slowest, ILDG site order); G as N x N complex per site; the
 * transform buffer as ncomp arrays of V complex numbers ([t][z][y][x]),
 * transformed by cuFFT: per timeslice in 3-D (batched) and, for Landau,
 * along t (a strided batch) -- the CPU's order of operations.  On a slab
 * the buffer has fft/fft.h's layouts (stride `count` per component:
 * position space [t_own][V3], Landau's momentum space [kt][chunk]) and the
 * transpose between the slabs is packed on the device and exchanged
 * device to device into the other ranks' GPUs (gpu/peer.h), else through
 * pinned host memory (comm_isend/irecv: OpenMPI here is not CUDA-aware).
 * Landau on a slab also refreshes, the same two ways, the halo copies its
 * stencils read: U_t of local slice 0 (after every move),
 * G and the direction s of local slice lt+1 (before the move, the
 * curvature).  Per-slice sums: one slot per global slice, combined with
 * comm_sum (exact), so the numbers and the bits do not depend on R. */
#ifndef LAT_FOURIER_GPU_H
#define LAT_FOURIER_GPU_H

#include "fourier/backend.h"
#include "gpu/field.h"

struct fa_gpu_state {
    struct gpu_field f;
    int nc, nd, nt, ad, ncomp, have_pold;
    enum gauge_kind gauge;
    char prec;
    int64_t V, V3;
    void *grad, *pgrad, *pgrad_old, *dir, *G, *buf, *weight; /* device, compute type */
    double *partials, *hpart;    /* device / host block sums */
    double *beta_d;              /* device: nt */
    unsigned char *set_d;        /* device: nt */
    int plan3, plan1;            /* cuFFT handles (plan1: Landau's t lines) */
    /* the slab (dom NULL: one rank, tb 0, lt nt, t0 0, count V) */
    const struct geometry *dom;
    int tb, lt, t0, R, rank, plan3_whole; /* plan3_whole: one exec covers every component */
    int64_t count, k3b, k3e;     /* per-component buffer stride; Landau: this rank's spatial momenta */
    void *xsend, *xrecv;         /* device: the transpose's packed messages (xbytes each; one
                                  * allocation, which the peers map: send, receive region A
                                  * (xrecv), receive region B (the peer path alternates) */
    size_t xbytes;
    struct gpu_peer *peer;       /* the transpose device to device (gpu/peer.h), or NULL: through the host */
    void *hsend, *hrecv;         /* pinned host: the same, and the halo slices' staging */
    /* Landau's halo slices device to device: up = U_t to the rank above,
     * down = a first owned slice to the rank below; each its own
     * allocation [send | receive A | receive B] of hup/hdown_bytes each and
     * its own peer (NULL: through the host); rounds counted per peer (the
     * receive region alternates with the parity) */
    void *hup, *hdown;
    size_t hup_bytes, hdown_bytes;
    struct gpu_peer *peer_up, *peer_down;
    unsigned xround, upround, downround;
};

#ifdef __cplusplus
extern "C" {
#endif
#define FA_GPU_DECLARE(sfx)                                                                                     \
    struct fa_gpu_state *fa_gpu_create_##sfx(const struct field *u, const double *transform, enum gauge_kind g); \
    void fa_gpu_gradient_##sfx(struct fa_gpu_state *s, double *fsums, double *dphi);                          \
    void fa_gpu_precondition_##sfx(struct fa_gpu_state *s, double *dots);                                     \
    void fa_gpu_direction_##sfx(struct fa_gpu_state *s, const unsigned char *set, const double *beta, double *dphi); \
    void fa_gpu_curvature_##sfx(struct fa_gpu_state *s, double *d2);                                         \
    void fa_gpu_step_##sfx(struct fa_gpu_state *s, const double *alpha);                                      \
    void fa_gpu_apply_host_G_##sfx(struct fa_gpu_state *s, const double *G);                                  \
    void fa_gpu_reunitarize_##sfx(struct fa_gpu_state *s);                                                     \
    void fa_gpu_destroy_##sfx(struct fa_gpu_state *s);
FA_GPU_DECLARE(d)
FA_GPU_DECLARE(s)
FA_GPU_DECLARE(m)
#ifdef __cplusplus
}
#endif


#endif
