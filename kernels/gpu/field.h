/* gpu/field.h -- a field on the device: its storage (parity-split, blocked
 * structure of arrays) and what the GPU layer does with it for every module:
 * allocation and copies (util.cu), the halo exchange of slabs (halo.cu).
 *
 * Storage on the device (paper §4.2, SPEC §5): structure of arrays, split by
 * parity, in blocks of 32 sites.  Sites of parity p are numbered by
 * h = site/2 (site in ILDG order, x fastest; Lx is even, so h is unique
 * within a parity); block b = h/32 holds sites 32b..32b+31, lane l = h%32.
 * Within the block of one link slot (slot = 4p + mu; the transform: p) the
 * reals of a matrix are grouped by `vec` (16 bytes: 4 floats or 2 doubles):
 *     links[((slot*nblk + b)*ncomp + (c/vec)*vec)*32 + l*vec + c%vec]
 * (gpu_index below).  A warp reading one group of its 32 sites reads 512
 * contiguous bytes with one 16-byte load per thread: every access is
 * coalesced, and all offsets within a site's link are constants, so the
 * kernels keep one address per link.  ncomp = 12 for SU(3) (rows 0 and 1
 * only; row 2 = conj(row0 x row1) is rebuilt in registers), 2N^2 otherwise;
 * c = 2*(row*N + col) + (0 re, 1 im).  The tracked transform g(x), if any,
 * keeps the full N x N matrix (ncomp_t = 2N^2 rounded up to vec).
 * Storage type: double for precision 'd', float for 's' and 'm'; arithmetic
 * is float for 's', double for 'd' and 'm' (single storage, double update).
 *
 * Every CUDA error ends the program with one line via lat_die (exit 1). */
#ifndef LAT_GPU_FIELD_H
#define LAT_GPU_FIELD_H

#include <stddef.h>
#include <stdint.h>

struct gpu_field {
    int L[4];          /* extents x, y, z, t (all even) */
    int nc;            /* N of SU(N); the kernels exist for N = 2 and 3 */
    int ncomp;         /* stored reals per link: 12 (N = 3) or 2N^2 */
    int ncomp_t;       /* stored reals per transform matrix */
    int vec;           /* reals per 16 bytes: 2 (double storage) or 4 */
    int64_t V, Vh;     /* sites, sites per parity */
    int64_t nblk;      /* blocks of 32 sites per parity: ceil(Vh/32) */
    char prec;         /* 'd', 's' or 'm' */
    void *links;       /* device: 8*nblk*ncomp*32 reals of the storage type */
    void *transform;   /* device: 2*nblk*ncomp_t*32 reals, or NULL */
    unsigned char *active; /* device: Lt bytes, Coulomb timeslice mask */
    /* What one sweep launch covers (gaugefix_gpu.c sets them before each):
     * half indices [h0, h1) of the parity (h1 = 0: all Vh), and site0, added
     * to the local site for the random streams.  On one rank 0, 0, 0; on a
     * slab of an MPI run (domain.h) one timeslice range at a time and the
     * global site of local site 0 (the field is the local lattice). */
    int h0, h1;
    int64_t site0;
};

#define GPU_LANES 32
/* position of real c of the matrix in slot `slot` at half index h */
#ifdef __CUDACC__
__host__ __device__ /* the halo (un)pack kernels use it too (gpu_halo.cu) */
#endif
static inline size_t gpu_index(int64_t nblk, int ncomp, int vec, int slot, int c, int64_t h)
{
    return (((size_t)slot * (size_t)nblk + (size_t)(h / GPU_LANES)) * (size_t)ncomp + (size_t)(c / vec * vec)) * GPU_LANES +
           (size_t)(h % GPU_LANES) * (size_t)vec + (size_t)(c % vec);
}

#ifdef __cplusplus
extern "C" {
#endif

/* ---- gpu_util.cu --------------------------------------------------------- */
void *gpu_alloc(size_t bytes, const char *what);          /* dies on failure */
void gpu_free(void *p);
void gpu_upload(void *dst, const void *src, size_t bytes);  /* host -> device */
void gpu_download(void *dst, const void *src, size_t bytes);/* device -> host */
void gpu_memset(void *dst, int v, size_t bytes);
void gpu_sync(const char *what);                          /* dies on error */
void gpu_check(const char *what);                         /* last launch error */
void gpu_device_name(char *buf, int len);
void gpu_mem_info(size_t *free_bytes, size_t *total_bytes);
/* device-to-device copy bandwidth (bytes read + written per second) of a
 * cudaMemcpy of `bytes`, the median of `reps` copies after one warm-up */
double gpu_copy_bandwidth(size_t bytes, int reps);
/* event timer on the default stream */
void gpu_timer_start(void);
double gpu_timer_stop(void); /* seconds since gpu_timer_start, synchronised */
void gpu_set_sweep_variant(int v);
const char *gpu_sweep_variant_name(char prec, int v);
int gpu_get_sweep_variant(void);

/* ---- gpu_halo.cu: the halo exchange on a slab of an MPI run -------------
 * start: pack the parts' send slices (after the boundary kernels, default
 * stream) and send them on a stream of its own (device to device into the
 * neighbour's GPU on one node, else through pinned host memory and MPI);
 * finish: complete the exchange, unpack, default stream waits.  pflip:
 * local parity = global parity ^ pflip.  Only mu >= 0, parity >= 0 parts. */
struct gpu_halo;
struct geometry;
struct halo_part;
struct gpu_halo *gpu_halo_new(const struct gpu_field *f);
void gpu_halo_free(struct gpu_halo *x);
void gpu_halo_start(struct gpu_halo *x, const struct gpu_field *f, const struct geometry *d, const struct halo_part *parts,
                    int nparts, int pflip);
void gpu_halo_finish(struct gpu_halo *x, const struct gpu_field *f, const struct geometry *d, int pflip);

#ifdef __cplusplus
}
#endif

#endif
