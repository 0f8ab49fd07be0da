/* hirep.c -- placeholder until the HIREP reader and writer land (issue 13). */
#include "io/confio.h"
#include "base/log.h"

int hirep_detect(const unsigned char *pre, size_t n) { (void)pre; (void)n; return 0; }
void hirep_read(struct byte_in *in, struct conf *c) { (void)c; lat_die(1, in->name, "hirep files are not read yet"); }
void hirep_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec)
{ (void)f; (void)c; (void)o; (void)prec; lat_die(1, name, "hirep files are not written yet"); }
