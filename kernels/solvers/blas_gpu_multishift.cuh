/* solvers/blas_gpu_multishift.cuh -- the multi-shift CG's recursion in
 * double with its scalars on the device (struct solver_blas's
 * multishift_loop, solvers.h), included by blas_gpu.cuh after the fused
 * kernels (it launches them), so nvcc and the host emulation compile this
 * very text.  Exported (to blas_gpu.cuh): bl_multishift_loop (the table's
 * multishift_loop), bl_ms_open and bl_ms_release (blas_gpu_make's and
 * _destroy's), blas_gpu_device_loop (solver_blas_gpu_device_loop).
 *
 * Why (issue 21): multishift.c's loop waits for the host twice an
 * iteration (<p, q> and |r|^2 come back, alpha, beta and the shifts'
 * coefficients are computed there, the next launches follow), and on R
 * ranks each wait adds an MPI_Allreduce.  Here a reduction's chunk sums
 * end in one block on the device (k_bl_ms_reduce): this rank's slots, on R
 * ranks stored straight into every other rank's buffer over NVLink
 * (gpu_peer_remote; the slots are a few hundred bytes) with the round's
 * number after a system fence, a spin until every rank's number is here,
 * the slots added in global order, then the scalar step of
 * solvers/multishift_step.h a thread a shift; the vector kernels read their
 * coefficients from device memory.  The host only queues launches; it
 * looks at an iteration's "done" flag BL_MS_AHEAD iterations later (the
 * |r|^2 end's kernel stores it, with the iteration's sequence number after
 * a system fence, straight into page-locked host memory: a copy on the
 * stream was a 6 us phase of an iteration of about 150 on two H100 by
 * LAT_GPU_MS_PROFILE, session 21), so up
 * to BL_MS_AHEAD - 1 iterations
 * are queued past the last one; once the flag is set every scalar and
 * update kernel leaves x_i and p_i alone, and the operator's work on them is
 * wasted, nothing else.  With the loop's prepare (the operator's: a GPU
 * slab operator packs and sends p_base's faces) the update runs as two
 * launches, the base's first, then prepare, then the other shifts', whose
 * vector traffic hides the faces' journey (session 21).  Measured (lat-hmc 32^3x8, two H100, session 20):
 * one GPU 2-5 % faster than with the host's waits, two about the same --
 * the face exchange is their floor (docs/PERFORMANCE.md); the first form
 * (sums swapped by copies, a one-thread scalar kernel loading its operands
 * one by one) was 14 % slower on two GPUs.
 *
 * Bits: the same operations as multishift.c's loop in the same order --
 * the fused reductions' own kernel (k_bl_axpy_red_chunk), bl_chunk_slot's
 * sums, the slots added in global order after the ranks' zeros (as
 * comm_sum and bl_chunk_finish add them), multishift_step.h's scalar
 * steps, bl_axpy_caxpby_group's update -- so a solve gives multishift.c's
 * bits with or without this loop, for every R.
 *
 * Scope: sloppy double (no reliable updates), a reduction layout, every
 * vector double of one shape, at most BL_MS_MAX shifts, and on R > 1 ranks
 * the peers of bl_ms_enable (every rank able to map every other: one
 * node; where none is mapped -- the host emulation -- the slots travel by
 * gpu_peer_send, k_bl_ms_reduce's parts 1 and 2 around it); otherwise
 * bl_multishift_loop answers 0 and multishift.c runs its own loop.
 * LAT_GPU_MULTISHIFT=host (read at open) turns it off, for timing the two
 * side by side; =unfused keeps each reduction's end a launch of its own
 * (k_bl_ms_reduce) where one kernel could take it with its reduction
 * (k_bl_ms_red_end: one process, or every buffer mapped).
 *
 * The includer may define (defaults: the host emulation, which runs every
 * launch at once):
 *   BL_MS_WAIT(f, seq)  wait until the host ring slot f (page-locked
 *       memory, BL_HOST_ALLOC) holds sequence number seq (blas_gpu.cu: a
 *       spin on it, with a watchdog); counted as a download of *f */
