/* gaugefix/driver.h -- the gauge-fixing iteration shared by every backend.
 *
 * Exported (driver.c):
 *   gf_open, gf_close      the backend state of a run and its end (below)
 *   gf_time_g_open/close   their Coulomb part (the run's own g, U_t at the end)
 *   gf_relax               the relaxation family, to the stopping rule
 *   gf_anneal              simulated annealing, the whole schedule
 *   gf_anneal_temperature  T of annealing step k
 *   gf_result_free         frees what a result holds
 *
 * gf_relax: the relaxation family (relaxation, overrelaxation, stochastic
 * relaxation, microcanonical).  Sweep k (k = 0, 1, ...) uses the random
 * streams of sweep index k.  Every check_every sweeps, and after the last,
 * F and theta are measured; the run stops when theta < eps (Landau, MAG) or,
 * for Coulomb, when every timeslice has reached theta_t < eps -- a slice
 * that has is frozen (the backend skips it) while the others go on.  It also
 * stops after max_iter sweeps (converged = 0).  Microcanonical sweeps have
 * no stopping criterion: exactly max_iter are done and converged = -1.
 *
 * gf_anneal: simulated annealing.  Step k = 0 .. steps-1 runs one heatbath
 * sweep at temperature T_k (sweep index k*(1+micro)) and then micro
 * microcanonical sweeps (indices k*(1+micro)+1 ...), so no sweep index
 * repeats within a run.  T_k goes from tmax (k = 0) to tmin (k = steps-1),
 * linearly or geometrically.  F and theta are measured every check_every
 * steps when the observer wants history or progress, and at the end;
 * converged = -1 (annealing has no stopping criterion).
 *
 * Both: links (and the tracked transform) are projected back onto SU(N)
 * every reunitarize_every sweeps (0 = never); annealing projects once more
 * at the end when that is on (relaxation does not: the result is the field
 * the stopping rule was evaluated on).
 *
 * The driver prints nothing itself (SPEC §10: algorithm modules never reach
 * the command line): every measurement goes to obs.measured as a gf_sample
 * -- step 0 (relaxation always, annealing when obs.history), then each
 * check -- and obs.done is called once when the iteration is over (also just
 * before a non-finite measurement stops the run), so that a progress line
 * can be ended.  tools/shared/progress.h turns these into the progress line
 * and the --log TSV. */
#ifndef LAT_GAUGEFIX_DRIVER_H
#define LAT_GAUGEFIX_DRIVER_H

#include "gaugefix/backend.h"
#include <stdint.h>
#include <stdio.h>

/* One measurement, as the observer sees it. */
struct gf_sample {
    long step, total;   /* relaxation: sweeps done, max_iter; annealing: steps done, steps */
    double F, theta;    /* SPEC §3 normalisation */
    int anneal;         /* 1: an annealing step (temperature applies) */
    double temperature; /* annealing: T of the step just done (step 0: T_0) */
    int slices_left;    /* Coulomb relaxation: timeslices not yet below eps; else -1 */
    double seconds;     /* since the iteration started (every rank ready) */
    /* what an ETA needs */
    long sweeps;        /* sweeps done (annealing: heatbath and microcanonical) */
    double sweeps_left; /* sweeps the schedule or the iteration limit still allows */
    double theta_goal;  /* relaxation with a stopping rule: eps (theta may be
                         * extrapolated towards it); else 0 */
    int converged;      /* the stopping rule is met at this step */
    double sites;       /* sites updated per sweep (the global volume) */
};

/* Where the driver's reports go; any callback may be NULL. */
struct gf_observer {
    void *ctx;
    int history;  /* wants every measurement, step 0 included (a --log) */
    int progress; /* wants a measurement every check (a progress line) */
    void (*measured)(void *ctx, const struct gf_sample *s);
    void (*done)(void *ctx);
};

struct gf_run {
    const struct gf_backend *be;
    struct gf_state *st;
    struct lattice lat;
    enum gauge_kind gauge;
    uint64_t seed;
    uint32_t copy;
    int reunitarize_every; /* sweeps, 0 = never */
    int check_every;       /* relaxation: sweeps; annealing: steps */
    struct gf_observer obs; /* all zero: nothing reported */
};

struct gf_relax_opts {
    enum gf_update update; /* GF_RELAX, GF_OVERRELAX, GF_STOCHASTIC or GF_MICRO */
    double omega;          /* GF_OVERRELAX */
    double p;              /* GF_STOCHASTIC */
    double theta;          /* eps > 0 */
    long max_iter;
};

struct gf_anneal_opts {
    long steps;
    double tmax, tmin;
    int geometric; /* 0 linear, 1 geometric */
    int micro;     /* microcanonical sweeps after each step */
};

struct gf_result {
    double F, theta;  /* final, SPEC §3 normalisation */
    long iterations;  /* relaxation: sweeps done; annealing: steps */
    long sweeps;      /* every sweep, heatbath and microcanonical included */
    int converged;    /* 1 yes, 0 no, -1 no criterion (microcanonical, annealing) */
    int nt;           /* Coulomb: timeslices, F_t and theta_t (malloc'd); else 0 */
    double *F_t, *theta_t;
    long *iter_t;     /* Coulomb relaxation: sweeps each slice took (-1: not converged) */
    double seconds;
    double halo_bytes; /* sent by all ranks while iterating (geometry.h: halo_count) */
};

/* The backend state of a run of gauge g, and its end.  Coulomb gauge leaves
 * U_t alone while it iterates (common/gaugefix.h), so gf_open hands the
 * backend a transform of its own, the unit matrix at every site of u
 * (*time_g, malloc'd), instead of the tracked one; gf_close downloads
 * (into u, and transform or *time_g), destroys the state, and for Coulomb
 * moves U_t by the run's g (gauge_transform_apply_time: on a slab one
 * exchange of g's boundary slice) and composes it into transform (if not
 * NULL).  Every backend and every R do the same: the same bytes. */
struct gf_state *gf_open(const struct gf_backend *be, const struct field *u, const double *transform,
                         char prec, enum gauge_kind g, double **time_g);
void gf_close(const struct gf_backend *be, struct gf_state *st, struct field *u, double *transform,
              double *time_g);
/* the Coulomb part of both, for other families of backends (lat-fourier):
 * the run's own g (identity; NULL for other gauges), and at the end U_t
 * moved by it, g composed into transform (if not NULL), g freed */
double *gf_time_g_open(const struct field *u, enum gauge_kind g);
void gf_time_g_close(struct field *u, double *transform, double *time_g);

void gf_relax(const struct gf_run *r, const struct gf_relax_opts *o, struct gf_result *res);
void gf_anneal(const struct gf_run *r, const struct gf_anneal_opts *o, struct gf_result *res);
/* temperature of step k (0 <= k < steps) */
double gf_anneal_temperature(const struct gf_anneal_opts *o, long k);
void gf_result_free(struct gf_result *res);

#endif
