/* conf.c -- a configuration with its records, and what the format back
 * ends share: the struct conf's own functions of conf.h (init, names of
 * the formats, free, history entries, the tracked transform's start) and
 * the helpers of confio.h (kept records, checks, the growing field,
 * inputs, strings).  It calls no back end: reading and writing, which
 * pick one, are formats.c's, so the back ends stand between the two. */
#include "io/conf.h"
#include <sys/stat.h>
#include "base/cli.h"
#include "io/confio.h"
#include "base/lat.h"
#include "base/log.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
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

void conf_free(struct conf *c)
{
    field_free(&c->u);
    for (int i = 0; i < c->nkeep; i++) free(c->keep[i].data);
    free(c->keep);
    free(c->history);
    free(c->transform);
    memset(c, 0, sizeof *c);
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

char *conf_strfmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = lat_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

int conf_parse_posint(const char *s, int *v)
{
    long x = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        x = x * 10 + (*s - '0');
        if (x > (1 << 24)) return -1;
    }
    if (x <= 0) return -1;
    *v = (int)x;
    return 0;
}

int ildg_record_is_regenerable(const struct lime_record *r)
{
    const char *d = (const char *)r->data;
    uint64_t n = r->len;
    while (n && d[n - 1] == 0) n--;
    if (strcmp(r->type, "scidac-file-xml") == 0)
        return n == strlen(LAT_DEFAULT_FILE_XML) && memcmp(d, LAT_DEFAULT_FILE_XML, n) == 0;
    if (strcmp(r->type, "ildg-data-lfn") == 0)
        return n == strlen(LAT_DEFAULT_LFN) && memcmp(d, LAT_DEFAULT_LFN, n) == 0;
    if (strcmp(r->type, "scidac-record-xml") == 0)
        return strlen(d) >= n && xml_has(d, "usqcdInfo");
    return 0;
}
