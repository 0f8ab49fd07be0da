/* conf.c -- a configuration with its records: format detection, reading,
 * atomic writing, history entries and the tracked gauge transformation; see
 * conf.h for the contract.  The formats themselves live in ildg.c and
 * nersc.c (confio.h). */
#include "io/conf.h"
#include <sys/stat.h>
#include "base/cli.h"
#include "io/confio.h"
#include "base/lat.h"
#include "base/log.h"
#include "base/output.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void conf_init(struct conf *c, const struct lattice *lat, int nc)
{
    memset(c, 0, sizeof *c);
    field_alloc(&c->u, lat, nc, 64);
    field_set_unit(&c->u);
    c->name = "new configuration";
    c->format = CONF_ILDG;
    c->file_prec = 64;
}

static const char *const format_names[] = {"", "ildg", "nersc", "milc", "openqcd", "scidac", "hirep"};

const char *conf_format_name(enum conf_format f)
{
    return (int)f >= 1 && (int)f < (int)(sizeof format_names / sizeof *format_names) ? format_names[f] : "unknown";
}

enum conf_format conf_format_parse(const char *name)
{
    for (int f = 1; f < (int)(sizeof format_names / sizeof *format_names); f++)
        if (name && strcmp(name, format_names[f]) == 0) return (enum conf_format)f;
    return 0;
}

void conf_extents(const struct lattice *lat, char *buf, size_t n)
{
    snprintf(buf, n, "%dx%dx%dx%d", lat->L[0], lat->L[1], lat->L[2], lat->L[3]);
}

void conf_keep_add(struct conf *c, const char *type, const unsigned char *data, uint64_t len)
{
    struct lime_record *k = realloc(c->keep, (size_t)(c->nkeep + 1) * sizeof *k);
    if (!k) lat_die(1, c->name, "out of memory keeping LIME record '%s'", type);
    c->keep = k;
    struct lime_record *r = &k[c->nkeep++];
    memset(r, 0, sizeof *r);
    snprintf(r->type, sizeof r->type, "%s", type);
    r->len = len;
    r->data = lat_malloc((size_t)len + 1);
    if (len) memcpy(r->data, data, (size_t)len);
    r->data[len] = 0;
}

const struct lime_record *conf_keep_find(const struct conf *c, const char *type)
{
    for (int i = 0; i < c->nkeep; i++)
        if (strcmp(c->keep[i].type, type) == 0) return &c->keep[i];
    return NULL;
}

void conf_check_finite(const struct field *u, const char *where, const char *what)
{
    int64_t i = field_find_nonfinite(u);
    if (i < 0) return;
    int64_t rpl = (int64_t)field_link_reals(u->nc);
    int64_t link = i / rpl, site = link / LAT_ND;
    int mu = (int)(link % LAT_ND), e = (int)(i % rpl);
    int x[LAT_ND];
    lattice_coords(&u->lat, site, x);
    double v = u->prec == 64 ? u->d[i] : u->f[i];
    lat_die(1, where, "%s: non-finite number (%g) in the link U_%c at site x=%d y=%d z=%d t=%d, element [%d][%d] %s part",
            what, v, "xyzt"[mu], x[0], x[1], x[2], x[3], e / 2 / u->nc, (e / 2) % u->nc, e % 2 ? "imaginary" : "real");
}

void conf_field_grow(struct field *u, int64_t upto, int64_t *cap)
{
    if (upto <= *cap) return;
    int64_t c = *cap ? *cap : 1024;
    while (c < upto) c *= 2;
    if (c > u->lat.V) c = u->lat.V;
    u->d = lat_realloc(u->d, (size_t)c * LAT_ND * field_link_reals(u->nc) * sizeof(double));
    *cap = c;
}

int64_t conf_input_left(const struct byte_in *in)
{
    struct stat st;
    int fd = fileno(in->f);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    off_t at = ftello(in->f);
    if (at < 0) return -1;
    int64_t left = (int64_t)st.st_size - (int64_t)at + (int64_t)(in->npre - in->ipre);
    return left < 0 ? 0 : left;
}

void conf_warn_lost(const struct conf *c, const char *name, const char *file_kind, const char *kept_type)
{
    static int warned; /* a series of outputs (lat-heatbath --every) gets one warning */
    if (warned) return;
    char what[384] = "";
    size_t l = 0;
    if (c->history) l += (size_t)snprintf(what + l, sizeof what - l, "the history");
    if (c->transform) l += (size_t)snprintf(what + l, sizeof what - l, "%sthe tracked gauge transformation", l ? ", " : "");
    for (int i = 0; i < c->nkeep && l < sizeof what - 64; i++)
        if (!(kept_type && strcmp(c->keep[i].type, kept_type) == 0) && !ildg_record_is_regenerable(&c->keep[i]))
            l += (size_t)snprintf(what + l, sizeof what - l, "%s%.48s", l ? ", " : "", c->keep[i].type);
    if (!what[0]) return;
    warned = 1;
    lat_warn(name, "%s cannot hold %s; not written", file_kind, what);
}

