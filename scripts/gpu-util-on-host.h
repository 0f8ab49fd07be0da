/* gpu-util-on-host.h -- the GPU layer's host entry points as host code, for
 * the host emulations (scripts/{blas,dirac,gpu-slab,hb-kernel,link8,
 * staggered}-emulation.cpp; sun-emulation and the emulated tools get them
 * through gpu-slab-emulation.cpp): the one copy of these stand-ins.
 *
 * Defines, extern "C" with the contracts of kernels/gpu/field.h and gpu.h
 * (device memory is host memory, no device can fail):
 *   gpu_alloc (lat_calloc: zeroed, dies on failure; 0 bytes allowed),
 *   gpu_free, gpu_upload, gpu_download (memcpy, counted for
 *   gpu_transfer_take), gpu_transfer_note_down (counted), gpu_memset (memset),
 *   gpu_sync, gpu_check (nothing to wait for, no launch error),
 *   gpu_available (1), gpu_inject_fault (nothing to break),
 *   gpu_device_name ("emulation"), gpu_mem_info (0, 0),
 *   gpu_copy_bandwidth (0), gpu_timer_start/stop (0 seconds),
 *   gpu_peer_open/send/wait/release/close (gpu/peer.h) as MPI messages (and
 *   gpu_peer_remote and gpu_peer_put_stream NULL: no buffer of another
 *   rank is mapped here; gpu_replica_share_open NULL likewise): a
 *   send posts the bytes with the offset they land at in the receiver's
 *   buffer (the sender's choice, as with a copy into the receiver's
 *   memory), the round's wait receives them there, LAT_GPU_HALO=host
 *   answers NULL -- so the callers' peer path (offsets, slots, rounds)
 *   runs here, not CUDA IPC;
 * and, when GPU_ON_HOST_REFUSE is defined as the program's name (a string),
 *   gpu_halo_new/free/start/finish and gpu_observables_sums as refusals:
 *   one line "NAME: no halo exchange or observables here", exit 1 (the
 *   emulations of one process's kernels; gpu-slab-emulation.cpp has the
 *   real ones).
 * The definitions are not inline: include it in ONE translation unit of a
 * program, after scripts/cuda-on-host.h. */
#ifndef LAT_GPU_UTIL_ON_HOST_H
#define LAT_GPU_UTIL_ON_HOST_H
#include <cstdio>
#include <cstdlib>
#include <cstring>
extern "C" {
#include "base/log.h"
}
#include "gpu/gpu.h"
#include "gpu/field.h"
#include "gpu/peer.h"
extern "C" {
#include "lattice/geometry.h"
#include "base/comm.h"
}

/* ---- memory: host memory ---- */
extern "C" void *gpu_alloc(size_t bytes, const char *what) { (void)what; return lat_calloc(bytes ? bytes : 1, 1); }
extern "C" void gpu_free(void *p) { free(p); }
static struct gpu_transfer_count host_transfers; /* counted as gpu/util.cu counts */
extern "C" void gpu_transfer_take(struct gpu_transfer_count *c) { *c = host_transfers, host_transfers = gpu_transfer_count{0, 0, 0, 0, 0}; }
static void host_count(unsigned long long *b, unsigned long long *k, size_t n)
{
    *b += n, ++*k;
    if (n > host_transfers.largest) host_transfers.largest = n;
}
extern "C" void gpu_upload(void *d, const void *s, size_t n) { host_count(&host_transfers.up_bytes, &host_transfers.up_calls, n), memcpy(d, s, n); }
extern "C" void gpu_download(void *d, const void *s, size_t n) { host_count(&host_transfers.down_bytes, &host_transfers.down_calls, n), memcpy(d, s, n); }
extern "C" void gpu_transfer_note_down(size_t n) { host_count(&host_transfers.down_bytes, &host_transfers.down_calls, n); }
extern "C" void gpu_memset(void *d, int v, size_t n) { memset(d, v, n); }

/* ---- the device: always there, never failing ---- */
extern "C" void gpu_sync(const char *w) { (void)w; }
extern "C" void gpu_check(const char *w) { (void)w; }
extern "C" int gpu_available(char *why, int len) { (void)why; (void)len; return 1; }
extern "C" void gpu_inject_fault(void) {} /* LAT_FAULT_AT: no device to break here */
extern "C" void gpu_device_name(char *b, int len) { snprintf(b, (size_t)len, "emulation"); }
extern "C" void gpu_mem_info(size_t *f, size_t *t) { *f = *t = 0; }
extern "C" double gpu_copy_bandwidth(size_t b, int r) { (void)b; (void)r; return 0; }
extern "C" void gpu_timer_start(void) {}
extern "C" double gpu_timer_stop(void) { return 0; }

