/* fuzz_prop.c -- libFuzzer target: the propagator reader (prop_read,
 * io/propagator.c; what lat-meson reads) on the same bytes twice: as a
 * regular file (the sizes checked against the file's before anything is
 * allocated) and as standard input that is not a regular file (the pipe
 * path: the fields grow as the data arrive).  Then every real of every
 * column it accepted is summed: a column shorter than the lattice it
 * claims is an out-of-bounds read ASan reports.  See fuzz.h. */
#include "fuzz.h"
#include "io/propagator.h"

static void prop_touch(const struct propagator *p)
{
    volatile double sum = 0;
    size_t n = prop_column_reals(p);
    for (int k = 0; k < PROP_NS * p->nc; k++)
        for (size_t i = 0; i < n; i++) sum += p->col[k][i];
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct propagator p;
    const char *path = fuzz_path(data, n);
    FUZZ_TRY {
        prop_read(path, &p);
        prop_touch(&p);
        prop_free(&p);
    }
    fuzz_release();
    /* the pipe path: prop_read(NULL) reads stdin, here a memory stream
     * (no descriptor: neither a terminal nor a regular file) */
    FILE *saved = stdin, *f = fuzz_file(data, n);
    if (!f) return 0;
    stdin = f;
    FUZZ_TRY {
        prop_read(NULL, &p);
        prop_touch(&p);
        prop_free(&p);
    }
    fuzz_release();
    stdin = saved;
    fclose(f);
    return 0;
}
