/* gpu/accessor.cuh -- the device side of the link storage of gpu/field.h
 * (parity-split, blocked structure of arrays, 16-byte groups), shared by
 * every kernel (gauge fixing, heatbath): the geometry and the one accessor
 * through which kernels read and write links and matrices.  Device code
 * only (the host emulation compiles it with scripts/cuda-on-host.h).
 *
 * Exports:
 *   kgeo, make_geo(f)               the geometry a kernel needs (from gpu_field)
 *   decode(g, p, h, x), neighbour(g, site, x, mu, dir)   sites and neighbours
 *   gauge_accessor<Store, NC, RECON>   the links: Store = storage precision
 *       (float, double), NC = N of SU(N), RECON = reals stored per link:
 *       LINK_FULL (2N^2 rounded up to whole 16-byte groups; any N of
 *       gpu/gpu.h, the storage of N != 3), LINK_12 (SU(3), two rows; the third
 *       rebuilt in registers) or LINK_8 (SU(3), 8 parameters: su3_pack8 /
 *       su3_unpack8 of math/sun.h, which say the parametrisation; float
 *       storage: two 16-byte groups, double: four).  Compute
 *       precision is the complex type a kernel loads into (the CX of load /
 *       store, SIMULATeQCD's getElement<floatT_compute>): the accessor
 *       converts on the load and rounds on the store.  LINK_8's unpack and
 *       pack run in lat_complex (the file's LAT_REAL, the kernels' arithmetic
 *       precision; a CX of another type, the mixed kernels' fcx, is
 *       converted element by element); only the 8 reals are rounded to Store.
 *       Static members, the pointer stays a __restrict__ kernel parameter:
 *         store          the storage type (kernels use it only as U::store *)
 *         at(links, g, p, mu, h)   handle (address) of U_mu at (p, h)
 *         load<CX, L1>(b, m)       the N x N link (rows rebuilt as RECON says)
 *         load_stored<CX, L1>(b, m) the rows stored as rows (lazy rebuild):
 *                                  nrows of them; LINK_8 stores no rows, so
 *                                  it unpacks the whole matrix (nrows = NC)
 *         rebuild(m)               the rows RECON does not store (LINK_12:
 *                                  row 3; LINK_FULL, LINK_8: nothing)
 *         store(b, m)              the stored rows (LINK_8: the 8 reals of
 *                                  su3_pack8), rounded to Store
 *         transform              the matrix_accessor of the tracked g(x)
 *   matrix_accessor<Store, NC>       full N x N matrices (the transform):
 *         at(gt, g, p, h), load(b, m), store(b, m), load_column /
 *         store_column(b, c, col) (column c only, element loads)
 *   face_cx_load(f, k), face_cx_store(f, k, c)   complex k of a face buffer
 *       of lat_real pairs (the Dirac operators' t-slab faces), one access of
 *       two reals each: a pack's stores may go straight into a neighbour's
 *       GPU over NVLink (gpu_faces_pack_to), 16 bytes a store in double
 *   default_links<Store, NC>::type   the accessor of gpu_field's storage
 *       (LINK_12 for SU(3), LINK_FULL otherwise; gpu_field.recon says when
 *       a field holds LINK_8 instead)
 * Loads go through L2 only (__ldcg) unless the caller asks for the L1 path
 * (L1 = true: __ldg, valid only for data that no thread of the running
 * kernel writes, or that only the reading thread writes after reading it).
 * Every access is a 16-byte vector load or store of one group (a warp:
 * 512 contiguous bytes), except the element loads of load_column.
 */
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
/* the faces' complex numbers, one access each (see the contract above) */
struct alignas(2 * sizeof(lat_real)) face_pair {
    lat_real re, im;
};
__device__ __forceinline__ lat_complex face_cx_load(const lat_real *f, size_t k)
{
    const face_pair v = ((const face_pair *)f)[k];
    return c_make(v.re, v.im);
}
__device__ __forceinline__ void face_cx_store(lat_real *f, size_t k, lat_complex c) { ((face_pair *)f)[k] = face_pair{c.re, c.im}; }
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


