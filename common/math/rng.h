/* rng.h -- counter-based random numbers (Random123 Philox4x32-10), header
 * only, identical in C and CUDA.
 *
 * A stream is named by (seed, copy, site, sweep, purpose) and nothing else:
 *     key     = (seed low 32 bits, seed high 32 bits)
 *     counter = (global site index, sweep, purpose<<24 | copy, block)
 * and the block number counts up as the stream is drawn from.  So the
 * numbers used at a site never depend on threads, ranks or the device
 * (SPEC §2).  Each purpose below has its own code; never reuse one. */
#ifndef LAT_RNG_H
#define LAT_RNG_H

#include "base/lat.h"
#include <stdint.h>
#include <math.h>
#include <Random123/philox.h>

enum rng_purpose {
    RNG_HOT_START = 1,   /* Haar-random start configuration */
    RNG_ORBIT = 2,       /* lat-randomize-orbit: random g(x) */
    RNG_STOCHASTIC = 3,  /* stochastic relaxation coin flips */
    RNG_ANNEAL = 4,      /* simulated-annealing heatbath for g(x) */
    RNG_HEATBATH = 5,    /* lat-heatbath link updates */
    RNG_MOMENTA = 6,     /* lat-hmc: su(N) momenta drawn each trajectory */
    RNG_PSEUDOFERMION = 7, /* lat-hmc: Gaussian noise of the pseudofermion heatbath */
    RNG_ACCEPT = 8,      /* lat-hmc: the Metropolis accept/reject number */
    RNG_NOISE = 9,       /* lat-hmc: noise vectors of the stochastic condensate */
    RNG_TEST = 15        /* tests only */
};

struct lat_rng {
    philox4x32_key_t key;
    philox4x32_ctr_t ctr;
    philox4x32_ctr_t out;
    int used; /* words of out already handed out (4 = none left) */
};

LAT_HD void rng_init(struct lat_rng *r, uint64_t seed, uint32_t copy, uint64_t site,
                     uint32_t sweep, uint32_t purpose)
{
    r->key.v[0] = (uint32_t)seed;
    r->key.v[1] = (uint32_t)(seed >> 32);
    r->ctr.v[0] = (uint32_t)site;
    r->ctr.v[1] = sweep;
    r->ctr.v[2] = (purpose << 24) | (copy & 0xffffffu);
    r->ctr.v[3] = 0;
    r->used = 4;
}

LAT_HD uint32_t rng_u32(struct lat_rng *r)
{
    if (r->used == 4) {
        r->out = philox4x32(r->ctr, r->key);
        r->ctr.v[3]++;
        r->used = 0;
    }
    return r->out.v[r->used++];
}

/* uniform double in the open interval (0,1), 53 random bits */
LAT_HD double rng_uniform(struct lat_rng *r)
{
    uint64_t a = rng_u32(r), b = rng_u32(r);
    uint64_t m = ((a << 32) | b) >> 11;
    return ((double)m + 0.5) * (1.0 / 9007199254740992.0);
}

/* standard normal deviate (Box-Muller, one of the pair) */
LAT_HD double rng_normal(struct lat_rng *r)
{
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