time_t conf_now(void)
{
    static int warned;
    const char *s = getenv("SOURCE_DATE_EPOCH");
    if (s && *s) {
        char *end;
        errno = 0;
        long long t = strtoll(s, &end, 10);
        if (!*end && !errno && t >= 0) return (time_t)t;
        if (!warned) lat_warn(NULL, "SOURCE_DATE_EPOCH='%s' is not a number of seconds; using the clock", s);
        warned = 1;
    }
    return time(NULL);
}

FILE *conf_open_input(const char *path, const char *remedy, const char **name)
{
    if (!path || strcmp(path, "-") == 0) {
        /* a terminal is never a file lat reads: say so instead of waiting */
        if (isatty(fileno(stdin))) lat_die(2, "standard input", "is a terminal: name %s", remedy);
        *name = "standard input";
        return stdin;
    }
    FILE *f = fopen(path, "rb");
    if (!f) lat_die(1, path, "cannot open: %s", strerror(errno));
    *name = path;
    return f;
}

static void read_conf(const char *path, struct conf *c, int defer);

void conf_read(const char *path, struct conf *c) { read_conf(path, c, 0); }

void conf_read_deferring(const char *path, struct conf *c)
{
    struct stat st;
    int regular = path && strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    read_conf(path, c, regular);
}

static void read_conf(const char *path, struct conf *c, int defer)
{
    memset(c, 0, sizeof *c);
    c->deferred.on = defer ? -1 : 0; /* -1: asked for; ildg_read makes it 1 */
    const char *name;
    FILE *f = conf_open_input(path, "an INPUT file or pipe a configuration in", &name);
    c->name = name;
    lat_alloc_where = name;
    unsigned char pre[CONF_DETECT_BYTES];
    size_t n = 0;
    while (n < sizeof pre) {
        size_t k = fread(pre + n, 1, sizeof pre - n, f);
        if (k == 0) break;
        n += k;
    }
    if (ferror(f)) lat_die(1, name, "cannot read: %s", strerror(errno ? errno : EIO));
    if (n == 0) lat_die(1, name, "empty input");
    struct byte_in in;
    byte_in_init(&in, f, name, pre, n);
    if (n >= 4 && load_be32(pre) == LIME_MAGIC) {
        c->format = CONF_ILDG;
        ildg_read(&in, c);
    } else if (n >= 12 && memcmp(pre, "BEGIN_HEADER", 12) == 0) {
        c->format = CONF_NERSC;
        nersc_read(&in, c);
    } else if (milc_detect(pre, n)) {
        c->format = CONF_MILC;
        milc_read(&in, c);
    } else if (hirep_detect(pre, n)) {
        c->format = CONF_HIREP;
        hirep_read(&in, c);
    } else if (openqcd_detect(pre, n)) {
        c->format = CONF_OPENQCD;
        openqcd_read(&in, c);
    } else {
        lat_die(1, name, "not a gauge configuration lat reads: not LIME/ILDG/SciDAC (bytes 45 67 89 ab), NERSC (BEGIN_HEADER), "
                         "MILC (magic 20103), openQCD export or HiRep (their lattice sizes)");
    }
    if (c->deferred.on < 0) c->deferred.on = 0;
    /* once for every format; a deferred read's data is dist.c's to look at */
    if (!c->deferred.on) c->check.boundary_sign = conf_boundary_sign_find(&c->u, name);
    if (f != stdin) fclose(f);
    lat_alloc_where = NULL;
}

void conf_free(struct conf *c)
{
    field_free(&c->u);
    for (int i = 0; i < c->nkeep; i++) free(c->keep[i].data);
    free(c->keep);
    free(c->history);
    free(c->transform);
    memset(c, 0, sizeof *c);
}

