/* gpu/peer.h -- device-to-device copies into the GPU of a neighbouring rank
 * on the same node (CUDA IPC), for the exchanges between t-slabs: the
 * gauge-fixing halo (halo.cu) and the Dirac operators' faces (dirac/gpu.c,
 * dirac/staggered_gpu.c).
 * Plain C interface; the CUDA side is peer.cu, the host emulations have
 * their own (scripts/gpu-util-on-host.h: MPI messages in its place).
 *
 *   gpu_peer_open(d, dev, dir, nparts)  collective over the ranks of d.
 *       dev: the caller's device buffer, a whole gpu_alloc allocation.
 *       Part i goes to rank + dir[i] (mod R), into that rank's buffer; each
 *       receiving neighbour's buffer is mapped once.  Answers NULL on every
 *       rank when any rank cannot map (ranks on different nodes, IPC
 *       refused) or LAT_GPU_HALO=host is set: the caller then stages
 *       through the host.  A part whose receiver is this rank (dir 0, or
 *       R = 1) is a copy within dev.  nparts <= GPU_PEER_MAXPARTS.
 *   gpu_peer_send(p, i, send_off, recv_off, bytes)  after the work queued
 *       on the default stream so far, copy `bytes` at dev + send_off into
 *       part i's receiver at its buffer + recv_off, on a stream of the
 *       peer's own; returns at once (the round's first send first waits
 *       for the receivers' release of the round before, if they gave one).
 *       Every rank sends the same parts in a round.
 *   gpu_peer_wait(p)  ends the round: waits until this rank's copies have
 *       landed, says so to their receivers, and waits for the same word
 *       from each rank that sent a part here.  Afterwards this rank's
 *       receive regions hold the round's parts, for kernels launched next.
 *       Nothing here waits for a receiver to have READ a region: a caller
 *       that sends into the same region again must know it has, either by
 *       gpu_peer_release (halo.cu) or by other means (dirac/gpu.c:
 *       alternating regions), or both (fourier/gpu_slab.cuh: two receive
 *       regions alternating by round, and a release right after each
 *       round's wait, which frees the region of the round before -- the
 *       one the next round writes -- since this rank's unpack of it was
 *       queued before this round's pack, which the wait has seen run; no
 *       gpu_sync per round).
 *   gpu_peer_wait_device(p)  ends the round as gpu_peer_wait does, but on
 *       the devices and without a host wait: the default stream's work
 *       queued after it (on this rank) runs once this rank's copies have
 *       landed and the parts sent here have arrived.  The host returns at
 *       once.  For callers that never release (alternating receive
 *       regions, dirac/gpu_faces.h: the chain of stream orders that made
 *       alternation safe holds on the devices as it did through the host).
 *       LAT_GPU_PEER_WAIT=host (read at open), or a caller that releases:
 *       gpu_peer_wait.
 *   gpu_peer_release(p)  this rank has finished reading its receive regions
 *       (the caller has waited for the kernels that read them): tells the
 *       round's senders, whose next round waits for it.  Every rank calls it
 *       after the same rounds, or none does.
 *   gpu_peer_remote(p, i)  part i's receiver's buffer as mapped here: a
 *       device pointer a kernel of this rank may store into directly (over
 *       NVLink), for callers that end their rounds themselves on the devices
 *       (solvers/blas_gpu_multishift.cuh: data, a system fence, a round
 *       number in the receiver's word, the receiver's kernel spinning on
 *       it); NULL where there is no such mapping (the host emulation's MPI
 *       stand-in, LAT_GPU_PEER_WAIT=host): then gpu_peer_send/_wait_device.
 *   gpu_peer_put_stream(p, bytes)  for a caller whose own kernel stores a
 *       round's parts straight into the receivers' buffers
 *       (gpu_peer_remote, `bytes` a part): answers the peer's stream (a
 *       cudaStream_t), ordered after the work queued on the default stream
 *       so far, on which the caller launches that kernel; every part then
 *       counts as sent, and gpu_peer_wait_device ends the round (its
 *       arrival stores follow the kernel on that stream, the default
 *       stream waits for it).  The kernel runs beside what the default
 *       stream does meanwhile (dirac/gpu_faces.h: the pack beside the
 *       interior).  NULL where gpu_peer_remote is NULL, or for a caller
 *       that releases: then gpu_peer_send.
 *   gpu_peer_close(p)  collective; unmaps (call it before any rank frees
 *       its buffer; NULL is fine).
 */
#ifndef LAT_GPU_PEER_H
#define LAT_GPU_PEER_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

#define GPU_PEER_MAXPARTS 8

/* Replicas (base/comm.h comm_replicate: every rank a whole lattice, lat-hmc
 * --split pseudofermions) on one node, each replica's buffer mapped in the
 * others' (CUDA IPC), so a kernel reads another replica's part directly:
 *   gpu_replica_share_open(dev)  collective over the replicas; dev the
 *       caller's buffer, a whole gpu_alloc allocation of the same size on
 *       every replica.  NULL on every replica when any cannot map (another
 *       node, IPC refused) or LAT_GPU_HALO=host: the caller then goes
 *       through the host.
 *   gpu_replica_buffer(s, q)  replica q's buffer as mapped here (its own
 *       for q = comm_replica()).
 *   gpu_replica_fence()  returns when the work queued so far has run on
 *       every replica's device (device synchronisation, then a replicas'
 *       barrier): before reading the others' buffers, and before writing
 *       one's own again while others may still read it.
 *   gpu_replica_share_close(s)  collective; unmaps (NULL is fine). */
struct gpu_replica_share;
struct gpu_replica_share *gpu_replica_share_open(void *dev);
void *gpu_replica_buffer(struct gpu_replica_share *s, int q);
void gpu_replica_fence(void);
void gpu_replica_share_close(struct gpu_replica_share *s);

struct geometry;
struct gpu_peer;
struct gpu_peer *gpu_peer_open(const struct geometry *d, void *dev, const int *dir, int nparts);
void gpu_peer_send(struct gpu_peer *p, int i, size_t send_off, size_t recv_off, size_t bytes);
void gpu_peer_wait(struct gpu_peer *p);
void gpu_peer_wait_device(struct gpu_peer *p);
void gpu_peer_release(struct gpu_peer *p);
void *gpu_peer_remote(struct gpu_peer *p, int i);
void *gpu_peer_put_stream(struct gpu_peer *p, size_t bytes);
void gpu_peer_close(struct gpu_peer *p);

#ifdef __cplusplus
}
#endif
#endif
