/* fuzz_ildg.c -- libFuzzer target: the ILDG/LIME reader (ildg_read) on a
 * stream that is not a regular file (the pipe path: memory grows with the
 * data), then the plaquette and link trace of what it accepted (every link
 * and neighbour of the lattice it claims is touched).  See fuzz.h. */
#include "fuzz.h"
#include "io/confio.h"
#include "lattice/observables.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    fuzz_setup();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct conf c;
    FILE *f = fuzz_file(data, n);
    if (!f) return 0;
    FUZZ_TRY {
        memset(&c, 0, sizeof c);
        c.name = "fuzz.lime";
        struct byte_in in;
        byte_in_init(&in, f, c.name, NULL, 0);
        ildg_read(&in, &c);
        volatile double p = measure_plaquette(&c.u).all + measure_link_trace(&c.u);
        (void)p;
        conf_free(&c);
    }
    fuzz_release();
    fclose(f);
    return 0;
}
