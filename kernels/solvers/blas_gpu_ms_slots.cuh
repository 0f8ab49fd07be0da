/* solvers/blas_gpu_ms_slots.cuh -- the device multi-shift loop's
 * reduction ends across ranks (blas_gpu_multishift.cuh includes it; nvcc
 * and the host emulation compile this very text): where a reduction's
 * chunk sums go and come from, the three parts of an end that make them
 * one number on every rank in global order, and the last-block test that
 * lets a reduction's own kernel end it.  Exported (to
 * blas_gpu_multishift.cuh):
 *   struct bl_ms_where, BL_MS_FLAGS, bl_ms_own(w), bl_ms_recv(w, base, r)
 *       a rank's slot buffer: flag words, own slots, receive regions
 *   bl_ms_own_slots<K>(chunk, g, l, w)   part A: this rank's chunk sums
 *   bl_ms_put_wait<K>(w)   part B: the own slots into every other rank's
 *       buffer over NVLink, the round's number, the wait for theirs
 *   bl_ms_sums<K, N>(w, out)   part C: sums 0 .. N - 1, the slots in global order
 *   bl_ms_last_block(count, nblocks)   true in the block that finishes last
 * Why and how: blas_gpu_multishift.cuh's head. */
#ifndef LAT_SOLVERS_BLAS_GPU_MS_SLOTS_CUH
#define LAT_SOLVERS_BLAS_GPU_MS_SLOTS_CUH

#include "gpu/peer.h"

/* where a reduction's slots go and come from.  buf (this rank's, device):
 * BL_MS_FLAGS unsigned words (word r: the last round rank r's slots landed
 * here), this rank's own slots (2 nslot doubles), then 2 rounds x R receive
 * regions of 2 nslot (rank r's slots of round n in region n % 2, r);
 * remote[i]: the buffer of rank me + 1 + i mapped here (direct puts), or
 * none (nremote 0: the host queued the exchange, gpu_peer_send) */
#define BL_MS_FLAGS 64 /* words: 8 doubles before the slots, room for GPU_PEER_MAXPARTS + 1 ranks */
struct bl_ms_where {
    double *buf;
    double *remote[GPU_PEER_MAXPARTS];
    int nremote, nranks, me;
    size_t nslot;
    unsigned round; /* this reduction's number, from 1 */
};
static __host__ __device__ double *bl_ms_own(const bl_ms_where &w) { return w.buf + BL_MS_FLAGS / 2; }
static __host__ __device__ double *bl_ms_recv(const bl_ms_where &w, double *base, int r)
{
    return base + BL_MS_FLAGS / 2 + w.nslot * 2 * (1 + (size_t)(w.round % 2) * (size_t)w.nranks + (size_t)r);
}

/* part A of a reduction's end: this rank's chunk sums into its own slots
 * (the rest zero), a thread per chunk sum, its pieces loaded at once
 * (bl_chunk_slot's order of addition) */
template <int K> static __device__ void bl_ms_own_slots(const double *chunk, const bl_chunk_grid &g,
                                                         const struct solver_reduce_layout &l, const bl_ms_where &w)
{
    double *own = bl_ms_own(w);
    for (size_t i = threadIdx.x; i < g.nslot * K; i += GPU_RED_BS) own[i] = 0;
    __syncthreads();
    for (size_t i = threadIdx.x; i < g.nchunk * K; i += GPU_RED_BS) bl_chunk_slot<K>(chunk, g, l, i / K, (int)(i % K), own);
    __syncthreads();
}

/* part B (a GPU with the peers mapped): the own slots stored into every
 * other rank's receive region of this round, a system fence, the round's
 * number into their flag words; then wait until every other rank's number
 * is in ours.  The regions alternate by round: a rank stores round n + 2
 * only after its round n + 1 saw ours, which we gave after reading round n. */
template <int K> static __device__ void bl_ms_put_wait(const bl_ms_where &w)
{
#ifdef __CUDA_ARCH__
    const double *own = bl_ms_own(w);
    for (int i = 0; i < w.nremote; i++) {
        double *dst = bl_ms_recv(w, w.remote[i], w.me);
        for (size_t k = threadIdx.x; k < w.nslot * K; k += GPU_RED_BS) dst[k] = own[k];
    }
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int i = 0; i < w.nremote; i++) ((volatile unsigned *)w.remote[i])[w.me] = w.round;
        volatile unsigned *mine = (volatile unsigned *)w.buf;
        for (int r = 0; r < w.nranks; r++)
            if (r != w.me)
                while ((int)(mine[r] - w.round) < 0) {
                }
        __threadfence();
    }
    __syncthreads();
#else
    (void)w; /* the emulation has no mapped peers: nremote is 0 there */
#endif
}

/* part C: sums 0 .. N - 1 of the reduction's K into out (every thread),
 * each over the slots in global order, a slot being the sum over the ranks
 * in rank order (own slots for this rank) -- as comm_sum and
 * bl_chunk_finish add them; a thread per slot, then thread k adds sum k's
 * slots up: the N sums side by side in one warp, where one sum after the
 * other left the GPU idle N times as long at a reduction's end (the
 * BiCGstab loop's ends have N = 2 and 3; session 26). */
template <int K, int N> static __device__ void bl_ms_sums(const bl_ms_where &w, double *out)
{
    static_assert(N >= 1 && N <= K && N <= 32, "bl_ms_sums: N of K sums, one warp");
    __shared__ double sh[N][GPU_RED_BS];
    __shared__ double total[N];
    double acc = 0; /* sum threadIdx.x, for threads below N */
    for (size_t s0 = 0; s0 < w.nslot; s0 += GPU_RED_BS) { /* GPU_RED_BS slots at a time */
        const size_t sl = s0 + threadIdx.x;
        if (sl < w.nslot)
            for (int k = 0; k < N; k++) {
                double v = 0;
                for (int r = 0; r < w.nranks; r++)
                    v = bl_add(v, r == w.me ? bl_ms_own(w)[sl * K + k] : __ldcg(bl_ms_recv(w, w.buf, r) + sl * K + k));
                sh[k][threadIdx.x] = v;
            }
        __syncthreads();
        if (threadIdx.x < N)
            for (size_t i = 0; i < GPU_RED_BS && s0 + i < w.nslot; i++) acc = bl_add(acc, sh[threadIdx.x][i]);
        __syncthreads();
    }
    if (threadIdx.x < N) total[threadIdx.x] = acc;
    __syncthreads();
    for (int k = 0; k < N; k++) out[k] = total[k];
}

/* true in the one block of nblocks that finishes last (its threads then
 * see every block's stores); that block sets *count back to 0 */
static __device__ bool bl_ms_last_block(unsigned *count, unsigned nblocks)
{
    __shared__ bool last;
    __threadfence(); /* this thread's partial before the count */
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(count, 1u) == nblocks - 1;
        if (last) *count = 0; /* every other block has counted: the next launch starts from 0 */
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}

#endif
