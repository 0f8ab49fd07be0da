/* cuda-on-host.h -- just enough of CUDA for g++ to compile our device-code
 * files (the .cuh files under kernels/ other than the launch files) whole, for the host
 * emulations (scripts/NAME-emulation.cpp; their host stand-ins of the GPU
 * layer's entry points: scripts/gpu-util-on-host.h):
 * the qualifiers defined away, the 16-byte vector types and the load/store
 * intrinsics as plain memory accesses, atomicAdd (unsigned) and
 * __threadfence as the one running thread's, and blockIdx/threadIdx/blockDim as
 * variables the emulation sets before "running" each thread.
 * A launch whose threads are independent runs through
 * cuda_on_host_grid(nblocks, nthreads, body): every thread in turn.
 * Kernels that need a whole block at once (__syncthreads: k_sweep_sh, the
 * reductions) run through cuda_on_host_block(nthreads, body): the block's
 * threads as fibers (ucontext) in one OS thread, each running body() until
 * its next __syncthreads or its end, round after round -- a barrier is a
 * round, so no thread passes one before every live thread of the block has
 * reached it (a thread that returned early no longer counts, as on the
 * GPU).  Outside a block runner __syncthreads aborts; warp shuffles
 * (k_sweep4) always abort.  __shared__ arrays are function-local statics:
 * one per kernel instantiation, shared by the fibers of the running block.
 * Include it before any header of the project. */
#ifndef LAT_CUDA_ON_HOST_H
#define LAT_CUDA_ON_HOST_H
#include <cstdio>
#include <cstdlib>
#include <cmath>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
struct float4 { float x, y, z, w; };
struct double2 { double x, y; };
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
static inline double2 make_double2(double a, double b) { return {a, b}; }
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T> static inline void __stcg(T *p, T v) { *p = v; }
/* one thread at a time: plain read-modify-write, fences are nothing */
static inline unsigned atomicAdd(unsigned *p, unsigned v)
{
    const unsigned old = *p;
    *p = old + v;
    return old;
}
static inline void __threadfence(void) {}
struct u3 { unsigned x, y, z; };
static u3 blockIdx, threadIdx, blockDim;
#define __shared__ static
[[noreturn]] static inline void cuda_on_host_unsupported(const char *what)
{
    fprintf(stderr, "cuda-on-host: %s cannot run one thread at a time\n", what);
    abort();
}
#include <ucontext.h>
#include <vector>
#include <functional>
struct cuda_on_host_fibers {
    ucontext_t sched;
    std::vector<ucontext_t> ctx;
    std::vector<char *> stack;
    std::vector<char> done;
    int current = -1;
    const std::function<void()> *body = nullptr;
};
static cuda_on_host_fibers *cuda_on_host_running; /* the block being run, if any */
enum { CUDA_ON_HOST_STACK = 1 << 18 };
static void cuda_on_host_trampoline(void)
{
    cuda_on_host_fibers *b = cuda_on_host_running;
    (*b->body)();
    b->done[b->current] = 1; /* returning resumes the scheduler (uc_link) */
}
static inline void __syncthreads(void)
{
    cuda_on_host_fibers *b = cuda_on_host_running;
    if (!b || b->current < 0) cuda_on_host_unsupported("__syncthreads outside cuda_on_host_block");
    swapcontext(&b->ctx[b->current], &b->sched);
}
/* run body as threads 0..n-1 of one block (threadIdx.x set for each; the
 * caller sets blockIdx and blockDim) */
template <class F> static void cuda_on_host_block(unsigned n, const F &f)
{
    static cuda_on_host_fibers b; /* stacks kept for the next block */
    std::function<void()> body = f;
    b.body = &body;
    b.ctx.resize(n);
    b.done.assign(n, 0);
    while (b.stack.size() < n) {
        char *st = (char *)malloc(CUDA_ON_HOST_STACK);
        if (!st) cuda_on_host_unsupported("a block (out of memory for its stacks)");
        b.stack.push_back(st);
    }
    for (unsigned i = 0; i < n; i++) {
        getcontext(&b.ctx[i]);
        b.ctx[i].uc_stack.ss_sp = b.stack[i];
        b.ctx[i].uc_stack.ss_size = CUDA_ON_HOST_STACK;
        b.ctx[i].uc_link = &b.sched;
        makecontext(&b.ctx[i], cuda_on_host_trampoline, 0);
    }
    cuda_on_host_running = &b;
    unsigned left = n;
    while (left > 0)
        for (unsigned i = 0; i < n; i++) {
            if (b.done[i]) continue;
            b.current = (int)i;
            threadIdx.x = i;
            swapcontext(&b.sched, &b.ctx[i]);
            if (b.done[i]) left--;
        }
    b.current = -1;
    cuda_on_host_running = nullptr;
}
/* a launch of nblocks blocks of nthreads whose threads do not read what
 * another writes: body() as every thread in turn, block after block
 * (blockDim.x, blockIdx.x and threadIdx.x set for each; blockIdx.y is the
 * caller's) */
template <class F> static void cuda_on_host_grid(unsigned nblocks, unsigned nthreads, const F &body)
{
    blockDim.x = nthreads;
    for (unsigned b = 0; b < nblocks; b++) {
        blockIdx.x = b;
        for (unsigned t = 0; t < nthreads; t++) {
            threadIdx.x = t;
            body();
        }
    }
}
template <class T> static inline T __shfl_sync(unsigned mask, T v, int lane)
{
    (void)mask; (void)v; (void)lane;
    cuda_on_host_unsupported("__shfl_sync");
}
#endif
