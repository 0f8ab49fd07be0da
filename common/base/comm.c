/* comm.c -- one process or MPI ranks; see comm.h for the contract.
 * Compiled with -DLAT_HAVE_MPI when the Makefile found mpicc; without it
 * every function is the one-process version. */
#include "base/comm.h"
#include "base/log.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#ifdef LAT_HAVE_MPI
#include <mpi.h>
#endif

/* rank_, size_: the ranks that share a lattice (every rank of the run,
 * or, after comm_replicate, this rank alone); wrank_, wsize_: the run */
static int rank_, size_ = 1, wrank_, wsize_ = 1, replicated_;

int comm_rank(void) { return rank_; }
int comm_size(void) { return size_; }
int comm_is_root(void) { return rank_ == 0; }
int comm_talks(void) { return wrank_ == 0; }
int comm_world_rank(void) { return wrank_; }
int comm_replica(void) { return replicated_ ? wrank_ : 0; }
int comm_replicas(void) { return replicated_ ? wsize_ : 1; }

#ifdef LAT_HAVE_MPI

static int started;         /* MPI_Init was called */
static MPI_Comm lat_comm_;   /* the ranks that share a lattice: MPI_COMM_WORLD, or this rank alone */
static int in_root_section; /* rank 0 between comm_root_begin and _end */

/* started by a process manager: OpenMPI's mpirun, PMIx (srun, prterun) or
 * an MPICH-style PMI */
static int launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE") || getenv("PMI_RANK");
}

static void finalize_at_exit(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
}

void comm_init(int *argc, char ***argv)
{
    if (started || !launched_by_mpirun()) return;
    int provided;
    /* funneled: OpenMP threads compute, only the main thread communicates */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "lat: MPI_Init failed\n");
        exit(1);
    }
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    wrank_ = rank_;
    wsize_ = size_;
    lat_comm_ = MPI_COMM_WORLD;
    atexit(finalize_at_exit);
    /* OpenMPI hands rank 0 a pseudo terminal as standard output; its line
     * discipline would turn \n into \r\n in a binary configuration */
    if (rank_ == 0 && isatty(1)) {
        struct termios tio;
        if (tcgetattr(1, &tio) == 0) {
            cfmakeraw(&tio);
            tcsetattr(1, TCSANOW, &tio);
        }
    }
}

int comm_stdout_is_terminal(void) { return started ? 0 : isatty(1); }

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) lat_die(1, NULL, "MPI: %s failed (error %d)", what, rc);
}

void comm_sum(double *v, size_t n)
{
    if (size_ > 1) check(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, lat_comm_), "sum");
}
void comm_sum_ld(long double *v, size_t n)
{
    if (size_ > 1) check(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_LONG_DOUBLE, MPI_SUM, lat_comm_), "sum");
}
void comm_max(double *v, size_t n)
{
    if (size_ > 1) check(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_MAX, lat_comm_), "max");
}
void comm_barrier(void)
{
    if (size_ > 1) check(MPI_Barrier(lat_comm_), "barrier");
}

#define PIECE ((size_t)1 << 30)

void comm_bcast(void *buf, size_t bytes, int root)
{
    if (size_ == 1) return;
    for (size_t o = 0; o < bytes || o == 0; o += PIECE) {
        size_t b = bytes - o < PIECE ? bytes - o : PIECE;
        check(MPI_Bcast((char *)buf + o, (int)b, MPI_BYTE, root, lat_comm_), "broadcast");
        if (!bytes) break;
    }
}

/* the message of a root section: rank 0's status, then the payload */
static void root_message(int *status, void *buf, size_t bytes)
{
    check(MPI_Bcast(status, 1, MPI_INT, 0, lat_comm_), "broadcast");
    if (*status == 0 && bytes) comm_bcast(buf, bytes, 0);
}

/* replicas: every replica does a root section's work (its own input), alike */
void comm_root_begin(void) { in_root_section = (size_ > 1 || replicated_) && rank_ == 0; }

int comm_error_echoes(void) { return replicated_ && in_root_section && wrank_ != 0; }

void comm_root_end(void *buf, size_t bytes)
{
    in_root_section = 0;
    if (size_ == 1) return;
    int status = 0;
    root_message(&status, buf, bytes);
}

