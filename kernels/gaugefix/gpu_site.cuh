/* gaugefix/gpu_site.cuh -- device code: the per-site helpers of the
 * gauge-fixing sweep kernels (gpu_sweep1.cuh, gpu_sweep4.cuh) and of the
 * quality kernel (gpu_reduce.cuh).  Device code only: no launches, so the
 * host emulation (scripts/gpu-slab-emulation.cpp, scripts/cuda-on-host.h)
 * compiles this file as it is.
 *
 * Contract: included inside a per-precision namespace after gpu/accessor.cuh
 * (kgeo, gauge_accessor) and gaugefix/site.h.  Links are reached only
 * through the accessor U (a template parameter): no layout, compression or
 * storage type here.
 * GF_THREADS_PER_SITE: the precision's sweep kernel for N <= 3 (1 or 4).
 * GF_MIXED (precision 'm'): the one-thread kernel keeps links in float
 * registers (fcx) between double subgroup steps.
 *   gf_sweep_threads<NC>::value   threads per site of SU(NC)'s sweep kernel
 *   kernel_params<G,UPD>(omega, prob, temp)  the gf_params of a kernel
 *   load_site<U,ND>(links, g, p, h, site, x, up, dn, hb)   (U: gauge_accessor)
 *                        U_mu(x), U_mu(x-mu) for mu < ND; hb[mu] = half index of x-mu
 *   link_cx, site_update<NC>(up, dn, gacc, par, rng)
 *                        gf_site_update on the registers (mixed: per subgroup in double)
 *   neighbour_dn_h(g, site, x, mu)     half index of x - mu for a run-time mu
 */
#ifdef GF_MIXED
struct fcx { float re, im; }; /* a single-precision complex number in registers */
/* float -> double through PTX, which the compiler does not merge with a
 * plain conversion of the same value */
__device__ __forceinline__ double widen(float x)
{
    double d;
    asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(x));
    return d;
}
/* single-precision links: the third row of SU(3) rebuilt in double */
__device__ __forceinline__ void su3_rebuild_row3(fcx *m)
{
    lat_complex d[9];
#pragma unroll
    for (int k = 0; k < 6; k++) d[k] = c_make(m[k].re, m[k].im);
    ::su3_rebuild_row3(d);
#pragma unroll
    for (int k = 6; k < 9; k++) {
        m[k].re = (float)d[k].re;
        m[k].im = (float)d[k].im;
    }
}
#endif

/* the sweep kernel of SU(NC), as threads per site: the precision's own
 * choice for N = 2, 3 (GF_THREADS_PER_SITE: 1 = k_sweep, 4 = k_sweep_sh;
 * gpu_{d,s,m}.cu), and k_sweep_sh (4) in every precision from SU(4) on:
 * one thread per site would hold eight N x N links (SU(4) in single: 256
 * floats, past the 255 registers of a thread), four threads per site hold
 * two each.  In mixed precision k_sweep_sh runs the whole site update in
 * double as the CPU's 'm' does.  The launches (gpu_sweep.cuh) and the host
 * emulation (scripts/gf-kernel-emulation.cpp) both ask this. */
template <int NC> struct gf_sweep_threads {
    static constexpr int value = NC <= 3 ? GF_THREADS_PER_SITE : 4;
};

/* GF_RT as the gauge, update or tracking argument of k_sweep_sh: the value
 * is the kernel's run-time argument instead of a template constant.  One
 * kernel then serves every gauge, update and tracking of an SU(N): used for
 * N >= 5, whose 30 compile-time variants per N and precision made the CUDA
 * build take many minutes, and whose speed is secondary (gpu_sweep.cuh). */
#define GF_RT (-1)

/* the update's parameters as gaugefix.h takes them (gauge and update fixed
 * at compile time, or rt_gauge and rt_update when they are GF_RT) */
template <int G, int UPD>
__device__ __forceinline__ struct gf_params kernel_params(double omega, double prob, double temp, int rt_gauge = 0,
                                                          int rt_update = 0)
{
    struct gf_params par;
    par.gauge = (enum gauge_kind)(G == GF_RT ? rt_gauge : G);
    par.update = (enum gf_update)(UPD == GF_RT ? rt_update : UPD);
    par.omega = omega;
    par.p = prob;
    par.temperature = temp;
    return par;
}

/* up[mu] = U_mu(x), dn[mu] = U_mu(x - mu) of site (p, h), mu < ND: the
 * directions a sweep reads and moves (GF_NDIRS: Coulomb leaves U_t alone) */
