/* gpu/peer.cu -- device-to-device copies into a neighbouring rank's GPU on
 * one node (CUDA IPC): gpu_peer_open/send/wait/release/close, contracts in
 * gpu/peer.h.
 *
 * How: at open every rank gives the ranks that send to it an IPC handle of
 * its buffer (with its host name: a handle means nothing on another node)
 * and maps the buffers of the ranks it sends to; if any rank fails, all
 * unmap and answer NULL (comm_max), so that every rank takes the same path.
 * A round's copies run on a non-blocking stream of the highest priority
 * after an event recorded on the default stream at the round's first send;
 * the round ends when the copies are synchronised and a one-byte "arrived"
 * message has gone to each receiver and come from each sender; a release
 * is a one-byte "free" message to each sender (Debian's OpenMPI is not
 * CUDA-aware: only these small messages use MPI; none goes to this rank
 * itself).  A copy
 * into a peer's memory is visible to that peer's later kernels once the
 * copying stream is synchronised, which the message then tells it.
 * gpu_peer_wait_device ends a round without the host: arrival words in
 * device memory (their own IPC mapping), written by the sender's copy
 * stream after the copies and waited for by a kernel on the receiver's
 * default stream (k_arrival_store, k_arrival_wait below). */
#include "gpu/peer.h"
#include "gpu/field.h"
extern "C" {
#include "lattice/geometry.h"
#include "base/comm.h"
#include "base/log.h"
}
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TAG_SETUP = 230, TAG_ARRIVED = 240, TAG_FREE = 250 };

struct gpu_peer {
    int nparts, rank;
    int to[GPU_PEER_MAXPARTS], from[GPU_PEER_MAXPARTS];
    char *dev;
    char *remote[GPU_PEER_MAXPARTS];  /* part i's receiver's buffer, mapped here (or dev itself) */
    void *opened[GPU_PEER_MAXPARTS];  /* the mappings to close */
    cudaStream_t copy;
    cudaEvent_t ready, sent;
    unsigned sent_mask;               /* the parts sent in this round */
    unsigned done_mask;               /* the parts of the last round ended */
    int owe_free;                     /* released: "free" messages posted, to be completed */
    struct comm_reqs free_reqs;
    unsigned char flag[2 * GPU_PEER_MAXPARTS], free_flag[2 * GPU_PEER_MAXPARTS];
    /* gpu_peer_wait_device: this rank's arrival words (one per part,
     * device memory, written by the senders), part i's receiver's words
     * mapped here, and the rounds ended so far */
    unsigned *arrival;
    unsigned *remote_arrival[GPU_PEER_MAXPARTS];
    void *opened_arrival[GPU_PEER_MAXPARTS];
    unsigned round;
    int host_wait; /* LAT_GPU_PEER_WAIT=host: gpu_peer_wait_device is gpu_peer_wait */
};

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) lat_die(1, "GPU", "%s: %s", what, cudaGetErrorString(e));
}

static void unmap(struct gpu_peer *p)
{
    for (int i = 0; i < GPU_PEER_MAXPARTS; i++) {
        if (p->opened[i]) cudaIpcCloseMemHandle(p->opened[i]);
        if (p->opened_arrival[i]) cudaIpcCloseMemHandle(p->opened_arrival[i]);
    }
    memset(p->opened, 0, sizeof p->opened);
    memset(p->opened_arrival, 0, sizeof p->opened_arrival);
}

/* ---- the device-side end of a round (gpu_peer_wait_device) ------------------
 * The sender's copy stream, after the round's copies, stores the round's
 * number into each receiver's arrival word of the part (a release store at
 * system scope: the copies before it have completed, in stream order);
 * the receiver's default stream runs one small kernel that spins until its
 * words of the parts it receives reach the number (acquire loads), so the
 * kernels queued after it read the round's bytes.  No host wait. */
struct arrival_ptrs {
    unsigned *w[GPU_PEER_MAXPARTS];
    int n;
};
__global__ void k_arrival_store(arrival_ptrs a, unsigned round)
{
    const int i = threadIdx.x;
    if (i >= a.n) return;
    __threadfence_system();
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(a.w[i]), "r"(round) : "memory");
}
__global__ void k_arrival_wait(const unsigned *arrival, unsigned mask, unsigned round)
{
    const int i = threadIdx.x;
    if (i >= GPU_PEER_MAXPARTS || !(mask >> i & 1u)) return;
    for (;;) {
        unsigned v;
        asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(arrival + i) : "memory");
        if ((int)(v - round) >= 0) break; /* the counter may wrap: compare the difference */
        __nanosleep(100);
    }
}