#ifndef LAT_SOLVERS_BLAS_GPU_MULTISHIFT_CUH
#define LAT_SOLVERS_BLAS_GPU_MULTISHIFT_CUH

#include "solvers/multishift_step.h"
#include "gpu/peer.h"

#ifndef BL_MS_WAIT
#define BL_MS_WAIT(f, number) bl_ms_landed(f, number)
#define BL_MS_LANDED_HERE
#endif
/* LAT_GPU_MS_PROFILE=1 (blas_gpu.cu; timing only): an event at each of
 * the 7 phase marks of some iterations, the phases' mean times printed
 * after the solve */
#ifndef BL_MS_MARK
#define BL_MS_MARK(k, phase) ((void)0)
#define BL_MS_REPORT(iterations) ((void)0)
#endif

#define BL_MS_MAX 64  /* shifts (RATIONAL_MAX_ORDER) */
#define BL_MS_AHEAD 3 /* iterations queued before the host reads a flag */

/* the recursion's state, in device memory */
struct bl_ms_flags {
    int done, k;  /* every shift frozen or a breakdown; the iterations taken */
    unsigned seq; /* in the host's ring: the iteration's number, stored last */
};
#ifdef BL_MS_LANDED_HERE /* the emulation: every launch has run when the host gets here */
template <class F> static void bl_ms_landed(const F *f, unsigned seq) /* a ring slot of either device loop */
{
    if (f->seq != seq) lat_die(1, "solver_blas_gpu", "internal error: the device loop's ring slot %u is missing", seq);
    gpu_transfer_note_down(sizeof *f);
}
#endif
/* a ring slot (page-locked host memory) whose other fields this thread
 * has stored: a system fence, then its sequence number, which the host
 * waits for (BL_MS_WAIT) */
static __device__ void bl_ms_publish(volatile unsigned *seq_at, unsigned seq)
{
#ifdef __CUDA_ARCH__
    __threadfence_system();
#endif
    *seq_at = seq;
}
struct bl_ms_out { /* what the host reads back at the end (a few hundred bytes) */
    int active[BL_MS_MAX], status[BL_MS_MAX], iters[BL_MS_MAX];
};
struct bl_ms_start { /* the start, a kernel argument (nothing uploaded) */
    int n, base;
    double rr, bnorm;
    double stop[BL_MS_MAX], s[BL_MS_MAX];
};
struct bl_ms_state {
    struct bl_ms_flags f;
    struct bl_ms_out o;
    int n, base, nactive;
    double rr, alpha, alpha_prev, beta_prev, bnorm;
    bl_op_real rop; /* r -= alpha q */
    double zeta[BL_MS_MAX], zeta_prev[BL_MS_MAX], zeta_next[BL_MS_MAX], stop[BL_MS_MAX], s[BL_MS_MAX];
    int upd[BL_MS_MAX];
    bl_op_real axpy[BL_MS_MAX];     /* x_i += alpha_i p_i */
    bl_op_complex caxpby[BL_MS_MAX]; /* p_i = zeta_next r + beta_i p_i */
};

/* the vectors of the update kernel */
struct bl_ms_vecs {
    const double *r;
    double *p[BL_MS_MAX], *x[BL_MS_MAX];
};

#include "solvers/blas_gpu_ms_slots.cuh" /* bl_ms_where: where the sums of a reduction's end go and come from */

/* after <p_base, q> (K = 2): alpha, the shifts' zeta_{k+1} and alpha_i, or
 * the breakdown, as multishift.c's loop before its axpy_norm2 (a thread
 * per shift) */