/* ---- the peer copies: MPI messages into the receiver's buffer ---- */
struct gpu_peer {
    int nparts, to[GPU_PEER_MAXPARTS], from[GPU_PEER_MAXPARTS];
    char *dev;
    unsigned mask;                       /* the parts sent in this round */
    size_t where[GPU_PEER_MAXPARTS][2];  /* part i: offset at its receiver, bytes */
    struct comm_reqs reqs;
};
extern "C" struct gpu_peer *gpu_peer_open(const struct geometry *d, void *dev, const int *dir, int nparts)
{
    const char *e = getenv("LAT_GPU_HALO");
    if (e && strcmp(e, "host") == 0) return NULL;
    struct gpu_peer *p = (struct gpu_peer *)lat_calloc(1, sizeof *p);
    p->nparts = nparts;
    p->dev = (char *)dev;
    for (int i = 0; i < nparts; i++) {
        p->to[i] = (d->rank + dir[i] % d->size + d->size) % d->size;
        p->from[i] = (d->rank - dir[i] % d->size + d->size) % d->size;
    }
    return p;
}
/* the sender says where its bytes land, as a copy into the receiver's
 * memory does: the offset and size travel ahead of the bytes */
extern "C" void gpu_peer_send(struct gpu_peer *p, int i, size_t send_off, size_t recv_off, size_t bytes)
{
    p->where[i][0] = recv_off, p->where[i][1] = bytes, p->mask |= 1u << i;
    comm_isend(p->where[i], sizeof p->where[i], p->to[i], 240 + i, &p->reqs);
    if (bytes) comm_isend(p->dev + send_off, bytes, p->to[i], 250 + i, &p->reqs);
}
extern "C" void gpu_peer_wait(struct gpu_peer *p)
{
    for (int i = 0; i < p->nparts; i++)
        if (p->mask >> i & 1u) {
            size_t w[2];
            comm_recv(w, sizeof w, p->from[i], 240 + i);
            if (w[1]) comm_recv(p->dev + w[0], w[1], p->from[i], 250 + i);
        }
    comm_waitall(&p->reqs);
    p->mask = 0;
}
/* the device-side wait: here the host's (the kernels run in the host's order) */
extern "C" void gpu_peer_wait_device(struct gpu_peer *p) { gpu_peer_wait(p); }
extern "C" void gpu_peer_release(struct gpu_peer *p) { (void)p; } /* the bytes were received at the wait */
extern "C" void *gpu_peer_remote(struct gpu_peer *p, int i) { (void)p, (void)i; return NULL; } /* no mapping here */
extern "C" void *gpu_peer_put_stream(struct gpu_peer *p, size_t bytes) { (void)p, (void)bytes; return NULL; }
extern "C" void gpu_peer_close(struct gpu_peer *p)
{
    if (p && p->mask) gpu_peer_wait(p);
    free(p);
}

/* replicas (gpu/peer.h): nothing of another process is mapped here, so
 * the callers take their host path */
extern "C" struct gpu_replica_share *gpu_replica_share_open(void *dev) { (void)dev; return NULL; }
extern "C" void *gpu_replica_buffer(struct gpu_replica_share *s, int q) { (void)s; (void)q; return NULL; }
extern "C" void gpu_replica_fence(void)
{
    double none = 0;
    comm_replica_sum(&none, 1);
}
extern "C" void gpu_replica_share_close(struct gpu_replica_share *s) { (void)s; }

#ifdef GPU_ON_HOST_REFUSE
/* ---- what a one-process kernel emulation does not provide ---- */
[[noreturn]] static void gpu_on_host_refuse(void)
{
    lat_die(1, GPU_ON_HOST_REFUSE, "no halo exchange or observables here");
}
extern "C" struct gpu_halo *gpu_halo_new(const struct gpu_field *) { gpu_on_host_refuse(); }
extern "C" void gpu_halo_free(struct gpu_halo *) {}
extern "C" void gpu_halo_start(struct gpu_halo *, const struct gpu_field *, const struct geometry *,
                               const struct halo_part *, int, int) { gpu_on_host_refuse(); }
extern "C" void gpu_halo_finish(struct gpu_halo *, const struct gpu_field *, const struct geometry *, int)
{
    gpu_on_host_refuse();
}
extern "C" void gpu_observables_sums(const struct gpu_field *, double *) { gpu_on_host_refuse(); }
#endif
#endif
