/* solvers/blas_gpu_store.cuh -- how the GPU vector kernels hold, load and
 * store a group of 4 stored reals in each storage (double, single, half),
 * included by blas_gpu.cuh (after its bl_mul), so nvcc and the host
 * emulation compile this very text.  Exported (to blas_gpu.cuh and the files
 * it includes): bl_g (a group's values in double registers), bl_raw<T> (a
 * group as stored), bl_fetch / bl_put (move one as it is), bl_dec / bl_enc
 * (its values, and values in storage form), bl_load / bl_store /
 * bl_store_half (the two together), bl_half_max / bl_half_norm (a half
 * site's norm and encode factor from its new values), bl_site_scale (a
 * site's decode factor), bl_is_half.  Every conversion is written here
 * once: half.h's quantisation and decode, single's rounding. */
#ifndef LAT_SOLVERS_BLAS_GPU_STORE_CUH
#define LAT_SOLVERS_BLAS_GPU_STORE_CUH

/* ---- storage: a group of 4 reals in double registers -------------------- */
struct bl_g {
    double v[4];
};
struct alignas(16) bl_d2 {
    double a, b;
};
struct alignas(16) bl_f4 {
    float a, b, c, d;
};
struct alignas(8) bl_h4 {
    int16_t a, b, c, d;
};
template <class T> struct bl_is_half : std::false_type {};
template <> struct bl_is_half<int16_t> : std::true_type {};

/* a group as stored (bl_raw<T>: double's is its values), moved as it is
 * (bl_fetch, bl_put at element offset e, a multiple of 4), its values
 * (bl_dec; scale: half's decode factor of the site, unused otherwise) and
 * values in storage form (bl_enc: single's rounding, half's quantisation
 * with the site's encode factor, half.h) -- once for bl_load / bl_store and
 * the kernels that hold groups as stored (blas_gpu_bicg_loop.cuh) */
template <class T> struct bl_raw_t { using type = bl_g; };
template <> struct bl_raw_t<float> { using type = bl_f4; };
template <> struct bl_raw_t<int16_t> { using type = bl_h4; };
template <class T> using bl_raw = typename bl_raw_t<T>::type;
template <class T> static __device__ __forceinline__ bl_raw<T> bl_fetch(const T *p, size_t e)
{
    if constexpr (!std::is_same<T, double>::value) return *(const bl_raw<T> *)(p + e);
    else {
        bl_d2 x = ((const bl_d2 *)(p + e))[0], y = ((const bl_d2 *)(p + e))[1];
        return bl_g{{x.a, x.b, y.a, y.b}};
    }
}
template <class T> static __device__ __forceinline__ void bl_put(T *p, size_t e, const bl_raw<T> &g)
{
    if constexpr (!std::is_same<T, double>::value) *(bl_raw<T> *)(p + e) = g;
    else ((bl_d2 *)(p + e))[0] = bl_d2{g.v[0], g.v[1]}, ((bl_d2 *)(p + e))[1] = bl_d2{g.v[2], g.v[3]};
}
static __device__ __forceinline__ bl_g bl_dec(const bl_g &x, double) { return x; }
static __device__ __forceinline__ bl_g bl_dec(const bl_f4 &x, double) { return bl_g{{x.a, x.b, x.c, x.d}}; }
static __device__ __forceinline__ bl_g bl_dec(const bl_h4 &x, double sc)
{
    return bl_g{{bl_mul(x.a, sc), bl_mul(x.b, sc), bl_mul(x.c, sc), bl_mul(x.d, sc)}};
}
static __device__ __forceinline__ bl_g bl_enc(const double *, const bl_g &g, double) { return g; }
static __device__ __forceinline__ bl_f4 bl_enc(const float *, const bl_g &g, double)
{
    return bl_f4{(float)g.v[0], (float)g.v[1], (float)g.v[2], (float)g.v[3]};
}
static __device__ __forceinline__ bl_h4 bl_enc(const int16_t *, const bl_g &g, double scale)
{
    return bl_h4{half_quantise(g.v[0], scale), half_quantise(g.v[1], scale), half_quantise(g.v[2], scale),
                 half_quantise(g.v[3], scale)};
}
template <class T> static __device__ __forceinline__ bl_g bl_load(const T *p, size_t e, double scale)
{
    return bl_dec(bl_fetch(p, e), scale);
}
template <class T> static __device__ __forceinline__ void bl_store(T *p, size_t e, const bl_g &g)
{
    static_assert(!bl_is_half<T>::value, "a half group is stored with its site's factor: bl_store_half");
    bl_put(p, e, bl_enc(p, g, 1.0));
}
/* a half group: quantised with the site's encode factor */
static __device__ __forceinline__ void bl_store_half(int16_t *p, size_t e, const bl_g &g, double scale)
{
    bl_put(p, e, bl_enc(p, g, scale));
}
/* a half site's new values: their largest |value| (bl_half_max over each
 * group, finite cleared by a NaN or infinity), then its norm and encode
 * factor (half.h's steps; zero: every q 0, a zero or non-finite site) */
static __device__ __forceinline__ void bl_half_max(const bl_g &o, double *mx, int *finite)
{
    double m = *mx;
    int f = *finite;
    for (int k = 0; k < 4; k++) {
        double a = fabs(o.v[k]);
        if (!isfinite(a)) f = 0;
        else if (a > m) m = a;
    }
    *mx = m, *finite = f;
}
struct bl_half_site {
    float nf;
    bool zero;
    double qs;
};
static __device__ __forceinline__ bl_half_site bl_half_norm(double mx, int finite)
{
    const float nf = half_norm(mx, finite);
    const bool zero = !finite || nf == 0;
    return bl_half_site{nf, zero, zero ? 0 : half_encode_scale(nf)};
}
/* the decode factor of site s (1 for double and single storage) */
template <class T> static __device__ __forceinline__ double bl_site_scale(const float *norm, int64_t s)
{
    if constexpr (bl_is_half<T>::value) return half_decode_scale(norm[s]);
    else return 1;
}

#endif
