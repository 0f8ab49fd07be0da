/* test_gpu_hmc_gauge_mpi.c -- `make check-gpu`: the GPU HMC's gauge part on
 * MPI t-slabs, one GPU per rank (hmc/gpu.h on a slab field: owned-slice
 * kernels, the links' halo slices refreshed through gpu/halo.cu after every
 * link update, per-timeslice sums in global order).  The checks are
 * tests/gpu/hmc_gauge_mpi_checks.h's, the ones
 * scripts/hmc-gauge-slab-emulation runs on the host (there the momenta bit
 * for bit): on the Haar-random 4^3 x 8 field, momenta, kinetic energy,
 * gauge action and two Omelyan 2MN steps by hand against the CPU HMC
 * functions on the same slab (momenta 1e-14, sums 1e-13 relative, links
 * with their halo slices and momenta 1e-12), every sum the same bits on
 * every rank.  Prints a line per check group, a "FAIL file:line: ..." line
 * per failed check (unit.h) and "test_gpu_hmc_gauge_mpi R=<R>: N passed, M
 * failed".  Usage: test_gpu_hmc_gauge_mpi [OUT]: rank 0 writes the sums
 * (%a) and the gathered links and momenta to OUT, which R = 1 and 2 must
 * produce byte for byte (tests/run-gpu runs it under mpirun -np 1, 2 and 2
 * with LAT_GPU_HALO=host when two GPUs are visible; alone, in its loop of
 * test programs, it runs on one process). */
#include "base/comm.h"
#include "base/log.h"
#include "gpu/gpu.h"
#include "unit.h"
#include "slabs.h"
#include "hmc_gauge_mpi_checks.h"

int main(int argc, char **argv)
{
    comm_init(&argc, &argv);
    lat_progname = "test_gpu_hmc_gauge_mpi";
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        if (argc == 2 && !strcmp(argv[1], "-v")) argc = 1; /* tests/run-gpu's LAT_TEST_VERBOSE: every line is printed anyway */
        else lat_die(2, NULL, "usage: test_gpu_hmc_gauge_mpi [OUT]");
    }
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        if (comm_is_root()) printf("test_gpu_hmc_gauge_mpi: no GPU (%s)\ntest_gpu_hmc_gauge_mpi R=%d: 0 passed, 1 failed\n", why,
                                   comm_size());
        comm_exit(1);
    }
    comm_exit(hgm_main("test_gpu_hmc_gauge_mpi", argc == 2 ? argv[1] : NULL, 0));
}