static __device__ void bl_ms_alpha(struct bl_ms_state *st, double pq)
{
    const int i = (int)threadIdx.x, n = st->n;
    if (!(pq > 0) || !isfinite(pq)) {
        if (i < n) {
            if (st->o.active[i]) st->o.status[i] = SOLVER_BREAKDOWN, st->o.iters[i] = st->f.k - 1, st->o.active[i] = 0;
            st->upd[i] = 0;
        }
        __syncthreads();
        if (i == 0) st->nactive = 0, st->f.done = 1;
        return;
    }
    const double alpha = ms_div(st->rr, pq);
    if (i < n && st->o.active[i]) {
        const double zn =
            i == st->base ? 1 : ms_zeta_next(st->zeta[i], st->zeta_prev[i], alpha, st->alpha_prev, st->beta_prev, st->s[i]);
        st->zeta_next[i] = zn;
        st->axpy[i] = bl_real_op(ms_shift_alpha(alpha, zn, st->zeta[i]), 1);
    }
    if (i == 0) st->alpha = alpha, st->rop = bl_real_op(-alpha, 1);
}

/* after |r|^2 (K = 1): beta, the shifts' beta_i, which shifts this
 * iteration's update touches, then the freezing test, as multishift.c's
 * loop (a thread per shift) */
static __device__ void bl_ms_beta(struct bl_ms_state *st, double rr_new)
{
    __shared__ int frozen[BL_MS_MAX];
    const int i = (int)threadIdx.x, n = st->n;
    const double beta = ms_div(rr_new, st->rr);
    if (i < BL_MS_MAX) frozen[i] = 0;
    if (i < n) {
        st->upd[i] = st->o.active[i];
        if (st->o.active[i]) {
            const double zn = st->zeta_next[i];
            st->caxpby[i] = bl_op_complex{zn, 0, ms_shift_beta(beta, zn, st->zeta[i]), 0};
            st->zeta_prev[i] = st->zeta[i];
            st->zeta[i] = zn;
            if (ms_rel_residual(zn, rr_new, st->bnorm) <= st->stop[i]) {
                st->o.active[i] = 0;
                st->o.status[i] = SOLVER_CONVERGED;
                st->o.iters[i] = st->f.k;
                frozen[i] = 1;
            }
        }
    }
    __syncthreads(); /* every shift has read rr before thread 0 moves it on */
    if (i == 0) {
        for (int j = 0; j < n; j++) st->nactive -= frozen[j];
        st->alpha_prev = st->alpha;
        st->beta_prev = beta;
        st->rr = rr_new;
        if (st->nactive == 0) st->f.done = 1;
    }
}

/* after the beta step: the flags into the host's ring slot (page-locked
 * memory), done and k, a system fence, then the sequence number the host
 * waits for */
static __device__ void bl_ms_post_flags(const struct bl_ms_state *st, struct bl_ms_flags *post, unsigned seq)
{
    if (threadIdx.x != 0) return;
    volatile struct bl_ms_flags *p = post;
    p->done = st->f.done;
    p->k = st->f.k;
    bl_ms_publish(&p->seq, seq);
}

/* a reduction's end on the device, then the scalar step it feeds (K = 2:
 * alpha, K = 1: beta).  part: 0 all of it (one process, or the peers
 * mapped: direct puts), 1 the own slots only (then the host queues the
 * exchange through gpu_peer_send), 2 the rest after that exchange */