void comm_root_wait(void *buf, size_t bytes)
{
    if (size_ == 1) return;
    int status = 0;
    root_message(&status, buf, bytes);
    if (status != 0) comm_exit(status); /* rank 0 said why */
}

void comm_send(const void *buf, size_t bytes, int to, int tag)
{
    for (size_t o = 0; o < bytes; o += PIECE) {
        size_t b = bytes - o < PIECE ? bytes - o : PIECE;
        check(MPI_Send((const char *)buf + o, (int)b, MPI_BYTE, to, tag, lat_comm_), "send");
    }
}

void comm_recv(void *buf, size_t bytes, int from, int tag)
{
    for (size_t o = 0; o < bytes; o += PIECE) {
        size_t b = bytes - o < PIECE ? bytes - o : PIECE;
        check(MPI_Recv((char *)buf + o, (int)b, MPI_BYTE, from, tag, lat_comm_, MPI_STATUS_IGNORE), "receive");
    }
}

_Static_assert(sizeof(MPI_Request) <= sizeof(void *), "MPI_Request fits the opaque slot");

static MPI_Request *slot(struct comm_reqs *r)
{
    if (r->n >= COMM_MAXREQ) lat_die(1, NULL, "internal error: more than %d requests at once", COMM_MAXREQ);
    return (MPI_Request *)(void *)&r->req[r->n++];
}

void comm_isend(const void *buf, size_t bytes, int to, int tag, struct comm_reqs *r)
{
    if (bytes >= PIECE) lat_die(1, NULL, "internal error: halo message of %zu bytes", bytes);
    check(MPI_Isend(buf, (int)bytes, MPI_BYTE, to, tag, lat_comm_, slot(r)), "send");
}

void comm_irecv(void *buf, size_t bytes, int from, int tag, struct comm_reqs *r)
{
    if (bytes >= PIECE) lat_die(1, NULL, "internal error: halo message of %zu bytes", bytes);
    check(MPI_Irecv(buf, (int)bytes, MPI_BYTE, from, tag, lat_comm_, slot(r)), "receive");
}

void comm_waitall(struct comm_reqs *r)
{
    if (r->n) check(MPI_Waitall(r->n, (MPI_Request *)(void *)r->req, MPI_STATUSES_IGNORE), "wait");
    r->n = 0;
}

void comm_one_rank(void)
{
    if (size_ > 1 && rank_ != 0) comm_exit(0);
}

void comm_xor_u32(uint32_t *v, size_t n)
{
    if (size_ > 1) check(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT32_T, MPI_BXOR, lat_comm_), "xor");
}

struct comm_file {
    MPI_File fh;
    char path[4096];
};

struct comm_file *comm_file_open(const char *path, int write)
{
    struct comm_file *f = lat_calloc(1, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    int rc = MPI_File_open(lat_comm_, f->path, write ? MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL, &f->fh);
    if (rc != MPI_SUCCESS) lat_die(1, path, "MPI-IO cannot open the file for %s (error %d)", write ? "writing" : "reading", rc);
    return f;
}

void comm_file_read_at(struct comm_file *f, uint64_t offset, void *buf, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += PIECE) {
        int b = (int)(bytes - o < PIECE ? bytes - o : PIECE), got = 0;
        MPI_Status st;
        if (MPI_File_read_at(f->fh, (MPI_Offset)(offset + o), (char *)buf + o, b, MPI_BYTE, &st) != MPI_SUCCESS)
            lat_die(1, f->path, "MPI-IO read of %d bytes at byte %llu failed", b, (unsigned long long)(offset + o));
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (got != b)
            lat_die(1, f->path, "truncated: %d of %d bytes at byte %llu", got, b, (unsigned long long)(offset + o));
    }
}

void comm_file_write_at(struct comm_file *f, uint64_t offset, const void *buf, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += PIECE) {
        int b = (int)(bytes - o < PIECE ? bytes - o : PIECE);
        MPI_Status st;
        if (MPI_File_write_at(f->fh, (MPI_Offset)(offset + o), (const char *)buf + o, b, MPI_BYTE, &st) != MPI_SUCCESS)
            lat_die(1, f->path, "MPI-IO write of %d bytes at byte %llu failed", b, (unsigned long long)(offset + o));
    }
}

void comm_file_close(struct comm_file *f)
{
    if (MPI_File_close(&f->fh) != MPI_SUCCESS) lat_die(1, f->path, "MPI-IO close failed");
    free(f);
}

