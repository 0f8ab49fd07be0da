/* hmc/integrator.c -- the multi-scale 2MN integrator and the HMC
 * trajectory, on host fields or on one GPU's device fields (contracts:
 * integrator.h).  One copy of the scheme: struct md says where the fields
 * live, and only the leaves (a monomial's force, the link update, the
 * energies, the backup of the links) look at it. */
#include "hmc/integrator.h"
#include "hmc/gpu.h"
#include "hmc/momenta.h"
#include "base/log.h"
#include "math/rng.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* the state of one molecular-dynamics run: host fields (u, p) or, with
 * device set, device fields (ud, pd) */
struct md {
    const struct hmc_integrator *it;
    const struct hmc_monomial *m;
    int nm, finest, device;
    struct field *u;
    double *p;
    struct gpu_field *ud, *pd;
    struct hmc_timing *t;
};

/* seconds now; on the device after the queued kernels are done, so a
 * timing measures the work, not the launch */
static double md_clock(const struct md *c)
{
    if (c->device) hmc_gpu_sync();
    return omp_get_wtime();
}

static void kick(struct md *c, int scale, double eps)
{
    for (int i = 0; i < c->nm; i++) {
        const struct hmc_monomial *m = &c->m[i];
        if (m->timescale != scale) continue;
        double t0 = md_clock(c);
        if (c->device)
            m->force_gpu(m->ctx, c->ud, eps, c->pd);
        else
            m->force(m->ctx, c->u, eps, c->p);
        c->t->force[i] += md_clock(c) - t0;
        c->t->force_calls[i]++;
    }
}

static void steps(struct md *c, int scale, double span, int n);

