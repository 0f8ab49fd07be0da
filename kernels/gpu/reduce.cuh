/* gpu/reduce.cuh -- deterministic block reductions of the GPU layer (device
 * side; the host adds the blocks' partials in block order).
 *
 * Exported (templates, __device__):
 *   GPU_RED_BS           threads per block of every reduction kernel (256;
 *       a host emulation may define it smaller first, for its own objects
 *       only: fewer fibers per block, the same arithmetic per tree level)
 *   red_block_sum<K>(sh, v, out)  out[k] = sum over the block's threads of
 *       v[k], as a fixed tree in shared memory (sh: K x GPU_RED_BS doubles):
 *       step w = BS/2, BS/4, .., 1: a[t] += a[t + w].  Thread 0 writes out.
 *   red_block_max<K>(sh, v, out)  the same tree with obs_max_nan (NaN wins);
 *       both are red_block<K>(sh, v, out, op), the one tree.
 * Deterministic: the grid is fixed by the lattice alone (never by the
 * device), each thread adds its sites in a fixed order, the trees are fixed.
 * Include after lattice/observables_site.h. */
#ifndef LAT_GPU_REDUCE_CUH
#define LAT_GPU_REDUCE_CUH

#ifndef GPU_RED_BS
#define GPU_RED_BS 256
#endif

/* the two operations of the trees */
struct red_add { __device__ __forceinline__ double operator()(double a, double b) const { return a + b; } };
struct red_max { __device__ __forceinline__ double operator()(double a, double b) const { return obs_max_nan(a, b); } };

/* the one tree: a[t] = op(a[t], a[t + w]) for w = BS/2 .. 1 */
template <int K, class Op>
__device__ __forceinline__ void red_block(double (*sh)[GPU_RED_BS], const double *v, double *out, Op op)
{
    int tid = threadIdx.x;
#pragma unroll
    for (int k = 0; k < K; k++) sh[k][tid] = v[k];
    __syncthreads();
    for (int w = GPU_RED_BS / 2; w > 0; w >>= 1) {
        if (tid < w)
#pragma unroll
            for (int k = 0; k < K; k++) sh[k][tid] = op(sh[k][tid], sh[k][tid + w]);
        __syncthreads();
    }
    if (tid == 0)
#pragma unroll
        for (int k = 0; k < K; k++) out[k] = sh[k][0];
    __syncthreads();
}

template <int K>
__device__ __forceinline__ void red_block_sum(double (*sh)[GPU_RED_BS], const double *v, double *out)
{
    red_block<K>(sh, v, out, red_add());
}

template <int K>
__device__ __forceinline__ void red_block_max(double (*sh)[GPU_RED_BS], const double *v, double *out)
{
    red_block<K>(sh, v, out, red_max());
}

#endif