/* ---- the accessor ---------------------------------------------------------- */
enum { LINK_FULL = 0, LINK_12 = 12, LINK_8 = 8 };

/* the rows of SU(N) not stored with RECON reals: SU(3) LINK_12 rebuilds
 * the third row (su3_rebuild_row3; an overload for a kernel's own complex
 * type, found by argument-dependent lookup, may round differently).
 * nrows: the rows load_stored gives (LINK_8: all NC, unpacked at once). */
template <int NC, int RECON> struct link_layout {
    static_assert(RECON == LINK_FULL || RECON == LINK_12 || RECON == LINK_8, "RECON: LINK_FULL, LINK_12 or LINK_8");
    static_assert(RECON != LINK_12 || NC == 3, "LINK_12 is SU(3) only");
    static_assert(RECON != LINK_8 || NC == 3, "LINK_8 is SU(3) only");
    enum { ncomp = RECON == LINK_8 ? 8 : RECON == LINK_12 ? 12 : 2 * NC * NC, nrows = RECON == LINK_12 ? 2 : NC };
    /* the reals stored per link in groups of VEC: ncomp, rounded up */
    template <int VEC> struct stored {
        enum { value = (ncomp + VEC - 1) / VEC * VEC };
    };
};

/* the lane's first group of the matrix with NCOMP reals in `slot` at half
 * index h (gpu_index of gpu/field.h); group q lies q*32*vec reals further */
template <typename S, int NCOMP>
__device__ __forceinline__ S *group_ptr(S *base, const kgeo &g, int slot, int h)
{
    return base + ((size_t)slot * g.nblk + (unsigned)(h >> 5)) * (NCOMP * GPU_LANES) + (h & 31) * (16 / sizeof(S));
}

/* NR rows of an N x N matrix (2 NR N reals, stored in NCOMP >= that) */
template <typename S, int NC, int NR, int NCOMP, typename CX, bool L1>
__device__ __forceinline__ void load_groups(const S *b, CX *m)
{
    constexpr int V = 16 / sizeof(S);
    S v[NCOMP];
#pragma unroll
    for (int q = 0; q < NCOMP / V; q++) unpack(L1 ? ld16_l1(b + q * GPU_LANES * V) : ld16(b + q * GPU_LANES * V), v + q * V);
#pragma unroll
    for (int c = 0; c < NR * NC; c++) {
        m[c].re = v[2 * c];
        m[c].im = v[2 * c + 1];
    }
}

template <typename S, int NC, int NR, int NCOMP, typename CX>
__device__ __forceinline__ void store_groups(S *b, const CX *m)
{
    constexpr int V = 16 / sizeof(S);
    S v[NCOMP];
#pragma unroll
    for (int c = 0; c < NCOMP; c++) v[c] = 0;
#pragma unroll
    for (int c = 0; c < NR * NC; c++) {
        v[2 * c] = (S)m[c].re;
        v[2 * c + 1] = (S)m[c].im;
    }
#pragma unroll
    for (int q = 0; q < NCOMP / V; q++) st16(b + q * GPU_LANES * V, v + q * V);
}

/* LINK_8: the 8 reals of su3_pack8 (math/sun.h) in NCOMP = 8 reals, from
 * and to the full 3 x 3 matrix; arithmetic in lat_complex */
template <typename S, typename CX, bool L1>
__device__ __forceinline__ void load_link8(const S *b, CX *m)
{
    constexpr int V = 16 / sizeof(S);
    S v[8];
#pragma unroll
    for (int q = 0; q < 8 / V; q++) unpack(L1 ? ld16_l1(b + q * GPU_LANES * V) : ld16(b + q * GPU_LANES * V), v + q * V);
    lat_real w[8];
#pragma unroll
    for (int c = 0; c < 8; c++) w[c] = (lat_real)v[c];
    lat_complex d[9];
    su3_unpack8(w, d);
#pragma unroll
    for (int c = 0; c < 9; c++) {
        m[c].re = d[c].re;
        m[c].im = d[c].im;
    }
}

