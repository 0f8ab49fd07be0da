/* test_gpu_hmc_stag_mpi.c -- `make check-gpu`: the staggered monomial's
 * device path on MPI t-slabs, one GPU per rank (hmc/staggered_monomial_gpu.c
 * with the slab GPU solver: noise keyed by the global site, solves with the
 * per-timeslice layouts, the force's forward face through
 * dirac/gpu_faces.h).  The checks are tests/gpu/hmc_stag_mpi_checks.h's, the
 * ones scripts/hmc-stag-slab-emulation runs on the host (there the noise bit
 * for bit, here within 1e-14): on the Haar-random 4^3 x 8 field, noise, phi,
 * S and force of N_f = 2 RHMC and N_f = 4 exact against the CPU monomial on
 * the same slab (1e-12 relative), S the same bits on every rank.  Prints a
 * line per check group and "test_gpu_hmc_stag_mpi R=<R>: N passed, M
 * failed".  Usage: test_gpu_hmc_stag_mpi [OUT]: rank 0 writes S (%a) and
 * the gathered noise, phi and force to OUT, which R = 1 and 2 must produce
 * byte for byte (tests/run-gpu: mpirun -np 1, 2 and 2 with
 * LAT_GPU_HALO=host when two GPUs are visible; alone, in its loop of test
 * programs, on one process). */
#include "base/comm.h"
#include "base/log.h"
#include "gpu/gpu.h"
#include "unit.h"
#include "slabs.h"
#include "lattice/field.h"
#include "hmc_stag_mpi_checks.h"

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    lat_progname = "test_gpu_hmc_stag_mpi";
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        if (argc == 2 && !strcmp(argv[1], "-v")) argc = 1; /* tests/run-gpu's LAT_TEST_VERBOSE: every line is printed anyway */
        else lat_die(2, NULL, "usage: test_gpu_hmc_stag_mpi [OUT]");
    }
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        if (comm_is_root()) printf("test_gpu_hmc_stag_mpi: no GPU (%s)\ntest_gpu_hmc_stag_mpi R=%d: 0 passed, 1 failed\n", why,
                                   comm_size());
        comm_exit(1);
    }
    comm_exit(hssm_main("test_gpu_hmc_stag_mpi", argc == 2 ? argv[1] : NULL, 0));
}
