/* progress.c -- the progress line and the --log TSV of every tool, fed by
 * the observers of the gauge-fixing driver and the heatbath chain:
 * progress_init, progress_log_open/close/keep, progress_gf_observer,
 * progress_hb_observer (contracts in progress.h). */
#include "shared/progress.h"
#include "base/cli.h"
#include "base/log.h"
#include "base/output.h"
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* lat_on_die takes no context: the one guarded log of the process */
static char log_created[4096];
static FILE *guarded_log;

static void remove_log(void)
{
    if (guarded_log) fclose(guarded_log);
    guarded_log = NULL;
    if (*log_created) unlink(log_created);
    *log_created = 0;
}

void progress_init(struct progress *p, const char *label)
{
    memset(p, 0, sizeof *p);
    p->label = label;
    p->show = cli_show_progress();
}

void progress_log_open(struct progress *p, const char *path, enum progress_log_mode mode)
{
    p->log_path = path;
    p->log_mode = mode;
    if (mode == PROGRESS_LOG_STREAM) {
        p->log = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
        if (!p->log) lat_die(1, path, "cannot open the log: %s", strerror(errno));
        setvbuf(p->log, NULL, _IOLBF, 0); /* a line per sweep, visible at once (tail -f) */
        return;
    }
    if (strlen(path) >= sizeof log_created) lat_die(1, path, "log path too long");
    if (access(path, F_OK) != 0) snprintf(log_created, sizeof log_created, "%s", path);
    out_guard(OUT_GUARD_LOG, log_created); /* gone if mpirun kills this rank */
    lat_on_die(remove_log);
    p->log = fopen(path, "w");
    if (!p->log) lat_die(1, path, "cannot open the log: %s", strerror(errno));
    guarded_log = p->log;
}

void progress_log_close(struct progress *p)
{
    if (!p->log) return;
    if (p->log_mode == PROGRESS_LOG_STREAM) {
        if (p->log != stdout && fclose(p->log) != 0)
            lat_die(1, p->log_path, "cannot write the log: %s", strerror(errno));
    } else {
        int bad = fclose(p->log) != 0;
        guarded_log = NULL;
        p->log = NULL;
        if (bad) lat_die(1, p->log_path, "write failed");
    }
    p->log = NULL;
}

void progress_log_keep(struct progress *p)
{
    if (p->log_mode == PROGRESS_LOG_GUARDED) *log_created = 0;
}

/* ---- gauge fixing ----------------------------------------------------------- */

static void format_eta(char *buf, size_t len, double sec)
{
    if (!(sec >= 0) || sec > 1e8) { snprintf(buf, len, "?"); return; }
    long s = (long)(sec + 0.5);
    if (s >= 3600) snprintf(buf, len, "%ldh%02ldm", s / 3600, (s / 60) % 60);
    else if (s >= 60) snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
    else snprintf(buf, len, "%lds", s);
}

static void gf_row(struct progress *p, const struct gf_sample *s)
{
    FILE *f = p->log;
    if (p->log_rows++ == 0) {
        if (s->anneal) fprintf(f, "step\tfunctional\ttheta\ttemperature\tseconds\n");
        else fprintf(f, "step\tfunctional\ttheta\tseconds%s\n", s->slices_left >= 0 ? "\tslices_left" : "");
    }
    fprintf(f, "%ld\t%.15g\t%.15g", s->step, s->F, s->theta);
    if (s->anneal) fprintf(f, "\t%.9g", s->temperature);
    fprintf(f, "\t%.6f", s->seconds);
    if (s->slices_left >= 0) fprintf(f, "\t%d", s->slices_left);
    fputc('\n', f);
    if (fflush(f) != 0 || ferror(f)) lat_die(1, "--log", "write failed");
}

static void gf_line(struct progress *p, const struct gf_sample *s)
{
    double per_sweep = (s->seconds - p->prev_seconds) / (double)(s->sweeps - p->prev_sweeps);
    double rate = per_sweep > 0 ? s->sites / per_sweep : 0;
    double eta = s->sweeps_left * per_sweep;
    /* relaxation: theta falls about exponentially; where its slope says
     * eps comes before the iteration limit, that is the ETA */
    if (s->theta_goal > 0 && s->theta > 0 && p->prev_theta > s->theta) {
        double slope = (log(p->prev_theta) - log(s->theta)) / (double)(s->sweeps - p->prev_sweeps);
        double need = (log(s->theta) - log(s->theta_goal)) / slope;
        if (need < s->sweeps_left) eta = need * per_sweep;
    }
    char e[32];
    format_eta(e, sizeof e, s->converged ? 0 : eta);
    fprintf(stderr, "\r%s: %s step %ld/%ld  F %.12f  theta %.3e", p->label ? p->label : lat_progname,
            gauge_kind_name(p->gauge), s->step, s->total, s->F, s->theta);
    if (s->anneal) fprintf(stderr, "  T %.4g", s->temperature);
    fprintf(stderr, "  %.3g Msite/s  ETA %s\033[K", rate * 1e-6, e);
    fflush(stderr);
}

static void gf_measured(void *ctx, const struct gf_sample *s)
{
    struct progress *p = ctx;
    if (p->log) gf_row(p, s);
    if (p->show && s->sweeps > 0) gf_line(p, s);
    p->prev_seconds = s->seconds;
    p->prev_theta = s->theta;
    p->prev_sweeps = s->sweeps;
}

static void line_done(void *ctx)
{
    const struct progress *p = ctx;
    if (p->show) fputc('\n', stderr);
}

struct gf_observer progress_gf_observer(struct progress *p, enum gauge_kind g, int history)
{
    p->gauge = g;
    struct gf_observer o = {p, history, p->show, gf_measured, line_done};
    return o;
}

/* ---- heatbath ----------------------------------------------------------------- */

static void hb_measured(void *ctx, const struct hb_sample *s)
{
    struct progress *p = ctx;
    if (p->log) {
        if (p->log_rows++ == 0)
            fprintf(p->log, "sweep\tplaquette\tspatial\ttemporal\tpolyakov_re\tpolyakov_im\tseconds\n");
        fprintf(p->log, "%lld\t%.12f\t%.12f\t%.12f\t%.12f\t%.12f\t%.3f\n", s->sweep, s->pl.all, s->pl.spatial,
                s->pl.temporal, s->poly_re, s->poly_im, s->seconds);
        if (ferror(p->log)) lat_die(1, p->log_path, "cannot write the log: %s", strerror(errno));
    }
    if (p->show && s->sweep > s->first) {
        double nd = (double)(s->sweep - s->first), eta = s->seconds / nd * (double)(s->last - s->sweep);
        fprintf(stderr, "\r%s: sweep %lld/%lld plaquette %.6f  %.3g link updates/s  ETA %.0f s ",
                p->label ? p->label : lat_progname, s->sweep - s->first, s->last - s->first, s->pl.all,
                nd * s->link_updates / s->seconds, eta);
    }
}

struct hb_observer progress_hb_observer(struct progress *p, int history)
{
    struct hb_observer o = {p, history, p->show, hb_measured, line_done};
    return o;
}