template <int K>
static __device__ void bl_ms_reduce_end(struct bl_ms_state *st, const double *chunk, const bl_chunk_grid &g,
                                        const struct solver_reduce_layout &l, const bl_ms_where &w, int part,
                                        struct bl_ms_flags *post, unsigned seq)
{
    __shared__ int skip;
    if (threadIdx.x == 0) {
        skip = st->f.done;
        if (K == 2 && !skip && part != 1) st->f.k++;
    }
    __syncthreads();
    if (part != 2) bl_ms_own_slots<K>(chunk, g, l, w); /* done or not: the ranks' rounds stay in step */
    if (part == 1) return;
    if (w.nremote) bl_ms_put_wait<K>(w);
    if (skip) { /* every shift frozen (or a breakdown) in an earlier iteration */
        if (K == 2 && threadIdx.x < (unsigned)st->n) st->upd[threadIdx.x] = 0;
    } else {
        double sum;
        bl_ms_sums<K, 1>(w, &sum);
        if (K == 2) bl_ms_alpha(st, sum);
        else bl_ms_beta(st, sum);
    }
    if (K == 1 && post) bl_ms_post_flags(st, post, seq); /* thread 0 moved st->f last: its own stores */
}
template <int K>
__global__ void __launch_bounds__(GPU_RED_BS) k_bl_ms_reduce(struct bl_ms_state *st, const double *chunk, bl_chunk_grid g,
                                                             struct solver_reduce_layout l, bl_ms_where w, int part,
                                                             struct bl_ms_flags *post, unsigned seq)
{
    bl_ms_reduce_end<K>(st, chunk, g, l, w, part, post, seq);
}

/* one launch instead of two (part 0 only: one process, or the peers
 * mapped): the reduction's chunk partials (K = 2: q += sigma p_base with
 * <p_base, q>, k_bl_axpy_red_chunk's; K = 1: r -= alpha q with |r|^2,
 * k_bl_ms_axpy_norm2's), then the last block to finish ends it as
 * k_bl_ms_reduce does -- the same operations, one kernel boundary fewer an
 * end (issue 21: the ends are fixed costs on two GPUs, session 21) */
template <int K>
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_ms_red_end(const double *x, double *y, int64_t chunk_sites, int nsub, int ncomp, int64_t nsites, int64_t nsites_pad,
                    bl_op_real op, struct bl_ms_state *st, double *chunk, bl_chunk_grid g, struct solver_reduce_layout l,
                    bl_ms_where w, unsigned *count, unsigned nblocks, struct bl_ms_flags *post, unsigned seq)
{
    gpu_chained_begin();
    if (K == 1) op = st->rop; /* r -= alpha q: alpha from the end before */
    bl_axpy_red_chunk<double, double, K>(x, NULL, y, NULL, chunk_sites, nsub, ncomp, nsites, nsites_pad, op, chunk);
    if (bl_ms_last_block(count, nblocks)) bl_ms_reduce_end<K>(st, chunk, g, l, w, 0, post, seq);
}

/* the state of multishift.c's loop before its first iteration */
__global__ void k_bl_ms_start(struct bl_ms_state *st, const bl_ms_start a)
{
    if (blockIdx.x != 0) return;
    const int i = (int)threadIdx.x;
    if (i < a.n) {
        st->zeta[i] = st->zeta_prev[i] = 1;
        st->stop[i] = a.stop[i];
        st->s[i] = a.s[i];
        st->o.active[i] = 1;
        st->o.status[i] = SOLVER_MAX_ITER;
        st->o.iters[i] = 0;
        st->upd[i] = 0;
    }
    if (i == 0) {
        st->f.done = st->f.k = 0;
        st->n = a.n;
        st->base = a.base;
        st->nactive = a.n;
        st->rr = a.rr;
        st->alpha = 0;
        st->alpha_prev = 1;
        st->beta_prev = 0;
        st->bnorm = a.bnorm;
    }
}

/* r -= alpha q with |r|^2's chunk partials, alpha from the device */
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_ms_axpy_norm2(const double *q, double *r, int64_t chunk_sites, int nsub, int ncomp, int64_t nsites, int64_t nsites_pad,
                       const struct bl_ms_state *st, double *partial)
{
    const bl_op_real op = st->rop;
    bl_axpy_red_chunk<double, double, 1>(q, NULL, r, NULL, chunk_sites, nsub, ncomp, nsites, nsites_pad, op, partial);
}

/* x_i += alpha_i p_i, p_i = zeta_next r + beta_i p_i for the shifts this
 * iteration updates (block b: shift b / nb_per of those the launch takes:
 * which 0 all, 1 the base alone, 2 all but the base) */
