/* gpu_halo.cu -- the halo exchange of the CUDA gauge-fixing backend on a
 * slab of an MPI run (common/geometry.h), hidden behind the interior update.
 *
 * gpu_halo_start packs the links a part names (one direction, one parity,
 * one timeslice: V3h links of the device layout, gaugefix_gpu.h) on the
 * default stream and sends them on a copy stream of its own (non-blocking,
 * so the interior kernels launched next on the default stream run
 * meanwhile); gpu_halo_finish completes the exchange, unpacks the received
 * links on the copy stream and makes the default stream wait for the
 * unpack.  The unpacked links are halo links or owned links of the other
 * parity, which the interior kernels of this half-sweep never touch, so the
 * overlap is race-free.  Two ways to send:
 *   - peer (ranks on one node, every rank able to): the packed links are
 *     copied device to device straight into the neighbour's receive buffer
 *     (gpu/peer.h: CUDA IPC, over NVLink or PCIe; it says when a buffer is
 *     filled and, once unpacked here, released);
 *   - host (otherwise, or LAT_GPU_HALO=host): copied to pinned host memory
 *     and exchanged with MPI (Debian's OpenMPI is not CUDA-aware, so every
 *     message goes through host memory).
 * Measured on two H200 (docs/PERFORMANCE.md): host staging moved the 6 MB
 * per part through OpenMPI's shared memory at a few GB/s, slower than the
 * interior update it should hide behind.
 *
 * Messages are the storage reals (12 per SU(3) link) in half-index order,
 * the same on every rank: only GPU ranks talk to GPU ranks.
 * LAT_GPU_NO_HALO=1 skips the exchange (wrong results: for timing the
 * update without it, bench only). */
#include "gpu/field.h"
#include "gpu/peer.h"
extern "C" {
#include "lattice/geometry.h"
#include "base/log.h"
}
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gpu_halo {
    cudaStream_t copy;
    cudaEvent_t packed, unpacked;
    void *dev;                      /* 2 * HALO_MAXPARTS segments of seg bytes: send, receive, ... */
    unsigned char *host;            /* pinned, the same */
    size_t seg;
    int nparts;
    struct halo_part part[HALO_MAXPARTS];
    struct comm_reqs reqs;
    int skip;
    int mode;                       /* 0: not chosen yet, 1: host, 2: peer */
    struct gpu_peer *peer;          /* peer: the mapped neighbours */
    int dir[HALO_MAXPARTS];         /* peer: the direction of part i when mapped */
};

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) lat_die(1, "GPU", "%s: %s", what, cudaGetErrorString(e));
}

#include "gpu/pack.cuh" /* k_pack: device code only */

/* launch the (un)packing of part i's slice (send_slice or recv_slice) */
static void pack(const struct gpu_field *f, const struct gpu_halo *x, int i, int unpack, cudaStream_t s, int pflip)
{
    const struct halo_part *pt = &x->part[i];
    int v3h = (int)(f->Vh / f->L[3]);
    int slice = unpack ? pt->recv_slice : pt->send_slice;
    int slot = ((pt->parity ^ pflip) & 1) * 4 + pt->mu;
    int64_t n = (int64_t)v3h * f->ncomp;
    unsigned nb = (unsigned)((n + 255) / 256);
    char *seg = (char *)x->dev + (size_t)(2 * i + unpack) * x->seg;
    if (f->prec == 'd')
        k_pack<double><<<nb, 256, 0, s>>>((const double *)f->links, (double *)seg, f->nblk, f->ncomp, f->vec, slot,
                                          slice * v3h, v3h, unpack);
    else
        k_pack<float><<<nb, 256, 0, s>>>((const float *)f->links, (float *)seg, f->nblk, f->ncomp, f->vec, slot,
                                         slice * v3h, v3h, unpack);
    check(cudaGetLastError(), "halo (un)pack kernel launch");
}

static size_t message_bytes(const struct gpu_field *f)
{
    return (size_t)(f->Vh / f->L[3]) * (size_t)f->ncomp * (f->prec == 'd' ? sizeof(double) : sizeof(float));
}

extern "C" struct gpu_halo *gpu_halo_new(const struct gpu_field *f)
{
    struct gpu_halo *x = (struct gpu_halo *)lat_calloc(1, sizeof *x);
    x->seg = message_bytes(f);
    /* the highest priority: the unpack kernel gets the SMs as soon as blocks
     * of the interior update retire */
    int lo = 0, hi = 0;
    check(cudaDeviceGetStreamPriorityRange(&lo, &hi), "asking for stream priorities");
    check(cudaStreamCreateWithPriority(&x->copy, cudaStreamNonBlocking, hi), "creating the halo stream");
    check(cudaEventCreateWithFlags(&x->packed, cudaEventDisableTiming), "creating a halo event");
    check(cudaEventCreateWithFlags(&x->unpacked, cudaEventDisableTiming), "creating a halo event");
    x->dev = gpu_alloc(2 * HALO_MAXPARTS * x->seg, "the halo buffers");
    check(cudaMallocHost((void **)&x->host, 2 * HALO_MAXPARTS * x->seg), "allocating pinned halo buffers");
    const char *e = getenv("LAT_GPU_NO_HALO");
    x->skip = e && *e == '1';
    return x;
}