template <typename S, typename CX>
__device__ __forceinline__ void store_link8(S *b, const CX *m)
{
    constexpr int V = 16 / sizeof(S);
    lat_complex d[9];
#pragma unroll
    for (int c = 0; c < 9; c++) d[c] = c_make(m[c].re, m[c].im);
    lat_real w[8];
    su3_pack8(d, w);
    S v[8];
#pragma unroll
    for (int c = 0; c < 8; c++) v[c] = (S)w[c];
#pragma unroll
    for (int q = 0; q < 8 / V; q++) st16(b + q * GPU_LANES * V, v + q * V);
}

template <typename S, int NC> struct matrix_accessor {
    typedef S store_type;
    enum { nc = NC, vec = 16 / sizeof(S), ncomp = (2 * NC * NC + vec - 1) / vec * vec };
    static __device__ __forceinline__ S *at(S *gt, const kgeo &g, int p, int h) { return group_ptr<S, ncomp>(gt, g, p, h); }
    template <typename CX>
    static __device__ __forceinline__ void load(const S *b, CX *m) { load_groups<S, NC, NC, ncomp, CX, false>(b, m); }
    template <typename CX>
    static __device__ __forceinline__ void store(S *b, const CX *m) { store_groups<S, NC, NC, ncomp>(b, m); }
    /* element (row, col, re/im) of the matrix at b */
    static __device__ __forceinline__ S *elem(S *b, int row, int col, int im)
    {
        int e = 2 * (row * NC + col) + im;
        return b + (e / vec) * (GPU_LANES * vec) + e % vec;
    }
    template <typename CX>
    static __device__ __forceinline__ void load_column(S *b, int c, CX *col)
    {
#pragma unroll
        for (int k = 0; k < NC; k++) col[k] = c_make(__ldcg(elem(b, k, c, 0)), __ldcg(elem(b, k, c, 1)));
    }
    template <typename CX>
    static __device__ __forceinline__ void store_column(S *b, int c, const CX *col)
    {
#pragma unroll
        for (int k = 0; k < NC; k++) {
            __stcg(elem(b, k, c, 0), (S)col[k].re);
            __stcg(elem(b, k, c, 1), (S)col[k].im);
        }
    }
};

template <typename S, int NC, int RECON> struct gauge_accessor {
    typedef S store_type;
    typedef matrix_accessor<S, NC> transform;
    /* LINK_FULL: 2N^2 in whole 16-byte groups, as gpu_field's ncomp (SU(5),
     * SU(7) in float carry two reals of padding) */
    enum { nc = NC, recon = RECON, vec = 16 / sizeof(S), ncomp = link_layout<NC, RECON>::template stored<16 / sizeof(S)>::value,
           nrows = link_layout<NC, RECON>::nrows };
    static __device__ __forceinline__ S *at(S *links, const kgeo &g, int p, int mu, int h)
    {
        return group_ptr<S, ncomp>(links, g, p * 4 + mu, h);
    }
    template <typename CX, bool L1 = false>
    static __device__ __forceinline__ void load_stored(const S *b, CX *m)
    {
        if constexpr (RECON == LINK_8) load_link8<S, CX, L1>(b, m);
        else load_groups<S, NC, nrows, ncomp, CX, L1>(b, m);
    }
    template <typename CX>
    static __device__ __forceinline__ void rebuild(CX *m)
    {
        if (RECON == LINK_12) su3_rebuild_row3(m);
    }
    template <typename CX, bool L1 = false>
    static __device__ __forceinline__ void load(const S *b, CX *m)
    {
        load_stored<CX, L1>(b, m);
        rebuild(m);
    }
    template <typename CX>
    static __device__ __forceinline__ void store(S *b, const CX *m)
    {
        if constexpr (RECON == LINK_8) store_link8<S, CX>(b, m);
        else store_groups<S, NC, nrows, ncomp>(b, m);
    }
};

/* the accessor of gpu_field's default storage (gpu_field_create; a field
 * made by gpu_field_create_recon with 8 needs gauge_accessor<S, 3, LINK_8>,
 * f->recon says which) */
template <typename S, int NC> struct default_links {
    typedef gauge_accessor<S, NC, NC == 3 ? LINK_12 : LINK_FULL> type;
};
