/* dirac/gpu_faces.h -- private, host code of CUDA builds: the two faces of
 * a t-slab sweep of the GPU Wilson-clover and staggered operators (gpu.c,
 * staggered_gpu.c), one copy of their exchange; also the staggered
 * monomial's force face (hmc/staggered_monomial_gpu.c: only the fwd slot
 * carries data there).
 *
 *   gpu_faces_open(f, d, face_bytes, what)  collective: device slots of
 *       face_bytes (the largest face, double), host staging, the peer copies
 *       (gpu/peer.h; NULL: staged through the host and MPI), and
 *       LAT_GPU_NO_HALO=1 (no exchange: bench timing only, wrong results).
 *       Slots 0 and 1: this rank's faces for the previous rank (fwd) and
 *       the next (bwd), written by the caller's pack launch at dev and
 *       dev + fb (fb: a face in the compute precision).  Received: slots 2, 3
 *       staged; through the peer 2, 3 or 4, 5, alternating from sweep to
 *       sweep, so that a neighbour never writes the slots this rank's last
 *       boundary launch may still read (that launch ran before this rank's
 *       next pack, whose copy the neighbour waited for); slots of the double
 *       face whatever the precision, so that a mixed solve's single sweep
 *       cannot write what the double one before may still be reading.
 *   gpu_faces_pack_to(f, fb, direct, &out_fwd, &out_bwd)  before the pack:
 *       where it writes the two faces.  Answers NULL with this rank's slots
 *       0 and 1 (the pack goes on the default stream, gpu_faces_exchange
 *       sends them), unless `direct` and the peer maps the neighbours'
 *       slots here (not the host emulation, not LAT_GPU_FACES=copy): then
 *       the neighbours' receive slots of this sweep over NVLink, and the
 *       stream (a cudaStream_t, gpu_peer_put_stream's) the caller launches
 *       the pack on -- it runs beside the interior launch, and the
 *       exchange only waits.  Why (issue 21, 32^3x8 on two GPUs, four
 *       slices a slab): the pack, the copy engine's two copies and the
 *       arrival store ran one after the other while only two slices of
 *       interior could run, 23 us a sweep of 42.  A caller may pack a
 *       sweep's faces ahead of it (staggered_gpu.c's prepare) unless
 *       no_ahead.  LAT_GPU_FACES (read at open, for timing): copy -- the
 *       copy engine's path, nothing ahead (as before session 21); direct --
 *       the direct pack, nothing ahead.
 *   gpu_faces_exchange(f, fb, tag, interior, arg, fwd, bwd)  after the pack
 *       (queued on the default stream): send the two faces, call
 *       interior(arg) (the interior launch, which runs while they travel),
 *       receive; *fwd, *bwd: the received faces on the device (from the next
 *       and from the previous rank) for the boundary launch.  tag: the MPI
 *       tags tag, tag + 1 of the staged path.  Through the peer the end of
 *       the exchange is on the devices (gpu_peer_wait_device): the host
 *       queues the boundary launch at once, and the device runs it once the
 *       faces have arrived.
 *   gpu_faces_close(f)  collective (the peer unmapped before any rank frees
 *       its slots). */
#ifndef LAT_DIRAC_GPU_FACES_H
#define LAT_DIRAC_GPU_FACES_H
#include "gpu/field.h"
#include "gpu/peer.h"
#include "lattice/geometry.h"
#include "base/comm.h"
#include "base/log.h"
#include <stdlib.h>
#include <string.h>

struct gpu_faces {
    const struct geometry *dom;
    size_t face_bytes;
    char *dev;                /* 6 slots */
    unsigned char *host;      /* 4 slots */
    struct gpu_peer *peer;
    unsigned sweeps;          /* which receive slots (peer) */
    int no_halo;
    int copy_only;            /* LAT_GPU_FACES=copy: never the direct pack */
    int no_ahead;             /* LAT_GPU_FACES=copy or direct: no pack ahead of its sweep (the operators' prepare) */
    int put;                  /* this sweep's pack stored into the neighbours (gpu_faces_pack_to) */
    size_t put_rf;            /* and the receive slot it chose */
};

