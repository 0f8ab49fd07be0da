/* cufft-on-host.h -- the part of cuFFT's interface the CUDA backend of
 * lat-fourier uses (kernels/fourier/gpu.cuh), for the host emulation
 * (scripts/fourier-emulation.cpp defines the functions with FFTW):
 *   cufftHandle, cufftResult (CUFFT_SUCCESS and the failures below),
 *   cufftType (CUFFT_C2C, CUFFT_Z2Z), CUFFT_FORWARD (-1), CUFFT_INVERSE (+1),
 *   cufftComplex, cufftDoubleComplex (x re, y im);
 *   cufftPlanMany with cuFFT's advanced layout (inembed NULL: the basic
 *   layout, transforms contiguous and packed; else element (b, i) of a rank-1
 *   plan at b*idist + i*istride, and likewise row-major through inembed for
 *   rank 2 and 3), cufftExecC2C, cufftExecZ2Z (unnormalised, in place or
 *   out of place), cufftDestroy.
 * Each transform of a batch is gathered into a contiguous array and run
 * through one FFTW plan of its shape (FFTW_ESTIMATE: no timing, the same
 * algorithm every run), so a transform's bits depend on its numbers alone,
 * never on the batch, the strides or the place in the buffer. */
#ifndef LAT_CUFFT_ON_HOST_H
#define LAT_CUFFT_ON_HOST_H
typedef int cufftHandle;
typedef enum {
    CUFFT_SUCCESS = 0,
    CUFFT_INVALID_PLAN = 1,
    CUFFT_ALLOC_FAILED = 2,
    CUFFT_INVALID_TYPE = 3,
    CUFFT_INVALID_VALUE = 4,
    CUFFT_EXEC_FAILED = 6,
} cufftResult;
typedef enum { CUFFT_C2C = 0x29, CUFFT_Z2Z = 0x69 } cufftType;
#define CUFFT_FORWARD (-1)
#define CUFFT_INVERSE 1
struct cufftComplex {
    float x, y;
};
struct cufftDoubleComplex {
    double x, y;
};
cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                          int ostride, int odist, cufftType type, int batch);
cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *in, cufftComplex *out, int direction);
cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *in, cufftDoubleComplex *out, int direction);
cufftResult cufftDestroy(cufftHandle plan);
#endif
