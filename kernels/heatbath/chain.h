/* heatbath/chain.h -- a Markov chain of pure-gauge configurations: the loop
 * of lat-heatbath, free of the command line (SPEC §10).
 *
 * Exported (chain.c):
 *   hb_chain_run(c, u)  run the chain c on the field u (this rank's slab):
 *                       returns the seconds the sweeps took; u holds the
 *                       final field
 *
 * The chain: sweeps k = first_sweep .. first_sweep + therm + sweeps - 1;
 * sweep k is one heatbath sweep with counter k (heatbath/backend.h: the
 * random streams of sweep k) followed by nor overrelaxation sweeps.  The
 * first therm sweeps thermalise; after that, every every-th sweep (every >
 * 0) is handed to save(save_ctx, u, k + 1) with u holding the field after
 * it (the tool names and writes the file; k + 1 is the next sweep's
 * counter, what a continuing run starts from).  The backend state is
 * created from u in the given precision and destroyed at the end.
 *
 * Measurements (a reduction: collective under mpirun, so every rank must
 * pass the same obs.history and obs.progress): with obs.history, the
 * plaquette and the Polyakov loop before the first sweep and after every
 * sweep; with obs.progress alone, the plaquette after every sweep.  Each
 * goes to obs.measured as an hb_sample; obs.done is called once after the
 * last sweep.  Nothing is printed here. */
#ifndef LAT_HEATBATH_CHAIN_H
#define LAT_HEATBATH_CHAIN_H

#include "heatbath/backend.h"
#include <stdint.h>

struct hb_sample {
    long long sweep;       /* the counter of the next sweep (first_sweep at the start) */
    long long first, last; /* the chain's first counter and the one after its last sweep */
    struct plaquette pl;
    int have_polyakov;     /* poly_re, poly_im measured (obs.history) */
    double poly_re, poly_im;
    double seconds;        /* since the first sweep began (0 at the start) */
    double link_updates;   /* per sweep: 4 V (1 + nor) */
};

/* Where the chain's reports go; any callback may be NULL. */
struct hb_observer {
    void *ctx;
    int history;  /* wants the start and every sweep, with the Polyakov loop */
    int progress; /* wants every sweep (the plaquette) */
    void (*measured)(void *ctx, const struct hb_sample *s);
    void (*done)(void *ctx);
};

struct hb_chain {
    const struct hb_backend *be;
    char precision; /* 'd', 's', 'm' */
    double beta;
    uint64_t seed;
    long long first_sweep;
    int therm, sweeps, nor, every;
    struct hb_observer obs;
    void (*save)(void *save_ctx, struct field *u, long long next_sweep); /* with every > 0 */
    void *save_ctx;
};

double hb_chain_run(const struct hb_chain *c, struct field *u);

#endif