enum { BL_MS_ALL = 0, BL_MS_BASE = 1, BL_MS_OTHERS = 2 };
__global__ void __launch_bounds__(GPU_RED_BS)
    k_bl_ms_update(const bl_ms_vecs v, const struct bl_ms_state *st, size_t ngroups, unsigned nb_per, int which, int base)
{
    gpu_chained_begin();
    unsigned j = blockIdx.x / nb_per;
    if (which == BL_MS_BASE) j = (unsigned)base;
    else if (which == BL_MS_OTHERS && j >= (unsigned)base) j++;
    const size_t i = (size_t)(blockIdx.x % nb_per) * GPU_RED_BS + threadIdx.x;
    if (i >= ngroups || !st->upd[j]) return;
    bl_axpy_caxpby_group(v.r, v.p[j], v.x[j], i, st->axpy[j], st->caxpby[j]);
}

/* ---- host ------------------------------------------------------------------ */

/* the device loop's buffers, kept by struct bl_blas between solves */
struct bl_ms {
    int off;                  /* LAT_GPU_MULTISHIFT=host */
    int enabled;              /* bl_ms_enable ran: R = 1, or peers to every rank */
    int nranks, me;
    struct gpu_peer *peer;    /* R > 1 */
    double *remote[GPU_PEER_MAXPARTS]; /* the other ranks' buf mapped here (NULL: through gpu_peer_send) */
    size_t nslot;             /* the layout's global slots */
    double *buf;              /* device: struct bl_ms_where's layout */
    unsigned round;           /* reductions ended so far (the receive regions alternate) */
    struct bl_ms_state *st;   /* device */
    struct bl_ms_flags *ring; /* host, BL_MS_AHEAD slots (BL_HOST_ALLOC), stored into by the device */
    unsigned *count;          /* device: k_bl_ms_red_end's blocks done (0 between launches) */
    int unfused;              /* LAT_GPU_MULTISHIFT=unfused: each reduction's end a launch of its own */
    unsigned seq;             /* the iterations' sequence numbers so far, over every solve (both loops) */
    /* BiCGstab's loop (blas_gpu_bicg_loop.cuh), which shares buf and count */
    int bi_off;                    /* LAT_GPU_BICGSTAB=host */
    int bi_ahead;                  /* iterations queued ahead of the host's read (set with bi_st) */
    int bi_split;                  /* half updates by k_bl_bi_update_half (LAT_GPU_BICG_SPLIT=0: off) */
    struct bl_bi_state *bi_st;     /* device, allocated at its first solve */
    struct bl_bi_post *bi_ring;    /* host, BL_BI_AHEAD slots (BL_HOST_ALLOC) */
};

/* the loop's buffers for c's layout; on a slab decomposition d with R > 1
 * the peers (collective) -- every rank sends its slots to every other */
static void bl_ms_enable(struct bl_blas *c, const struct geometry *d, int nranks, int me)
{
    struct bl_ms *m = c->ms;
    if (!m || m->enabled || (m->off && m->bi_off) || !c->layout.chunk_reals) return;
    m->nranks = nranks;
    m->me = me;
    m->nslot = (c->layout.parts > 1 ? c->layout.parts : 1) * c->layout.total_chunks;
    const size_t bytes = (BL_MS_FLAGS / 2 + (1 + 2 * (size_t)nranks) * 2 * m->nslot) * sizeof(double);
    m->buf = (double *)gpu_alloc(bytes, "multi-shift slots");
    gpu_memset(m->buf, 0, bytes); /* the flag words: no round has landed */
    m->st = (struct bl_ms_state *)gpu_alloc(sizeof *m->st, "multi-shift state");
    m->count = (unsigned *)gpu_alloc(sizeof *m->count, "multi-shift block count");
    gpu_memset(m->count, 0, sizeof *m->count);
    m->ring = (struct bl_ms_flags *)BL_HOST_ALLOC(BL_MS_AHEAD * sizeof *m->ring);
    if (!m->ring) lat_die(1, "solver_blas_gpu", "out of host memory for the multi-shift flags");
    if (nranks > 1) {
        int dir[GPU_PEER_MAXPARTS];
        if (nranks - 1 > GPU_PEER_MAXPARTS) return; /* not enabled: the host loop */
        for (int i = 0; i < nranks - 1; i++) dir[i] = i + 1;
        if (nranks > BL_MS_FLAGS) return;
        m->peer = gpu_peer_open(d, m->buf, dir, nranks - 1);
        if (!m->peer) return; /* no peer mapping (another node, LAT_GPU_HALO=host): the host loop */
        for (int i = 0; i < nranks - 1; i++) m->remote[i] = (double *)gpu_peer_remote(m->peer, i);
    }
    m->enabled = 1;
}

