/* log.c -- one-line messages and clean exits; see log.h for the contract. */
#include "base/log.h"
#include "base/comm.h"
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

const char *lat_progname = "lat";
int lat_verbosity = 0;

static void (*die_hooks[8])(void);
static int n_die_hooks;

void lat_on_die(void (*fn)(void))
{
    if (n_die_hooks < 8) die_hooks[n_die_hooks++] = fn;
}

static void vmessage(const char *where, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", lat_progname);
    if (comm_size() > 1 && !comm_is_root()) fprintf(stderr, "rank %d: ", comm_rank());
    if (where) fprintf(stderr, "%s: ", where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void lat_die(int status, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(where, fmt, ap);
    va_end(ap);
    for (int i = n_die_hooks - 1; i >= 0; i--) die_hooks[i]();
    fflush(stderr);
    comm_die(status); /* stops the other ranks too (comm.h) */
}

void lat_die_all(int status, const char *where, const char *fmt, ...)
{
    if (comm_is_root()) {
        va_list ap;
        va_start(ap, fmt);
        vmessage(where, fmt, ap);
        va_end(ap);
    }
    for (int i = n_die_hooks - 1; i >= 0; i--) die_hooks[i]();
    comm_exit(status);
}

void lat_warn(const char *where, const char *fmt, ...)
{
    if (!comm_is_root()) return; /* the ranks would repeat each other */
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: warning: ", lat_progname);
    if (where) fprintf(stderr, "%s: ", where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void lat_info(const char *fmt, ...)
{
    if (lat_verbosity < 0) return;
    va_list ap;
    va_start(ap, fmt);
    vmessage(NULL, fmt, ap);
    va_end(ap);
}

void lat_debug(const char *fmt, ...)
{
    if (lat_verbosity < 1) return;
    va_list ap;
    va_start(ap, fmt);
    vmessage(NULL, fmt, ap);
    va_end(ap);
}

void *lat_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) lat_die(1, NULL, "out of memory (asked for %zu bytes)", bytes);
    return p;
}

void *lat_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) lat_die(1, NULL, "out of memory (asked for %zu x %zu bytes)", n, size);
    return p;
}
