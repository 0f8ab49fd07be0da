/* fourier-emulation.cpp -- the CUDA backend of lat-fourier
 * (kernels/fourier/gpu.cuh, its kernels and its host side) run on the host
 * without a GPU, nvcc or cuFFT; scripts/fourier-emulation builds it into
 * tools/lat-fourier.c and runs the checks (one GPU per MPI rank, R = 1, 2,
 * 4, against each other bit for bit and against the CPU backend).
 *
 * One source, four objects (FA_EMU_PART):
 *   'd', 's', 'm': kernels/fourier/gpu.cuh compiled whole in that
 *     precision (as gpu_d.cu, gpu_s.cu, gpu_m.cu do), with FA_EMULATION:
 *     fa_launch runs a launch's threads one after the other (so does
 *     fa_launch_red, with the block tree of red_block_sum below),
 *     fa_host_alloc is malloc;
 *   0: the cuFFT stand-in of scripts/cufft-on-host.h with FFTW
 *     (cufftPlanMany, cufftExecC2C/Z2Z, cufftDestroy).
 * The GPU layer's memory calls (device memory is host memory), the halo
 * and gauge-fixing kernels come from scripts/gpu-emulation-build --objects.
 * It checks the slab logic (owned slices, the transpose's offsets, the
 * halo slices, the global sums, the plans' layouts), not the CUDA
 * compiler's code nor cuFFT's own arithmetic. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cuda-on-host.h"
#include "cufft-on-host.h"

#if FA_EMU_PART == 0
/* ---- cuFFT on FFTW ---- */
#include <fftw3.h>
#include <vector>
extern "C" {
#include "base/log.h"
}
struct emu_plan {
    int used, rank, n[3], inembed[3], onembed[3], basic_in, basic_out;
    long long istride, idist, ostride, odist, len;
    int batch;
    cufftType type;
    fftw_plan pd[2];
    fftwf_plan pf[2];
    void *tmp;
};
static std::vector<emu_plan> plans;

/* the offset of entry i (row-major over n) of a transform in a layout */
static long long at(const emu_plan &p, long long i, int in)
{
    const int *emb = in ? p.inembed : p.onembed;
    if (in ? p.basic_in : p.basic_out) return i;
    long long idx[3], r = i;
    for (int d = p.rank - 1; d >= 0; d--) {
        idx[d] = r % p.n[d];
        r /= p.n[d];
    }
    long long o = 0;
    for (int d = 0; d < p.rank; d++) o = o * emb[d] + idx[d];
    return o * (in ? p.istride : p.ostride);
}

cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                          int ostride, int odist, cufftType type, int batch)
{
    if (rank < 1 || rank > 3 || batch < 1 || (type != CUFFT_C2C && type != CUFFT_Z2Z)) return CUFFT_INVALID_VALUE;
    emu_plan p;
    memset(&p, 0, sizeof p);
    p.used = 1;
    p.rank = rank;
    p.len = 1;
    for (int d = 0; d < rank; d++) {
        if (n[d] < 1) return CUFFT_INVALID_VALUE;
        p.n[d] = n[d];
        p.inembed[d] = inembed ? inembed[d] : n[d];
        p.onembed[d] = onembed ? onembed[d] : n[d];
        p.len *= n[d];
    }
    /* cuFFT: a NULL inembed means the basic layout, strides and distances ignored */
    p.basic_in = inembed == NULL;
    p.basic_out = onembed == NULL;
    p.istride = inembed ? istride : 1;
    p.idist = inembed ? idist : p.len;
    p.ostride = onembed ? ostride : 1;
    p.odist = onembed ? odist : p.len;
    p.batch = batch;
    p.type = type;
    const unsigned flags = FFTW_ESTIMATE;
    if (type == CUFFT_Z2Z) {
        fftw_complex *a = fftw_alloc_complex((size_t)p.len);
        for (int s = 0; s < 2; s++) p.pd[s] = fftw_plan_dft(rank, n, a, a, s ? FFTW_BACKWARD : FFTW_FORWARD, flags);
        p.tmp = a;
    } else {
        fftwf_complex *a = fftwf_alloc_complex((size_t)p.len);
        for (int s = 0; s < 2; s++) p.pf[s] = fftwf_plan_dft(rank, n, a, a, s ? FFTW_BACKWARD : FFTW_FORWARD, flags);
        p.tmp = a;
    }
    plans.push_back(p);
    *plan = (cufftHandle)plans.size(); /* 0 stays "no plan" */
    return CUFFT_SUCCESS;
}

