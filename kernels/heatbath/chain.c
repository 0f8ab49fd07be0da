/* heatbath/chain.c -- hb_chain_run: thermalisation, heatbath + OR sweeps,
 * measurements for the observer, a saved configuration every K sweeps; the
 * contract is in chain.h. */
#include "heatbath/chain.h"
#include "base/clock.h"
#include "lattice/geometry.h"
#include <string.h>

double hb_chain_run(const struct hb_chain *c, struct field *u)
{
    const struct hb_backend *be = c->be;
    const long long last = c->first_sweep + c->therm + c->sweeps;
    const int history = c->obs.history, measure_each = history || c->obs.progress;
    const struct lattice *whole = u->dom ? &u->dom->global : &u->lat; /* a slab's rank reports the whole */
    struct hb_sample smp;
    memset(&smp, 0, sizeof smp);
    smp.sweep = smp.first = c->first_sweep;
    smp.last = last;
    smp.have_polyakov = history;
    smp.link_updates = 4.0 * (double)whole->V * (1 + c->nor);
    struct hb_state *s = be->create(u, c->precision);
    double t0 = lat_clock();
    if (history) {
        be->measure(s, &smp.pl, &smp.poly_re, &smp.poly_im);
        if (c->obs.measured) c->obs.measured(c->obs.ctx, &smp);
    }
    for (long long k = c->first_sweep; k < last; k++) {
        be->heatbath(s, c->beta, c->seed, (uint32_t)k);
        for (int o = 0; o < c->nor; o++) be->overrelax(s);
        long long done = k + 1, after_therm = done - c->first_sweep - c->therm;
        smp.sweep = done;
        smp.seconds = lat_clock() - t0; /* the sweeps' time, before measuring */
        if (measure_each) {
            be->measure(s, &smp.pl, history ? &smp.poly_re : NULL, history ? &smp.poly_im : NULL);
            if (c->obs.measured) c->obs.measured(c->obs.ctx, &smp);
        }
        if (c->every > 0 && after_therm > 0 && after_therm % c->every == 0) {
            be->download(s, u);
            c->save(c->save_ctx, u, done);
        }
    }
    if (c->obs.done) c->obs.done(c->obs.ctx);
    double elapsed = lat_clock() - t0;
    be->download(s, u);
    be->destroy(s);
    return elapsed;
}
