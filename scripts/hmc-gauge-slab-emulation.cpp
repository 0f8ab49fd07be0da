/* hmc-gauge-slab-emulation.cpp -- the GPU HMC's gauge part on MPI t-slabs
 * (kernels/hmc/gpu.h on a slab field) without a GPU: the checks of
 * tests/gpu/hmc_gauge_mpi_checks.h (the real GPUs run the same in
 * tests/gpu/test_gpu_hmc_gauge_mpi.c) under mpirun -np R
 * (scripts/hmc-gauge-slab-emulation builds it, runs R = 1, 2, 4 and
 * compares the results files across R; tests/emulation.bats).
 *
 * What runs: kernels/hmc/gpu.c and kernels/gpu/field.c as the CUDA build
 * compiles them (slab table, halo refresh, per-timeslice sums); the
 * kernels of kernels/hmc/gpu_kernel.cuh thread by thread through the
 * launchers of scripts/hmc-gauge-emulation.cpp (its object built with
 * -DHMC_GAUGE_EMU_NO_MAIN -DHMC_GAUGE_EMU_KERNELS_ONLY); the GPU layer's
 * host stand-ins of scripts/gpu-util-on-host.h (device memory is host
 * memory, gpu/peer.h as MPI messages, NULL with LAT_GPU_HALO=host); and
 * here gpu_halo_new/free/start/finish with gpu/halo.cu's steps: the parts
 * packed by k_pack's text (gpu/pack.cuh), sent through the peer stand-ins
 * (the first exchange chooses, every rank alike) or staged through "host"
 * buffers and halo_post, unpacked by k_pack.  Not here: CUDA streams and
 * events (everything runs in order), the CUDA compiler's code.
 * gpu_observables_sums refuses (one line, exit 1): nothing here needs it.
 *
 * With -DHGM_EMU_NO_MAIN: the emulated GPU layer without the checks (an
 * emulated bench/hmc_gauge_slab_gpu links it).
 * Usage: hmc-gauge-slab-emulation OUT.  Prints the checks' lines and
 * "hmc-gauge-slab-emulation R=<R>: P passed, F failed" (rank 0); exit 1 if
 * any failed. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"
extern "C" {
#include "base/comm.h"
#include "base/log.h"
#include "lattice/geometry.h"
}
#include "gpu/field.h"
#include "gpu/peer.h"
#include "gpu-util-on-host.h"

namespace hgm_emu {
#include "gpu/pack.cuh"
}

/* ---- gpu/halo.cu's steps, in order ---- */
struct gpu_halo {
    char *dev; /* 2 HALO_MAXPARTS segments: send, receive, ... (a gpu_alloc allocation: the peer maps it) */
    char *host;
    size_t seg;
    int nparts, mode; /* mode 0: not chosen, 1: host, 2: peer */
    struct halo_part part[HALO_MAXPARTS];
    struct gpu_peer *peer;
    int dir[HALO_MAXPARTS];
};

extern "C" struct gpu_halo *gpu_halo_new(const struct gpu_field *f)
{
    struct gpu_halo *x = (struct gpu_halo *)lat_calloc(1, sizeof *x);
    x->seg = (size_t)(f->Vh / f->L[3]) * (size_t)f->ncomp * (f->prec == 'd' ? sizeof(double) : sizeof(float));
    x->dev = (char *)gpu_alloc(2 * HALO_MAXPARTS * x->seg, "the halo buffers");
    x->host = (char *)lat_calloc(2 * HALO_MAXPARTS, x->seg);
    return x;
}

extern "C" void gpu_halo_free(struct gpu_halo *x)
{
    if (!x) return;
    gpu_peer_close(x->peer);
    gpu_free(x->dev);
    free(x->host);
    free(x);
}