extern "C" struct gpu_peer *gpu_peer_open(const struct geometry *d, void *dev, const int *dir, int nparts)
{
    if (nparts < 1 || nparts > GPU_PEER_MAXPARTS) lat_die(1, "GPU", "internal error: %d peer parts", nparts);
    const char *e = getenv("LAT_GPU_HALO");
    const int want = !(e && strcmp(e, "host") == 0);
    struct gpu_peer *p = (struct gpu_peer *)lat_calloc(1, sizeof *p);
    p->nparts = nparts;
    p->rank = d->rank;
    p->dev = (char *)dev;
    struct setup { cudaIpcMemHandle_t h, ha; char host[64]; int ok; } mine, theirs[GPU_PEER_MAXPARTS];
    memset(&mine, 0, sizeof mine);
    memset(theirs, 0, sizeof theirs);
    gethostname(mine.host, sizeof mine.host - 1);
    const char *hw = getenv("LAT_GPU_PEER_WAIT");
    p->host_wait = hw && strcmp(hw, "host") == 0;
    /* the arrival words: their own allocation, mapped by the senders */
    if (want && cudaMalloc((void **)&p->arrival, GPU_PEER_MAXPARTS * sizeof(unsigned)) == cudaSuccess)
        cudaMemset(p->arrival, 0, GPU_PEER_MAXPARTS * sizeof(unsigned));
    else
        p->arrival = NULL;
    mine.ok = want && p->arrival && cudaIpcGetMemHandle(&mine.h, dev) == cudaSuccess &&
              cudaIpcGetMemHandle(&mine.ha, p->arrival) == cudaSuccess;
    struct comm_reqs r = {0, {0}};
    for (int i = 0; i < nparts; i++) {
        p->to[i] = (d->rank + dir[i] % d->size + d->size) % d->size;
        p->from[i] = (d->rank - dir[i] % d->size + d->size) % d->size;
        comm_irecv(&theirs[i], sizeof theirs[i], p->to[i], TAG_SETUP + i, &r); /* the buffer I fill */
        comm_isend(&mine, sizeof mine, p->from[i], TAG_SETUP + i, &r);        /* the rank that fills mine */
    }
    comm_waitall(&r);
    int ok = mine.ok;
    for (int i = 0; i < nparts && ok; i++) {
        if (p->to[i] == d->rank) { /* dir 0 or R = 1: my own buffer */
            p->remote[i] = p->dev;
            continue;
        }
        ok = theirs[i].ok && strcmp(theirs[i].host, mine.host) == 0;
        for (int k = 0; k < i && ok && !p->remote[i]; k++) /* one mapping per neighbour (R = 2: both parts) */
            if (p->to[k] == p->to[i]) p->remote[i] = p->remote[k], p->remote_arrival[i] = p->remote_arrival[k];
        if (ok && !p->remote[i]) {
            ok = cudaIpcOpenMemHandle(&p->opened[i], theirs[i].h, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess &&
                 cudaIpcOpenMemHandle(&p->opened_arrival[i], theirs[i].ha, cudaIpcMemLazyEnablePeerAccess) ==
                     cudaSuccess;
            p->remote[i] = (char *)p->opened[i];
            p->remote_arrival[i] = (unsigned *)p->opened_arrival[i];
        }
    }
    cudaGetLastError(); /* a failed mapping is an answer, not an error */
    double fail = !ok;
    comm_max(&fail, 1);
    if (comm_is_root()) lat_debug("GPU exchange: %s", fail ? "through host memory" : "device to device (CUDA IPC)");
    if (fail) {
        unmap(p);
        if (p->arrival) cudaFree(p->arrival);
        free(p);
        return NULL;
    }
    int lo = 0, hi = 0;
    check(cudaDeviceGetStreamPriorityRange(&lo, &hi), "asking for stream priorities");
    check(cudaStreamCreateWithPriority(&p->copy, cudaStreamNonBlocking, hi), "creating the peer copy stream");
    check(cudaEventCreateWithFlags(&p->ready, cudaEventDisableTiming), "creating a peer event");
    check(cudaEventCreateWithFlags(&p->sent, cudaEventDisableTiming), "creating a peer event");
    return p;
}

extern "C" void gpu_peer_send(struct gpu_peer *p, int i, size_t send_off, size_t recv_off, size_t bytes)
{
    if (i < 0 || i >= p->nparts || (p->sent_mask >> i & 1u))
        lat_die(1, "GPU", "internal error: peer part %d sent twice or out of range", i);
    if (!p->sent_mask) { /* the round's first send: after what the default stream has queued (the pack) */
        if (p->owe_free) comm_waitall(&p->free_reqs); /* the receivers have read the round before */
        p->owe_free = 0;
        check(cudaEventRecord(p->ready, 0), "recording a peer event");
        check(cudaStreamWaitEvent(p->copy, p->ready, 0), "ordering the peer copy");
    }
    p->sent_mask |= 1u << i;
    check(cudaMemcpyAsync(p->remote[i] + recv_off, p->dev + send_off, bytes, cudaMemcpyDeviceToDevice, p->copy),
          "copying to the neighbour's GPU");
    halo_count(bytes);
}

extern "C" void gpu_peer_wait(struct gpu_peer *p)
{
    check(cudaEventRecord(p->sent, p->copy), "recording a peer event");
    check(cudaEventSynchronize(p->sent), "waiting for the copies to the neighbour's GPU");
    struct comm_reqs r = {0, {0}};
    for (int i = 0, n = 0; i < p->nparts; i++) {
        if (!(p->sent_mask >> i & 1u) || p->to[i] == p->rank) continue;
        comm_irecv(&p->flag[2 * i], 1, p->from[i], TAG_ARRIVED + i, &r);
        comm_isend(&p->flag[2 * i + 1], 1, p->to[i], TAG_ARRIVED + i, &r);
        if (++n == COMM_MAXREQ / 2) comm_waitall(&r), n = 0;
    }
    comm_waitall(&r);
    p->done_mask = p->sent_mask;
    p->sent_mask = 0;
}

extern "C" void gpu_peer_wait_device(struct gpu_peer *p)
{
    if (p->host_wait || p->owe_free) { /* the host's round; a releasing caller keeps to gpu_peer_wait */
        gpu_peer_wait(p);
        return;
    }
    const unsigned round = ++p->round;
    arrival_ptrs a;
    a.n = 0;
    unsigned recv = 0;
    for (int i = 0; i < p->nparts; i++) {
        if (!(p->sent_mask >> i & 1u) || p->to[i] == p->rank) continue;
        a.w[a.n++] = p->remote_arrival[i] + i; /* the receiver's word of part i */
        recv |= 1u << i; /* every rank sends the same parts: part i comes here from from[i] */
    }
    if (a.n) k_arrival_store<<<1, 32, 0, p->copy>>>(a, round);
    check(cudaGetLastError(), "launching the peer arrival store");
    /* the default stream's next work (the next pack overwrites what was
     * sent; local parts are read) waits for this round's copies */
    check(cudaEventRecord(p->sent, p->copy), "recording a peer event");
    check(cudaStreamWaitEvent(0, p->sent, 0), "ordering after the peer copies");
    if (recv) k_arrival_wait<<<1, 32>>>(p->arrival, recv, round);
    check(cudaGetLastError(), "launching the peer arrival wait");
    p->done_mask = p->sent_mask;
    p->sent_mask = 0;
}

extern "C" void gpu_peer_release(struct gpu_peer *p)
{
    if (p->owe_free) comm_waitall(&p->free_reqs); /* a release without a round between */
    p->owe_free = 1;
    for (int i = 0; i < p->nparts; i++) {
        if (!(p->done_mask >> i & 1u) || p->to[i] == p->rank) continue;
        comm_isend(&p->free_flag[2 * i + 1], 1, p->from[i], TAG_FREE + i, &p->free_reqs);
        comm_irecv(&p->free_flag[2 * i], 1, p->to[i], TAG_FREE + i, &p->free_reqs);
    }
}

extern "C" void *gpu_peer_remote(struct gpu_peer *p, int i)
{
    if (!p || i < 0 || i >= p->nparts) lat_die(1, "GPU", "internal error: peer part %d out of range", i);
    return p->host_wait ? NULL : p->remote[i];
}

extern "C" void *gpu_peer_put_stream(struct gpu_peer *p, size_t bytes)
{
    if (!p || p->host_wait || p->owe_free || p->sent_mask) return NULL;
    for (int i = 0; i < p->nparts; i++)
        if (p->to[i] == p->rank) return NULL; /* a local part is a copy within dev: gpu_peer_send's */
    check(cudaEventRecord(p->ready, 0), "recording a peer event");
    check(cudaStreamWaitEvent(p->copy, p->ready, 0), "ordering the caller's peer stores");
    p->sent_mask = (1u << p->nparts) - 1u;
    halo_count(bytes * (size_t)p->nparts);
    return (void *)p->copy;
}

extern "C" void gpu_peer_close(struct gpu_peer *p)
{
    if (!p) return;
    if (p->sent_mask) gpu_peer_wait(p);
    if (p->owe_free) comm_waitall(&p->free_reqs);
    /* the device-side rounds: every store into a neighbour's words and
     * every wait on this rank's have run before anything is unmapped */
    check(cudaDeviceSynchronize(), "finishing the peer rounds");
    unmap(p);
    comm_barrier(); /* every rank unmapped before any frees its buffer */
    cudaFree(p->arrival);
    cudaStreamDestroy(p->copy);
    cudaEventDestroy(p->ready);
    cudaEventDestroy(p->sent);
    free(p);
}

/* ---- replicas: every replica's buffer mapped in the others' -------------- */

struct gpu_replica_share {
    int n, me;
    void **buf;    /* replica q's buffer as mapped here */
    void **opened; /* the mappings to close */
};

static void replica_unmap(struct gpu_replica_share *s)
{
    for (int q = 0; q < s->n; q++)
        if (s->opened[q]) cudaIpcCloseMemHandle(s->opened[q]);
    free(s->buf);
    free(s->opened);
    free(s);
}

extern "C" struct gpu_replica_share *gpu_replica_share_open(void *dev)
{
    const char *e = getenv("LAT_GPU_HALO");
    const int want = !(e && strcmp(e, "host") == 0);
    struct entry { cudaIpcMemHandle_t h; char host[64]; int ok; } mine;
    const size_t nd = (sizeof mine + sizeof(double) - 1) / sizeof(double); /* an entry in doubles (bytes moved as they are) */
    struct gpu_replica_share *s = (struct gpu_replica_share *)lat_calloc(1, sizeof *s);
    s->n = comm_replicas();
    s->me = comm_replica();
    s->buf = (void **)lat_calloc((size_t)s->n, sizeof(void *));
    s->opened = (void **)lat_calloc((size_t)s->n, sizeof(void *));
    double *all = (double *)lat_calloc((size_t)s->n * nd, sizeof(double));
    memset(&mine, 0, sizeof mine);
    gethostname(mine.host, sizeof mine.host - 1);
    mine.ok = want && cudaIpcGetMemHandle(&mine.h, dev) == cudaSuccess;
    memcpy(all + (size_t)s->me * nd, &mine, sizeof mine);
    comm_replica_gather(all, nd);
    int ok = mine.ok;
    for (int q = 0; q < s->n && ok; q++) {
        struct entry theirs;
        memcpy(&theirs, all + (size_t)q * nd, sizeof theirs);
        if (q == s->me) {
            s->buf[q] = dev;
            continue;
        }
        ok = theirs.ok && strcmp(theirs.host, mine.host) == 0 &&
             cudaIpcOpenMemHandle(&s->opened[q], theirs.h, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess;
        s->buf[q] = s->opened[q];
    }
    free(all);
    cudaGetLastError(); /* a failed mapping is an answer, not an error */
    double fail = !ok;
    comm_replica_sum(&fail, 1);
    lat_debug("GPU replicas: %s", fail > 0 ? "through host memory" : "device to device (CUDA IPC)");
    if (fail > 0) {
        replica_unmap(s);
        return NULL;
    }
    return s;
}

extern "C" void *gpu_replica_buffer(struct gpu_replica_share *s, int q) { return s->buf[q]; }

extern "C" void gpu_replica_fence(void)
{
    check(cudaDeviceSynchronize(), "finishing a replicas' round");
    double none = 0;
    comm_replica_sum(&none, 1);
}

extern "C" void gpu_replica_share_close(struct gpu_replica_share *s)
{
    if (!s) return;
    gpu_replica_fence(); /* nobody reads a buffer any more */
    replica_unmap(s);
    gpu_replica_fence(); /* every replica unmapped before any frees its buffer */
}
