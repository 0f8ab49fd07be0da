/* fuzz_ildg.c -- libFuzzer target: the ILDG/LIME reader (ildg_read) on a
 * stream that is not a regular file (the pipe path: memory grows with the
 * data), then the plaquette and link trace of what it accepted (every link
 * and neighbour of the lattice it claims is touched).  See fuzz.h. */
#include "fuzz.h"
#include "io/confio.h"
#include "lattice/observables.h"
#include "fuzz_stream.h"

static double ildg_after(const struct conf *c) { return measure_plaquette(&c->u).all + measure_link_trace(&c->u); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return fuzz_stream_target(data, n, "fuzz.lime", ildg_read, ildg_after);
}
