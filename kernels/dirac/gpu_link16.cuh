/* dirac/gpu_link16.cuh -- the device side of the half sweeps' 16-bit links
 * (dirac/gpu_link16.h says the format): link16_accessor<RECON>, the
 * accessor k_dslash and k_dslash_face read the links of a SOLVER_HALF sweep
 * through, with gpu/accessor.cuh's interface (at, load<CX, L1>) so that the
 * kernels never see the storage, and dslash_links<LS, RECON>::type, the
 * accessor of link storage LS (double, float: gpu/accessor.cuh's
 * gauge_accessor; dirac_half_t: this one).  Included by dirac/gpu_kernel.cuh
 * after its load4 (inside the precision's namespace).
 *
 * Layout: gpu_field's float one (gpu_index of gpu/field.h with vec 4 and
 * the float ncomp: 20, 12, 8 reals per link in groups of 4), each real an
 * int16: a lane reads a group as one 8-byte load (a warp: 256 contiguous
 * bytes).  The int16 go to float through load4_scaled (dirac/
 * half16_decode.h: the conversion's bits and one fma with
 * link16_decode_scale's step, no conversion instruction; recon 8: load4,
 * then its two steps); recon 8 then unpacks with su3_unpack8 and recon 12
 * rebuilds row 3 with su3_rebuild_row3, as gauge_accessor does for float.
 * The links are written only at dirac_gpu_create: every load goes through
 * L1 (__ldg, load4). */

template <int RECON> struct link16_accessor {
    typedef dirac_half_t store_type;
    enum { nc = 3, recon = RECON, vec = 4, ncomp = link_layout<3, RECON>::template stored<4>::value,
           nrows = link_layout<3, RECON>::nrows };
    static __device__ __forceinline__ dirac_half_t *at(dirac_half_t *links, const kgeo &g, int p, int mu, int h)
    {
        return links + gpu_index((int64_t)g.nblk, ncomp, vec, p * 4 + mu, 0, h);
    }
    template <typename CX, bool L1 = true>
    static __device__ __forceinline__ void load(const dirac_half_t *b, CX *m)
    {
        lat_real v[ncomp];
        if constexpr (RECON == LINK_8) {
#pragma unroll
            for (int q = 0; q < ncomp / vec; q++) load4(b + q * GPU_LANES * vec, v + q * vec);
            const bool degenerate = v[7] == (lat_real)LINK16_DEGENERATE;
#pragma unroll
            for (int c = 0; c < 8; c++) v[c] *= (lat_real)link16_decode_scale(LINK_8, c);
            if (degenerate) v[7] = SU3_PACK8_DEGENERATE;
            lat_complex d[9];
            su3_unpack8(v, d);
#pragma unroll
            for (int c = 0; c < 9; c++) {
                m[c].re = d[c].re;
                m[c].im = d[c].im;
            }
        } else {
            /* one step for every real: the fma decode (half16_decode.h) */
            const float step = (float)link16_decode_scale(RECON, 0), off = half16_offset(step);
#pragma unroll
            for (int q = 0; q < ncomp / vec; q++) load4_scaled(b + q * GPU_LANES * vec, step, off, v + q * vec);
#pragma unroll
            for (int c = 0; c < nrows * 3; c++) {
                m[c].re = v[2 * c];
                m[c].im = v[2 * c + 1];
            }
            if (RECON == LINK_12) su3_rebuild_row3(m);
        }
    }
};

/* the accessor of the link storage LS */
template <typename LS, int RECON> struct dslash_links {
    typedef gauge_accessor<LS, 3, RECON> type;
};
template <int RECON> struct dslash_links<dirac_half_t, RECON> {
    typedef link16_accessor<RECON> type;
};
