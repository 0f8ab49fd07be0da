/* gaugefix/gpu_candidates.c -- the names of the sweep kernels' launch
 * candidates (gaugefix/gpu.h: GF_CANDIDATES, gf_gpu_candidate_name), as
 * gpu_sweep.cuh's sweep_candidate launches them; for the benchmark and the
 * tests.  "m" below is the first candidate's minimum of blocks per SM:
 * GF_MINB of gpu_prec.h (d 4, m 5), or GF_MINB_HEAVY (3) for annealing, MAG
 * and a tracked transform (tracked Coulomb relaxation: 4).
 * gf_gpu_candidate_name_su4: the same for SU(4)'s own launch shapes. */
#include "gaugefix/gpu.h"

const char *gf_gpu_candidate_name(char prec, int c)
{
    static const char *one[GF_CANDIDATES] = {
        "k_sweep (1 thread/site), 128 threads, >= 2 blocks/SM", "k_sweep (1 thread/site), 256 threads, >= 1 block/SM",
        "k_sweep (1 thread/site), 128 threads, >= 3 blocks/SM", "k_sweep (1 thread/site), 64 threads, >= 4 blocks/SM"};
    static const char *sh[GF_CANDIDATES] = {
        "k_sweep_sh (4 threads/site), 32 sites/block, >= m blocks/SM",
        "k_sweep_sh (4 threads/site), 32 sites/block, >= m+1 blocks/SM",
        "k_sweep_sh (4 threads/site), 64 sites/block, >= 2 blocks/SM",
        "k_sweep_sh (4 threads/site), 32 sites/block, >= m-1 blocks/SM"};
    static const char *lazy[GF_CANDIDATES] = {
        "k_sweep_sh, lazy third rows, 32 sites/block, >= m blocks/SM",
        "k_sweep_sh, lazy third rows, 32 sites/block, >= m+1 blocks/SM",
        "k_sweep_sh, lazy third rows, 64 sites/block, >= 2 blocks/SM",
        "k_sweep_sh, lazy third rows, 32 sites/block, >= m-1 blocks/SM"};
    if (c < 0 || c >= GF_CANDIDATES) return 0;
    return prec == 's' ? one[c] : prec == 'm' ? lazy[c] : sh[c];
}

/* SU(4)'s own shapes (gpu_sweep.cuh, sweep_candidate_large): k_sweep_sh in
 * every precision, m = 4 in single, 3 in double and mixed */
const char *gf_gpu_candidate_name_su4(char prec, int c)
{
    static const char *d[GF_CANDIDATES] = {
        "SU(4) k_sweep_sh (4 threads/site), 32 sites/block, >= 3 blocks/SM",
        "SU(4) k_sweep_sh (4 threads/site), 32 sites/block, >= 4 blocks/SM",
        "SU(4) k_sweep_sh (4 threads/site), 64 sites/block, >= 1 block/SM",
        "SU(4) k_sweep_sh (4 threads/site), 32 sites/block, >= 2 blocks/SM"};
    static const char *s[GF_CANDIDATES] = {
        "SU(4) k_sweep_sh (4 threads/site), 32 sites/block, >= 4 blocks/SM",
        "SU(4) k_sweep_sh (4 threads/site), 32 sites/block, >= 5 blocks/SM",
        "SU(4) k_sweep_sh (4 threads/site), 64 sites/block, >= 1 block/SM",
        "SU(4) k_sweep_sh (4 threads/site), 32 sites/block, >= 2 blocks/SM"};
    if (c < 0 || c >= GF_CANDIDATES) return 0;
    return prec == 's' ? s[c] : d[c];
}
