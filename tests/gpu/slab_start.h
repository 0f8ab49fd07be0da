/* slab_start.h -- the start of the t-slab check programs
 * (dirac_slab_checks.h, staggered_slab_checks.h; their GPU tests and host
 * emulations):
 *   slab_checks_start(argc, argv, name, lattice, L, glob, u, out)  MPI up
 *       (comm_init); the lattice from argv[1], else `lattice` (one line
 *       "usage: ..." and exit 2 on more than two arguments or a bad size);
 *       on rank 0 the results file argv[2] opened in *out (left as it is
 *       without one); this rank's slab of the Haar-random links of seed 11
 *       (the same links for any R) in u; answers the slab (geometry_for:
 *       NULL on one process). */
#ifndef LAT_TEST_SLAB_START_H
#define LAT_TEST_SLAB_START_H
#include "base/comm.h"
#include "base/log.h"
#include "lattice/field.h"
#include "lattice/geometry.h"
#include <stdio.h>

static inline const struct geometry *slab_checks_start(int *argc, char ***argv, const char *name, const char *lattice,
                                                       int L[4], struct lattice *glob, struct field *u, FILE **out)
{
    comm_init(argc, argv);
    const char *lwhy;
    if (*argc > 3 || sscanf(*argc > 1 ? (*argv)[1] : lattice, "%dx%dx%dx%d", &L[0], &L[1], &L[2], &L[3]) != 4)
        lat_die(2, name, "usage: %s [LxxLyxLzxLt [OUT]]", name);
    if (lattice_init(glob, L, &lwhy) != 0) lat_die(2, name, "%s", lwhy);
    if (comm_is_root() && *argc > 2 && !(*out = fopen((*argv)[2], "wb"))) lat_die(1, name, "cannot write %s", (*argv)[2]);
    const struct geometry *d = geometry_for(glob);
    geometry_field_alloc(u, d, glob, 3, 64);
    field_set_random(u, 11);
    return d;
}
#endif
