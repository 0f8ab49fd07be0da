/* formats.c -- conf.h's reading and writing: the format of an input told
 * from its first bytes and handed to its reader, a configuration handed to
 * the writer of the format asked for, the tracked transform written as a
 * SciDAC file.  The back ends (confio.h) sit below this file and conf.c
 * below them, so the readers and writers never call back up here. */
#include "io/conf.h"
#include "base/lat.h"
#include "base/log.h"
#include "base/output.h"
#include "io/confio.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

void conf_write_transform(const char *path, const struct conf *c)
{
    const char *where = path && strcmp(path, "-") != 0 ? path : "standard output";
    if (!c->transform)
        lat_die(1, c->name ? c->name : where, "no tracked gauge transformation (lat-gauge-transform record) to write");
    FILE *f = out_open(path, 1);
    scidac_write_transform(f, out_name(), c);
    out_commit(f);
}
