/* gaugefix/gpu_candidates.c -- the names of the sweep kernels' launch
 * candidates (gaugefix/gpu.h: GF_CANDIDATES, gf_gpu_candidate_name), as
 * gpu_sweep.cuh's sweep_candidate launches them; for the benchmark and the
 * tests.  "m" below is the first candidate's minimum of blocks per SM:
 * GF_MINB of gpu_{d,m}.cu (4, 5), or GF_MINB_HEAVY (3) for annealing, MAG
 * and a tracked transform (tracked Coulomb relaxation: 4). */
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