template <class U, int ND, typename CX>
__device__ __forceinline__ void load_site(const typename U::store_type *links, const kgeo &g, int p, int h, int site,
                                          const int x[4], CX *up, CX *dn, int hb[4])
{
    constexpr int NN = U::nc * U::nc;
    typename U::store_type *l = (typename U::store_type *)links;
#pragma unroll
    for (int mu = 0; mu < ND; mu++) {
        hb[mu] = neighbour(g, site, x, mu, -1) >> 1;
        U::load(U::at(l, g, p, mu, h), up + mu * NN);
        U::load(U::at(l, g, 1 - p, mu, hb[mu]), dn + mu * NN);
    }
}

/* ---- the sweep -----------------------------------------------------------
 * The site update is gf_site_update of gaugefix.h.  Mixed precision
 * (GF_MIXED: single storage, double arithmetic) keeps the eight links in
 * registers in single precision and runs every SU(2) subgroup step in
 * double: the rows/columns the step touches are widened, Step 1 (gf_step1)
 * and Step 2 (gf_step2) run in double -- the same header functions, in the
 * order of gf_site_update -- and the results are rounded back to single.
 * Measured on an H100 (docs/PERFORMANCE.md): the whole update in double
 * registers (gf_site_update on 8 x 18 doubles = 288 registers) spills and
 * runs at 61% of the single-precision rate; this version at 66-69%, with F
 * within 3e-12..5e-11 of double precision after fixing to theta < 1e-12;
 * Step 2 in single (paper §4.5) ran at 97% but biased F by 1.0-1.5e-6. */
#ifdef GF_MIXED
typedef fcx link_cx;
template <int NC>
__device__ __forceinline__ void site_update(link_cx *up, link_cx *dn, link_cx *gacc, const struct gf_params *p,
                                            struct lat_rng *r)
{
    constexpr int NN = NC * NC;
#pragma unroll
    for (int s = 0; s < NC * (NC - 1) / 2; s++) {
        int i, j;
        sun_subgroup(NC, s, &i, &j);
        /* Subgroup (i,j) reads and changes only rows i, j of U_mu(x) and
         * columns i, j of U_mu(x-mu) (gf_step1 reads their (i,j) blocks,
         * gf_step2 multiplies by g from the left and g^dag from the right):
         * only those are widened and rounded back, the rest stays zero and
         * folds away, so few doubles are live at a time. */
        lat_complex ud[4 * NN], dd[4 * NN];
#pragma unroll
        for (int k = 0; k < 4 * NN; k++) {
            int row = (k % NN) / NC, col = k % NC;
            ud[k] = row == i || row == j ? c_make(up[k].re, up[k].im) : c_make(0, 0);
            dd[k] = col == i || col == j ? c_make(dn[k].re, dn[k].im) : c_make(0, 0);
        }
        lat_su2 g = gf_step1(NC, ud, dd, i, j, p, r);
        /* widened again for Step 2 (a separate conversion, so that the
         * compiler does not keep the Step-1 copies alive across gf_step1) */
#pragma unroll
        for (int k = 0; k < 4 * NN; k++) {
            int row = (k % NN) / NC, col = k % NC;
            if (row == i || row == j) ud[k] = c_make(widen(up[k].re), widen(up[k].im));
            if (col == i || col == j) dd[k] = c_make(widen(dn[k].re), widen(dn[k].im));
        }
        gf_step2(NC, ud, dd, gf_ndirs(p->gauge), i, j, g);
#pragma unroll
        for (int k = 0; k < 4 * NN; k++) {
            int row = (k % NN) / NC, col = k % NC;
            if (row == i || row == j) {
                up[k].re = (float)ud[k].re;
                up[k].im = (float)ud[k].im;
            }
            if (col == i || col == j) {
                dn[k].re = (float)dd[k].re;
                dn[k].im = (float)dd[k].im;
            }
        }
        if (gacc) {
            lat_complex gd[NN];
#pragma unroll
            for (int k = 0; k < NN; k++) gd[k] = c_make(gacc[k].re, gacc[k].im);
            sun_su2_left(NC, gd, i, j, g);
#pragma unroll
            for (int k = 0; k < NN; k++) {
                gacc[k].re = (float)gd[k].re;
                gacc[k].im = (float)gd[k].im;
            }
        }
    }
}
#else
typedef lat_complex link_cx;
template <int NC>
__device__ __forceinline__ void site_update(link_cx *up, link_cx *dn, link_cx *gacc, const struct gf_params *p,
                                            struct lat_rng *r)
{
    gf_site_update(NC, up, dn, gacc, p, r);
}
#endif

/* half index of x - mu for a run-time mu (selects, no dynamic indexing of
 * the small arrays, which would move them to local memory) */
__device__ __forceinline__ int neighbour_dn_h(const kgeo &g, int site, const int x[4], int mu)
{
    int xm = x[0], sm = 1, lm = g.L[0];
#pragma unroll
    for (int m = 1; m < 4; m++)
        if (mu == m) {
            xm = x[m];
            sm = g.s[m];
            lm = g.L[m];
        }
    return (xm > 0 ? site - sm : site + (lm - 1) * sm) >> 1;
}
