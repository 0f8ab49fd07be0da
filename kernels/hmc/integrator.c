/* hmc/integrator.c -- the multi-scale 2MN integrator and the HMC
 * trajectory (contracts: integrator.h). */
#include "hmc/integrator.h"
#include "hmc/momenta.h"
#include "base/log.h"
#include "math/rng.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

struct md {
    const struct hmc_integrator *it;
    const struct hmc_monomial *m;
    int nm, finest;
    struct field *u;
    double *p;
    struct hmc_timing *t;
};

static void kick(struct md *c, int scale, double eps)
{
    for (int i = 0; i < c->nm; i++) {
        if (c->m[i].timescale != scale) continue;
        double t0 = omp_get_wtime();
        c->m[i].force(c->m[i].ctx, c->u, eps, c->p);
        c->t->force[i] += omp_get_wtime() - t0;
        c->t->force_calls[i]++;
    }
}

static void steps(struct md *c, int scale, double span, int n);

static void drift(struct md *c, int scale, double s)
{
    if (scale == c->finest) {
        double t0 = omp_get_wtime();
        hmc_link_update(c->u, c->p, s);
        c->t->update += omp_get_wtime() - t0;
    } else {
        steps(c, scale + 1, s, c->it->substeps);
    }
}

/* n 2MN steps; the closing lam h kick of a step and the opening one of the
 * next are one kick of 2 lam h (2 force evaluations per step, not 3) */
static void steps(struct md *c, int scale, double span, int n)
{
    const double lam = HMC_OMELYAN_LAMBDA, h = span / n;
    kick(c, scale, lam * h);
    for (int k = 0; k < n; k++) {
        drift(c, scale, h / 2);
        kick(c, scale, (1 - 2 * lam) * h);
        drift(c, scale, h / 2);
        kick(c, scale, k + 1 < n ? 2 * lam * h : lam * h);
    }
}

void hmc_integrate(const struct hmc_integrator *it, const struct hmc_monomial *m, int nm, struct field *u,
                   double *p, struct hmc_timing *timing)
{
    struct hmc_timing scratch;
    memset(&scratch, 0, sizeof scratch);
    if (nm > HMC_MAX_MONOMIALS) lat_die(1, NULL, "at most %d monomials, got %d", HMC_MAX_MONOMIALS, nm);
    int finest = 0;
    for (int i = 0; i < nm; i++)
        if (m[i].timescale > finest) finest = m[i].timescale;
    struct md c = {it, m, nm, finest, u, p, timing ? timing : &scratch};
    steps(&c, 0, it->tau, it->md_steps);
}

double hmc_hamiltonian(const struct hmc_monomial *m, int nm, const struct field *u, const double *p, double *s)
{
    double h = hmc_kinetic_energy(p, u);
    for (int i = 0; i < nm; i++) {
        double a = m[i].action(m[i].ctx, u);
        if (s) s[i] = a;
        h += a;
    }
    return h;
}

void hmc_trajectory(const struct hmc_params *par, const struct hmc_monomial *m, int nm, struct field *u,
                    uint32_t traj, struct hmc_result *res, struct hmc_timing *timing)
{
    struct hmc_timing scratch;
    memset(&scratch, 0, sizeof scratch);
    if (!timing) timing = &scratch;
    if (nm > HMC_MAX_MONOMIALS) lat_die(1, NULL, "at most %d monomials, got %d", HMC_MAX_MONOMIALS, nm);
    double t_start = omp_get_wtime();
    double *p = hmc_momenta_alloc(u);
    hmc_momenta_draw(p, u, par->seed, traj);
    for (int i = 0; i < nm; i++)
        if (m[i].refresh) m[i].refresh(m[i].ctx, u, par->seed, traj);
    double s0[HMC_MAX_MONOMIALS], s1[HMC_MAX_MONOMIALS];
    double t0 = hmc_kinetic_energy(p, u);
    res->H0 = hmc_hamiltonian(m, nm, u, p, s0);
    struct field backup;
    field_copy(&backup, u);
    timing->energy += omp_get_wtime() - t_start;

    hmc_integrate(&par->it, m, nm, u, p, timing);

    double t_end = omp_get_wtime();
    double t1 = hmc_kinetic_energy(p, u);
    res->H1 = hmc_hamiltonian(m, nm, u, p, s1);
    double dh = t1 - t0;
    for (int i = 0; i < nm; i++) dh += s1[i] - s0[i];
    res->dH = dh;
    res->exp_minus_dH = exp(-dh);
    struct lat_rng r;
    rng_init(&r, par->seed, 0, 0, traj, RNG_ACCEPT);
    res->uniform = rng_uniform(&r);
    res->accepted = dh <= 0 || res->uniform < res->exp_minus_dH;
    if (!res->accepted) memcpy(u->d, backup.d, field_reals(u) * sizeof *u->d);
    field_free(&backup);
    free(p);
    res->iterations = 0;
    for (int i = 0; i < nm; i++)
        if (m[i].iterations) res->iterations += m[i].iterations(m[i].ctx);
    double t_fin = omp_get_wtime();
    timing->energy += t_fin - t_end;
    res->seconds = t_fin - t_start;
}
