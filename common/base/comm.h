/* comm.h -- the processes of one run.
 *
 * A program built with MPI (make MPI=1, the default when mpicc is found)
 * and started by mpirun (or srun) runs as R ranks; started any other way, or
 * built without MPI, it is one process and none of this costs anything:
 * comm_init does not even initialise MPI then, so a plain run never waits
 * for an MPI start-up.  Rank 0 talks to the user (messages, progress, log
 * files, standard input and output).
 *
 * Errors: lat_die on a rank stops every rank (log.c calls comm_die).  When
 * the failing rank is inside a root section -- rank 0 doing something the
 * others wait for with comm_root_wait, such as reading the input -- it hands
 * its exit status to them and they leave quietly: one message, everyone
 * exits with the same status.  Anywhere else MPI_Abort stops the run.
 *
 * Reductions that must not depend on R are not done here by adding numbers
 * from different ranks: callers give every partial sum a global slot
 * (per timeslice, per chunk), comm_sum adds the zeros of the ranks that do
 * not own a slot (exact), and the caller adds the slots in a fixed order. */
#ifndef LAT_COMM_H
#define LAT_COMM_H

#include "base/log.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C declarations, also when CUDA or C++ code includes them */
#endif

void comm_init(int *argc, char ***argv); /* called once by cli_parse */
int comm_rank(void);
int comm_size(void);
int comm_is_root(void);                   /* rank 0 */

/* The rank that talks to the user (messages, progress): rank 0 of the
 * run, also after comm_replicate. */
int comm_talks(void);
int comm_world_rank(void);

/* Replicas (lat-hmc --split pseudofermions): comm_replicate, called by
 * every rank at the same point, makes each rank of the run a one-process
 * run of its own for everything above and below (comm_size() 1,
 * comm_rank() 0, the sums and messages local), so each holds and updates
 * a whole lattice; the replicas then share work through comm_replica_sum
 * alone (each gives its part and zeros elsewhere: exact, the same bits on
 * every replica) and comm_replica_gather.  Answers the number of replicas (1: one process, or
 * built without MPI, and nothing changes).  comm_replica: this rank's
 * index 0 .. comm_replicas() - 1.  An error on one replica stops them all
 * (MPI_Abort over the run). */
int comm_replicate(void);
int comm_replica(void);
int comm_replicas(void);
void comm_replica_sum(double *v, size_t n);
/* v holds comm_replicas() parts of n doubles, part comm_replica() this
 * replica's: afterwards every part is its replica's, on every replica */
void comm_replica_gather(double *v, size_t n);
/* for log.c: an error inside a root section of a replica other than the
 * first (every replica reads its input alike, and meets the same error):
 * it waits before it speaks, so that the first, meeting the same error,
 * says it alone and stops the run meanwhile (a replica's error stops the
 * run with MPI_Abort) */
int comm_error_echoes(void);

/* every rank: element-wise sum / max over ranks, in place */
void comm_sum(double *v, size_t n);
void comm_sum_ld(long double *v, size_t n);
void comm_max(double *v, size_t n);
void comm_bcast(void *buf, size_t bytes, int root);
void comm_barrier(void);

/* Root sections: rank 0 calls comm_root_begin, does its part (which may
 * die), then comm_root_end(buf, bytes) to send buf to everyone; the other
 * ranks call comm_root_wait(buf, bytes) at the same point and receive it --
 * or exit with rank 0's status if rank 0 died in between. */
void comm_root_begin(void);
void comm_root_end(void *buf, size_t bytes);
void comm_root_wait(void *buf, size_t bytes);

/* point to point (any size; split into pieces below 2^31 bytes) */
void comm_send(const void *buf, size_t bytes, int to, int tag);
void comm_recv(void *buf, size_t bytes, int from, int tag);

/* non-blocking: up to COMM_MAXREQ at once per set */
#define COMM_MAXREQ 16
struct comm_reqs {
    int n;
    void *req[COMM_MAXREQ]; /* MPI_Request, opaque here */
};
void comm_isend(const void *buf, size_t bytes, int to, int tag, struct comm_reqs *r);
void comm_irecv(void *buf, size_t bytes, int from, int tag, struct comm_reqs *r);
void comm_waitall(struct comm_reqs *r);

/* Is standard output a terminal (binary output refused)?  Under mpirun
 * rank 0's standard output is mpirun's forwarding channel -- a pseudo
 * terminal that comm_init switches to raw mode so bytes pass unchanged --
 * and whether mpirun's own output is a terminal cannot be seen: 0. */
int comm_stdout_is_terminal(void);

/* For programs that work on one process (lat-convert): under mpirun every
 * rank but 0 leaves at once (exit 0), so the work is done once. */
void comm_one_rank(void);

/* every rank: element-wise XOR over ranks (checksums), in place */
void comm_xor_u32(uint32_t *v, size_t n);

/* MPI-IO: a file every rank opens (collective), then reads or writes at
 * byte offsets of its own (independent), then closes (collective).
 * Errors name the path and stop the run. */
struct comm_file;
struct comm_file *comm_file_open(const char *path, int write);
void comm_file_read_at(struct comm_file *f, uint64_t offset, void *buf, size_t bytes);
void comm_file_write_at(struct comm_file *f, uint64_t offset, const void *buf, size_t bytes);
void comm_file_close(struct comm_file *f);

/* for log.c: stop the run (see above); does not return */
LAT_NORETURN void comm_die(int status);
/* cli_usage_error: the same mistake on every rank: only rank 0 prints;
 * returns whether this rank should print */
int comm_should_print_usage(void);
/* leave: finalize MPI (if started) and exit(status) */
LAT_NORETURN void comm_exit(int status);

#ifdef __cplusplus
}
#endif

#endif
