/* gpu_links.cuh -- the device side of the link storage of gaugefix_gpu.h
 * (parity-split, blocked structure of arrays; 12 reals per SU(3) link, the
 * third row rebuilt in registers), shared by the gauge-fixing kernels
 * (gaugefix_gpu_impl.cuh) and the heatbath kernels (heatbath_gpu_impl.cuh):
 * the geometry (kgeo, decode, neighbour) and the coalesced 16-byte loads and
 * stores of links.
 *
 * Contract: included inside a per-precision namespace, after
 *     typedef <storage type: float or double> store_t;
 * and after sun.h and gaugefix_gpu.h (it includes nothing itself).  Loads
 * go through L2 only (__ldcg) unless the caller asks for the L1 path
 * (template argument L1 = true: __ldg, valid only for data that no thread
 * of the running kernel writes, or that only the reading thread writes
 * after reading it). */
/* geometry as the kernels need it */
struct kgeo {
    int L[4];
    int Lxh;        /* Lx / 2 */
    int s[4];       /* site strides 1, Lx, Lx Ly, Lx Ly Lz */
    int Vh, V3h;    /* sites per parity; per parity and timeslice */
    size_t nblk;    /* blocks of 32 sites per parity */
    int h0, h1;     /* the half indices a sweep launch covers */
    long long site0; /* global site of local site 0 (random streams) */
};

static kgeo make_geo(const struct gpu_field *f)
{
    kgeo g;
    for (int mu = 0; mu < 4; mu++) g.L[mu] = f->L[mu];
    g.Lxh = f->L[0] / 2;
    g.s[0] = 1;
    for (int mu = 1; mu < 4; mu++) g.s[mu] = g.s[mu - 1] * f->L[mu - 1];
    g.Vh = (int)f->Vh;
    g.V3h = (int)(f->Vh / f->L[3]);
    g.nblk = (size_t)f->nblk;
    g.h0 = f->h0;
    g.h1 = f->h1 > 0 ? f->h1 : g.Vh;
    g.site0 = (long long)f->site0;
    return g;
}

template <int NC> struct ncomp_of { enum { value = NC == 3 ? 12 : 2 * NC * NC }; };

/* 16-byte vectors of the storage type */
__device__ __forceinline__ float4 ld16(const float *p) { return __ldcg((const float4 *)p); }
__device__ __forceinline__ double2 ld16(const double *p) { return __ldcg((const double2 *)p); }
/* the same through the non-coherent L1 path (see the contract above) */
__device__ __forceinline__ float4 ld16_l1(const float *p) { return __ldg((const float4 *)p); }
__device__ __forceinline__ double2 ld16_l1(const double *p) { return __ldg((const double2 *)p); }
__device__ __forceinline__ void st16(float *p, const float *v) { __stcg((float4 *)p, make_float4(v[0], v[1], v[2], v[3])); }
__device__ __forceinline__ void st16(double *p, const double *v) { __stcg((double2 *)p, make_double2(v[0], v[1])); }
__device__ __forceinline__ void unpack(float4 w, float *v) { v[0] = w.x; v[1] = w.y; v[2] = w.z; v[3] = w.w; }
__device__ __forceinline__ void unpack(double2 w, double *v) { v[0] = w.x; v[1] = w.y; }
constexpr int VEC = 16 / sizeof(store_t);

/* site coordinates of half index h of parity p; returns the ILDG site */
__device__ __forceinline__ int decode(const kgeo &g, int p, int h, int x[4])
{
    int xh = h % g.Lxh, r = h / g.Lxh;
    x[1] = r % g.L[1];
    r /= g.L[1];
    x[2] = r % g.L[2];
    x[3] = r / g.L[2];
    int o = (x[1] + x[2] + x[3] + p) & 1;
    x[0] = 2 * xh + o;
    return 2 * h + o;
}

/* site of the neighbour x + dir*mu (dir = +1 or -1) */
__device__ __forceinline__ int neighbour(const kgeo &g, int site, const int x[4], int mu, int dir)
{
    if (dir < 0) return x[mu] > 0 ? site - g.s[mu] : site + (g.L[mu] - 1) * g.s[mu];
    return x[mu] < g.L[mu] - 1 ? site + g.s[mu] : site - (g.L[mu] - 1) * g.s[mu];
}

/* the lane's first group of the matrix in `slot` at half index h
 * (gpu_index of gaugefix_gpu.h); group q lies q*32*VEC reals further */
template <int NCOMP>
__device__ __forceinline__ store_t *mat_ptr(store_t *base, const kgeo &g, int slot, int h)
{
    return base + ((size_t)slot * g.nblk + (unsigned)(h >> 5)) * (NCOMP * GPU_LANES) + (h & 31) * VEC;
}

/* NR rows of an N x N matrix (2 NR N reals, stored in NCOMP >= that) */
template <int NC, int NR, int NCOMP, typename CX, bool L1 = false>
__device__ __forceinline__ void load_rows(const store_t *b, CX *m)
{
    store_t v[NCOMP];
#pragma unroll
    for (int q = 0; q < NCOMP / VEC; q++) unpack(L1 ? ld16_l1(b + q * GPU_LANES * VEC) : ld16(b + q * GPU_LANES * VEC), v + q * VEC);
#pragma unroll
    for (int c = 0; c < NR * NC; c++) {
        m[c].re = v[2 * c];
        m[c].im = v[2 * c + 1];
    }
}

template <int NC, int NR, int NCOMP, typename CX>
__device__ __forceinline__ void store_rows(store_t *b, const CX *m)
{
    store_t v[NCOMP];
#pragma unroll
    for (int c = 0; c < NCOMP; c++) v[c] = 0;
#pragma unroll
    for (int c = 0; c < NR * NC; c++) {
        v[2 * c] = (store_t)m[c].re;
        v[2 * c + 1] = (store_t)m[c].im;
    }
#pragma unroll
    for (int q = 0; q < NCOMP / VEC; q++) st16(b + q * GPU_LANES * VEC, v + q * VEC);
}

template <int NC> struct layout {
    enum { ncomp = ncomp_of<NC>::value, nrows = NC == 3 ? 2 : NC, ncomp_t = (2 * NC * NC + VEC - 1) / VEC * VEC };
};

/* a link: b from link_ptr; SU(3) gets its third row rebuilt */
template <int NC, typename CX, bool L1 = false>
__device__ __forceinline__ void load_link(const store_t *b, CX *m)
{
    load_rows<NC, layout<NC>::nrows, layout<NC>::ncomp, CX, L1>(b, m);
    if (NC == 3) su3_rebuild_row3(m);
}

template <int NC, typename CX>
__device__ __forceinline__ void store_link(store_t *b, const CX *m)
{
    store_rows<NC, layout<NC>::nrows, layout<NC>::ncomp>(b, m);
}

template <int NC>
__device__ __forceinline__ store_t *link_ptr(const store_t *links, const kgeo &g, int p, int mu, int h)
{
    return mat_ptr<layout<NC>::ncomp>((store_t *)links, g, p * 4 + mu, h);
}

template <int NC>
__device__ __forceinline__ store_t *transform_ptr(const store_t *gt, const kgeo &g, int p, int h)
{
    return mat_ptr<layout<NC>::ncomp_t>((store_t *)gt, g, p, h);
}