void comm_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    exit(status); /* finalize_at_exit runs */
}

void comm_die(int status)
{
    if (!started || wsize_ == 1) exit(status);
    if (replicated_) { /* the others may be anywhere: stop them */
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, status);
        exit(status);
    }
    if (in_root_section) {
        in_root_section = 0;
        root_message(&status, NULL, 0); /* the others are waiting: tell them */
        comm_exit(status);
    }
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

int comm_should_print_usage(void) { return wrank_ == 0; }

int comm_replicate(void)
{
    if (!started || wsize_ == 1 || replicated_) return comm_replicas();
    MPI_Comm self;
    check(MPI_Comm_split(MPI_COMM_WORLD, wrank_, 0, &self), "split into replicas");
    lat_comm_ = self;
    rank_ = 0;
    size_ = 1;
    replicated_ = 1;
    return wsize_;
}

void comm_replica_gather(double *v, size_t n)
{
    if (!replicated_) return;
    if (n > (size_t)2147483647) lat_die(1, NULL, "internal error: a replica's part of %zu doubles", n);
    check(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, (int)n, MPI_DOUBLE, MPI_COMM_WORLD), "gather over the replicas");
}

void comm_replica_sum(double *v, size_t n)
{
    if (!replicated_) return;
    const size_t piece = (size_t)1 << 27;
    for (size_t o = 0; o < n; o += piece) {
        size_t b = n - o < piece ? n - o : piece;
        check(MPI_Allreduce(MPI_IN_PLACE, v + o, (int)b, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "sum over the replicas");
    }
}

#else /* one process */

void comm_init(int *argc, char ***argv) { (void)argc; (void)argv; }
void comm_sum(double *v, size_t n) { (void)v; (void)n; }
void comm_sum_ld(long double *v, size_t n) { (void)v; (void)n; }
void comm_max(double *v, size_t n) { (void)v; (void)n; }
void comm_bcast(void *buf, size_t bytes, int root) { (void)buf; (void)bytes; (void)root; }
void comm_barrier(void) {}
void comm_root_begin(void) {}
int comm_error_echoes(void) { return 0; }
void comm_root_end(void *buf, size_t bytes) { (void)buf; (void)bytes; }
void comm_root_wait(void *buf, size_t bytes) { (void)buf; (void)bytes; }
static void no_peer(void) { lat_die(1, NULL, "internal error: point-to-point message in a one-process run"); }
void comm_send(const void *buf, size_t bytes, int to, int tag) { (void)buf; (void)bytes; (void)to; (void)tag; no_peer(); }
void comm_recv(void *buf, size_t bytes, int from, int tag) { (void)buf; (void)bytes; (void)from; (void)tag; no_peer(); }
void comm_isend(const void *buf, size_t bytes, int to, int tag, struct comm_reqs *r)
{ (void)buf; (void)bytes; (void)to; (void)tag; (void)r; no_peer(); }
void comm_irecv(void *buf, size_t bytes, int from, int tag, struct comm_reqs *r)
{ (void)buf; (void)bytes; (void)from; (void)tag; (void)r; no_peer(); }
void comm_waitall(struct comm_reqs *r) { r->n = 0; }
void comm_exit(int status) { fflush(stdout); exit(status); }
void comm_die(int status) { exit(status); }
int comm_should_print_usage(void) { return 1; }
int comm_replicate(void) { return 1; }
void comm_replica_sum(double *v, size_t n) { (void)v; (void)n; }
void comm_replica_gather(double *v, size_t n) { (void)v; (void)n; }
int comm_stdout_is_terminal(void) { return isatty(1); }
void comm_xor_u32(uint32_t *v, size_t n) { (void)v; (void)n; }
void comm_one_rank(void) {}
struct comm_file *comm_file_open(const char *path, int write)
{ (void)write; lat_die(1, path, "internal error: MPI-IO in a program built without MPI"); }
void comm_file_read_at(struct comm_file *f, uint64_t offset, void *buf, size_t bytes)
{ (void)f; (void)offset; (void)buf; (void)bytes; }
void comm_file_write_at(struct comm_file *f, uint64_t offset, const void *buf, size_t bytes)
{ (void)f; (void)offset; (void)buf; (void)bytes; }
void comm_file_close(struct comm_file *f) { (void)f; }

#endif
