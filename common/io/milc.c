/* milc.c -- placeholder until the MILC reader and writer land (issue 13). */
#include "io/confio.h"
#include "base/log.h"

int milc_detect(const unsigned char *pre, size_t n) { (void)pre; (void)n; return 0; }
void milc_read(struct byte_in *in, struct conf *c) { (void)c; lat_die(1, in->name, "milc files are not read yet"); }
void milc_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec)
{ (void)f; (void)c; (void)o; (void)prec; lat_die(1, name, "milc files are not written yet"); }