extern "C" void gpu_halo_free(struct gpu_halo *x)
{
    if (!x) return;
    gpu_peer_close(x->peer); /* every rank: unmapped before any buffer is freed */
    cudaStreamDestroy(x->copy);
    cudaEventDestroy(x->packed);
    cudaEventDestroy(x->unpacked);
    gpu_free(x->dev);
    cudaFreeHost(x->host);
    free(x);
}

/* Choose host or peer on the first exchange (every rank the same way:
 * gpu_peer_open answers NULL on all when one cannot map).  Part i's receive
 * buffer (segment 2i+1) is filled by the rank below in its direction (rank
 * - dir), which maps it here. */
static void choose_mode(struct gpu_halo *x, const struct geometry *d, const struct halo_part *parts, int nparts)
{
    for (int i = 0; i < nparts; i++) x->dir[i] = parts[i].dir;
    x->peer = gpu_peer_open(d, x->dev, x->dir, nparts);
    x->mode = x->peer ? 2 : 1;
}


extern "C" void gpu_halo_start(struct gpu_halo *x, const struct gpu_field *f, const struct geometry *d,
                               const struct halo_part *parts, int nparts, int pflip)
{
    if (x->skip) return;
    if (nparts > HALO_MAXPARTS) lat_die(1, "GPU", "internal error: %d halo parts", nparts);
    if (!x->mode) choose_mode(x, d, parts, nparts);
    x->nparts = nparts;
    for (int i = 0; i < nparts; i++) {
        x->part[i] = parts[i];
        if (x->mode == 2 && parts[i].dir != x->dir[i]) lat_die(1, "GPU", "internal error: halo part %d changed direction", i);
        if (parts[i].mu < 0 || parts[i].parity < 0)
            lat_die(1, "GPU", "internal error: the GPU halo moves one direction and parity at a time");
        pack(f, x, i, 0, 0, pflip); /* default stream: after the boundary kernels */
    }
    check(cudaEventRecord(x->packed, 0), "recording a halo event");
    check(cudaStreamWaitEvent(x->copy, x->packed, 0), "ordering the halo copy");
    if (x->mode == 2) {
        for (int i = 0; i < nparts; i++)
            gpu_peer_send(x->peer, i, (size_t)(2 * i) * x->seg, (size_t)(2 * i + 1) * x->seg, x->seg);
        return;
    }
    for (int i = 0; i < nparts; i++)
        check(cudaMemcpyAsync(x->host + (size_t)(2 * i) * x->seg, (char *)x->dev + (size_t)(2 * i) * x->seg, x->seg,
                              cudaMemcpyDeviceToHost, x->copy),
              "copying the halo to the host");
}

extern "C" void gpu_halo_finish(struct gpu_halo *x, const struct gpu_field *f, const struct geometry *d, int pflip)
{
    if (x->skip) return;
    if (x->mode == 2) {
        gpu_peer_wait(x->peer); /* mine have landed, and the neighbours' here */
        for (int i = 0; i < x->nparts; i++) pack(f, x, i, 1, x->copy, pflip);
        check(cudaEventRecord(x->unpacked, x->copy), "recording a halo event");
        check(cudaStreamWaitEvent(0, x->unpacked, 0), "ordering after the halo");
        /* once unpacked, the senders may fill the buffers again (their
         * next send waits for this) */
        check(cudaEventSynchronize(x->unpacked), "waiting for the halo unpack");
        gpu_peer_release(x->peer);
        return;
    }
    check(cudaStreamSynchronize(x->copy), "waiting for the halo copy");
    void *sbuf[HALO_MAXPARTS], *rbuf[HALO_MAXPARTS];
    size_t bytes[HALO_MAXPARTS];
    for (int i = 0; i < x->nparts; i++) {
        sbuf[i] = x->host + (size_t)(2 * i) * x->seg;
        rbuf[i] = x->host + (size_t)(2 * i + 1) * x->seg;
        bytes[i] = x->seg;
    }
    halo_post(d, x->part, x->nparts, sbuf, rbuf, bytes, &x->reqs);
    comm_waitall(&x->reqs);
    for (int i = 0; i < x->nparts; i++) {
        check(cudaMemcpyAsync((char *)x->dev + (size_t)(2 * i + 1) * x->seg, rbuf[i], x->seg, cudaMemcpyHostToDevice,
                              x->copy),
              "copying the halo to the device");
        pack(f, x, i, 1, x->copy, pflip);
    }
    check(cudaEventRecord(x->unpacked, x->copy), "recording a halo event");
    check(cudaStreamWaitEvent(0, x->unpacked, 0), "ordering after the halo");
}
