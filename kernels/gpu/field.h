/* gpu/field.h -- a field on the device: its storage (parity-split, blocked
 * structure of arrays) and what the GPU layer does with it for every module:
 * allocation and copies (util.cu), a device field from and to a host field
 * and the update step of a slab (field.c), the halo exchange of slabs
 * (halo.cu), the deterministic observables (observables.cu).
 *
 * Exported (contracts at each group below):
 *   gpu_alloc, gpu_free, gpu_upload, gpu_download, gpu_memset, gpu_sync,
 *   gpu_check, gpu_device_name, gpu_mem_info, gpu_copy_bandwidth,
 *   gpu_timer_start/stop;
 *   gpu_field_create, gpu_field_create_recon, gpu_field_upload,
 *   gpu_field_download, gpu_field_free;
 *   gpu_slab_init, gpu_slab_step, gpu_slab_free;
 *   gpu_observables_sums, gpu_field_observables;
 *   gpu_halo_new, gpu_halo_free, gpu_halo_start, gpu_halo_finish.
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
 * kernels keep one address per link.  The link compression `recon` is
 * chosen when the field is created: 12 for SU(3) by default (ncomp = 12:
 * rows 0 and 1 only, c = 2*(row*N + col) + (0 re, 1 im); row 2 =
 * conj(row0 x row1) is rebuilt in registers), 8 for SU(3) on request
 * (ncomp = 8: c = the index into su3_pack8's 8 reals, math/sun.h; the
 * kernels unpack with su3_unpack8; two 16-byte groups in float, four in
 * double), 18 (GPU_RECON_FULL, "no compression") for N != 3: all 2N^2
 * reals, c as for 12, ncomp = 2N^2 rounded up to whole groups (SU(5) and
 * SU(7) in float: 52 and 100, the last two reals zero).  The kernels' accessor (gpu/accessor.cuh): recon 12
 * = LINK_12, 8 = LINK_8, 18 = LINK_FULL.  The halo exchange moves a link's
 * ncomp stored reals as they are, whatever they mean.  The tracked transform g(x), if any,
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
    int nc;            /* N of SU(N): GPU_MIN_NC..GPU_MAX_NC (gpu/gpu.h) */
    int recon;         /* link compression: GPU_RECON_12 or _8 (N = 3), _FULL (N != 3) */
    int ncomp;         /* stored reals per link: recon for N = 3, else 2N^2 rounded up to vec */
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
     * slab of an MPI run (lattice/geometry.h) one timeslice range at a time and the
     * global site of local site 0 (the field is the local lattice). */
    int h0, h1;
    int64_t site0;
};

#define GPU_LANES 32
/* gpu_field.recon: the reals an SU(3) link is stored in (FULL: all 2N^2) */
enum { GPU_RECON_FULL = 18, GPU_RECON_12 = 12, GPU_RECON_8 = 8 };
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
/* bytes a kernel stored into page-locked host memory and the host read
 * (the multi-shift loop's flags): counted as one download */
void gpu_transfer_note_down(size_t bytes);
/* what gpu_upload and gpu_download have moved since the last take (or the
 * start), then counting starts again from zero (every host <-> device copy
 * of the library goes through them, except the halo exchanges of halo.cu
 * and the slab codes and the tuner's): bytes and calls each way, and the
 * largest single copy -- how lat-hmc shows what leaves the device */
struct gpu_transfer_count {
    unsigned long long up_bytes, down_bytes, up_calls, down_calls, largest;
};
void gpu_transfer_take(struct gpu_transfer_count *c);
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

