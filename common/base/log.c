/* log.c -- one-line messages and clean exits; see log.h for the contract. */
#include "base/log.h"
#include "base/comm.h"
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

const char *lat_progname = "lat";
int lat_verbosity = 0;

static void (*die_hooks[8])(void);
static int n_die_hooks;

void lat_on_die(void (*fn)(void))
{
    if (n_die_hooks < 8) die_hooks[n_die_hooks++] = fn;
}

/* length of a valid UTF-8 sequence at p that is safe on a terminal (no C1
 * control, no bidirectional override or line/paragraph separator), else 0 */
static size_t safe_utf8(const unsigned char *p)
{
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 && p[0] < 0xf0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
    if (!n) return 0;
    uint32_t cp = p[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    if (cp < 0xa0 || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
        cp == 0xfeff)
        return 0;
    return n;
}

size_t lat_sanitize(char *dst, size_t n, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t k = 0;
    if (!n) return 0;
    while (*s) {
        size_t u = *s >= 0x80 ? safe_utf8(s) : 0;
        size_t need = u ? u : (*s >= 0x20 && *s < 0x7f) ? 1 : 4;
        if (k + need + 1 > n) break;
        if (u) { memcpy(dst + k, s, u); k += u; s += u; continue; }
        if (need == 1) dst[k++] = (char)*s;
        else k += (size_t)snprintf(dst + k, n - k, "\\x%02x", *s);
        s++;
    }
    dst[k] = 0;
    return k;
}

/* one line, every byte of it made safe (file contents reach messages) */
static void vline(const char *prefix, const char *where, const char *fmt, va_list ap)
{
    char raw[2048], clean[4 * sizeof raw];
    int n = snprintf(raw, sizeof raw, "%s: %s", lat_progname, prefix);
    if (!comm_talks()) n += snprintf(raw + n, sizeof raw - (size_t)n, "rank %d: ", comm_world_rank());
    if (where) n += snprintf(raw + n, sizeof raw - (size_t)n, "%s: ", where);
    if (n < (int)sizeof raw) vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
    lat_sanitize(clean, sizeof clean, raw);
    fprintf(stderr, "%s\n", clean);
}

static void vmessage(const char *where, const char *fmt, va_list ap) { vline("", where, fmt, ap); }

int lat_dying;

void lat_die(int status, const char *where, const char *fmt, ...)
{
    lat_dying = 1;
    va_list ap;
    va_start(ap, fmt);
    if (comm_error_echoes()) sleep(2); /* the first replica meets it too: its line, and the end of the run */
    vmessage(where, fmt, ap);
    va_end(ap);
    for (int i = n_die_hooks - 1; i >= 0; i--) die_hooks[i]();
    fflush(stderr);
    comm_die(status); /* stops the other ranks too (comm.h) */
}

void lat_die_all(int status, const char *where, const char *fmt, ...)
{
    lat_dying = 1;
    if (comm_talks()) { /* rank 0 of the world: the root without replicas, the first replica with them */
        va_list ap;
        va_start(ap, fmt);
        vmessage(where, fmt, ap);
        va_end(ap);
    }
    for (int i = n_die_hooks - 1; i >= 0; i--) die_hooks[i]();
    /* every rank is here (the error is met alike): none leaves before rank
     * 0 has written the line, since mpirun ends the whole job as soon as
     * one rank exits with a non-zero status */
    comm_barrier();
    comm_exit(status);
}

void lat_warn(const char *where, const char *fmt, ...)
{
    if (!comm_talks()) return; /* the ranks would repeat each other */
    if (lat_verbosity < 0) return; /* -q: standard error carries errors only */
    va_list ap;
    va_start(ap, fmt);
    vline("warning: ", where, fmt, ap);
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

const char *lat_alloc_where;

static LAT_NORETURN void oom(size_t bytes)
{
    lat_die(1, lat_alloc_where, "out of memory: %zu bytes could not be allocated%s", bytes,
            lat_alloc_where ? " while reading it" : "");
}

void *lat_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) oom(bytes);
    return p;
}

void *lat_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(size && n > SIZE_MAX / size ? SIZE_MAX : n * size);
    return p;
}

void *lat_realloc(void *old, size_t bytes)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p) oom(bytes);
    return p;
}