template <class C, class T>
static cufftResult exec(cufftHandle h, C *in, C *out, int direction, cufftType want)
{
    if (h < 1 || (size_t)h > plans.size() || !plans[h - 1].used) return CUFFT_INVALID_PLAN;
    emu_plan &p = plans[h - 1];
    if (p.type != want) return CUFFT_INVALID_TYPE;
    if (direction != CUFFT_FORWARD && direction != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
    const int s = direction == CUFFT_INVERSE;
    T *a = (T *)p.tmp;
    for (int b = 0; b < p.batch; b++) {
        const C *src = in + b * p.idist;
        C *dst = out + b * p.odist;
        for (long long i = 0; i < p.len; i++) {
            a[i][0] = src[at(p, i, 1)].x;
            a[i][1] = src[at(p, i, 1)].y;
        }
        if (want == CUFFT_Z2Z) fftw_execute(p.pd[s]);
        else fftwf_execute(p.pf[s]);
        for (long long i = 0; i < p.len; i++) {
            dst[at(p, i, 0)].x = a[i][0];
            dst[at(p, i, 0)].y = a[i][1];
        }
    }
    return CUFFT_SUCCESS;
}
cufftResult cufftExecZ2Z(cufftHandle h, cufftDoubleComplex *in, cufftDoubleComplex *out, int direction)
{
    return exec<cufftDoubleComplex, fftw_complex>(h, in, out, direction, CUFFT_Z2Z);
}
cufftResult cufftExecC2C(cufftHandle h, cufftComplex *in, cufftComplex *out, int direction)
{
    return exec<cufftComplex, fftwf_complex>(h, in, out, direction, CUFFT_C2C);
}
cufftResult cufftDestroy(cufftHandle h)
{
    if (h < 1 || (size_t)h > plans.size() || !plans[h - 1].used) return CUFFT_INVALID_PLAN;
    emu_plan &p = plans[h - 1];
    for (int s = 0; s < 2; s++) {
        if (p.type == CUFFT_Z2Z) fftw_destroy_plan(p.pd[s]);
        else fftwf_destroy_plan(p.pf[s]);
    }
    if (p.type == CUFFT_Z2Z) fftw_free(p.tmp);
    else fftwf_free(p.tmp);
    p.used = 0;
    return CUFFT_SUCCESS;
}

#else
/* ---- gpu.cuh in one precision, its launches run on the host ---- */
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
template <class... P, class... A> static void fa_launch(dim3 grid, unsigned bs, void (*k)(P...), A... args)
{
    for (unsigned y = 0; y < grid.y; y++) {
        blockIdx.y = y;
        cuda_on_host_grid(grid.x, bs, [&] { k(args...); });
    }
}
/* the reductions' kernels end in red_block_sum and nothing reads its
 * result within the block, so their threads run one after the other as
 * well; this red_block_sum (in place of gpu/reduce.cuh's) keeps each
 * thread's values and, after the block's last thread, adds them by
 * reduce.cuh's fixed tree (a[t] += a[t + w], w = BS/2 .. 1) -- the same
 * additions in the same order, without a fiber per thread (fibers made a
 * run ~10x slower).  Static: no other object's inline copy can stand in. */
#define LAT_GPU_REDUCE_CUH
#define GPU_RED_BS 256
template <int K> static void red_block_sum(double (*sh)[GPU_RED_BS], const double *v, double *out)
{
    if (blockDim.x != GPU_RED_BS) cuda_on_host_unsupported("a reduction block of another size");
    for (int k = 0; k < K; k++) sh[k][threadIdx.x] = v[k];
    if (threadIdx.x != GPU_RED_BS - 1) return;
    for (int w = GPU_RED_BS / 2; w > 0; w >>= 1)
        for (int t = 0; t < w; t++)
            for (int k = 0; k < K; k++) sh[k][t] = sh[k][t] + sh[k][t + w];
    for (int k = 0; k < K; k++) out[k] = sh[k][0];
}
template <class... P, class... A> static void fa_launch_red(dim3 grid, unsigned bs, void (*k)(P...), A... args)
{
    fa_launch(grid, bs, k, args...);
}
static void *fa_host_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
static void fa_host_free(void *p) { free(p); }
#define FA_EMULATION 1
#if FA_EMU_PART == 'd'
#define LAT_REAL double
#define FA_STORE double
#define FA_NS fa_d
#define FA_SFX d
#elif FA_EMU_PART == 's'
#define LAT_REAL float
#define FA_STORE float
#define FA_NS fa_s
#define FA_SFX s
#else
#define LAT_REAL double
#define FA_STORE float
#define FA_NS fa_m
#define FA_SFX m
#endif
#include "fourier/gpu.cuh"
#endif
