/* test_gpu_index.c -- the device layouts' index functions, gpu_index
 * (gpu/field.h: links) and gpu_spinor_index (gpu/spinor.h: vectors,
 * clover), against their definitions written here in plain signed 64-bit
 * arithmetic (a rewrite of both in 32-bit blocks, fewer instructions a
 * site, made the half Wilson sweep 3 % slower on an H100 and was taken
 * back: docs/PERFORMANCE.md, session 18; this test stays for the next):
 *   gpu_index(nblk, ncomp, vec, slot, c, h) = ((slot nblk + h/32) ncomp +
 *       c/vec*vec) 32 + (h%32) vec + c%vec
 *   gpu_spinor_index(ncomp, c, s) = ((s/32) ncomp + c/4*4) 32 + (s%32) 4 + c%4
 * over every ncomp and c the kernels use (links 20/12/8 with vec 4 and 18
 * with vec 2 (double), spinors 24, clover 72, staggered 8), random h and s
 * up to 2^32 - 1 and nblk up to 2^27 (8 slots of 2^32 sites), and the
 * ends (0, 31, 32, the last site). */
#include "unit.h"
#include "gpu/field.h"
#include "gpu/spinor.h"
#include <stdint.h>

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

static int64_t link_ref(int64_t nblk, int ncomp, int vec, int slot, int c, int64_t h)
{
    return ((slot * nblk + h / 32) * ncomp + c / vec * vec) * 32 + (h % 32) * vec + c % vec;
}
static int64_t spinor_ref(int ncomp, int c, int64_t s)
{
    return ((s / 32) * ncomp + c / 4 * 4) * 32 + (s % 32) * 4 + c % 4;
}

int main(void)
{
    uint64_t st = 12345;
    long bad_link = 0, bad_spinor = 0, n_link = 0, n_spinor = 0;
    const int link_ncomp[] = {20, 12, 8, 18}, link_vec[] = {4, 4, 4, 2};
    const int spinor_ncomp[] = {24, 72, 8, 12};
    for (int i = 0; i < 200000; i++) {
        /* sites: the ends on the first rounds, then random up to 2^32 - 1 */
        const int64_t ends[] = {0, 31, 32, 33, 4294967295LL};
        const int64_t nsites = i < 5 ? ends[i] + 1 : (int64_t)(next(&st) % 4294967296ull) + 1;
        const int64_t h = i < 5 ? ends[i] : (int64_t)(next(&st) % (uint64_t)nsites);
        const int64_t nblk = (nsites + 31) / 32;
        for (int k = 0; k < 4; k++) {
            const int slot = (int)(next(&st) % 8), c = (int)(next(&st) % (uint64_t)link_ncomp[k]);
            n_link++;
            bad_link += (int64_t)gpu_index(nblk, link_ncomp[k], link_vec[k], slot, c, h) !=
                        link_ref(nblk, link_ncomp[k], link_vec[k], slot, c, h);
            const int cs = (int)(next(&st) % (uint64_t)spinor_ncomp[k]);
            n_spinor++;
            bad_spinor += (int64_t)gpu_spinor_index(spinor_ncomp[k], cs, h) != spinor_ref(spinor_ncomp[k], cs, h);
        }
    }
    CHECK(bad_link == 0, "gpu_index: %ld of %ld positions differ from the definition", bad_link, n_link);
    CHECK(bad_spinor == 0, "gpu_spinor_index: %ld of %ld positions differ from the definition", bad_spinor, n_spinor);
    printf("gpu_index: %ld positions, gpu_spinor_index: %ld, sites up to 2^32 - 1: as defined\n", n_link, n_spinor);
    return unit_done("test_gpu_index");
}