static void drift(struct md *c, int scale, double s)
{
    if (scale == c->finest) {
        double t0 = md_clock(c);
        if (c->device)
            hmc_gpu_link_update(c->ud, c->pd, s);
        else
            hmc_link_update(c->u, c->p, s);
        c->t->update += md_clock(c) - t0;
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

int hmc_on_device(const struct hmc_monomial *m, int nm)
{
    for (int i = 0; i < nm; i++)
        if (!m[i].action_gpu || !m[i].force_gpu || (m[i].refresh && !m[i].refresh_gpu)) return 0;
    return 1;
}

/* the checks and the finest scale; the device path refuses a monomial
 * without device callbacks */
static void md_init(struct md *c, const struct hmc_integrator *it, const struct hmc_monomial *m, int nm,
                    struct hmc_timing *timing)
{
    const char *where = c->device ? "GPU HMC" : "HMC";
    if (nm > HMC_MAX_MONOMIALS) lat_die(1, where, "at most %d monomials, got %d", HMC_MAX_MONOMIALS, nm);
    if (it && (it->md_steps < 1 || it->substeps < 1))
        lat_die(1, where, "%d MD steps, %d substeps: at least 1 each", it->md_steps, it->substeps);
    for (int i = 0; c->device && i < nm; i++)
        if (!hmc_on_device(&m[i], 1))
            lat_die(1, where, "the monomial '%s' has no device callbacks (action_gpu, force_gpu, refresh_gpu): "
                    "it cannot run in a trajectory on the GPU", m[i].name);
    c->it = it;
    c->m = m;
    c->nm = nm;
    c->finest = 0;
    for (int i = 0; i < nm; i++)
        if (m[i].timescale > c->finest) c->finest = m[i].timescale;
    c->t = timing;
}

void hmc_integrate(const struct hmc_integrator *it, const struct hmc_monomial *m, int nm, struct field *u,
                   double *p, struct hmc_timing *timing)
{
    struct hmc_timing scratch;
    memset(&scratch, 0, sizeof scratch);
    struct md c = {.device = 0, .u = u, .p = p};
    md_init(&c, it, m, nm, timing ? timing : &scratch);
    steps(&c, 0, it->tau, it->md_steps);
}

void hmc_integrate_gpu(const struct hmc_integrator *it, const struct hmc_monomial *m, int nm, struct gpu_field *u,
                       struct gpu_field *p, struct hmc_timing *timing)
{
    struct hmc_timing scratch;
    memset(&scratch, 0, sizeof scratch);
    struct md c = {.device = 1, .ud = u, .pd = p};
    md_init(&c, it, m, nm, timing ? timing : &scratch);
    steps(&c, 0, it->tau, it->md_steps);
}

/* T of the current momenta, S_i at the current links */
static double md_kinetic(const struct md *c)
{
    return c->device ? hmc_gpu_kinetic_energy(c->pd) : hmc_kinetic_energy(c->p, c->u);
}

static double md_action(const struct md *c, int i)
{
    const struct hmc_monomial *m = &c->m[i];
    return c->device ? m->action_gpu(m->ctx, c->ud) : m->action(m->ctx, c->u);
}

static double md_hamiltonian(const struct md *c, double *s)
{
    double h = md_kinetic(c);
    for (int i = 0; i < c->nm; i++) {
        double a = md_action(c, i);
        if (s) s[i] = a;
        h += a;
    }
    return h;
}

double hmc_hamiltonian(const struct hmc_monomial *m, int nm, const struct field *u, const double *p, double *s)
{
    struct hmc_timing scratch;
    struct md c = {.device = 0, .u = (struct field *)u, .p = (double *)p}; /* only read */
    md_init(&c, NULL, m, nm, &scratch);
    return md_hamiltonian(&c, s);
}

double hmc_hamiltonian_gpu(const struct hmc_monomial *m, int nm, const struct gpu_field *u, const struct gpu_field *p,
                           double *s)
{
    struct hmc_timing scratch;
    struct md c = {.device = 1, .ud = (struct gpu_field *)u, .pd = (struct gpu_field *)p}; /* only read */
    md_init(&c, NULL, m, nm, &scratch);
    return md_hamiltonian(&c, s);
}

/* the fields a trajectory needs besides the links: momenta and the backup
 * of the links (host arrays, or device fields of U's lattice) */
struct md_store {
    struct field backup;
    struct gpu_field pd, backup_d;
};

static void md_alloc(struct md *c, struct md_store *st)
{
    if (c->device) {
        hmc_gpu_field_like(&st->pd, c->ud);
        hmc_gpu_field_like(&st->backup_d, c->ud);
        c->pd = &st->pd;
    } else {
        c->p = hmc_momenta_alloc(c->u);
    }
}

static void md_free(struct md *c, struct md_store *st)
{
    if (c->device) {
        hmc_gpu_field_free(&st->pd);
        hmc_gpu_field_free(&st->backup_d);
    } else {
        free(c->p);
    }
}

static void md_draw(struct md *c, const struct hmc_params *par, uint32_t traj)
{
    if (c->device)
        hmc_gpu_momenta_draw(c->pd, par->seed, traj);
    else
        hmc_momenta_draw(c->p, c->u, par->seed, traj);
    for (int i = 0; i < c->nm; i++) {
        const struct hmc_monomial *m = &c->m[i];
        if (!m->refresh) continue;
        if (c->device)
            m->refresh_gpu(m->ctx, c->ud, par->seed, traj);
        else
            m->refresh(m->ctx, c->u, par->seed, traj);
    }
}

static void md_save_links(struct md *c, struct md_store *st)
{
    if (c->device)
        hmc_gpu_copy(&st->backup_d, c->ud);
    else
        field_copy(&st->backup, c->u);
}

/* restore: the links of the start, bit for bit (with the slab's halo) */
static void md_end_links(struct md *c, struct md_store *st, int restore)
{
    if (c->device) {
        if (restore) hmc_gpu_copy(c->ud, &st->backup_d);
    } else {
        if (restore) memcpy(c->u->d, st->backup.d, field_reals(c->u) * sizeof *c->u->d);
        field_free(&st->backup);
    }
}

/* one trajectory on whichever fields c holds (integrator.h) */
static void trajectory(struct md *c, const struct hmc_params *par, uint32_t traj, struct hmc_result *res)
{
    struct md_store st;
    double t_start = md_clock(c);
    md_alloc(c, &st);
    md_draw(c, par, traj);
    double s0[HMC_MAX_MONOMIALS], s1[HMC_MAX_MONOMIALS];
    double t0 = md_kinetic(c);
    res->H0 = md_hamiltonian(c, s0);
    md_save_links(c, &st);
    double t_md = md_clock(c);
    c->t->energy += t_md - t_start;

    steps(c, 0, c->it->tau, c->it->md_steps);

    double t_end = md_clock(c);
    double t1 = md_kinetic(c);
    res->H1 = md_hamiltonian(c, s1);
    double dh = t1 - t0;
    for (int i = 0; i < c->nm; i++) dh += s1[i] - s0[i];
    res->dH = dh;
    res->exp_minus_dH = exp(-dh);
    struct lat_rng r;
    rng_init(&r, par->seed, 0, 0, traj, RNG_ACCEPT);
    res->uniform = rng_uniform(&r);
    res->accepted = dh <= 0 || res->uniform < res->exp_minus_dH;
    md_end_links(c, &st, !res->accepted);
    md_free(c, &st);
    res->iterations = 0;
    for (int i = 0; i < c->nm; i++)
        if (c->m[i].iterations) res->iterations += c->m[i].iterations(c->m[i].ctx);
    double t_fin = md_clock(c);
    c->t->energy += t_fin - t_end;
    res->seconds = t_fin - t_start;
}

void hmc_trajectory(const struct hmc_params *par, const struct hmc_monomial *m, int nm, struct field *u,
                    uint32_t traj, struct hmc_result *res, struct hmc_timing *timing)
{
    struct hmc_timing scratch;
    memset(&scratch, 0, sizeof scratch);
    struct md c = {.device = 0, .u = u};
    md_init(&c, &par->it, m, nm, timing ? timing : &scratch);
    trajectory(&c, par, traj, res);
}

void hmc_trajectory_gpu(const struct hmc_params *par, const struct hmc_monomial *m, int nm, struct gpu_field *u,
                        uint32_t traj, struct hmc_result *res, struct hmc_timing *timing)
{
    struct hmc_timing scratch;
    memset(&scratch, 0, sizeof scratch);
    struct md c = {.device = 1, .ud = u};
    md_init(&c, &par->it, m, nm, timing ? timing : &scratch);
    trajectory(&c, par, traj, res);
}