/* at open (blas_gpu_make): the device loop's switch; with a layout on one
 * process it is on at once, on R ranks after solver_blas_gpu_device_loop
 * (the peers need the geometry) */
static void bl_ms_open(struct bl_blas *c)
{
    c->ms = (struct bl_ms *)calloc(1, sizeof *c->ms);
    if (!c->ms) lat_die(1, "solver_blas_gpu_open", "out of host memory");
    const char *e = getenv("LAT_GPU_MULTISHIFT");
    c->ms->off = e && strcmp(e, "host") == 0;
    c->ms->unfused = e && strcmp(e, "unfused") == 0;
    e = getenv("LAT_GPU_BICGSTAB");
    c->ms->bi_off = e && strcmp(e, "host") == 0;
    if (c->layout.chunk_reals && comm_size() == 1) bl_ms_enable(c, NULL, 1, 0);
}

/* solver_blas_gpu_device_loop (blas_gpu.h): the peers of the loop on a
 * t-slab decomposition of R > 1 ranks */
static void blas_gpu_device_loop(struct solver_blas *blas, const struct geometry *d)
{
    struct bl_blas *c = (struct bl_blas *)blas;
    if (c && d && d->size > 1) bl_ms_enable(c, d, d->size, d->rank);
}

static void bl_ms_release(struct bl_blas *c)
{
    struct bl_ms *m = c->ms;
    if (!m) return;
    gpu_peer_close(m->peer);
    if (m->buf) gpu_free(m->buf);
    if (m->st) gpu_free(m->st);
    if (m->count) gpu_free(m->count);
    if (m->ring) BL_HOST_FREE(m->ring);
    if (m->bi_st) gpu_free(m->bi_st);
    if (m->bi_ring) BL_HOST_FREE(m->bi_ring);
    free(m);
    c->ms = NULL;
}

/* a reduction's end after the launch that wrote c->chunk_dev: on one
 * process or with the peers mapped one kernel (k_bl_ms_reduce part 0),
 * else the own slots, the exchange queued through gpu_peer_send (device
 * side wait), and the rest */
/* the next reduction's slots and round */
static bl_ms_where bl_ms_where_next(struct bl_ms *m)
{
    bl_ms_where w = {};
    w.buf = m->buf;
    w.nranks = m->nranks;
    w.me = m->me;
    w.nslot = m->nslot;
    w.round = ++m->round;
    w.nremote = m->nranks > 1 && m->remote[0] ? m->nranks - 1 : 0;
    for (int i = 0; i < w.nremote; i++) w.remote[i] = m->remote[i];
    return w;
}
/* one process, or every rank's buffer mapped: a reduction ends in one kernel */
static bool bl_ms_one_part(const struct bl_ms *m) { return m->nranks == 1 || m->remote[0]; }