static void pack(const struct gpu_field *f, const struct gpu_halo *x, int i, int unpack, int pflip)
{
    const struct halo_part *pt = &x->part[i];
    int v3h = (int)(f->Vh / f->L[3]);
    int slice = unpack ? pt->recv_slice : pt->send_slice;
    int slot = ((pt->parity ^ pflip) & 1) * 4 + pt->mu;
    int64_t n = (int64_t)v3h * f->ncomp;
    char *seg = x->dev + (size_t)(2 * i + unpack) * x->seg;
    if (f->prec != 'd') lat_die(1, "hmc-gauge-slab-emulation", "the halo: double storage only");
    cuda_on_host_grid((unsigned)((n + 255) / 256), 256, [&] {
        hgm_emu::k_pack<double>((const double *)f->links, (double *)seg, f->nblk, f->ncomp, f->vec, slot, slice * v3h, v3h,
                                unpack);
    });
}

extern "C" void gpu_halo_start(struct gpu_halo *x, const struct gpu_field *f, const struct geometry *d,
                               const struct halo_part *parts, int nparts, int pflip)
{
    if (nparts > HALO_MAXPARTS) lat_die(1, "GPU", "internal error: %d halo parts", nparts);
    if (!x->mode) {
        for (int i = 0; i < nparts; i++) x->dir[i] = parts[i].dir;
        x->peer = gpu_peer_open(d, x->dev, x->dir, nparts);
        x->mode = x->peer ? 2 : 1;
    }
    x->nparts = nparts;
    for (int i = 0; i < nparts; i++) {
        x->part[i] = parts[i];
        if (x->mode == 2 && parts[i].dir != x->dir[i]) lat_die(1, "GPU", "internal error: halo part %d changed direction", i);
        if (parts[i].mu < 0 || parts[i].parity < 0)
            lat_die(1, "GPU", "internal error: the GPU halo moves one direction and parity at a time");
        pack(f, x, i, 0, pflip);
    }
    if (x->mode == 2) {
        for (int i = 0; i < nparts; i++)
            gpu_peer_send(x->peer, i, (size_t)(2 * i) * x->seg, (size_t)(2 * i + 1) * x->seg, x->seg);
        return;
    }
    for (int i = 0; i < nparts; i++) memcpy(x->host + (size_t)(2 * i) * x->seg, x->dev + (size_t)(2 * i) * x->seg, x->seg);
}

extern "C" void gpu_halo_finish(struct gpu_halo *x, const struct gpu_field *f, const struct geometry *d, int pflip)
{
    if (x->mode == 2) {
        gpu_peer_wait(x->peer);
        for (int i = 0; i < x->nparts; i++) pack(f, x, i, 1, pflip);
        gpu_peer_release(x->peer);
        return;
    }
    void *sbuf[HALO_MAXPARTS], *rbuf[HALO_MAXPARTS];
    size_t bytes[HALO_MAXPARTS];
    for (int i = 0; i < x->nparts; i++) {
        sbuf[i] = x->host + (size_t)(2 * i) * x->seg;
        rbuf[i] = x->host + (size_t)(2 * i + 1) * x->seg;
        bytes[i] = x->seg;
    }
    struct comm_reqs q;
    memset(&q, 0, sizeof q);
    halo_post(d, x->part, x->nparts, sbuf, rbuf, bytes, &q);
    comm_waitall(&q);
    for (int i = 0; i < x->nparts; i++) {
        memcpy(x->dev + (size_t)(2 * i + 1) * x->seg, rbuf[i], x->seg);
        pack(f, x, i, 1, pflip);
    }
}

extern "C" void gpu_observables_sums(const struct gpu_field *, double *)
{
    lat_die(1, "hmc-gauge-slab-emulation", "no observables here");
}

#ifndef HGM_EMU_NO_MAIN /* -DHGM_EMU_NO_MAIN: the emulated GPU layer alone (to link bench/hmc_gauge_slab_gpu.c) */
#include "unit.h"
#include "slabs.h"
#include "hmc_gauge_mpi_checks.h"

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    lat_progname = "hmc-gauge-slab-emulation";
    if (argc != 2) lat_die(2, "hmc-gauge-slab-emulation", "usage: hmc-gauge-slab-emulation OUT");
    comm_exit(hgm_main("hmc-gauge-slab-emulation", argv[1], 1));
}
#endif
