/* fuzz_nersc.c -- libFuzzer target: the NERSC archive reader (nersc_read) on
 * a stream that is not a regular file, then the plaquette of what it
 * accepted.  See fuzz.h. */
#include "fuzz.h"
#include "io/confio.h"
#include "lattice/observables.h"
#include "fuzz_stream.h"

static double nersc_after(const struct conf *c) { return measure_plaquette(&c->u).all; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    return fuzz_stream_target(data, n, "fuzz.nersc", nersc_read, nersc_after);
}
