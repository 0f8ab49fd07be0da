/* fuzz.h -- what every libFuzzer target of tests/fuzz shares.
 *
 * The readers end a bad input with lat_die (exit 1).  Here a die hook jumps
 * back into the target instead (FUZZ_TRY), so one process runs millions of
 * inputs; every block the library allocated for the input and did not free
 * is then released (the library's malloc/calloc/realloc/free are wrapped at
 * link time: -Wl,--wrap=..., see fuzz.mk), so a refused input leaks nothing
 * and the RSS limit keeps its meaning; so are the streams it opened
 * (fopen/fclose wrapped too).
 *
 *   fuzz_setup()          once, in LLVMFuzzerInitialize (defined here for
 *                         every target)
 *   FUZZ_TRY { ... }      runs the block; lat_die inside it returns here
 *   fuzz_release()        frees what the input left allocated
 *   fuzz_file(data, n)    a FILE reading the bytes (fmemopen: not a regular
 *                         file, so the readers take their pipe path)
 *   fuzz_path(data, n)    a path naming a regular file holding the bytes
 *                         (memfd; conf_read's own path: detection, file size) */
#ifndef LAT_FUZZ_H
#define LAT_FUZZ_H
#define _GNU_SOURCE
#include "base/log.h"
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static jmp_buf fuzz_jb;
static int fuzz_armed;

static void fuzz_on_die(void)
{
    if (fuzz_armed) { fuzz_armed = 0; longjmp(fuzz_jb, 1); }
}

#define FUZZ_TRY if ((fuzz_armed = 1, setjmp(fuzz_jb) == 0))

/* ---- allocation tracking (the __wrap_ functions of the library's calls) ---- */
struct fuzz_blk { struct fuzz_blk *prev, *next; size_t n; size_t pad; };
static struct fuzz_blk fuzz_head = {&fuzz_head, &fuzz_head, 0, 0};
void *__real_malloc(size_t n);
void __real_free(void *p);

void *__wrap_malloc(size_t n)
{
    if (n > SIZE_MAX - sizeof(struct fuzz_blk)) return NULL;
    struct fuzz_blk *b = __real_malloc(sizeof *b + n);
    if (!b) return NULL;
    b->n = n;
    b->next = fuzz_head.next;
    b->prev = &fuzz_head;
    fuzz_head.next->prev = b;
    fuzz_head.next = b;
    return b + 1;
}

void __wrap_free(void *p)
{
    if (!p) return;
    struct fuzz_blk *b = (struct fuzz_blk *)p - 1;
    b->prev->next = b->next;
    b->next->prev = b->prev;
    __real_free(b);
}

void *__wrap_calloc(size_t k, size_t n)
{
    if (n && k > SIZE_MAX / n) return NULL;
    void *p = __wrap_malloc(k * n);
    if (p) memset(p, 0, k * n);
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    if (!p) return __wrap_malloc(n);
    struct fuzz_blk *b = (struct fuzz_blk *)p - 1;
    void *q = __wrap_malloc(n);
    if (!q) return NULL;
    memcpy(q, p, b->n < n ? b->n : n);
    __wrap_free(p);
    return q;
}

/* streams the library opened (conf_read's fopen): closed by fuzz_release
 * when lat_die left them open, or the process runs out of descriptors */
static FILE *fuzz_files[16];
FILE *__real_fopen(const char *path, const char *mode);
int __real_fclose(FILE *f);

FILE *__wrap_fopen(const char *path, const char *mode)
{
    FILE *f = __real_fopen(path, mode);
    for (int i = 0; f && i < 16; i++)
        if (!fuzz_files[i]) { fuzz_files[i] = f; break; }
    return f;
}

int __wrap_fclose(FILE *f)
{
    for (int i = 0; i < 16; i++)
        if (fuzz_files[i] == f) fuzz_files[i] = NULL;
    return __real_fclose(f);
}

static void fuzz_release(void)
{
    fuzz_armed = 0;
    while (fuzz_head.next != &fuzz_head) __wrap_free(fuzz_head.next + 1);
    for (int i = 0; i < 16; i++)
        if (fuzz_files[i]) { __real_fclose(fuzz_files[i]); fuzz_files[i] = NULL; }
}

static void fuzz_setup(void)
{
    lat_progname = "fuzz";
    lat_on_die(fuzz_on_die);
}

static FILE *fuzz_file(const uint8_t *data, size_t n)
{
    /* fmemopen refuses size 0 on some libcs: an empty input is /dev/null */
    return n ? fmemopen((void *)data, n, "rb") : __real_fopen("/dev/null", "rb");
}

static const char *fuzz_path(const uint8_t *data, size_t n)
{
    static char path[64];
    static int fd = -1;
    if (fd < 0) {
        fd = memfd_create("fuzz-input", 0);
        if (fd < 0) abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, n, 0) != (ssize_t)n) abort();
    return path;
}
/* every target's initialisation (libFuzzer calls it once) */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_setup();
    return 0;
}

#endif