void conf_write(const char *path, const struct conf *c, const struct conf_write_opts *o)
{
    struct conf_write_opts d = {.format = 0, .prec = 0, .nersc_3x3 = 0};
    if (!o) o = &d;
    enum conf_format fmt = o->format ? o->format : CONF_ILDG;
    int prec = o->prec ? o->prec : (c->file_prec == 32 ? 32 : 64);
    const char *where = path && strcmp(path, "-") != 0 ? path : "standard output";
    if (prec != 32 && prec != 64) lat_die(1, where, "internal error: file precision %d is not 32 or 64", prec);
    if (!conf_format_parse(conf_format_name(fmt)))
        lat_die(1, where, "internal error: unknown output format %d", (int)fmt);
    if (fmt == CONF_NERSC && c->u.nc != 3)
        lat_die(1, where, "a NERSC file holds SU(3) only; this configuration is SU(%d) (write ILDG instead)", c->u.nc);
    if (fmt == CONF_NERSC && !o->nersc_3x3 && c->check.boundary_sign == 1)
        lat_die(1, where, "a two-row NERSC file cannot hold the antiperiodic boundary sign of the input (the third row "
                          "would be rebuilt with det U = +1): write --3x3, or remove the sign with --strip-boundary-sign");
    struct conf tmp;
    if (c->u.prec != 64) { /* the contract says double; be kind to single fields */
        tmp = *c;
        field_copy(&tmp.u, &c->u);
        field_convert(&tmp.u, 64);
        c = &tmp;
    }
    conf_check_finite(&c->u, where, "refusing to write the configuration");
    FILE *f = out_open(path, 1);
    switch (fmt) {
    case CONF_ILDG: ildg_write(f, out_name(), c, prec); break;
    case CONF_NERSC: nersc_write(f, out_name(), c, o, prec); break;
    case CONF_MILC: milc_write(f, out_name(), c, o, prec); break;
    case CONF_OPENQCD: openqcd_write(f, out_name(), c, o, prec); break;
    case CONF_SCIDAC: scidac_write(f, out_name(), c, o, prec); break;
    case CONF_HIREP: hirep_write(f, out_name(), c, o, prec); break;
    }
    out_commit(f);
    if (c == &tmp) field_free(&tmp.u);
}

/* copy s into the history, turning tabs and newlines into blanks */
static size_t put_clean(char *dst, const char *s)
{
    size_t n = 0;
    for (; *s; s++) dst[n++] = (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s;
    return n;
}

void conf_history_add(struct conf *c, const char *results)
{
    char when[32];
    time_t t = conf_now();
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *cmd = cli_command_line();
    if (!results) results = "";
    size_t old = c->history ? strlen(c->history) : 0;
    size_t need = old + strlen(when) + strlen(lat_progname) + strlen(LAT_VERSION) + strlen(cmd) + strlen(results) + 8;
    char *h = realloc(c->history, need);
    if (!h) lat_die(1, NULL, "out of memory adding a history entry");
    size_t n = old;
    if (n && h[n - 1] != '\n') h[n++] = '\n';
    n += put_clean(h + n, when);
    h[n++] = '\t';
    n += put_clean(h + n, lat_progname);
    h[n++] = ' ';
    n += put_clean(h + n, LAT_VERSION);
    h[n++] = '\t';
    n += put_clean(h + n, cmd);
    h[n++] = '\t';
    n += put_clean(h + n, results);
    h[n++] = '\n';
    h[n] = 0;
    c->history = h;
}

long long conf_history_next_sweep(const char *h)
{
    long long k = -1;
    if (!h) return -1;
    for (const char *line = h; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *tab = memchr(line, '\t', len);
        if (tab && len - (size_t)(tab - line) > 14 && strncmp(tab + 1, "lat-heatbath ", 13) == 0) {
            const char *p = line;
            while ((p = strstr(p, "next_sweep=")) && p < line + len) {
                if (p == line || p[-1] == ' ' || p[-1] == '\t') k = strtoll(p + 11, NULL, 10);
                p += 11;
            }
        }
        if (!end) break;
        line = end + 1;
    }
    return k;
}

void conf_transform_start(struct conf *c)
{
    if (c->transform) return;
    int nc = c->u.nc;
    size_t per = field_link_reals(nc);
    c->transform = lat_calloc((size_t)c->u.lat.V * per, sizeof(double));
    for (int64_t s = 0; s < c->u.lat.V; s++)
        for (int i = 0; i < nc; i++) c->transform[(size_t)s * per + 2 * (size_t)(i * nc + i)] = 1.0;
}

void conf_write_transform(const char *path, const struct conf *c)
{
    const char *where = path && strcmp(path, "-") != 0 ? path : "standard output";
    if (!c->transform)
        lat_die(1, c->name ? c->name : where, "no tracked gauge transformation (lat-gauge-transform record) to write");
    FILE *f = out_open(path, 1);
    scidac_write_transform(f, out_name(), c);
    out_commit(f);
}