/* ---- field.c: a device field from and to a host field --------------------
 * create: the device storage for the (local) lattice of u -- links, the
 *   transform when with_transform, the Lt-byte timeslice mask -- in storage
 *   precision prec ('d', 's', 'm'); N = GPU_MIN_NC..GPU_MAX_NC (the tools
 *   refuse other N before, tools/shared/device_opt.c); a slab field (u->dom) needs an even local extent lt (else exit 1
 *   on every rank).  h0 = h1 = site0 = 0; gpu_slab_init sets site0.
 *   recon: GPU_RECON_12 for SU(3), GPU_RECON_FULL otherwise.
 * create_recon: the same with the link compression chosen: recon 0 (the
 *   default, as create), GPU_RECON_12 or GPU_RECON_8 (SU(3) only) or
 *   GPU_RECON_FULL (any N; SU(3) whole: the Dirac operator's recon 18);
 *   anything else: exit 2, one line.
 * upload: u's links (ILDG order, 64 or 32 bit) into the device layout,
 *   rounded to the storage type (recon 8: su3_pack8 in double, then the 8
 *   reals rounded), and the transform (host order, N x N per site, double)
 *   when given and allocated.  Synchronises.
 * download: waits for the device, then the links back into u (recon 12:
 *   the third row rebuilt in double; recon 8: su3_unpack8 in double) and
 *   the transform into `transform` when both exist.  u must have f's
 *   lattice and N.
 * free: the device storage (f may be zeroed or already freed). */
struct field;
void gpu_field_create(struct gpu_field *f, const struct field *u, char prec, int with_transform);
void gpu_field_create_recon(struct gpu_field *f, const struct field *u, char prec, int with_transform, int recon);
void gpu_field_upload(struct gpu_field *f, const struct field *u, const double *transform);
void gpu_field_download(const struct gpu_field *f, struct field *u, double *transform);
void gpu_field_free(struct gpu_field *f);

/* ---- field.c: one update step on a slab of an MPI run --------------------
 * init: d NULL (one rank: nothing to do) or the slab's geometry; sets
 *   f->site0 (global site of local site 0) and the halo buffers.
 * step: the sites of one global parity: launch(f, local parity, arg) for the
 *   boundary slices 1 and lt (f->h0/h1 set), the halo parts on their way,
 *   the interior 2..lt-1, the halo received; with nparts 0 (Coulomb gauge)
 *   the owned slices are one launch and nothing is exchanged.  f->h0 = h1 =
 *   0 afterwards.  Gauge fixing and the heatbath run their slab sweeps
 *   through it.  local parity = global parity ^ pflip. */
struct gpu_slab {
    const struct geometry *dom; /* NULL: one rank */
    int pflip;
    struct gpu_halo *halo;
};
void gpu_slab_init(struct gpu_slab *s, struct gpu_field *f, const struct geometry *d);
void gpu_slab_step(struct gpu_slab *s, struct gpu_field *f, int parity, const struct halo_part *parts, int nparts,
                   void (*launch)(struct gpu_field *f, int local_parity, void *arg), void *arg);
void gpu_slab_free(struct gpu_slab *s);

/* ---- observables.cu, field.c: plaquette, link trace, Polyakov loop,
 * unitarity of a whole-lattice field (not a slab), any N of gpu/gpu.h, any storage
 * precision (arithmetic in double), the per-site formulas of
 * lattice/observables_site.h.  Deterministic: a fixed grid independent of
 * the device, per-block partial sums in double, added on the host in block
 * order (maxima: NaN-propagating, in the same order).
 * sums: out[0..2] plaquette sums (all, spatial, temporal) of Re tr,
 *   out[3] sum Re tr U, out[4..5] sum tr Polyakov (re, im), out[6] sum of
 *   ||U^dag U - 1||_F, out[7] max of it, out[8] sum |det U - 1|, out[9] max.
 * observables: the same with SPEC §3's normalisations. */
struct gpu_observables {
    double plaq, plaq_s, plaq_t;
    double link_trace;
    double poly_re, poly_im;
    double unit_mean, unit_max, det_mean, det_max;
};
void gpu_observables_sums(const struct gpu_field *f, double out[10]);
void gpu_field_observables(const struct gpu_field *f, struct gpu_observables *o);

#ifdef __cplusplus
}
#endif

#endif
