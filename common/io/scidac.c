/* scidac.c -- placeholder until the SciDAC-without-ILDG writer lands (issue 13). */
#include "io/confio.h"
#include "base/log.h"

void scidac_write(FILE *f, const char *name, const struct conf *c, const struct conf_write_opts *o, int prec)
{ (void)f; (void)c; (void)o; (void)prec; lat_die(1, name, "SciDAC files without ILDG records are not written yet"); }
