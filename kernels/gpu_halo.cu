/* gpu_halo.cu -- the halo exchange of the CUDA gauge-fixing backend on a
 * slab of an MPI run (common/domain.h), hidden behind the interior update.
 *
 * gpu_halo_start packs the links a part names (one direction, one parity,
 * one timeslice: V3h links of the device layout, gaugefix_gpu.h) on the
 * default stream, and copies them to pinned host memory on a copy stream
 * of its own (non-blocking, so the interior kernels launched next on the
 * default stream run meanwhile).  gpu_halo_finish waits for that copy,
 * exchanges the buffers with MPI (halo_post: Debian's OpenMPI is not
 * CUDA-aware, so every message goes through host memory), copies the
 * received links back and unpacks them on the copy stream, and makes the
 * default stream wait for the unpack.  The unpacked links are halo links or
 * owned links of the other parity, which the interior kernels of this
 * half-sweep never touch, so the overlap is race-free.
 *
 * Messages are the storage reals (12 per SU(3) link) in half-index order,
 * the same on every rank: only GPU ranks talk to GPU ranks.
 * LAT_GPU_NO_HALO=1 skips the exchange (wrong results: for timing the
 * update without it, bench only). */
#include "gaugefix_gpu.h"
extern "C" {
#include "domain.h"
#include "log.h"
}
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

struct gpu_halo {
    cudaStream_t copy;
    cudaEvent_t packed, unpacked;
    void *dev;                      /* 2 * HALO_MAXPARTS segments of seg bytes */
    unsigned char *host;            /* pinned, the same */
    size_t seg;
    int nparts;
    struct halo_part part[HALO_MAXPARTS];
    struct comm_reqs reqs;
    int skip;
};

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) lat_die(1, "GPU", "%s: %s", what, cudaGetErrorString(e));
}

template <typename T>
__global__ void k_pack(const T *__restrict__ links, T *__restrict__ buf, int64_t nblk, int ncomp, int vec, int slot,
                       int h0, int n, int unpack)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (int64_t)n * ncomp) return;
    int64_t h = h0 + i / ncomp;
    int c = (int)(i % ncomp);
    size_t at = gpu_index(nblk, ncomp, vec, slot, c, h);
    if (unpack) ((T *)links)[at] = buf[i];
    else buf[i] = links[at];
}

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
    check(cudaStreamCreateWithFlags(&x->copy, cudaStreamNonBlocking), "creating the halo stream");
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
    cudaStreamDestroy(x->copy);
    cudaEventDestroy(x->packed);
    cudaEventDestroy(x->unpacked);
    gpu_free(x->dev);
    cudaFreeHost(x->host);
    free(x);
}

extern "C" void gpu_halo_start(struct gpu_halo *x, const struct gpu_field *f, const struct halo_part *parts, int nparts,
                               int pflip)
{
    if (x->skip) return;
    if (nparts > HALO_MAXPARTS) lat_die(1, "GPU", "internal error: %d halo parts", nparts);
    x->nparts = nparts;
    for (int i = 0; i < nparts; i++) {
        x->part[i] = parts[i];
        if (parts[i].mu < 0 || parts[i].parity < 0)
            lat_die(1, "GPU", "internal error: the GPU halo moves one direction and parity at a time");
        pack(f, x, i, 0, 0, pflip); /* default stream: after the boundary kernels */
    }
    check(cudaEventRecord(x->packed, 0), "recording a halo event");
    check(cudaStreamWaitEvent(x->copy, x->packed, 0), "ordering the halo copy");
    for (int i = 0; i < nparts; i++)
        check(cudaMemcpyAsync(x->host + (size_t)(2 * i) * x->seg, (char *)x->dev + (size_t)(2 * i) * x->seg, x->seg,
                              cudaMemcpyDeviceToHost, x->copy),
              "copying the halo to the host");
}

extern "C" void gpu_halo_finish(struct gpu_halo *x, const struct gpu_field *f, const struct domain *d, int pflip)
{
    if (x->skip) return;
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