static inline void gpu_faces_open(struct gpu_faces *f, const struct geometry *d, size_t face_bytes, const char *what)
{
    f->dom = d;
    f->face_bytes = face_bytes;
    f->dev = (char *)gpu_alloc(6 * face_bytes, what);
    gpu_memset(f->dev, 0, 6 * face_bytes);
    f->host = (unsigned char *)lat_malloc(4 * face_bytes);
    f->sweeps = 0;
    const char *nh = getenv("LAT_GPU_NO_HALO");
    f->no_halo = nh && !strcmp(nh, "1");
    const char *fc = getenv("LAT_GPU_FACES");
    f->copy_only = fc && !strcmp(fc, "copy");
    f->no_ahead = fc && (!strcmp(fc, "copy") || !strcmp(fc, "direct"));
    f->put = 0;
    const int dirs[2] = {-1, +1}; /* part 0: the fwd face to the previous rank; 1: bwd to the next */
    f->peer = gpu_peer_open(d, f->dev, dirs, 2);
}

static inline void gpu_faces_close(struct gpu_faces *f)
{
    if (!f->dom) return;
    gpu_peer_close(f->peer);
    gpu_free(f->dev);
    free(f->host);
    f->dom = NULL;
}

/* the peer's receive slots of the next sweep (alternating: see above) */
static inline size_t gpu_faces_next_slot(struct gpu_faces *f) { return (2 + 2 * (size_t)(f->sweeps++ & 1u)) * f->face_bytes; }

static inline void *gpu_faces_pack_to(struct gpu_faces *f, size_t fb, int direct, void **out_fwd, void **out_bwd)
{
    *out_fwd = f->dev;
    *out_bwd = f->dev + fb;
    if (!direct || f->copy_only || f->no_halo || !f->peer) return NULL;
    char *to_prev = (char *)gpu_peer_remote(f->peer, 0), *to_next = (char *)gpu_peer_remote(f->peer, 1);
    if (!to_prev || !to_next) return NULL;
    void *stream = gpu_peer_put_stream(f->peer, fb);
    if (!stream) return NULL;
    f->put = 1;
    f->put_rf = gpu_faces_next_slot(f);
    *out_fwd = to_prev + f->put_rf;
    *out_bwd = to_next + f->put_rf + f->face_bytes;
    return stream;
}

static inline void gpu_faces_exchange(struct gpu_faces *f, size_t fb, int tag, void (*interior)(void *), void *arg,
                               const void **fwd, const void **bwd)
{
    size_t rf = 2 * fb, rb = 3 * fb; /* the received faces' offsets in dev */
    if (f->no_halo) {
        interior(arg);
    } else if (f->put) { /* the pack stored them into the neighbours */
        rf = f->put_rf;
        rb = rf + f->face_bytes;
        f->put = 0;
        interior(arg);
        gpu_peer_wait_device(f->peer);
    } else if (f->peer) {
        rf = gpu_faces_next_slot(f);
        rb = rf + f->face_bytes;
        gpu_peer_send(f->peer, 0, 0, rf, fb);
        gpu_peer_send(f->peer, 1, fb, rb, fb);
        interior(arg);
        gpu_peer_wait_device(f->peer); /* the boundary launch waits on the device, the host goes on */
    } else {
        gpu_download(f->host, f->dev, 2 * fb); /* waits for the pack only */
        interior(arg);
        const int R = f->dom->size, me = f->dom->rank;
        const int prev = (me + R - 1) % R, next = (me + 1) % R;
        struct comm_reqs r = {0};
        comm_irecv(f->host + 2 * fb, fb, next, tag, &r);
        comm_irecv(f->host + 3 * fb, fb, prev, tag + 1, &r);
        comm_isend(f->host, fb, prev, tag, &r);
        comm_isend(f->host + fb, fb, next, tag + 1, &r);
        comm_waitall(&r);
        gpu_upload(f->dev + 2 * fb, f->host + 2 * fb, 2 * fb); /* queued behind the interior */
    }
    *fwd = f->dev + rf;
    *bwd = f->dev + rb;
}
#endif