template <int K> static void bl_ms_reduce(struct bl_blas *c, const bl_chunk_grid &g, struct bl_ms_flags *post, unsigned seq)
{
    struct bl_ms *m = c->ms;
    const bl_ms_where w = bl_ms_where_next(m);
    if (bl_ms_one_part(m)) {
        blas_launch(k_bl_ms_reduce<K>, 1, true, m->st, (const double *)c->chunk_dev, g, c->layout, w, 0, post, seq);
        return;
    }
    blas_launch(k_bl_ms_reduce<K>, 1, true, m->st, (const double *)c->chunk_dev, g, c->layout, w, 1,
                (struct bl_ms_flags *)NULL, 0u);
    const size_t own = (size_t)(bl_ms_own(w) - w.buf) * sizeof(double);
    const size_t at = (size_t)(bl_ms_recv(w, w.buf, w.me) - w.buf) * sizeof(double);
    for (int i = 0; i < m->nranks - 1; i++) gpu_peer_send(m->peer, i, own, at, m->nslot * K * sizeof(double));
    gpu_peer_wait_device(m->peer);
    blas_launch(k_bl_ms_reduce<K>, 1, true, m->st, (const double *)c->chunk_dev, g, c->layout, w, 2, post, seq);
}

static int bl_multishift_loop(void *ctx, struct solver_ms_loop *L)
{
    struct bl_blas *c = (struct bl_blas *)ctx;
    struct bl_ms *m = c->ms;
    if (!m || !m->enabled || m->off || L->nshift > BL_MS_MAX || L->nshift < 1 || !c->layout.chunk_reals) return 0;
    if (comm_size() != m->nranks) return 0;
    if (L->r->prec != SOLVER_DOUBLE || L->q->prec != SOLVER_DOUBLE) return 0;
    for (int i = 0; i < L->nshift; i++) {
        if (L->p[i]->prec != SOLVER_DOUBLE || L->x[i].prec != SOLVER_DOUBLE) return 0;
        solver_vec_same_shape(L->r, L->p[i], "solver_blas_gpu multishift_loop");
        solver_vec_same_shape(L->r, &L->x[i], "solver_blas_gpu multishift_loop");
    }
    solver_vec_same_shape(L->r, L->q, "solver_blas_gpu multishift_loop");
    if (L->r->n == 0) return 0;

    /* the state of multishift.c's loop before its first iteration */
    bl_ms_start a = {};
    a.n = L->nshift;
    a.base = L->base;
    a.rr = L->rr;
    a.bnorm = L->bnorm;
    for (int i = 0; i < L->nshift; i++) a.stop[i] = L->stop[i], a.s[i] = ms_sub(L->sigma[i], L->sigma[L->base]);
    blas_launch(k_bl_ms_start, 1, false, m->st, a);

    const bl_chunk_grid g = bl_chunk_prepare<2>(c, L->r); /* K = 2's buffers also hold K = 1's */
    const int64_t nsites = bl_nsites(L->r), nsites_pad = bl_sites_pad(L->r);
    const size_t ngroups = bl_stored(L->r) / GPU_SPINOR_GROUP;
    const unsigned nb_per = bl_blocks(ngroups);
    bl_ms_vecs v = {};
    v.r = (const double *)L->r->data;
    for (int i = 0; i < L->nshift; i++) v.p[i] = (double *)L->p[i]->data, v.x[i] = (double *)L->x[i].data;
    const double *pb = (const double *)L->p[L->base]->data;
    double *q = (double *)L->q->data, *r = (double *)L->r->data;
    const bl_op_real qop = bl_real_op(L->sigma[L->base], 1); /* q += sigma_base p_base */
    const unsigned seq0 = m->seq; /* iteration k's flags carry seq0 + k: a slot's stale number never matches */
    const bool fused = bl_ms_one_part(m) && !m->unfused;
    int k;
    for (k = 1; k <= L->max_iter; k++) {
        if (k > BL_MS_AHEAD) { /* the flags of iteration k - BL_MS_AHEAD */
            const int slot = (k - BL_MS_AHEAD) % BL_MS_AHEAD;
            BL_MS_WAIT(&m->ring[slot], seq0 + (unsigned)(k - BL_MS_AHEAD));
            if (m->ring[slot].done) break;
        }
        BL_MS_MARK(k, 0);
        L->apply(L->actx, L->q, L->w, L->p[L->base]);
        BL_MS_MARK(k, 1);
        struct bl_ms_flags *post = &m->ring[k % BL_MS_AHEAD]; /* |r|^2's end stores the flags there */
        if (fused) { /* each reduction with its end: q += sigma p_base, <p_base, q>, alpha; r -= alpha q, |r|^2, beta */
            blas_launch_chained(k_bl_ms_red_end<2>, (unsigned)g.nb, true, pb, q, g.chunk_sites, g.nsub, g.ncomp, nsites, nsites_pad, qop,
                        m->st, c->chunk_dev, g, c->layout, bl_ms_where_next(m), m->count, (unsigned)g.nb,
                        (struct bl_ms_flags *)NULL, 0u);
            BL_MS_MARK(k, 2), BL_MS_MARK(k, 3);
            blas_launch_chained(k_bl_ms_red_end<1>, (unsigned)g.nb, true, (const double *)q, r, g.chunk_sites, g.nsub, g.ncomp, nsites,
                        nsites_pad, qop, m->st, c->chunk_dev, g, c->layout, bl_ms_where_next(m), m->count, (unsigned)g.nb,
                        post, seq0 + (unsigned)k);
            BL_MS_MARK(k, 4), BL_MS_MARK(k, 5);
        } else {
            blas_launch(k_bl_axpy_red_chunk<double, double, 2>, (unsigned)g.nb, true, pb, (const float *)NULL, q, (float *)NULL,
                        g.chunk_sites, g.nsub, g.ncomp, nsites, nsites_pad, qop, c->chunk_dev);
            BL_MS_MARK(k, 2);
            bl_ms_reduce<2>(c, g, NULL, 0); /* <p_base, q>, then alpha */
            BL_MS_MARK(k, 3);
            blas_launch(k_bl_ms_axpy_norm2, (unsigned)g.nb, true, (const double *)q, r, g.chunk_sites, g.nsub, g.ncomp, nsites,
                        nsites_pad, (const struct bl_ms_state *)m->st, c->chunk_dev);
            BL_MS_MARK(k, 4);
            bl_ms_reduce<1>(c, g, post, seq0 + (unsigned)k); /* |r|^2, then beta; the flags */
            BL_MS_MARK(k, 5);
        }
        if (L->prepare && L->nshift > 1) { /* p_base first: the operator sends its faces while the others update */
            blas_launch_chained(k_bl_ms_update, nb_per, false, v, (const struct bl_ms_state *)m->st, ngroups, nb_per, (int)BL_MS_BASE,
                        L->base);
            L->prepare(L->actx, L->p[L->base]);
            blas_launch_chained(k_bl_ms_update, nb_per * (unsigned)(L->nshift - 1), false, v, (const struct bl_ms_state *)m->st, ngroups,
                        nb_per, (int)BL_MS_OTHERS, L->base);
        } else {
            blas_launch_chained(k_bl_ms_update, nb_per * (unsigned)L->nshift, false, v, (const struct bl_ms_state *)m->st, ngroups,
                        nb_per, (int)BL_MS_ALL, L->base);
        }
        BL_MS_MARK(k, 6);
    }
    m->seq = seq0 + (unsigned)k; /* past every number queued */
    if (L->prepare) L->prepare(L->actx, NULL); /* the loop may end with the base's faces sent */
    struct bl_ms_flags f;
    struct bl_ms_out o;
    gpu_download(&f, &m->st->f, sizeof f);
    BL_MS_REPORT(f.k);
    gpu_download(&o, &m->st->o, sizeof o);
    for (int i = 0; i < L->nshift; i++) {
        L->result[i].status = (enum solver_status)o.status[i];
        L->result[i].iterations = o.active[i] ? f.k : o.iters[i];
    }
    return 1;
}

#endif
